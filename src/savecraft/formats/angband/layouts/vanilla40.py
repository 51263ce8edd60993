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

from ....binary import Reader, Record, Writer
from ....errors import FormatError
from . import BlockModel, Context, Layout, character, register_layout
from .faangband import Inscription
from .items import check_len, read_str, write_str
from .levels import check_rle, read_rle
from .records import Experience, HeldQuantity, Quantity, alive, record_values, set_from_record

VANILLA = frozenset({"VNLA"})
GAME = "Vanilla 4.0"
NO_MORE_MONSTERS = "No more monsters"  # the monster memory's end marker
FINISHED_CODE = 0xFF
ITEM_MARK = 0xFFFF


def _layout(name: str, model: type, decode: object, encode: object) -> None:
    register_layout(Layout(name, 1, VANILLA, model, decode, encode, GAME))  # type: ignore[arg-type]


# -- options --------------------------------------------------------------------------------


@dataclass(slots=True)
class Options(BlockModel):
    KIND: ClassVar[str] = "options-4.0"
    delay_factor: int = 0
    hitpoint_warn: int = 0
    lazymove_delay: int = 0
    options: dict[str, int] = field(default_factory=dict)


def _rd_options(r: Reader, ctx: Context) -> Options:
    m = Options(r.u8("delay_factor"), r.u8("hitpoint_warn"), r.u16("lazymove_delay"))
    while True:
        at = r.pos
        name = read_str(r, f"options[{len(m.options)}].name", 19)
        if not name:
            return m
        if name in m.options:
            r.fail("options", "each option once", f"{name!r} twice", at=at)
        m.options[name] = r.u8(f"options[{name}]")


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


# -- monster memory -------------------------------------------------------------------------


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


def _rd_monster_memory(r: Reader, ctx: Context) -> MonsterMemory:
    m = MonsterMemory(r.u8("mflag_size"))
    ctx.set("mflag_size", m.mflag_size, "monster memory")
    while True:
        p = f"kills[{len(m.kills)}]"
        race = read_str(r, f"{p}.race")
        if race == NO_MORE_MONSTERS:
            return m
        m.kills.append(Kills(race, r.u16(f"{p}.pkills")))


def _wr_monster_memory(m: MonsterMemory, w: Writer, ctx: Context) -> None:
    w.u8(m.mflag_size, "mflag_size")
    ctx.set("mflag_size", m.mflag_size, "monster memory")
    for i, k in enumerate(m.kills):
        if k.race == NO_MORE_MONSTERS:
            raise FormatError(None, f"kills[{i}].race", "a monster race name", repr(k.race))
        write_str(w, k.race, f"kills[{i}].race")
        w.u16(k.pkills, f"kills[{i}].pkills")
    write_str(w, NO_MORE_MONSTERS, "end")


# -- object memory, artifacts, ignore -------------------------------------------------------

_SIZES = ("of_size", "id_size", "obj_mod_max", "elem_max")


@dataclass(slots=True)
class ObjectMemory(BlockModel):
    """Sizes later blocks use, then per object kind: aware 1, tried 2, ignore 4, seen 8, ignore unaware 16."""

    KIND: ClassVar[str] = "object-memory-4.0"
    of_size: int = 0
    id_size: int = 0
    obj_mod_max: int = 0
    elem_max: int = 0
    kinds: bytes = b""


def _rd_object_memory(r: Reader, ctx: Context) -> ObjectMemory:
    n = r.u16("count")
    of_size, id_size, obj_mod_max, elem_max = r.array("u8", 4, "sizes")
    m = ObjectMemory(of_size, id_size, obj_mod_max, elem_max)
    for name in _SIZES:
        ctx.set(name, getattr(m, name), "object memory")
    m.kinds = r.bytes(n, "kinds")
    return m


def _wr_object_memory(m: ObjectMemory, w: Writer, ctx: Context) -> None:
    w.u16(len(m.kinds), "count")
    w.array("u8", [getattr(m, n) for n in _SIZES], "sizes")
    for name in _SIZES:
        ctx.set(name, getattr(m, name), "object memory")
    w.bytes(m.kinds, "kinds")


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


