"""Vanilla Angband 4.2 blocks of things in the world: gear, stores, dungeon, objects,
monsters, traps and chunks (``rd_*`` / ``wr_*`` of 4.2).

The map of a level is run-length encoded as (count, byte) pairs; the model
keeps the pairs as the game wrote them (an equivalent re-encoding would not
be the same bytes), checked to cover the level exactly once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import ClassVar, Generic, TypeVar

from ....layout import (
    I16,
    I32,
    U8,
    U16,
    U32,
    Array,
    Bytes,
    CStr,
    Ctx,
    Custom,
    Field,
    GenericRecord,
    List,
    Member,
    Prefix,
    Struct,
    Until,
    When,
)
from . import BlockModel, register_struct, shapes
from .items import ITEM_LIST, OBJECT, Item, ItemList
from .levels import check_rle, read_rle
from .shapes import CarriedKnown

VARIANTS = ("VNLA",)  # the variant ids this module registers layouts for (see the package)

VANILLA = frozenset({"VNLA"})
GAME = "Vanilla 4.2"
FINISHED_CODE = shapes.FINISHED_CODE


ALIVE = shapes.ALIVE


# -- gear -----------------------------------------------------------------------------------


@dataclass(slots=True)
class GearItem(CarriedKnown[Item]):
    """One carried object and the player's knowledge of it (the game keeps the two in step)."""


@dataclass(slots=True)
class Gear(shapes.GearList[GearItem], BlockModel):
    KIND: ClassVar[str] = "gear-4.2"


GEAR = shapes.gear(Gear, GearItem, OBJECT)


# -- stores ---------------------------------------------------------------------------------


@dataclass(slots=True)
class StockItem(shapes.StockPair[Item]):
    pass


@dataclass(slots=True)
class Store:
    owner: int = 0
    stock: list[StockItem] = field(default_factory=list)


@dataclass(slots=True)
class Stores(BlockModel):
    """The town's stores in the game's store.txt order (the home is one of them)."""

    KIND: ClassVar[str] = "stores-4.2"
    stores: list[Store] = field(default_factory=list)


_STOCK = shapes.stock_pair(StockItem, OBJECT)
_STORE = Struct(Store, [Field("owner", U8), Field("stock", List(_STOCK, Prefix(U8, "count")))],
                name="store")
STORES = Struct(Stores, [Field("stores", List(_STORE, Prefix(U16, "count")))], name="stores")


# -- levels (dungeon and chunks) ------------------------------------------------------------


@dataclass(slots=True)
class Connector:
    x: int = 0
    y: int = 0
    feat: int = 0
    info: bytes = b""


@dataclass(slots=True)
class Level:
    """One level map (``rd_dungeon_aux``): square info layers and terrain, run-length pairs."""

    name: str = ""
    height: int = 0
    width: int = 0
    info: list[bytes] = field(default_factory=list)
    feat: bytes = b""
    feeling: int = 0
    feeling_squares: int = 0
    turn: int = 0
    connectors: list[Connector] | None = None


def _square_size() -> Ctx:
    return Ctx("square_size", "dungeon")


_RUNS = Custom(read_rle, check_rle, "height * width")
_CONNECTOR = Struct(Connector, [Field("x", U8), Field("y", U8), Field("feat", U8),
                                Field("info", Bytes(_square_size()))], name="connector")


def level(cls: type, after_turn: Sequence[Member] = ()) -> Struct:
    """``rd_dungeon_aux`` of 4.2, with the fields a game stores after the level's turn."""
    return Struct(cls, [
        Field("name", CStr(99)), Field("height", U16), Field("width", U16),
        Field("info", List(_RUNS, _square_size())), Field("feat", _RUNS), Field("feeling", U8),
        Field("feeling_squares", U16), Field("turn", I32), *after_turn,
        When("ctx.need('levels_persist', 'options')", [Field("connectors", Until(_CONNECTOR, U8, 0xFF))],
             "connectors exactly when the birth_levels_persist option is on"),
    ], name="level")


LEVEL = level(Level)


