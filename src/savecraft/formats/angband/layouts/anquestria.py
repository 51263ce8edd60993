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

from dataclasses import dataclass, field
from typing import ClassVar

from ....binary import Reader, Record, Writer
from ....errors import FormatError
from . import BlockModel, Context, Layout, character, register_layout
from .faangband import Inscription
from .faangband_character import History, read_history_3x, write_history
from .faangband_world import Ghost, _rd_ghost, _wr_ghost
from .items import check_len, read_str, write_str
from .levels import check_rle, read_rle
from .records import Experience, HeldQuantity, Quantity, alive, record_values, set_from_record
from .vanilla40 import MonsterHead

MONSTER_HEAD = Record("3.x/4.0 monster", [
    ("r_idx", "i16"), ("fy", "u8"), ("fx", "u8"), ("hp", "i16"), ("maxhp", "i16"), ("mspeed", "u8"),
    ("energy", "u8")])

VANILLA = frozenset({"VNLA"})
GAME = "Anquestria (Angband 3.x)"
A_MAX = 6
OF_BYTES = 32
MAX_PVALS = 3
RF_BYTES = 32
MONSTER_BLOW_MAX = 4
INVEN_END = 0xFFFF
ITEM_MARK = 0xFFFF
STAT_NAMES = (*character.STAT_NAMES, "chr")


def _layout(name: str, version: int, model: type, decode: object, encode: object) -> None:
    register_layout(Layout(name, version, VANILLA, model, decode, encode, GAME))  # type: ignore[arg-type]


# -- options (version 2) --------------------------------------------------------------------

TERM_MAX = 8


@dataclass(slots=True)
class Options(BlockModel):
    KIND: ClassVar[str] = "options-3.x"
    delay_factor: int = 0
    hitpoint_warn: int = 0
    lazymove_delay: int = 0
    options: dict[str, int] = field(default_factory=dict)
    window_flags: list[int] = field(default_factory=list)
    window_masks: list[int] = field(default_factory=list)


def _rd_options(r: Reader, ctx: Context) -> Options:
    m = Options(r.u8("delay_factor"), r.u8("hitpoint_warn"), r.u16("lazymove_delay"))
    while True:
        at = r.pos
        name = read_str(r, f"options[{len(m.options)}].name", 19)
        if not name:
            break
        if name in m.options:
            r.fail("options", "each option once", f"{name!r} twice", at=at)
        m.options[name] = r.u8(f"options[{name}]")
    m.window_flags = list(r.array("u32", TERM_MAX, "window_flags"))
    m.window_masks = list(r.array("u32", TERM_MAX, "window_masks"))
    ctx.set("randarts", m.options.get("birth_randarts", 0), "options")
    return m


def _wr_options(m: Options, w: Writer, ctx: Context) -> None:
    w.u8(m.delay_factor, "delay_factor")
    w.u8(m.hitpoint_warn, "hitpoint_warn")
    w.u16(m.lazymove_delay, "lazymove_delay")
    for name, value in m.options.items():
        if not name:
            raise FormatError(None, "options", "option names that are not empty", "''")
        write_str(w, name, f"options[{name}]", 19)
        w.u8(value, f"options[{name}]")
    w.u8(0, "end")
    check_len(m.window_flags, TERM_MAX, "window_flags", "terminals")
    check_len(m.window_masks, TERM_MAX, "window_masks", "terminals")
    w.array("u32", m.window_flags, "window_flags")
    w.array("u32", m.window_masks, "window_masks")
    ctx.set("randarts", m.options.get("birth_randarts", 0), "options")


# -- monster memory (version 2), object memory, quests, artifacts (version 2) ---------------

_LORE = Record("3.x monster lore", [
    ("sights", "i16"), ("deaths", "i16"), ("pkills", "i16"), ("tkills", "i16"), ("wake", "u8"),
    ("ignore", "u8"), ("drop_gold", "u8"), ("drop_item", "u8"), ("cast_innate", "u8"),
    ("cast_spell", "u8"), ("blows", f"bytes[{MONSTER_BLOW_MAX}]"), ("flags", f"bytes[{RF_BYTES}]"),
    ("spell_flags", f"bytes[{RF_BYTES}]"), ("max_num", "u8"), ("unused", "bytes[3]")])


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


