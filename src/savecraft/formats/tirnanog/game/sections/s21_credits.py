"""Section type 21: credits (music, background, fonts), then author lists per category."""

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
    srefs,
)

TYPE = 21
CREDITS_HEAD = Layout("credits header", [
    ("music", "str"), ("background", "sprite"), ("header_color", "u32"), ("header_font", "font"),
    ("names_color", "u32"), ("names_font", "font"),
])
CATEGORIES = {"g": "game design", "c": "code", "d": "graphics design", "a": "art", "f": "fonts",
              "m": "music", "s": "sound effects", "v": "voice", "t": "translations", "p": "publisher"}


@dataclass(slots=True)
class CreditCategory:
    code: str = "g"  # one of CATEGORIES
    authors: list[int] = srefs()


@dataclass(slots=True)
class CreditsSection:
    KIND: ClassVar[str] = "credits"
    TYPE: ClassVar[int] = 21
    music: int = sref()
    background: SpriteRef = field(default_factory=SpriteRef)
    header_color: int = 0xFFFFFFFF
    header_font: FontRef = field(default_factory=FontRef)
    names_color: int = 0xFFFFFFFF
    names_font: FontRef = field(default_factory=FontRef)
    categories: list[CreditCategory] = field(default_factory=list)
    trailing: bytes = b""


def decode(r: Reader, ctx: ParseContext) -> CreditsSection:
    s = CreditsSection(**CREDITS_HEAD.read(r, "credits"))
    while r.remaining >= 3:
        p = f"credits.categories[{len(s.categories)}]"
        code = chr(r.u8(p + ".code"))
        if code not in CATEGORIES:
            ctx.report.error(r.offset - 1, p + ".code", "one of " + " ".join(CATEGORIES), repr(code))
        n = r.u16(p + ".count")
        r.count(n, 3, p + ".authors")
        s.categories.append(CreditCategory(code, [r.u24(f"{p}.authors[{i}]") for i in range(n)]))
    if r.remaining:
        ctx.report.error(r.offset, "credits", "a whole category record", f"{r.remaining} bytes")
    s.trailing = r.rest()
    return s


def encode(s: CreditsSection, w: Writer, ctx: BuildContext) -> None:
    CREDITS_HEAD.write(w, s, ctx)
    for i, c in enumerate(s.categories):
        code = c.code.encode("latin-1", "replace")
        w.bytes(code, f"categories[{i}].code", 1)
        w.check_count(c.authors, 0xFFFF, f"categories[{i}].authors", "authors")
        w.u16(len(c.authors))
        for k, a in enumerate(c.authors):
            w.u24(ctx.s(a), f"categories[{i}].authors[{k}]")
    w.bytes(s.trailing)
