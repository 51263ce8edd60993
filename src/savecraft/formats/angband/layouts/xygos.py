"""Xygos 0.0.3 (variant id ``XyGs``; backwardsEric/angband at 44798ed): ``rd_*``/``wr_*`` of its
``src/load.c``, ``save.c`` and ``savefile.c``.

Xygos is built on Vanilla 4.2 and writes the same blocks, all version 1, with a "world" block
(the towns) between object memory and quests. Blocks it writes byte for byte as 4.2 does (rng,
options, messages, monster memory, object memory, ignore, misc, artifacts, player spells,
traps, history) use the 4.2 descriptions, registered for this game too; the others are here:

* world: the towns and how they connect (``rdwr_world``);
* quests: Xygos's quest records (``rdwr_quests``), with an optional introduction text;
* player: race, extension, personality, shape and class by name; experience factors; a
  32-bit weight; talents gained per level for every class and the class of each level;
  no spell points; cooldowns of every spell; Xygos's own state (``rdwr_player``: factions,
  flying...); player flags; then what each load/save hook writes (see :data:`HOOK_SIZES`);
* player hp: one entry per level per class (``PY_MAX_LEVEL * classes``);
* objects (gear, stores, the floor, what monsters carry): 32-bit pval, weight and timeout,
  two egos, a 16-bit effect code, each object flag byte followed by its "carried" byte, and
  the player flags the object gives;
* stores: every store of every town, with the owners' names in the first town, the store's
  place, ban, layaway and danger;
* dungeon: the last two grids and the momentum, before the square size.

Sizes a block needs that no earlier block stores are the game's own constants at this
commit (the file's later blocks confirm them: the player hp block holds 50 entries per
class, the player spells block the spell count).
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
    CStr,
    Ctx,
    Expr,
    Field,
    Len,
    List,
    Optional,
    Prefix,
    Range,
    Ref,
    SetCtx,
    Struct,
    When,
)
from . import BlockModel, character, items, knowledge, register_struct, shapes, world
from .character import EIGHT_BIT
from .items import KIND_PREFIX, NAME_MAX, Curse
from .records import Experience
from .shapes import CarriedKnown

VARIANTS = ("XyGs",)  # the variant ids this module registers layouts for (see the package)

XYGOS = frozenset({"XyGs"})
GAME = "Xygos 0.0.3"
MAX_LEVEL = 50  # PY_MAX_LEVEL
N_CLASSES = 9  # class.txt at 44798ed (the player hp block stores 50 entries per class)
LEV_CLASS = MAX_LEVEL + 1  # sizeof(player->lev_class)
TOTAL_SPELLS = 48  # total_spells (the player spells block stores it too)
PF_SIZE = 10  # FLAG_SIZE(PF_MAX): 79 player flags (list-player-flags.h)
MAX_EGOS = 2  # object.h
MAX_STORES = 11  # what wr_stores writes first (store.txt)
STAT_NAMES = ("str", "int", "wis", "dex", "con", "chr", "spd")  # list-stats.h: STAT_MAX is 7


# -- world ----------------------------------------------------------------------------------


@dataclass(slots=True)
class Town:
    name: str = ""
    geography: str = ""
    underground: str = ""
    downto: str = ""
    recall_depth: int = 0
    lake: int = 0
    lava_num: int = 0
    connect: list[int] = field(default_factory=list)  # towns this one connects to, by index


@dataclass(slots=True)
class World(BlockModel):
    """The towns of this game's world (``rdwr_world``) and the seed they were made from."""

    KIND: ClassVar[str] = "world-xygos"
    town_seed: int = 0
    towns: list[Town] = field(default_factory=list)


_TOWN = Struct(Town, [
    Len("connections", U32, ("connect",)),
    Field("name", CStr(4095)), Field("geography", CStr(4095)), Field("underground", CStr(4095)),
    Field("downto", CStr(4095)), Field("recall_depth", I16), Field("lake", U8), Field("lava_num", U8),
    Field("connect", Array(I32, Ref("connections"))),
], name="town")
WORLD = Struct(World, [
    Len("town_max", U16, ("towns",)),
    Field("town_seed", U32),
    Field("towns", List(_TOWN, Ref("town_max"))),
    SetCtx("town_max", "len(towns)"),
], name="world")


# -- quests ---------------------------------------------------------------------------------


