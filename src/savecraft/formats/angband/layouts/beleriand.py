"""Beleriand (NickMcConnell/Beleriand 0.1.0alpha): NarSil's game on a world map, variant id ``USIL``.

Beleriand writes NarSil's variant id and version 1 for every block, so it is
told from NarSil by its player block, which only its layout reads exactly
(the languages the character speaks, the regions visited, home and place on
the map, the monster ridden). From ``load.c``/``save.c`` at 0.1.0alpha, the
blocks that differ from NarSil 1.4:

* monster memory: the size of the language flags after the monster flags';
* player: as above; the regions visited are ``z_info->region_max`` bytes, a
  count the file does not store: region.txt's 66 regions and the unused
  region 0 (``REGION_MAX``);
* objects (gear, floor, held by monsters): a byte saying the object lies on
  the floor, after its grid;
* monsters: one list for every level in memory, each monster with the place
  (chunk) it is on;
* chunks: every chunk reference of the map (turn, region, position, the
  location it was generated from, its 11 neighbours), with the levels of
  those in memory (the level and the player's map of it, their objects and
  traps, its size and count of each of the ``FEAT_MAX`` + 1 terrain kinds);
* locations: every generated location (position, seed, terrain changes,
  joins, the river piece through it).

Order of the blocks: description, rng, options, messages, monster memory,
object memory, player, ignore, misc, artifacts, gear, dungeon, objects,
traps, chunks, monsters, locations, history, monster groups.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from ....layout import (
    I16,
    I32,
    U8,
    U16,
    U32,
    Array,
    Bytes,
    Ctx,
    Field,
    Len,
    List,
    Optional,
    Prefix,
    Ref,
    Struct,
    When,
)
from . import BlockModel, register_struct
from . import character, knowledge, narsil, shapes
from .narsil import ALIVE, MAX_ACTION
from .shapes import CarriedKnown

VARIANTS = ("USIL",)  # the variant ids this module registers layouts for (see the package)

USIL = frozenset({"USIL"})
GAME = "Beleriand 0.1"
REGION_MAX = 67  # z_info->region_max of 0.1.0alpha: region.txt's 66 regions, and region 0
FEAT_MAX = 36  # cave.h: the terrain kinds of list-terrain.h (FEAT_NONE included)
ADJACENT = 11  # a chunk's neighbours (chunk_ref.adjacent)
SKILL_MAX = 10  # list-skills.h: NarSil's eight, survival and speech (rd_player: "Too many skills")

# NarSil's (and 4.2's) layouts Beleriand's loader reads the same way.
for _struct in (character.RNG, character.OPTIONS, character.MESSAGES, knowledge.ARTIFACTS,
                narsil.OBJECT_MEMORY, narsil.IGNORE, narsil.MISC, narsil.DUNGEON, narsil.TRAPS,
                narsil.HISTORY, narsil.MONSTER_GROUPS):
    register_struct(_struct, _struct.name, 1, USIL, GAME)


# -- monster memory ---------------------------------------------------------------------------


@dataclass(slots=True)
class MonsterMemory(BlockModel):
    """Kill and sighting counts by race name, after the sizes of the monster and language flags."""

    KIND: ClassVar[str] = "monster-memory-beleriand"
    mflag_size: int = 0
    language_size: int = 0
    races: list[narsil.MonsterKills] = field(default_factory=list)


MONSTER_MEMORY = narsil.monster_memory(MonsterMemory, ["mflag_size", "language_size"])


# -- player -----------------------------------------------------------------------------------


@dataclass(slots=True)
class Player(narsil.SilCharacter, BlockModel):
    """The character (``rd_player`` of Beleriand): NarSil's, with languages, the regions
    visited, home and place on the map, and the monster ridden."""

    KIND: ClassVar[str] = "player-beleriand"
    languages: bytes = b""
    new_exp: int = 0
    exp: int = 0
    encounter_exp: int = 0
    kill_exp: int = 0
    explore_exp: int = 0
    ident_exp: int = 0
    turn: int = 0
    mhp: int = 0
    chp: int = 0
    msp: int = 0
    csp: int = 0
    max_depth: int = 0
    region_visit: bytes = b"\0" * REGION_MAX
    home: int = 0
    place: int = 0
    last_place: int = 0
    energy: int = 0
    total_energy: int = 0
    resting_turn: int = 0
    timed: list[int] = field(default_factory=list)
    vaults: bytes = b""
    unignoring: int = 0
    last_attack_m_idx: int = 0
    consecutive_attacks: int = 0
    bane_type: int = 0
    focused: int = 0
    song_main: int = 0
    song_minor: int = 0
    song_duration: int = 0
    wrath: int = 0
    forge_drought: int = 0
    forge_count: int = 0
    stealth_mode: int = 0
    self_made_arts: int = 0
    truce: int = 0
    morgoth_hits: int = 0
    crown_hint: int = 0
    crown_shatter: int = 0
    cursed: int = 0
    on_the_run: int = 0
    morgoth_slain: int = 0
    escaped: int = 0
    noscore: int = 0
    smithing_leftover: int = 0
    unique_forge_made: int = 0
    unique_forge_seen: int = 0
    ridden_monster: int = 0


PLAYER = Struct(Player, [
    *narsil.character_members(SKILL_MAX), Field("languages", Bytes(Ctx("language_size", "monster memory"))),
    *narsil.experience("explore_exp"), Field("region_visit", Bytes(REGION_MAX)),
    Field("home", I16), Field("place", I16), Field("last_place", I16), *narsil.STATE, *narsil.FORGE,
    Field("ridden_monster", U16),
], name="player")


# -- objects ----------------------------------------------------------------------------------


@dataclass(slots=True)
class BelItem(narsil.SilItem):
    """Beleriand's object record: NarSil's, with whether the object lies on the floor."""

    floor: int = 0


OBJECT = narsil.object_record(BelItem, after_grid=[Field("floor", U8)])


@dataclass(slots=True)
class ItemList(shapes.ObjectList[BelItem]):
    pass


ITEM_LIST = shapes.object_list(ItemList, OBJECT)


@dataclass(slots=True)
class GearItem(CarriedKnown[BelItem]):
    """One carried object and the player's knowledge of it (kept in step, as the game does)."""

    NO_NOTE: ClassVar[str | None] = None


