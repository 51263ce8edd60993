"""FAangband 1 as Ponyband writes it (variant ``FAAN``): the blocks of things in the world,
inventory, stores, dungeon, objects, monsters and ghost (``wr_*`` of Ponyband's
``src/save.c`` at the samples' commit 59f6ca5, read back by the ``rd_*`` of its ``load.c``).

Every object is one fixed record (``wr_item``) whose flag and bonus arrays
have the sizes the object memory block stored; the game writes those arrays
last index first, and the model keeps them as the bytes stored. Objects and
monsters name their kind or race by index into the game's data files.

Two details are not in the file and come from the game's source:

* which stores keep a table of ordered items: ``type_of_store`` of
  ``store.c`` makes the first store of each of the six small towns a
  merchant (indexes 0, 4, 8, 12, 16, 20), and only a merchant's record has
  the table;
* the dungeon block of later Ponyband builds ends with the 256 temporary
  grids (``MAX_TEMP_GRIDS``) and that of earlier ones does not (the samples
  hold both); the block's size decides, and any other size is refused.

The blocks of a dead character's level (dungeon, objects, monsters) are
empty, as the game writes nothing for them; the ghost block is written alive
or dead.

FAangband 1.4.0-1.4.5 (read as the game :mod:`.faangband14`, the ``faan_game`` context
entry) writes these blocks as Ponyband does but for three things: its monster record has
neither MLAngband's root and challenge bytes nor the faction and threat words (45 bytes),
its dungeon block never ends with temporary grids, and its object record writes the flag and
bonus arrays first index first (the same bytes in the model: they are kept as stored).
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
    Check,
    Computed,
    CStr,
    Ctx,
    Custom,
    Expr,
    Field,
    Len,
    List,
    Member,
    Prefix,
    Range,
    Ref,
    SetCtx,
    Stored,
    Struct,
    Switch,
    Until,
    When,
)
from . import BlockModel, register_struct
from .character import FAANGBAND
from .faangband_character import IS_FA, IS_PONY
from .levels import check_rle, read_rle
from .records import HeldQuantity, Inscribed, Quantity

VARIANTS = ("FAAN",)  # the variant ids this module registers layouts for (see the package)

FAAN = frozenset({"FAAN"})
NOTE_MAX = 127  # rd_item reads the inscription into 128 bytes
GHOST_NAME_MAX = 63
GHOST_DATA = 60  # the old ghost record the loader strips
INVEN_END = 0xFFFF
MERCHANTS = frozenset({0, 4, 8, 12, 16, 20})  # type_of_store[i] == STORE_MERCH
TEMP_GRIDS = 256  # MAX_TEMP_GRIDS of the builds that save them
# The sizes the object memory block stores, in the order of an object's arrays.
_FLAG_SIZES = (("flags_obj", "of_size"), ("flags_curse", "cf_size"), ("id_curse", "cf_size"),
               ("id_obj", "of_size"), ("id_other", "if_size"), ("percent_res", "max_p_res"),
               ("bonus_stat", "a_max"), ("bonus_other", "max_p_bonus"),
               ("multiple_slay", "max_p_slay"), ("multiple_brand", "max_p_brand"))
MAX_STORES, STORE_INVEN_MAX, STORE_CHOICES = 60, 24, 32  # the loader refuses more
ALIVE = "not ctx.need('is_dead', 'misc')"


@dataclass(slots=True)
class Item(Quantity, Inscribed):
    """One object (``wr_item``): kind by index (``k_idx``), tval/sval, pile size, bonuses.

    ``name1`` is the artifact index, ``name2`` the ego item's; the flag and
    bonus arrays are the bytes as stored (last index first).
    """

    k_idx: int = 0
    iy: int = 0
    ix: int = 0
    tval: int = 0
    sval: int = 0
    pval: int = 0
    discount: int = 0
    number: int = 0
    weight: int = 0
    name1: int = 0
    name2: int = 0
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
    origin_stage: int = 0
    origin_xtra: int = 0
    flags_obj: bytes = b""
    flags_curse: bytes = b""
    id_curse: bytes = b""
    id_obj: bytes = b""
    id_other: bytes = b""
    percent_res: bytes = b""
    bonus_stat: bytes = b""
    bonus_other: bytes = b""
    multiple_slay: bytes = b""
    multiple_brand: bytes = b""
    held_m_idx: int = 0
    effect: int = 0
    time_base: int = 0
    time_dice: int = 0
    time_sides: int = 0
    feel: int = 0
    inscription: str = ""
    expansion: int = 0


@dataclass(slots=True)
class InventoryItem(HeldQuantity):
    """An object the character carries: ``slot`` below the first equipment slot is the pack."""

    slot: int = 0
    item: Item = field(default_factory=Item)


@dataclass(slots=True)
class Inventory(BlockModel):
    KIND: ClassVar[str] = "inventory-faan"
    all_inven_total: int = 0
    items: list[InventoryItem] = field(default_factory=list)
    expansion: int = 0


@dataclass(slots=True)
class Store:
    """One store: its stock, and for a merchant the kinds ordered (``table``, else None)."""

    store_open: int = 0
    insult_cur: int = 0
    owner: int = 0
    good_buy: int = 0
    bad_buy: int = 0
    stock: list[Item] = field(default_factory=list)
    table: list[int] | None = None
    expansion: int = 0


@dataclass(slots=True)
class Stores(BlockModel):
    """Every town's stores, town by town (the homes are among them)."""

    KIND: ClassVar[str] = "stores-faan"
    store_inven_max: int = STORE_INVEN_MAX
    store_choices: int = STORE_CHOICES
    stores: list[Store] = field(default_factory=list)


