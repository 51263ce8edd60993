"""FAangband 2.0 (NickMcConnell/FAangband 2.0.0, 2.0.1): Vanilla 4.2's block format, FAangband's contents.

FAangband 2 writes Vanilla's variant id (``VNLA``) and Vanilla 4.2's 21 blocks,
every one version 1, so nothing in the file names the game: it is told from
Vanilla 4.2 by its player block, which only one of the two layouts reads
exactly (FAangband drops ``expfact``, keeps the recall points of each
dungeon and the place on the world map, and its specialties).

From ``load.c``/``save.c`` at 2.0.0 and 2.0.1 (the same in both), the blocks
that differ from Vanilla 4.2:

* quests: each quest by name (from quest.txt), up to the final one
  (Morgoth), then any quest the game added (with its places and monster),
  ended by "No more quests";
* player: as above;
* misc: the world map's name and a visited byte per level of that map
  (how many levels is in the game's world.txt, not in the file: the bytes
  the rest of the block leaves), before Vanilla's contents;
* objects (gear, stores, floor, held by monsters): ``origin_place`` after
  ``origin_depth``;
* stores: a count the loader skips (``z_info->store_max``), then every
  store of every town of the map (their number is in world.txt), to the
  end of the block;
* levels: the ghost's ``bones_selector`` after the level's turn;
* monsters: the player race a monster belongs to (and its original),
  its target and its home.

The rest (rng, options, messages, monster and object memory, ignore,
artifacts, player hp and spells, traps, history) are read with Vanilla 4.2's
layouts, registered again for this game.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from ....binary import Reader
from ....layout import (
    I16,
    I32,
    U8,
    U16,
    U32,
    Array,
    Bytes,
    CStr,
    Custom,
    Field,
    List,
    REST,
    Prefix,
    Range,
    Requires,
    SetCtx,
    Struct,
    Terminated,
    Until,
)
from ....errors import FormatError
from . import BlockModel, register_struct
from . import character, items, knowledge, shapes, world
from .character import MAX_LEVEL, STAT_NAMES, BodySlot, stat_text
from .items import Item
from .records import Experience
from .shapes import CarriedKnown

VARIANTS = ("VNLA",)  # the variant ids this module registers layouts for (see the package)

VANILLA = frozenset({"VNLA"})
GAME = "FAangband 2"
FINAL_QUEST = "Morgoth"  # quest.txt's quest of type "final": the last standard quest
END_OF_QUESTS = "No more quests"
END_OF_PLACES = "No more places"
PF_BYTES = 16  # the specialties are stored in 16 bytes (PF_SIZE of them, then zeros)
STAT_MAX = 5  # the loader refuses more stats ("Too many stats")

# Vanilla 4.2 layouts FAangband 2 writes byte for byte the same (its load.c reads them as 4.2 does).
for _struct in (character.RNG, character.OPTIONS, character.MESSAGES, character.PLAYER_HP,
                character.PLAYER_SPELLS, character.HISTORY, knowledge.MONSTER_MEMORY,
                knowledge.OBJECT_MEMORY, knowledge.IGNORE, knowledge.ARTIFACTS, world.TRAPS):
    register_struct(_struct, _struct.name, 1, VANILLA, GAME)


# -- quests -----------------------------------------------------------------------------------


@dataclass(slots=True)
class Quest:
    """A quest of quest.txt, by name: done (``complete``) and how many of its monster are dead."""

    name: str = ""
    complete: int = 0
    cur_num: int = 0

    @property
    def is_final(self) -> bool:
        return self.name == FINAL_QUEST


@dataclass(slots=True)
class QuestPlace:
    map: str = ""
    place: int = 0
    block: int = 0


@dataclass(slots=True)
class ExtraQuest:
    """A quest the game added during play: where it is and what is to be killed."""

    name: str = ""
    complete: int = 0
    cur_num: int = 0
    type: int = 0
    places: list[QuestPlace] = field(default_factory=list)
    race: str = "none"
    max_num: int = 0


@dataclass(slots=True)
class Quests(BlockModel):
    KIND: ClassVar[str] = "quests-fa2"
    quests: list[Quest] = field(default_factory=list)
    final: Quest = field(default_factory=Quest)
    extra: list[ExtraQuest] = field(default_factory=list)


_QUEST = Struct(Quest, [Field("name", CStr(79)), Field("complete", U16), Field("cur_num", U16)],
                name="quest")
_PLACE = Struct(QuestPlace, [Field("map", CStr(79)), Field("place", U16), Field("block", U16)],
                name="quest place")
_EXTRA = Struct(ExtraQuest, [
    Field("name", CStr(79)), Field("complete", U16), Field("cur_num", U16), Field("type", U16),
    Field("places", Until(_PLACE, CStr(79), END_OF_PLACES)), Field("race", CStr(79)),
    Field("max_num", U16)], name="extra quest")
QUESTS = Struct(Quests, [
    Terminated("quests", _QUEST, "final", "is_final", f"the final quest ({FINAL_QUEST})"),
    Field("extra", Until(_EXTRA, CStr(79), END_OF_QUESTS)),
], name="quests")


# -- player -----------------------------------------------------------------------------------


@dataclass(slots=True)
class Player(Experience, BlockModel):
    """The character (``rd_player`` of FAangband 2): Vanilla 4.2's, without ``expfact``, with
    the place on the world map, a recall point per dungeon and the specialties learned."""

    KIND: ClassVar[str] = "player-fa2"
    full_name: str = ""
    died_from: str = ""
    history: str = ""
    race: str = ""
    shape: str = ""
    character_class: str = ""
    name_suffix: int = 0
    hitdie: int = 0
    age: int = 0
    height: int = 0
    weight: int = 0
    stat_max: list[int] = field(default_factory=list)
    stat_cur: list[int] = field(default_factory=list)
    stat_map: list[int] = field(default_factory=list)
    stat_birth: list[int] = field(default_factory=list)
    height_birth: int = 0
    weight_birth: int = 0
    unused_birth: int = 0
    au_birth: int = 0
    body_name: str = ""
    body: list[BodySlot] = field(default_factory=list)
    themed_level_appeared: int = 0
    themed_level: int = 0
    num_traps: int = 0
    au: int = 0
    max_exp: int = 0
    exp: int = 0
    exp_frac: int = 0
    lev: int = 1
    mhp: int = 0
    chp: int = 0
    chp_frac: int = 0
    msp: int = 0
    csp: int = 0
    csp_frac: int = 0
    max_lev: int = 1
    max_depth: int = 0
    home: int = 0
    recall: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    recall_pt: int = 0
    place: int = 0
    last_place: int = 0
    unignoring: int = 0
    deep_descent: int = 0
    energy: int = 0
    word_recall: int = 0
    timed: list[int] = field(default_factory=list)
    total_energy: int = 0
    resting_turn: int = 0
    specialties: bytes = b"\0" * PF_BYTES
    speed_boost: int = 0
    heighten_power: int = 0
    future: bytes = b"\0" * 12

    @property
    def stats(self) -> dict[str, str]:
        out = {}
        for i, name in enumerate(STAT_NAMES[:len(self.stat_cur)]):
            cur, top = self.stat_cur[i], self.stat_max[i]
            out[name] = stat_text(cur) if cur == top else f"{stat_text(cur)} (max {stat_text(top)})"
        return out


PLAYER = Struct(Player, [
    Field("full_name", CStr(31)), Field("died_from", CStr(79)), Field("history", CStr(249)),
    Field("race", CStr(79)), Field("shape", CStr(79)), Field("character_class", CStr(79)),
    Field("name_suffix", U8), Field("hitdie", U8), Field("age", I16), Field("height", I16),
    Field("weight", I16),
    *character.stats(STAT_MAX, f"at most {STAT_MAX} stats (rd_player: 'Too many stats')"), *character.BIRTH,
    Field("themed_level_appeared", U16), Field("themed_level", U8), Field("num_traps", U8),
    Field("au", I32), Field("max_exp", I32), Field("exp", I32), Field("exp_frac", U16),
    Field("lev", I16, check=Range(1, MAX_LEVEL, f"a level from 1 to {MAX_LEVEL} "
                                                "(rd_player: 'Invalid player level')")),
    Field("mhp", I16), Field("chp", I16), Field("chp_frac", U16), Field("msp", I16),
    Field("csp", I16), Field("csp_frac", U16), Field("max_lev", I16), Field("max_depth", I16),
    Field("home", I16), Field("recall", Array(I16, 4)), Field("recall_pt", I16),
    Field("place", I16), Field("last_place", I16), Field("unignoring", U8),
    Field("deep_descent", I16), Field("energy", I16), Field("word_recall", I16),
    Field("timed", Array(I16, Prefix(U8, "timed_count"))), Field("total_energy", U32),
    Field("resting_turn", U32), Field("specialties", Bytes(PF_BYTES)), Field("speed_boost", I16),
    Field("heighten_power", I16), Field("future", Bytes(12)),
    SetCtx("spell_count_known", "1"),
], name="player")


# -- misc -------------------------------------------------------------------------------------


@dataclass(slots=True)
class Misc(BlockModel):
    """The world map and the levels visited on it, then Vanilla 4.2's misc contents."""

    KIND: ClassVar[str] = "misc-fa2"
    map: str = ""
    visited: bytes = b""
    seed_randart: int = 0
    seed_flavor: int = 0
    total_winner: int = 0
    noscore: int = 0
    is_dead: int = 0
    turn: int = 0
    known_flags: bytes = b""
    known_modifiers: list[int] = field(default_factory=list)
    known_elements: list[tuple[int, int]] = field(default_factory=list)
    known_brands: bytes = b""
    known_slays: bytes = b""
    known_curses: bytes = b""
    known_ac: int = 0
    known_to_a: int = 0
    known_to_h: int = 0
    known_to_d: int = 0
    known_dd: int = 0
    known_ds: int = 0