def _rd_monster_memory(r: Reader, ctx: Context) -> MonsterMemory:
    return MonsterMemory([Lore(*v) for v in r.records(_LORE, r.u16("count"), "races")])


def _wr_monster_memory(m: MonsterMemory, w: Writer, ctx: Context) -> None:
    w.u16(len(m.races), "count")
    for i, lore in enumerate(m.races):
        w.record(_LORE, record_values(lore, _LORE), f"races[{i}]")


@dataclass(slots=True)
class ObjectMemory(BlockModel):
    """Per object kind: aware 1, tried 2, squelch when aware 4, seen 8, squelch unaware 16."""

    KIND: ClassVar[str] = "object-memory-3.x"
    kinds: bytes = b""


def _rd_object_memory(r: Reader, ctx: Context) -> ObjectMemory:
    return ObjectMemory(r.bytes(r.u16("count"), "kinds"))


def _wr_object_memory(m: ObjectMemory, w: Writer, ctx: Context) -> None:
    w.u16(len(m.kinds), "count")
    w.bytes(m.kinds, "kinds")


@dataclass(slots=True)
class Quests(BlockModel):
    """The quest levels (99 and 100 for Sauron and Morgoth), three unused bytes each."""

    KIND: ClassVar[str] = "quests-3.x"
    quests: list[bytes] = field(default_factory=list)


def _rd_quests(r: Reader, ctx: Context) -> Quests:
    n = r.count(r.u16("count"), 4, "quests", "quest")
    return Quests([r.bytes(4, f"quests[{i}]") for i in range(n)])


def _wr_quests(m: Quests, w: Writer, ctx: Context) -> None:
    w.u16(len(m.quests), "count")
    for i, q in enumerate(m.quests):
        w.bytes(q, f"quests[{i}]", size=4)


@dataclass(slots=True)
class Artifacts(BlockModel):
    """Per artifact: created, seen, ever seen and an unused byte, as stored."""

    KIND: ClassVar[str] = "artifacts-3.x"
    artifacts: list[bytes] = field(default_factory=list)


def _rd_artifacts(r: Reader, ctx: Context) -> Artifacts:
    n = r.count(r.u16("count"), 4, "artifacts", "artifact")
    return Artifacts([r.bytes(4, f"artifacts[{i}]") for i in range(n)])


def _wr_artifacts(m: Artifacts, w: Writer, ctx: Context) -> None:
    w.u16(len(m.artifacts), "count")
    for i, a in enumerate(m.artifacts):
        w.bytes(a, f"artifacts[{i}]", size=4)


# -- player (version 2), squelch, misc ------------------------------------------------------

_WHO = Record("3.x player identity", [
    ("prace", "u8"), ("pclass", "u8"), ("psex", "u8"), ("name_suffix", "u8"), ("hitdie", "u8"),
    ("expfact", "u8"), ("age", "i16"), ("height", "i16"), ("weight", "i16")])
_POINTS = Record("3.x gold and points", [
    ("height_birth", "i16"), ("weight_birth", "i16"), ("sc_birth", "i16"), ("au_birth", "i32"),
    ("unused_birth", "bytes[4]"), ("au", "i32"), ("max_exp", "i32"), ("exp", "i32"),
    ("exp_frac", "u16"), ("lev", "i16"), ("mhp", "i16"), ("chp", "i16"), ("chp_frac", "u16"),
    ("msp", "i16"), ("csp", "i16"), ("csp_frac", "u16"), ("max_lev", "i16"), ("max_depth", "i16"),
    ("unused_more", "bytes[8]"), ("sc", "i16"), ("unused_sc", "bytes[2]"), ("food", "i16"),
    ("energy", "i16"), ("word_recall", "i16"), ("see_infra", "i16"), ("confusing", "u8"),
    ("searching", "u8")])


@dataclass(slots=True)
class Player(Experience, BlockModel):
    """The character (``rd_player`` of 3.x): race and class by index, six stats, gold, experience."""

    KIND: ClassVar[str] = "player-3.x"
    STAT_NAMES: ClassVar[tuple[str, ...]] = STAT_NAMES
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


