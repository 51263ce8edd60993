"""Section type 28: NPC types (deflated: 13-byte header, attributes, inventory, sprites, event handlers)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from .....binary import Reader, Writer
from .....layout import U8, U16, U24, Field, List, Ref, Struct
from .common import (
    CONDITION,
    HANDLER,
    SPRITE,
    BuildContext,
    Condition,
    EventHandler,
    ParseContext,
    SpriteRef,
    counted,
    sref,
    tref,
)
from .media import decode_media, encode_media, media_layout
from .structured import StructAsset

TYPE = 28
@dataclass(slots=True)
class NpcItem:
    chance: int = 100  # percent
    quantity: int = 1
    resupply: int = 0  # minutes
    object: SpriteRef = field(default_factory=lambda: SpriteRef(1, 0))


@dataclass(slots=True)
class NpcType:
    title: int = tref()
    behaviour: int = 0
    speed: int = 100  # percent
    direction_change: int = 100  # 1/100 s
    patrol_path: int = 0
    attributes: list[Condition] = field(default_factory=list)
    inventory: list[NpcItem] = field(default_factory=list)
    sprites: list[SpriteRef] = field(default_factory=list)  # the last one is the portrait
    handlers: list[EventHandler] = field(default_factory=list)
    trailing: bytes = b""


NPC_ITEM = Struct(NpcItem, [Field("chance", U8), Field("quantity", U24), Field("resupply", U24),
                            Field("object", SPRITE)], name="NPC inventory item")
NPC_TYPE = Struct(NpcType, [
    Field("title", U24), Field("behaviour", U8), Field("speed", U16), Field("direction_change", U16),
    Field("patrol_path", U8), counted("attribute_count", "attributes"), counted("item_count", "inventory"),
    counted("sprite_count", "sprites"), counted("handler_count", "handlers"),
    Field("attributes", List(CONDITION, Ref("attribute_count"))),
    Field("inventory", List(NPC_ITEM, Ref("item_count"))),
    Field("sprites", List(SPRITE, Ref("sprite_count"))),
    Field("handlers", List(HANDLER, Ref("handler_count"))),
], name="NPC type")


class NpcAsset(StructAsset[NpcType]):
    WHAT = "NPC type"
    VALUE = NpcType
    LAYOUT = NPC_TYPE


@dataclass(slots=True)
class NpcEntry:
    name: int = sref()
    asset: NpcAsset = field(default_factory=NpcAsset)


@dataclass(slots=True)
class NpcTypesSection:
    KIND: ClassVar[str] = "npc_types"
    TYPE: ClassVar[int] = 28
    npcs: list[NpcEntry] = field(default_factory=list)
    trailing: bytes = b""


LAYOUT = media_layout(NpcTypesSection, NpcEntry, NpcAsset, "npcs")


def decode(r: Reader, ctx: ParseContext) -> NpcTypesSection:
    return decode_media(LAYOUT, r, ctx)  # type: ignore[no-any-return]


def encode(s: NpcTypesSection, w: Writer, ctx: BuildContext) -> None:
    encode_media(LAYOUT, s, w, ctx)
