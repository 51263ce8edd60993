"""Section type 19: equipment slots, 4-byte coordinates on the HUD's equipment background sprite."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from .....binary import Reader, Writer
from .common import BuildContext, ParseContext

TYPE = 19


@dataclass(slots=True)
class EquipmentSlot:
    left: int = 0
    top: int = 0


@dataclass(slots=True)
class EquipmentSlotsSection:
    KIND: ClassVar[str] = "equipment_slots"
    TYPE: ClassVar[int] = 19
    slots: list[EquipmentSlot] = field(default_factory=list)
    trailing: bytes = b""


def decode(r: Reader, ctx: ParseContext) -> EquipmentSlotsSection:
    if r.remaining % 4:
        ctx.report.error(r.offset, "equipment_slots", "a section length that is a multiple of 4",
                         f"{r.remaining} bytes")
    vals = r.array("u16", (r.remaining // 4) * 2, "equipment_slots")
    return EquipmentSlotsSection([EquipmentSlot(vals[i], vals[i + 1]) for i in range(0, len(vals), 2)],
                                 r.rest())


def encode(s: EquipmentSlotsSection, w: Writer, ctx: BuildContext) -> None:
    for i, sl in enumerate(s.slots):
        w.u16(sl.left, f"slots[{i}].left")
        w.u16(sl.top, f"slots[{i}].top")
    w.bytes(s.trailing)
