"""Anquestria, a variant built on Angband 3.2/3.3 (variant id ``VNLA``, block versions above 1).

The layouts are those of the 3.3-era ``src/load.c`` whose loader table has
exactly the block versions the sample holds (options 2, monster memory 2,
artifacts 2, player 2, randarts 2, inventory 3, stores 3, objects 3,
monsters 5). That loader sizes several arrays by compile-time constants the
file does not store; they are the game's: ``OF_BYTES`` 32 flag bytes per
object flag set, ``MAX_PVALS`` 3, ``RF_BYTES`` 32, ``MONSTER_BLOW_MAX`` 4,
and Anquestria's six stats (``A_MAX``; Vanilla 3.x has five). A layout that
does not read a block exactly with them leaves it raw.

The 3.x savefile has no description block: the character's name is the
player block's (the sample's is empty), race and class are indexes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import ClassVar, Generic, TypeVar

from ....layout import (
    I16,
    I32,
    U8,
    U16,
    U32,
    Adapt,
    Array,
    Bytes,
    Check,
    CStr,
    Custom,
    Field,
    GenericRecord,
    List,
    Len,
    Prefix,
    Range,
    Ref,
    SetCtx,
    Struct,
    Until,
    When,
)
from . import BlockModel, Layout, character, faangband_character, faangband_world, register_layout, register_struct
from . import shapes
from .faangband import Inscription
from .items import NAME_MAX
from .levels import check_rle, read_rle
from .records import Experience, HeldQuantity, Inscribed, Quantity
from .vanilla40 import MONSTER_HEAD, MonsterHead

VARIANTS = ("VNLA",)  # the variant ids this module registers layouts for (see the package)

VANILLA = frozenset({"VNLA"})
GAME = "Anquestria (Angband 3.x)"
A_MAX = 6
# Race and class names by the stored index: ``N:index:name`` of lib/edit/p_race.txt and
# p_class.txt at 32d7389 (the samples' commit). Race 5 is "Alicorn" there; 66140cc replaced it
# with "Gryphon" (spelled "Griffon" from 5b0b5fc on) and changed no savefile code, so nothing
# in a file says which of the two its character is: the sheet names both.
RACES = ("Earth Pony", "Pegasus", "Unicorn", "Dragonling", "Diamond Dog", "Alicorn or Griffon")
CLASSES = ("Warrior", "Mage", "Priest", "Rogue", "Ranger", "Paladin")
OF_BYTES = 32
MAX_PVALS = 3
RF_BYTES = 32
MONSTER_BLOW_MAX = 4
INVEN_END = 0xFFFF
ITEM_MARK = 0xFFFF
STAT_NAMES = (*character.STAT_NAMES, "chr")
TERM_MAX = 8
ALIVE = "not ctx.need('is_dead', 'misc')"


@dataclass(slots=True)
class Options(BlockModel):
    KIND: ClassVar[str] = "options-3.x"
    delay_factor: int = 0
    hitpoint_warn: int = 0
    lazymove_delay: int = 0
    options: dict[str, int] = field(default_factory=dict)
    window_flags: list[int] = field(default_factory=list)
    window_masks: list[int] = field(default_factory=list)


@dataclass(slots=True)
class Lore:
    sights: int = 0
    deaths: int = 0
    pkills: int = 0
    tkills: int = 0
    wake: int = 0
    ignore: int = 0
    drop_gold: int = 0
    drop_item: int = 0
    cast_innate: int = 0
    cast_spell: int = 0
    blows: bytes = b"\0" * MONSTER_BLOW_MAX
    flags: bytes = b"\0" * RF_BYTES
    spell_flags: bytes = b"\0" * RF_BYTES
    max_num: int = 0
    unused: bytes = b"\0\0\0"


@dataclass(slots=True)
class MonsterMemory(BlockModel):
    """What the player knows of each monster race, in the game's monster list order."""

    KIND: ClassVar[str] = "monster-memory-3.x"
    races: list[Lore] = field(default_factory=list)


@dataclass(slots=True)
class ObjectMemory(BlockModel):
    """Per object kind: aware 1, tried 2, squelch when aware 4, seen 8, squelch unaware 16."""

    KIND: ClassVar[str] = "object-memory-3.x"
    kinds: bytes = b""


