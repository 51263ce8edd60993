"""What the server needs to know about the world it hosts, read once from a ``.tng`` file.

The server never parses the game file itself: :func:`load_world` asks the
game-file API (:mod:`savecraft.formats.tirnanog.game`) for the header, the
asset bundle range, the attributes (section 25), the character options
(section 27), the quests (section 34) and the map assets (section 35), and
keeps only what a session touches: the hello, the bundle bytes and their
CRC, the map adjacency, the attribute defaults and the compressed map
assets (read lazily, on the first map request for each).
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import FormatError, SavecraftError
from .packets import ServerHello
from ..formats.tirnanog.game import open_game
from ..formats.tirnanog.game.sections.s34_quests import QuestsSection

# Attribute kinds of section 25 (first byte of each attribute record).
PRIMARY, CHAR_VARIABLE, CHAR_CALCULATED, GLOBAL_VARIABLE, GLOBAL_CALCULATED = range(5)
GLOBAL_KINDS = frozenset({GLOBAL_VARIABLE, GLOBAL_CALCULATED})


class WorldError(SavecraftError):
    """The world file cannot be hosted (missing, unreadable, encrypted, malformed)."""


@dataclass(slots=True)
class AttributeDef:
    """One attribute of section 25: its kind and default value (0 when it has none)."""

    kind: int
    default: int = 0

    @property
    def is_global(self) -> bool:
        return self.kind in GLOBAL_KINDS


@dataclass(slots=True)
class World:
    """A hosted world: everything the server answers with, and nothing else.

    ``neighbours[m]`` holds the map indices whose players see a move on map
    ``m`` (``m`` itself included). ``option_counts[g]`` is the number of
    options in character option group ``g`` (so ``numchar`` is the number
    of groups). ``map_asset(i)`` returns the compressed bytes of map asset
    ``i`` exactly as the game file stores them (what map fragments carry).
    """

    hello: ServerHello
    bundle: bytes
    map_count: int
    map_size: int
    neighbours: list[frozenset[int]]
    attributes: list[AttributeDef] = field(default_factory=list)
    option_counts: list[int] = field(default_factory=list)
    free_points: int = 0
    max_points: int = 0
    global_quests: list[bool] = field(default_factory=list)
    map_asset: Callable[[int], bytes] = field(default=lambda i: b"", repr=False)
    source: str = ""
    bundle_crc: int = 0
    _map_cache: dict[int, bytes] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self.bundle_crc = zlib.crc32(self.bundle)

    @property
    def game_id(self) -> str:
        return self.hello.game_id

    @property
    def numchar(self) -> int:
        return len(self.option_counts)

    @property
    def character_attributes(self) -> list[AttributeDef]:
        return [a for a in self.attributes if not a.is_global]

    @property
    def global_attributes(self) -> list[AttributeDef]:
        return [a for a in self.attributes if a.is_global]

    @property
    def quest_count(self) -> int:
        return len(self.global_quests)

    def map_bytes(self, index: int) -> bytes:
        """The compressed map asset ``index`` (cached after the first read)."""
        data = self._map_cache.get(index)
        if data is None:
            data = self.map_asset(index)
            self._map_cache[index] = data
        return data

    def spawn_point(self) -> tuple[int, int, int]:
        """Where a new character starts: the middle of the first map."""
        half = max(self.map_size // 2, 0)
        return 0, half, half


def load_world(path: str | Path) -> World:
    """Open a game file for hosting; any problem is one :class:`WorldError` line."""
    p = Path(path)
    if not p.is_file():
        raise WorldError(f"{p}: world file not found")
    try:
        return world_from_game(_open_game(p), str(p))
    except WorldError:
        raise
    except FormatError as err:
        raise WorldError(f"{p}: not a usable TirNanoG world: {err}") from None
    except SavecraftError as err:
        raise WorldError(f"{p}: {err}") from None
    except OSError as err:
        raise WorldError(f"{p}: cannot read: {err.strerror or err}") from None


def _open_game(source: Path | bytes) -> Any:
    """The game-file API's lazy model: header and section table, assets on demand."""
    return open_game(source)


def world_from_bytes(data: bytes, source: str = "<memory>") -> World:
    """A world from a game file's bytes (tests, the demo, the load test's generated world)."""
    return world_from_game(_open_game(data), source)


def world_from_game(game: Any, source: str = "") -> World:
    """Adapt an opened game (the game-file API's lazy model) to a :class:`World`."""
    header = game.header
    if header.encrypted:
        raise WorldError(f"{source}: the world is encrypted; it cannot be hosted")
    start, end = game.asset_bundle_range()
    src = game.source
    hello = ServerHello.from_file_header(src.read(0, 64), end - start)
    maps = game.maps.maps if game.maps is not None else []
    if not maps:
        raise WorldError(f"{source}: the world has no maps (section 35)")
    attrs = game.attributes
    groups = game.character_options

    quests = game.section(QuestsSection)

    def stored(i: int) -> bytes:
        return bytes(maps[i].asset.stored())

    return World(
        hello=hello, bundle=src.read(start, end - start), map_count=len(maps),
        map_size=header.map_size, neighbours=_adjacency(maps),
        attributes=[AttributeDef(int(a.kind), int(a.default)) for a in attrs.attributes]
        if attrs is not None else [],
        option_counts=[len(g.asset.value.options) for g in groups.groups]
        if groups is not None else [],
        free_points=attrs.free_total_points if attrs is not None else 0,
        max_points=attrs.free_max_points if attrs is not None else 0,
        global_quests=[bool(q.asset.value.global_quest) for q in quests.quests]
        if quests is not None else [],
        map_asset=stored, source=source,
    )


def _adjacency(maps: list[Any]) -> list[frozenset[int]]:
    """Each map with the maps it names as neighbours (and those naming it).

    Neighbours are string offsets, the same kind of name the map's own
    descriptor carries, so a neighbour is the map whose name it is.
    """
    near: list[set[int]] = [{m} for m in range(len(maps))]
    by_name = {e.name: i for i, e in enumerate(maps) if e.name}
    for m, entry in enumerate(maps):
        for ref in entry.asset.value.neighbours:
            other = by_name.get(ref)
            if ref and other is not None and other != m:
                near[m].add(other)
                near[other].add(m)
    return [frozenset(s) for s in near]


__all__ = ["AttributeDef", "World", "WorldError", "load_world", "world_from_bytes",
           "world_from_game"]