def _rd_player(r: Reader, ctx: Context) -> Player:
    p = Player(read_str(r, "full_name", 31), read_str(r, "died_from", 79), read_str(r, "history", 249))
    set_from_record(p, _WHO, r.record(_WHO))
    p.stat_max = list(r.array("i16", A_MAX, "stat_max"))
    p.stat_cur = list(r.array("i16", A_MAX, "stat_cur"))
    p.stat_birth = list(r.array("i16", A_MAX, "stat_birth"))
    at = r.pos
    set_from_record(p, _POINTS, r.record(_POINTS))
    if not 1 <= p.lev <= character.MAX_LEVEL:
        r.fail("lev", f"a level from 1 to {character.MAX_LEVEL}", str(p.lev), at=at + 28)
    p.timed = list(r.array("i16", r.u8("timed_count"), "timed"))
    p.total_energy = r.u32("total_energy")
    p.resting_turn = r.u32("resting_turn")
    p.future = r.bytes(32, "future")
    return p


def _wr_player(p: Player, w: Writer, ctx: Context) -> None:
    write_str(w, p.full_name, "full_name", 31)
    write_str(w, p.died_from, "died_from", 79)
    write_str(w, p.history, "history", 249)
    w.record(_WHO, record_values(p, _WHO))
    for name in ("stat_max", "stat_cur", "stat_birth"):
        check_len(getattr(p, name), A_MAX, name, "stats")
        w.array("i16", getattr(p, name), name)
    if not 1 <= p.lev <= character.MAX_LEVEL:
        raise FormatError(None, "lev", f"a level from 1 to {character.MAX_LEVEL}", str(p.lev))
    w.record(_POINTS, record_values(p, _POINTS))
    if len(p.timed) > 255:
        raise FormatError(None, "timed", "at most 255 timed effects", str(len(p.timed)))
    w.u8(len(p.timed), "timed_count")
    w.array("i16", p.timed, "timed")
    w.u32(p.total_energy, "total_energy")
    w.u32(p.resting_turn, "resting_turn")
    w.bytes(p.future, "future", size=32)


@dataclass(slots=True)
class Squelch(BlockModel):
    """Quality squelch levels, per ego item its seen flag (2), auto-inscriptions."""

    KIND: ClassVar[str] = "squelch-3.x"
    levels: bytes = b""
    egos: bytes = b""
    inscriptions: list[Inscription] = field(default_factory=list)


def _rd_squelch(r: Reader, ctx: Context) -> Squelch:
    m = Squelch(r.bytes(r.u8("level_count"), "levels"), r.bytes(r.u16("ego_count"), "egos"))
    n = r.count(r.u16("inscription_count"), 3, "inscriptions", "inscription")
    m.inscriptions = [Inscription(r.i16(f"inscriptions[{i}].kind_index"),
                                  read_str(r, f"inscriptions[{i}].text", 79)) for i in range(n)]
    return m


def _wr_squelch(m: Squelch, w: Writer, ctx: Context) -> None:
    w.u8(len(m.levels), "level_count")
    w.bytes(m.levels, "levels")
    w.u16(len(m.egos), "ego_count")
    w.bytes(m.egos, "egos")
    w.u16(len(m.inscriptions), "inscription_count")
    for i, ins in enumerate(m.inscriptions):
        w.i16(ins.kind_index, f"inscriptions[{i}].kind_index")
        write_str(w, ins.text, f"inscriptions[{i}].text", 79)


_MISC = Record("3.x misc", [
    ("randart_version", "u32"), ("seed_randart", "u32"), ("unused_flags", "bytes[12]"),
    ("seed_flavor", "u32"), ("seed_town", "u32"), ("panic_save", "u16"), ("total_winner", "u16"),
    ("noscore", "u16"), ("is_dead", "u8"), ("feeling", "u8"), ("created_at", "i32"), ("turn", "i32")])


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


def _rd_misc(r: Reader, ctx: Context) -> Misc:
    m = Misc(*r.record(_MISC))
    ctx.set("is_dead", m.is_dead, "misc")
    return m


def _wr_misc(m: Misc, w: Writer, ctx: Context) -> None:
    w.record(_MISC, record_values(m, _MISC))
    ctx.set("is_dead", m.is_dead, "misc")


# -- the object record (version 3) ----------------------------------------------------------

