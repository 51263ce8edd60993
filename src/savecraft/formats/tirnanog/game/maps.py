"""The map asset of a TirNanoG game file (section 35), over its inflated bytes.

Layout (``tirnanog-game-file.md``, "maps"): a 34-byte header, the parallax
records, the patrol paths, then the tile layers as one RLE block (see
:mod:`..rle`). The layers decode to a ``layers x size x size`` uint16 array;
layer 5 holds NPC types (section 28), layer 6 spawners (section 29), every
other layer tile sprites (section 8), and 0xFFFF means "nothing here".

The number of layers and the map size come from the game header (bytes 41
and 36); a map read on its own infers them from the decoded tile count.
Several RLE streams give the same tiles, so the original stream is kept as an
encoding hint and written back while the layers are unchanged.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, ClassVar

import numpy as np
import numpy.typing as npt

from .... import limits
from ....binary import Reader, Writer, join_path
from ....errors import FormatError, Report
from ....layout import I8, U8, U16, U24, Bytes, Computed, Context, Field, Stored, Struct
from .. import rle
from .spriteref import SpriteRef as SpriteRef  # the one sprite reference of every section

if TYPE_CHECKING:
    Layers = npt.NDArray[np.uint16]
else:  # the JSON mapping needs a real class to look its codec up by
    Layers = np.ndarray

HEADER_SIZE = 34
NEIGHBOURS = 6
DEFAULT_LAYERS = 11
NPC_LAYER = 5
SPAWNER_LAYER = 6
EMPTY_TILE = 0xFFFF
NOT_SET = 0xFFFFFF

# The header and a patrol path's head as stored (the model's values differ: neighbours as six
# indices, the daylight sprite as a reference, counts and sizes as lengths); the parser and the
# builder convert. A parallax is read and written as the model (PARALLAX, below the model).


@dataclass(slots=True)
class MapHeader:
    """The 34 bytes before the parallaxes, as stored."""

    title: int = 0
    neighbours: bytes = bytes(3 * NEIGHBOURS)  # six u24 string indices
    daylight_length: int = 0
    daylight_category: int = 0
    daylight_index: int = 0
    music: int = 0
    parallax_count: int = 0
    patrol_count: int = 0
    rle_size: int = 0


@dataclass(slots=True)
class PatrolHead:
    """A patrol path's id and point count, as stored before its points."""

    id: int = 0
    length: int = 0


MAP_HEADER = Struct(MapHeader, [
    Field("title", U24), Field("neighbours", Bytes(3 * NEIGHBOURS)), Field("daylight_length", U16),
    Field("daylight_category", U8), Field("daylight_index", U16), Field("music", U24),
    Field("parallax_count", U8), Field("patrol_count", U8), Field("rle_size", U24),
], name="map header", whole=True)
PATROL_HEAD = Struct(PatrolHead, [Field("id", U8), Field("length", U16)], name="patrol path", whole=True)
_NO_CONTEXT = Context()  # the records need no values from elsewhere


@dataclass(slots=True)
class Parallax:
    """A scrolling picture over (foreground) or under (background) the map."""

    background: bool = False  # byte 0: 0 foreground, 1 background
    speed_x: int = 0  # time based delta x, -100 to 100
    delta_x: int = 0  # player movement based, 0 to 100
    speed_y: int = 0
    delta_y: int = 0
    interval: int = 0  # in 1/100 s
    sprite: SpriteRef = field(default_factory=SpriteRef)
    kind_byte: int | None = None  # the byte itself when it is neither 0 nor 1 (kept, and reported)


PARALLAX = Struct(Parallax, [
    # byte 0: 0 foreground, 1 background; any other byte is kept as it is (and reported)
    Stored("kind", U8, "kind_byte if kind_byte is not None and kind_byte not in (0, 1) else int(background)"),
    Field("speed_x", I8), Field("delta_x", U8), Field("speed_y", I8), Field("delta_y", U8), Field("interval", U16),
    Stored("sprite_category", U8, "sprite.category"), Stored("sprite_index", U16, "sprite.index"),
    Computed("background", "kind == 1"), Computed("kind_byte", "None if kind in (0, 1) else kind"),
    Computed("sprite", "SpriteRef(sprite_category, sprite_index)"),
], name="parallax", whole=True, env={"SpriteRef": SpriteRef})
assert MAP_HEADER.min_size == HEADER_SIZE and PARALLAX.min_size == 10


@dataclass(slots=True)
class PatrolPath:
    id: int = 0  # 0 - 98
    points: list[tuple[int, int]] = field(default_factory=list)  # map coordinates (x, y)


