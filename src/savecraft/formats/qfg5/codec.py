"""Parse and build Quest for Glory 5 savegames (``qfg5-savegame.md`` read with NOTES.md).

File order: a 22-byte header ("QG5P1.000 ", u16 0xDE89, u16 item count ^
0xBEAD, u16 noise length ^ 0xFACE, u16 0xA8A5, u32 player type), the noise,
the obfuscated 1096-byte player state, 16 bytes per inventory item, the
dialogue state, the object state (u32 total, then 133 room records), the
1536-byte engine state, hero data (u32 size + bytes), belt and equipment
(16 u32), map state (u32 size + bytes), the current room id and, unless it
is 0 or 900, its data (u32 size + bytes). Nothing may follow.

The room count is implicit (always 133). When a file does not parse with
133 rooms, the reader tries the other counts and, if exactly the rest of
the file fits after some other number of rooms, says so: a far more useful
message than the misreading that 133 would produce further on.
"""

from __future__ import annotations

from ...binary import Reader, Record, Writer
from ...errors import FormatError, Report
from .model import (
    BELT_SLOTS,
    ENGINE_STATE_SIZE,
    GLOBAL_ROOMS,
    NOISE_MAX,
    NOISE_MIN,
    PLAYER_STATE_SIZE,
    ROOM_COUNT,
    TOTAL_RULES,
    Belt,
    DialogueRoom,
    EmptySlot,
    Equipment,
    GameObject,
    InventoryItem,
    MessageState,
    QfgSave,
    RoomObjects,
)
from .obfuscation import deobfuscate, obfuscate

MAGIC = b"QG5P1.000 "
CHECK_1 = 0xDE89
CHECK_2 = 0xA8A5
ITEMS_KEY = 0xBEAD
NOISE_KEY = 0xFACE
HEADER = Record("header", [
    ("magic", "bytes[10]"), ("check1", "u16"), ("items", "u16"), ("noise", "u16"), ("check2", "u16"),
    ("player_type", "u32"),
])
ITEM = Record("inventory item", [("sprite_id", "u32"), ("amount", "u32"), ("unique", "u32"),
                                 ("zapped", "u32")])
MESSAGE = Record("message state", [("said", "u32"), ("removed", "u32")])
OBJECT_HEAD = Record("object header", [("type", "u32"), ("id", "u32")])
EQUIPMENT = Record("belt and equipment", [
    ("belt", f"u32[{BELT_SLOTS}]"), ("selected", "u32"), ("active", "u32"),
    ("sword", "u32"), ("shield", "u32"), ("helmet", "u32"), ("armour", "u32"), ("amulet", "u32"),
])
BELT = Record("belt", [("items", f"u32[{BELT_SLOTS}]"), ("selected", "u32"), ("active", "u32")])
SLOTS = Record("equipment", [("sword", "u32"), ("shield", "u32"), ("helmet", "u32"), ("armour", "u32"),
                             ("amulet", "u32")])
assert BELT.size + SLOTS.size == EQUIPMENT.size
MAX_ROOM_GUESS = 4096  # how many room records the wrong-room-count diagnosis tries


def sniff(data: bytes) -> bool:
    return data[:10] == MAGIC


# -- parse -----------------------------------------------------------------------------------


def parse(data: bytes, report: Report) -> QfgSave:
    """Decode a whole savegame; in validate mode, report every problem and return what was read."""
    save = QfgSave()
    r = Reader(data, what="the file")
    try:
        _read(r, save, report)
    except FormatError as err:
        report.capture(err)
    return save


