"""Section type 8: tile sprites (sprite category 1), descriptors over sprite maps."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from .....binary import Reader, Writer
from .common import BuildContext, ParseContext
from .sprites import Sprite, decode_sprites, encode_sprites, sprites_layout

TYPE = 8
CATEGORY = 1


@dataclass(slots=True)
class TileSpritesSection:
    KIND: ClassVar[str] = "tile_sprites"
    TYPE: ClassVar[int] = 8
    CATEGORY: ClassVar[int] = 1
    sprites: list[Sprite] = field(default_factory=list)
    trailing: bytes = b""


LAYOUT = sprites_layout(TileSpritesSection)


def decode(r: Reader, ctx: ParseContext) -> TileSpritesSection:
    return decode_sprites(LAYOUT, r, ctx)  # type: ignore[no-any-return]


def encode(s: TileSpritesSection, w: Writer, ctx: BuildContext) -> None:
    encode_sprites(LAYOUT, s, w, ctx)