def _rd_artifacts(r: Reader, ctx: Context) -> Artifacts:
    n = r.u16("count")
    rows = r.bytes(4 * r.count(n, 4, "artifacts", "artifact"), "artifacts")
    return Artifacts([ArtifactState(*rows[i:i + 4]) for i in range(0, len(rows), 4)])


def _wr_artifacts(m: Artifacts, w: Writer, ctx: Context) -> None:
    w.u16(len(m.artifacts), "count")
    for i, a in enumerate(m.artifacts):
        w.array("u8", [a.created, a.seen, a.everseen, a.unused], f"artifacts[{i}]")


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


def _rd_ignore(r: Reader, ctx: Context) -> Ignore:
    m = Ignore(r.bytes(r.u8("level_count"), "levels"))
    n = r.u16("ego_count")
    m.itype_size = r.u16("itype_size")
    r.count(n, 1 + m.itype_size, "egos", "ego")
    m.egos = [EgoIgnore(r.u8(f"egos[{i}].flags"), r.bytes(m.itype_size, f"egos[{i}].itypes"))
              for i in range(n)]
    n = r.count(r.u16("inscription_count"), 3, "inscriptions", "inscription")
    m.inscriptions = [Inscription(r.i16(f"inscriptions[{i}].kind_index"),
                                  read_str(r, f"inscriptions[{i}].text", 79)) for i in range(n)]
    return m


def _wr_ignore(m: Ignore, w: Writer, ctx: Context) -> None:
    w.u8(len(m.levels), "level_count")
    w.bytes(m.levels, "levels")
    w.u16(len(m.egos), "ego_count")
    w.u16(m.itype_size, "itype_size")
    for i, e in enumerate(m.egos):
        w.u8(e.flags, f"egos[{i}].flags")
        w.bytes(e.itypes, f"egos[{i}].itypes", size=m.itype_size)
    w.u16(len(m.inscriptions), "inscription_count")
    for i, ins in enumerate(m.inscriptions):
        w.i16(ins.kind_index, f"inscriptions[{i}].kind_index")
        write_str(w, ins.text, f"inscriptions[{i}].text", 79)


# -- player ---------------------------------------------------------------------------------

_WHO = Record("4.0 player identity", [
    ("prace", "u8"), ("pclass", "u8"), ("name_suffix", "u8"), ("hitdie", "u8"), ("expfact", "u8"),
    ("age", "i16"), ("height", "i16"), ("weight", "i16")])
_POINTS = Record("4.0 gold and points", [
    ("au", "i32"), ("max_exp", "i32"), ("exp", "i32"), ("exp_frac", "u16"), ("lev", "i16"),
    ("mhp", "i16"), ("chp", "i16"), ("chp_frac", "u16"), ("msp", "i16"), ("csp", "i16"),
    ("csp_frac", "u16"), ("max_lev", "i16"), ("max_depth", "i16"), ("unused_more", "bytes[9]"),
    ("unignoring", "u8"), ("deep_descent", "i16"), ("food", "i16"), ("energy", "i16"),
    ("word_recall", "i16"), ("confusing", "u8"), ("searching", "u8")])


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


