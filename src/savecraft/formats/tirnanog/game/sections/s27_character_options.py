"""Section type 27: character option groups (deflated: 7-byte header, then option records)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from .....binary import Reader, Writer
from ..assets import AssetContext
from .common import (
    BuildContext,
    Condition,
    ParseContext,
    SpriteRef,
    read_conditions,
    read_sprite,
    sref,
    tref,
    write_conditions,
    write_sprite,
)
from .media import decode_media, encode_media
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


class CharacterOptionAsset(StructAsset[CharacterOptionGroup]):
    WHAT = "character option group"
    VALUE = CharacterOptionGroup

    def read(self, r: Reader, ctx: AssetContext) -> CharacterOptionGroup:
        g = CharacterOptionGroup(r.u24("name"), read_sprite(r, "palette"))
        n = r.u8("option_count")
        r.count(n, 9, "options")
        for i in range(n):
            p = f"options[{i}]"
            o = CharacterOption(r.u24(p + ".name"), r.u24(p + ".description"))
            a, k, s = r.u8(p + ".attribute_count"), r.u8(p + ".item_count"), r.u8(p + ".sprite_count")
            o.attributes = read_conditions(r, a, p + ".attributes")
            r.count(k, 4, p + ".inventory")
            o.inventory = [StartItem(r.u8(p + ".inventory"), read_sprite(r, p + ".inventory")) for _ in range(k)]
            r.count(s, 3, p + ".sprites")
            o.sprites = [read_sprite(r, f"{p}.sprites[{j}]") for j in range(s)]
            g.options.append(o)
        return g

    def write(self, w: Writer, g: CharacterOptionGroup, ctx: Any) -> None:
        w.u24(g.name, "name")
        write_sprite(w, g.palette, "palette")
        if len(g.options) > 255:
            w._bad("options", "at most 255 options", str(len(g.options)))
        w.u8(len(g.options), "option_count")
        for i, o in enumerate(g.options):
            p = f"options[{i}]"
            w.u24(o.name, p + ".name")
            w.u24(o.description, p + ".description")
            for name, items in (("attributes", o.attributes), ("inventory", o.inventory), ("sprites", o.sprites)):
                if len(items) > 255:
                    w._bad(f"{p}.{name}", "at most 255 entries", str(len(items)))
                w.u8(len(items), f"{p}.{name}")
            write_conditions(w, o.attributes, ctx, p + ".attributes")
            for it in o.inventory:
                w.u8(it.quantity, p + ".inventory")
                write_sprite(w, it.object, p + ".inventory")
            for sp in o.sprites:
                write_sprite(w, sp, p + ".sprites")


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
