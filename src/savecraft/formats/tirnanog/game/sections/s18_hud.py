"""Section type 18: the HUD (navigation, item bar, status bar, inventory, progress bars)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from .....binary import Reader, Writer
from .common import (
    BuildContext,
    FontRef,
    Layout,
    ParseContext,
    SpriteRef,
    sref,
)

TYPE = 18
BAR_SIZE = 17


def _sprite() -> SpriteRef:
    return field(default_factory=SpriteRef)


@dataclass(slots=True)
class ProgressBar:
    type: int = 0
    left: int = 0
    top: int = 0
    value_attribute: int = sref()
    max_attribute: int = sref()
    sprite: SpriteRef = _sprite()
    background: SpriteRef = _sprite()


@dataclass(slots=True)
class HudSection:
    KIND: ClassVar[str] = "hud"
    TYPE: ClassVar[int] = 18
    navigator: SpriteRef = _sprite()
    action_buttons: SpriteRef = _sprite()
    itembar_background: SpriteRef = _sprite()
    itembar_foreground: SpriteRef = _sprite()
    items: int = 0
    item_width: int = 0
    item_height: int = 0
    item_left: int = 0
    item_top: int = 0
    item_gap: int = 0
    handheld_gap: int = 0
    statusbar_combined: int = 0
    statusbar_background: SpriteRef = _sprite()
    statusbar_foreground: SpriteRef = _sprite()
    inventory_icon: SpriteRef = _sprite()
    inventory_pressed: SpriteRef = _sprite()
    slot_width: int = 0
    slot_height: int = 0
    slot_left: int = 0
    slot_top: int = 0
    count_font: FontRef = field(default_factory=FontRef)
    slot_background: SpriteRef = _sprite()
    slot_selected: SpriteRef = _sprite()
    equipment_background: SpriteRef = _sprite()
    progress_bars: list[ProgressBar] = field(default_factory=list)
    trailing: bytes = b""


HUD = Layout("HUD", [
    ("navigator", "sprite"), ("action_buttons", "sprite"), ("itembar_background", "sprite"),
    ("itembar_foreground", "sprite"), ("items", "u8"), ("item_width", "u8"), ("item_height", "u8"),
    ("item_left", "u8"), ("item_top", "u8"), ("item_gap", "u8"), ("handheld_gap", "u8"),
    ("statusbar_combined", "u8"), ("statusbar_background", "sprite"), ("statusbar_foreground", "sprite"),
    ("inventory_icon", "sprite"), ("inventory_pressed", "sprite"), ("slot_width", "u8"), ("slot_height", "u8"),
    ("slot_left", "u8"), ("slot_top", "u8"), ("count_font", "font"), ("slot_background", "sprite"),
    ("slot_selected", "sprite"), ("equipment_background", "sprite"),
])
assert HUD.size == 50
BAR = Layout("progress bar", [
    ("type", "u8"), ("left", "u16"), ("top", "u16"), ("value_attribute", "str"), ("max_attribute", "str"),
    ("sprite", "sprite"), ("background", "sprite"),
])
assert BAR.size == BAR_SIZE


def decode(r: Reader, ctx: ParseContext) -> HudSection:
    h = HudSection(**HUD.read(r, "hud"))
    n = r.u8("hud.progress_bar_count")
    r.count(n, BAR_SIZE, "hud.progress_bars")
    h.progress_bars = [ProgressBar(**BAR.read(r, f"hud.progress_bars[{i}]")) for i in range(n)]
    if r.remaining:
        ctx.report.error(r.offset, "hud", "the end of the section after the progress bars",
                         f"{r.remaining} more bytes")
    h.trailing = r.rest()
    return h


def encode(h: HudSection, w: Writer, ctx: BuildContext) -> None:
    HUD.write(w, h, ctx)
    w.check_count(h.progress_bars, 255, "progress_bars", "bars")
    w.u8(len(h.progress_bars), "progress_bar_count")
    for i, b in enumerate(h.progress_bars):
        BAR.write(w, b, ctx, f"progress_bars[{i}]")
    w.bytes(h.trailing)
