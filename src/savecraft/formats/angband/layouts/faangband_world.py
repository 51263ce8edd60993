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

The blocks of a dead character's level (dungeon, objects, monsters, ghost)
are empty, as the game writes nothing for them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from ....binary import Reader, Record, Writer
from ....errors import FormatError
from . import BlockModel, Context, Layout, register_layout
from .character import FAANGBAND
from .items import check_len, read_str, write_str
from .levels import check_rle, read_rle
from .records import HeldQuantity, Quantity, alive, record_values

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


def _layout(name: str, model: type, decode: object, encode: object) -> None:
    register_layout(Layout(name, 1, FAAN, model, decode, encode, FAANGBAND))  # type: ignore[arg-type]


# -- the object record ----------------------------------------------------------------------

_ITEM_HEAD = Record("FAangband object", [
    ("k_idx", "i16"), ("iy", "u8"), ("ix", "u8"), ("tval", "u8"), ("sval", "u8"), ("pval", "i16"),
    ("discount", "u8"), ("number", "u8"), ("weight", "i16"), ("name1", "u8"), ("name2", "u8"),
    ("timeout", "i16"), ("to_h", "i16"), ("to_d", "i16"), ("to_a", "i16"), ("ac", "i16"),
    ("dd", "u8"), ("ds", "u8"), ("ident", "u8"), ("marked", "u8"), ("origin", "u8"),
    ("origin_stage", "u8"), ("origin_xtra", "u16")])
_ITEM_TAIL = Record("FAangband object activation", [
    ("held_m_idx", "i16"), ("effect", "u16"), ("time_base", "u16"), ("time_dice", "u16"),
    ("time_sides", "u16"), ("feel", "u8")])


@dataclass(slots=True)
class Item(Quantity):
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


def _sizes(ctx: Context) -> list[int]:
    return [ctx.need(key, "object memory") for _, key in _FLAG_SIZES]


def min_item(ctx: Context) -> int:
    """The bytes of an object record with an empty inscription."""
    return _ITEM_HEAD.size + sum(_sizes(ctx)) + _ITEM_TAIL.size + 1 + 4


def read_item(r: Reader, ctx: Context, path: str) -> Item:
    at = r.pos
    it = Item(*r.record(_ITEM_HEAD, path))
    if it.k_idx < 0:
        r.fail(f"{path}.k_idx", "an object kind index of 0 or more", str(it.k_idx), at=at)
    for (name, _), size in zip(_FLAG_SIZES, _sizes(ctx)):
        setattr(it, name, r.bytes(size, f"{path}.{name}"))
    (it.held_m_idx, it.effect, it.time_base, it.time_dice, it.time_sides,
     it.feel) = r.record(_ITEM_TAIL, path)
    it.inscription = read_str(r, f"{path}.inscription", NOTE_MAX)
    it.expansion = r.u32(f"{path}.expansion")
    return it


def write_item(it: Item, w: Writer, ctx: Context, path: str) -> None:
    if it.k_idx < 0:
        raise FormatError(None, f"{path}.k_idx", "an object kind index of 0 or more", str(it.k_idx))
    w.record(_ITEM_HEAD, record_values(it, _ITEM_HEAD), path)
    for (name, _), size in zip(_FLAG_SIZES, _sizes(ctx)):
        check_len(getattr(it, name), size, f"{path}.{name}", "bytes")
        w.bytes(getattr(it, name), f"{path}.{name}")
    w.record(_ITEM_TAIL, record_values(it, _ITEM_TAIL), path)
    write_str(w, it.inscription, f"{path}.inscription", NOTE_MAX)
    w.u32(it.expansion, f"{path}.expansion")


# -- inventory ------------------------------------------------------------------------------


@dataclass(slots=True)
class InventoryItem(HeldQuantity):
    """An object the character carries: ``slot`` below the first equipment slot is the pack."""

    slot: int = 0
    item: Item = field(default_factory=Item)

    @property
    def note(self) -> str:
        return self.item.inscription

    @note.setter
    def note(self, value: str) -> None:
        self.item.inscription = value


@dataclass(slots=True)
class Inventory(BlockModel):
    KIND: ClassVar[str] = "inventory-faan"
    all_inven_total: int = 0
    items: list[InventoryItem] = field(default_factory=list)
    expansion: int = 0


