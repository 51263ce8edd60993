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
    Columns,
    Const,
    CStr,
    Ctx,
    Field,
    Len,
    List,
    Optional,
    Parallel,
    Prefix,
    Ref,
    Struct,
    Terminated,
    Until,
    When,
)
from . import BlockModel, register_struct
from . import character, knowledge, narsil
from .character import BodySlot
from .items import ITEM_MARK, NAME_MAX, NOTE_MAX
from .narsil import ALIVE, END, FINISHED_CODE, MAX_ACTION, STAT_MAX, STAT_NAMES

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


_KILLS = Struct(narsil.MonsterKills, [Field("race", CStr(NAME_MAX)), Field("pkills", U16),
                                      Field("psights", U16)], name="monster kills")
MONSTER_MEMORY = Struct(MonsterMemory, [
    Field("mflag_size", U8, export="mflag_size"), Field("language_size", U8, export="language_size"),
    Field("races", Until(_KILLS, CStr(NAME_MAX), knowledge.END_OF_MONSTERS)),
], name="monster memory")


# -- player -----------------------------------------------------------------------------------


@dataclass(slots=True)
class Player(BlockModel):
    """The character (``rd_player`` of Beleriand): NarSil's, with languages, the regions
    visited, home and place on the map, and the monster ridden."""

    KIND: ClassVar[str] = "player-beleriand"
    # The vocabulary's paths Sil's characters do not have: no level, no gold, and experience as
    # a pool to spend (``exp``, ``new_exp``) instead of a maximum.
    NOT_STORED: ClassVar[frozenset[str]] = frozenset({"au", "lev", "max_lev", "max_exp", "experience"})
    STAT_NAMES: ClassVar[tuple[str, ...]] = STAT_NAMES
    full_name: str = ""
    died_from: str = ""
    history: str = ""
    race: str = ""
    house: str = ""
    sex: str = ""
    name_suffix: int = 0
    game_type: int = 0
    age: int = 0
    height: int = 0
    weight: int = 0
    height_birth: int = 0
    weight_birth: int = 0
    stat_base: list[int] = field(default_factory=list)
    stat_drain: list[int] = field(default_factory=list)
    skill_base: list[int] = field(default_factory=list)
    abilities: list[narsil.Ability] = field(default_factory=list)
    item_abilities: list[narsil.Ability] = field(default_factory=list)
    previous_action: bytes = b"\0" * MAX_ACTION
    body_name: str = ""
    body: list[BodySlot] = field(default_factory=list)
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

    @property
    def stat_cur(self) -> list[int]:
        """Each stat as it stands: the base value with its drain (stored as a negative number)."""
        return [b + d for b, d in zip(self.stat_base, self.stat_drain)]

    @property
    def stat_max(self) -> list[int]:
        """Each stat undrained: the base value."""
        return list(self.stat_base)


_BODY = Struct(BodySlot, [Field("type", U16), Field("name", CStr(79))], name="body slot")
_ABILITY = Struct(narsil.Ability, [Field("name", CStr(79)), Field("skill", U8), Field("active", U8)],
                  name="ability")
