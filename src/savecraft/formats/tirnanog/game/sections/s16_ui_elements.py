"""Section type 16: UI elements, parsed by its count bytes (NOTES.md: the fixed offsets do not add up).

Colours (ABGR), font definitions (style, size, font string index, 2 bytes
padding), sound effects (string indices), then 3-byte sprite records to the end.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar
from .....binary import Reader, Writer
from .....layout import U8, U16, U32, Array, Field, List, Struct, ToEnd
from .common import (
    SPRITE,
    SREF,
    BuildContext,
    ParseContext,
    SpriteRef,
    prefix,
    read_section,
    sref,
    srefs,
    write_section,
)


TYPE = 16
DOCUMENTED = {"colors": 10, "fonts": 6, "sounds": 3}


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


UI_FONT = Struct(UiFont, [Field("style", U8), Field("size", U8), Field("font", SREF), Field("padding", U16)],
                 name="font definition")
UI_ELEMENTS = Struct(UiElementsSection, [
    Field("colors", Array(U32, prefix(U8, "color_count", "entries"))),
    Field("fonts", List(UI_FONT, prefix(U8, "font_count", "entries"))),
    Field("sounds", List(SREF, prefix(U8, "sound_count", "entries"))),
    Field("sprites", List(SPRITE, ToEnd(3))),
], name="UI elements")


def decode(r: Reader, ctx: ParseContext) -> UiElementsSection:
    start = r.offset
    s: UiElementsSection = read_section(UI_ELEMENTS, r, ctx)
    for name in ("colors", "fonts", "sounds"):
        n = len(getattr(s, name))
        if n != DOCUMENTED[name]:
            ctx.report.warning(start, f"{r.path}.{name}", f"{DOCUMENTED[name]} {name} (as documented)", str(n))
    if s.trailing:
        ctx.report.error(r.offset - len(s.trailing), f"{r.path}.sprites",
                         "3-byte sprite records to the end of the section", f"{len(s.trailing)} bytes left over")
    return s


def encode(s: UiElementsSection, w: Writer, ctx: BuildContext) -> None:
    write_section(UI_ELEMENTS, s, w, ctx)