def _rd_inventory(r: Reader, ctx: Context) -> Inventory:
    m = Inventory(r.u8("all_inven_total"))
    while True:
        at = r.pos
        slot = r.u16(f"items[{len(m.items)}].slot")
        if slot == INVEN_END:
            break
        if slot >= m.all_inven_total:
            r.fail(f"items[{len(m.items)}].slot", f"a slot below all_inven_total ({m.all_inven_total})",
                   str(slot), at=at)
        m.items.append(InventoryItem(slot, read_item(r, ctx, f"items[{len(m.items)}]")))
    m.expansion = r.u32("expansion")
    return m


def _wr_inventory(m: Inventory, w: Writer, ctx: Context) -> None:
    w.u8(m.all_inven_total, "all_inven_total")
    for i, it in enumerate(m.items):
        if it.slot >= m.all_inven_total:
            raise FormatError(None, f"items[{i}].slot", f"a slot below all_inven_total "
                              f"({m.all_inven_total})", str(it.slot))
        w.u16(it.slot, f"items[{i}].slot")
        write_item(it.item, w, ctx, f"items[{i}]")
    w.u16(INVEN_END, "end")
    w.u32(m.expansion, "expansion")


# -- stores ---------------------------------------------------------------------------------

_STORE = Record("FAangband store", [
    ("store_open", "i32"), ("insult_cur", "i16"), ("owner", "u8"), ("count", "u8"),
    ("good_buy", "i16"), ("bad_buy", "i16")])
MAX_STORES, STORE_INVEN_MAX, STORE_CHOICES = 60, 24, 32  # the loader refuses more


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


def _rd_stores(r: Reader, ctx: Context) -> Stores:
    at = r.pos
    n, inven_max, choices = r.array("u8", 3, "header")
    for value, top, name in ((n, MAX_STORES, "stores"), (inven_max, STORE_INVEN_MAX, "store_inven_max"),
                             (choices, STORE_CHOICES, "store_choices")):
        if value > top:
            r.fail(name, f"at most {top} (the game's limit)", str(value), at=at)
    if choices < inven_max:
        r.fail("store_choices", f"at least store_inven_max ({inven_max})", str(choices), at=at + 2)
    m = Stores(inven_max, choices)
    small = min_item(ctx)
    for i in range(n):
        p = f"stores[{i}]"
        store_open, insult, owner, count, good, bad = r.record(_STORE, p)
        s = Store(store_open, insult, owner, good, bad)
        r.count(count, small, f"{p}.stock", "object")
        s.stock = [read_item(r, ctx, f"{p}.stock[{j}]") for j in range(count)]
        if i in MERCHANTS:
            s.table = list(r.array("i16", choices - inven_max, f"{p}.table"))
        s.expansion = r.u32(f"{p}.expansion")
        m.stores.append(s)
    return m


def _wr_stores(m: Stores, w: Writer, ctx: Context) -> None:
    if len(m.stores) > MAX_STORES:
        raise FormatError(None, "stores", f"at most {MAX_STORES} stores", str(len(m.stores)))
    w.array("u8", [len(m.stores), m.store_inven_max, m.store_choices], "header")
    for i, s in enumerate(m.stores):
        p = f"stores[{i}]"
        if len(s.stock) > 255:
            raise FormatError(None, f"{p}.stock", "at most 255 objects", str(len(s.stock)))
        w.record(_STORE, [s.store_open, s.insult_cur, s.owner, len(s.stock), s.good_buy, s.bad_buy], p)
        for j, it in enumerate(s.stock):
            write_item(it, w, ctx, f"{p}.stock[{j}]")
        if (s.table is not None) != (i in MERCHANTS):
            raise FormatError(None, f"{p}.table", "a table exactly for the merchants (stores "
                              f"{', '.join(map(str, sorted(MERCHANTS)))})", repr(s.table))
        if s.table is not None:
            check_len(s.table, m.store_choices - m.store_inven_max, f"{p}.table",
                      "entries (store_choices - store_inven_max)")
            w.array("i16", s.table, f"{p}.table")
        w.u32(s.expansion, f"{p}.expansion")