@dataclass(slots=True)
class Dungeon(shapes.Whereabouts[Level], BlockModel):
    KIND: ClassVar[str] = "dungeon-4.2"


DUNGEON = shapes.dungeon(Dungeon, LEVEL)


# -- floor objects, monsters, traps ---------------------------------------------------------


@dataclass(slots=True)
class FloorObjects(shapes.Floor[ItemList]):
    pass


FLOOR = shapes.floor(FloorObjects, ITEM_LIST)


@dataclass(slots=True)
class Objects(shapes.BothLevels[FloorObjects], BlockModel):
    KIND: ClassVar[str] = "objects-4.2"


OBJECTS = shapes.both_levels(Objects, FLOOR, "objects")


@dataclass(slots=True)
class GroupInfo:
    index: int = 0
    role: int = 0


H = TypeVar("H")  # the object list a game's monster carries


@dataclass
class MonsterRecord(GenericRecord, Generic[H]):
    """One monster (``rd_monster``): race by name, place, hit points, what it carries (``held``,
    a game's object list: its class declares the field)."""

    __slots__ = ()

    midx: int = 0
    race: str = ""
    original_race: str = "none"
    y: int = 0
    x: int = 0
    hp: int = 0
    maxhp: int = 0
    mspeed: int = 0
    energy: int = 0
    timed: list[int] = field(default_factory=list)
    mflag: bytes = b""
    known_flags: bytes = b""
    known_res: list[int] = field(default_factory=list)
    mimic: int = 0
    held: H = shapes.GAME_SETS
    primary_group: GroupInfo = field(default_factory=GroupInfo)
    summon_group: GroupInfo = field(default_factory=GroupInfo)


@dataclass(slots=True)
class Monster(MonsterRecord[ItemList]):
    pass


GROUP = Struct(GroupInfo, [Field("index", U16), Field("role", U8)], name="group")


def monster(cls: type, held: Struct, after_race: Sequence[Member] = (),
            after_energy: Sequence[Member] = ()) -> Struct:
    """``rd_monster`` of 4.2, carrying a game's object list (``held``), with the fields a game
    stores after the races and after the energy."""
    return Struct(cls, [
        Field("midx", U16), Field("race", CStr(79)), Field("original_race", CStr(79)), *after_race,
        Field("y", U8), Field("x", U8), Field("hp", I16), Field("maxhp", I16), Field("mspeed", U8),
        Field("energy", U8), *after_energy,
        Field("timed", Array(I16, Prefix(U8, "timed_count"))),
        Field("mflag", Bytes(Ctx("mflag_size", "monster memory"))),
        Field("known_flags", Bytes(Ctx("of_size", "object memory"))),
        Field("known_res", Array(I16, Ctx("elem_max", "object memory"))), Field("mimic", U16),
        Field("held", held), Field("primary_group", GROUP), Field("summon_group", GROUP),
    ], name="monster")


MONSTER = monster(Monster, ITEM_LIST)


@dataclass(slots=True)
class MonsterList(shapes.MonsterList[Monster]):
    pass


MONSTER_LIST = shapes.monster_list(MonsterList, MONSTER)


@dataclass(slots=True)
class Monsters(shapes.BothLevels[MonsterList], BlockModel):
    KIND: ClassVar[str] = "monsters-4.2"


MONSTERS = shapes.both_levels(Monsters, MONSTER_LIST, "monsters")


@dataclass(slots=True)
class Trap(shapes.GridTrap):
    kind: str = ""
    y: int = 0
    x: int = 0
    power: int = 0
    timeout: int = 0
    flags: bytes = b""


@dataclass(slots=True)
class TrapList(shapes.TrapList[Trap]):
    """Traps up to the one at (0, 0) that ends the list (kept in ``end``)."""


_TRAP = Struct(Trap, [Field("kind", CStr(79)), Field("y", U8), Field("x", U8), Field("power", U8),
                      Field("timeout", U8), Field("flags", Bytes(Ctx("trf_size", "traps")))], name="trap")
TRAP_LIST = shapes.trap_list(TrapList, _TRAP)


@dataclass(slots=True)
class Traps(shapes.BothLevels[TrapList], BlockModel):
    KIND: ClassVar[str] = "traps-4.2"


