"""Section type 32: crafting dialogs (deflated: 14-byte header, then 68-byte recipes)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from .....binary import Reader, Writer
from ..assets import AssetContext
from .common import BuildContext, ParseContext, SpriteRef, read_sprite, sref, tref, write_sprite
from .media import decode_media, encode_media
from .structured import StructAsset

TYPE = 32
INGREDIENTS = 16
NONE = 0xFFFF


@dataclass(slots=True)
class Ingredient:
    quantity: int = 0  # 0: needed but not used up (a pan)
    object: int = NONE  # object sprite index; 0xFFFF: no ingredient


@dataclass(slots=True)
class Recipe:
    quantity: int = 1
    product: int = 0  # object sprite index
    ingredients: list[Ingredient] = field(default_factory=lambda: [Ingredient() for _ in range(INGREDIENTS)])


@dataclass(slots=True)
class Crafting:
    title: int = tref()
    description: int = tref()
    sound: int = sref()
    portrait: SpriteRef = field(default_factory=SpriteRef)
    unordered: int = 1  # 0: ingredient order matters
    recipes: list[Recipe] = field(default_factory=list)
    trailing: bytes = b""


class CraftingAsset(StructAsset[Crafting]):
    WHAT = "crafting dialog"
    VALUE = Crafting

    def read(self, r: Reader, ctx: AssetContext) -> Crafting:
        c = Crafting(r.u24("title"), r.u24("description"), r.u24("sound"), read_sprite(r, "portrait"),
                     r.u8("unordered"))
        n = r.u8("recipe_count")
        r.count(n, 4 + 4 * INGREDIENTS, "recipes")
        for i in range(n):
            p = f"recipes[{i}]"
            q, prod = r.u16(p + ".quantity"), r.u16(p + ".product")
            v = r.array("u16", 2 * INGREDIENTS, p + ".ingredients")
            c.recipes.append(Recipe(q, prod, [Ingredient(v[k], v[k + 1]) for k in range(0, 2 * INGREDIENTS, 2)]))
        return c

    def write(self, w: Writer, c: Crafting, ctx: Any) -> None:
        w.u24(c.title, "title")
        w.u24(c.description, "description")
        w.u24(ctx.s(c.sound), "sound")
        write_sprite(w, c.portrait, "portrait")
        w.u8(c.unordered, "unordered")
        if len(c.recipes) > 255:
            w._bad("recipes", "at most 255 recipes", str(len(c.recipes)))
        w.u8(len(c.recipes))
        for i, rc in enumerate(c.recipes):
            p = f"recipes[{i}]"
            if len(rc.ingredients) != INGREDIENTS:
                w._bad(p + ".ingredients", f"{INGREDIENTS} ingredient slots", str(len(rc.ingredients)))
            w.u16(rc.quantity, p + ".quantity")
            w.u16(rc.product, p + ".product")
            w.array("u16", [x for ing in rc.ingredients for x in (ing.quantity, ing.object)], p + ".ingredients")


@dataclass(slots=True)
class CraftingEntry:
    name: int = sref()
    asset: CraftingAsset = field(default_factory=CraftingAsset)


@dataclass(slots=True)
class CraftingSection:
    KIND: ClassVar[str] = "crafting"
    TYPE: ClassVar[int] = 32
    entries: list[CraftingEntry] = field(default_factory=list)
    trailing: bytes = b""


def decode(r: Reader, ctx: ParseContext) -> CraftingSection:
    return decode_media(r, ctx, CraftingSection, CraftingEntry, CraftingAsset, "crafting")


def encode(s: CraftingSection, w: Writer, ctx: BuildContext) -> None:
    encode_media(s.entries, "name", w, ctx, "crafting")
    w.bytes(s.trailing)