@dataclass(slots=True)
class Quests(BlockModel):
    """The quest levels (99 and 100 for Sauron and Morgoth), three unused bytes each."""

    KIND: ClassVar[str] = "quests-3.x"
    quests: list[bytes] = field(default_factory=list)


@dataclass(slots=True)
class Artifacts(BlockModel):
    """Per artifact: created, seen, ever seen and an unused byte, as stored."""

    KIND: ClassVar[str] = "artifacts-3.x"
    artifacts: list[bytes] = field(default_factory=list)


@dataclass(slots=True)
class Player(Experience, BlockModel):
    """The character (``rd_player`` of 3.x): race and class by index, six stats, gold, experience."""

    KIND: ClassVar[str] = "player-3.x"
    STAT_NAMES: ClassVar[tuple[str, ...]] = STAT_NAMES
    # The names of the race and class indexes by the game the file is read as (the character
    # sheet's): this game's only (Vanilla 3.x's player records are subclasses).
    RACE_NAMES: ClassVar[Mapping[str, tuple[str, ...]]] = {GAME: RACES}
    CLASS_NAMES: ClassVar[Mapping[str, tuple[str, ...]]] = {GAME: CLASSES}
    full_name: str = ""
    died_from: str = ""
    history: str = ""
    prace: int = 0
    pclass: int = 0
    psex: int = 0
    name_suffix: int = 0
    hitdie: int = 0
    expfact: int = 0
    age: int = 0
    height: int = 0
    weight: int = 0
    stat_max: list[int] = field(default_factory=lambda: [0] * A_MAX)
    stat_cur: list[int] = field(default_factory=lambda: [0] * A_MAX)
    stat_birth: list[int] = field(default_factory=lambda: [0] * A_MAX)
    height_birth: int = 0
    weight_birth: int = 0
    sc_birth: int = 0
    au_birth: int = 0
    unused_birth: bytes = b"\0" * 4
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
    unused_more: bytes = b"\0" * 8
    sc: int = 0
    unused_sc: bytes = b"\0\0"
    food: int = 0
    energy: int = 0
    word_recall: int = 0
    see_infra: int = 0
    confusing: int = 0
    searching: int = 0
    timed: list[int] = field(default_factory=list)
    total_energy: int = 0
    resting_turn: int = 0
    future: bytes = b"\0" * 32


@dataclass(slots=True)
class Squelch(BlockModel):
    """Quality squelch levels, per ego item its seen flag (2), auto-inscriptions."""

    KIND: ClassVar[str] = "squelch-3.x"
    levels: bytes = b""
    egos: bytes = b""
    inscriptions: list[Inscription] = field(default_factory=list)


@dataclass(slots=True)
class Misc(BlockModel):
    KIND: ClassVar[str] = "misc-3.x"
    randart_version: int = 0
    seed_randart: int = 0
    unused_flags: bytes = b"\0" * 12
    seed_flavor: int = 0
    seed_town: int = 0
    panic_save: int = 0
    total_winner: int = 0
    noscore: int = 0
    is_dead: int = 0
    feeling: int = 0
    created_at: int = 0
    turn: int = 0


@dataclass(slots=True)
class Item(Quantity, Inscribed):
    """One object (``rd_item_3``): kind by tval/sval, artifact and ego by index.

    ``pval`` holds the three s16 pvals as stored, ``pval_flags`` one flag set
    per pval.
    """

    mark: int = ITEM_MARK
    version: int = 0
    unused: bytes = b"\0\0"
    iy: int = 0
    ix: int = 0
    tval: int = 0
    sval: int = 0
    pval: bytes = b"\0" * (2 * MAX_PVALS)
    num_pvals: int = 0
    pseudo_id: int = 0
    number: int = 0
    weight: int = 0
    art_idx: int = 0
    ego_idx: int = 0
    timeout: int = 0
    to_h: int = 0
    to_d: int = 0
    to_a: int = 0
    ac: int = 0
    dd: int = 0
    ds: int = 0
    ident: int = 0
    marked: int = 0
    origin: int = 0
    origin_depth: int = 0
    origin_xtra: int = 0
    flags: bytes = b"\0" * OF_BYTES
    known_flags: bytes = b"\0" * OF_BYTES
    pval_flags: bytes = b"\0" * (MAX_PVALS * OF_BYTES)
    held_m_idx: int = 0
    inscription: str = ""


