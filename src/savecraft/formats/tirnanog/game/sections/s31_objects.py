"""Section type 31: object meta; the descriptor's name field is the object's tile sprite index.

Objects are tiles (sprite category 1, NOTES.md). The asset has a 39-byte
header, the collision mask, two blocks of 32 sprites as documented (equipped
sprites, then equipment slot sprites), sounds, required attributes,
attribute modifiers, per-character-option sprite modifiers and event handlers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from .....binary import Reader, Writer
from .....layout import U8, U16, U24, U32, Bytes, Expr, Field, List, Ref, Struct
from .common import (
    CONDITION,
    HANDLER,
    SPRITE,
    SREF,
    BuildContext,
    Condition,
    EventHandler,
    ParseContext,
    SpriteRef,
    counted,
    sref,
    srefs,
    tref,
)
from .media import decode_media, encode_media, media_layout
from .structured import StructAsset

TYPE = 31
SLOTS = 32
MODIFIER_SPRITES = 40
SKILL = 0xFFFFFFFF


def _sprites(n: int) -> Any:
    return field(default_factory=lambda: [SpriteRef() for _ in range(n)])


@dataclass(slots=True)
class SpriteModifier:
    option: int = tref(0xFFFFFF)  # character option text index; 0xFFFFFF: every option
    sprites: list[SpriteRef] = _sprites(MODIFIER_SPRITES)  # 20 behind, 20 above the character


@dataclass(slots=True)
class ObjectMeta:
    title: int = tref()
    mask_width: int = 0
    mask_height: int = 0
    action_group: int = 0xFF  # default action handler, 0xFF: none
    inventory_sprite: SpriteRef = field(default_factory=SpriteRef)
    placement_sound: int = sref()
    price: int = 0
    price_unit: int = 0xFFFF  # object sprite index
    category: int = 0
    projectile: SpriteRef = field(default_factory=SpriteRef)
    projectile_duration: int = 0
    ammo: SpriteRef = field(default_factory=SpriteRef)
    layer_order: int = 0
    equip_mask: int = 0  # 0xFFFFFFFF: a skill
    collision_mask: bytes = b""  # mask_width x mask_height bytes
    equipped_sprites: list[SpriteRef] = _sprites(SLOTS)
    sounds: list[int] = srefs()
    slot_sprites: list[SpriteRef] = _sprites(SLOTS)
    required: list[Condition] = field(default_factory=list)
    modifiers: list[Condition] = field(default_factory=list)  # relation = modifier type bits
    sprite_modifiers: list[SpriteModifier] = field(default_factory=list)
    handlers: list[EventHandler] = field(default_factory=list)
    trailing: bytes = b""


SPRITE_MODIFIER = Struct(SpriteModifier, [Field("option", U24),
                                           Field("sprites", List(SPRITE, MODIFIER_SPRITES))],
                         name="sprite modifier")
OBJECT_META = Struct(ObjectMeta, [
    Field("title", U24), Field("mask_width", U16), Field("mask_height", U16), Field("action_group", U8),
    Field("inventory_sprite", SPRITE), Field("placement_sound", SREF), Field("price", U24),
    Field("price_unit", U16), Field("category", U8), Field("projectile", SPRITE),
    Field("projectile_duration", U24), Field("ammo", SPRITE), Field("layer_order", U8), Field("equip_mask", U32),
    counted("sound_count", "sounds"), counted("required_count", "required"),
    counted("modifier_count", "modifiers"), counted("sprite_modifier_count", "sprite_modifiers"),
    counted("handler_count", "handlers"),
    Field("collision_mask", Bytes(Expr("mask_width * mask_height"))),
    Field("equipped_sprites", List(SPRITE, SLOTS)),
    Field("sounds", List(SREF, Ref("sound_count"))),
    Field("slot_sprites", List(SPRITE, SLOTS)),
    Field("required", List(CONDITION, Ref("required_count"))),
    Field("modifiers", List(CONDITION, Ref("modifier_count"))),
    Field("sprite_modifiers", List(SPRITE_MODIFIER, Ref("sprite_modifier_count"))),
    Field("handlers", List(HANDLER, Ref("handler_count"))),
], name="object meta")


class ObjectAsset(StructAsset[ObjectMeta]):
    WHAT = "object meta"
    VALUE = ObjectMeta
    LAYOUT = OBJECT_META


@dataclass(slots=True)
class ObjectEntry:
    sprite: int = 0  # tile sprite index (category 1)
    reserved: int = 0  # must be zero
    asset: ObjectAsset = field(default_factory=ObjectAsset)


@dataclass(slots=True)
class ObjectsSection:
    KIND: ClassVar[str] = "objects"
    TYPE: ClassVar[int] = 31
    objects: list[ObjectEntry] = field(default_factory=list)
    trailing: bytes = b""

    def by_sprite(self, sprite: int) -> ObjectEntry | None:
        for o in self.objects:
            if o.sprite == sprite:
                return o
        return None


LAYOUT = media_layout(ObjectsSection, ObjectEntry, ObjectAsset, "objects",
                      [Field("sprite", U16), Field("reserved", U16)])


def decode(r: Reader, ctx: ParseContext) -> ObjectsSection:
    start = r.offset
    s: ObjectsSection = decode_media(LAYOUT, r, ctx)
    for i, o in enumerate(s.objects):
        if o.reserved:
            ctx.report.error(start + 16 * i + 14, f"objects[{i}].reserved", "zero", f"0x{o.reserved:04X}")
    return s


def encode(s: ObjectsSection, w: Writer, ctx: BuildContext) -> None:
    encode_media(LAYOUT, s, w, ctx)
