"""Vanilla Angband 4.0 (the sample is 4.0.1): the ``rd_*`` of 4.0's ``src/load.c``.

4.0 still stores the character's race and class as indexes (and no longer a
sex), keeps one "ident" and one "known" flag set per object instead of 4.2's
runes, names monsters in the monster memory by name with the player's kill
count, and stores every object as one record (no separate known copy).
Blocks laid out as 4.2 lays them out (rng, messages, quests, player hp,
player spells) use the 4.2 models, registered for this game too.

The loaders read here are those of the 4.0 development line nearest to 4.0.1
found (they differ from 4.0.1 in single fields: 4.0.1 writes no sex and no
window flags); every layout is checked by reading the real 4.0.1 sample
exactly, field values included.
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
    Adapt,
    Array,
    Bytes,
    Check,
    Const,
    CStr,
    Ctx,
    Custom,
    Field,
    Len,
    List,
    Prefix,
    Range,
    Ref,
    Struct,
    Terminated,
    Tuple,
    Until,
    When,
)
from . import BlockModel, character, register_struct, shapes
from .faangband import Inscription
from .items import NAME_MAX
from .levels import check_rle, read_rle
from .records import Experience, HeldQuantity, Inscribed, Quantity

VARIANTS = ("VNLA",)  # the variant ids this module registers layouts for (see the package)

VANILLA = frozenset({"VNLA"})
GAME = "Vanilla 4.0"
NO_MORE_MONSTERS = "No more monsters"  # the monster memory's end marker
FINISHED_CODE = 0xFF
ITEM_MARK = 0xFFFF
ALIVE = "not ctx.need('is_dead', 'misc')"


def _memory(name: str) -> Ctx:
    return Ctx(name, "object memory")


@dataclass(slots=True)
class Options(BlockModel):
    KIND: ClassVar[str] = "options-4.0"
    delay_factor: int = 0
    hitpoint_warn: int = 0
    lazymove_delay: int = 0
    options: dict[str, int] = field(default_factory=dict)


@dataclass(slots=True)
class Kills:
    race: str = ""
    pkills: int = 0


@dataclass(slots=True)
class MonsterMemory(BlockModel):
    """How many of each monster race (by name) the player has killed; ``mflag_size`` sizes monsters."""

    KIND: ClassVar[str] = "monster-memory-4.0"
    mflag_size: int = 0
    kills: list[Kills] = field(default_factory=list)


@dataclass(slots=True)
class ObjectMemory(BlockModel):
    """Sizes later blocks use, then per object kind: aware 1, tried 2, ignore 4, seen 8, ignore unaware 16."""

    KIND: ClassVar[str] = "object-memory-4.0"
    of_size: int = 0
    id_size: int = 0
    obj_mod_max: int = 0
    elem_max: int = 0
    kinds: bytes = b""


@dataclass(slots=True)
class ArtifactState:
    created: int = 0
    seen: int = 0
    everseen: int = 0
    unused: int = 0


@dataclass(slots=True)
class Artifacts(BlockModel):
    KIND: ClassVar[str] = "artifacts-4.0"
    artifacts: list[ArtifactState] = field(default_factory=list)


@dataclass(slots=True)
class EgoIgnore:
    flags: int = 0
    itypes: bytes = b""


@dataclass(slots=True)
class Ignore(BlockModel):
    """Quality ignore levels, per ego item its seen flag (2) and ignored item types, inscriptions."""

    KIND: ClassVar[str] = "ignore-4.0"
    levels: bytes = b""
    itype_size: int = 0
    egos: list[EgoIgnore] = field(default_factory=list)
    inscriptions: list[Inscription] = field(default_factory=list)


@dataclass(slots=True)
class Player(Experience, BlockModel):
    """The character (``rd_player`` of 4.0): race and class by index, stats, gold, experience.

    ``experience`` sets current and maximum experience together, as the 4.2
    model does.
    """

    KIND: ClassVar[str] = "player-4.0"
    full_name: str = ""
    died_from: str = ""
    history: str = ""
    prace: int = 0
    pclass: int = 0
    name_suffix: int = 0
    hitdie: int = 0
    expfact: int = 0
    age: int = 0
    height: int = 0
    weight: int = 0
    stat_max: list[int] = field(default_factory=list)
    stat_cur: list[int] = field(default_factory=list)
    stat_birth: list[int] = field(default_factory=list)
    height_birth: int = 0
    weight_birth: int = 0
    unused_birth: int = 0
    au_birth: int = 0
    body_name: str = ""
    body: list[character.BodySlot] = field(default_factory=list)
    unused_body: int = 0
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
    unused_more: bytes = b"\0" * 9
    unignoring: int = 0
    deep_descent: int = 0
    food: int = 0
    energy: int = 0
    word_recall: int = 0
    confusing: int = 0
    searching: int = 0
    timed: list[int] = field(default_factory=list)
    total_energy: int = 0
    resting_turn: int = 0
    future: bytes = b"\0" * 32


@dataclass(slots=True)
class Misc(BlockModel):
    KIND: ClassVar[str] = "misc-4.0"
    seed_randart: int = 0
    seed_flavor: int = 0
    total_winner: int = 0
    noscore: int = 0
    is_dead: int = 0
    turn: int = 0


@dataclass(slots=True)
class HistoryEntry:
    """One line of the history; ``a_idx`` is the artifact's index (0: none)."""

    type: bytes = b""
    turn: int = 0
    dlev: int = 0
    clev: int = 0
    a_idx: int = 0
    event: str = ""


