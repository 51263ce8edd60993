"""Parse and build TirNanoG saved games (``tirnanog-saved-game.md``, NOTES.md).

Layout: a 32-byte header (magic, game id), an optional PRVW chunk, a deflate
stream of chunks, and a CRC-32 of the inflated chunk data.

Loading checks everything up front (magic, CRC, each chunk's size, every
count in every entity block) but decodes a chunk into Python objects only
when it is first used (see :class:`.model.ChunkList`). Offsets in messages
about chunks count from the start of the inflated chunk data.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .... import limits
from ....binary import Reader, Writer, active_sink, cached_struct, join_path, stream_space
from ....compression import inflate
from ....errors import FormatError, Report
from ....layout import FAST_READ_ERRORS, Bytes, Const, Context, Field, Struct
from ....lazy import lazy_module
from ....speed import gc_paused
from ..crc_stream import read_stream, write_stream
from .layouts import (
    BODIES,
    CHUNK_HEAD,
    DENY_RECORD,
    HEAD_SIZE,
    MAP,
    PRVW_HEAD,
    QUEST_DONE,
    SLOTS,
    MapBody,
    PreviewHead,
)
from .model import (
    ChunkList,
    DenyChunk,
    Encoding,
    GlobalsChunk,
    MapChunk,
    NpcChunk,
    Preview,
    QuestsChunk,
    RawChunk,
    SaveGame,
    UserChunk,
    _Pending,
)

__all__ = ["DENY_RECORD", "QUEST_DONE", "SLOTS", "MAGIC", "parse", "build", "encode_chunk",
           "decode_chunk", "scan_chunks", "payload_bytes", "chunk_path", "sniff"]

if TYPE_CHECKING:
    from .. import rle
else:  # numpy, for map tiles only: not imported for a save without them (start-up time)
    rle = lazy_module("savecraft.formats.tirnanog.rle")

MAGIC = b"TNG Saved Game\n\0"
GAME_ID_SIZE = 16


@dataclass(slots=True)
class SaveHeader:
    """The 32 bytes before the chunks, as stored: the game id's bytes, NUL-padded (the parser
    judges them: a problem there is reported and the file read on)."""

    game_id: bytes = bytes(GAME_ID_SIZE)


HEADER = Struct(SaveHeader, [Const("magic", Bytes(len(MAGIC)), MAGIC, repr(MAGIC)),
                             Field("game_id", Bytes(GAME_ID_SIZE))], name="header", whole=True)
PREVIEW_HEAD_SIZE = PRVW_HEAD.fixed_size() or 0
PREVIEW_PIXELS = 256 * 256 * 2
PAYLOAD = "payload"  # the field path of the deflate stream, and the byte space of its inflated chunks
_SINGLE = (b"DENY", b"GLBL", b"QSTS")  # chunks that come once: named without an index
# magic -> the path name of its chunks
_CHUNKS: dict[bytes, tuple[str]] = {
    b"USER": ("users",), b"NPC\0": ("npcs",), b"MAP\0": ("maps",), b"DENY": ("deny",),
    b"GLBL": ("globals",), b"QSTS": ("quests",),
}
_MAGIC: dict[type, bytes] = {UserChunk: b"USER", NpcChunk: b"NPC\0", MapChunk: b"MAP\0",
                             DenyChunk: b"DENY", GlobalsChunk: b"GLBL", QuestsChunk: b"QSTS"}
_HEAD = cached_struct("<" + (CHUNK_HEAD.code or ""))
PICKED: dict[bytes, tuple[str, ...]] = {b"USER": ("name", "flags")}
"""The values :func:`scan_chunks` picks from the chunks it checks (the layout's
:meth:`~savecraft.layout.Struct.picker`: its skim returning them, as cheap): a user's name
and flags, which the summary and validate's name check need of every user."""
CHECKED_BY_SCAN = frozenset(magic for magic in BODIES if magic != b"MAP\0")
"""The chunks :func:`scan_chunks` reads through their body's layout (the skim, else the
checked reader): one that passed decodes without a problem, so validate need not decode it."""