@dataclass(slots=True)
class Gear(shapes.GearList[GearItem], BlockModel):
    KIND: ClassVar[str] = "gear-beleriand"


GEAR = shapes.gear(Gear, GearItem, OBJECT)


@dataclass(slots=True)
class FloorObjects(shapes.Floor[ItemList]):
    pass


FLOOR = shapes.floor(FloorObjects, ITEM_LIST)


@dataclass(slots=True)
class Objects(shapes.BothLevels[FloorObjects], BlockModel):
    KIND: ClassVar[str] = "objects-beleriand"


OBJECTS = shapes.both_levels(Objects, FLOOR, "objects")


# -- chunks -----------------------------------------------------------------------------------


@dataclass(slots=True)
class ChunkLevel:
    """A level kept in memory: the level and the player's map of it, their objects and traps,
    and its size and count of each terrain kind."""

    cave: narsil.Level = field(default_factory=narsil.Level)
    known_cave: narsil.Level = field(default_factory=narsil.Level)
    objects: FloorObjects = field(default_factory=FloorObjects)
    known_objects: FloorObjects = field(default_factory=FloorObjects)
    traps: narsil.TrapList = field(default_factory=narsil.TrapList)
    known_traps: narsil.TrapList = field(default_factory=narsil.TrapList)
    height: int = 0
    width: int = 0
    feat_count: list[int] = field(default_factory=list)


@dataclass(slots=True)
class ChunkRef:
    """A place on the map the player has been (``chunk_ref``), and its level if kept."""

    turn: int = 0
    region: int = 0
    z_pos: int = 0
    y_pos: int = 0
    x_pos: int = 0
    gen_loc_idx: int = 0
    adjacent: list[int] = field(default_factory=lambda: [0] * ADJACENT)
    chunk: ChunkLevel | None = None


@dataclass(slots=True)
class Chunks(BlockModel):
    KIND: ClassVar[str] = "chunks-beleriand"
    chunk_cnt: int = 0
    chunks: list[ChunkRef] | None = None


_CHUNK_LEVEL = Struct(ChunkLevel, [
    Field("cave", narsil.LEVEL), Field("known_cave", narsil.LEVEL), Field("objects", FLOOR),
    Field("known_objects", FLOOR), Field("traps", narsil.TRAP_LIST), Field("known_traps", narsil.TRAP_LIST),
    Field("height", U16), Field("width", U16), Field("feat_count", Array(U16, FEAT_MAX + 1)),
], name="chunk level")
_CHUNK_REF = Struct(ChunkRef, [
    Field("turn", I32), Field("region", U16), Field("z_pos", I16), Field("y_pos", U16),
    Field("x_pos", U16), Field("gen_loc_idx", U32), Field("adjacent", Array(U16, ADJACENT)),
    Field("chunk", Optional(U8, _CHUNK_LEVEL)),
], name="chunk")
CHUNKS = Struct(Chunks, [
    When(ALIVE, [Len("chunk_max", U16, ("chunks",)), Field("chunk_cnt", U16),
                 Field("chunks", List(_CHUNK_REF, Ref("chunk_max")))],
         "the chunks exactly when the character is alive", defaults=True),
], name="chunks")