def _rd_player(r: Reader, ctx: Context) -> Player:
    p = Player(read_str(r, "full_name", 31), read_str(r, "died_from", 79), read_str(r, "history", 249))
    set_from_record(p, _WHO, r.record(_WHO))
    at = r.pos
    n = r.u8("stat_count")
    if n > len(character.STAT_NAMES):
        r.fail("stat_count", f"at most {len(character.STAT_NAMES)} stats", str(n), at=at)
    p.stat_max = list(r.array("i16", n, "stat_max"))
    p.stat_cur = list(r.array("i16", n, "stat_cur"))
    p.stat_birth = list(r.array("i16", n, "stat_birth"))
    p.height_birth, p.weight_birth, p.unused_birth = r.array("i16", 3, "height_birth")
    p.au_birth = r.i32("au_birth")
    p.body_name = read_str(r, "body_name", 79)
    n = r.count(r.u16("body_count"), 3, "body", "slot")
    p.body = [character.BodySlot(r.u16(f"body[{i}].type"), read_str(r, f"body[{i}].name", 79))
              for i in range(n)]
    p.unused_body = r.u32("unused_body")
    at = r.pos
    set_from_record(p, _POINTS, r.record(_POINTS))
    if not 1 <= p.lev <= character.MAX_LEVEL:
        r.fail("lev", f"a level from 1 to {character.MAX_LEVEL}", str(p.lev), at=at + 14)
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
    n = len(p.stat_max)
    if n > len(character.STAT_NAMES):
        raise FormatError(None, "stat_max", f"at most {len(character.STAT_NAMES)} stats", str(n))
    w.u8(n, "stat_count")
    for name in ("stat_max", "stat_cur", "stat_birth"):
        check_len(getattr(p, name), n, name, "stats (one per stat in stat_max)")
        w.array("i16", getattr(p, name), name)
    w.array("i16", [p.height_birth, p.weight_birth, p.unused_birth], "height_birth")
    w.i32(p.au_birth, "au_birth")
    write_str(w, p.body_name, "body_name", 79)
    w.u16(len(p.body), "body_count")
    for i, s in enumerate(p.body):
        w.u16(s.type, f"body[{i}].type")
        write_str(w, s.name, f"body[{i}].name", 79)
    w.u32(p.unused_body, "unused_body")
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


# -- misc, history --------------------------------------------------------------------------

_MISC = Record("4.0 misc", [
    ("seed_randart", "u32"), ("seed_flavor", "u32"), ("total_winner", "u16"), ("noscore", "u16"),
    ("is_dead", "u8"), ("turn", "i32")])


@dataclass(slots=True)
class Misc(BlockModel):
    KIND: ClassVar[str] = "misc-4.0"
    seed_randart: int = 0
    seed_flavor: int = 0
    total_winner: int = 0
    noscore: int = 0
    is_dead: int = 0
    turn: int = 0


def _rd_misc(r: Reader, ctx: Context) -> Misc:
    m = Misc(*r.record(_MISC))
    ctx.set("is_dead", m.is_dead, "misc")
    return m


def _wr_misc(m: Misc, w: Writer, ctx: Context) -> None:
    w.record(_MISC, record_values(m, _MISC))
    ctx.set("is_dead", m.is_dead, "misc")


_ENTRY = Record("4.0 history entry", [("turn", "i32"), ("dlev", "i16"), ("clev", "i16"), ("a_idx", "u8")])


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


def _rd_history(r: Reader, ctx: Context) -> History:
    m = History(r.u8("hist_size"))
    n = r.count(r.u32("count"), m.hist_size + _ENTRY.size + 1, "entries", "entry")
    for i in range(n):
        e = HistoryEntry(r.bytes(m.hist_size, f"entries[{i}].type"), *r.record(_ENTRY, f"entries[{i}]"))
        e.event = read_str(r, f"entries[{i}].event", 79)
        m.entries.append(e)
    return m


def _wr_history(m: History, w: Writer, ctx: Context) -> None:
    w.u8(m.hist_size, "hist_size")
    w.u32(len(m.entries), "count")
    for i, e in enumerate(m.entries):
        w.bytes(e.type, f"entries[{i}].type", size=m.hist_size)
        w.record(_ENTRY, record_values(e, _ENTRY), f"entries[{i}]")
        write_str(w, e.event, f"entries[{i}].event", 79)


# -- the object record ----------------------------------------------------------------------

_ITEM_HEAD = Record("4.0 object", [
    ("version", "u8"), ("iy", "u8"), ("ix", "u8"), ("tval", "u8"), ("sval", "u8"), ("pval", "i16"),
    ("number", "u8"), ("weight", "i16"), ("art_idx", "u8"), ("ego_idx", "u8"), ("timeout", "i16"),
    ("to_h", "i16"), ("to_d", "i16"), ("to_a", "i16"), ("ac", "i16"), ("dd", "u8"), ("ds", "u8"),
    ("marked", "u8"), ("origin", "u8"), ("origin_depth", "u8"), ("origin_xtra", "u16"),
    ("ignore", "u8")])
