"""Section type 9: character sprites (sprite category 2), descriptors over sprite maps."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from .....binary import Reader, Writer
from .common import BuildContext, ParseContext
from .sprites import Sprite, decode_sprites, encode_sprites

TYPE = 9
CATEGORY = 2


@dataclass(slots=True)
class CharacterSpritesSection:
    KIND: ClassVar[str] = "character_sprites"
    TYPE: ClassVar[int] = 9
    CATEGORY: ClassVar[int] = 2
    sprites: list[Sprite] = field(default_factory=list)
    trailing: bytes = b""


def decode(r: Reader, ctx: ParseContext) -> CharacterSpritesSection:
    return CharacterSpritesSection(*decode_sprites(r, ctx, "character_sprites"))


def encode(s: CharacterSpritesSection, w: Writer, ctx: BuildContext) -> None:
    encode_sprites(s.sprites, w, ctx, "character_sprites")
    w.bytes(s.trailing)
