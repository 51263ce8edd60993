"""Section type 9: character sprites (sprite category 2), descriptors over sprite maps."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from .....binary import Reader, Writer
from .common import BuildContext, ParseContext
from .sprites import Sprite, decode_sprites, encode_sprites, sprites_layout

TYPE = 9
CATEGORY = 2


@dataclass(slots=True)
class CharacterSpritesSection:
    KIND: ClassVar[str] = "character_sprites"
    TYPE: ClassVar[int] = 9
    CATEGORY: ClassVar[int] = 2
    sprites: list[Sprite] = field(default_factory=list)
    trailing: bytes = b""


LAYOUT = sprites_layout(CharacterSpritesSection)


def decode(r: Reader, ctx: ParseContext) -> CharacterSpritesSection:
    return decode_sprites(LAYOUT, r, ctx)  # type: ignore[no-any-return]


def encode(s: CharacterSpritesSection, w: Writer, ctx: BuildContext) -> None:
    encode_sprites(LAYOUT, s, w, ctx)