# The containers of 3.x's object and monster records, shared by Vanilla 3.1 to 3.5 (each
# release's own object record): a game's class names the record (shapes.GearList is the
# inventory block).
I = TypeVar("I")  # a release's object record
R = TypeVar("R")  # a release's store, or monster record


@dataclass
class InventoryEntry(GenericRecord, HeldQuantity, Generic[I]):
    """An object the character carries, by inventory slot."""

    __slots__ = ()

    slot: int = 0
    item: I = shapes.GAME_SETS


@dataclass
class StoreRecord(GenericRecord, Generic[I]):
    """One store (the home is one): owner by index, then its stock."""

    __slots__ = ()

    unused_head: bytes = b"\0" * 6
    owner: int = 0
    unused_tail: bytes = b"\0" * 4
    stock: list[I] = field(default_factory=list)


@dataclass
class StoreList(GenericRecord, Generic[R]):
    """Every store."""

    __slots__ = ()

    stores: list[R] = field(default_factory=list)


@dataclass
class LevelObjects(GenericRecord, Generic[I]):
    """The objects on the level (slot 0 is never used, so ``o_max`` is one more than listed)."""

    __slots__ = ()

    objects: list[I] = field(default_factory=list)
    present: bool = True  # False: a dead character's, which the game leaves empty


@dataclass
class LevelMonsters(GenericRecord, Generic[R]):
    """The monsters on the level (slot 0 is never used, so ``m_max`` is one more than listed)."""

    __slots__ = ()

    monsters: list[R] = field(default_factory=list)
    present: bool = True  # False: a dead character's, which the game leaves empty


@dataclass(slots=True)
class InventoryItem(InventoryEntry[Item]):
    pass


@dataclass(slots=True)
class Inventory(shapes.GearList[InventoryItem], BlockModel):
    """The pack and equipment by inventory slot (``rd_inventory_3``)."""

    KIND: ClassVar[str] = "inventory-3.x"


@dataclass(slots=True)
class Store(StoreRecord[Item]):
    pass


@dataclass(slots=True)
class Stores(StoreList[Store], BlockModel):
    KIND: ClassVar[str] = "stores-3.x"


@dataclass(slots=True)
class Dungeon(BlockModel):
    """The current level: depth, the player's place, ``info``, ``info2`` and terrain as run-length pairs."""

    KIND: ClassVar[str] = "dungeon-3.x"
    depth: int = 0
    daycount: int = 0
    py: int = 0
    px: int = 0
    height: int = 0
    width: int = 0
    unused: bytes = b"\0" * 4
    info: bytes = b""
    info2: bytes = b""
    feat: bytes = b""
    present: bool = True  # False: a dead character's, which the game leaves empty


@dataclass(slots=True)
class Objects(LevelObjects[Item], BlockModel):
    KIND: ClassVar[str] = "objects-3.x"


@dataclass(slots=True)
class Monster(MonsterHead):
    """One monster (``rd_monsters_5``): what ``MonsterHead`` says, the unaware flag, and what it
    knows of the player's flags."""

    flags: int = 0
    known_pflags: bytes = b"\0" * OF_BYTES
    unused: int = 0


@dataclass(slots=True)
class Monsters(LevelMonsters[Monster], BlockModel):
    KIND: ClassVar[str] = "monsters-3.x"


@dataclass(slots=True)
class Randarts(BlockModel):
    """The random artifacts, each the raw record (``rd_randarts_2``); None without birth_randarts,
    when the game writes nothing."""

    KIND: ClassVar[str] = "randarts-3.x"
    artifacts: list[bytes] | None = None


# -- the layouts, as the 3.3-era rd_* read them ----------------------------------------------

OPTIONS = Struct(Options, [
    Field("delay_factor", U8), Field("hitpoint_warn", U8), Field("lazymove_delay", U16),
    Field("options", Adapt(Until(Struct(character._Option, [Field("name", CStr(19)), Field("value", U8)],
                                        name="option"), CStr(19), ""),
                           character._options_dict, character._options_list, "each option once")),
    Field("window_flags", Array(U32, TERM_MAX)), Field("window_masks", Array(U32, TERM_MAX)),
    SetCtx("randarts", "options.get('birth_randarts', 0)"),
], name="options")