@dataclass(slots=True)
class Quest:
    level: int = 0
    cur_num: int = 0
    max_num: int = 0
    flags: int = 0
    x: int = 0
    y: int = 0
    town: int = 0
    store: int = 0
    intro_null: int = 1
    intro: str | None = None
    race: int = -1


@dataclass(slots=True)
class Quests(BlockModel):
    KIND: ClassVar[str] = "quests-xygos"
    quests: list[Quest] = field(default_factory=list)


_QUEST = Struct(Quest, [
    Field("level", U8), Field("cur_num", I32), Field("max_num", I32), Field("flags", U32),
    Field("x", U16), Field("y", U16), Field("town", I32), Field("store", I32),
    # rdwr_string_null: a "is null" byte, then the text when it is 0
    Field("intro_null", U8),
    When("intro_null == 0", [Field("intro", CStr(4095))], "an introduction exactly when not null"),
    Field("race", I32),
], name="quest")
QUESTS = Struct(Quests, [Field("quests", List(_QUEST, Prefix(U16, "count")))], name="quests")


# -- player ---------------------------------------------------------------------------------


@dataclass(slots=True)
class SoldierState:
    gift_waiting: int = 0
    gift_given: int = 0
    storename: str = ""


@dataclass(slots=True)
class Player(Experience, BlockModel):
    """The character (``rd_player`` of Xygos). Xygos has no spell points: talents and
    cooldowns instead. ``race_state`` and ``extension_state`` hold the bytes the race's and
    the extension's load/save hooks write (:data:`HOOK_SIZES`), ``soldier`` what the Soldier
    class's hook writes (the game calls every class's hook, whatever the character's class)."""

    KIND: ClassVar[str] = "player-xygos"
    NOT_STORED: ClassVar[frozenset[str]] = frozenset({"csp", "msp"})  # the vocabulary's spell points
    full_name: str = ""
    died_from: str = ""
    history: str = ""
    race: str = ""
    extension: str = ""
    personality: str = ""
    shape: str = ""
    character_class: str = ""
    name_suffix: int = 0
    expfact_low: int = 0
    expfact_high: int = 0
    age: int = 0
    height: int = 0
    weight: int = 0
    stat_max: list[int] = field(default_factory=list)
    stat_cur: list[int] = field(default_factory=list)
    stat_map: list[int] = field(default_factory=list)
    stat_birth: list[int] = field(default_factory=list)
    height_birth: int = 0
    weight_birth: int = 0
    au_birth: int = 0
    body_name: str = ""
    body: list[character.BodySlot] = field(default_factory=list)
    unused_body: int = 0
    lev: int = 1
    au: int = 0
    max_exp: int = 0
    exp: int = 0
    exp_frac: int = 0
    mhp: int = 0
    chp: int = 0
    chp_frac: int = 0
    talent_points: int = 0
    talent_gain: bytes = b""
    lev_class: bytes = b""
    switch_class: int = 0
    max_lev: int = 1
    max_depth: int = 0
    danger: int = 0
    danger_reduction: int = 0
    town: int = -1
    unused_more: bytes = b"\0" * 7
    unignoring: int = 0
    deep_descent: int = 0
    energy: int = 0
    word_recall: int = 0
    cooldown: list[int] = field(default_factory=list)
    timed: list[int] = field(default_factory=list)
    total_energy: int = 0
    resting_turn: int = 0
    active_quest: int = 0
    flying: int = 0
    split_p: int = 0
    orbitable: int = 0
    stores_owned: int = 0
    bm_faction: int = 0
    town_faction: int = 0
    cyber_faction: int = 0
    last_faction_loss: int = 0
    hitlist_wins: int = 0
    artifact: str = ""
    ability_pflags: bytes = b""
    soldier: SoldierState = field(default_factory=SoldierState)
    race_state: bytes = b""
    extension_state: bytes = b""
    future: bytes = b"\0" * 32

    STAT_NAMES: ClassVar[tuple[str, ...]] = STAT_NAMES

    @property
    def stats(self) -> dict[str, str]:
        return {name: character.stat_text(self.stat_cur[i]) for i, name in
                enumerate(STAT_NAMES[:len(self.stat_cur)])}

    @property
    def regenerations(self) -> int | None:
        """A Time-Lord's regenerations left (what its race hook stores), else None."""
        if self.race == "Time-Lord" and len(self.race_state) == 4:
            return int.from_bytes(self.race_state, "little", signed=True)
        return None


