"""Section type 31: object meta; the descriptor's name field is the object's tile sprite index.

Objects are tiles (sprite category 1, NOTES.md). The asset has a 39-byte
header, the collision mask, two blocks of 32 sprites as documented (equipped
sprites, then equipment slot sprites), sounds, required attributes,
attribute modifiers, per-character-option sprite modifiers and event handlers.
"""

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
    srefs,
    tref,
    write_conditions,
    write_handlers,
    write_sprites,
)
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


OBJECT_HEAD = Record("object meta header", [
    ("title", "u24"), ("mask_width", "u16"), ("mask_height", "u16"), ("action_group", "u8"),
    ("inventory_category", "u8"), ("inventory_index", "u16"), ("placement_sound", "u24"), ("price", "u24"),
    ("price_unit", "u16"), ("category", "u8"), ("projectile_category", "u8"), ("projectile_index", "u16"),
    ("projectile_duration", "u24"), ("ammo_category", "u8"), ("ammo_index", "u16"), ("layer_order", "u8"),
    ("equip_mask", "u32"), ("sound_count", "u8"), ("required_count", "u8"), ("modifier_count", "u8"),
    ("sprite_modifier_count", "u8"), ("handler_count", "u8"),
])
assert OBJECT_HEAD.size == 39


class ObjectAsset(StructAsset[ObjectMeta]):
    WHAT = "object meta"
    VALUE = ObjectMeta

    def read(self, r: Reader, ctx: AssetContext) -> ObjectMeta:
        (title, mw, mh, group, ic, ii, sound, price, unit, cat, pc, pi, pdur, ac, ai, order, mask,
         s, a, m, c, e) = r.record(OBJECT_HEAD, "header")
        o = ObjectMeta(title, mw, mh, group, SpriteRef(ic, ii), sound, price, unit, cat, SpriteRef(pc, pi), pdur,
                       SpriteRef(ac, ai), order, mask)
        o.collision_mask = r.bytes(mw * mh, "collision_mask")
        o.equipped_sprites = read_sprites(r, SLOTS, "equipped_sprites")
        r.count(s, 3, "sounds")
        o.sounds = [r.u24(f"sounds[{i}]") for i in range(s)]
        o.slot_sprites = read_sprites(r, SLOTS, "slot_sprites")
        o.required = read_conditions(r, a, "required")
        o.modifiers = read_conditions(r, m, "modifiers")
        r.count(c, 3 + 3 * MODIFIER_SPRITES, "sprite_modifiers")
        for i in range(c):
            p = f"sprite_modifiers[{i}]"
            o.sprite_modifiers.append(SpriteModifier(r.u24(p + ".option"), read_sprites(r, MODIFIER_SPRITES, p)))
        r.count(e, 7, "handlers")
        o.handlers = read_handlers(r, e, ctx, "handlers")
        return o

    def write(self, w: Writer, o: ObjectMeta, ctx: Any) -> None:
        if len(o.collision_mask) != o.mask_width * o.mask_height:
            w._bad("collision_mask", f"{o.mask_width} x {o.mask_height} bytes", f"{len(o.collision_mask)} bytes")
        if len(o.equipped_sprites) != SLOTS or len(o.slot_sprites) != SLOTS:
            w._bad("equipped_sprites", f"{SLOTS} equipped and {SLOTS} slot sprites",
                   f"{len(o.equipped_sprites)} and {len(o.slot_sprites)}")
        for name in ("sounds", "required", "modifiers", "sprite_modifiers", "handlers"):
            w.check_count(getattr(o, name), 255, name)
        w.record(OBJECT_HEAD, (
            o.title, o.mask_width, o.mask_height, o.action_group, o.inventory_sprite.category,
            o.inventory_sprite.index, ctx.s(o.placement_sound), o.price, o.price_unit, o.category,
            o.projectile.category, o.projectile.index, o.projectile_duration, o.ammo.category, o.ammo.index,
            o.layer_order, o.equip_mask, len(o.sounds), len(o.required), len(o.modifiers),
            len(o.sprite_modifiers), len(o.handlers)), "header")
        w.bytes(o.collision_mask)
        write_sprites(w, o.equipped_sprites, "equipped_sprites")
        for i, snd in enumerate(o.sounds):
            w.u24(ctx.s(snd), f"sounds[{i}]")
        write_sprites(w, o.slot_sprites, "slot_sprites")
        write_conditions(w, o.required, ctx, "required")
        write_conditions(w, o.modifiers, ctx, "modifiers")
        for i, sm in enumerate(o.sprite_modifiers):
            if len(sm.sprites) != MODIFIER_SPRITES:
                w._bad(f"sprite_modifiers[{i}].sprites", f"{MODIFIER_SPRITES} sprites", str(len(sm.sprites)))
            w.u24(sm.option, f"sprite_modifiers[{i}].option")
            write_sprites(w, sm.sprites, f"sprite_modifiers[{i}].sprites")
        write_handlers(w, o.handlers, ctx, "handlers")


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


def decode(r: Reader, ctx: ParseContext) -> ObjectsSection:
    if r.remaining % 16:
        ctx.report.error(r.offset, "objects", "a section length that is a multiple of 16", f"{r.remaining} bytes")
    s = ObjectsSection()
    for i in range(r.remaining // 16):
        asset, tail = ctx.descriptor(r, ObjectAsset, f"objects[{i}]")
        if tail >> 16:
            ctx.report.error(r.offset - 2, f"objects[{i}].reserved", "zero", f"0x{tail >> 16:04X}")
        s.objects.append(ObjectEntry(tail & 0xFFFF, tail >> 16, asset))
    s.trailing = r.rest()
    return s


def encode(s: ObjectsSection, w: Writer, ctx: BuildContext) -> None:
    for i, o in enumerate(s.objects):
        if not 0 <= o.sprite <= 0xFFFF or not 0 <= o.reserved <= 0xFFFF:
            w._bad(f"objects[{i}].sprite", "a 16-bit sprite index", str(o.sprite))
        ctx.descriptor(w, o.asset, o.sprite | o.reserved << 16, f"objects[{i}]")
    w.bytes(s.trailing)
