"""Section type 7: ui sprites (sprite category 0), descriptors over sprite maps."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from .....binary import Reader, Writer
from .common import BuildContext, ParseContext
from .sprites import Sprite, decode_sprites, encode_sprites

TYPE = 7
CATEGORY = 0


@dataclass(slots=True)
class UiSpritesSection:
    KIND: ClassVar[str] = "ui_sprites"
    TYPE: ClassVar[int] = 7
    CATEGORY: ClassVar[int] = 0
    sprites: list[Sprite] = field(default_factory=list)
    trailing: bytes = b""


def decode(r: Reader, ctx: ParseContext) -> UiSpritesSection:
    return UiSpritesSection(*decode_sprites(r, ctx, "ui_sprites"))


def encode(s: UiSpritesSection, w: Writer, ctx: BuildContext) -> None:
    encode_sprites(s.sprites, w, ctx, "ui_sprites")
    w.bytes(s.trailing)