PLAYER = Struct(Player, [
    Field("full_name", CStr(31)), Field("died_from", CStr(79)), Field("history", CStr(249)),
    Field("race", CStr(79)), Field("house", CStr(79)), Field("sex", CStr(79)),
    Field("name_suffix", U8), Field("game_type", I16), Field("age", I16), Field("height", I16),
    Field("weight", I16), Field("height_birth", I16), Field("weight_birth", I16),
    Len("stat_count", U8, ("stat_base", "stat_drain"), most=STAT_MAX,
        expected=f"at most {STAT_MAX} stats (rd_player: 'Too many stats')"),
    Field("stat_base", Array(I16, Ref("stat_count"))), Field("stat_drain", Array(I16, Ref("stat_count"))),
    Field("skill_base", Array(I16, Prefix(U8, "skill_count", SKILL_MAX,
                                          f"at most {SKILL_MAX} skills (rd_player: 'Too many skills')"))),
    Field("abilities", Until(_ABILITY, CStr(79), END)),
    Field("item_abilities", Until(_ABILITY, CStr(79), END)),
    Field("previous_action", Bytes(MAX_ACTION)),
    Field("body_name", CStr(79)), Field("body", List(_BODY, Prefix(U16, "body_count"))),
    Field("languages", Bytes(Ctx("language_size", "monster memory"))),
    Field("new_exp", I32), Field("exp", I32), Field("encounter_exp", I32), Field("kill_exp", I32),
    Field("explore_exp", I32), Field("ident_exp", I32), Field("turn", I32),
    Field("mhp", I16), Field("chp", I16), Field("msp", I16), Field("csp", I16),
    Field("max_depth", I16), Field("region_visit", Bytes(REGION_MAX)),
    Field("home", I16), Field("place", I16), Field("last_place", I16), Field("energy", I16),
    Field("total_energy", U32), Field("resting_turn", U32),
    Field("timed", Array(I16, Prefix(U8, "timed_count"))),
    Len("vault_count", U16, ("vaults",)), Field("vaults", Bytes(Ref("vault_count"))),
    Field("unignoring", U8), Field("last_attack_m_idx", I16), Field("consecutive_attacks", I16),
    Field("bane_type", I16), Field("focused", U8), Field("song_main", U8), Field("song_minor", U8),
    Field("song_duration", I16), Field("wrath", I16),
    Field("forge_drought", U16), Field("forge_count", U16), Field("stealth_mode", U8),
    Field("self_made_arts", U8), Field("truce", U8), Field("morgoth_hits", U8),
    Field("crown_hint", U8), Field("crown_shatter", U8), Field("cursed", U8),
    Field("on_the_run", U8), Field("morgoth_slain", U8), Field("escaped", U8),
    Field("noscore", U16), Field("smithing_leftover", I16), Field("unique_forge_made", U8),
    Field("unique_forge_seen", U8), Field("ridden_monster", U16),
], name="player")


# -- objects ----------------------------------------------------------------------------------


@dataclass(slots=True)
class BelItem(narsil.SilItem):
    """Beleriand's object record: NarSil's, with whether the object lies on the floor."""

    floor: int = 0


def _size(name: str) -> Ctx:
    return Ctx(name, "object memory")


_ITEM_ABILITY = Struct(narsil.ItemAbility, [Field("name", CStr(79)), Field("skill", U8)], name="ability")
OBJECT = Struct(BelItem, [
    Const("mark", U16, ITEM_MARK, "0xFFFF, the start of an object record"),
    Field("unused", U8), Field("oidx", U16), Field("y", U8), Field("x", U8), Field("floor", U8),
    Field("tval", CStr(NAME_MAX)), Field("sval", CStr(NAME_MAX)),
    Field("image_tval", CStr(NAME_MAX)),
    When("image_tval != ''", [Field("image_sval", CStr(NAME_MAX))],
         "an image kind name exactly when there is an image base name"),
    Field("pval", I16), Field("number", U8), Field("weight", I16),
    Field("artifact", CStr(NAME_MAX)), Field("ego", CStr(NAME_MAX)),
    Field("timeout", I16), Field("used", U8), Field("att", I16), Field("dd", U8), Field("ds", U8),
    Field("evn", I16), Field("pd", U8), Field("ps", U8), Field("origin", U8),
    Field("origin_depth", U8), Field("origin_race", CStr(NAME_MAX)), Field("notice", U8),
    Field("pseudo", U8),
    Field("flags", Bytes(_size("of_size"))),
    Field("modifiers", Array(I16, _size("obj_mod_max"))),
    Field("brands", Optional(U8, Bytes(_size("brand_max")))),
    Field("slays", Optional(U8, Bytes(_size("slay_max")))),
    Columns(_size("elem_max"), [("el_res", I16, False), ("el_flags", U8, True)]),
    Field("abilities", Until(_ITEM_ABILITY, CStr(79), END)),
    Field("held_m_idx", I16),
    Field("inscription", Optional(U8, CStr(NOTE_MAX))),
], name="object")