@dataclass(slots=True)
class History(BlockModel):
    KIND: ClassVar[str] = "history-4.0"
    hist_size: int = 0
    entries: list[HistoryEntry] = field(default_factory=list)


@dataclass(slots=True)
class Multiplier:
    """A brand (``code`` is the element) or slay (``code`` the race flag) and whether it is known."""

    name: str = ""
    code: int = 0
    multiplier: int = 0
    known: int = 0


@dataclass(slots=True)
class Item(Quantity, Inscribed):
    """One object (``rd_item`` of 4.0): kind by tval/sval, artifact and ego by index."""

    version: int = 0
    iy: int = 0
    ix: int = 0
    tval: int = 0
    sval: int = 0
    pval: int = 0
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
    marked: int = 0
    origin: int = 0
    origin_depth: int = 0
    origin_xtra: int = 0
    ignore: int = 0
    flags: bytes = b""
    known_flags: bytes = b""
    id_flags: bytes = b""
    modifiers: list[int] = field(default_factory=list)
    brands: list[Multiplier] = field(default_factory=list)
    slays: list[Multiplier] = field(default_factory=list)
    elements: list[tuple[int, int]] = field(default_factory=list)
    held_m_idx: int = 0
    mimicking_m_idx: int = 0
    activation: int = 0
    time_base: int = 0
    time_dice: int = 0
    time_sides: int = 0
    inscription: str = ""

    @property
    def is_marker(self) -> bool:
        """The "dummy" object of no kind that ends an object list."""
        return self.tval == 0 and self.sval == 0


@dataclass(slots=True)
class ItemList:
    """Objects up to the "dummy" one of no kind (tval and sval 0) that ends the list (kept in ``end``)."""

    items: list[Item] = field(default_factory=list)
    end: Item = field(default_factory=Item)


@dataclass(slots=True)
class GearItem(HeldQuantity):
    """A carried object: ``slot`` is the body slot it is wielded in, or past the body's for the pack."""

    slot: int = 0
    item: Item = field(default_factory=Item)


@dataclass(slots=True)
class Gear(BlockModel):
    """What the character carries, then the same list as the character knows it (``known``)."""

    KIND: ClassVar[str] = "gear-4.0"
    items: list[GearItem] = field(default_factory=list)
    known: list[GearItem] = field(default_factory=list)


@dataclass(slots=True)
class Store:
    owner: int = 0
    stock: list[Item] = field(default_factory=list)


@dataclass(slots=True)
class Stores(BlockModel):
    """The town's stores in the game's store.txt order (the home is one of them)."""

    KIND: ClassVar[str] = "stores-4.0"
    stores: list[Store] = field(default_factory=list)


@dataclass(slots=True)
class Level:
    """One level map (``rd_dungeon_aux``): square info layers and terrain as run-length pairs."""

    name: str = ""
    height: int = 0
    width: int = 0
    info: list[bytes] = field(default_factory=list)
    feat: bytes = b""
    feeling: int = 0
    feeling_squares: int = 0
    created_at: int = 0


@dataclass(slots=True)
class Dungeon(BlockModel):
    """Where the player is, and the current level twice: as it is, and as the player knows it."""

    KIND: ClassVar[str] = "dungeon-4.0"
    depth: int = 0
    daycount: int = 0
    py: int = 0
    px: int = 0
    square_size: int = 0
    cave: Level | None = None
    known_cave: Level | None = None


