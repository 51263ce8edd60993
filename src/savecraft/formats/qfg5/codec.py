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

from dataclasses import dataclass

from ...binary import Reader, Writer
from ...errors import FormatError, Report
from ...layout import U16, U32, Adapt, Array, Bytes, Check, Const, Context, Ctx, Field, Len, List, Prefix, Ref
from ...layout import Struct, Switch, When
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


@dataclass(slots=True)
class Header:
    """The 22 bytes as stored: the checks and counts are the parser's to judge (every wrong one
    is reported, and the file read on), so they are plain fields here, not constants."""

    magic: bytes = MAGIC
    check1: int = CHECK_1
    items: int = ITEMS_KEY  # the inventory count XOR ITEMS_KEY
    noise: int = NOISE_KEY  # the noise length XOR NOISE_KEY
    check2: int = CHECK_2
    player_type: int = 0


HEADER = Struct(Header, [Field("magic", Bytes(len(MAGIC))), Field("check1", U16), Field("items", U16),
                         Field("noise", U16), Field("check2", U16), Field("player_type", U32)],
                name="header", whole=True)
# What follows the header, declared once: the parser reads and the builder writes with these.
ITEM = Struct(InventoryItem, [Field("sprite_id", U32), Field("amount", U32), Field("unique", U32),
                              Field("zapped", U32)], name="inventory item")
DIALOGUE_ROOM = Struct(DialogueRoom, [
    Field("room", U32),
    Field("messages", List(Struct(MessageState, [Field("said", U32), Field("removed", U32)],
                                  name="message state"), Prefix(U32, "messages"))),
], name="dialogue room")
BODY = Struct(QfgSave, [
    Field("noise", Bytes(Ctx("noise_length", "header"))),
    Field("player_state", Adapt(Bytes(PLAYER_STATE_SIZE), deobfuscate, obfuscate,
                                f"{PLAYER_STATE_SIZE} bytes of player state")),
    Field("inventory", List(ITEM, Ctx("inventory_count", "header"))),
    Field("dialogue", List(DIALOGUE_ROOM, Prefix(U32, "dialogue.rooms"))),
], name="savegame body")
EMPTY_SLOT = Struct(EmptySlot, [Const("size", U32, 0, "0 (an empty slot)")], name="empty slot")
GAME_OBJECT = Struct(GameObject, [
    Len("size", U32, ("data",)),
    Check("len(data) > 0", "data", "at least one byte (size 0 marks an empty slot)", "'0 bytes'",
          on_write=True, on_read=False),
    Field("type", U32), Field("id", U32), Field("data", Bytes(Ref("size"))),
], name="object")
ROOM = Struct(RoomObjects, [Field("objects", List(
    Switch("", {0: EMPTY_SLOT}, default=GAME_OBJECT, peek=U32), Prefix(U32, "count")))], name="room")
# Everything after the room records, up to the end of the current room.
TAIL = Struct(QfgSave, [
    Field("engine_state", Bytes(ENGINE_STATE_SIZE)),
    Len("hero.size", U32, ("hero",)), Field("hero", Bytes(Ref("hero.size"))),
    Field("belt", Struct(Belt, [Field("items", Array(U32, BELT_SLOTS)), Field("selected", U32),
                                Field("active", U32)], name="belt")),
    Field("equipment", Struct(Equipment, [Field(n, U32) for n in
                                          ("sword", "shield", "helmet", "armour", "amulet")],
                              name="equipment")),
    Len("map_state.size", U32, ("map_state",)), Field("map_state", Bytes(Ref("map_state.size"))),
    Field("current_room", U32),
    Check(f"current_room not in {GLOBAL_ROOMS} or not room_data", "room_data",
          f"no room data for the rooms {GLOBAL_ROOMS} (they have none)", "f'{len(room_data)} bytes'",
          on_write=True, on_read=False),
    When(f"current_room not in {GLOBAL_ROOMS}", [
        Len("room_data.size", U32, ("room_data",)), Field("room_data", Bytes(Ref("room_data.size")))],
        "", defaults=True),
], name="savegame tail")
_TAIL_FIELDS = TAIL.field_names()
_NO_CONTEXT = Context()  # the header needs no values from elsewhere
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
    at = r.pos
    head: Header = HEADER.read_item(r, _NO_CONTEXT, "header")
    magic, check1, items, noise, check2, player_type = (head.magic, head.check1, head.items, head.noise,
                                                        head.check2, head.player_type)
    if r.spans is not None:  # the one header field the model keeps, under the model's path too
        r.spans.add(r.base + at + HEADER.offset_of("player_type"), 4, "player_type")
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
    ctx = _context(noise, items)
    body = BODY.read(r, ctx)
    save.noise, save.player_state, save.inventory, save.dialogue = (
        body.noise, body.player_state, body.inventory, body.dialogue)
    save.player_type = player_type
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


def _context(noise_length: int, inventory_count: int) -> Context:
    """The two counts the header stores (XORed) for the body."""
    ctx = Context()
    ctx.set("noise_length", noise_length, "header")
    ctx.set("inventory_count", inventory_count, "header")
    return ctx


def _read_rooms(r: Reader, count: int) -> list[RoomObjects]:
    ctx = Context()
    return [ROOM.read(r, ctx, f"rooms[{i}]") for i in range(count)]


def _read_tail(r: Reader, save: QfgSave) -> None:
    """Everything after the room records, up to the end of the current room."""
    tail = TAIL.read(r, Context())
    for name in _TAIL_FIELDS:
        setattr(save, name, getattr(tail, name))


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


def build(save: QfgSave) -> bytes:
    if not NOISE_MIN <= len(save.noise) <= NOISE_MAX:
        raise FormatError(None, "noise", f"{NOISE_MIN} to {NOISE_MAX} bytes", f"{len(save.noise)} bytes")
    if len(save.inventory) > 0xFFFF:
        raise FormatError(None, "inventory", "at most 65535 items (a u16 count)", str(len(save.inventory)))
    if len(save.rooms) != ROOM_COUNT:
        raise FormatError(None, "rooms", f"{ROOM_COUNT} room records", str(len(save.rooms)))
    if save.total_rule not in TOTAL_RULES:
        raise FormatError(None, "total_rule", "one of " + ", ".join(TOTAL_RULES), repr(save.total_rule))
    w = Writer()
    HEADER.write(Header(MAGIC, CHECK_1, len(save.inventory) ^ ITEMS_KEY, len(save.noise) ^ NOISE_KEY,
                        CHECK_2, save.player_type), w, _NO_CONTEXT, "header")
    ctx = _context(len(save.noise), len(save.inventory))
    BODY.write(save, w, ctx)
    w.u32(save.objects_total(), "objects.total")
    for i, room in enumerate(save.rooms):
        ROOM.write(room, w, ctx, f"rooms[{i}]")
    TAIL.write(save, w, ctx)
    return w.getvalue()
