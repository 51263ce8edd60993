"""The TirNanoG saved game as Python values: header, preview and chunks.

Fields that only remember how the file was encoded (the original compressed
bytes, an RLE stream that is not our canonical one) are excluded from
equality: two saves are equal when they hold the same data.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Iterable, Iterator, MutableSequence, Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar, overload

from ....compression import FEEDING, Container, DeflateWorker
from ..crc_stream import StreamEncoding
from ....jsonmap import KIND, _bad, confirming, consuming, decoder, encoder, stream
from ....speed import gc_paused
from ....lazy import lazy_module

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt
else:  # imported on first use (savecraft.lazy): only for map tiles
    np = lazy_module("numpy")

PREVIEW_SIZE = 256
C = TypeVar("C")


class AddressFamily(IntEnum):
    """The family byte of a DENY record (the BSD socket constants TirNanoG uses)."""

    AF_INET = 2
    AF_INET6 = 10


@dataclass(slots=True)
class InventoryItem:
    quantity: int
    object_id: int


@dataclass(slots=True)
class Skill:
    level: int
    object_id: int


@dataclass(slots=True)
class QuestState:
    quest_id: int
    completed: bool = False


@dataclass(slots=True)
class Entity:
    """The world entity block shared by players (USER) and NPCs."""

    map: int = 0
    direction: int = 0
    x: int = 0
    y: int = 0
    behaviour: int = 0
    transport: int = 0
    altitude: int = 0
    attributes: list[int] = field(default_factory=list)
    inventory: list[InventoryItem] = field(default_factory=list)
    skills: list[Skill] = field(default_factory=list)
    quests: list[QuestState] = field(default_factory=list)


@dataclass(slots=True)
class Preview:
    """The PRVW chunk, stored outside the compressed payload.

    ``image`` is the deflate stream of a 256 x 256 15-bit hi-colour picture,
    kept compressed (see :mod:`.preview` for PNG export and import).
    """

    KIND: ClassVar[str] = "PRVW"
    play_time: int = 0
    dimension: int = PREVIEW_SIZE
    image: bytes = b""
    reserved: bytes = bytes(18)


@dataclass(slots=True)
class DenyEntry:
    KEY: ClassVar[str] = "address"  # how savecraft diff matches entries (savecraft.diff)
    family: AddressFamily
    address: str  # IPv4 or IPv6 text, as ipaddress prints it
    padding: bytes = b""  # the 12 bytes after an IPv4 address, when not all zero

    def packed(self) -> bytes:
        ip = ipaddress.ip_address(self.address)
        raw = ip.packed
        if self.family == AddressFamily.AF_INET:
            if ip.version != 4:
                raise ValueError(f"{self.address} is not an IPv4 address")
            return raw + (self.padding or bytes(12))
        if ip.version != 6:
            raise ValueError(f"{self.address} is not an IPv6 address")
        return raw


@dataclass(slots=True)
class DenyChunk:
    """Addresses the server refuses."""

    KIND: ClassVar[str] = "DENY"
    entries: list[DenyEntry] = field(default_factory=list)


@dataclass(slots=True)
class GlobalsChunk:
    """The world's global attribute values."""

    KIND: ClassVar[str] = "GLBL"
    values: list[int] = field(default_factory=list)


@dataclass(slots=True)
class QuestsChunk:
    """Global quests: the id of the player who completed each, or -1."""

    KIND: ClassVar[str] = "QSTS"
    completers: list[int] = field(default_factory=list)


@dataclass(slots=True)
class UserChunk:
    """One player: account, dates (Unix seconds), equipment, belt and entity."""

    KIND: ClassVar[str] = "USER"
    name: str = ""
    password_hash: bytes = bytes(32)
    created: int = field(default=0, metadata={"time": "unix"})  # typed as ISO 8601 in edit
    last_login: int = field(default=0, metadata={"time": "unix"})
    last_logout: int = field(default=0, metadata={"time": "unix"})
    last_seen: int = field(default=0, metadata={"time": "unix"})
    language: str = "en"
    flags: int = 0
    character_options: list[int] = field(default_factory=list)
    equipped: list[int] = field(default_factory=lambda: [0] * 32)
    belt: list[int] = field(default_factory=lambda: [0] * 32)
    entity: Entity = field(default_factory=Entity)

    @property
    def banned(self) -> bool:
        return bool(self.flags & 1)


@dataclass(slots=True)
class NpcChunk:
    KIND: ClassVar[str] = "NPC"
    npc_type: int = 0
    spawner: int = 0
    entity: Entity = field(default_factory=Entity)


