"""Parse and build TirNanoG saved games (``tirnanog-saved-game.md``, NOTES.md).

Layout: a 32-byte header (magic, game id), an optional PRVW chunk, a deflate
stream of chunks, and a CRC-32 of the inflated chunk data.

Loading checks everything up front (magic, CRC, each chunk's size, every
count in every entity block) but decodes a chunk into Python objects only
when it is first used (see :class:`.model.ChunkList`). Offsets in messages
about chunks count from the start of the inflated chunk data.
"""

from __future__ import annotations

import ipaddress
import struct
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .... import limits
from ....binary import Reader, Record, Writer, active_sink, cached_struct, join_path, stream_space
from ....compression import inflate
from ....errors import FormatError, Report
from ....lazy import lazy_module
from ....speed import gc_paused
from ..crc_stream import read_stream, write_stream
from .model import (
    AddressFamily,
    ChunkList,
    DenyChunk,
    DenyEntry,
    Encoding,
    Entity,
    GlobalsChunk,
    InventoryItem,
    MapChunk,
    NpcChunk,
    Preview,
    QuestsChunk,
    QuestState,
    _Pending,
    RawChunk,
    SaveGame,
    Skill,
    UserChunk,
)

if TYPE_CHECKING:
    from .. import rle
else:  # numpy, for map tiles only: not imported for a save without them (start-up time)
    rle = lazy_module("savecraft.formats.tirnanog.rle")

MAGIC = b"TNG Saved Game\n\0"
HEADER = Record("header", [("magic", "bytes[16]"), ("game_id", "bytes[16]")])
CHUNK_HEAD = Record("chunk header", [("magic", "bytes[4]"), ("size", "u32")])
PRVW_HEAD = Record("PRVW header", [
    ("magic", "bytes[4]"), ("size", "u32"), ("play_time", "u32"), ("reserved", "bytes[18]"),
    ("dimension", "u16"),
])
USER_HEAD = Record("USER header", [
    ("magic", "bytes[4]"), ("size", "u32"), ("password_hash", "bytes[32]"), ("created", "u64"),
    ("last_login", "u64"), ("last_logout", "u64"), ("last_seen", "u64"), ("language", "bytes[2]"),
    ("flags", "u8"), ("numchar", "u8"),
])
NPC_HEAD = Record("NPC header", [
    ("magic", "bytes[4]"), ("size", "u32"), ("npc_type", "u32"), ("spawner", "u32"),
])
MAP_HEAD = Record("MAP header", [("magic", "bytes[4]"), ("size", "u32"), ("map_id", "u32")])
ENTITY_HEAD = Record("entity block", [
    ("map", "u24"), ("direction", "u8"), ("x", "i32"), ("y", "i32"), ("behaviour", "u8"),
    ("transport", "u8"), ("altitude", "u8"), ("attributes_count", "u8"), ("inventory_count", "u16"),
    ("skills_count", "u16"), ("quests_count", "u16"),
])  # the counts are named apart from the lists they count: a span path names one thing
SLOTS = 32  # equipped objects and belt: 32 x u16 each
DENY_RECORD = 17
QUEST_DONE = 0x8000_0000
PREVIEW_PIXELS = 256 * 256 * 2
PAYLOAD = "payload"  # the field path of the deflate stream, and the byte space of its inflated chunks
_SINGLE = (b"DENY", b"GLBL", b"QSTS")  # chunks that come once: named without an index
INV_ITEM = Record("inventory item", [("quantity", "u32"), ("object_id", "u32")])
SKILL_ITEM = Record("skill", [("level", "u32"), ("object_id", "u32")])


def sniff(data: bytes) -> bool:
    return data[:16] == MAGIC


# -- entity block ----------------------------------------------------------------------