@dataclass(slots=True)
class Dungeon(BlockModel):
    """The current level: stage, where the player stands, the map as run-length pairs.

    ``info`` holds one layer per square-info byte (at least two), ``feat`` the
    terrain; ``temp_grids`` the (y, x) pairs of temporary terrain, or None for
    a build that does not save them.
    """

    KIND: ClassVar[str] = "dungeon-faan"
    stage: int = 0
    last_stage: int = 0
    py: int = 0
    px: int = 0
    height: int = 0
    width: int = 0
    square_size: int = 0
    unused: int = 0
    info: list[bytes] | None = None
    feat: bytes = b""
    temp_grids: bytes | None = None

    @property
    def depth(self) -> int:
        """FAangband has stages rather than depths; the stage is what the file holds."""
        return self.stage

    @property
    def present(self) -> bool:
        """False for a dead character's block, which the game leaves empty (its stage and
        place are then only the model's zeros)."""
        return self.info is not None


@dataclass(slots=True)
class Objects(BlockModel):
    """The objects on the level (slot 0 is never used, so ``o_max`` is one more than listed)."""

    KIND: ClassVar[str] = "objects-faan"
    objects: list[Item] | None = None
    expansion: int | None = 0  # (None with the objects: a dead character's block is empty)


@dataclass
class MonsterHead30:
    """The fields Angband 3.0's monster record starts with, which FAangband 1 and Vanilla 3.1
    and 3.2 keep: race by index, place, hit points, sleep, speed, energy, three timed states.
    (No slots of its own: each game's record, a ``@dataclass(slots=True)``, holds them.)"""

    __slots__ = ()
    r_idx: int = 0
    fy: int = 0
    fx: int = 0
    hp: int = 0
    maxhp: int = 0
    csleep: int = 0
    mspeed: int = 0
    energy: int = 0
    stunned: int = 0
    confused: int = 0
    monfear: int = 0


@dataclass(slots=True)
class Monster(MonsterHead30):
    """One monster (``wr_monster``): race by index, place, hit points, state."""

    stasis: int = 0
    rooted: int = 0
    challenged: int = 0
    black_breath: int = 0
    smart: int = 0
    unused: int = 0
    schange: int = 0
    orig_idx: int = 0
    harass: int = 0
    mana: int = 0
    p_race: int = 0
    old_p_race: int = 0
    hostile: int = 0
    group: int = 0
    group_leader: int = 0
    faction: int | None = 0  # (Ponyband only, as threat: None for FAangband 1.4)
    threat: int | None = 0
    y_terr: int = 0
    x_terr: int = 0
    spare: int = 0
    expansion: int = 0


@dataclass(slots=True)
class Monsters(BlockModel):
    """The monsters on the level (slot 0 is never used, so ``m_max`` is one more than listed)."""

    KIND: ClassVar[str] = "monsters-faan"
    monsters: list[Monster] | None = None
    expansion: int | None = 0  # (None with the monsters: a dead character's block is empty)
    # False for the builds whose record has no root and challenge bytes (49 bytes, not 51);
    # None for a dead character's empty block.
    root_and_challenge: bool | None = True