def _read(r: Reader, save: QfgSave, report: Report) -> None:
    magic, check1, items, noise, check2, player_type = r.record(HEADER, "header")
    if magic != MAGIC:
        report.error(0, "header.magic", repr(MAGIC.decode()), repr(magic))
    if check1 != CHECK_1:
        report.error(10, "header.check1", f"the constant 0x{CHECK_1:04X}", f"0x{check1:04X}")
    if check2 != CHECK_2:
        report.error(16, "header.check2", f"the constant 0x{CHECK_2:04X}", f"0x{check2:04X}")
    items ^= ITEMS_KEY
    noise ^= NOISE_KEY
    if not NOISE_MIN <= noise <= NOISE_MAX:
        report.error(14, "header.noise_length", f"{NOISE_MIN} to {NOISE_MAX} noise bytes (XORed with "
                     f"0x{NOISE_KEY:04X})", str(noise))
    save.player_type = player_type
    save.noise = r.bytes(noise, "noise")
    save.player_state = deobfuscate(r.bytes(PLAYER_STATE_SIZE, "player_state"))
    save.inventory = [InventoryItem(*v) for v in r.records(ITEM, items, "inventory")]
    save.dialogue = _read_dialogue(r)
    objects_at = r.pos
    total = r.u32("objects.total")
    rooms_at = r.pos
    failure: FormatError | None = None
    try:
        save.rooms = _read_rooms(r, ROOM_COUNT)
        _read_tail(r, save)
    except FormatError as err:
        failure = err
    if failure is not None or not r.at_end():
        count = guess_room_count(r.data, rooms_at)
        if count is not None:
            report.error(objects_at, "rooms", f"{ROOM_COUNT} room records",
                         f"{count} (only with that many does the rest of the file fit)")
            r.pos = rooms_at
            save.rooms = _read_rooms(r, count)
            _read_tail(r, save)
        elif failure is not None:
            raise failure
        else:
            report.error(r.pos, "trailing", "the end of the file after the current room",
                         f"{r.remaining} more bytes")
    _check_total(save, total, objects_at, report)


def _read_dialogue(r: Reader) -> list[DialogueRoom]:
    n = r.count(r.u32("dialogue.rooms"), 8, "dialogue.rooms", "dialogue room")
    rooms = []
    for i in range(n):
        path = f"dialogue[{i}]"
        room = r.u32(f"{path}.room")
        flags = r.records(MESSAGE, r.u32(f"{path}.messages"), f"{path}.messages")  # count checked there
        rooms.append(DialogueRoom(room, [MessageState(said, removed) for said, removed in flags]))
    return rooms


def _read_rooms(r: Reader, count: int) -> list[RoomObjects]:
    rooms = []
    for i in range(count):
        path = f"rooms[{i}]"
        n = r.count(r.u32(f"{path}.count"), 4, f"{path}.count", "object")
        objects: list[GameObject | EmptySlot] = []
        for k in range(n):
            size = r.u32(f"{path}.objects[{k}].size")
            if size == 0:
                objects.append(EmptySlot())
                continue
            type_, id_ = r.record(OBJECT_HEAD, f"{path}.objects[{k}]")
            objects.append(GameObject(type_, id_, r.bytes(size, f"{path}.objects[{k}].data")))
        rooms.append(RoomObjects(objects))
    return rooms


def _sized(r: Reader, name: str) -> bytes:
    size = r.u32(f"{name}.size")
    return r.bytes(size, f"{name}.data")


def _read_tail(r: Reader, save: QfgSave) -> None:
    """Everything after the room records, up to the end of the current room."""
    save.engine_state = r.bytes(ENGINE_STATE_SIZE, "engine_state")
    save.hero = _sized(r, "hero")
    belt, selected, active = r.record(BELT, "belt")  # BELT + SLOTS = EQUIPMENT, named as the model is
    save.belt = Belt(list(belt), selected, active)
    save.equipment = Equipment(*r.record(SLOTS, "equipment"))
    save.map_state = _sized(r, "map_state")
    save.current_room = r.u32("current_room")
    save.room_data = b"" if save.current_room in GLOBAL_ROOMS else _sized(r, "room_data")


def guess_room_count(data: bytes, rooms_at: int) -> int | None:
    """The number of room records (not 133) after which the rest of the file fits exactly."""
    r = Reader(data, rooms_at, what="the file")
    scratch = QfgSave()
    for count in range(MAX_ROOM_GUESS):
        if count != ROOM_COUNT:
            t = Reader(data, r.pos, what="the file")
            try:
                _read_tail(t, scratch)
                if t.at_end():
                    return count
            except FormatError:
                pass
        try:
            _read_rooms(r, 1)
        except FormatError:
            return None
    return None