def _entity_layout(r: Reader) -> tuple[Any, ...]:
    """Read the entity header and check its counts fill the rest exactly."""
    head = r.record(ENTITY_HEAD)
    a, i, s, q = head[7], head[8], head[9], head[10]
    need = a * 4 + i * 8 + s * 8 + q * 4
    if need != r.remaining:
        r.fail(
            "attributes" if need > r.remaining else "quests",
            f"{a} attributes, {i} items, {s} skills and {q} quests in {need} bytes "
            f"to fill the {r.remaining} bytes left",
            f"{need - r.remaining:+d} bytes",
            at=r.pos - ENTITY_HEAD.size + ENTITY_HEAD.offsets[7],
        )
    return head


def _decode_entity(r: Reader) -> Entity:
    head = _entity_layout(r)
    a, i, s, q = head[7], head[8], head[9], head[10]
    attrs = list(r.array("i32", a, "attributes"))
    inv = r.records(INV_ITEM, i, "inventory")
    skills = r.records(SKILL_ITEM, s, "skills")
    quests = r.array("u32", q, "quests")
    return Entity(
        map=head[0], direction=head[1], x=head[2], y=head[3], behaviour=head[4],
        transport=head[5], altitude=head[6], attributes=attrs,
        inventory=[InventoryItem(qty, obj) for qty, obj in inv],
        skills=[Skill(level, obj) for level, obj in skills],
        quests=[QuestState(v & ~QUEST_DONE, bool(v & QUEST_DONE)) for v in quests],
    )


def _pairs(w: Writer, name: str, pairs: list[tuple[int, int]], fields: tuple[str, str]) -> None:
    """Pairs of u32 written as one flat array; a bad value is named by its item and field."""
    try:
        w.array("u32", [v for pair in pairs for v in pair], name)
    except FormatError:
        for k, pair in enumerate(pairs):
            for field_name, v in zip(fields, pair):
                if not isinstance(v, int) or not 0 <= v <= 0xFFFF_FFFF:
                    w._bad(f"{name}[{k}].{field_name}", "an integer from 0 to 4294967295 (u32)", repr(v))
        raise


def _encode_entity(w: Writer, e: Entity) -> None:
    w.path, outer = join_path(w.path, "entity"), w.path
    for name, items, limit in (("attributes", e.attributes, 255), ("inventory", e.inventory, 65535),
                               ("skills", e.skills, 65535), ("quests", e.quests, 65535)):
        w.check_count(items, limit, name)
    w.record(ENTITY_HEAD, (e.map, e.direction, e.x, e.y, e.behaviour, e.transport, e.altitude,
                           len(e.attributes), len(e.inventory), len(e.skills), len(e.quests)))
    w.array("i32", e.attributes, "attributes")
    _pairs(w, "inventory", [(it.quantity, it.object_id) for it in e.inventory], ("quantity", "object_id"))
    _pairs(w, "skills", [(sk.level, sk.object_id) for sk in e.skills], ("level", "object_id"))
    for k, qs in enumerate(e.quests):
        if not 0 <= qs.quest_id < QUEST_DONE:
            w._bad(f"quests[{k}].quest_id", "an id from 0 to 2147483647", str(qs.quest_id))
    w.array("u32", [qs.quest_id | (QUEST_DONE if qs.completed else 0) for qs in e.quests], "quests")
    w.path = outer


# -- chunks: each has a layout check (used when loading) and a decoder (on first use) --


def _user_layout(r: Reader) -> tuple[tuple[Any, ...], str]:
    head = r.record(USER_HEAD)
    name = r.cstr("name")
    r.need(4 * head[9] + 2 * SLOTS * 2, "character_options")
    return head, name


def _check_user(r: Reader) -> None:
    head, _ = _user_layout(r)
    r.skip(4 * head[9] + 4 * SLOTS)
    _entity_layout(r.sub(r.remaining, "entity", "the chunk"))


def _decode_user(r: Reader) -> UserChunk:
    head, name = _user_layout(r)
    options = list(r.array("i32", head[9], "character_options"))
    equipped = list(r.array("u16", SLOTS, "equipped"))
    belt = list(r.array("u16", SLOTS, "belt"))
    entity = _decode_entity(r.sub(r.remaining, "entity", "the chunk"))
    return UserChunk(
        name=name, password_hash=head[2], created=head[3], last_login=head[4],
        last_logout=head[5], last_seen=head[6], language=head[7].rstrip(b"\0").decode("latin-1"),
        flags=head[8], character_options=options, equipped=equipped, belt=belt, entity=entity,
    )