_ITEM_TAIL = Record("4.0 object activation", [
    ("held_m_idx", "i16"), ("mimicking_m_idx", "i16"), ("activation", "u16"), ("time_base", "u16"),
    ("time_dice", "u16"), ("time_sides", "u16")])


@dataclass(slots=True)
class Multiplier:
    """A brand (``code`` is the element) or slay (``code`` the race flag) and whether it is known."""

    name: str = ""
    code: int = 0
    multiplier: int = 0
    known: int = 0


@dataclass(slots=True)
class Item(Quantity):
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

    @property
    def note(self) -> str:
        return self.inscription

    @note.setter
    def note(self, value: str) -> None:
        self.inscription = value


def _rd_multipliers(r: Reader, path: str) -> list[Multiplier]:
    out: list[Multiplier] = []
    while r.u8(f"{path}[{len(out)}].more"):
        p = f"{path}[{len(out)}]"
        out.append(Multiplier(read_str(r, f"{p}.name", 39), r.i16(f"{p}.code"), r.i16(f"{p}.multiplier"),
                              r.u8(f"{p}.known")))
    return out


def _wr_multipliers(values: list[Multiplier], w: Writer, path: str) -> None:
    for i, b in enumerate(values):
        p = f"{path}[{i}]"
        w.u8(1, f"{p}.more")
        write_str(w, b.name, f"{p}.name", 39)
        w.i16(b.code, f"{p}.code")
        w.i16(b.multiplier, f"{p}.multiplier")
        w.u8(b.known, f"{p}.known")
    w.u8(0, f"{path}.end")


def read_item(r: Reader, ctx: Context, path: str) -> Item:
    at = r.pos
    mark = r.u16(f"{path}.mark")
    if mark != ITEM_MARK:
        r.fail(f"{path}.mark", "0xFFFF, the mark that starts an object", f"0x{mark:04X}", at=at)
    it = Item(*r.record(_ITEM_HEAD, path))
    of, ids = ctx.need("of_size", "object memory"), ctx.need("id_size", "object memory")
    it.flags = r.bytes(of, f"{path}.flags")
    it.known_flags = r.bytes(of, f"{path}.known_flags")
    it.id_flags = r.bytes(ids, f"{path}.id_flags")
    it.modifiers = list(r.array("i16", ctx.need("obj_mod_max", "object memory"), f"{path}.modifiers"))
    it.brands = _rd_multipliers(r, f"{path}.brands")
    it.slays = _rd_multipliers(r, f"{path}.slays")
    it.elements = [(r.i16(f"{path}.elements[{i}].res_level"), r.u8(f"{path}.elements[{i}].flags"))
                   for i in range(ctx.need("elem_max", "object memory"))]
    set_from_record(it, _ITEM_TAIL, r.record(_ITEM_TAIL, path))
    it.inscription = read_str(r, f"{path}.inscription")
    return it


def write_item(it: Item, w: Writer, ctx: Context, path: str) -> None:
    w.u16(ITEM_MARK, f"{path}.mark")
    w.record(_ITEM_HEAD, record_values(it, _ITEM_HEAD), path)
    of, ids = ctx.need("of_size", "object memory"), ctx.need("id_size", "object memory")
    w.bytes(it.flags, f"{path}.flags", size=of)
    w.bytes(it.known_flags, f"{path}.known_flags", size=of)
    w.bytes(it.id_flags, f"{path}.id_flags", size=ids)
    check_len(it.modifiers, ctx.need("obj_mod_max", "object memory"), f"{path}.modifiers", "values")
    w.array("i16", it.modifiers, f"{path}.modifiers")
    _wr_multipliers(it.brands, w, f"{path}.brands")
    _wr_multipliers(it.slays, w, f"{path}.slays")
    check_len(it.elements, ctx.need("elem_max", "object memory"), f"{path}.elements", "elements")
    for i, (level, flags) in enumerate(it.elements):
        w.i16(level, f"{path}.elements[{i}].res_level")
        w.u8(flags, f"{path}.elements[{i}].flags")
    w.record(_ITEM_TAIL, record_values(it, _ITEM_TAIL), path)
    write_str(w, it.inscription, f"{path}.inscription")