def _check_total(save: QfgSave, total: int, at: int, report: Report) -> None:
    for rule in TOTAL_RULES:
        if save.objects_total(rule) == total:
            save.total_rule = rule
            if rule != TOTAL_RULES[0]:
                report.note(f"objects.total counts {rule}, not slots")
            return
    report.error(at, "objects.total",
                 f"the number of object slots in the rooms ({save.object_slots})", str(total))


# -- build -----------------------------------------------------------------------------------


def _exact(value: bytes, size: int, name: str) -> None:
    if len(value) != size:
        raise FormatError(None, name, f"{size} bytes", f"{len(value)} bytes")


def build(save: QfgSave) -> bytes:
    if not NOISE_MIN <= len(save.noise) <= NOISE_MAX:
        raise FormatError(None, "noise", f"{NOISE_MIN} to {NOISE_MAX} bytes", f"{len(save.noise)} bytes")
    if len(save.inventory) > 0xFFFF:
        raise FormatError(None, "inventory", "at most 65535 items (a u16 count)", str(len(save.inventory)))
    if len(save.rooms) != ROOM_COUNT:
        raise FormatError(None, "rooms", f"{ROOM_COUNT} room records", str(len(save.rooms)))
    if save.total_rule not in TOTAL_RULES:
        raise FormatError(None, "total_rule", "one of " + ", ".join(TOTAL_RULES), repr(save.total_rule))
    _exact(save.player_state, PLAYER_STATE_SIZE, "player_state")
    _exact(save.engine_state, ENGINE_STATE_SIZE, "engine_state")
    if len(save.belt.items) != BELT_SLOTS:
        raise FormatError(None, "belt.items", f"{BELT_SLOTS} item ids", str(len(save.belt.items)))
    if save.current_room in GLOBAL_ROOMS and save.room_data:
        raise FormatError(None, "room_data", f"no room data for room {save.current_room} (0 and 900 "
                          "have none)", f"{len(save.room_data)} bytes")
    w = Writer()
    w.record(HEADER, (MAGIC, CHECK_1, len(save.inventory) ^ ITEMS_KEY, len(save.noise) ^ NOISE_KEY,
                      CHECK_2, save.player_type), "header")
    w.bytes(save.noise)
    w.bytes(obfuscate(save.player_state))
    for i, item in enumerate(save.inventory):
        w.record(ITEM, (item.sprite_id, item.amount, item.unique, item.zapped), f"inventory[{i}]")
    w.u32(len(save.dialogue), "dialogue")
    for i, d in enumerate(save.dialogue):
        w.u32(d.room, f"dialogue[{i}].room")
        w.u32(len(d.messages), f"dialogue[{i}].messages")
        w.array("u32", [v for m in d.messages for v in (m.said, m.removed)], f"dialogue[{i}].messages")
    w.u32(save.objects_total(), "objects.total")
    for i, room in enumerate(save.rooms):
        path = f"rooms[{i}]"
        w.u32(len(room.objects), f"{path}.count")
        for k, obj in enumerate(room.objects):
            if isinstance(obj, EmptySlot):
                w.u32(0)
                continue
            if not obj.data:
                raise FormatError(None, f"{path}.objects[{k}].data",
                                  "at least one byte (size 0 marks an empty slot)", "0 bytes")
            w.u32(len(obj.data), f"{path}.objects[{k}].size")
            w.record(OBJECT_HEAD, (obj.type, obj.id), f"{path}.objects[{k}]")
            w.bytes(obj.data)
    w.bytes(save.engine_state)
    w.u32(len(save.hero), "hero.size")
    w.bytes(save.hero)
    e = save.equipment
    w.record(EQUIPMENT, (save.belt.items, save.belt.selected, save.belt.active, e.sword, e.shield,
                         e.helmet, e.armour, e.amulet), "equipment")
    w.u32(len(save.map_state), "map_state.size")
    w.bytes(save.map_state)
    w.u32(save.current_room, "current_room")
    if save.current_room not in GLOBAL_ROOMS:
        w.u32(len(save.room_data), "room.size")
        w.bytes(save.room_data)
    return w.getvalue()