# -- dungeon --------------------------------------------------------------------------------

_LEVEL = Record("FAangband level header", [
    ("stage", "i16"), ("last_stage", "i16"), ("py", "i16"), ("px", "i16"), ("height", "i16"),
    ("width", "i16"), ("square_size", "u16"), ("unused", "u16")])


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


def _rd_dungeon(r: Reader, ctx: Context) -> Dungeon:
    if not alive(ctx):
        return Dungeon()
    at = r.pos
    m = Dungeon(*r.record(_LEVEL))
    if m.stage < 0 or m.height <= 0 or m.width <= 0:
        r.fail("stage", "a stage of 0 or more and a positive height and width",
               f"stage {m.stage}, {m.height} x {m.width}", at=at)
    if not (0 <= m.py < m.height and 0 <= m.px < m.width):
        r.fail("py", f"a player inside the {m.height} x {m.width} level", f"({m.py}, {m.px})", at=at + 4)
    cells = m.height * m.width
    m.info = [read_rle(r, cells, f"info[{n}]") for n in range(max(2, m.square_size))]
    m.feat = read_rle(r, cells, "feat")
    if r.remaining == 2 * TEMP_GRIDS:
        m.temp_grids = r.bytes(2 * TEMP_GRIDS, "temp_grids")
    elif r.remaining:
        r.fail("temp_grids", f"the end of the block, or {TEMP_GRIDS} temporary grids",
               f"{r.remaining} more bytes")
    return m


def _wr_dungeon(m: Dungeon, w: Writer, ctx: Context) -> None:
    if alive(ctx) != (m.info is not None):
        raise FormatError(None, "info", "a map exactly when the character is alive", repr(m.info is not None))
    if m.info is None:
        return
    w.record(_LEVEL, record_values(m, _LEVEL))
    cells = m.height * m.width
    check_len(m.info, max(2, m.square_size), "info", "layers (square_size, at least 2)")
    for n, runs in enumerate(m.info):
        check_rle(runs, cells, f"info[{n}]")
        w.bytes(runs, f"info[{n}]")
    check_rle(m.feat, cells, "feat")
    w.bytes(m.feat, "feat")
    if m.temp_grids is not None:
        w.bytes(m.temp_grids, "temp_grids", size=2 * TEMP_GRIDS)


# -- objects, monsters, ghost ---------------------------------------------------------------


@dataclass(slots=True)
class Objects(BlockModel):
    """The objects on the level (slot 0 is never used, so ``o_max`` is one more than listed)."""

    KIND: ClassVar[str] = "objects-faan"
    objects: list[Item] | None = None
    expansion: int = 0


def _rd_objects(r: Reader, ctx: Context) -> Objects:
    if not alive(ctx):
        return Objects()
    n = r.count(max(r.u16("o_max") - 1, 0), min_item(ctx), "objects", "object")
    m = Objects([read_item(r, ctx, f"objects[{i}]") for i in range(n)])
    m.expansion = r.u32("expansion")
    return m


def _wr_objects(m: Objects, w: Writer, ctx: Context) -> None:
    if alive(ctx) != (m.objects is not None):
        raise FormatError(None, "objects", "objects exactly when the character is alive", repr(m.objects))
    if m.objects is None:
        return
    w.u16(len(m.objects) + 1, "o_max")
    for i, it in enumerate(m.objects):
        write_item(it, w, ctx, f"objects[{i}]")
    w.u32(m.expansion, "expansion")


_MONSTER = Record("FAangband monster", [
    ("r_idx", "i16"), ("fy", "u8"), ("fx", "u8"), ("hp", "i16"), ("maxhp", "i16"), ("csleep", "i16"),
    ("mspeed", "u8"), ("energy", "u8"), ("stunned", "u8"), ("confused", "u8"), ("monfear", "u8"),
    ("stasis", "u8"), ("rooted", "u8"), ("challenged", "u8"), ("black_breath", "u8"),
    ("smart", "u32"), ("unused", "u8"), ("schange", "u8"), ("orig_idx", "i16"), ("harass", "u8"),
    ("mana", "u8"), ("p_race", "u8"), ("old_p_race", "u8"), ("hostile", "i16"), ("group", "u16"),
    ("group_leader", "u16"), ("faction", "u16"), ("threat", "u16"), ("y_terr", "u16"),
    ("x_terr", "u16"), ("spare", "i16"), ("expansion", "u32")])
