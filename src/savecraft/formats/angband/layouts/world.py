"""Vanilla Angband 4.2 blocks of things in the world: gear, stores, dungeon, objects,
monsters, traps and chunks (``rd_*`` / ``wr_*`` of 4.2).

The map of a level is run-length encoded as (count, byte) pairs; the model
keeps the pairs as the game wrote them (an equivalent re-encoding would not
be the same bytes), checked to cover the level exactly once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from ....binary import Reader, Writer
from ....errors import FormatError
from . import BlockModel, Context, Layout, LayoutError, NotCanonical, register_layout
from .items import (
    Item,
    ItemList,
    Records,
    check_len,
    read_item,
    read_item_list,
    read_str,
    write_item,
    write_item_list,
    write_str,
)
from .levels import check_rle, read_rle
from .records import alive

VANILLA = frozenset({"VNLA"})
GAME = "Vanilla 4.2"
FINISHED_CODE = 0xFF
# The fewest bytes a record can take (every string empty, every per-game array
# empty), to check stored counts against what is left before looping over them.
MIN_ITEM = 7 + 2 + 5 + 2 + 15 + 1 + 1 + 3 + 12 + 1  # 49: rd_item's fixed fields and 6 strings
MIN_MONSTER = 2 + 1 + 1 + 2 + 4 + 2 + 1 + 2 + MIN_ITEM + 6  # ... its held list's end record
MIN_CHUNK = 12 + 2 + MIN_ITEM + 2 + 6  # level, objects (end record), monsters, traps (end)


def _layout(name: str, model: type, decode: object, encode: object) -> None:
    register_layout(Layout(name, 1, VANILLA, model, decode, encode, GAME,  # type: ignore[arg-type]
                           exact=True))


# -- gear -----------------------------------------------------------------------------------


@dataclass(slots=True)
class GearItem:
    """One carried object and the player's knowledge of it (the game keeps the two in step).

    ``slot`` is the body slot it is wielded in, or a number past the body's
    slots for the pack. ``quantity`` and ``note`` change the object and the
    known copy together, as the game does.
    """

    slot: int = 0
    item: Item = field(default_factory=Item)
    known_slot: int = 0
    known: Item = field(default_factory=Item)

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
        return self.item.inscription

    @note.setter
    def note(self, value: str) -> None:
        self.item.inscription = value
        self.known.inscription = value


@dataclass(slots=True)
class Gear(BlockModel):
    KIND: ClassVar[str] = "gear-4.2"
    items: list[GearItem] = field(default_factory=list)


# One (slot, object) of the list, read into a GearItem's first two fields (the C reader).
_GEAR_ENTRY = Records(GearItem, [("slot", "B"), ("item", "j")])


def _rd_gear_fast(r: Reader, ctx: Context) -> Gear | None:
    real = _GEAR_ENTRY.read(r, ctx, -1, FINISHED_CODE)
    if real is None:
        return None
    start = r.pos
    known = _GEAR_ENTRY.read(r, ctx, -1, FINISHED_CODE)
    if known is None or len(known) != len(real):
        r.pos = start
        return None
    for g, k in zip(real, known):
        g.known_slot, g.known = k.slot, k.item
    return Gear(real)


def _rd_gear_list(r: Reader, ctx: Context, path: str) -> list[tuple[int, Item]]:
    out: list[tuple[int, Item]] = []
    while True:
        code = r.u8(f"{path}[{len(out)}].slot")
        if code == FINISHED_CODE:
            return out
        out.append((code, read_item(r, ctx, f"{path}[{len(out)}]")))


def _rd_gear(r: Reader, ctx: Context) -> Gear:
    start = r.pos
    fast = _rd_gear_fast(r, ctx)
    if fast is not None:
        return fast
    r.pos = start
    real = _rd_gear_list(r, ctx, "items")
    known = _rd_gear_list(r, ctx, "known")
    if len(real) != len(known):
        raise LayoutError(f"{len(real)} objects but {len(known)} known ones (the game pairs them)")
    return Gear([GearItem(s, it, ks, k) for (s, it), (ks, k) in zip(real, known)])


_GEAR_KNOWN = Records(GearItem, [("known_slot", "B"), ("known", "j")])


def _wr_gear(m: Gear, w: Writer, ctx: Context) -> None:
    at = len(w.buf)
    if _GEAR_ENTRY.write(w, ctx, m.items, FINISHED_CODE):
        w.u8(FINISHED_CODE, "end")
        if _GEAR_KNOWN.write(w, ctx, m.items, FINISHED_CODE):
            w.u8(FINISHED_CODE, "end")
            return
        del w.buf[at:]
    for which in ("item", "known"):
        for i, g in enumerate(m.items):
            slot = g.slot if which == "item" else g.known_slot
            if slot == FINISHED_CODE:
                raise FormatError(None, f"items[{i}].slot", "a slot below 255", "255")
            w.u8(slot, f"items[{i}].slot")
            write_item(getattr(g, which), w, ctx, f"items[{i}].{which}")
        w.u8(FINISHED_CODE, "end")


# -- stores ---------------------------------------------------------------------------------


@dataclass(slots=True)
class StockItem:
    known: Item = field(default_factory=Item)
    item: Item = field(default_factory=Item)


@dataclass(slots=True)
class Store:
    owner: int = 0
    stock: list[StockItem] = field(default_factory=list)


@dataclass(slots=True)
class Stores(BlockModel):
    """The town's stores in the game's store.txt order (the home is one of them)."""

    KIND: ClassVar[str] = "stores-4.2"
    stores: list[Store] = field(default_factory=list)


_STOCK = Records(StockItem, [("known", "j"), ("item", "j")])
_STORE = Records(Store, [("owner", "B"), ("stock", "n", _STOCK)])


def _rd_stores(r: Reader, ctx: Context) -> Stores:
    n = r.count(r.u16("count"), 2, "stores", "store")
    fast = _STORE.read(r, ctx, n)
    if fast is not None:
        return Stores(fast)
    m = Stores()
    for i in range(n):
        s = Store(r.u8(f"stores[{i}].owner"))
        n_stock = r.count(r.u8(f"stores[{i}].count"), 2 * MIN_ITEM, f"stores[{i}].stock", "stock pair")
        for j in range(n_stock):
            p = f"stores[{i}].stock[{j}]"
            s.stock.append(StockItem(read_item(r, ctx, f"{p}.known"), read_item(r, ctx, f"{p}.item")))
        m.stores.append(s)
    return m


def _wr_stores(m: Stores, w: Writer, ctx: Context) -> None:
    w.u16(len(m.stores), "count")
    fast = _STORE.write(w, ctx, m.stores)
    for i, s in enumerate([] if fast else m.stores):
        w.u8(s.owner, f"stores[{i}].owner")
        w.u8(len(s.stock), f"stores[{i}].count")
        for j, st in enumerate(s.stock):
            write_item(st.known, w, ctx, f"stores[{i}].stock[{j}].known")
            write_item(st.item, w, ctx, f"stores[{i}].stock[{j}].item")


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


def _rd_level(r: Reader, ctx: Context, path: str) -> Level:
    lv = Level(read_str(r, f"{path}.name", 99), r.u16(f"{path}.height"), r.u16(f"{path}.width"))
    cells = lv.height * lv.width
    lv.info = [read_rle(r, cells, f"{path}.info[{n}]")
               for n in range(ctx.need("square_size", "dungeon"))]
    lv.feat = read_rle(r, cells, f"{path}.feat")
    lv.feeling = r.u8(f"{path}.feeling")
    lv.feeling_squares = r.u16(f"{path}.feeling_squares")
    lv.turn = r.i32(f"{path}.turn")
    if ctx.need("levels_persist", "options"):
        lv.connectors = []
        size = ctx.need("square_size", "dungeon")
        while True:
            x = r.u8(f"{path}.connectors[{len(lv.connectors)}].x")
            if x == 0xFF:
                break
            i = len(lv.connectors)
            lv.connectors.append(Connector(x, r.u8(f"{path}.connectors[{i}].y"),
                                           r.u8(f"{path}.connectors[{i}].feat"),
                                           r.bytes(size, f"{path}.connectors[{i}].info")))
    return lv


def _wr_level(lv: Level, w: Writer, ctx: Context, path: str) -> None:
    write_str(w, lv.name, f"{path}.name", 99)
    w.u16(lv.height, f"{path}.height")
    w.u16(lv.width, f"{path}.width")
    cells = lv.height * lv.width
    check_len(lv.info, ctx.need("square_size", "dungeon"), f"{path}.info", "info layers")
    for n, runs in enumerate(lv.info):
        check_rle(runs, cells, f"{path}.info[{n}]")
        w.bytes(runs, f"{path}.info[{n}]")
    check_rle(lv.feat, cells, f"{path}.feat")
    w.bytes(lv.feat, f"{path}.feat")
    w.u8(lv.feeling, f"{path}.feeling")
    w.u16(lv.feeling_squares, f"{path}.feeling_squares")
    w.i32(lv.turn, f"{path}.turn")
    if bool(ctx.need("levels_persist", "options")) != (lv.connectors is not None):
        raise FormatError(None, f"{path}.connectors", "connectors exactly when the "
                          "birth_levels_persist option is on", repr(lv.connectors))
    if lv.connectors is not None:
        for i, c in enumerate(lv.connectors):
            if c.x == 0xFF:
                raise FormatError(None, f"{path}.connectors[{i}].x", "below 255", "255")
            w.u8(c.x, f"{path}.connectors[{i}].x")
            w.u8(c.y, f"{path}.connectors[{i}].y")
            w.u8(c.feat, f"{path}.connectors[{i}].feat")
            w.bytes(c.info, f"{path}.connectors[{i}].info", size=ctx.need("square_size", "dungeon"))
        w.u8(0xFF, f"{path}.end")


@dataclass(slots=True)
class Dungeon(BlockModel):
    """Where the player is, and the current level twice: as it is, and as the player knows it."""

    KIND: ClassVar[str] = "dungeon-4.2"
    depth: int = 0
    daycount: int = 0
    py: int = 0
    px: int = 0
    square_size: int = 0
    cave: Level | None = None
    known_cave: Level | None = None


def _rd_dungeon(r: Reader, ctx: Context) -> Dungeon:
    m = Dungeon(r.u16("depth"), r.u16("daycount"), r.u16("py"), r.u16("px"), r.u8("square_size"))
    ctx.set("square_size", m.square_size, "dungeon")
    if alive(ctx):
        m.cave = _rd_level(r, ctx, "cave")
        m.known_cave = _rd_level(r, ctx, "known_cave")
    return m


def _wr_dungeon(m: Dungeon, w: Writer, ctx: Context) -> None:
    for name in ("depth", "daycount", "py", "px"):
        w.u16(getattr(m, name), name)
    w.u8(m.square_size, "square_size")
    ctx.set("square_size", m.square_size, "dungeon")
    if alive(ctx) != (m.cave is not None and m.known_cave is not None):
        raise FormatError(None, "cave", "the two levels exactly when the character is alive",
                          repr(m.cave is not None))
    if m.cave is not None and m.known_cave is not None:
        _wr_level(m.cave, w, ctx, "cave")
        _wr_level(m.known_cave, w, ctx, "known_cave")


# -- floor objects, monsters, traps ---------------------------------------------------------


@dataclass(slots=True)
class FloorObjects:
    obj_max: int = 0
    objects: ItemList = field(default_factory=ItemList)


_FLOOR = Records(FloorObjects, [("obj_max", "H"), ("objects", "X")])


def _rd_floor(r: Reader, ctx: Context, path: str) -> FloorObjects:
    fast = _FLOOR.read(r, ctx, 1)
    if fast is not None:
        return fast[0]  # type: ignore[no-any-return]
    return FloorObjects(r.u16(f"{path}.obj_max"), read_item_list(r, ctx, f"{path}.objects"))


def _wr_floor(m: FloorObjects, w: Writer, ctx: Context, path: str) -> None:
    if _FLOOR.write(w, ctx, [m]):
        return
    w.u16(m.obj_max, f"{path}.obj_max")
    write_item_list(m.objects, w, ctx, f"{path}.objects")


@dataclass(slots=True)
class Objects(BlockModel):
    KIND: ClassVar[str] = "objects-4.2"
    cave: FloorObjects | None = None
    known_cave: FloorObjects | None = None


def _rd_objects(r: Reader, ctx: Context) -> Objects:
    if not alive(ctx):
        return Objects()
    return Objects(_rd_floor(r, ctx, "cave"), _rd_floor(r, ctx, "known_cave"))


def _wr_objects(m: Objects, w: Writer, ctx: Context) -> None:
    if m.cave is not None and m.known_cave is not None:
        _wr_floor(m.cave, w, ctx, "cave")
        _wr_floor(m.known_cave, w, ctx, "known_cave")


@dataclass(slots=True)
class GroupInfo:
    index: int = 0
    role: int = 0


@dataclass(slots=True)
class Monster:
    """One monster (``rd_monster``): race by name, place, hit points, what it carries."""

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
    held: ItemList = field(default_factory=ItemList)
    primary_group: GroupInfo = field(default_factory=GroupInfo)
    summon_group: GroupInfo = field(default_factory=GroupInfo)


_GROUP = Records(GroupInfo, [("index", "H"), ("role", "B")])
_MONSTER = Records(Monster, [
    ("midx", "H"), ("race", "s", 79), ("original_race", "s", 79), ("y", "B"), ("x", "B"),
    ("hp", "h"), ("maxhp", "h"), ("mspeed", "B"), ("energy", "B"), ("timed", "c"),
    ("mflag", "y", "mflag_size"), ("known_flags", "y", "of_size"), ("known_res", "l", "elem_max"),
    ("mimic", "H"), ("held", "X"), ("primary_group", "r", _GROUP), ("summon_group", "r", _GROUP)])


def _rd_monster(r: Reader, ctx: Context, p: str) -> Monster:
    m = Monster(r.u16(f"{p}.midx"), read_str(r, f"{p}.race", 79), read_str(r, f"{p}.original_race", 79),
                r.u8(f"{p}.y"), r.u8(f"{p}.x"), r.i16(f"{p}.hp"), r.i16(f"{p}.maxhp"),
                r.u8(f"{p}.mspeed"), r.u8(f"{p}.energy"))
    m.timed = list(r.array("i16", r.u8(f"{p}.timed_count"), f"{p}.timed"))
    m.mflag = r.bytes(ctx.need("mflag_size", "monster memory"), f"{p}.mflag")
    m.known_flags = r.bytes(ctx.need("of_size", "object memory"), f"{p}.known_flags")
    m.known_res = list(r.array("i16", ctx.need("elem_max", "object memory"), f"{p}.known_res"))
    m.mimic = r.u16(f"{p}.mimic")
    m.held = read_item_list(r, ctx, f"{p}.held")
    m.primary_group = GroupInfo(r.u16(f"{p}.primary_group.index"), r.u8(f"{p}.primary_group.role"))
    m.summon_group = GroupInfo(r.u16(f"{p}.summon_group.index"), r.u8(f"{p}.summon_group.role"))
    return m


def _wr_monster(m: Monster, w: Writer, ctx: Context, p: str) -> None:
    w.u16(m.midx, f"{p}.midx")
    write_str(w, m.race, f"{p}.race", 79)
    write_str(w, m.original_race, f"{p}.original_race", 79)
    w.u8(m.y, f"{p}.y")
    w.u8(m.x, f"{p}.x")
    w.i16(m.hp, f"{p}.hp")
    w.i16(m.maxhp, f"{p}.maxhp")
    w.u8(m.mspeed, f"{p}.mspeed")
    w.u8(m.energy, f"{p}.energy")
    w.u8(len(m.timed), f"{p}.timed_count")
    w.array("i16", m.timed, f"{p}.timed")
    check_len(m.mflag, ctx.need("mflag_size", "monster memory"), f"{p}.mflag", "bytes")
    w.bytes(m.mflag, f"{p}.mflag")
    check_len(m.known_flags, ctx.need("of_size", "object memory"), f"{p}.known_flags", "bytes")
    w.bytes(m.known_flags, f"{p}.known_flags")
    check_len(m.known_res, ctx.need("elem_max", "object memory"), f"{p}.known_res", "entries")
    w.array("i16", m.known_res, f"{p}.known_res")
    w.u16(m.mimic, f"{p}.mimic")
    write_item_list(m.held, w, ctx, f"{p}.held")
    w.u16(m.primary_group.index, f"{p}.primary_group.index")
    w.u8(m.primary_group.role, f"{p}.primary_group.role")
    w.u16(m.summon_group.index, f"{p}.summon_group.index")
    w.u8(m.summon_group.role, f"{p}.summon_group.role")


@dataclass(slots=True)
class MonsterList:
    """``limit`` is one more than the monsters stored (slot 0 is never used)."""

    monsters: list[Monster] = field(default_factory=list)


def _rd_monster_list(r: Reader, ctx: Context, path: str) -> MonsterList:
    limit = r.u16(f"{path}.limit")
    if limit == 0:  # the game reads no monster, as for 1; the writer writes 1
        raise NotCanonical(f"{path}.limit is 0, which the game writes back as 1")
    n = r.count(limit - 1, MIN_MONSTER, f"{path}.monsters", "monster")
    fast = _MONSTER.read(r, ctx, n)
    if fast is not None:
        return MonsterList(fast)
    return MonsterList([_rd_monster(r, ctx, f"{path}.monsters[{i}]") for i in range(n)])


def _wr_monster_list(m: MonsterList, w: Writer, ctx: Context, path: str) -> None:
    w.u16(len(m.monsters) + 1, f"{path}.limit")
    fast = _MONSTER.write(w, ctx, m.monsters)
    for i, mon in enumerate([] if fast else m.monsters):
        _wr_monster(mon, w, ctx, f"{path}.monsters[{i}]")


@dataclass(slots=True)
class Monsters(BlockModel):
    KIND: ClassVar[str] = "monsters-4.2"
    cave: MonsterList | None = None
    known_cave: MonsterList | None = None


def _rd_monsters(r: Reader, ctx: Context) -> Monsters:
    if not alive(ctx):
        return Monsters()
    return Monsters(_rd_monster_list(r, ctx, "cave"), _rd_monster_list(r, ctx, "known_cave"))


def _wr_monsters(m: Monsters, w: Writer, ctx: Context) -> None:
    if m.cave is not None and m.known_cave is not None:
        _wr_monster_list(m.cave, w, ctx, "cave")
        _wr_monster_list(m.known_cave, w, ctx, "known_cave")


@dataclass(slots=True)
class Trap:
    kind: str = ""
    y: int = 0
    x: int = 0
    power: int = 0
    timeout: int = 0
    flags: bytes = b""


@dataclass(slots=True)
class TrapList:
    """Traps up to the one at (0, 0) that ends the list (kept in ``end``)."""

    trf_size: int = 0
    traps: list[Trap] = field(default_factory=list)
    end: Trap = field(default_factory=Trap)


_TRAP = Records(Trap, [("kind", "s", 79), ("y", "B"), ("x", "B"), ("power", "B"),
                       ("timeout", "B"), ("flags", "y", "trf_size")])


def _rd_trap_list(r: Reader, ctx: Context, path: str) -> TrapList:
    m = TrapList(r.u8(f"{path}.trf_size"))
    start = r.pos
    while (got := _TRAP.read(r, ctx, 1, trf_size=m.trf_size)) is not None:
        t = got[0]
        if t.y == 0 and t.x == 0:
            m.end = t
            return m
        m.traps.append(t)
    r.pos, m.traps = start, []  # something unusual: field by field, for the exact error
    while True:
        p = f"{path}.traps[{len(m.traps)}]"
        t = Trap(read_str(r, f"{p}.kind", 79), r.u8(f"{p}.y"), r.u8(f"{p}.x"), r.u8(f"{p}.power"),
                 r.u8(f"{p}.timeout"), r.bytes(m.trf_size, f"{p}.flags"))
        if t.y == 0 and t.x == 0:
            m.end = t
            return m
        m.traps.append(t)


def _wr_trap_list(m: TrapList, w: Writer, ctx: Context, path: str) -> None:
    w.u8(m.trf_size, f"{path}.trf_size")
    every = [*m.traps, m.end]
    if all((t.y == 0 and t.x == 0) == (i == len(m.traps)) for i, t in enumerate(every)) and \
            _TRAP.write(w, ctx, every, trf_size=m.trf_size):
        return
    for i, t in enumerate(every):
        p = f"{path}.traps[{i}]" if i < len(m.traps) else f"{path}.end"
        if (t.y == 0 and t.x == 0) != (i == len(m.traps)):
            raise FormatError(None, f"{p}.y", "(0, 0) only for the end marker", f"({t.y}, {t.x})")
        write_str(w, t.kind, f"{p}.kind", 79)
        for name in ("y", "x", "power", "timeout"):
            w.u8(getattr(t, name), f"{p}.{name}")
        check_len(t.flags, m.trf_size, f"{p}.flags", "bytes (trf_size)")
        w.bytes(t.flags, f"{p}.flags")


@dataclass(slots=True)
class Traps(BlockModel):
    KIND: ClassVar[str] = "traps-4.2"
    cave: TrapList | None = None
    known_cave: TrapList | None = None


def _rd_traps(r: Reader, ctx: Context) -> Traps:
    if not alive(ctx):
        return Traps()
    return Traps(_rd_trap_list(r, ctx, "cave"), _rd_trap_list(r, ctx, "known_cave"))


def _wr_traps(m: Traps, w: Writer, ctx: Context) -> None:
    if m.cave is not None and m.known_cave is not None:
        _wr_trap_list(m.cave, w, ctx, "cave")
        _wr_trap_list(m.known_cave, w, ctx, "known_cave")


# -- chunks ---------------------------------------------------------------------------------


@dataclass(slots=True)
class Chunk:
    """A level kept in memory (the town, and the levels the player knows)."""

    level: Level = field(default_factory=Level)
    objects: FloorObjects = field(default_factory=FloorObjects)
    monsters: MonsterList = field(default_factory=MonsterList)
    traps: TrapList = field(default_factory=TrapList)


@dataclass(slots=True)
class Chunks(BlockModel):
    KIND: ClassVar[str] = "chunks-4.2"
    chunks: list[Chunk] | None = None


def _rd_chunks(r: Reader, ctx: Context) -> Chunks:
    if not alive(ctx):
        return Chunks()
    if ctx.need("levels_persist", "options"):
        raise LayoutError("chunks of a persistent-levels game store the game's feature count, "
                          "which the save does not hold")
    n = r.count(r.u16("count"), MIN_CHUNK, "chunks", "chunk")
    out = []
    for i in range(n):
        p = f"chunks[{i}]"
        out.append(Chunk(_rd_level(r, ctx, f"{p}.level"), _rd_floor(r, ctx, f"{p}.objects"),
                         _rd_monster_list(r, ctx, f"{p}.monsters"), _rd_trap_list(r, ctx, f"{p}.traps")))
    return Chunks(out)


def _wr_chunks(m: Chunks, w: Writer, ctx: Context) -> None:
    if m.chunks is None:
        return
    w.u16(len(m.chunks), "count")
    for i, c in enumerate(m.chunks):
        p = f"chunks[{i}]"
        _wr_level(c.level, w, ctx, f"{p}.level")
        _wr_floor(c.objects, w, ctx, f"{p}.objects")
        _wr_monster_list(c.monsters, w, ctx, f"{p}.monsters")
        _wr_trap_list(c.traps, w, ctx, f"{p}.traps")


_layout("gear", Gear, _rd_gear, _wr_gear)
_layout("stores", Stores, _rd_stores, _wr_stores)
_layout("dungeon", Dungeon, _rd_dungeon, _wr_dungeon)
_layout("objects", Objects, _rd_objects, _wr_objects)
_layout("monsters", Monsters, _rd_monsters, _wr_monsters)
_layout("traps", Traps, _rd_traps, _wr_traps)
_layout("chunks", Chunks, _rd_chunks, _wr_chunks)