MONSTER_MEMORY = Struct(MonsterMemory, [Field("races", List(Struct(Lore, [
    Field("sights", I16), Field("deaths", I16), Field("pkills", I16), Field("tkills", I16),
    Field("wake", U8), Field("ignore", U8), Field("drop_gold", U8), Field("drop_item", U8),
    Field("cast_innate", U8), Field("cast_spell", U8), Field("blows", Bytes(MONSTER_BLOW_MAX)),
    Field("flags", Bytes(RF_BYTES)), Field("spell_flags", Bytes(RF_BYTES)), Field("max_num", U8),
    Field("unused", Bytes(3))], name="lore"), Prefix(U16, "count")))], name="monster memory")

OBJECT_MEMORY = Struct(ObjectMemory, [Len("count", U16, ("kinds",)), Field("kinds", Bytes(Ref("count")))],
                       name="object memory")
QUESTS = Struct(Quests, [Field("quests", List(Bytes(4), Prefix(U16, "count")))], name="quests")
ARTIFACTS = Struct(Artifacts, [Field("artifacts", List(Bytes(4), Prefix(U16, "count")))], name="artifacts")

PLAYER = Struct(Player, [
    Field("full_name", CStr(31)), Field("died_from", CStr(79)), Field("history", CStr(249)),
    Field("prace", U8), Field("pclass", U8), Field("psex", U8), Field("name_suffix", U8),
    Field("hitdie", U8), Field("expfact", U8), Field("age", I16), Field("height", I16),
    Field("weight", I16), Field("stat_max", Array(I16, A_MAX)), Field("stat_cur", Array(I16, A_MAX)),
    Field("stat_birth", Array(I16, A_MAX)), Field("height_birth", I16), Field("weight_birth", I16),
    Field("sc_birth", I16), Field("au_birth", I32), Field("unused_birth", Bytes(4)), Field("au", I32),
    Field("max_exp", I32), Field("exp", I32), Field("exp_frac", U16),
    Field("lev", I16, check=Range(1, character.MAX_LEVEL, f"a level from 1 to {character.MAX_LEVEL}")),
    Field("mhp", I16), Field("chp", I16), Field("chp_frac", U16), Field("msp", I16), Field("csp", I16),
    Field("csp_frac", U16), Field("max_lev", I16), Field("max_depth", I16),
    Field("unused_more", Bytes(8)), Field("sc", I16), Field("unused_sc", Bytes(2)), Field("food", I16),
    Field("energy", I16), Field("word_recall", I16), Field("see_infra", I16), Field("confusing", U8),
    Field("searching", U8), Field("timed", Array(I16, Prefix(U8, "timed_count"))),
    Field("total_energy", U32), Field("resting_turn", U32), Field("future", Bytes(32)),
], name="player")

SQUELCH = Struct(Squelch, [
    Len("level_count", U8, ("levels",)), Field("levels", Bytes(Ref("level_count"))),
    Len("ego_count", U16, ("egos",)), Field("egos", Bytes(Ref("ego_count"))),
    Field("inscriptions", List(Struct(Inscription, [Field("kind_index", I16), Field("text", CStr(79))],
                                      name="inscription"), Prefix(U16, "inscription_count"))),
], name="squelch")

MISC = Struct(Misc, [
    Field("randart_version", U32), Field("seed_randart", U32), Field("unused_flags", Bytes(12)),
    Field("seed_flavor", U32), Field("seed_town", U32), Field("panic_save", U16),
    Field("total_winner", U16), Field("noscore", U16), Field("is_dead", U8, export="is_dead"),
    Field("feeling", U8), Field("created_at", I32), Field("turn", I32),
], name="misc")

OBJECT = Struct(Item, [
    Field("mark", U16, check=Range(ITEM_MARK, ITEM_MARK, "0xFFFF, the mark that starts an object")),
    Field("version", U8), Field("unused", Bytes(2)), Field("iy", U8), Field("ix", U8), Field("tval", U8),
    Field("sval", U8), Field("pval", Bytes(2 * MAX_PVALS)), Field("num_pvals", U8),
    Field("pseudo_id", U8), Field("number", U8), Field("weight", I16), Field("art_idx", U8),
    Field("ego_idx", U8), Field("timeout", I16), Field("to_h", I16), Field("to_d", I16),
    Field("to_a", I16), Field("ac", I16), Field("dd", U8), Field("ds", U8), Field("ident", U16),
    Field("marked", U8), Field("origin", U8), Field("origin_depth", U8), Field("origin_xtra", U16),
    Field("flags", Bytes(OF_BYTES)), Field("known_flags", Bytes(OF_BYTES)),
    Field("pval_flags", Bytes(MAX_PVALS * OF_BYTES)), Field("held_m_idx", I16),
    Field("inscription", CStr(NAME_MAX)),
], name="object")