def _min_item(ctx: Context) -> int:
    return (2 + _ITEM_HEAD.size + 2 * ctx.need("of_size", "object memory")
            + ctx.need("id_size", "object memory") + 2 * ctx.need("obj_mod_max", "object memory")
            + 2 + 3 * ctx.need("elem_max", "object memory") + _ITEM_TAIL.size + 1)


@dataclass(slots=True)
class ItemList:
    """Objects up to the "dummy" one of no kind (tval and sval 0) that ends the list (kept in ``end``)."""

    items: list[Item] = field(default_factory=list)
    end: Item = field(default_factory=Item)


def _rd_item_list(r: Reader, ctx: Context, path: str) -> ItemList:
    out = ItemList()
    while True:
        it = read_item(r, ctx, f"{path}.items[{len(out.items)}]")
        if it.is_marker:
            out.end = it
            return out
        out.items.append(it)


def _wr_item_list(m: ItemList, w: Writer, ctx: Context, path: str) -> None:
    for i, it in enumerate([*m.items, m.end]):
        p = f"{path}.items[{i}]" if i < len(m.items) else f"{path}.end"
        if it.is_marker != (i == len(m.items)):
            raise FormatError(None, f"{p}.tval", "an object kind (tval and sval 0 only for the end marker)",
                              f"{it.tval}, {it.sval}")
        write_item(it, w, ctx, p)


# -- gear, stores ---------------------------------------------------------------------------


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


def _rd_gear_list(r: Reader, ctx: Context, path: str) -> list[GearItem]:
    out: list[GearItem] = []
    while True:
        code = r.u8(f"{path}[{len(out)}].slot")
        if code == FINISHED_CODE:
            return out
        out.append(GearItem(code, read_item(r, ctx, f"{path}[{len(out)}]")))


def _wr_gear_list(items: list[GearItem], w: Writer, ctx: Context, path: str) -> None:
    for i, g in enumerate(items):
        if g.slot == FINISHED_CODE:
            raise FormatError(None, f"{path}[{i}].slot", "a slot below 255", "255")
        w.u8(g.slot, f"{path}[{i}].slot")
        write_item(g.item, w, ctx, f"{path}[{i}]")
    w.u8(FINISHED_CODE, f"{path}.end")


def _rd_gear(r: Reader, ctx: Context) -> Gear:
    return Gear(_rd_gear_list(r, ctx, "items"), _rd_gear_list(r, ctx, "known"))


def _wr_gear(m: Gear, w: Writer, ctx: Context) -> None:
    _wr_gear_list(m.items, w, ctx, "items")
    _wr_gear_list(m.known, w, ctx, "known")


@dataclass(slots=True)
class Store:
    owner: int = 0
    stock: list[Item] = field(default_factory=list)


@dataclass(slots=True)
class Stores(BlockModel):
    """The town's stores in the game's store.txt order (the home is one of them)."""

    KIND: ClassVar[str] = "stores-4.0"
    stores: list[Store] = field(default_factory=list)


def _rd_stores(r: Reader, ctx: Context) -> Stores:
    n = r.count(r.u16("count"), 2, "stores", "store")
    m = Stores()
    small = _min_item(ctx)
    for i in range(n):
        s = Store(r.u8(f"stores[{i}].owner"))
        k = r.count(r.u8(f"stores[{i}].count"), small, f"stores[{i}].stock", "object")
        s.stock = [read_item(r, ctx, f"stores[{i}].stock[{j}]") for j in range(k)]
        m.stores.append(s)
    return m


