"""Section type 16: UI elements, parsed by its count bytes (NOTES.md: the fixed offsets do not add up).

Colours (ABGR), font definitions (style, size, font string index, 2 bytes
padding), sound effects (string indices), then 3-byte sprite records to the end.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from .....binary import Reader, Writer
from .common import (
    BuildContext,
    Layout,
    ParseContext,
    SpriteRef,
    read_sprite,
    sref,
    srefs,
    write_sprite,
)

TYPE = 16
DOCUMENTED = {"colors": 10, "fonts": 6, "sounds": 3}
UI_FONT = Layout("font definition", [("style", "u8"), ("size", "u8"), ("font", "str"), ("padding", "u16")])


@dataclass(slots=True)
class UiFont:
    style: int = 0
    size: int = 16
    font: int = sref()
    padding: int = 0


@dataclass(slots=True)
class UiElementsSection:
    KIND: ClassVar[str] = "ui_elements"
    TYPE: ClassVar[int] = 16
    colors: list[int] = field(default_factory=lambda: [0xFFFFFFFF] * 10)
    fonts: list[UiFont] = field(default_factory=lambda: [UiFont() for _ in range(6)])
    sounds: list[int] = srefs()
    sprites: list[SpriteRef] = field(default_factory=list)
    trailing: bytes = b""


def decode(r: Reader, ctx: ParseContext) -> UiElementsSection:
    start = r.offset
    nc = r.u8("ui_elements.color_count")
    colors = list(r.array("u32", r.count(nc, 4, "ui_elements.colors"), "ui_elements.colors"))
    nf = r.u8("ui_elements.font_count")
    r.count(nf, 7, "ui_elements.fonts")
    fonts = [UiFont(**UI_FONT.read(r, f"ui_elements.fonts[{i}]")) for i in range(nf)]
    ns = r.u8("ui_elements.sound_count")
    r.count(ns, 3, "ui_elements.sounds")
    sounds = [r.u24(f"ui_elements.sounds[{i}]") for i in range(ns)]
    for name, n in (("colors", nc), ("fonts", nf), ("sounds", ns)):
        if n != DOCUMENTED[name]:
            ctx.report.warning(start, f"ui_elements.{name}", f"{DOCUMENTED[name]} {name} (as documented)",
                               str(n))
    sprites = [read_sprite(r, f"ui_elements.sprites[{i}]") for i in range(r.remaining // 3)]
    if r.remaining:
        ctx.report.error(r.offset, "ui_elements.sprites", "3-byte sprite records to the end of the section",
                         f"{r.remaining} bytes left over")
    return UiElementsSection(colors, fonts, sounds, sprites, r.rest())


def encode(s: UiElementsSection, w: Writer, ctx: BuildContext) -> None:
    for name, items in (("colors", s.colors), ("fonts", s.fonts), ("sounds", s.sounds)):
        w.check_count(items, 255, name)
    w.u8(len(s.colors))
    w.array("u32", s.colors, "colors")
    w.u8(len(s.fonts))
    for i, f in enumerate(s.fonts):
        UI_FONT.write(w, f, ctx, f"fonts[{i}]")
    w.u8(len(s.sounds))
    for i, snd in enumerate(s.sounds):
        w.u24(ctx.s(snd), f"sounds[{i}]")
    for i, sp in enumerate(s.sprites):
        write_sprite(w, sp, f"sprites[{i}]")
    w.bytes(s.trailing)
