"""Section type 27: character option groups (deflated: 7-byte header, then option records)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from .....binary import Reader, Writer
from .....layout import U8, U24, Field, List, Ref, Struct
from .common import (
    CONDITION,
    SPRITE,
    BuildContext,
    Condition,
    ParseContext,
    SpriteRef,
    counted,
    prefix,
    sref,
    tref,
)
from .media import decode_media, encode_media, media_layout
from .structured import StructAsset

TYPE = 27


@dataclass(slots=True)
class StartItem:
    quantity: int = 1
    object: SpriteRef = field(default_factory=lambda: SpriteRef(1, 0))


@dataclass(slots=True)
class CharacterOption:
    name: int = tref()
    description: int = tref()
    attributes: list[Condition] = field(default_factory=list)  # relation, attribute, value
    inventory: list[StartItem] = field(default_factory=list)
    sprites: list[SpriteRef] = field(default_factory=list)  # the last one is the portrait


@dataclass(slots=True)
class CharacterOptionGroup:
    name: int = tref()
    palette: SpriteRef = field(default_factory=SpriteRef)
    options: list[CharacterOption] = field(default_factory=list)
    trailing: bytes = b""


START_ITEM = Struct(StartItem, [Field("quantity", U8), Field("object", SPRITE)], name="inventory item")
OPTION = Struct(CharacterOption, [
    Field("name", U24), Field("description", U24), counted("attribute_count", "attributes"),
    counted("item_count", "inventory"), counted("sprite_count", "sprites"),
    Field("attributes", List(CONDITION, Ref("attribute_count"))),
    Field("inventory", List(START_ITEM, Ref("item_count"))),
    Field("sprites", List(SPRITE, Ref("sprite_count"))),
], name="character option")
OPTION_GROUP = Struct(CharacterOptionGroup, [
    Field("name", U24), Field("palette", SPRITE), Field("options", List(OPTION, prefix(U8, "option_count", "options"))),
], name="character option group")

class CharacterOptionAsset(StructAsset[CharacterOptionGroup]):
    WHAT = "character option group"
    VALUE = CharacterOptionGroup
    LAYOUT = OPTION_GROUP


@dataclass(slots=True)
class CharacterOptionEntry:
    name: int = sref()
    asset: CharacterOptionAsset = field(default_factory=CharacterOptionAsset)


@dataclass(slots=True)
class CharacterOptionsSection:
    KIND: ClassVar[str] = "character_options"
    TYPE: ClassVar[int] = 27
    groups: list[CharacterOptionEntry] = field(default_factory=list)
    trailing: bytes = b""


LAYOUT = media_layout(CharacterOptionsSection, CharacterOptionEntry, CharacterOptionAsset, "groups")


def decode(r: Reader, ctx: ParseContext) -> CharacterOptionsSection:
    return decode_media(LAYOUT, r, ctx)  # type: ignore[no-any-return]


def encode(s: CharacterOptionsSection, w: Writer, ctx: BuildContext) -> None:
    encode_media(LAYOUT, s, w, ctx)