def _wr_stores(m: Stores, w: Writer, ctx: Context) -> None:
    w.u16(len(m.stores), "count")
    for i, s in enumerate(m.stores):
        w.u8(s.owner, f"stores[{i}].owner")
        if len(s.stock) > 255:
            raise FormatError(None, f"stores[{i}].stock", "at most 255 objects", str(len(s.stock)))
        w.u8(len(s.stock), f"stores[{i}].count")
        for j, it in enumerate(s.stock):
            write_item(it, w, ctx, f"stores[{i}].stock[{j}]")


# -- levels: dungeon, objects, monsters, traps, chunks --------------------------------------


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


def _rd_level(r: Reader, ctx: Context, path: str) -> Level:
    lv = Level(read_str(r, f"{path}.name", 99), r.u16(f"{path}.height"), r.u16(f"{path}.width"))
    cells = lv.height * lv.width
    lv.info = [read_rle(r, cells, f"{path}.info[{n}]") for n in range(ctx.need("square_size", "dungeon"))]
    lv.feat = read_rle(r, cells, f"{path}.feat")
    lv.feeling = r.u8(f"{path}.feeling")
    lv.feeling_squares = r.u16(f"{path}.feeling_squares")
    lv.created_at = r.i32(f"{path}.created_at")
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
    w.i32(lv.created_at, f"{path}.created_at")


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


def _rd_dungeon(r: Reader, ctx: Context) -> Dungeon:
    if not alive(ctx):
        return Dungeon()
    depth, daycount, py, px = r.array("u16", 4, "depth")
    m = Dungeon(depth, daycount, py, px, r.u8("square_size"))
    ctx.set("square_size", m.square_size, "dungeon")
    m.cave = _rd_level(r, ctx, "cave")
    if m.py >= m.cave.height or m.px >= m.cave.width:
        r.fail("py", f"a player inside the {m.cave.height} x {m.cave.width} level", f"({m.py}, {m.px})")
    m.known_cave = _rd_level(r, ctx, "known_cave")
    return m


def _wr_dungeon(m: Dungeon, w: Writer, ctx: Context) -> None:
    if alive(ctx) != (m.cave is not None and m.known_cave is not None):
        raise FormatError(None, "cave", "the two levels exactly when the character is alive",
                          repr(m.cave is not None))
    if m.cave is None or m.known_cave is None:
        return
    w.array("u16", [m.depth, m.daycount, m.py, m.px], "depth")
    w.u8(m.square_size, "square_size")
    ctx.set("square_size", m.square_size, "dungeon")
    _wr_level(m.cave, w, ctx, "cave")
    _wr_level(m.known_cave, w, ctx, "known_cave")


@dataclass(slots=True)
class Objects(BlockModel):
    KIND: ClassVar[str] = "objects-4.0"
    cave: ItemList | None = None
    known_cave: ItemList | None = None


def _rd_objects(r: Reader, ctx: Context) -> Objects:
    if not alive(ctx):
        return Objects()
    return Objects(_rd_item_list(r, ctx, "cave"), _rd_item_list(r, ctx, "known_cave"))


def _wr_objects(m: Objects, w: Writer, ctx: Context) -> None:
    if alive(ctx) != (m.cave is not None and m.known_cave is not None):
        raise FormatError(None, "cave", "objects exactly when the character is alive", repr(m.cave))
    if m.cave is not None and m.known_cave is not None:
        _wr_item_list(m.cave, w, ctx, "cave")
        _wr_item_list(m.known_cave, w, ctx, "known_cave")


MONSTER_HEAD = Record("3.x/4.0 monster", [
    ("r_idx", "i16"), ("fy", "u8"), ("fx", "u8"), ("hp", "i16"), ("maxhp", "i16"), ("mspeed", "u8"),
    ("energy", "u8")])
_MONSTER = MONSTER_HEAD


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


def _rd_monster(r: Reader, ctx: Context, p: str) -> Monster:
    m = Monster(*r.record(_MONSTER, p))
    m.timed = list(r.array("i16", r.u8(f"{p}.timed_count"), f"{p}.timed"))
    m.mflag = r.bytes(ctx.need("mflag_size", "monster memory"), f"{p}.mflag")
    m.known_flags = r.bytes(ctx.need("of_size", "object memory"), f"{p}.known_flags")
    m.known_res = list(r.array("i16", ctx.need("elem_max", "object memory"), f"{p}.known_res"))
    m.mimic_mark = r.u16(f"{p}.mimic_mark")
    m.held = _rd_item_list(r, ctx, f"{p}.held")
    return m