# Builds before MLAngband's root and challenge (Ponyband 8f6084a) write neither byte.
_MONSTER_EARLY = Record("FAangband monster (before root and challenge)",
                        [f for f in zip(_MONSTER.names, _MONSTER.types)
                         if f[0] not in ("rooted", "challenged")])


@dataclass(slots=True)
class Monster:
    """One monster (``wr_monster``): race by index, place, hit points, state."""

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
    faction: int = 0
    threat: int = 0
    y_terr: int = 0
    x_terr: int = 0
    spare: int = 0
    expansion: int = 0


@dataclass(slots=True)
class Monsters(BlockModel):
    """The monsters on the level (slot 0 is never used, so ``m_max`` is one more than listed)."""

    KIND: ClassVar[str] = "monsters-faan"
    monsters: list[Monster] | None = None
    expansion: int = 0
    # False for the builds whose record has no root and challenge bytes (49 bytes, not 51).
    root_and_challenge: bool = True


def _rd_monsters(r: Reader, ctx: Context) -> Monsters:
    if not alive(ctx):
        return Monsters()
    n = max(r.u16("m_max") - 1, 0)
    left = r.remaining - 4
    rec = _MONSTER if left != n * _MONSTER_EARLY.size or n == 0 else _MONSTER_EARLY
    if left != n * rec.size:
        r.fail("monsters", f"{n} monster records of {_MONSTER.size} bytes (or "
               f"{_MONSTER_EARLY.size} in early builds) and a 4-byte end", f"{r.remaining} bytes")
    m = Monsters(root_and_challenge=rec is _MONSTER)
    m.monsters = [Monster(**dict(zip(rec.names, v))) for v in r.records(rec, n, "monsters")]
    m.expansion = r.u32("expansion")
    return m


def _wr_monsters(m: Monsters, w: Writer, ctx: Context) -> None:
    if alive(ctx) != (m.monsters is not None):
        raise FormatError(None, "monsters", "monsters exactly when the character is alive",
                          repr(m.monsters))
    if m.monsters is None:
        return
    w.u16(len(m.monsters) + 1, "m_max")
    rec = _MONSTER if m.root_and_challenge else _MONSTER_EARLY
    for i, mon in enumerate(m.monsters):
        if not m.root_and_challenge and (mon.rooted or mon.challenged):
            raise FormatError(None, f"monsters[{i}].rooted", "no root or challenge (this build's "
                              "record has no room for them)", f"{mon.rooted}, {mon.challenged}")
        w.record(rec, record_values(mon, rec), f"monsters[{i}]")
    w.u32(m.expansion, "expansion")


@dataclass(slots=True)
class Ghost(BlockModel):
    """What is left of the old player-ghost record: a name ("Broken Ghost") and 60 bytes."""

    KIND: ClassVar[str] = "ghost-faan"
    ghost_name: str | None = None
    data: bytes = b""


def _rd_ghost(r: Reader, ctx: Context) -> Ghost:
    if not alive(ctx):
        return Ghost()
    return Ghost(read_str(r, "ghost_name", GHOST_NAME_MAX), r.bytes(GHOST_DATA, "data"))


def _wr_ghost(m: Ghost, w: Writer, ctx: Context) -> None:
    if alive(ctx) != (m.ghost_name is not None):
        raise FormatError(None, "ghost_name", "a ghost record exactly when the character is alive",
                          repr(m.ghost_name))
    if m.ghost_name is not None:
        write_str(w, m.ghost_name, "ghost_name", GHOST_NAME_MAX)
        w.bytes(m.data, "data", size=GHOST_DATA)


_layout("inventory", Inventory, _rd_inventory, _wr_inventory)
_layout("stores", Stores, _rd_stores, _wr_stores)
_layout("dungeon", Dungeon, _rd_dungeon, _wr_dungeon)
_layout("objects", Objects, _rd_objects, _wr_objects)
_layout("monsters", Monsters, _rd_monsters, _wr_monsters)
_layout("ghost", Ghost, _rd_ghost, _wr_ghost)