def _tiles_eq(a: npt.NDArray[np.uint16], b: npt.NDArray[np.uint16]) -> bool:
    return a.shape == b.shape and bool(np.array_equal(a, b))


@dataclass(slots=True, eq=False)
class MapChunk:
    """The changed object layer of one map, decoded from its RLE to tile values.

    ``rle`` keeps the original stream while it is not the canonical encoding
    of ``tiles``; the writer reuses it as long as it still decodes to them.
    """

    KIND: ClassVar[str] = "MAP"
    KEY: ClassVar[str] = "map_id"
    map_id: int = 0
    tiles: list[int] = field(default_factory=list)
    rle: bytes | None = None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, MapChunk):
            return NotImplemented
        return self.map_id == other.map_id and list(self.tiles) == list(other.tiles)


@dataclass(slots=True)
class RawChunk:
    """A chunk with a magic this version does not know: kept and written back as is."""

    KIND: ClassVar[str] = "RAW"
    KEY: ClassVar[str] = "magic"
    magic: bytes = field(default=b"????", metadata={"json": "text"})  # "ZZZZ" in dumps, not base64
    data: bytes = b""


Chunk = DenyChunk | GlobalsChunk | QuestsChunk | UserChunk | NpcChunk | MapChunk | RawChunk

CHUNK_TYPES: tuple[type, ...] = (DenyChunk, GlobalsChunk, QuestsChunk, UserChunk, NpcChunk,
                                 MapChunk, RawChunk)


class KindView(Sequence[C]):
    """The chunks of one type (``SaveGame.users``), in file order, as a read-only list.

    Found by their magic, which costs no decoding, so ``users[1]`` in a save of
    50,000 players decodes one player: an edit or a path resolved by the
    studio stays as fast as a load. Like the list it replaces it is a snapshot
    of the positions: chunks added later are not in it.
    """

    __slots__ = ("_chunks", "_cls", "_at")

    def __init__(self, chunks: ChunkList, cls: type[C]) -> None:
        magic = _MAGIC_OF[cls]
        self._chunks, self._cls = chunks, cls
        self._at = [i for i in range(len(chunks)) if chunks.magic(i) == magic]

    @overload
    def __getitem__(self, k: int) -> C: ...
    @overload
    def __getitem__(self, k: slice) -> list[C]: ...
    def __getitem__(self, k: int | slice) -> C | list[C]:
        if isinstance(k, slice):
            return [self._item(i) for i in self._at[k]]
        return self._item(self._at[k])

    def _item(self, i: int) -> C:
        item = self._chunks[i]
        if not isinstance(item, self._cls):  # a chunk object of another type set in its place
            raise TypeError(f"chunk {i} is a {type(item).__name__}, not a {self._cls.__name__}")
        return item

    def __len__(self) -> int:
        return len(self._at)

    def __iter__(self) -> Iterator[C]:
        if len(self._at) > 1000:
            with gc_paused():  # decoding thousands of players: the bulk path
                items = [self._item(i) for i in self._at]
            yield from items
        else:
            for i in self._at:
                yield self._item(i)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, KindView | list | tuple):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"KindView({len(self)} {self._cls.__name__})"