def _wr_monster(m: Monster, w: Writer, ctx: Context, p: str) -> None:
    w.record(_MONSTER, record_values(m, _MONSTER), p)
    if len(m.timed) > 255:
        raise FormatError(None, f"{p}.timed", "at most 255 timed effects", str(len(m.timed)))
    w.u8(len(m.timed), f"{p}.timed_count")
    w.array("i16", m.timed, f"{p}.timed")
    w.bytes(m.mflag, f"{p}.mflag", size=ctx.need("mflag_size", "monster memory"))
    w.bytes(m.known_flags, f"{p}.known_flags", size=ctx.need("of_size", "object memory"))
    check_len(m.known_res, ctx.need("elem_max", "object memory"), f"{p}.known_res", "entries")
    w.array("i16", m.known_res, f"{p}.known_res")
    w.u16(m.mimic_mark, f"{p}.mimic_mark")
    _wr_item_list(m.held, w, ctx, f"{p}.held")


def _rd_monster_list(r: Reader, ctx: Context, path: str) -> list[Monster]:
    n = r.count(max(r.u16(f"{path}.limit") - 1, 0), _MONSTER.size + 2, path, "monster")
    return [_rd_monster(r, ctx, f"{path}[{i}]") for i in range(n)]


def _wr_monster_list(ms: list[Monster], w: Writer, ctx: Context, path: str) -> None:
    w.u16(len(ms) + 1, f"{path}.limit")
    for i, mon in enumerate(ms):
        _wr_monster(mon, w, ctx, f"{path}[{i}]")


@dataclass(slots=True)
class Monsters(BlockModel):
    KIND: ClassVar[str] = "monsters-4.0"
    cave: list[Monster] | None = None
    known_cave: list[Monster] | None = None


def _rd_monsters(r: Reader, ctx: Context) -> Monsters:
    if not alive(ctx):
        return Monsters()
    return Monsters(_rd_monster_list(r, ctx, "cave"), _rd_monster_list(r, ctx, "known_cave"))


def _wr_monsters(m: Monsters, w: Writer, ctx: Context) -> None:
    if alive(ctx) != (m.cave is not None and m.known_cave is not None):
        raise FormatError(None, "cave", "monsters exactly when the character is alive", repr(m.cave))
    if m.cave is not None and m.known_cave is not None:
        _wr_monster_list(m.cave, w, ctx, "cave")
        _wr_monster_list(m.known_cave, w, ctx, "known_cave")


@dataclass(slots=True)
class Trap:
    t_idx: int = 0
    fy: int = 0
    fx: int = 0
    xtra: int = 0
    flags: bytes = b""


@dataclass(slots=True)
class TrapList:
    """Traps up to the one at (0, 0) that ends the list (kept in ``end``)."""

    trf_size: int = 0
    traps: list[Trap] = field(default_factory=list)
    end: Trap = field(default_factory=Trap)


def _rd_trap_list(r: Reader, ctx: Context, path: str) -> TrapList:
    m = TrapList(r.u8(f"{path}.trf_size"))
    while True:
        p = f"{path}.traps[{len(m.traps)}]"
        t_idx, fy, fx, xtra = r.array("u8", 4, p)
        t = Trap(t_idx, fy, fx, xtra, r.bytes(m.trf_size, f"{p}.flags"))
        if t.fy == 0 and t.fx == 0:
            m.end = t
            return m
        m.traps.append(t)


def _wr_trap_list(m: TrapList, w: Writer, ctx: Context, path: str) -> None:
    w.u8(m.trf_size, f"{path}.trf_size")
    for i, t in enumerate([*m.traps, m.end]):
        p = f"{path}.traps[{i}]" if i < len(m.traps) else f"{path}.end"
        if (t.fy == 0 and t.fx == 0) != (i == len(m.traps)):
            raise FormatError(None, f"{p}.fy", "(0, 0) only for the end marker", f"({t.fy}, {t.fx})")
        w.array("u8", [t.t_idx, t.fy, t.fx, t.xtra], p)
        w.bytes(t.flags, f"{p}.flags", size=m.trf_size)