def sniff(data: bytes) -> bool:
    return data[:16] == MAGIC


# -- MAP: the body's layout, and the tiles of its RLE stream ------------------------------

# A decoded save map is a Python list: a pointer per tile, and an int object for
# each tile above 256 (the small ones are shared): up to this many bytes a tile.
LIST_BYTES_PER_TILE = 40


def _check_map(r: Reader) -> int:
    """The MAP structure check in arithmetic only: every RLE packet whole, the tile count
    within the caps. Returns the count; no tile is decoded (a 4 KiB save can hold runs of
    hundreds of millions of tiles)."""
    body = MAP.read(r, Context())
    return _check_tiles(body.tiles, r.offset - len(body.tiles), join_path(r.path, "tiles"))


def _check_tiles(data: bytes, at: int, path: str) -> int:
    total = rle.count_values(data, offset=at, path=path)
    limits.check("map_tiles", total, at, path, "tiles in the map's RLE stream")
    limits.check("decoded", LIST_BYTES_PER_TILE * total, at, path,
                 "bytes (a Python list) for the tiles in the map's RLE stream")
    return total


def _decode_map(r: Reader) -> MapChunk:
    body = MAP.read(r, Context())
    data = body.tiles
    at, path = r.offset - len(data), join_path(r.path, "tiles")
    _check_tiles(data, at, path)
    tiles = rle.decode(data, offset=at, path=path)
    canonical = rle.encode(tiles) == data
    return MapChunk(map_id=body.map_id, tiles=tiles.tolist(), rle=None if canonical else data)


def _map_body(m: MapChunk, path: str) -> MapBody:
    if m.rle is not None:
        try:
            if rle.decode(m.rle).tolist() == list(m.tiles):
                return MapBody(m.map_id, m.rle)
        except FormatError:
            pass
    try:
        return MapBody(m.map_id, rle.encode(m.tiles))
    except (OverflowError, ValueError) as exc:
        raise FormatError(None, join_path(path, "tiles"), "16-bit tile values (0 to 65535)",
                          str(exc)) from None


# -- chunks ----------------------------------------------------------------------------------


def encode_chunk(chunk: Any, path: str = "") -> bytes:
    """A chunk's bytes: its header, then its body as its layout writes it."""
    w = Writer(path)
    if isinstance(chunk, RawChunk):
        if not isinstance(chunk.magic, bytes | bytearray) or len(chunk.magic) != 4:
            w._bad("magic", "4 bytes", f"{len(chunk.magic)} bytes")
        w.bytes(chunk.magic)
        w.u32(0)
        w.bytes(chunk.data, "data")
    else:
        magic = _MAGIC.get(type(chunk))
        if magic is None:
            raise FormatError(None, path, "a chunk", type(chunk).__name__)
        w.bytes(magic)
        w.u32(0)
        if magic == b"MAP\0":
            MAP.write(_map_body(chunk, path), w, Context())
        else:
            BODIES[magic].write(chunk, w, Context())
    w.patch_u32(4, len(w.buf))
    return w.getvalue()