@dataclass(slots=True, eq=False)
class MapAsset:
    """One map. ``rle_stream`` is the original RLE stream, reused while ``layers`` is unchanged."""

    title: int = field(default=0, metadata={"ref": "text"})
    # the maps around this one (string indices), starting South, counter-clockwise
    neighbours: list[int] = field(default_factory=lambda: [0] * NEIGHBOURS,
                                  metadata={"ref": "string"})
    daylight_length: int = 0  # minutes
    daylight_sprite: SpriteRef = field(default_factory=SpriteRef)
    music: int = field(default=0, metadata={"ref": "string"})  # background music
    parallaxes: list[Parallax] = field(default_factory=list)
    patrol_paths: list[PatrolPath] = field(default_factory=list)
    layers: Layers = field(default_factory=lambda: np.full((DEFAULT_LAYERS, 1, 1), EMPTY_TILE,
                                                           dtype=np.uint16))
    trailing: bytes = b""  # bytes after the RLE block (none in a well-formed map)
    rle_stream: bytes | None = field(default=None, compare=False, repr=False)

    KIND: ClassVar[str] = "map"

    @property
    def size(self) -> int:
        return int(self.layers.shape[-1])

    @property
    def layer_count(self) -> int:
        return int(self.layers.shape[0])

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, MapAsset):
            return NotImplemented
        for f in fields(self):
            if not f.compare:
                continue
            a, b = getattr(self, f.name), getattr(other, f.name)
            if f.name == "layers":
                if not np.array_equal(a, b):
                    return False
            elif a != b:
                return False
        return True

    __hash__ = None  # type: ignore[assignment]

    def __json_prepare__(self) -> None:
        # The layers are dumped as a canonical RLE already; the hint is only worth
        # its space in the dump when the file used another encoding.
        if self.rle_stream is not None and self.rle_stream == rle.encode(self.layers):
            self.rle_stream = None