class ChunkList(MutableSequence[Any]):
    """The payload's chunks, decoded on first access.

    Loading a server save with thousands of players checks every chunk's
    structure but builds Python objects only for the chunks that are looked
    at; chunks never touched are written back from their original bytes.
    """

    __slots__ = ("_items", "_decode")
    __json_stream__ = True  # a dump's chunks may be read piece by piece (jsonmap.loads)

    def __init__(self, items: Iterable[Any] = (),
                 decode: Callable[[bytes, int], Any] | None = None) -> None:
        # Each entry is a decoded chunk, or a _Pending(raw bytes, offset).
        self._items: list[Any] = list(items)
        self._decode = decode

    @classmethod
    def pending(cls, raws: list[tuple[bytes, int]], decode: Callable[[bytes, int], Any]) -> ChunkList:
        return cls((_Pending(r, o) for r, o in raws), decode)

    def _get(self, i: int) -> Any:
        item = self._items[i]
        if type(item) is _Pending:
            if item.value is not None:
                item = item.value
            else:
                assert self._decode is not None
                item = self._decode(item.raw, item.offset)
            self._items[i] = item
        return item

    def decoded(self, i: int) -> Any:
        """Chunk ``i`` decoded, without keeping the result when it was not decoded yet
        (validate decodes the chunks the scan did not check through a layout, and builds
        nothing that lasts)."""
        item = self._items[i]
        if type(item) is _Pending:
            if item.value is not None:
                return item.value
            assert self._decode is not None
            return self._decode(item.raw, item.offset)
        return item

    def picked_or_none(self, i: int) -> tuple[Any, ...] | None:
        """What the chunk scan picked from chunk ``i``'s bytes, if it was never decoded."""
        item = self._items[i]
        return item.picked if type(item) is _Pending else None

    def raw_or_none(self, i: int) -> bytes | None:
        """The original bytes of chunk ``i`` if it was never decoded (so never changed)."""
        item = self._items[i]
        return item.raw if type(item) is _Pending else None

    def magic(self, i: int) -> bytes:
        item = self._items[i]
        if type(item) is _Pending:
            return bytes(item.raw[:4])
        return chunk_magic(item)

    @overload
    def __getitem__(self, i: int) -> Any: ...
    @overload
    def __getitem__(self, i: slice) -> list[Any]: ...
    def __getitem__(self, i: int | slice) -> Any:
        if isinstance(i, slice):
            return [self._get(j) for j in range(len(self._items))[i]]
        if i < 0:
            i += len(self._items)
        if not 0 <= i < len(self._items):
            raise IndexError("chunk index out of range")
        return self._get(i)

    def __setitem__(self, i: Any, value: Any) -> None:
        self._items[i] = value

    def __delitem__(self, i: int | slice) -> None:
        del self._items[i]

    def __len__(self) -> int:
        return len(self._items)

    def insert(self, index: int, value: Any) -> None:
        self._items.insert(index, value)

    def decode_all(self) -> None:
        """Decode every chunk now, in one pass with the garbage collector paused."""
        with gc_paused():
            for i in range(len(self._items)):
                self._get(i)

    def __iter__(self) -> Iterator[Any]:
        if any(type(item) is _Pending for item in self._items):
            self.decode_all()
        for i in range(len(self._items)):
            yield self._get(i)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ChunkList):
            if len(self) != len(other):
                return False
            for i in range(len(self)):
                a, b = self.raw_or_none(i), other.raw_or_none(i)
                if a is not None and b is not None:
                    if a != b:
                        return False
                elif self[i] != other[i]:
                    return False
            return True
        if isinstance(other, list):
            return list(self) == other
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"ChunkList({len(self)} chunks)"

    def of_kind(self, cls: type[C]) -> KindView[C]:
        """Chunks of one type, found by magic, each decoded only when it is looked at."""
        return KindView(self, cls)

    def first(self, cls: type[C]) -> C | None:
        """The first chunk of one type (GLBL, QSTS and DENY come once), or None."""
        found = self.of_kind(cls)
        return found[0] if found else None

    def __json_encode__(self) -> Any:
        """Every chunk's JSON, one at a time (:func:`savecraft.jsonmap.stream`); players and
        NPCs never decoded go straight from their bytes (:mod:`.jsonfast`) and stay undecoded."""
        from .jsonfast import chunk_json

        enc = encoder(Chunk)
        items = self._items

        def each() -> Iterator[Any]:
            for i in range(len(items)):
                item = items[i]
                if type(item) is _Pending:
                    obj = chunk_json(item.raw)
                    if obj is not None:
                        yield obj
                        continue
                    item = self._get(i)
                yield enc(item)
        return stream(each())

    @classmethod
    def __json_decode__(cls, obj: Any, path: str) -> ChunkList:
        """The chunks of a dump. A player or NPC that is entirely right goes straight to its
        bytes (:mod:`.jsonfast`) and is decoded on first use like a loaded one; anything else
        goes through the strict decoder, which names every problem by its path.

        When the document is being consumed (:func:`savecraft.jsonmap.consuming`), each
        chunk's object is replaced, once built, by what it was built into: the document
        shrinks as the model grows, and a second (careful) pass over it finds them built.
        """
        from .codec import decode_chunk
        from .jsonfast import chunk_bytes, with_bytes
        if not isinstance(obj, list):
            raise _bad(path, "an array of chunks", obj)
        dec = decoder(Chunk)
        consume = consuming() and type(obj) is list  # (not a dump read piece by piece)
        items: list[Any] = []
        worker = FEEDING.get()
        stream = _Feed(worker) if worker is not None else None
        for i, c in enumerate(obj):
            if type(c) is dict:
                raw = chunk_bytes(c)
                built = _Pending(raw, 0) if raw is not None else dec(c, f"{path}[{i}]")
            elif type(c) is _Built and consume:
                built = c.value  # built by a first pass over this document
            else:
                built = dec(c, f"{path}[{i}]")
            if stream is not None:  # the payload as build will make it, to the deflate thread
                if type(built) is _Pending and not stream.held:
                    stream.worker.feed(built.raw)
                else:
                    built = stream.take(items, built)
                    if stream.stopped:
                        stream = None
            if consume and type(c) is dict:
                obj[i] = _Built(c.get(KIND), built)
            items.append(built)
        if stream is not None:
            stream.end()
        return cls(items, decode_chunk)