INVENTORY = Struct(Inventory, [Field("items", Until(
    Struct(InventoryItem, [Field("slot", U16), Field("item", OBJECT)], name="inventory entry"),
    U16, INVEN_END))], name="inventory")

STORES = Struct(Stores, [Field("stores", List(Struct(Store, [
    Field("unused_head", Bytes(6)), Field("owner", U8), Len("count", U8, ("stock",)),
    Field("unused_tail", Bytes(4)), Field("stock", List(OBJECT, Ref("count")))], name="store"),
    Prefix(U16, "count")))], name="stores")

# rd_dungeon reads the three maps over the whole DUNGEON_HGT x DUNGEON_WID area (defines.h),
# whatever size the level stores, and wr_dungeon writes the whole area: in the town (22 x 66)
# the runs cover far more squares than height * width.
DUNGEON_HGT = 66
DUNGEON_WID = 198
_RUNS = Custom(read_rle, check_rle, f"{DUNGEON_HGT} * {DUNGEON_WID}")
DUNGEON = Struct(Dungeon, [When(ALIVE, [
    Field("depth", I16), Field("daycount", U16), Field("py", I16), Field("px", I16), Field("height", I16),
    Field("width", I16), Field("unused", Bytes(4)),
    Check(f"0 <= py < {DUNGEON_HGT} and 0 <= px < {DUNGEON_WID}", "py",
          "a player inside the dungeon (rd_dungeon: 'Ignoring illegal player location')",
          "f'({py}, {px})'"),
    Field("info", _RUNS), Field("info2", _RUNS), Field("feat", _RUNS)],
    "a level exactly when the character is alive", flag="present"),
], name="dungeon")

OBJECTS = Struct(Objects, [When(ALIVE, [Field("objects", List(OBJECT, Prefix(U16, "o_max", bias=1)))],
                                "objects exactly when the character is alive", flag="present")],
                 name="objects")

MONSTERS = Struct(Monsters, [When(ALIVE, [Field("monsters", List(Struct(Monster, [
    *MONSTER_HEAD, Field("flags", U8), Field("known_pflags", Bytes(OF_BYTES)), Field("unused", U8)],
    name="monster"), Prefix(U16, "m_max", bias=1)))],
    "monsters exactly when the character is alive", flag="present")], name="monsters")

RANDART_SIZE = 2 + 2 * MAX_PVALS + 1 + 8 + 2 + 2 + 4 + OF_BYTES + MAX_PVALS * OF_BYTES + 5 + 8
RANDARTS = Struct(Randarts, [When(
    "ctx.need('randarts', 'options')",
    [Field("artifacts", List(Bytes(RANDART_SIZE), Prefix(U16, "count")))],
    "random artifacts exactly when birth_randarts is on")], name="randarts")


for _struct, _version in (
        (character.RNG, 1), (OPTIONS, 2), (character.MESSAGES, 1), (MONSTER_MEMORY, 2),
        (OBJECT_MEMORY, 1), (QUESTS, 1), (ARTIFACTS, 2), (PLAYER, 2), (SQUELCH, 1), (MISC, 1),
        (character.PLAYER_HP, 1), (character.PLAYER_SPELLS, 1), (RANDARTS, 2), (INVENTORY, 3),
        (STORES, 3), (DUNGEON, 1), (OBJECTS, 3), (MONSTERS, 5)):
    register_struct(_struct, _struct.name, _version, VANILLA, GAME, exact=True)
@dataclass(slots=True)
class Ghost(faangband_world.Ghost):
    """The old ghost record as FAangband 1 lays it out, but written only for a living
    character (Anquestria's ``wr_ghost``; a dead character's block is empty: None for both)."""

    KIND: ClassVar[str] = "ghost-anquestria"


GHOST = Struct(Ghost, [When(ALIVE, faangband_world.GHOST_FIELDS,
                            "a ghost record exactly when the character is alive")], name="ghost")
register_struct(GHOST, "ghost", 1, VANILLA, GAME)
register_layout(Layout("history", 1, VANILLA, faangband_character.History,
                       faangband_character.HISTORY_3X.read, faangband_character.HISTORY.write, GAME,
                       exact=True))