@dataclass(slots=True)
class Objects(BlockModel):
    KIND: ClassVar[str] = "objects-4.0"
    cave: ItemList | None = None
    known_cave: ItemList | None = None


@dataclass(slots=True)
class MonsterHead:
    """The fields every 3.x and 4.0 monster record starts with: race by index, place, hit
    points, speed, energy, then its timed effects (a count and that many values)."""

    r_idx: int = 0
    fy: int = 0
    fx: int = 0
    hp: int = 0
    maxhp: int = 0
    mspeed: int = 0
    energy: int = 0
    timed: list[int] = field(default_factory=list)


@dataclass(slots=True)
class Monster(MonsterHead):
    """One monster (``rd_monster`` of 4.0): what ``MonsterHead`` says, flags, what it carries."""

    mflag: bytes = b""
    known_flags: bytes = b""
    known_res: list[int] = field(default_factory=list)
    mimic_mark: int = 0  # non-zero: the floor object it mimics carries this monster's index
    held: ItemList = field(default_factory=ItemList)


@dataclass(slots=True)
class Monsters(BlockModel):
    KIND: ClassVar[str] = "monsters-4.0"
    cave: list[Monster] | None = None
    known_cave: list[Monster] | None = None


@dataclass(slots=True)
class Trap:
    t_idx: int = 0
    fy: int = 0
    fx: int = 0
    xtra: int = 0
    flags: bytes = b""

    @property
    def is_end(self) -> bool:
        """The trap at (0, 0) that ends a list."""
        return self.fy == 0 and self.fx == 0


@dataclass(slots=True)
class TrapList(shapes.TrapList[Trap]):
    """Traps up to the one at (0, 0) that ends the list (kept in ``end``)."""


@dataclass(slots=True)
class Traps(shapes.BothLevels[TrapList], BlockModel):
    KIND: ClassVar[str] = "traps-4.0"


@dataclass(slots=True)
class Chunk:
    """A level kept in memory (the town, levels left behind): map, objects, monsters, traps."""

    level: Level = field(default_factory=Level)
    objects: ItemList = field(default_factory=ItemList)
    monsters: list[Monster] = field(default_factory=list)
    traps: TrapList = field(default_factory=TrapList)


@dataclass(slots=True)
class Chunks(BlockModel):
    KIND: ClassVar[str] = "chunks-4.0"
    chunks: list[Chunk] | None = None


# -- the layouts, as 4.0's rd_* read them ----------------------------------------------------


OPTIONS = Struct(Options, [
    Field("delay_factor", U8), Field("hitpoint_warn", U8), Field("lazymove_delay", U16),
    Field("options", Adapt(Until(Struct(character._Option, [Field("name", CStr(19)), Field("value", U8)],
                                        name="option"), CStr(19), ""),
                           character._options_dict, character._options_list, "each option once")),
], name="options")

MONSTER_MEMORY = Struct(MonsterMemory, [
    Field("mflag_size", U8, export="mflag_size"),
    Field("kills", Until(Struct(Kills, [Field("race", CStr(NAME_MAX)), Field("pkills", U16)],
                                name="kills"), CStr(NAME_MAX), NO_MORE_MONSTERS)),
], name="monster memory")

_SIZES = ("of_size", "id_size", "obj_mod_max", "elem_max")
OBJECT_MEMORY = Struct(ObjectMemory, [
    Len("count", U16, ("kinds",)), *[Field(n, U8, export=n) for n in _SIZES],
    Field("kinds", Bytes(Ref("count"))),
], name="object memory")

ARTIFACTS = Struct(Artifacts, [Field("artifacts", List(Struct(ArtifactState, [
    Field("created", U8), Field("seen", U8), Field("everseen", U8), Field("unused", U8)],
    name="artifact"), Prefix(U16, "count")))], name="artifacts")

IGNORE = Struct(Ignore, [
    Len("level_count", U8, ("levels",)), Field("levels", Bytes(Ref("level_count"))),
    Len("ego_count", U16, ("egos",)), Field("itype_size", U16, export="itype_size"),
    Field("egos", List(Struct(EgoIgnore, [Field("flags", U8),
                                          Field("itypes", Bytes(Ctx("itype_size", "ignore")))],
                              name="ego ignore"), Ref("ego_count"))),
    Field("inscriptions", List(Struct(Inscription, [Field("kind_index", I16), Field("text", CStr(79))],
                                      name="inscription"), Prefix(U16, "inscription_count"))),
], name="ignore")