# What follows the visited bytes: seeds, winner, noscore, death, turn (17 bytes), the rune
# knowledge sized by the object memory block, and the combat data (10 bytes).
_TAIL = ("17 + ctx.need('of_size', 'object memory') + 2 * ctx.need('obj_mod_max', 'object memory')"
         " + 3 * ctx.need('elem_max', 'object memory') + ctx.need('brand_max', 'object memory')"
         " + ctx.need('slay_max', 'object memory') + ctx.need('curse_max', 'object memory') + 10")


def _read_visited(r: Reader, tail: int, name: str) -> bytes:
    """One byte per level of the map: as many as the block holds before its fixed tail (the
    count is the game's world.txt's, not stored)."""
    n = r.remaining - tail
    if n < 0:
        r.fail(name, f"{tail} bytes after the visited levels", f"{r.remaining} bytes")
    return r.bytes(n, name)


def _check_visited(value: bytes, tail: int, path: str) -> None:
    if not isinstance(value, bytes):
        raise FormatError(None, path, "bytes", type(value).__name__)


MISC = Struct(Misc, [
    Field("map", CStr(79)), Field("visited", Custom(_read_visited, _check_visited, _TAIL)),
    *character.MISC_MEMBERS,
], name="misc")


# -- objects ----------------------------------------------------------------------------------


