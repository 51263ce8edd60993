"""The studio's hero sheet of a Quest for Glory 5 save: data the page lays out, never HTML.

What the spec decodes: the player type, the room the hero is in, the five
equipped items and the nine belt slots by id, and the inventory (item ids are
sprite ids, 101xxx). The 1096-byte player state holding the stats is not
decoded by the spec, so the sheet does not guess at it: it links to its bytes.
"""

from __future__ import annotations

from typing import Any

from .model import QfgSave

EQUIPMENT_SLOTS = ("sword", "shield", "helmet", "armour", "amulet")


def _item(i: int) -> str:
    return "empty" if i == 0 else f"item {i}"


def summary(save: QfgSave) -> dict[str, Any]:
    """The hero: type, room, what is worn and carried, each linked to its field."""
    facts = [
        {"label": "Player type", "value": str(save.player_type), "path": "player_type"},
        {"label": "Current room", "value": str(save.current_room), "path": "current_room"},
        {"label": "Inventory", "value": f"{len(save.inventory):,} items", "path": "inventory"},
        {"label": "Objects", "value": f"{save.object_count:,} in {sum(1 for r in save.rooms if r.objects):,} rooms",
         "path": "rooms"},
        {"label": "Player state", "value": f"{len(save.player_state):,} bytes (stats: not decoded by the spec)",
         "path": "player_state"},
    ]
    worn = [{"label": slot, "text": _item(getattr(save.equipment, slot)), "path": f"equipment.{slot}"}
            for slot in EQUIPMENT_SLOTS]
    belt = [{"label": f"slot {i + 1}" + (" (selected)" if save.belt.active and i == save.belt.selected else ""),
             "text": _item(v), "path": f"belt.items[{i}]"} for i, v in enumerate(save.belt.items)]
    inventory = {
        "kind": "table", "id": "inventory", "title": "Inventory",
        "columns": [{"key": "index", "label": "#", "type": "number"},
                    {"key": "sprite_id", "label": "Item (sprite id)", "type": "id"},
                    {"key": "amount", "label": "Amount", "type": "number"},
                    {"key": "unique", "label": "Unique", "type": "number"}],
        "rows": [{"path": f"inventory[{i}]", "cells": [i, it.sprite_id, it.amount, it.unique]}
                 for i, it in enumerate(save.inventory)],
    }
    return {"title": "Quest for Glory 5 hero", "subtitle": f"player type {save.player_type}, room {save.current_room}",
            "sections": [{"kind": "facts", "title": "Hero", "items": facts},
                         {"kind": "list", "title": "Equipment", "items": worn},
                         {"kind": "list", "title": "Belt", "items": belt}, inventory]}
