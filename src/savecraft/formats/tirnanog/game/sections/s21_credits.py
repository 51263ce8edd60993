"""Section type 21: credits (music, background, fonts), then author lists per category."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar
from .....binary import Reader, Writer
from .....layout import U8, U16, U32, Adapt, Field, List, Struct
from .common import FONT, SPRITE, SREF, BuildContext, FontRef, ParseContext, SpriteRef, prefix, sref, srefs


TYPE = 21
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


def _code_in(raw: int) -> str:
    return chr(raw)


def _code_out(code: str) -> int:
    return ord(code.encode("latin-1", "replace")[:1] or b"?")


CATEGORY = Struct(CreditCategory, [
    Field("code", Adapt(U8, _code_in, _code_out, "a category letter")),
    Field("authors", List(SREF, prefix(U16, "count", "authors"))),
], name="credits category")
CREDITS_HEAD = Struct(CreditsSection, [
    Field("music", SREF), Field("background", SPRITE), Field("header_color", U32), Field("header_font", FONT),
    Field("names_color", U32), Field("names_font", FONT),
], name="credits header")


def decode(r: Reader, ctx: ParseContext) -> CreditsSection:
    s: CreditsSection = CREDITS_HEAD.read(r, ctx)
    while r.remaining >= 3:
        at = r.offset
        p = f"categories[{len(s.categories)}]"
        c: CreditCategory = CATEGORY.read(r, ctx, p)
        if c.code not in CATEGORIES:
            ctx.report.error(at, f"{r.path}.{p}.code", "one of " + " ".join(CATEGORIES), repr(c.code))
        s.categories.append(c)
    if r.remaining:
        ctx.report.error(r.offset, r.path, "a whole category record", f"{r.remaining} bytes")
        s.trailing = r.rest("trailing")
    return s


def encode(s: CreditsSection, w: Writer, ctx: BuildContext) -> None:
    CREDITS_HEAD.write(s, w, ctx)
    for i, c in enumerate(s.categories):
        CATEGORY.write(c, w, ctx, f"categories[{i}]")
    w.bytes(s.trailing, "trailing")