def _shape(total: int, layers: int | None, size: int | None) -> tuple[int, int] | None:
    """(layers, size) for ``total`` tiles when the game header does not say."""
    if layers is not None and size is not None:
        return (layers, size) if layers * size * size == total else None
    if layers is not None:
        if layers <= 0 or total % layers:
            return None
        side = int(round((total // layers) ** 0.5))
        return (layers, side) if side * side * layers == total else None
    if size is not None:
        if size <= 0 or total % (size * size):
            return None
        return (total // (size * size), size)
    candidates = []
    side = 1
    while side * side <= total:
        if total % (side * side) == 0:
            candidates.append((total // (side * side), side))
        side *= 2
    for c in candidates:
        if c[0] == DEFAULT_LAYERS:
            return c
    return candidates[-1] if candidates else None


def parse_map(
    data: bytes,
    *,
    offset: int = 0,
    path: str = "",
    report: Report | None = None,
    layers: int | None = None,
    size: int | None = None,
    reserve: Callable[[int, int, str], Callable[[], None]] | None = None,
) -> MapAsset:
    """Decode an inflated map asset; ``offset`` is where it starts, for messages.

    ``layers`` and ``size`` (tiles per side) come from the game header; without
    them the shape is inferred from the tile count (11 layers preferred).
    The tile count is checked against the per-map cap before anything is
    decoded; ``reserve(tiles, offset, path)`` then charges it to the file's
    budget (raising when the file's maps would pass theirs) and returns how
    to give it back if decoding fails.
    """
    rep = report if report is not None else Report()
    r = Reader(data, base=offset, path=path, what="the map asset")
    head: MapHeader = MAP_HEADER.read_item(r, _NO_CONTEXT, "header")
    nb_raw, npar, npat, rle_size = head.neighbours, head.parallax_count, head.patrol_count, head.rle_size
    neighbours = [int.from_bytes(nb_raw[i:i + 3], "little") for i in range(0, 18, 3)]
    r.count(npar, PARALLAX.min_size, "parallaxes", "parallax record")
    parallaxes = []
    for k in range(npar):
        at = r.offset
        p: Parallax = PARALLAX.read_item(r, _NO_CONTEXT, f"parallaxes[{k}]")
        pp = join_path(path, f"parallaxes[{k}]")
        if p.kind_byte is not None:
            rep.warning(at, join_path(pp, "kind"), "0 (foreground) or 1 (background)", str(p.kind_byte))
        for name, v, lo in (("speed_x", p.speed_x, -100), ("delta_x", p.delta_x, 0), ("speed_y", p.speed_y, -100),
                            ("delta_y", p.delta_y, 0)):
            if not lo <= v <= 100:
                rep.warning(at + PARALLAX.offset_of(name),
                            join_path(pp, name), f"a value from {lo} to 100", str(v))
        parallaxes.append(p)
    paths = []
    for k in range(npat):
        at = r.offset
        ph: PatrolHead = PATROL_HEAD.read_item(r, _NO_CONTEXT, f"patrol_paths[{k}]")
        pid, length = ph.id, ph.length
        if pid > 98:
            rep.warning(at, join_path(path, f"patrol_paths[{k}].id"), "a patrol path id from 0 to 98",
                        str(pid))
        r.count(length, 4, f"patrol_paths[{k}].points", "point")
        flat = r.array("u16", 2 * length, f"patrol_paths[{k}].points")
        paths.append(PatrolPath(pid, list(zip(flat[0::2], flat[1::2]))))
    rle_at = r.offset
    if rle_size > r.remaining:
        r.fail("header.rle_size", f"an RLE block of at most {r.remaining} bytes (what is left)",
               str(rle_size), at=MAP_HEADER.offset_of("rle_size"))
    block = r.bytes(rle_size, "layers")
    known = layers * size * size if layers is not None and size is not None else None
    lpath = join_path(path, "layers")
    claimed = known if known is not None else rle.count_values(block, offset=rle_at, path=lpath)
    limits.check("map_tiles", claimed, rle_at, lpath,
                 "tiles in the map" + (" (layers x size x size in the game header)" if known else ""))
    release = reserve(claimed, rle_at, lpath) if reserve is not None else None
    try:
        tiles = rle.decode(block, known, offset=rle_at, path=lpath)
    except BaseException:
        if release is not None:
            release()
        raise
    shape = _shape(len(tiles), layers, size)
    if shape is None:
        want = ("a whole number of square layers" if layers is None or size is None
                else f"{layers} layers of {size} x {size} tiles ({layers * size * size})")
        raise FormatError(rle_at + rle_size, join_path(path, "layers"),
                          f"an RLE stream that fills {want}", f"{len(tiles)} tiles")
    trailing = r.rest()
    if trailing:
        rep.warning(rle_at + rle_size, join_path(path, "trailing"), "the end of the map asset",
                    f"{len(trailing)} more bytes (kept)")
    return MapAsset(
        title=head.title, neighbours=neighbours, daylight_length=head.daylight_length,
        daylight_sprite=SpriteRef(head.daylight_category, head.daylight_index), music=head.music,
        parallaxes=parallaxes,
        patrol_paths=paths, layers=tiles.reshape(shape[0], shape[1], shape[1]),
        trailing=trailing, rle_stream=block,
    )


def encode_layers(m: MapAsset) -> bytes:
    """The RLE block: the original one while the layers still decode to it."""
    arr = np.asarray(m.layers)
    if arr.ndim != 3 or arr.shape[1] != arr.shape[2]:
        raise FormatError(None, "layers", "an array of layers x size x size tiles",
                          f"shape {tuple(arr.shape)}")
    if arr.dtype != np.uint16:
        if arr.size and (arr.min() < 0 or arr.max() > 0xFFFF):
            raise FormatError(None, "layers", "16-bit tile values (0 to 65535)",
                              f"values from {arr.min()} to {arr.max()}")
        arr = arr.astype(np.uint16)
    if m.rle_stream is not None:
        try:
            old = rle.decode(m.rle_stream, arr.size)
        except FormatError:
            pass
        else:
            if np.array_equal(old, arr.ravel()):
                return m.rle_stream
    return rle.encode(arr)


def build_map(m: MapAsset) -> bytes:
    """The inflated map asset; the RLE size in the header is recomputed."""
    block = encode_layers(m)
    w = Writer()
    if len(m.neighbours) != NEIGHBOURS:
        raise FormatError(None, "neighbours", f"{NEIGHBOURS} string indices",
                          f"{len(m.neighbours)}")
    nb = Writer("neighbours")
    for i, v in enumerate(m.neighbours):
        nb.u24(v, f"[{i}]")
    if len(block) >= 1 << 24:
        raise FormatError(None, "layers", "an RLE block under 16 MiB (its size is 3 bytes)",
                          f"{len(block)} bytes")
    w.check_count(m.parallaxes, 255, "parallaxes", "records")
    w.check_count(m.patrol_paths, 255, "patrol_paths", "records")
    MAP_HEADER.write(MapHeader(m.title, nb.getvalue(), m.daylight_length, m.daylight_sprite.category,
                               m.daylight_sprite.index, m.music, len(m.parallaxes), len(m.patrol_paths),
                               len(block)), w, _NO_CONTEXT, "header")
    for k, p in enumerate(m.parallaxes):
        PARALLAX.write(p, w, _NO_CONTEXT, f"parallaxes[{k}]")
    for k, pp in enumerate(m.patrol_paths):
        PATROL_HEAD.write(PatrolHead(pp.id, len(pp.points)), w, _NO_CONTEXT, f"patrol_paths[{k}]")
        flat: list[int] = []
        for x, y in pp.points:
            flat += (x, y)
        w.array("u16", flat, f"patrol_paths[{k}].points")
    w.bytes(block)
    w.bytes(m.trailing)
    return w.getvalue()


def tile_category(layer: int) -> int | None:
    """The section a layer's values index: None for NPC/spawner layers (not sprites)."""
    return None if layer in (NPC_LAYER, SPAWNER_LAYER) else 1