_ITEM = Record("3.x object", [
    ("mark", "u16"), ("version", "u8"), ("unused", "bytes[2]"), ("iy", "u8"), ("ix", "u8"),
    ("tval", "u8"), ("sval", "u8"), ("pval", f"bytes[{2 * MAX_PVALS}]"), ("num_pvals", "u8"),
    ("pseudo_id", "u8"), ("number", "u8"), ("weight", "i16"), ("art_idx", "u8"), ("ego_idx", "u8"),
    ("timeout", "i16"), ("to_h", "i16"), ("to_d", "i16"), ("to_a", "i16"), ("ac", "i16"),
    ("dd", "u8"), ("ds", "u8"), ("ident", "u16"), ("marked", "u8"), ("origin", "u8"),
    ("origin_depth", "u8"), ("origin_xtra", "u16"), ("flags", f"bytes[{OF_BYTES}]"),
    ("known_flags", f"bytes[{OF_BYTES}]"), ("pval_flags", f"bytes[{MAX_PVALS * OF_BYTES}]"),
    ("held_m_idx", "i16")])


@dataclass(slots=True)
class Item(Quantity):
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


def read_item(r: Reader, path: str) -> Item:
    at = r.pos
    it = Item(*r.record(_ITEM, path))
    if it.mark != ITEM_MARK:
        r.fail(f"{path}.mark", "0xFFFF, the mark that starts an object", f"0x{it.mark:04X}", at=at)
    it.inscription = read_str(r, f"{path}.inscription")
    return it


def write_item(it: Item, w: Writer, path: str) -> None:
    if it.mark != ITEM_MARK:
        raise FormatError(None, f"{path}.mark", "0xFFFF", f"0x{it.mark:04X}")
    w.record(_ITEM, record_values(it, _ITEM), path)
    write_str(w, it.inscription, f"{path}.inscription")


MIN_ITEM = _ITEM.size + 1


@dataclass(slots=True)
class InventoryItem(HeldQuantity):
    slot: int = 0
    item: Item = field(default_factory=Item)


@dataclass(slots=True)
class Inventory(BlockModel):
    """The pack and equipment by inventory slot (``rd_inventory_3``)."""

    KIND: ClassVar[str] = "inventory-3.x"
    items: list[InventoryItem] = field(default_factory=list)


def _rd_inventory(r: Reader, ctx: Context) -> Inventory:
    m = Inventory()
    while True:
        slot = r.u16(f"items[{len(m.items)}].slot")
        if slot == INVEN_END:
            return m
        m.items.append(InventoryItem(slot, read_item(r, f"items[{len(m.items)}]")))


def _wr_inventory(m: Inventory, w: Writer, ctx: Context) -> None:
    for i, it in enumerate(m.items):
        if it.slot == INVEN_END:
            raise FormatError(None, f"items[{i}].slot", "a slot below 0xFFFF", "0xFFFF")
        w.u16(it.slot, f"items[{i}].slot")
        write_item(it.item, w, f"items[{i}]")
    w.u16(INVEN_END, "end")


@dataclass(slots=True)
class Store:
    unused_head: bytes = b"\0" * 6
    owner: int = 0
    unused_tail: bytes = b"\0" * 4
    stock: list[Item] = field(default_factory=list)


@dataclass(slots=True)
class Stores(BlockModel):
    KIND: ClassVar[str] = "stores-3.x"
    stores: list[Store] = field(default_factory=list)


def _rd_stores(r: Reader, ctx: Context) -> Stores:
    n = r.count(r.u16("count"), 12, "stores", "store")
    m = Stores()
    for i in range(n):
        p = f"stores[{i}]"
        s = Store(r.bytes(6, f"{p}.unused_head"), r.u8(f"{p}.owner"))
        k = r.u8(f"{p}.count")
        s.unused_tail = r.bytes(4, f"{p}.unused_tail")
        r.count(k, MIN_ITEM, f"{p}.stock", "object")
        s.stock = [read_item(r, f"{p}.stock[{j}]") for j in range(k)]
        m.stores.append(s)
    return m


def _wr_stores(m: Stores, w: Writer, ctx: Context) -> None:
    w.u16(len(m.stores), "count")
    for i, s in enumerate(m.stores):
        p = f"stores[{i}]"
        w.bytes(s.unused_head, f"{p}.unused_head", size=6)
        w.u8(s.owner, f"{p}.owner")
        if len(s.stock) > 255:
            raise FormatError(None, f"{p}.stock", "at most 255 objects", str(len(s.stock)))
        w.u8(len(s.stock), f"{p}.count")
        w.bytes(s.unused_tail, f"{p}.unused_tail", size=4)
        for j, it in enumerate(s.stock):
            write_item(it, w, f"{p}.stock[{j}]")


