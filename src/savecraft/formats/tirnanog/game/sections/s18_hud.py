"""Section type 18: the HUD (navigation, item bar, status bar, inventory, progress bars)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar
from .....binary import Reader, Writer
from .....layout import U8, U16, Field, List, Struct
from .common import (
    FONT,
    SPRITE,
    SREF,
    BuildContext,
    FontRef,
    ParseContext,
    SpriteRef,
    prefix,
    read_section,
    sref,
    write_section,
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


BAR = Struct(ProgressBar, [
    Field("type", U8), Field("left", U16), Field("top", U16), Field("value_attribute", SREF),
    Field("max_attribute", SREF), Field("sprite", SPRITE), Field("background", SPRITE),
], name="progress bar")
assert BAR.min_size == BAR_SIZE
HUD = Struct(HudSection, [
    Field("navigator", SPRITE), Field("action_buttons", SPRITE), Field("itembar_background", SPRITE),
    Field("itembar_foreground", SPRITE), Field("items", U8), Field("item_width", U8), Field("item_height", U8),
    Field("item_left", U8), Field("item_top", U8), Field("item_gap", U8), Field("handheld_gap", U8),
    Field("statusbar_combined", U8), Field("statusbar_background", SPRITE), Field("statusbar_foreground", SPRITE),
    Field("inventory_icon", SPRITE), Field("inventory_pressed", SPRITE), Field("slot_width", U8),
    Field("slot_height", U8), Field("slot_left", U8), Field("slot_top", U8), Field("count_font", FONT),
    Field("slot_background", SPRITE), Field("slot_selected", SPRITE), Field("equipment_background", SPRITE),
    Field("progress_bars", List(BAR, prefix(U8, "progress_bar_count", "bars"))),
], name="HUD")
assert HUD.min_size == 51


def decode(r: Reader, ctx: ParseContext) -> HudSection:
    h: HudSection = read_section(HUD, r, ctx)
    if h.trailing:
        ctx.report.error(r.offset - len(h.trailing), r.path, "the end of the section after the progress bars",
                         f"{len(h.trailing)} more bytes")
    return h


def encode(h: HudSection, w: Writer, ctx: BuildContext) -> None:
    write_section(HUD, h, w, ctx)