@dataclass(slots=True)
class Ghost(BlockModel):
    """What is left of the old player-ghost record: a name ("Broken Ghost") and 60 bytes.

    Ponyband's ``wr_ghost`` writes it for a dead character too (its loader table
    reads the block with ``rd_null``); a game that writes none for a dead
    character (Anquestria: its model is a subclass) has None for both.
    """

    KIND: ClassVar[str] = "ghost-faan"
    ghost_name: str | None = None
    data: bytes | None = None


OBJECT = Struct(Item, [
    Field("k_idx", I16, check=Range(0, 0x7FFF, "an object kind index of 0 or more")),
    Field("iy", U8), Field("ix", U8), Field("tval", U8), Field("sval", U8), Field("pval", I16),
    Field("discount", U8), Field("number", U8), Field("weight", I16), Field("name1", U8),
    Field("name2", U8), Field("timeout", I16), Field("to_h", I16), Field("to_d", I16), Field("to_a", I16),
    Field("ac", I16), Field("dd", U8), Field("ds", U8), Field("ident", U8), Field("marked", U8),
    Field("origin", U8), Field("origin_stage", U8), Field("origin_xtra", U16),
    *[Field(name, Bytes(Ctx(key, "object memory"))) for name, key in _FLAG_SIZES],
    Field("held_m_idx", I16), Field("effect", U16), Field("time_base", U16), Field("time_dice", U16),
    Field("time_sides", U16), Field("feel", U8), Field("inscription", CStr(NOTE_MAX)),
    Field("expansion", U32),
], name="object")

# ALL_INVEN_TOTAL of player.h: 47 in FAangband 1.2.0 to 1.4.5 (every tag), 48 in Ponyband (59f6ca5).
ALL_INVEN_TOTAL = f"(47 if {IS_FA} else 48)"
# rd_inventory's two checks: the count the file stores, and the slot of an object that has a
# kind (an entry of kind 0 is skipped before its slot is looked at).
INVENTORY = Struct(Inventory, [
    Field("all_inven_total", U8, export="all_inven_total"),
    Check(f"all_inven_total <= {ALL_INVEN_TOTAL}", "all_inven_total",
          "at most ALL_INVEN_TOTAL (load.c rd_inventory: 'Too many inventory objects')",
          "all_inven_total"),
    Field("items", Until(Struct(InventoryItem, [
        Field("slot", U16), Field("item", OBJECT),
        Check(f"item.k_idx == 0 or slot < {ALL_INVEN_TOTAL}", "slot",
              "a slot below ALL_INVEN_TOTAL for an object with a kind (load.c rd_inventory)",
              "slot", on_write=True)], name="inventory entry"), U16, INVEN_END)),
    Field("expansion", U32),
], name="inventory")

_MERCHANT = f"ctx.values['store_index'] in {tuple(sorted(MERCHANTS))}"
STORES = Struct(Stores, [
    Stored("store_count", U8, "len(stores)"),
    Field("store_inven_max", U8), Field("store_choices", U8),
    Check(f"store_count <= {MAX_STORES}", "stores", f"at most {MAX_STORES} (the game's limit)",
          "store_count", on_write=True),
    Check(f"store_inven_max <= {STORE_INVEN_MAX}", "store_inven_max",
          f"at most {STORE_INVEN_MAX} (the game's limit)", "store_inven_max"),
    Check(f"store_choices <= {STORE_CHOICES}", "store_choices",
          f"at most {STORE_CHOICES} (the game's limit)", "store_choices"),
    Check("store_choices >= store_inven_max", "store_choices", "at least store_inven_max",
          "store_choices"),
    SetCtx("table_size", "store_choices - store_inven_max"),
    Field("stores", List(Struct(Store, [
        Field("store_open", I32), Field("insult_cur", I16), Field("owner", U8),
        Len("count", U8, ("stock",)), Field("good_buy", I16), Field("bad_buy", I16),
        Field("stock", List(OBJECT, Ref("count"))),
        When(_MERCHANT, [Field("table", Array(I16, Ctx("table_size", "stores")))],
             "a table exactly for the merchants (stores 0, 4, 8, 12, 16, 20)"),
        Field("expansion", U32)], name="store"), Ref("store_count"), index="store_index")),
], name="stores")

