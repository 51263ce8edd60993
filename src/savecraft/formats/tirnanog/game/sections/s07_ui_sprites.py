"""Section type 7: ui sprites (sprite category 0), descriptors over sprite maps."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from .....binary import Reader, Writer
from .common import BuildContext, ParseContext
from .sprites import Sprite, decode_sprites, encode_sprites, sprites_layout

TYPE = 7
CATEGORY = 0


@dataclass(slots=True)
class UiSpritesSection:
    KIND: ClassVar[str] = "ui_sprites"
    TYPE: ClassVar[int] = 7
    CATEGORY: ClassVar[int] = 0
    sprites: list[Sprite] = field(default_factory=list)
    trailing: bytes = b""


LAYOUT = sprites_layout(UiSpritesSection)


def decode(r: Reader, ctx: ParseContext) -> UiSpritesSection:
    return decode_sprites(LAYOUT, r, ctx)  # type: ignore[no-any-return]


def encode(s: UiSpritesSection, w: Writer, ctx: BuildContext) -> None:
    encode_sprites(LAYOUT, s, w, ctx)