STREAM_HOLD = 1 << 18
"""Bytes of chunks after a changed map that make the map worth encoding while a dump is
decoded (see :class:`_Feed`): a batch of the thread's. The thread idles while maps and what
follows them wait, so the smaller the better, while a server's save (its maps last, after
its NPCs) has far less than this after its maps."""


class _Feed:
    """What a dump's chunks give the deflate thread of a build as they are decoded.

    A player or NPC that the fast path took is fed its bytes. Any other chunk is encoded
    once and kept with its bytes (:func:`.jsonfast.with_bytes`): build writes them. A changed
    map waits: its RLE encoder imports numpy, about 14 MB resident, which lands on build's
    peak (the dump's text and the model are both held then). The chunks after it wait with
    it (zlib's stream is in order; they are references to bytes the model keeps), until
    :data:`STREAM_HOLD` bytes of them make the overlap worth the import: the maps are then
    encoded and everything is fed. A server writes its maps after its players, so at the
    end only the maps and a few small chunks wait: the worker is paused there, and build
    encodes the maps (once) and compresses the rest on the same compressor. A chunk the
    writer refuses pauses it too: build names the problem.
    """

    __slots__ = ("worker", "held", "held_size", "stopped")

    def __init__(self, worker: DeflateWorker) -> None:
        self.worker = worker
        self.held: list[tuple[int, Any]] = []  # (index in the chunk list, chunk)
        self.held_size = 0
        self.stopped = False

    def take(self, items: list[Any], built: Any) -> Any:
        """Feed or hold chunk ``built`` (to be ``items[len(items)]``); what to keep of it."""
        from .jsonfast import with_bytes

        if type(built) is not _Pending and type(built) is not MapChunk:
            built = with_bytes(built)
            if type(built) is not _Pending:
                self._stop()
                return built
        if type(built) is _Pending and not self.held:
            self.worker.feed(built.raw)
            return built
        self.held.append((len(items), built))
        if type(built) is _Pending:
            self.held_size += len(built.raw)
            if self.held_size >= STREAM_HOLD:
                return self._release(items)
        return built

    def _release(self, items: list[Any]) -> Any:
        """Encode the maps held, feed everything held; the last chunk (a pending one: the
        release comes with it) as it is kept."""
        from .jsonfast import with_bytes

        held, self.held, self.held_size = self.held, [], 0
        last = held[-1][1]
        for j, chunk in held:
            if type(chunk) is MapChunk:
                chunk = with_bytes(chunk)
                if type(chunk) is not _Pending:
                    self._stop()
                    return last
                if j < len(items):
                    items[j] = chunk
            self.worker.feed(chunk.raw)
        return last

    def _stop(self) -> None:
        self.worker.pause()
        self.stopped = True

    def end(self) -> None:
        if self.held:
            self._stop()


class _Built(dict[str, Any]):
    """What a consumed chunk object of a dump became; it keeps the ``"kind"``, so
    error messages still count ``users[k]`` among the document's chunks."""

    __slots__ = ("value",)

    def __init__(self, kind: Any, value: Any) -> None:
        super().__init__(kind=kind)
        self.value = value


# Not frozen: a frozen dataclass's __init__ sets each field by object.__setattr__, 0.46 us
# a chunk against 0.14 (3 ms of a 10,000-user load); nothing writes to one after it is made.
@dataclass(slots=True)
class _Pending:
    raw: bytes
    offset: int
    # What the chunk scan picked from the bytes while checking them (a USER's name and
    # flags): the summary and validate's check read it instead of a second pass.
    picked: tuple[Any, ...] | None = None
    # The chunk these bytes were encoded from, when it was built first (a dump's chunk other
    # than a player or NPC, encoded for the deflate thread of a build): taken on first use
    # instead of decoding the bytes again.
    value: Any = None


