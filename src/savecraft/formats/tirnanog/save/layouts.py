"""Every chunk of a TirNanoG saved game, declared once (``tirnanog-saved-game.md``, NOTES.md).

A chunk is an 8-byte header (:data:`CHUNK_HEAD`: magic, size counting the
header) and a body; each body below is a :class:`savecraft.layout.Struct`,
from which the codec gets its checked reader (located errors, byte spans),
its fast reader, the structure check a load makes (:meth:`Struct.skim`), its
writers, and :mod:`.jsonfast` its JSON paths. The header is not part of the
bodies: the chunk scan reads it to find where each chunk ends, and the size
a writer stores is the length of what the body's writer wrote.

The checks are the game's and the spec's: an entity block's counts fill its
chunk exactly, a GLBL or QSTS chunk holds whole 4-byte values, a DENY chunk
whole 17-byte records of family 2 or 10, a user name is never empty.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

from ....layout import (
    I32,
    REST,
    U8,
    U16,
    U24,
    U32,
    U64,
    Adapt,
    Array,
    Bytes,
    Check,
    Computed,
    CStr,
    Field,
    Len,
    List,
    Ref,
    Stored,
    Struct,
    Switch,
)
from .model import (
    AddressFamily,
    DenyChunk,
    DenyEntry,
    Entity,
    GlobalsChunk,
    InventoryItem,
    NpcChunk,
    QuestsChunk,
    QuestState,
    Skill,
    UserChunk,
)

SLOTS = 32  # equipped objects and belt: 32 x u16 each
QUEST_DONE = 0x8000_0000  # bit 31 of a quest word: completed
DENY_RECORD = 17
HASH_SIZE = 32


@dataclass(slots=True)
class ChunkHead:
    magic: bytes
    size: int


@dataclass(slots=True)
class PreviewHead:
    """The PRVW chunk's head, stored before the deflate stream (the picture follows it)."""

    magic: bytes
    size: int
    play_time: int
    reserved: bytes
    dimension: int


PRVW_HEAD = Struct(PreviewHead, [
    Field("magic", Bytes(4)), Field("size", U32), Field("play_time", U32),
    Field("reserved", Bytes(18)), Field("dimension", U16),
], name="PRVW header")
CHUNK_HEAD = Struct(ChunkHead, [Field("magic", Bytes(4)), Field("size", U32)], name="chunk header")
HEAD_SIZE = 8

# -- the world entity block (players and NPCs) -----------------------------------------------

INVENTORY_ITEM = Struct(InventoryItem, [Field("quantity", U32), Field("object_id", U32)],
                        name="inventory item")
SKILL = Struct(Skill, [Field("level", U32), Field("object_id", U32)], name="skill")
QUEST = Struct(QuestState, [
    Check(f"type(quest_id) is int and 0 <= quest_id < {QUEST_DONE}", "quest_id",
          f"an id from 0 to {QUEST_DONE - 1}", "quest_id", on_write=True, on_read=False),
    # One u32: the id in bits 0-30, bit 31 set when completed. The word is read under the id's
    # name (its span is the id's), then split.
    Stored("quest_id", U32, f"quest_id | ({QUEST_DONE} if completed else 0)"),
    Computed("completed", f"bool(quest_id & {QUEST_DONE})"),
    Computed("quest_id", f"quest_id & {QUEST_DONE - 1}"),
], name="quest")

_NEED = "attributes_count * 4 + inventory_count * 8 + skills_count * 8 + quests_count * 4"
_FILL = ("f'{attributes_count} attributes, {inventory_count} items, {skills_count} skills and "
         "{quests_count} quests in {" + _NEED + "} bytes to fill the {left} bytes left'")
_OFF = "f'{" + _NEED + " - left:+d} bytes'"
ENTITY = Struct(Entity, [
    Field("map", U24), Field("direction", U8), Field("x", I32), Field("y", I32),
    Field("behaviour", U8), Field("transport", U8), Field("altitude", U8),
    # the counts are named apart from the lists they count: a span path names one thing
    Len("attributes_count", U8, ("attributes",), most=255, expected="at most 255 entries"),
    Len("inventory_count", U16, ("inventory",), most=65535, expected="at most 65535 entries"),
    Len("skills_count", U16, ("skills",), most=65535, expected="at most 65535 entries"),
    Len("quests_count", U16, ("quests",), most=65535, expected="at most 65535 entries"),
    # The block runs to the end of its chunk: the counts must fill it exactly (reported at the
    # attribute count, 7 bytes back; too many for the bytes at the attributes, too few at the quests).
    Check(f"{_NEED} <= left", "attributes", "", _OFF, explain=_FILL, back=7),
    Check(f"{_NEED} >= left", "quests", "", _OFF, explain=_FILL, back=7),
    Field("attributes", Array(I32, Ref("attributes_count"))),
    Field("inventory", List(INVENTORY_ITEM, Ref("inventory_count"))),
    Field("skills", List(SKILL, Ref("skills_count"))),
    Field("quests", List(QUEST, Ref("quests_count"))),
], name="entity block")

# -- USER and NPC ----------------------------------------------------------------------------