# -- dungeon, objects, monsters -------------------------------------------------------------

_LEVEL = Record("3.x level header", [
    ("depth", "i16"), ("daycount", "u16"), ("py", "i16"), ("px", "i16"), ("height", "i16"),
    ("width", "i16"), ("unused", "bytes[4]")])


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


def _check_present(present: bool, ctx: Context, what: str) -> None:
    if present != alive(ctx):
        raise FormatError(None, "present", f"{what} exactly when the character is alive", repr(present))


def _rd_dungeon(r: Reader, ctx: Context) -> Dungeon:
    if not alive(ctx):
        return Dungeon(present=False)
    at = r.pos
    m = Dungeon(*r.record(_LEVEL))
    if m.height <= 0 or m.width <= 0 or not (0 <= m.py < m.height and 0 <= m.px < m.width):
        r.fail("py", "a player inside the level", f"({m.py}, {m.px}) in {m.height} x {m.width}", at=at)
    cells = m.height * m.width
    m.info, m.info2, m.feat = (read_rle(r, cells, name) for name in ("info", "info2", "feat"))
    return m


def _wr_dungeon(m: Dungeon, w: Writer, ctx: Context) -> None:
    _check_present(m.present, ctx, "a level")
    if not m.present:
        return
    w.record(_LEVEL, record_values(m, _LEVEL))
    cells = m.height * m.width
    for name in ("info", "info2", "feat"):
        check_rle(getattr(m, name), cells, name)
        w.bytes(getattr(m, name), name)


@dataclass(slots=True)
class Objects(BlockModel):
    """The objects on the level (slot 0 is never used, so ``o_max`` is one more than listed)."""

    KIND: ClassVar[str] = "objects-3.x"
    objects: list[Item] = field(default_factory=list)
    present: bool = True


def _rd_objects(r: Reader, ctx: Context) -> Objects:
    if not alive(ctx):
        return Objects(present=False)
    n = r.count(max(r.u16("o_max") - 1, 0), MIN_ITEM, "objects", "object")
    return Objects([read_item(r, f"objects[{i}]") for i in range(n)])


def _wr_objects(m: Objects, w: Writer, ctx: Context) -> None:
    _check_present(m.present, ctx, "objects")
    if not m.present:
        return
    w.u16(len(m.objects) + 1, "o_max")
    for i, it in enumerate(m.objects):
        write_item(it, w, f"objects[{i}]")


_MONSTER = MONSTER_HEAD


@dataclass(slots=True)
class Monster(MonsterHead):
    """One monster (``rd_monsters_5``): what ``MonsterHead`` says, the unaware flag, and what it
    knows of the player's flags."""

    flags: int = 0
    known_pflags: bytes = b"\0" * OF_BYTES
    unused: int = 0


@dataclass(slots=True)
class Monsters(BlockModel):
    KIND: ClassVar[str] = "monsters-3.x"
    monsters: list[Monster] = field(default_factory=list)
    present: bool = True


def _rd_monsters(r: Reader, ctx: Context) -> Monsters:
    if not alive(ctx):
        return Monsters(present=False)
    n = r.count(max(r.u16("m_max") - 1, 0), _MONSTER.size + 3 + OF_BYTES, "monsters", "monster")
    m = Monsters()
    for i in range(n):
        p = f"monsters[{i}]"
        mon = Monster(*r.record(_MONSTER, p))
        mon.timed = list(r.array("i16", r.u8(f"{p}.timed_count"), f"{p}.timed"))
        mon.flags = r.u8(f"{p}.flags")
        mon.known_pflags = r.bytes(OF_BYTES, f"{p}.known_pflags")
        mon.unused = r.u8(f"{p}.unused")
        m.monsters.append(mon)
    return m