_RUNS = Custom(read_rle, check_rle, "height * width")
DUNGEON = Struct(Dungeon, [When(ALIVE, [
    Field("stage", I16), Field("last_stage", I16), Field("py", I16), Field("px", I16),
    Field("height", I16), Field("width", I16), Field("square_size", U16), Field("unused", U16),
    Check("stage >= 0 and height > 0 and width > 0", "stage",
          "a stage of 0 or more and a positive height and width", "f'stage {stage}, {height} x {width}'"),
    Check("0 <= py < height and 0 <= px < width", "py", "a player inside the level",
          "f'({py}, {px}) in {height} x {width}'"),
    Field("info", List(_RUNS, Expr("max(2, square_size)"))), Field("feat", _RUNS)],
    "a map exactly when the character is alive", defaults=True),
    When(f"info is not None and left == {2 * TEMP_GRIDS} and {IS_PONY}",
         [Field("temp_grids", Bytes(2 * TEMP_GRIDS))], "", by_model=True),
    Check("left == 0", "temp_grids", f"the end of the block, or {TEMP_GRIDS} temporary grids",
          "f'{left} more bytes'"),
], name="dungeon")

OBJECTS = Struct(Objects, [When(ALIVE, [
    Field("objects", List(OBJECT, Prefix(U16, "o_max", bias=1))), Field("expansion", U32)],
    "objects exactly when the character is alive")], name="objects")

MONSTER_HEAD_30: list[Field] = [
    Field("r_idx", I16), Field("fy", U8), Field("fx", U8), Field("hp", I16), Field("maxhp", I16),
    Field("csleep", I16), Field("mspeed", U8), Field("energy", U8), Field("stunned", U8),
    Field("confused", U8), Field("monfear", U8),
]
_MONSTER_FIELDS: list[Member] = [
    *MONSTER_HEAD_30, Field("stasis", U8), Field("rooted", U8),
    Field("challenged", U8), Field("black_breath", U8), Field("smart", U32), Field("unused", U8),
    Field("schange", U8), Field("orig_idx", I16), Field("harass", U8), Field("mana", U8),
    Field("p_race", U8), Field("old_p_race", U8), Field("hostile", I16), Field("group", U16),
    Field("group_leader", U16),
    When(IS_PONY, [Field("faction", U16), Field("threat", U16)], "Ponyband's faction and threat"),
    Field("y_terr", U16), Field("x_terr", U16), Field("spare", I16), Field("expansion", U32)]
MONSTER = Struct(Monster, _MONSTER_FIELDS, name="monster")
# Builds before MLAngband's root and challenge (Ponyband 8f6084a) write neither byte.
MONSTER_EARLY = Struct(Monster, [
    *[f for f in _MONSTER_FIELDS if getattr(f, "name", "") not in ("rooted", "challenged")],
    Check("m.rooted == 0 and m.challenged == 0", "rooted",
          "no root or challenge (this build's record has no room for them)",
          "f'{m.rooted}, {m.challenged}'", on_write=True, on_read=False)],
    name="monster (before root and challenge)")
# Record sizes: Ponyband's later builds 51 bytes, its earlier ones 49; FAangband 1.4's 45 (no
# root, challenge, faction or threat). (A When is not counted in min_size: add the faction's 4.)
_FACTION = 4
_SIZE = f"({MONSTER_EARLY.min_size} if {IS_FA} else {MONSTER_EARLY.min_size + _FACTION})"
MONSTERS = Struct(Monsters, [When(ALIVE, [
    Stored("m_max", U16, "len(monsters) + 1"),
    Computed("root_and_challenge",
             f"{IS_PONY} and (m_max <= 1 or left - 4 != (m_max - 1) * {MONSTER_EARLY.min_size + _FACTION})"),
    Check(f"m_max <= 1 or left - 4 == (m_max - 1) * ({MONSTER.min_size + _FACTION} if root_and_challenge "
          f"else {_SIZE})", "monsters",
          f"monster records of {MONSTER.min_size + _FACTION} bytes (or {MONSTER_EARLY.min_size + _FACTION} "
          f"in early builds; FAangband 1.4: {MONSTER_EARLY.min_size}) and a 4-byte end",
          "f'{left} bytes'"),
    Field("monsters", Switch("root_and_challenge", {
        True: List(MONSTER, Expr("max(m_max - 1, 0)")),
        False: List(MONSTER_EARLY, Expr("max(m_max - 1, 0)"))})),
    Field("expansion", U32)], "monsters exactly when the character is alive")], name="monsters")

GHOST_FIELDS = [Field("ghost_name", CStr(GHOST_NAME_MAX)), Field("data", Bytes(GHOST_DATA))]
GHOST = Struct(Ghost, GHOST_FIELDS, name="ghost")  # wr_ghost: alive or dead

for _struct in (INVENTORY, STORES, DUNGEON, OBJECTS, MONSTERS, GHOST):
    register_struct(_struct, _struct.name, 1, FAAN, FAANGBAND)