TRAPS = shapes.both_levels(Traps, TRAP_LIST, "traps")


# -- chunks ---------------------------------------------------------------------------------


# How many terrain features a persistent level counts (``feat_count``): the loader reads
# f_max + 1 (4.2.0-4.2.4: terrain.txt's 25 features, plus one) or FEAT_MAX + 1 (4.2.5:
# list-terrain.h, 25 too); the file does not store it. Stock game data: a game whose
# terrain.txt was edited stores another count, and its chunks do not read (they stay raw).
FEATURES = 25


@dataclass(slots=True)
class ChunkInfo:
    """What a persistent level keeps besides its map (``birth_levels_persist``)."""

    name: str = ""
    turn: int = 0
    depth: int = 0
    feeling: int = 0
    obj_rating: int = 0
    mon_rating: int = 0
    good_item: int = 0
    height: int = 0
    width: int = 0
    feeling_squares: int = 0
    feat_count: list[int] = field(default_factory=list)


def chunk_info(features: int) -> Struct:
    """The persistent level's record of a game with ``features`` terrain features."""
    return Struct(ChunkInfo, [
        Field("name", CStr(79)), Field("turn", I32), Field("depth", U16), Field("feeling", U8),
        Field("obj_rating", U32), Field("mon_rating", U32), Field("good_item", U8),
        Field("height", U16), Field("width", U16), Field("feeling_squares", U16),
        Field("feat_count", Array(U16, features + 1)),
    ], name="chunk info")


PERSIST = "ctx.need('levels_persist', 'options')"
CHUNK_INFO = chunk_info(FEATURES)


Lv = TypeVar("Lv")  # a game's level map
F = TypeVar("F")  # a game's floor objects
M = TypeVar("M")  # a game's monster list


@dataclass
class LevelChunk(GenericRecord, Generic[Lv, F, M]):
    """A level kept in memory (the town, and the levels the player knows): its map, objects,
    monsters and traps (a game's class names its level, floor objects and monster list)."""

    __slots__ = ()

    level: Lv = shapes.GAME_SETS
    objects: F = shapes.GAME_SETS
    monsters: M = shapes.GAME_SETS
    traps: TrapList = field(default_factory=TrapList)


C = TypeVar("C")  # a game's chunk


@dataclass
class ChunkList(GenericRecord, Generic[C]):
    """The chunks block: every level kept in memory; nothing for a dead character."""

    __slots__ = ()

    chunks: list[C] | None = None


@dataclass(slots=True)
class Chunk(LevelChunk[Level, FloorObjects, MonsterList]):
    """``info`` only when levels persist."""

    info: ChunkInfo | None = field(default=None, metadata={"optional": True})


@dataclass(slots=True)
class Chunks(ChunkList[Chunk], BlockModel):
    KIND: ClassVar[str] = "chunks-4.2"


def chunks(cls: type, chunk: type, level: Struct, objects: Struct, monsters: Struct,
           info: Struct | None = None, first: Sequence[Member] = (),
           alive: str = "chunks exactly when the character is alive") -> Struct:
    """``rd_chunks`` of 4.2: every level kept in memory (its map, objects, monsters and traps,
    and ``info``, where a game stores it, when levels persist), with a game's ``first``
    members (its own requirements)."""
    persist = [When(PERSIST, [Field("info", info)],
                    "the level's record exactly when the birth_levels_persist option is on")] if info else []
    entry = Struct(chunk, [Field("level", level), Field("objects", objects), Field("monsters", monsters),
                           Field("traps", TRAP_LIST), *persist], name="chunk")
    return Struct(cls, [*first, When(ALIVE, [Field("chunks", List(entry, Prefix(U16, "count")))], alive)],
                  name="chunks")


CHUNKS = chunks(Chunks, Chunk, LEVEL, FLOOR, MONSTER_LIST, CHUNK_INFO)

for _struct in (GEAR, STORES, DUNGEON, OBJECTS, MONSTERS, TRAPS, CHUNKS):
    register_struct(_struct, _struct.name, 1, VANILLA, GAME)
