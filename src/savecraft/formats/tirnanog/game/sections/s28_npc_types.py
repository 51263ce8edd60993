"""Section type 28: NPC types (deflated: 13-byte header, attributes, inventory, sprites, event handlers)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from .....binary import Reader, Record, Writer
from ..assets import AssetContext
from .common import (
    BuildContext,
    Condition,
    EventHandler,
    ParseContext,
    SpriteRef,
    read_conditions,
    read_handlers,
    read_sprites,
    sref,
    tref,
    write_conditions,
    write_handlers,
    write_sprite,
)
from .media import decode_media, encode_media
from .structured import StructAsset

TYPE = 28
NPC_HEAD = Record("NPC type header", [
    ("title", "u24"), ("behaviour", "u8"), ("speed", "u16"), ("direction_change", "u16"),
    ("patrol_path", "u8"), ("attribute_count", "u8"), ("item_count", "u8"), ("sprite_count", "u8"),
    ("handler_count", "u8"),
])
NPC_ITEM = Record("NPC inventory item", [
    ("chance", "u8"), ("quantity", "u24"), ("resupply", "u24"), ("category", "u8"), ("index", "u16"),
])


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


def _counts(w: Writer, n: NpcType) -> None:
    for name in ("attributes", "inventory", "sprites", "handlers"):
        w.check_count(getattr(n, name), 255, name)


class NpcAsset(StructAsset[NpcType]):
    WHAT = "NPC type"
    VALUE = NpcType

    def read(self, r: Reader, ctx: AssetContext) -> NpcType:
        title, behaviour, speed, change, patrol, a, i, s, e = r.record(NPC_HEAD, "header")
        n = NpcType(title, behaviour, speed, change, patrol)
        n.attributes = read_conditions(r, a, "attributes")
        r.count(i, NPC_ITEM.size, "inventory")
        for k in range(i):
            chance, qty, resupply, cat, idx = r.record(NPC_ITEM, f"inventory[{k}]")
            n.inventory.append(NpcItem(chance, qty, resupply, SpriteRef(cat, idx)))
        n.sprites = read_sprites(r, s, "sprites")
        r.count(e, 7, "handlers")
        n.handlers = read_handlers(r, e, ctx, "handlers")
        return n

    def write(self, w: Writer, n: NpcType, ctx: Any) -> None:
        _counts(w, n)
        w.record(NPC_HEAD, (n.title, n.behaviour, n.speed, n.direction_change, n.patrol_path, len(n.attributes),
                            len(n.inventory), len(n.sprites), len(n.handlers)), "header")
        write_conditions(w, n.attributes, ctx, "attributes")
        for k, it in enumerate(n.inventory):
            w.record(NPC_ITEM, (it.chance, it.quantity, it.resupply, it.object.category, it.object.index),
                     f"inventory[{k}]")
        for k, sp in enumerate(n.sprites):
            write_sprite(w, sp, f"sprites[{k}]")
        write_handlers(w, n.handlers, ctx, "handlers")


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


def decode(r: Reader, ctx: ParseContext) -> NpcTypesSection:
    return decode_media(r, ctx, NpcTypesSection, NpcEntry, NpcAsset, "npc_types")


def encode(s: NpcTypesSection, w: Writer, ctx: BuildContext) -> None:
    encode_media(s.npcs, "name", w, ctx, "npc_types")
    w.bytes(s.trailing)