@dataclass(slots=True)
class FaItem(Item):
    """FAangband 2's object record: Vanilla 4.2's with the place (stage) it was found at."""

    origin_place: int = 0


# ``rd_item``/``wr_item`` of FAangband 2.
OBJECT = items.object_record(FaItem, [Field("origin_place", I16)])


@dataclass(slots=True)
class ItemList(shapes.ObjectList[FaItem]):
    """Objects up to the dummy record that ends the list (kept in ``end``)."""


ITEM_LIST = shapes.object_list(ItemList, OBJECT)


# -- gear -------------------------------------------------------------------------------------


@dataclass(slots=True)
class GearItem(CarriedKnown[FaItem]):
    """One carried object and the player's knowledge of it (kept in step, as the game does)."""


@dataclass(slots=True)
class Gear(shapes.GearList[GearItem], BlockModel):
    KIND: ClassVar[str] = "gear-fa2"


GEAR = shapes.gear(Gear, GearItem, OBJECT)


# -- stores -----------------------------------------------------------------------------------


@dataclass(slots=True)
class StockItem(shapes.StockPair[FaItem]):
    pass


@dataclass(slots=True)
class Store:
    """One store of one town; the home's owner is stored as 255."""

    owner: int = 0
    stock: list[StockItem] = field(default_factory=list)


@dataclass(slots=True)
class Stores(BlockModel):
    """Every store of every town of the map, town by town (world.txt's order)."""

    KIND: ClassVar[str] = "stores-fa2"
    store_max: int = 0
    stores: list[Store] = field(default_factory=list)


