"""Section type 8: tile sprites (sprite category 1), descriptors over sprite maps."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from .....binary import Reader, Writer
from .common import BuildContext, ParseContext
from .sprites import Sprite, decode_sprites, encode_sprites

TYPE = 8
CATEGORY = 1


@dataclass(slots=True)
class TileSpritesSection:
    KIND: ClassVar[str] = "tile_sprites"
    TYPE: ClassVar[int] = 8
    CATEGORY: ClassVar[int] = 1
    sprites: list[Sprite] = field(default_factory=list)
    trailing: bytes = b""


def decode(r: Reader, ctx: ParseContext) -> TileSpritesSection:
    return TileSpritesSection(*decode_sprites(r, ctx, "tile_sprites"))


def encode(s: TileSpritesSection, w: Writer, ctx: BuildContext) -> None:
    encode_sprites(s.sprites, w, ctx, "tile_sprites")
    w.bytes(s.trailing)