PLAYER = Struct(Player, [
    Field("full_name", CStr(31)), Field("died_from", CStr(79)), Field("history", CStr(249)),
    Field("prace", U8), Field("pclass", U8), Field("name_suffix", U8), Field("hitdie", U8),
    Field("expfact", U8), Field("age", I16), Field("height", I16), Field("weight", I16),
    Len("stat_count", U8, ("stat_max", "stat_cur", "stat_birth"), most=len(character.STAT_NAMES),
        expected=f"at most {len(character.STAT_NAMES)} stats"),
    Field("stat_max", Array(I16, Ref("stat_count"))), Field("stat_cur", Array(I16, Ref("stat_count"))),
    Field("stat_birth", Array(I16, Ref("stat_count"))),
    Field("height_birth", I16), Field("weight_birth", I16), Field("unused_birth", I16),
    Field("au_birth", I32), *character.BODY, Field("unused_body", U32),
    Field("au", I32), Field("max_exp", I32), Field("exp", I32), Field("exp_frac", U16),
    Field("lev", I16, check=Range(1, character.MAX_LEVEL, f"a level from 1 to {character.MAX_LEVEL}")),
    Field("mhp", I16), Field("chp", I16), Field("chp_frac", U16), Field("msp", I16), Field("csp", I16),
    Field("csp_frac", U16), Field("max_lev", I16), Field("max_depth", I16),
    Field("unused_more", Bytes(9)), Field("unignoring", U8), Field("deep_descent", I16),
    Field("food", I16), Field("energy", I16), Field("word_recall", I16), Field("confusing", U8),
    Field("searching", U8), Field("timed", Array(I16, Prefix(U8, "timed_count"))),
    Field("total_energy", U32), Field("resting_turn", U32), Field("future", Bytes(32)),
], name="player")

MISC = Struct(Misc, [
    Field("seed_randart", U32), Field("seed_flavor", U32), Field("total_winner", U16),
    Field("noscore", U16), Field("is_dead", U8, export="is_dead"), Field("turn", I32),
], name="misc")

HISTORY = Struct(History, [
    Field("hist_size", U8, export="hist_size"),
    Field("entries", List(Struct(HistoryEntry, [
        Field("type", Bytes(Ctx("hist_size", "history"))), Field("turn", I32), Field("dlev", I16),
        Field("clev", I16), Field("a_idx", U8), Field("event", CStr(79))], name="history entry"),
        Prefix(U32, "count"))),
], name="history")


def _multipliers(name: str) -> Until:
    """Brands or slays: each behind a "more" byte of 1, the list ended by a 0."""
    return Until(Struct(Multiplier, [
        Const("more", U8, 1, "1 (another one follows)", lenient=True), Field("name", CStr(39)),
        Field("code", I16), Field("multiplier", I16), Field("known", U8)], name="multiplier"),
        U8, 0, end=f"{name}.end")


OBJECT = Struct(Item, [
    Const("mark", U16, ITEM_MARK, "0xFFFF, the mark that starts an object"),
    Field("version", U8), Field("iy", U8), Field("ix", U8), Field("tval", U8), Field("sval", U8),
    Field("pval", I16), Field("number", U8), Field("weight", I16), Field("art_idx", U8),
    Field("ego_idx", U8), Field("timeout", I16), Field("to_h", I16), Field("to_d", I16),
    Field("to_a", I16), Field("ac", I16), Field("dd", U8), Field("ds", U8), Field("marked", U8),
    Field("origin", U8), Field("origin_depth", U8), Field("origin_xtra", U16), Field("ignore", U8),
    Field("flags", Bytes(_memory("of_size"))), Field("known_flags", Bytes(_memory("of_size"))),
    Field("id_flags", Bytes(_memory("id_size"))),
    Field("modifiers", Array(I16, _memory("obj_mod_max"))),
    Field("brands", _multipliers("brands")), Field("slays", _multipliers("slays")),
    Field("elements", List(Tuple(("res_level", I16), ("flags", U8)), _memory("elem_max"))),
    Field("held_m_idx", I16), Field("mimicking_m_idx", I16), Field("activation", U16),
    Field("time_base", U16), Field("time_dice", U16), Field("time_sides", U16),
    Field("inscription", CStr(NAME_MAX)),
], name="object")