_STOCK = shapes.stock_pair(StockItem, OBJECT)
STORE = Struct(Store, [Field("owner", U8), Field("stock", List(_STOCK, Prefix(U8, "count")))],
               name="store")


# ``rd_stores_aux``: the count it skips, then stores until the block ends (the number of towns
# and of stores in each is the map's, in world.txt).
STORES = Struct(Stores, [Field("store_max", U16), Field("stores", List(STORE, REST))], name="stores")


# -- levels -----------------------------------------------------------------------------------


@dataclass(slots=True)
class Level:
    """One level map (``rd_dungeon_aux``): Vanilla 4.2's, with the ghost's bones selector."""

    name: str = ""
    height: int = 0
    width: int = 0
    info: list[bytes] = field(default_factory=list)
    feat: bytes = b""
    feeling: int = 0
    feeling_squares: int = 0
    turn: int = 0
    bones_selector: int = 0
    connectors: list[world.Connector] | None = None


LEVEL = world.level(Level, [Field("bones_selector", U8)])


@dataclass(slots=True)
class Dungeon(shapes.Whereabouts[Level], BlockModel):
    KIND: ClassVar[str] = "dungeon-fa2"


DUNGEON = shapes.dungeon(Dungeon, LEVEL)


@dataclass(slots=True)
class FloorObjects(shapes.Floor[ItemList]):
    pass


FLOOR = shapes.floor(FloorObjects, ITEM_LIST)


@dataclass(slots=True)
class Objects(shapes.BothLevels[FloorObjects], BlockModel):
    KIND: ClassVar[str] = "objects-fa2"


OBJECTS = shapes.both_levels(Objects, FLOOR, "objects")


# -- monsters ---------------------------------------------------------------------------------


@dataclass(slots=True)
class Monster:
    """One monster (``rd_monster`` of FAangband 2): Vanilla 4.2's, with the player race it
    belongs to (and its original), its target and its home."""

    midx: int = 0
    race: str = ""
    original_race: str = "none"
    player_race: str = "none"
    original_player_race: str = "none"
    y: int = 0
    x: int = 0
    hp: int = 0
    maxhp: int = 0
    mspeed: int = 0
    energy: int = 0
    target_y: int = 0
    target_x: int = 0
    target_midx: int = 0
    home_y: int = 0
    home_x: int = 0
    timed: list[int] = field(default_factory=list)
    mflag: bytes = b""
    known_flags: bytes = b""
    known_res: list[int] = field(default_factory=list)
    mimic: int = 0
    held: ItemList = field(default_factory=ItemList)
    primary_group: world.GroupInfo = field(default_factory=world.GroupInfo)
    summon_group: world.GroupInfo = field(default_factory=world.GroupInfo)


MONSTER = world.monster(
    Monster, ITEM_LIST,
    after_race=[Field("player_race", CStr(79)), Field("original_player_race", CStr(79))],
    after_energy=[Field("target_y", U8), Field("target_x", U8), Field("target_midx", I16),
                  Field("home_y", U8), Field("home_x", U8)])


@dataclass(slots=True)
class MonsterList(shapes.MonsterList[Monster]):
    pass


MONSTER_LIST = shapes.monster_list(MonsterList, MONSTER)


@dataclass(slots=True)
class Monsters(shapes.BothLevels[MonsterList], BlockModel):
    KIND: ClassVar[str] = "monsters-fa2"


MONSTERS = shapes.both_levels(Monsters, MONSTER_LIST, "monsters")


# -- chunks -----------------------------------------------------------------------------------


@dataclass(slots=True)
class Chunk(world.LevelChunk[Level, FloorObjects, MonsterList]):
    pass


@dataclass(slots=True)
class Chunks(world.ChunkList[Chunk], BlockModel):
    KIND: ClassVar[str] = "chunks-fa2"


CHUNKS = world.chunks(Chunks, Chunk, LEVEL, FLOOR, MONSTER_LIST, first=[
    Requires("ctx.need('is_dead', 'misc') or not ctx.need('levels_persist', 'options')",
             "chunks of a persistent-levels game store the game's feature count (z_info->f_max), "
             "which the save does not hold")])


for _struct in (QUESTS, PLAYER, MISC, GEAR, STORES, DUNGEON, OBJECTS, MONSTERS, CHUNKS):
    register_struct(_struct, _struct.name, 1, VANILLA, GAME)
