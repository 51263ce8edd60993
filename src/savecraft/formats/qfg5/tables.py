"""The tables a Quest for Glory 5 save offers (``savecraft sql``, ``export``; docs/tables.md).

``qfg5_saves``: one row per file, the numbers ``savecraft info`` shows;
``qfg5_inventory``: one per inventory entry.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ...tables.schema import Table, col
from .model import QfgSave


def game(save: QfgSave) -> str | None:
    return "Quest for Glory V"


def _save(s: QfgSave) -> Iterator[tuple[Any, ...]]:
    e = s.equipment
    yield (s.player_type, s.current_room, len(s.inventory), len(s.dialogue), s.object_count,
           s.object_slots, e.sword, e.shield, e.helmet, e.armour, e.amulet)


def _inventory(s: QfgSave) -> Iterator[tuple[Any, ...]]:
    for i, item in enumerate(s.inventory):
        yield (i, item.sprite_id, item.amount, item.unique, item.zapped)


SAVES = Table("qfg5_saves", "qfg5-save", "one per file", (
    col("player_type", "int64", "player_type", "the hero's class"),
    col("current_room", "int64", "current_room"),
    col("inventory_items", "int64", "inventory"),
    col("dialogue_rooms", "int64", "dialogue"),
    col("objects", "int64", "rooms", "objects placed in rooms"),
    col("object_slots", "int64", "rooms", "room slots, empty ones included"),
    col("sword", "int64", "equipment.sword"),
    col("shield", "int64", "equipment.shield"),
    col("helmet", "int64", "equipment.helmet"),
    col("armour", "int64", "equipment.armour"),
    col("amulet", "int64", "equipment.amulet"),
), _save)

INVENTORY = Table("qfg5_inventory", "qfg5-save", "one per inventory entry", (
    col("item", "int64", "inventory[N]"),
    col("sprite_id", "int64", "inventory[N].sprite_id"),
    col("amount", "int64", "inventory[N].amount"),
    col("unique", "int64", "inventory[N].unique"),
    col("zapped", "int64", "inventory[N].zapped"),
), _inventory)

TABLES = (SAVES, INVENTORY)
