"""Section type 10: portrait sprites (sprite category 3), descriptors over sprite maps."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from .....binary import Reader, Writer
from .common import BuildContext, ParseContext
from .sprites import Sprite, decode_sprites, encode_sprites, sprites_layout

TYPE = 10
CATEGORY = 3


@dataclass(slots=True)
class PortraitSpritesSection:
    KIND: ClassVar[str] = "portrait_sprites"
    TYPE: ClassVar[int] = 10
    CATEGORY: ClassVar[int] = 3
    sprites: list[Sprite] = field(default_factory=list)
    trailing: bytes = b""


LAYOUT = sprites_layout(PortraitSpritesSection)


def decode(r: Reader, ctx: ParseContext) -> PortraitSpritesSection:
    return decode_sprites(LAYOUT, r, ctx)  # type: ignore[no-any-return]


def encode(s: PortraitSpritesSection, w: Writer, ctx: BuildContext) -> None:
    encode_sprites(LAYOUT, s, w, ctx)
