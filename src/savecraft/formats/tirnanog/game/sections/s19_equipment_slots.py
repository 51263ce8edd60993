"""Section type 19: equipment slots, 4-byte coordinates on the HUD's equipment background sprite."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar
from .....binary import Reader, Writer
from .....layout import U16, Field, List, Struct, ToEnd
from .common import BuildContext, ParseContext, read_section, write_section


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


SLOT = Struct(EquipmentSlot, [Field("left", U16), Field("top", U16)], name="equipment slot")
SLOTS = Struct(EquipmentSlotsSection, [Field("slots", List(SLOT, ToEnd(4)))], name="equipment slots")


def decode(r: Reader, ctx: ParseContext) -> EquipmentSlotsSection:
    if r.remaining % 4:
        ctx.report.error(r.offset, r.path, "a section length that is a multiple of 4", f"{r.remaining} bytes")
    return read_section(SLOTS, r, ctx)  # type: ignore[no-any-return]


def encode(s: EquipmentSlotsSection, w: Writer, ctx: BuildContext) -> None:
    write_section(SLOTS, s, w, ctx)