def _encode_user(w: Writer, u: UserChunk) -> None:
    w.check_count(u.character_options, 255, "character_options", "options")
    lang = u.language.encode("latin-1", "replace")
    if len(lang) > 2:
        w._bad("language", "an ISO-639-1 code of at most 2 characters", repr(u.language))
    w.record(USER_HEAD, (b"USER", 0, u.password_hash, u.created, u.last_login, u.last_logout,
                         u.last_seen, lang.ljust(2, b"\0"), u.flags, len(u.character_options)))
    if not u.name:  # the bytes allow it, no player has one: registration refuses it
        w._bad("name", "a user name that is not empty (a TirNanoG server refuses an empty one at "
               "registration)", '""')
    w.cstr(u.name, "name")
    w.array("i32", u.character_options, "character_options")
    w.array("u16", u.equipped, "equipped")
    w.array("u16", u.belt, "belt")
    if len(u.equipped) != SLOTS or len(u.belt) != SLOTS:
        w._bad("equipped" if len(u.equipped) != SLOTS else "belt", f"{SLOTS} slots",
               str(len(u.equipped) if len(u.equipped) != SLOTS else len(u.belt)))
    _encode_entity(w, u.entity)


def _check_npc(r: Reader) -> None:
    r.record(NPC_HEAD)
    _entity_layout(r.sub(r.remaining, "entity", "the chunk"))


def _decode_npc(r: Reader) -> NpcChunk:
    head = r.record(NPC_HEAD)
    return NpcChunk(npc_type=head[2], spawner=head[3],
                    entity=_decode_entity(r.sub(r.remaining, "entity", "the chunk")))


def _encode_npc(w: Writer, n: NpcChunk) -> None:
    w.record(NPC_HEAD, (b"NPC\0", 0, n.npc_type, n.spawner))
    _encode_entity(w, n.entity)


def _ints_layout(r: Reader, what: str) -> int:
    r.skip(CHUNK_HEAD.size)
    if r.remaining % 4:
        r.fail(what, "a whole number of 4-byte values", f"{r.remaining} bytes")
    return r.remaining // 4


def _check_globals(r: Reader) -> None:
    _ints_layout(r, "values")


def _decode_globals(r: Reader) -> GlobalsChunk:
    return GlobalsChunk(list(r.array("i32", _ints_layout(r, "values"), "values")))


def _check_quests(r: Reader) -> None:
    _ints_layout(r, "completers")


def _decode_quests(r: Reader) -> QuestsChunk:
    return QuestsChunk(list(r.array("i32", _ints_layout(r, "completers"), "completers")))


def _encode_ints(magic: bytes, values: list[int], name: str) -> Callable[[Writer], None]:
    def enc(w: Writer) -> None:
        w.record(CHUNK_HEAD, (magic, 0))
        w.array("i32", values, name)
    return enc