_MAGIC_OF: dict[type, bytes] = {
    DenyChunk: b"DENY",
    GlobalsChunk: b"GLBL",
    QuestsChunk: b"QSTS",
    UserChunk: b"USER",
    NpcChunk: b"NPC\0",
    MapChunk: b"MAP\0",
}


def chunk_magic(chunk: Any) -> bytes:
    if isinstance(chunk, RawChunk):
        return chunk.magic
    return _MAGIC_OF[type(chunk)]


@dataclass(slots=True, eq=False)
class Encoding(StreamEncoding):
    """How the payload was stored, so an unchanged save is rewritten byte for byte."""


@dataclass(slots=True)
class SaveGame:
    """A TirNanoG saved game, from a player (one USER, PRVW) or a server (many USERs, DENY)."""

    game_id: str = ""
    preview: Preview | None = None
    chunks: ChunkList = field(default_factory=ChunkList)
    encoding: Encoding = field(default_factory=Encoding, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.chunks, ChunkList):
            self.chunks = ChunkList(self.chunks)

    @classmethod
    def __json_around__(cls, obj: Any, decode: Callable[[Any], SaveGame], consuming: bool) -> SaveGame:
        """Decode a dump's save while a thread deflates its chunks as they are decoded.

        The level is the dump's deflate hint, which follows the chunks in the text but is
        parsed before them (the document around a big chunk array is parsed first, see
        :func:`savecraft.jsonmap.loads`). Only a level from 1 to 9 with no original bytes
        is streamed: what build would compress. The stream is kept on the hint and taken
        by build only if the payload it builds is the content that was compressed. Only
        :func:`savecraft.jsonmap.loads` (``savecraft build``'s path, which consumes the
        document) streams: a caller of ``from_json`` may edit the model before building.
        """
        level, container = _streamed_level(obj)
        if level is None or not consuming:  # only for a caller about to build (loads)
            return decode(obj)
        worker = DeflateWorker(level, container)
        token = FEEDING.set(worker)
        try:
            save = decode(obj)
        except BaseException:
            worker.drop()
            raise
        finally:
            FEEDING.reset(token)
        hint = save.encoding.deflate
        if worker.dropped or hint.original is not None:
            worker.drop()
        else:
            worker.close()  # the thread finishes on its own, wanted or not (a no-op if paused)
            hint.streamed = worker
        return save

    @property
    def users(self) -> KindView[UserChunk]:
        return self.chunks.of_kind(UserChunk)

    @property
    def npcs(self) -> KindView[NpcChunk]:
        return self.chunks.of_kind(NpcChunk)

    @property
    def maps(self) -> KindView[MapChunk]:
        return self.chunks.of_kind(MapChunk)

    @property
    def deny(self) -> DenyChunk | None:
        """The DENY chunk (server saves), as error paths name it."""
        return self.chunks.first(DenyChunk)

    @property
    def globals(self) -> GlobalsChunk | None:
        return self.chunks.first(GlobalsChunk)

    @property
    def quests(self) -> QuestsChunk | None:
        return self.chunks.first(QuestsChunk)

    def user(self, name: str) -> UserChunk | None:
        for u in self.users:
            if u.name == name:
                return u
        return None

    def __json_prepare__(self) -> None:
        """Before a dump: swap the original compressed bytes for a level when that reproduces them."""
        from .codec import payload_bytes
        if self.encoding.deflate.original is not None:
            self.encoding.deflate.settle(payload_bytes(self), confirm=confirming())


def _streamed_level(obj: Any) -> tuple[int | None, Container]:
    """The level and container a dump's save will be compressed with, when a thread can do it
    ahead: a level from 1 to 9 (or none: zlib's default) and no original stream to reuse."""
    try:
        hint = obj["encoding"]["deflate"]
        level, container = hint.get("level", 6), Container(hint.get("container", "zlib"))
        original = hint.get("original")
    except (KeyError, TypeError, ValueError, AttributeError):
        return None, Container.ZLIB
    if level is None:
        level = 6
    if original is not None or type(level) is not int or not 1 <= level <= 9:
        return None, container
    return level, container


__all__ = [
    "AddressFamily", "Chunk", "ChunkList", "Container", "DenyChunk", "DenyEntry", "Encoding",
    "Entity", "GlobalsChunk", "InventoryItem", "MapChunk", "NpcChunk", "Preview", "QuestState",
    "QuestsChunk", "RawChunk", "SaveGame", "Skill", "UserChunk",
]