@dataclass(slots=True)
class ItemList:
    items: list[BelItem] = field(default_factory=list)
    end: BelItem = field(default_factory=BelItem)


ITEM_LIST = Struct(ItemList, [
    Terminated("items", OBJECT, "end", "is_marker", "an empty kind name (the end marker)")],
    name="object list")


@dataclass(slots=True)
class GearItem:
    """One carried object and the player's knowledge of it (kept in step, as the game does)."""

    slot: int = 0
    item: BelItem = field(default_factory=BelItem)
    known_slot: int = 0
    known: BelItem = field(default_factory=BelItem)

    @property
    def name(self) -> str:
        return self.item.name

    @property
    def quantity(self) -> int:
        return self.item.number

    @quantity.setter
    def quantity(self, value: int) -> None:
        self.item.number = value
        self.known.number = value

    @property
    def note(self) -> str:
        return self.item.inscription or ""

    @note.setter
    def note(self, value: str) -> None:
        self.item.inscription = value or None
        self.known.inscription = value or None


@dataclass(slots=True)
class Gear(BlockModel):
    KIND: ClassVar[str] = "gear-beleriand"
    items: list[GearItem] = field(default_factory=list)


GEAR = Struct(Gear, [Parallel(
    "items",
    [Struct(GearItem, [Field("slot", U8), Field("item", OBJECT)], name="gear entry"),
     Struct(GearItem, [Field("known_slot", U8), Field("known", OBJECT)], name="known gear entry")],
    U8, FINISHED_CODE, ("end", "known_end"),
    "as many known objects as objects (the game pairs them)")], name="gear")


@dataclass(slots=True)
class FloorObjects:
    obj_max: int = 0
    objects: ItemList = field(default_factory=ItemList)


FLOOR = Struct(FloorObjects, [Field("obj_max", U16), Field("objects", ITEM_LIST)], name="floor")


@dataclass(slots=True)
class Objects(BlockModel):
    KIND: ClassVar[str] = "objects-beleriand"
    cave: FloorObjects | None = None
    known_cave: FloorObjects | None = None


OBJECTS = Struct(Objects, [When(ALIVE, [Field("cave", FLOOR), Field("known_cave", FLOOR)],
                                 "the objects of both levels exactly when the character is alive")],
                 name="objects")


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


MONSTER = Struct(Monster, [
    Field("midx", U16), Field("race", CStr(79)), Field("image_race", CStr(79)), Field("y", U8),
    Field("x", U8), Field("place", I16), Field("hp", I16), Field("maxhp", I16), Field("mana", U8),
    Field("song", U8), Field("alertness", I16), Field("mspeed", U8), Field("energy", U8),
    Field("origin", U8), Field("stance", U8), Field("morale", I16), Field("tmp_morale", I16),
    Field("noise", U8), Field("encountered", U8), Field("timed", Array(I16, Prefix(U8, "timed_count"))),
    Field("mflag", Bytes(Ctx("mflag_size", "monster memory"))),
    Field("known_flags", Array(I16, Ctx("of_size", "object memory"))),
    Field("known_res", Array(I16, Ctx("elem_max", "object memory"))),
    Field("previous_action", Bytes(MAX_ACTION)),
    Field("held", ITEM_LIST), Field("group_index", U16), Field("group_role", U8),
    Field("target_y", U8), Field("target_x", U8), Field("skip_this_turn", U8),
    Field("skip_next_turn", U8), Field("consecutive_attacks", I16), Field("turns_stationary", I16),
], name="monster")


@dataclass(slots=True)
class Monsters(BlockModel):
    """Every monster of every level in memory, in one list (``mon_max`` is stored: one more)."""

    KIND: ClassVar[str] = "monsters-beleriand"
    monsters: list[Monster] | None = None


MONSTERS = Struct(Monsters, [
    When(ALIVE, [Field("monsters", List(MONSTER, Prefix(U16, "limit", bias=1)))],
         "the monsters exactly when the character is alive"),
], name="monsters")


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
