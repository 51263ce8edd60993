"""The ``qfg5-save`` plugin: the Format the registry returns for a Quest for Glory 5 savegame.

Imported only when detection matched a QfG5 file or the format is asked for by name
(:mod:`.detection` holds the light entry); it registers itself on import.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from ...fileio import atomic_write, ensure_dir
from ...jsonmap import decoder, encoder
from ...parts import load_part, read_part
from ...registry import Format, register
from . import codec
from .model import (
    TOTAL_RULES,
    Belt,
    DialogueRoom,
    EmptySlot,
    Equipment,
    GameObject,
    InventoryItem,
    QfgSave,
    RoomObjects,
)
from ...lazy import lazy_module

if TYPE_CHECKING:
    from . import summary as _summary
else:  # imported on first use (savecraft.lazy): start-up does not need them
    _summary = lazy_module("savecraft.formats.qfg5.summary")

EQUIPMENT_SLOTS = ("sword", "shield", "helmet", "armour", "amulet")


def info(save: QfgSave) -> dict[str, Any]:
    """The summary (docs/info-json.md): counts as numbers, ids as numbers, lists as lists."""
    return {
        "player_type": save.player_type,
        "inventory_items": len(save.inventory),
        "dialogue_rooms": len(save.dialogue),
        "object_count": save.object_count,
        "object_slots": save.object_slots,
        "rooms": len(save.rooms),
        "rooms_with_objects": sum(1 for r in save.rooms if r.objects),
        "equipment": {slot: getattr(save.equipment, slot) for slot in EQUIPMENT_SLOTS},
        "belt": list(save.belt.items),
        "current_room": save.current_room,
        "noise_bytes": len(save.noise),
    }


def _json(path: Path, doc: Any) -> Path:
    atomic_write(path, orjson.dumps(doc, option=orjson.OPT_INDENT_2))
    return path


def _bin(path: Path, data: bytes) -> Path:
    atomic_write(path, data)
    return path


def extract(save: QfgSave, folder: Path) -> list[Path]:
    """One file per part: ``.json`` for decoded parts, ``.bin`` for opaque bytes.

    Object data goes to ``objects/room-RRR-SS.bin`` (room, slot), listed in ``objects.json``.
    """
    ensure_dir(folder)
    out = [
        _json(folder / "header.json", {"player_type": save.player_type, "inventory_items":
                                       len(save.inventory), "noise_length": len(save.noise)}),
        _bin(folder / "noise.bin", save.noise),
        _bin(folder / "player_state.bin", save.player_state),
        _json(folder / "inventory.json", encoder(list[InventoryItem])(save.inventory)),
        _json(folder / "dialogue.json", encoder(list[DialogueRoom])(save.dialogue)),
    ]
    listing = []
    objdir = ensure_dir(folder / "objects")
    for i, room in enumerate(save.rooms):
        entries: list[dict[str, Any]] = []
        for k, obj in enumerate(room.objects):
            if isinstance(obj, GameObject):
                p = _bin(objdir / f"room-{i:03d}-{k:02d}.bin", obj.data)
                out.append(p)
                entries.append({"type": obj.type, "id": obj.id, "size": len(obj.data),
                                "file": f"objects/{p.name}"})
            else:
                entries.append({"empty": True})
        listing.append({"room": i, "objects": entries})
    out += [
        _json(folder / "objects.json", {"total": save.objects_total(), "total_rule": save.total_rule,
                                        "rooms": listing}),
        _bin(folder / "engine_state.bin", save.engine_state),
        _bin(folder / "hero.bin", save.hero),
        _json(folder / "equipment.json", {"belt": encoder(Belt)(save.belt),
                                          "equipment": encoder(Equipment)(save.equipment)}),
        _bin(folder / "map_state.bin", save.map_state),
        _json(folder / "room.json", {"current_room": save.current_room,
                                     "data_size": len(save.room_data)}),
    ]
    if save.room_data:
        out.append(_bin(folder / "room_data.bin", save.room_data))
    return out


def _read_json(folder: Path, name: str) -> Any:
    return load_part(folder / name, name)


def _read_bin(folder: Path, name: str, missing_ok: bool = False) -> bytes:
    if missing_ok and not (folder / name).exists():
        return b""
    return read_part(folder / name, name)


def rebuild(folder: Path) -> QfgSave:
    """The save an :func:`extract` folder describes, with whatever was edited in its files."""
    header = _read_json(folder, "header.json")
    objects = _read_json(folder, "objects.json")
    gear = _read_json(folder, "equipment.json")
    room = _read_json(folder, "room.json")
    rooms = []
    for r, entry in enumerate(objects.get("rooms", [])):
        slots: list[GameObject | EmptySlot] = []
        for k, obj in enumerate(entry.get("objects", [])):
            if obj.get("empty"):
                slots.append(EmptySlot())
            else:
                data = _read_bin(folder, str(obj["file"]))
                slots.append(GameObject(type=int(obj["type"]), id=int(obj["id"]), data=data))
        rooms.append(RoomObjects(slots))
    save = QfgSave(
        player_type=int(header["player_type"]),
        noise=_read_bin(folder, "noise.bin"),
        player_state=_read_bin(folder, "player_state.bin"),
        inventory=decoder(list[InventoryItem])(_read_json(folder, "inventory.json"), "inventory"),
        dialogue=decoder(list[DialogueRoom])(_read_json(folder, "dialogue.json"), "dialogue"),
        rooms=rooms,
        engine_state=_read_bin(folder, "engine_state.bin"),
        hero=_read_bin(folder, "hero.bin"),
        belt=decoder(Belt)(gear["belt"], "belt"),
        equipment=decoder(Equipment)(gear["equipment"], "equipment"),
        map_state=_read_bin(folder, "map_state.bin"),
        current_room=int(room["current_room"]),
        room_data=_read_bin(folder, "room_data.bin", missing_ok=True),
    )
    rule = objects.get("total_rule")
    if rule is None:  # a folder from before total_rule was written: the rule that gives its total
        rule = next((r for r in TOTAL_RULES if save.objects_total(r) == objects.get("total")), TOTAL_RULES[0])
    save.total_rule = str(rule)
    return save

def _studio_summary(model: Any) -> dict[str, Any]:
    """The studio's overview of this file (imported only when the studio asks)."""
    return _summary.summary(model)


FORMAT = register(Format(
    name="qfg5-save",
    description="Quest for Glory 5 savegame",
    model=QfgSave,
    sniff=codec.sniff,
    parse=codec.parse,
    build=codec.build,
    info=info,
    extract=extract,
    rebuild=rebuild,
    validate_by_building=True,
    suffixes=(".sav",),
    summary=_studio_summary,
))

__all__ = ["FORMAT", "QfgSave", "codec"]
