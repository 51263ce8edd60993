"""Section type 28: NPC types (deflated: 13-byte header, attributes, inventory, sprites, event handlers)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from .....binary import Reader, Writer
from ..assets import AssetContext
from .common import (
    BuildContext,
    Condition,
    EventHandler,
    ParseContext,
    SpriteRef,
    read_conditions,
    read_handlers,
    read_sprite,
    sref,
    tref,
    write_conditions,
    write_handlers,
    write_sprite,
)
from .media import decode_media, encode_media
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


def _counts(w: Writer, n: NpcType) -> None:
    for name in ("attributes", "inventory", "sprites", "handlers"):
        if len(getattr(n, name)) > 255:
            w._bad(name, "at most 255 entries", str(len(getattr(n, name))))
        w.u8(len(getattr(n, name)), name)


class NpcAsset(StructAsset[NpcType]):
    WHAT = "NPC type"
    VALUE = NpcType

    def read(self, r: Reader, ctx: AssetContext) -> NpcType:
        n = NpcType(r.u24("title"), r.u8("behaviour"), r.u16("speed"), r.u16("direction_change"),
                    r.u8("patrol_path"))
        a, i, s, e = r.u8("attribute_count"), r.u8("item_count"), r.u8("sprite_count"), r.u8("handler_count")
        n.attributes = read_conditions(r, a, "attributes")
        r.count(i, 10, "inventory")
        for k in range(i):
            p = f"inventory[{k}]"
            n.inventory.append(NpcItem(r.u8(p), r.u24(p), r.u24(p), read_sprite(r, p + ".object")))
        r.count(s, 3, "sprites")
        n.sprites = [read_sprite(r, f"sprites[{k}]") for k in range(s)]
        r.count(e, 7, "handlers")
        n.handlers = read_handlers(r, e, ctx, "handlers")
        return n

    def write(self, w: Writer, n: NpcType, ctx: Any) -> None:
        w.u24(n.title, "title")
        w.u8(n.behaviour, "behaviour")
        w.u16(n.speed, "speed")
        w.u16(n.direction_change, "direction_change")
        w.u8(n.patrol_path, "patrol_path")
        _counts(w, n)
        write_conditions(w, n.attributes, ctx, "attributes")
        for k, it in enumerate(n.inventory):
            p = f"inventory[{k}]"
            w.u8(it.chance, p)
            w.u24(it.quantity, p)
            w.u24(it.resupply, p)
            write_sprite(w, it.object, p)
        for sp in n.sprites:
            write_sprite(w, sp, "sprites")
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