# -- monsters ---------------------------------------------------------------------------------


@dataclass(slots=True)
class Monster:
    """One monster (``rd_monster`` of Beleriand): NarSil's, with the place (chunk) it is on
    (-1: the current level)."""

    midx: int = 0
    race: str = ""
    image_race: str = "none"
    y: int = 0
    x: int = 0
    place: int = 0
    hp: int = 0
    maxhp: int = 0
    mana: int = 0
    song: int = 0
    alertness: int = 0
    mspeed: int = 0
    energy: int = 0
    origin: int = 0
    stance: int = 0
    morale: int = 0
    tmp_morale: int = 0
    noise: int = 0
    encountered: int = 0
    timed: list[int] = field(default_factory=list)
    mflag: bytes = b""
    known_flags: list[int] = field(default_factory=list)
    known_res: list[int] = field(default_factory=list)
    previous_action: bytes = b"\0" * MAX_ACTION
    held: ItemList = field(default_factory=ItemList)
    group_index: int = 0
    group_role: int = 0
    target_y: int = 0
    target_x: int = 0
    skip_this_turn: int = 0
    skip_next_turn: int = 0
    consecutive_attacks: int = 0
    turns_stationary: int = 0


MONSTER = narsil.monster(Monster, ITEM_LIST, [Field("place", I16)])


@dataclass(slots=True)
class Monsters(shapes.OneList[Monster], BlockModel):
    """Every monster of every level in memory, in one list (``mon_max`` is stored: one more)."""

    KIND: ClassVar[str] = "monsters-beleriand"


MONSTERS = shapes.monsters_once(Monsters, MONSTER, "the monsters")


# -- locations --------------------------------------------------------------------------------


@dataclass(slots=True)
class TerrainChange:
    y: int = 0
    x: int = 0
    feat: int = 0


@dataclass(slots=True)
class Join:
    y: int = 0
    x: int = 0
    feat: int = 0
    info: bytes = b""


@dataclass(slots=True)
class RiverGrid:
    y: int = 0
    x: int = 0


@dataclass(slots=True)
class Location:
    """A generated location (``gen_loc``): where, its seed, how its terrain changed, its joins
    to the levels beside it, and the river through it."""

    x_pos: int = 0
    y_pos: int = 0
    z_pos: int = 0
    seed: int = 0
    changes: list[TerrainChange] = field(default_factory=list)
    joins: list[Join] = field(default_factory=list)
    river: list[RiverGrid] = field(default_factory=list)
    river_dir: int | None = None


@dataclass(slots=True)
class Locations(BlockModel):
    KIND: ClassVar[str] = "locations-beleriand"
    square_size: int = 0
    locations: list[Location] | None = None


_CHANGE = Struct(TerrainChange, [Field("y", U8), Field("x", U8), Field("feat", U8)], name="change")
_JOIN = Struct(Join, [Field("y", U8), Field("x", U8), Field("feat", U8),
                      Field("info", Bytes(Ctx("square_size", "locations")))], name="join")
_RIVER = Struct(RiverGrid, [Field("y", U8), Field("x", U8)], name="river grid")
_LOCATION = Struct(Location, [
    Field("x_pos", U16), Field("y_pos", U16), Field("z_pos", U16), Field("seed", U32),
    Field("changes", List(_CHANGE, Prefix(U16, "num_changes"))),
    Field("joins", List(_JOIN, Prefix(U16, "num_joins"))),
    Field("river", List(_RIVER, Prefix(U16, "num_grids"))),
    When("len(river) > 0", [Field("river_dir", U8)], "a river direction exactly when there is a river"),
], name="location")
LOCATIONS = Struct(Locations, [
    When(ALIVE, [Field("square_size", U8, export="square_size"),
                 Field("locations", List(_LOCATION, Prefix(U32, "gen_loc_cnt")))],
         "the locations exactly when the character is alive", defaults=True),
], name="locations")


for _struct in (MONSTER_MEMORY, PLAYER, GEAR, OBJECTS, CHUNKS, MONSTERS, LOCATIONS):
    register_struct(_struct, _struct.name, 1, USIL, GAME)