# How many bytes each race's load/save hook writes (r_*.c ``*_loadsave``): a Time-Lord's
# regenerations (s32), a Mutant's mutation per level (PY_MAX_LEVEL bools), a Super's weakness
# and SUPER_POWERS (50 / 10) powers (s32 each). Android's and Cyborg's hooks write nothing,
# and the other races have none. The game calls the race's hook, then the extension's.
HOOK_SIZES = {"Time-Lord": 4, "Mutant": MAX_LEVEL, "Super": 4 + 4 * (MAX_LEVEL // 10)}


def _hook(which: str) -> Bytes:
    return Bytes(Expr(f"{HOOK_SIZES!r}.get({which}, 0)"))


_SOLDIER = Struct(SoldierState, [Field("gift_waiting", I32), Field("gift_given", I32),
                                 Field("storename", CStr(4095))], name="soldier state")
PLAYER = Struct(Player, [
    Field("full_name", CStr(31, eight_bit=EIGHT_BIT)), Field("died_from", CStr(79, eight_bit=EIGHT_BIT)),
    Field("history", CStr(249, eight_bit=EIGHT_BIT)),
    Field("race", CStr(79)), Field("extension", CStr(79)), Field("personality", CStr(79)),
    Field("shape", CStr(79)), Field("character_class", CStr(79)),
    Field("name_suffix", U8), Field("expfact_low", U16), Field("expfact_high", U16),
    Field("age", I16), Field("height", I16), Field("weight", I32),
    *character.stats(len(STAT_NAMES), f"at most {len(STAT_NAMES)} stats (rd_player: 'Too many stats')"),
    Field("height_birth", I16), Field("weight_birth", I32), Field("au_birth", I32),
    *character.BODY,
    Field("unused_body", U32),
    Field("lev", I16, check=Range(1, MAX_LEVEL, f"a level from 1 to {MAX_LEVEL} "
                                  "(rd_player: 'Invalid player level')")),
    # rdwr_player_levels
    Field("au", I32), Field("max_exp", I32), Field("exp", I32), Field("exp_frac", U16),
    Field("mhp", I16), Field("chp", I16), Field("chp_frac", U16), Field("talent_points", U16),
    Field("talent_gain", Bytes(MAX_LEVEL * N_CLASSES)), Field("lev_class", Bytes(LEV_CLASS)),
    Field("switch_class", U8), Field("max_lev", I16), Field("max_depth", I16), Field("danger", I16),
    Field("danger_reduction", I16),
    Field("town", I32), Field("unused_more", Bytes(7)), Field("unignoring", U8),
    Field("deep_descent", I16), Field("energy", I16), Field("word_recall", I16),
    Field("cooldown", Array(I32, TOTAL_SPELLS)),
    Field("timed", Array(I16, Prefix(U8, "timed_count"))),
    # rdwr_player
    Field("total_energy", U32), Field("resting_turn", U32), Field("active_quest", I32),
    Field("flying", U8), Field("split_p", U8), Field("orbitable", U8), Field("stores_owned", I16),
    Field("bm_faction", I32), Field("town_faction", I32), Field("cyber_faction", I32),
    Field("last_faction_loss", I32), Field("hitlist_wins", I32), Field("artifact", CStr(4095)),
    Field("ability_pflags", Bytes(PF_SIZE)),
    # player_hook(loadsave): every class's hook (only the Soldier's writes), the race's, the
    # extension's
    Field("soldier", _SOLDIER),
    Field("race_state", _hook("race")), Field("extension_state", _hook("extension")),
    Field("future", Bytes(32)),
], name="player")


@dataclass(slots=True)
class PlayerHp(BlockModel):
    """The hit points rolled at each level, for every class (the game sums the character's)."""

    KIND: ClassVar[str] = "player-hp-xygos"
    player_hp: list[int] = field(default_factory=list)


PLAYER_HP = Struct(PlayerHp, [Field("player_hp", Array(I16, Prefix(U16, "count")))],
                   name="player hp")


# -- objects --------------------------------------------------------------------------------


@dataclass(slots=True)
class Item:
    """One object record (Xygos's ``rd_item``): kind by tval/sval name, egos and artifact by
    name; each object flag byte is paired with its "carried" byte."""

    version: int = 5
    oidx: int = 0
    y: int = 0
    x: int = 0
    tval: str = ""
    sval: str = ""
    pval: int = 0
    number: int = 0
    weight: int = 0
    artifact: str = ""
    egos: list[str] = field(default_factory=lambda: [""] * MAX_EGOS)
    effect: int = 0
    timeout: int = 0
    to_h: int = 0
    to_d: int = 0
    to_a: int = 0
    ac: int = 0
    dd: int = 0
    ds: int = 0
    origin: int = 0
    origin_depth: int = 0
    origin_race: str = ""
    notice: int = 0
    flags: bytes = b""
    carried_flags: bytes = b""
    pflags: bytes = b""
    modifiers: list[int] = field(default_factory=list)
    brands: bytes | None = None
    slays: bytes | None = None
    faults: list[Curse] | None = None
    el_res: list[int] = field(default_factory=list)
    el_flags: bytes = b""
    held_m_idx: int = 0
    mimicking_m_idx: int = 0
    activation: int = 0
    time_base: int = 0
    time_dice: int = 0
    time_sides: int = 0
    inscription: str = ""

    @property
    def is_marker(self) -> bool:
        """The dummy record that ends a list: no kind."""
        return not self.sval

    @property
    def quantity(self) -> int:
        return self.number

    @quantity.setter
    def quantity(self, value: int) -> None:
        self.number = value

    @property
    def name(self) -> str:
        base = self.sval or self.tval
        prefix = KIND_PREFIX.get(self.tval)
        if prefix and self.sval and not self.sval.startswith(prefix.split()[0]):
            base = f"{prefix} {self.sval}"
        extra = " ".join(p for p in (*self.egos, self.artifact) if p)
        text = f"{base} {extra}" if extra else base
        return f"{self.number} x {text}" if self.number > 1 else text


def _size(name: str) -> Ctx:
    return Ctx(name, "object memory")


_FAULT = Struct(Curse, [Field("power", U8), Field("timeout", U16)], name="fault")
OBJECT = Struct(Item, [
    *items.KIND_NAMES, Field("pval", I32), Field("number", U8), Field("weight", I32),
    Field("artifact", CStr(NAME_MAX)), Field("egos", List(CStr(NAME_MAX), MAX_EGOS)),
    Field("effect", I16), Field("timeout", I32), *items.combat(),
    Columns(_size("of_size"), [("flags", U8, True), ("carried_flags", U8, True)]),
    Field("pflags", Bytes(PF_SIZE)), *items.POWERS,
    Field("faults", Optional(U8, List(_FAULT, _size("curse_max")))), items.ELEMENTS, *items.ACTIVATION,
], name="object")


@dataclass(slots=True)
class ItemList(shapes.ObjectList[Item]):
    """Objects up to the dummy record that ends the list (kept in ``end``)."""


ITEM_LIST = shapes.object_list(ItemList, OBJECT)


# -- gear -----------------------------------------------------------------------------------


@dataclass(slots=True)
class GearItem(CarriedKnown[Item]):
    """One carried object and the player's knowledge of it (kept in step, as in 4.2)."""


@dataclass(slots=True)
class Gear(shapes.GearList[GearItem], BlockModel):
    KIND: ClassVar[str] = "gear-xygos"


GEAR = shapes.gear(Gear, GearItem, OBJECT)


# -- stores ---------------------------------------------------------------------------------


@dataclass(slots=True)
class StockItem(shapes.StockPair[Item]):
    pass


@dataclass(slots=True)
class Store:
    """One store of one town; ``owners`` (the names of its possible owners) only in the
    first town's stores, as the game writes them."""

    owner: int = 0
    owners: list[str] | None = None
    stock_size: int = 0
    stock: list[StockItem] = field(default_factory=list)
    x: int = 0
    y: int = 0
    bandays: int = 0
    banreason: str = ""
    layaway_idx: int = 0
    layaway_day: int = 0
    destroy: int = 0
    open: int = 0
    max_danger: int = 0


@dataclass(slots=True)
class TownStores:
    stores: list[Store] = field(default_factory=list)


@dataclass(slots=True)
class Stores(BlockModel):
    """Every town's stores, in the game's store.txt order: the first town's with the names
    of their owners (the game writes those once), then the other towns' (``rd_stores``)."""

    KIND: ClassVar[str] = "stores-xygos"
    store_count: int = MAX_STORES
    first_town: list[Store] = field(default_factory=list)
    other_towns: list[TownStores] = field(default_factory=list)


_STOCK = shapes.stock_pair(StockItem, OBJECT)


def _store(first_town: bool) -> Struct:
    owners = [Field("owners", List(CStr(31), Prefix(U8, "owner_count")))] if first_town else []
    return Struct(Store, [
        Field("owner", U8), *owners, Len("num", U16, ("stock",)), Field("stock_size", I16),
        Field("stock", List(_STOCK, Ref("num"))), Field("x", U16), Field("y", U16),
        Field("bandays", U32), Field("banreason", CStr(127)), Field("layaway_idx", I32),
        Field("layaway_day", I32), Field("destroy", U8), Field("open", U8), Field("max_danger", I32),
    ], name="store")


_TOWN_STORES = Struct(TownStores, [Field("stores", List(_store(False), Ctx("store_count", "stores")))],
                      name="town stores")
STORES = Struct(Stores, [
    Field("store_count", U16, export="store_count"),
    Field("first_town", List(_store(True), Ref("store_count"))),
    Field("other_towns", List(_TOWN_STORES, Expr("ctx.need('town_max', 'world') - 1"))),
], name="stores")


# -- dungeon, objects, monsters, chunks -----------------------------------------------------


@dataclass(slots=True)
class Dungeon(BlockModel):
    """Where the player is (and was, for momentum), and the current level twice."""

    KIND: ClassVar[str] = "dungeon-xygos"
    depth: int = 0
    daycount: int = 0
    py: int = 0
    px: int = 0
    last_1_y: int = 0
    last_1_x: int = 0
    last_2_y: int = 0
    last_2_x: int = 0
    momentum: int = 0
    square_size: int = 0
    cave: world.Level | None = None
    known_cave: world.Level | None = None


DUNGEON = shapes.dungeon(Dungeon, world.LEVEL, [
    Field("last_1_y", I32), Field("last_1_x", I32), Field("last_2_y", I32), Field("last_2_x", I32),
    Field("momentum", U16)])


@dataclass(slots=True)
class FloorObjects(shapes.Floor[ItemList]):
    pass


FLOOR = shapes.floor(FloorObjects, ITEM_LIST)


@dataclass(slots=True)
class Objects(shapes.BothLevels[FloorObjects], BlockModel):
    KIND: ClassVar[str] = "objects-xygos"


OBJECTS = shapes.both_levels(Objects, FLOOR, "objects")


@dataclass(slots=True)
class Monster(world.MonsterRecord[ItemList]):
    """One monster (as 4.2's ``rd_monster``), carrying Xygos objects."""


MONSTER = world.monster(Monster, ITEM_LIST)


@dataclass(slots=True)
class MonsterList(shapes.MonsterList[Monster]):
    pass


MONSTER_LIST = shapes.monster_list(MonsterList, MONSTER)


@dataclass(slots=True)
class Monsters(shapes.BothLevels[MonsterList], BlockModel):
    KIND: ClassVar[str] = "monsters-xygos"


MONSTERS = shapes.both_levels(Monsters, MONSTER_LIST, "monsters")


@dataclass(slots=True)
class Chunk(world.LevelChunk[world.Level, FloorObjects, MonsterList]):
    info: world.ChunkInfo | None = None


@dataclass(slots=True)
class Chunks(world.ChunkList[Chunk], BlockModel):
    KIND: ClassVar[str] = "chunks-xygos"


FEATURES = 32  # z_info->f_max: Xygos's terrain.txt at 44798ed (rd_chunks reads f_max + 1 counts)
CHUNKS = world.chunks(Chunks, Chunk, world.LEVEL, FLOOR, MONSTER_LIST, world.chunk_info(FEATURES))


for _struct in (WORLD, QUESTS, PLAYER, PLAYER_HP, GEAR, STORES, DUNGEON, OBJECTS, MONSTERS, CHUNKS):
    register_struct(_struct, _struct.name, 1, XYGOS, GAME)
# The blocks Xygos writes byte for byte as Vanilla 4.2 does (save.c at 44798ed and 4.2.3).
for _struct in (character.RNG, character.OPTIONS, character.MESSAGES, character.MISC,
                character.PLAYER_SPELLS, character.HISTORY, knowledge.MONSTER_MEMORY,
                knowledge.OBJECT_MEMORY, knowledge.IGNORE, knowledge.ARTIFACTS, world.TRAPS):
    register_struct(_struct, _struct.name, 1, XYGOS, GAME)