def _pad_hash(value: bytes) -> bytes:
    """A hash shorter than the field is padded with zeros (as the writer always did)."""
    raw = bytes(value)
    if len(raw) > HASH_SIZE:
        raise ValueError(f"{len(raw)} bytes")
    return raw.ljust(HASH_SIZE, b"\0")


def _language(raw: bytes) -> str:
    return raw.rstrip(b"\0").decode("latin-1")


def _language_bytes(code: str) -> bytes:
    raw = code.encode("latin-1", "replace")
    if len(raw) > 2:
        raise ValueError(repr(code))
    return raw.ljust(2, b"\0")


USER = Struct(UserChunk, [
    Field("password_hash", Adapt(Bytes(HASH_SIZE), bytes, _pad_hash,
                                 f"a hash of at most {HASH_SIZE} bytes", total=True)),
    Field("created", U64), Field("last_login", U64), Field("last_logout", U64), Field("last_seen", U64),
    Field("language", Adapt(Bytes(2), _language, _language_bytes,
                            "an ISO-639-1 code of at most 2 characters", total=True)),
    Field("flags", U8),
    Len("numchar", U8, ("character_options",), most=255, expected="at most 255 options"),
    # the bytes allow an empty name, no player has one: registration refuses it
    Check("name != ''", "name", "a user name that is not empty (a TirNanoG server refuses an empty "
          "one at registration)", "'\"\"'", on_write=True, on_read=False),
    Check("type(name) is not str or '\\0' not in name", "name", "a string without NUL characters",
          "repr(name)", on_write=True, on_read=False),
    Field("name", CStr()),
    Field("character_options", Array(I32, Ref("numchar"))),
    *[Check(f"not hasattr({slots}, '__len__') or len({slots}) == {SLOTS}", slots, f"{SLOTS} slots",
            f"len({slots})", on_write=True, on_read=False) for slots in ("equipped", "belt")],
    Field("equipped", Array(U16, SLOTS)),
    Field("belt", Array(U16, SLOTS)),
    Field("entity", ENTITY),
], name="USER chunk")

NPC = Struct(NpcChunk, [Field("npc_type", U32), Field("spawner", U32), Field("entity", ENTITY)],
             name="NPC chunk")

# -- GLBL, QSTS, DENY ------------------------------------------------------------------------


def _ints(cls: type, name: str) -> Struct:
    return Struct(cls, [
        Field(name, Array(I32, REST)),  # whole values to the end of the chunk
    ], name=f"{cls.KIND} chunk")  # type: ignore[attr-defined]


GLOBALS = _ints(GlobalsChunk, "values")
QUESTS = _ints(QuestsChunk, "completers")


def _family(value: int) -> AddressFamily:
    try:
        return AddressFamily(value)
    except ValueError:
        raise ValueError(str(value)) from None


def _ip(version: int) -> tuple[object, object]:
    def text(raw: bytes) -> str:
        return str(ipaddress.IPv4Address(raw) if version == 4 else ipaddress.IPv6Address(raw))

    def packed(address: str) -> bytes:
        ip = ipaddress.ip_address(address)
        if ip.version != version:
            raise ValueError(f"{address} is not an IPv{version} address")
        return ip.packed
    return text, packed


def _padding(raw: bytes) -> bytes:
    return raw if any(raw) else b""


def _padding_bytes(padding: bytes) -> bytes:
    if len(padding) not in (0, 12):
        raise ValueError(f"{len(padding)} bytes")
    return bytes(padding) or bytes(12)


_V4, _V6 = _ip(4), _ip(6)
DENY_ENTRY = Struct(DenyEntry, [
    Field("family", Adapt(U8, _family, int, "2 (AF_INET) or 10 (AF_INET6)")),
    Field("address", Switch("family", {
        AddressFamily.AF_INET: Adapt(Bytes(4), *_V4, "an AF_INET address"),  # type: ignore[arg-type]
        AddressFamily.AF_INET6: Adapt(Bytes(16), *_V6, "an AF_INET6 address")})),  # type: ignore[arg-type]
    # the 12 bytes after an IPv4 address, kept when not all zero
    Field("padding", Switch("family", {
        AddressFamily.AF_INET: Adapt(Bytes(12), _padding, _padding_bytes, "12 bytes of padding"),
        AddressFamily.AF_INET6: Adapt(Bytes(0), _padding, lambda p: b"", "no padding")})),
], name="DENY record")
DENY = Struct(DenyChunk, [
    Check(f"left % {DENY_RECORD} == 0", "entries", f"a whole number of {DENY_RECORD}-byte records",
          "f'{left} bytes'"),
    Field("entries", List(DENY_ENTRY, REST)),
], name="DENY chunk")



@dataclass(slots=True)
class MapBody:
    """A MAP chunk's body as stored: the map's id and its object layer's RLE stream (the
    codec turns the stream into tiles with :mod:`..rle`, a codec of its own)."""

    map_id: int
    tiles: bytes


MAP = Struct(MapBody, [Field("map_id", U32), Field("tiles", Bytes(REST))], name="MAP chunk")

# magic -> the body's layout
BODIES: dict[bytes, Struct] = {
    b"USER": USER, b"NPC\0": NPC, b"MAP\0": MAP, b"DENY": DENY, b"GLBL": GLOBALS, b"QSTS": QUESTS,
}
