"""Section type 32: crafting dialogs (deflated: 14-byte header, then 68-byte recipes)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from .....binary import Reader, Writer
from .....layout import U8, U16, U24, Field, List, Struct
from .common import SPRITE, SREF, BuildContext, ParseContext, SpriteRef, prefix, sref, tref
from .media import decode_media, encode_media, media_layout
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


INGREDIENT = Struct(Ingredient, [Field("quantity", U16), Field("object", U16)], name="ingredient")
RECIPE = Struct(Recipe, [Field("quantity", U16), Field("product", U16),
                         Field("ingredients", List(INGREDIENT, INGREDIENTS))], name="recipe")
CRAFTING = Struct(Crafting, [
    Field("title", U24), Field("description", U24), Field("sound", SREF), Field("portrait", SPRITE),
    Field("unordered", U8), Field("recipes", List(RECIPE, prefix(U8, "recipe_count", "recipes"))),
], name="crafting dialog")

class CraftingAsset(StructAsset[Crafting]):
    WHAT = "crafting dialog"
    VALUE = Crafting
    LAYOUT = CRAFTING


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


LAYOUT = media_layout(CraftingSection, CraftingEntry, CraftingAsset, "entries")


def decode(r: Reader, ctx: ParseContext) -> CraftingSection:
    return decode_media(LAYOUT, r, ctx)  # type: ignore[no-any-return]


def encode(s: CraftingSection, w: Writer, ctx: BuildContext) -> None:
    encode_media(LAYOUT, s, w, ctx)
