"""Section type 32: crafting dialogs (deflated: 14-byte header, then 68-byte recipes)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from .....binary import Reader, Record, Writer
from ..assets import AssetContext
from .common import BuildContext, ParseContext, SpriteRef, sref, tref
from .media import decode_media, encode_media
from .structured import StructAsset

TYPE = 32
INGREDIENTS = 16
NONE = 0xFFFF
CRAFT_HEAD = Record("crafting header", [
    ("title", "u24"), ("description", "u24"), ("sound", "u24"), ("portrait_category", "u8"),
    ("portrait_index", "u16"), ("unordered", "u8"), ("recipe_count", "u8"),
])
RECIPE = Record("recipe", [("quantity", "u16"), ("product", "u16"), ("ingredients", f"u16[{2 * INGREDIENTS}]")])


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
        title, desc, sound, pc, pi, unordered, n = r.record(CRAFT_HEAD, "header")
        c = Crafting(title, desc, sound, SpriteRef(pc, pi), unordered)
        r.count(n, RECIPE.size, "recipes")
        for i in range(n):
            q, prod, v = r.record(RECIPE, f"recipes[{i}]")
            c.recipes.append(Recipe(q, prod, [Ingredient(v[k], v[k + 1]) for k in range(0, 2 * INGREDIENTS, 2)]))
        return c

    def write(self, w: Writer, c: Crafting, ctx: Any) -> None:
        w.check_count(c.recipes, 255, "recipes", "recipes")
        w.record(CRAFT_HEAD, (c.title, c.description, ctx.s(c.sound), c.portrait.category, c.portrait.index,
                              c.unordered, len(c.recipes)), "header")
        for i, rc in enumerate(c.recipes):
            p = f"recipes[{i}]"
            if len(rc.ingredients) != INGREDIENTS:
                w._bad(p + ".ingredients", f"{INGREDIENTS} ingredient slots", str(len(rc.ingredients)))
            w.record(RECIPE, (rc.quantity, rc.product,
                              [x for ing in rc.ingredients for x in (ing.quantity, ing.object)]), p)


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
