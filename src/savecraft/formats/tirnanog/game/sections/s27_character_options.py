"""Section type 27: character option groups (deflated: 7-byte header, then option records)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from .....binary import Reader, Record, Writer
from ..assets import AssetContext
from .common import (
    BuildContext,
    Condition,
    ParseContext,
    SpriteRef,
    read_conditions,
    read_sprites,
    sref,
    tref,
    write_conditions,
    write_sprites,
)
from .media import decode_media, encode_media
from .structured import StructAsset

TYPE = 27
GROUP_HEAD = Record("option group header", [("name", "u24"), ("palette_category", "u8"), ("palette_index", "u16"),
                                            ("option_count", "u8")])
OPTION_HEAD = Record("option header", [("name", "u24"), ("description", "u24"), ("attribute_count", "u8"),
                                       ("item_count", "u8"), ("sprite_count", "u8")])
ITEM = Record("inventory item", [("quantity", "u8"), ("category", "u8"), ("index", "u16")])


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


class CharacterOptionAsset(StructAsset[CharacterOptionGroup]):
    WHAT = "character option group"
    VALUE = CharacterOptionGroup

    def read(self, r: Reader, ctx: AssetContext) -> CharacterOptionGroup:
        name, pc, pi, n = r.record(GROUP_HEAD, "header")
        g = CharacterOptionGroup(name, SpriteRef(pc, pi))
        r.count(n, OPTION_HEAD.size, "options")
        for i in range(n):
            p = f"options[{i}]"
            oname, desc, a, k, s = r.record(OPTION_HEAD, p)
            o = CharacterOption(oname, desc)
            o.attributes = read_conditions(r, a, p + ".attributes")
            r.count(k, ITEM.size, p + ".inventory")
            for j in range(k):
                q, cat, idx = r.record(ITEM, f"{p}.inventory[{j}]")
                o.inventory.append(StartItem(q, SpriteRef(cat, idx)))
            o.sprites = read_sprites(r, s, p + ".sprites")
            g.options.append(o)
        return g

    def write(self, w: Writer, g: CharacterOptionGroup, ctx: Any) -> None:
        w.check_count(g.options, 255, "options", "options")
        w.record(GROUP_HEAD, (g.name, g.palette.category, g.palette.index, len(g.options)), "header")
        for i, o in enumerate(g.options):
            p = f"options[{i}]"
            for name, items in (("attributes", o.attributes), ("inventory", o.inventory), ("sprites", o.sprites)):
                w.check_count(items, 255, f"{p}.{name}")
            w.record(OPTION_HEAD, (o.name, o.description, len(o.attributes), len(o.inventory), len(o.sprites)), p)
            write_conditions(w, o.attributes, ctx, p + ".attributes")
            for j, it in enumerate(o.inventory):
                w.record(ITEM, (it.quantity, it.object.category, it.object.index), f"{p}.inventory[{j}]")
            write_sprites(w, o.sprites, p + ".sprites")


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


def decode(r: Reader, ctx: ParseContext) -> CharacterOptionsSection:
    return decode_media(r, ctx, CharacterOptionsSection, CharacterOptionEntry, CharacterOptionAsset,
                        "character_options")


def encode(s: CharacterOptionsSection, w: Writer, ctx: BuildContext) -> None:
    encode_media(s.groups, "name", w, ctx, "character_options")
    w.bytes(s.trailing)