def _decode_deny(r: Reader) -> DenyChunk:
    r.skip(CHUNK_HEAD.size)
    if r.remaining % DENY_RECORD:
        r.fail("entries", f"a whole number of {DENY_RECORD}-byte records", f"{r.remaining} bytes")
    entries = []
    for k in range(r.remaining // DENY_RECORD):
        fam = r.u8(f"entries[{k}].family")
        raw = r.bytes(16, f"entries[{k}].address")
        if fam == AddressFamily.AF_INET:
            pad = raw[4:]
            entries.append(DenyEntry(AddressFamily.AF_INET, str(ipaddress.IPv4Address(raw[:4])),
                                     pad if any(pad) else b""))
        elif fam == AddressFamily.AF_INET6:
            entries.append(DenyEntry(AddressFamily.AF_INET6, str(ipaddress.IPv6Address(raw))))
        else:
            r.fail(f"entries[{k}].family", "2 (AF_INET) or 10 (AF_INET6)", str(fam),
                   at=r.pos - DENY_RECORD)
    return DenyChunk(entries)


def _encode_deny(w: Writer, d: DenyChunk) -> None:
    w.record(CHUNK_HEAD, (b"DENY", 0))
    for k, e in enumerate(d.entries):
        try:
            packed = e.packed()
        except ValueError as exc:
            w._bad(f"entries[{k}].address", f"an {AddressFamily(e.family).name} address", str(exc))
        if len(packed) != 16:
            w._bad(f"entries[{k}].padding", "12 bytes of padding", f"{len(e.padding)} bytes")
        w.u8(int(e.family), f"entries[{k}].family")
        w.bytes(packed)


# A decoded save map is a Python list: a pointer per tile, and an int object for
# each tile above 256 (the small ones are shared): up to this many bytes a tile.
LIST_BYTES_PER_TILE = 40


def _check_map(r: Reader) -> int:
    """The MAP structure check in arithmetic only: every RLE packet whole, the tile count
    within the caps. Returns the count; no tile is decoded (a 4 KiB save can hold runs of
    hundreds of millions of tiles)."""
    r.record(MAP_HEAD)
    at = r.offset
    return _check_tiles(r.rest(), at, join_path(r.path, "tiles"))


def _check_tiles(data: bytes, at: int, path: str) -> int:
    total = rle.count_values(data, offset=at, path=path)
    limits.check("map_tiles", total, at, path, "tiles in the map's RLE stream")
    limits.check("decoded", LIST_BYTES_PER_TILE * total, at, path,
                 "bytes (a Python list) for the tiles in the map's RLE stream")
    return total


def _decode_map(r: Reader) -> MapChunk:
    head = r.record(MAP_HEAD)
    data = r.rest("tiles")
    _check_tiles(data, r.offset - len(data), join_path(r.path, "tiles"))
    tiles = rle.decode(data, offset=r.offset - len(data), path=join_path(r.path, "tiles"))
    canonical = rle.encode(tiles) == data
    return MapChunk(map_id=head[2], tiles=tiles.tolist(), rle=None if canonical else data)


def _encode_map(w: Writer, m: MapChunk) -> None:
    w.record(MAP_HEAD, (b"MAP\0", 0, m.map_id))
    if m.rle is not None:
        try:
            if rle.decode(m.rle).tolist() == list(m.tiles):
                w.bytes(m.rle)
                return
        except FormatError:
            pass
    try:
        w.bytes(rle.encode(m.tiles))
    except (OverflowError, ValueError) as exc:
        w._bad("tiles", "16-bit tile values (0 to 65535)", str(exc))


def _decode_raw(r: Reader) -> RawChunk:
    head = r.record(CHUNK_HEAD)
    return RawChunk(magic=head[0], data=r.rest())


def _encode_raw(w: Writer, c: RawChunk) -> None:
    if len(c.magic) != 4:
        w._bad("magic", "4 bytes", f"{len(c.magic)} bytes")
    w.record(CHUNK_HEAD, (c.magic, 0))
    w.bytes(c.data)


# magic -> (path name, check, decode)
_CHUNKS: dict[bytes, tuple[str, Callable[[Reader], Any], Callable[[Reader], Any]]] = {
    b"USER": ("users", _check_user, _decode_user),
    b"NPC\0": ("npcs", _check_npc, _decode_npc),
    b"MAP\0": ("maps", _check_map, _decode_map),
    b"DENY": ("deny", _decode_deny, _decode_deny),
    b"GLBL": ("globals", _check_globals, _decode_globals),
    b"QSTS": ("quests", _check_quests, _decode_quests),
}


_ENTITY_COUNTS = struct.Struct("<BHHH").unpack_from


def _fast_entity(content: bytes, ent: int, end: int) -> bool:
    if ent + 22 > end:
        return False
    a, i, s, q = _ENTITY_COUNTS(content, ent + 15)
    return bool(ent + 22 + a * 4 + i * 8 + s * 8 + q * 4 == end)


def _fast_user(content: bytes, pos: int, end: int) -> bool:
    """The USER structure check in arithmetic only; False sends it to the careful check.

    Loading a server save runs this once per player, so it avoids building
    Readers; when it says no, :func:`_check_user` finds and explains the problem.
    """
    if end - pos < USER_HEAD.size + 1:
        return False
    nul = content.find(b"\0", pos + 76, end)
    if nul < 0:
        return False
    try:
        content[pos + 76 : nul].decode("utf-8")
    except UnicodeDecodeError:
        return False
    return _fast_entity(content, nul + 1 + 4 * content[pos + 75] + 4 * SLOTS, end)


def _fast_npc(content: bytes, pos: int, end: int) -> bool:
    return _fast_entity(content, pos + NPC_HEAD.size, end)


def encode_chunk(chunk: Any, path: str = "") -> bytes:
    w = Writer(path)
    if isinstance(chunk, UserChunk):
        _encode_user(w, chunk)
    elif isinstance(chunk, NpcChunk):
        _encode_npc(w, chunk)
    elif isinstance(chunk, MapChunk):
        _encode_map(w, chunk)
    elif isinstance(chunk, DenyChunk):
        _encode_deny(w, chunk)
    elif isinstance(chunk, GlobalsChunk):
        _encode_ints(b"GLBL", chunk.values, "values")(w)
    elif isinstance(chunk, QuestsChunk):
        _encode_ints(b"QSTS", chunk.completers, "completers")(w)
    elif isinstance(chunk, RawChunk):
        _encode_raw(w, chunk)
    else:
        raise FormatError(None, path, "a chunk", type(chunk).__name__)
    w.patch_u32(4, len(w.buf))
    return w.getvalue()


def _fast_decode_entity(raw: bytes, ent: int) -> Entity:
    """Decode an entity block already checked by :func:`_fast_entity`: two unpacks."""
    head = ENTITY_HEAD.unpack_from(raw, ent)
    a, i, s, q = head[7], head[8], head[9], head[10]
    values = cached_struct(f"<{a}i{2 * i + 2 * s + q}I").unpack_from(raw, ent + ENTITY_HEAD.size)
    inv = values[a : a + 2 * i]
    sk = values[a + 2 * i : a + 2 * i + 2 * s]
    return Entity(
        head[0], head[1], head[2], head[3], head[4], head[5], head[6], list(values[:a]),
        [InventoryItem(qty, obj) for qty, obj in zip(inv[0::2], inv[1::2])],
        [Skill(level, obj) for level, obj in zip(sk[0::2], sk[1::2])],
        [QuestState(v & ~QUEST_DONE, bool(v & QUEST_DONE)) for v in values[a + 2 * i + 2 * s :]],
    )


def _fast_decode_user(raw: bytes) -> UserChunk:
    head = USER_HEAD.unpack_from(raw, 0)
    nul = raw.find(b"\0", USER_HEAD.size)
    n = head[9]
    rest = cached_struct(f"<{n}i{SLOTS}H{SLOTS}H").unpack_from(raw, nul + 1)
    return UserChunk(
        raw[USER_HEAD.size : nul].decode("utf-8"), head[2], head[3], head[4], head[5], head[6],
        head[7].rstrip(b"\0").decode("latin-1"), head[8], list(rest[:n]),
        list(rest[n : n + SLOTS]), list(rest[n + SLOTS :]),
        _fast_decode_entity(raw, nul + 1 + 4 * n + 4 * SLOTS),
    )


def _fast_decode_npc(raw: bytes) -> NpcChunk:
    head = NPC_HEAD.unpack_from(raw, 0)
    return NpcChunk(head[2], head[3], _fast_decode_entity(raw, NPC_HEAD.size))


_FAST_DECODERS: dict[bytes, tuple[Callable[[bytes, int, int], bool], Callable[[bytes], Any]]] = {
    b"USER": (_fast_user, _fast_decode_user),
    b"NPC\0": (_fast_npc, _fast_decode_npc),
}


def decode_chunk(raw: bytes, offset: int, path: str = "") -> Any:
    """Decode one chunk's bytes (header included); ``offset`` is where it sits in the payload.

    Chunks that pass the arithmetic structure check are decoded straight from
    precompiled structs; anything else goes through the Reader, whose errors
    say where and what.
    """
    fast = _FAST_DECODERS.get(raw[:4])
    if fast is not None and fast[0](raw, 0, len(raw)) and active_sink() is None:
        return fast[1](raw)
    entry = _CHUNKS.get(raw[:4])
    r = Reader(raw, base=offset, path=path or _default_path(raw[:4]), what="the chunk")
    if entry is None:
        return _decode_raw(r)
    return entry[2](r)


def chunk_path(magic: bytes, k: int, index: int) -> str:
    """The field path of the ``k``-th chunk of its kind (``users[3]``, ``deny``), at ``index``."""
    entry = _CHUNKS.get(magic)
    if entry is None:
        return f"chunks[{index}]"
    return entry[0] if magic in _SINGLE else f"{entry[0]}[{k}]"


def _default_path(magic: bytes) -> str:
    entry = _CHUNKS.get(magic)
    return entry[0] if entry else "chunks"


# -- the payload -------------------------------------------------------------------------


def scan_chunks(content: bytes, report: Report) -> ChunkList:
    """Split the inflated payload into chunks and check each one's structure.

    Decoding into objects waits until a chunk is used. In validate mode a
    chunk that fails its check is reported and kept as raw bytes.
    """
    counters: dict[bytes, int] = {}
    pos = 0
    end = len(content)
    unpack_head = CHUNK_HEAD.struct.unpack_from
    chunks = ChunkList(decode=decode_chunk)
    pending = chunks._items
    sink = active_sink()
    max_chunks = limits.get("chunks")
    file_tiles = 0
    while pos < end:
        index = len(chunks)
        if index >= max_chunks:
            try:
                limits.check("chunks", index + 1, pos, f"chunks[{index}]", "chunks read so far")
            except FormatError as err:
                report.capture(err)
            break
        if end - pos < 8:
            report.error(pos, f"chunks[{index}]", "an 8-byte chunk header",
                         f"the end of the payload after {end - pos} bytes")
            break
        magic, size = unpack_head(content, pos)
        if size < 8 or size > end - pos:
            report.error(pos + 4, f"chunks[{index}].size",
                         f"a chunk size from 8 to {end - pos} (the bytes left in the payload)",
                         str(size))
            break
        raw = content[pos : pos + size]
        if sink is not None:  # recording: the chunk and its header; its fields when decoded
            sink.add(pos, size, f"chunks[{index}]")
            sink.add(pos, 4, f"chunks[{index}].magic")
            sink.add(pos + 4, 4, f"chunks[{index}].size")
        entry = _CHUNKS.get(magic)
        if entry is not None:
            k = counters.get(magic, 0)
            counters[magic] = k + 1
            fast = _FAST_DECODERS.get(magic)
            if fast is not None and fast[0](content, pos, pos + size):
                pending.append(_Pending(raw, pos))
                pos += size
                continue
            path = chunk_path(magic, k, index)
            try:
                tiles = entry[1](Reader(raw, base=pos, path=path, what="the chunk"))
                if magic == b"MAP\0":
                    file_tiles += tiles
                    limits.check("file_tiles", file_tiles, pos, f"{path}.tiles",
                                 "tiles in the maps of the save so far")
            except FormatError as err:
                report.capture(err)
                chunks.append(RawChunk(magic=magic, data=raw[8:]))
                pos += size
                continue
        pending.append(_Pending(raw, pos))
        pos += size
    return chunks


def payload_bytes(save: SaveGame) -> bytes:
    """The inflated chunk data of a save: untouched chunks as read, others encoded."""
    parts = []
    chunks = save.chunks
    counters: dict[bytes, int] = {}
    for i in range(len(chunks)):
        # Counted over every chunk, untouched ones too: users[k] is the k-th USER of the file.
        magic = chunks.magic(i)
        k = counters.get(magic, 0)
        counters[magic] = k + 1
        raw = chunks.raw_or_none(i)
        if raw is not None:
            parts.append(raw)
            continue
        parts.append(encode_chunk(chunks[i], chunk_path(magic, k, i)))
    return b"".join(parts)


def parse(data: bytes, report: Report | None = None) -> SaveGame:
    report = report or Report()
    r = Reader(data, what="the file")
    r.need(16, "magic")
    if data[:16] != MAGIC:
        r.fail("magic", repr(MAGIC), repr(bytes(data[:16])))
    head = r.record(HEADER)
    game_id_raw: bytes = head[1]
    gid, _, pad = game_id_raw.partition(b"\0")
    if any(pad):
        report.error(16, "game_id", "a game id padded with zero bytes", repr(game_id_raw))
    try:
        game_id = gid.decode("utf-8")
    except UnicodeDecodeError:
        report.error(16, "game_id", "a UTF-8 game id", repr(game_id_raw))
        game_id = gid.decode("latin-1")

    preview = None
    if data[32:36] == b"PRVW":
        preview = _parse_preview(r, report)

    start = r.pos
    if len(data) - start < 4:
        r.fail("crc", "the deflate stream and a 4-byte CRC", f"the end of the file after {len(data) - start} bytes")
    r.skip(len(data) - 4 - start, PAYLOAD)
    stored_crc = r.u32("crc")
    encoding = Encoding()
    # A view, not a slice: a large file (perhaps memory-mapped) is never copied whole.
    with memoryview(data) as view:
        content = read_stream(view[start:-4], stored_crc, encoding, report,
                              offset=start, crc_offset=len(data) - 4, path=PAYLOAD, crc_path="crc",
                              what="the chunk data")
    with gc_paused(), stream_space(PAYLOAD, content, (start, len(data) - 4 - start)):
        chunks = scan_chunks(content, report)
    return SaveGame(game_id=game_id, preview=preview, chunks=chunks, encoding=encoding)


def _parse_preview(r: Reader, report: Report) -> Preview:
    start = r.pos
    head = r.record(PRVW_HEAD, "preview")
    size = head[1]
    if size < PRVW_HEAD.size or size > len(r.data) - start - 4:
        r.fail("preview.size", f"a PRVW size from {PRVW_HEAD.size} to {len(r.data) - start - 4}",
               str(size), at=start + 4)
    image = r.bytes(size - PRVW_HEAD.size, "preview.image")
    if any(head[3]):
        report.error(start + 12, "preview.reserved", "18 zero bytes", head[3].hex())
    if head[4] != 256:
        report.error(start + 30, "preview.dimension", "256", str(head[4]))
    try:
        pixels = inflate(image, offset=start + PRVW_HEAD.size, path="preview.image",
                         limit=PREVIEW_PIXELS)
        if len(pixels.data) != PREVIEW_PIXELS:
            report.error(start + PRVW_HEAD.size, "preview.image",
                         f"a 256 x 256 15-bit image ({PREVIEW_PIXELS} bytes inflated)",
                         f"{len(pixels.data)} bytes")
    except FormatError as err:
        report.capture(err)
    return Preview(play_time=head[2], dimension=head[4], image=image, reserved=head[3])


def build(save: SaveGame) -> bytes:
    w = Writer()
    w.bytes(MAGIC)
    w.fixed_str(save.game_id, 16, "game_id")
    if save.preview is not None:
        p = save.preview
        if len(p.reserved) != 18:
            w._bad("preview.reserved", "18 bytes", f"{len(p.reserved)} bytes")
        w.record(PRVW_HEAD, (b"PRVW", PRVW_HEAD.size + len(p.image), p.play_time, p.reserved,
                             p.dimension), "preview")
        w.bytes(p.image)
    w.bytes(write_stream(payload_bytes(save), save.encoding))
    return w.getvalue()