@dataclass(slots=True)
class Traps(BlockModel):
    KIND: ClassVar[str] = "traps-4.0"
    cave: TrapList | None = None
    known_cave: TrapList | None = None


def _rd_traps(r: Reader, ctx: Context) -> Traps:
    if not alive(ctx):
        return Traps()
    return Traps(_rd_trap_list(r, ctx, "cave"), _rd_trap_list(r, ctx, "known_cave"))


def _wr_traps(m: Traps, w: Writer, ctx: Context) -> None:
    if alive(ctx) != (m.cave is not None and m.known_cave is not None):
        raise FormatError(None, "cave", "traps exactly when the character is alive", repr(m.cave))
    if m.cave is not None and m.known_cave is not None:
        _wr_trap_list(m.cave, w, ctx, "cave")
        _wr_trap_list(m.known_cave, w, ctx, "known_cave")


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


def _rd_chunks(r: Reader, ctx: Context) -> Chunks:
    if not alive(ctx):
        return Chunks()
    n = r.count(r.u16("count"), 12, "chunks", "chunk")
    return Chunks([Chunk(_rd_level(r, ctx, f"chunks[{i}].level"), _rd_item_list(r, ctx, f"chunks[{i}].objects"),
                         _rd_monster_list(r, ctx, f"chunks[{i}].monsters"),
                         _rd_trap_list(r, ctx, f"chunks[{i}].traps")) for i in range(n)])


def _wr_chunks(m: Chunks, w: Writer, ctx: Context) -> None:
    if alive(ctx) != (m.chunks is not None):
        raise FormatError(None, "chunks", "chunks exactly when the character is alive", repr(m.chunks))
    if m.chunks is None:
        return
    w.u16(len(m.chunks), "count")
    for i, c in enumerate(m.chunks):
        _wr_level(c.level, w, ctx, f"chunks[{i}].level")
        _wr_item_list(c.objects, w, ctx, f"chunks[{i}].objects")
        _wr_monster_list(c.monsters, w, ctx, f"chunks[{i}].monsters")
        _wr_trap_list(c.traps, w, ctx, f"chunks[{i}].traps")


# -- the table ------------------------------------------------------------------------------

for _name, _model, _dec, _enc in (
        ("rng", character.Rng, character.RNG.read, character.RNG.write),
        ("options", Options, _rd_options, _wr_options),
        ("messages", character.Messages, character.MESSAGES.read, character.MESSAGES.write),
        ("monster memory", MonsterMemory, _rd_monster_memory, _wr_monster_memory),
        ("object memory", ObjectMemory, _rd_object_memory, _wr_object_memory),
        ("quests", character.Quests, character.QUESTS.read, character.QUESTS.write),
        ("artifacts", Artifacts, _rd_artifacts, _wr_artifacts),
        ("player", Player, _rd_player, _wr_player),
        ("ignore", Ignore, _rd_ignore, _wr_ignore),
        ("misc", Misc, _rd_misc, _wr_misc),
        ("player hp", character.PlayerHp, character.PLAYER_HP.read, character.PLAYER_HP.write),
        ("player spells", character.PlayerSpells, character.PLAYER_SPELLS.read, character.PLAYER_SPELLS.write),
        ("gear", Gear, _rd_gear, _wr_gear),
        ("stores", Stores, _rd_stores, _wr_stores),
        ("dungeon", Dungeon, _rd_dungeon, _wr_dungeon),
        ("objects", Objects, _rd_objects, _wr_objects),
        ("monsters", Monsters, _rd_monsters, _wr_monsters),
        ("traps", Traps, _rd_traps, _wr_traps),
        ("chunks", Chunks, _rd_chunks, _wr_chunks),
        ("history", History, _rd_history, _wr_history)):
    _layout(_name, _model, _dec, _enc)