def _wr_monsters(m: Monsters, w: Writer, ctx: Context) -> None:
    _check_present(m.present, ctx, "monsters")
    if not m.present:
        return
    w.u16(len(m.monsters) + 1, "m_max")
    for i, mon in enumerate(m.monsters):
        p = f"monsters[{i}]"
        w.record(_MONSTER, record_values(mon, _MONSTER), p)
        if len(mon.timed) > 255:
            raise FormatError(None, f"{p}.timed", "at most 255 timed effects", str(len(mon.timed)))
        w.u8(len(mon.timed), f"{p}.timed_count")
        w.array("i16", mon.timed, f"{p}.timed")
        w.u8(mon.flags, f"{p}.flags")
        w.bytes(mon.known_pflags, f"{p}.known_pflags", size=OF_BYTES)
        w.u8(mon.unused, f"{p}.unused")


# -- random artifacts (version 2) --------------------------------------------------

_RANDART = Record("3.x random artifact", [
    ("tval", "u8"), ("sval", "u8"), ("pval", f"bytes[{2 * MAX_PVALS}]"), ("num_pvals", "u8"),
    ("to_h", "i16"), ("to_d", "i16"), ("to_a", "i16"), ("ac", "i16"), ("dd", "u8"), ("ds", "u8"),
    ("weight", "i16"), ("cost", "i32"), ("flags", f"bytes[{OF_BYTES}]"),
    ("pval_flags", f"bytes[{MAX_PVALS * OF_BYTES}]"), ("level", "u8"), ("rarity", "u8"),
    ("alloc_prob", "u8"), ("alloc_min", "u8"), ("alloc_max", "u8"), ("effect", "u16"),
    ("time_base", "u16"), ("time_dice", "u16"), ("time_sides", "u16")])


@dataclass(slots=True)
class Randarts(BlockModel):
    """The random artifacts, each the raw record (``rd_randarts_2``); None without birth_randarts,
    when the game writes nothing."""

    KIND: ClassVar[str] = "randarts-3.x"
    artifacts: list[bytes] | None = None


def _rd_randarts(r: Reader, ctx: Context) -> Randarts:
    if not ctx.need("randarts", "options"):
        return Randarts()
    n = r.u16("count")
    return Randarts([bytes(r.bytes(_RANDART.size, f"artifacts[{i}]"))
                     for i in range(r.count(n, _RANDART.size, "artifacts", "artifact"))])


def _wr_randarts(m: Randarts, w: Writer, ctx: Context) -> None:
    if bool(ctx.need("randarts", "options")) != (m.artifacts is not None):
        raise FormatError(None, "artifacts", "random artifacts exactly when birth_randarts is on",
                          repr(m.artifacts is not None))
    if m.artifacts is not None:
        w.u16(len(m.artifacts), "count")
        for i, a in enumerate(m.artifacts):
            w.bytes(a, f"artifacts[{i}]", size=_RANDART.size)


for _name, _version, _model, _dec, _enc in (
        ("rng", 1, character.Rng, character.RNG.read, character.RNG.write),
        ("options", 2, Options, _rd_options, _wr_options),
        ("messages", 1, character.Messages, character.MESSAGES.read, character.MESSAGES.write),
        ("monster memory", 2, MonsterMemory, _rd_monster_memory, _wr_monster_memory),
        ("object memory", 1, ObjectMemory, _rd_object_memory, _wr_object_memory),
        ("quests", 1, Quests, _rd_quests, _wr_quests),
        ("artifacts", 2, Artifacts, _rd_artifacts, _wr_artifacts),
        ("player", 2, Player, _rd_player, _wr_player),
        ("squelch", 1, Squelch, _rd_squelch, _wr_squelch),
        ("misc", 1, Misc, _rd_misc, _wr_misc),
        ("player hp", 1, character.PlayerHp, character.PLAYER_HP.read, character.PLAYER_HP.write),
        ("player spells", 1, character.PlayerSpells, character.PLAYER_SPELLS.read, character.PLAYER_SPELLS.write),
        ("randarts", 2, Randarts, _rd_randarts, _wr_randarts),
        ("inventory", 3, Inventory, _rd_inventory, _wr_inventory),
        ("stores", 3, Stores, _rd_stores, _wr_stores),
        ("dungeon", 1, Dungeon, _rd_dungeon, _wr_dungeon),
        ("objects", 3, Objects, _rd_objects, _wr_objects),
        ("monsters", 5, Monsters, _rd_monsters, _wr_monsters),
        ("ghost", 1, Ghost, _rd_ghost, _wr_ghost),
        ("history", 1, History, read_history_3x, write_history)):
    _layout(_name, _version, _model, _dec, _enc)