def decode_chunk(raw: bytes, offset: int, path: str = "") -> Any:
    """Decode one chunk's bytes (header included); ``offset`` is where it sits in the payload.

    The body's layout reads it: fast, or (while spans are recorded, or where the fast
    reader gives up) checked, whose errors say where and what.
    """
    magic = bytes(raw[:4])
    layout = BODIES.get(magic)
    if layout is None:
        return RawChunk(magic=magic, data=bytes(raw[HEAD_SIZE:]))
    r = Reader(raw, HEAD_SIZE, base=offset, path=path or _default_path(magic), what="the chunk")
    if magic == b"MAP\0":
        return _decode_map(r)
    return layout.read(r, Context())


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
    unpack_head = _HEAD.unpack_from
    chunks = ChunkList(decode=decode_chunk)
    pending = chunks._items
    sink = active_sink()
    max_chunks = limits.get("chunks")
    ctx = Context()
    skims = {magic: BODIES[magic].fast_skip_fn for magic in CHECKED_BY_SCAN if magic not in PICKED}
    picks = {magic: BODIES[magic].picker(names) for magic, names in PICKED.items()}
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
        layout = BODIES.get(magic)
        if layout is not None:
            k = counters.get(magic, 0)
            counters[magic] = k + 1
            pick = picks.get(magic)  # USER first: most chunks of a big save (one look-up each)
            if pick is not None:
                try:  # the skim that also returns a few values (the same acceptance)
                    picked, stop = pick(content, pos + HEAD_SIZE, pos + size, ctx)
                    if stop == pos + size:
                        pending.append(_Pending(raw, pos, picked))
                        pos += size
                        continue
                except FAST_READ_ERRORS:
                    pass
            else:
                skim = skims.get(magic)
                if skim is not None:
                    try:  # what the fast reader reads: decoded on first use
                        if skim(content, pos + HEAD_SIZE, pos + size, ctx) == pos + size:
                            pending.append(_Pending(raw, pos))
                            pos += size
                            continue
                    except FAST_READ_ERRORS:
                        pass
            path = chunk_path(magic, k, index)
            try:
                r = Reader(raw, HEAD_SIZE, base=pos, path=path, what="the chunk")
                if magic == b"MAP\0":
                    file_tiles += _check_map(r)
                    limits.check("file_tiles", file_tiles, pos, f"{path}.tiles",
                                 "tiles in the maps of the save so far")
                else:  # the checked reader says what is wrong
                    layout.checked_only(r, ctx)
                    if not r.at_end():
                        r.fail("", "the end of the chunk", f"{r.remaining} more bytes")
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
    game_id_raw: bytes = HEADER.read(r, Context()).game_id
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
    head = PRVW_HEAD.read(r, Context(), "preview")
    size = head.size
    if size < PREVIEW_HEAD_SIZE or size > len(r.data) - start - 4:
        r.fail("preview.size", f"a PRVW size from {PREVIEW_HEAD_SIZE} to {len(r.data) - start - 4}",
               str(size), at=start + 4)
    image = r.bytes(size - PREVIEW_HEAD_SIZE, "preview.image")
    sink = active_sink()
    if sink is not None:  # the whole chunk, head and picture
        sink.add(start, r.pos - start, "preview")
    if any(head.reserved):
        report.error(start + 12, "preview.reserved", "18 zero bytes", head.reserved.hex())
    if head.dimension != 256:
        report.error(start + 30, "preview.dimension", "256", str(head.dimension))
    try:
        pixels = inflate(image, offset=start + PREVIEW_HEAD_SIZE, path="preview.image",
                         limit=PREVIEW_PIXELS)
        if len(pixels.data) != PREVIEW_PIXELS:
            report.error(start + PREVIEW_HEAD_SIZE, "preview.image",
                         f"a 256 x 256 15-bit image ({PREVIEW_PIXELS} bytes inflated)",
                         f"{len(pixels.data)} bytes")
    except FormatError as err:
        report.capture(err)
    return Preview(play_time=head.play_time, dimension=head.dimension, image=image, reserved=head.reserved)


def build(save: SaveGame) -> bytes:
    w = Writer()
    raw_id = save.game_id.encode("utf-8")
    if len(raw_id) > GAME_ID_SIZE:
        w._bad("game_id", f"a string of at most {GAME_ID_SIZE} bytes", f"{len(raw_id)} bytes ({save.game_id!r})")
    HEADER.write(SaveHeader(raw_id.ljust(GAME_ID_SIZE, b"\0")), w, Context())
    if save.preview is not None:
        p = save.preview
        if len(p.reserved) != 18:
            w._bad("preview.reserved", "18 bytes", f"{len(p.reserved)} bytes")
        PRVW_HEAD.write(PreviewHead(b"PRVW", PREVIEW_HEAD_SIZE + len(p.image), p.play_time,
                                    p.reserved, p.dimension), w, Context(), "preview")
        w.bytes(p.image)
    w.bytes(write_stream(payload_bytes(save), save.encoding))
    return w.getvalue()
