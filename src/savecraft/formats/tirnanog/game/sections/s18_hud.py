"""Section type 18: the HUD (navigation, item bar, status bar, inventory, progress bars)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from .....binary import Reader, Writer
from .common import (
    BuildContext,
    FontRef,
    ParseContext,
    SpriteRef,
    read_font,
    read_sprite,
    sref,
    write_font,
    write_sprite,
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


_BYTES1 = ("items", "item_width", "item_height", "item_left", "item_top", "item_gap", "handheld_gap",
           "statusbar_combined")
_SLOTS = ("slot_width", "slot_height", "slot_left", "slot_top")


def decode(r: Reader, ctx: ParseContext) -> HudSection:
    h = HudSection()
    for name in ("navigator", "action_buttons", "itembar_background", "itembar_foreground"):
        setattr(h, name, read_sprite(r, "hud." + name))
    for name in _BYTES1:
        setattr(h, name, r.u8("hud." + name))
    for name in ("statusbar_background", "statusbar_foreground", "inventory_icon", "inventory_pressed"):
        setattr(h, name, read_sprite(r, "hud." + name))
    for name in _SLOTS:
        setattr(h, name, r.u8("hud." + name))
    h.count_font = read_font(r, "hud.count_font")
    for name in ("slot_background", "slot_selected", "equipment_background"):
        setattr(h, name, read_sprite(r, "hud." + name))
    n = r.u8("hud.progress_bar_count")
    r.count(n, BAR_SIZE, "hud.progress_bars")
    for i in range(n):
        p = f"hud.progress_bars[{i}]"
        h.progress_bars.append(ProgressBar(r.u8(p + ".type"), r.u16(p + ".left"), r.u16(p + ".top"),
                                           r.u24(p + ".value_attribute"), r.u24(p + ".max_attribute"),
                                           read_sprite(r, p + ".sprite"), read_sprite(r, p + ".background")))
    if r.remaining:
        ctx.report.error(r.offset, "hud", "the end of the section after the progress bars",
                         f"{r.remaining} more bytes")
    h.trailing = r.rest()
    return h


def encode(h: HudSection, w: Writer, ctx: BuildContext) -> None:
    for name in ("navigator", "action_buttons", "itembar_background", "itembar_foreground"):
        write_sprite(w, getattr(h, name), name)
    for name in _BYTES1:
        w.u8(getattr(h, name), name)
    for name in ("statusbar_background", "statusbar_foreground", "inventory_icon", "inventory_pressed"):
        write_sprite(w, getattr(h, name), name)
    for name in _SLOTS:
        w.u8(getattr(h, name), name)
    write_font(w, h.count_font, ctx, "count_font")
    for name in ("slot_background", "slot_selected", "equipment_background"):
        write_sprite(w, getattr(h, name), name)
    if len(h.progress_bars) > 255:
        w._bad("progress_bars", "at most 255 bars", str(len(h.progress_bars)))
    w.u8(len(h.progress_bars))
    for i, b in enumerate(h.progress_bars):
        p = f"progress_bars[{i}]"
        w.u8(b.type, p)
        w.u16(b.left, p)
        w.u16(b.top, p)
        w.u24(ctx.s(b.value_attribute), p)
        w.u24(ctx.s(b.max_attribute), p)
        write_sprite(w, b.sprite, p)
        write_sprite(w, b.background, p)
    w.bytes(h.trailing)
