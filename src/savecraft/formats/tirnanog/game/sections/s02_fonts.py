"""Section type 2: fonts, 16-byte descriptors each naming a Font asset by a string index."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from .....binary import Reader, Writer
from ..assets import FontAsset
from .common import BuildContext, ParseContext, sref
from .media import decode_media, encode_media, media_layout

TYPE = 2


@dataclass(slots=True)
class Font:
    name: int = sref()
    asset: FontAsset = field(default_factory=FontAsset)


@dataclass(slots=True)
class FontsSection:
    KIND: ClassVar[str] = "fonts"
    TYPE: ClassVar[int] = 2
    entries: list[Font] = field(default_factory=list)
    trailing: bytes = b""


LAYOUT = media_layout(FontsSection, Font, FontAsset, "entries")


def decode(r: Reader, ctx: ParseContext) -> FontsSection:
    return decode_media(LAYOUT, r, ctx)  # type: ignore[no-any-return]


def encode(s: FontsSection, w: Writer, ctx: BuildContext) -> None:
    encode_media(LAYOUT, s, w, ctx)