ITEM_LIST = Struct(ItemList, [Terminated(
    "items", OBJECT, "end", "is_marker", "an object of no kind (tval and sval 0, the end marker)")],
    name="object list")

_GEAR_ENTRY = Struct(GearItem, [Field("slot", U8), Field("item", OBJECT)], name="gear entry")
GEAR = Struct(Gear, [
    Field("items", Until(_GEAR_ENTRY, U8, FINISHED_CODE, end="items.end")),
    Field("known", Until(_GEAR_ENTRY, U8, FINISHED_CODE, end="known.end")),
], name="gear")

STORES = Struct(Stores, [Field("stores", List(Struct(Store, [
    Field("owner", U8), Field("stock", List(OBJECT, Prefix(U8, "count")))], name="store"),
    Prefix(U16, "count")))], name="stores")

_RUNS = Custom(read_rle, check_rle, "height * width")
LEVEL = Struct(Level, [
    Field("name", CStr(99)), Field("height", U16), Field("width", U16),
    Field("info", List(_RUNS, Ctx("square_size", "dungeon"))), Field("feat", _RUNS),
    Field("feeling", U8), Field("feeling_squares", U16), Field("created_at", I32),
], name="level")

DUNGEON = Struct(Dungeon, [When(ALIVE, [
    Field("depth", U16), Field("daycount", U16), Field("py", U16), Field("px", U16),
    Field("square_size", U8, export="square_size"), Field("cave", LEVEL),
    Field("known_cave", LEVEL)], "the two levels exactly when the character is alive"),
    Check("depth is None or (py < cave.height and px < cave.width)", "py",
          "a player inside the level", "f'({py}, {px}) in {cave.height} x {cave.width}'"),
], name="dungeon")

OBJECTS = Struct(Objects, [When(ALIVE, [Field("cave", ITEM_LIST), Field("known_cave", ITEM_LIST)],
                                "objects exactly when the character is alive")], name="objects")

# The fields every 3.x and 4.0 monster record starts with (Anquestria's too).
MONSTER_HEAD = [
    Field("r_idx", I16), Field("fy", U8), Field("fx", U8), Field("hp", I16), Field("maxhp", I16),
    Field("mspeed", U8), Field("energy", U8), Field("timed", Array(I16, Prefix(U8, "timed_count"))),
]
MONSTER = Struct(Monster, [
    *MONSTER_HEAD, Field("mflag", Bytes(Ctx("mflag_size", "monster memory"))),
    Field("known_flags", Bytes(_memory("of_size"))), Field("known_res", Array(I16, _memory("elem_max"))),
    Field("mimic_mark", U16), Field("held", ITEM_LIST),
], name="monster")


def monster_list(monster: Struct, where: str) -> List:
    """Monsters behind a ``limit`` one more than their number (slot 0 is never used)."""
    return List(monster, Prefix(U16, f"{where}.limit", bias=1))


MONSTERS = Struct(Monsters, [When(ALIVE, [
    Field("cave", monster_list(MONSTER, "cave")),
    Field("known_cave", monster_list(MONSTER, "known_cave"))],
    "monsters exactly when the character is alive")], name="monsters")

TRAP_LIST = shapes.trap_list(TrapList, Struct(Trap, [
    Field("t_idx", U8), Field("fy", U8), Field("fx", U8), Field("xtra", U8),
    Field("flags", Bytes(Ctx("trf_size", "traps")))], name="trap"))

TRAPS = Struct(Traps, [When(ALIVE, [Field("cave", TRAP_LIST), Field("known_cave", TRAP_LIST)],
                            "traps exactly when the character is alive")], name="traps")

CHUNKS = Struct(Chunks, [When(ALIVE, [Field("chunks", List(Struct(Chunk, [
    Field("level", LEVEL), Field("objects", ITEM_LIST), Field("monsters", monster_list(MONSTER, "monsters")),
    Field("traps", TRAP_LIST)], name="chunk"), Prefix(U16, "count")))],
    "chunks exactly when the character is alive")], name="chunks")


for _struct in (character.RNG, OPTIONS, character.MESSAGES, MONSTER_MEMORY, OBJECT_MEMORY,
                character.QUESTS, ARTIFACTS, PLAYER, IGNORE, MISC, character.PLAYER_HP,
                character.PLAYER_SPELLS, GEAR, STORES, DUNGEON, OBJECTS, MONSTERS, TRAPS, CHUNKS,
                HISTORY):
    register_struct(_struct, _struct.name, 1, VANILLA, GAME)
