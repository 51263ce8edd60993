"""PWMAngband 1.3 player savefiles (variant ``PWMG``): the character's blocks, as
``rd_*`` of PWMAngband's ``src/server/load.c`` reads them at the commit the sample
comes from (draconisPW/PWMAngband a5e06d7; ``save.c`` there writes them).

PWMAngband can store object kinds, artifacts, egos, monster races and trap
kinds either as names or as indexes (its ``SAVE_AS_STRINGS`` build option),
and the file does not say which: :func:`read_build` tells the build from the
bytes, block by block, and keeps the file to one build. The history block
names artifacts that way; misc, gear, dungeon, objects, traps and home are
in :mod:`.pwmangband_world`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ClassVar, TypeVar

from ....binary import Reader, Record, Writer, active_sink, not_recording
from ....errors import FormatError
from . import BlockModel, Context, Layout, LayoutError, character, register_layout
from .items import check_len, read_str, write_str
from .records import Experience

PWMG = frozenset({"PWMG"})
GAME = "PWMAngband 1.3"
NAME_MAX = 79  # NORMAL_WID - 1
STAT_MAX = 5
HISTORY_LINES = 3  # N_HIST_LINES
MAX_LEVEL = 50


def _layout(name: str, model: type, decode: object, encode: object) -> None:
    register_layout(Layout(name, 1, PWMG, model, decode, encode, GAME))  # type: ignore[arg-type]


@dataclass(slots=True)
class Header(BlockModel):
    """Who the character is (``rd_header``); the password is the server's hash, kept as is."""

    KIND: ClassVar[str] = "header-pwm"
    full_name: str = ""
    password: str = ""
    race: str = ""
    character_class: str = ""
    sex: int = 0


def _rd_header(r: Reader, ctx: Context) -> Header:
    return Header(read_str(r, "full_name", NAME_MAX), read_str(r, "password", NAME_MAX),
                  read_str(r, "race", NAME_MAX), read_str(r, "character_class", NAME_MAX), r.u8("sex"))


def _wr_header(m: Header, w: Writer, ctx: Context) -> None:
    for name in ("full_name", "password", "race", "character_class"):
        write_str(w, getattr(m, name), name, NAME_MAX)
    w.u8(m.sex, "sex")


@dataclass(slots=True)
class Lore:
    spawned: int = 0
    seen: int = 0
    pseen: int = 0
    pdeaths: int = 0
    tdeaths: int = 0
    pkills: int = 0
    tkills: int = 0
    wake: int = 0
    ignore: int = 0
    cast_innate: int = 0
    cast_spell: int = 0
    blows: bytes = b""
    flags: bytes = b""
    spell_flags: bytes = b""


@dataclass(slots=True)
class MonsterMemory(BlockModel):
    """What the player knows of each monster race, in the game's monster.txt order."""

    KIND: ClassVar[str] = "monster-memory-pwm"
    rf_size: int = 0
    rsf_size: int = 0
    blows_max: int = 0
    races: list[Lore] = field(default_factory=list)


def _rd_monster_memory(r: Reader, ctx: Context) -> MonsterMemory:
    n = r.u16("count")
    m = MonsterMemory(r.u8("rf_size"), r.u8("rsf_size"), r.u8("blows_max"))
    r.count(n, 15 + m.blows_max + m.rf_size + m.rsf_size, "races", "race")
    for i in range(n):
        p = f"races[{i}]"
        lore = Lore(r.u8(f"{p}.spawned"), r.u8(f"{p}.seen"), r.u8(f"{p}.pseen"))
        lore.pdeaths, lore.tdeaths, lore.pkills, lore.tkills = r.array("i16", 4, f"{p}.pdeaths")
        lore.wake, lore.ignore, lore.cast_innate, lore.cast_spell = r.array("u8", 4, f"{p}.wake")
        lore.blows = r.bytes(m.blows_max, f"{p}.blows")
        lore.flags = r.bytes(m.rf_size, f"{p}.flags")
        lore.spell_flags = r.bytes(m.rsf_size, f"{p}.spell_flags")
        m.races.append(lore)
    return m


def _wr_monster_memory(m: MonsterMemory, w: Writer, ctx: Context) -> None:
    w.u16(len(m.races), "count")
    w.u8(m.rf_size, "rf_size")
    w.u8(m.rsf_size, "rsf_size")
    w.u8(m.blows_max, "blows_max")
    for i, lore in enumerate(m.races):
        p = f"races[{i}]"
        w.array("u8", [lore.spawned, lore.seen, lore.pseen], f"{p}.spawned")
        w.array("i16", [lore.pdeaths, lore.tdeaths, lore.pkills, lore.tkills], f"{p}.pdeaths")
        w.array("u8", [lore.wake, lore.ignore, lore.cast_innate, lore.cast_spell], f"{p}.wake")
        for name, size in (("blows", m.blows_max), ("flags", m.rf_size), ("spell_flags", m.rsf_size)):
            check_len(getattr(lore, name), size, f"{p}.{name}", "bytes")
            w.bytes(getattr(lore, name), f"{p}.{name}")


@dataclass(slots=True)
class EgoMemory:
    everseen: int = 0
    itypes: bytes = b""


@dataclass(slots=True)
class ObjectMemory(BlockModel):
    """Object sizes for later blocks, then per kind: aware 1, tried 2, seen 4, ignored 8; egos."""

    KIND: ClassVar[str] = "object-memory-pwm"
    of_size: int = 0
    obj_mod_max: int = 0
    elem_max: int = 0
    brand_max: int = 0
    slay_max: int = 0
    curse_max: int = 0
    kinds: bytes = b""
    itype_size: int = 0
    egos: list[EgoMemory] = field(default_factory=list)


_SIZES = ("of_size", "obj_mod_max", "elem_max", "brand_max", "slay_max", "curse_max")


def _rd_object_memory(r: Reader, ctx: Context) -> ObjectMemory:
    m = ObjectMemory()
    for name in _SIZES:
        setattr(m, name, r.u8(name))
        ctx.set(name, getattr(m, name), "object memory")
    m.kinds = r.bytes(r.u16("kind_count"), "kinds")
    n = r.u16("ego_count")
    m.itype_size = r.u16("itype_size")
    r.count(n, 1 + m.itype_size, "egos", "ego")
    m.egos = [EgoMemory(r.u8(f"egos[{i}].everseen"), r.bytes(m.itype_size, f"egos[{i}].itypes"))
              for i in range(n)]
    return m


def _wr_object_memory(m: ObjectMemory, w: Writer, ctx: Context) -> None:
    for name in _SIZES:
        w.u8(getattr(m, name), name)
        ctx.set(name, getattr(m, name), "object memory")
    w.u16(len(m.kinds), "kind_count")
    w.bytes(m.kinds, "kinds")
    w.u16(len(m.egos), "ego_count")
    w.u16(m.itype_size, "itype_size")
    for i, e in enumerate(m.egos):
        w.u8(e.everseen, f"egos[{i}].everseen")
        check_len(e.itypes, m.itype_size, f"egos[{i}].itypes", "bytes (itype_size)")
        w.bytes(e.itypes, f"egos[{i}].itypes")


@dataclass(slots=True)
class DeathInfo:
    title: str = ""
    max_lev: int = 0
    lev: int = 0
    max_exp: int = 0
    exp: int = 0
    au: int = 0
    max_depth: int = 0
    wpos_y: int = 0
    wpos_x: int = 0
    wpos_depth: int = 0
    died_from: str = ""
    time: int = 0
    ctime: str = ""


@dataclass(slots=True)
class Player(Experience, BlockModel):
    """The character (``rd_player`` of PWMAngband): gold, experience, hit and spell points, stats.

    Name, race and class are in the header block. ``experience`` sets the
    current and maximum experience together, as in the Vanilla model.
    """

    KIND: ClassVar[str] = "player-pwm"
    id: int = 0
    died_from: str = ""
    died_flavor: str = ""
    death_info: DeathInfo = field(default_factory=DeathInfo)
    history: list[str] = field(default_factory=list)
    hitdie: int = 0
    expfact: int = 0
    age: int = 0
    height: int = 0
    weight: int = 0
    stat_max: list[int] = field(default_factory=list)
    stat_cur: list[int] = field(default_factory=list)
    stat_map: list[int] = field(default_factory=list)
    stat_birth: list[int] = field(default_factory=list)
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
    unignoring: int = 0
    deep_descent: int = 0
    food: int = 0
    energy: int = 0
    word_recall: int = 0
    stealthy: int = 0
    timed: list[int] = field(default_factory=list)
    brand_type: int = 0
    brand_blast: int = 0
    brand_dam: int = 0


def _rd_player(r: Reader, ctx: Context) -> Player:
    p = Player(r.i32("id"), read_str(r, "died_from", NAME_MAX), read_str(r, "died_flavor", 159))
    d = p.death_info
    d.title = read_str(r, "death_info.title", NAME_MAX)
    d.max_lev, d.lev = r.array("i16", 2, "death_info.max_lev")
    d.max_exp, d.exp, d.au = r.array("i32", 3, "death_info.max_exp")
    d.max_depth, d.wpos_y, d.wpos_x, d.wpos_depth = r.array("i16", 4, "death_info.max_depth")
    d.died_from = read_str(r, "death_info.died_from", NAME_MAX)
    d.time = r.i32("death_info.time")
    d.ctime = read_str(r, "death_info.ctime", NAME_MAX)
    p.history = [read_str(r, f"history[{i}]") for i in range(HISTORY_LINES)]
    p.hitdie = r.u8("hitdie")
    p.expfact, p.age, p.height, p.weight = r.array("i16", 4, "expfact")
    p.stat_max = list(r.array("i16", STAT_MAX, "stat_max"))
    p.stat_cur = list(r.array("i16", STAT_MAX, "stat_cur"))
    p.stat_map = list(r.array("i16", STAT_MAX, "stat_map"))
    p.stat_birth = list(r.array("i16", STAT_MAX, "stat_birth"))
    p.au, p.max_exp, p.exp = r.array("i32", 3, "au")
    p.exp_frac = r.u16("exp_frac")
    at = r.pos
    p.lev = r.i16("lev")
    if not 1 <= p.lev <= MAX_LEVEL:
        r.fail("lev", f"a level from 1 to {MAX_LEVEL}", str(p.lev), at=at)
    p.mhp, p.chp = r.array("i16", 2, "mhp")
    p.chp_frac = r.u16("chp_frac")
    p.msp, p.csp = r.array("i16", 2, "msp")
    p.csp_frac = r.u16("csp_frac")
    p.max_lev, p.max_depth = r.array("i16", 2, "max_lev")
    p.unignoring = r.u8("unignoring")
    p.deep_descent, p.food = r.array("i16", 2, "deep_descent")
    p.energy = r.i32("energy")
    p.word_recall = r.i16("word_recall")
    p.stealthy = r.u8("stealthy")
    p.timed = list(r.array("i16", r.u8("timed_count"), "timed"))
    p.brand_type = r.u8("brand_type")
    p.brand_blast = r.u8("brand_blast")
    p.brand_dam = r.i16("brand_dam")
    return p


def _wr_player(p: Player, w: Writer, ctx: Context) -> None:
    w.i32(p.id, "id")
    write_str(w, p.died_from, "died_from", NAME_MAX)
    write_str(w, p.died_flavor, "died_flavor", 159)
    d = p.death_info
    write_str(w, d.title, "death_info.title", NAME_MAX)
    w.array("i16", [d.max_lev, d.lev], "death_info.max_lev")
    w.array("i32", [d.max_exp, d.exp, d.au], "death_info.max_exp")
    w.array("i16", [d.max_depth, d.wpos_y, d.wpos_x, d.wpos_depth], "death_info.max_depth")
    write_str(w, d.died_from, "death_info.died_from", NAME_MAX)
    w.i32(d.time, "death_info.time")
    write_str(w, d.ctime, "death_info.ctime", NAME_MAX)
    check_len(p.history, HISTORY_LINES, "history", "lines")
    for i, line in enumerate(p.history):
        write_str(w, line, f"history[{i}]")
    w.u8(p.hitdie, "hitdie")
    w.array("i16", [p.expfact, p.age, p.height, p.weight], "expfact")
    for name in ("stat_max", "stat_cur", "stat_map", "stat_birth"):
        check_len(getattr(p, name), STAT_MAX, name, "stats")
        w.array("i16", getattr(p, name), name)
    w.array("i32", [p.au, p.max_exp, p.exp], "au")
    w.u16(p.exp_frac, "exp_frac")
    if not 1 <= p.lev <= MAX_LEVEL:
        raise FormatError(None, "lev", f"a level from 1 to {MAX_LEVEL}", str(p.lev))
    w.i16(p.lev, "lev")
    w.array("i16", [p.mhp, p.chp], "mhp")
    w.u16(p.chp_frac, "chp_frac")
    w.array("i16", [p.msp, p.csp], "msp")
    w.u16(p.csp_frac, "csp_frac")
    w.array("i16", [p.max_lev, p.max_depth], "max_lev")
    w.u8(p.unignoring, "unignoring")
    w.array("i16", [p.deep_descent, p.food], "deep_descent")
    w.i32(p.energy, "energy")
    w.i16(p.word_recall, "word_recall")
    w.u8(p.stealthy, "stealthy")
    w.u8(len(p.timed), "timed_count")
    w.array("i16", p.timed, "timed")
    w.u8(p.brand_type, "brand_type")
    w.u8(p.brand_blast, "brand_blast")
    w.i16(p.brand_dam, "brand_dam")


@dataclass(slots=True)
class Ignore(BlockModel):
    KIND: ClassVar[str] = "ignore-pwm"
    levels: bytes = b""


def _rd_ignore(r: Reader, ctx: Context) -> Ignore:
    return Ignore(r.bytes(r.u8("count"), "levels"))


def _wr_ignore(m: Ignore, w: Writer, ctx: Context) -> None:
    w.u8(len(m.levels), "count")
    w.bytes(m.levels, "levels")


@dataclass(slots=True)
class Artifacts(BlockModel):
    """Per artifact what this character knows; per random artifact slot (9 more) knows and made."""

    KIND: ClassVar[str] = "artifacts-pwm"
    art_info: bytes = b""
    randart_info: bytes = b""
    randart_created: bytes = b""


RANDART_EXTRA = 9


def _rd_artifacts(r: Reader, ctx: Context) -> Artifacts:
    n = r.u16("count")
    m = Artifacts(r.bytes(n, "art_info"))
    pairs = r.bytes(2 * (n + RANDART_EXTRA), "randart")
    m.randart_info, m.randart_created = pairs[0::2], pairs[1::2]
    return m


def _wr_artifacts(m: Artifacts, w: Writer, ctx: Context) -> None:
    n = len(m.art_info)
    check_len(m.randart_info, n + RANDART_EXTRA, "randart_info", "entries (artifacts + 9)")
    check_len(m.randart_created, n + RANDART_EXTRA, "randart_created", "entries (artifacts + 9)")
    w.u16(n, "count")
    w.bytes(m.art_info, "art_info")
    w.bytes(bytes(v for pair in zip(m.randart_info, m.randart_created) for v in pair), "randart")


@dataclass(slots=True)
class PlayerSpells(BlockModel):
    KIND: ClassVar[str] = "player-spells-pwm"
    spell_flags: bytes = b""
    spell_order: bytes = b""
    spell_power: bytes = b""
    spell_cooldown: bytes = b""


def _rd_spells(r: Reader, ctx: Context) -> PlayerSpells:
    n = r.u16("count")
    return PlayerSpells(*(r.bytes(n, name) for name in
                          ("spell_flags", "spell_order", "spell_power", "spell_cooldown")))


def _wr_spells(m: PlayerSpells, w: Writer, ctx: Context) -> None:
    n = len(m.spell_flags)
    w.u16(n, "count")
    for name in ("spell_flags", "spell_order", "spell_power", "spell_cooldown"):
        check_len(getattr(m, name), n, name, "entries (one per spell)")
        w.bytes(getattr(m, name), name)


@dataclass(slots=True)
class WildMap(BlockModel):
    """Which wilderness squares the player has seen, row by row from the north."""

    KIND: ClassVar[str] = "wild-map-pwm"
    radius: int = 0
    squares: bytes = b""


def _rd_wild_map(r: Reader, ctx: Context) -> WildMap:
    radius = r.u16("radius")
    side = 2 * radius + 1
    return WildMap(radius, r.bytes(side * side, "squares"))


def _wr_wild_map(m: WildMap, w: Writer, ctx: Context) -> None:
    side = 2 * m.radius + 1
    check_len(m.squares, side * side, "squares", "bytes ((2 * radius + 1) squared)")
    w.u16(m.radius, "radius")
    w.bytes(m.squares, "squares")


# -- the SAVE_AS_STRINGS build option -------------------------------------------------------

BUILD = "save_as_strings"  # the Context entry: 1 for a names build, 0 for an indexes build
M = TypeVar("M")


def _trial(r: Reader, read_as: Callable[[Reader, bool], M], as_names: bool) -> tuple[M, int] | None:
    """The block read one way, unrecorded, and where the reading ended; None if it does not fit."""
    with not_recording():
        trial = Reader(r.data, r.pos, r.end)
        try:
            m = read_as(trial, as_names)
        except FormatError:
            return None
    return (m, trial.pos) if trial.at_end() else None


def read_build(r: Reader, ctx: Context, block: str, read_as: Callable[[Reader, bool], M],
               depends: Callable[[M], bool]) -> tuple[M, bool | None]:
    """Read a block written by one of the two builds, and say which (None: the block holds
    nothing that differs between them, and is read in the index form).

    The file does not record the build. The block is read both ways (unrecorded trials)
    and the reading that consumes it exactly is kept. A reading that ``depends`` on the
    build must be of the build an earlier block of the same file settled (the
    ``save_as_strings`` context entry), and settles it otherwise. Both builds fitting a
    block that depends on the build is ambiguous: the block stays raw.
    """
    known = ctx.values.get(BUILD)
    tried: dict[bool, tuple[M, int] | None] = {}

    def fit(as_names: bool) -> tuple[M, int] | None:
        if as_names not in tried:
            tried[as_names] = _trial(r, read_as, as_names)
        return tried[as_names]

    settled = fit(bool(known)) if known is not None else None
    if known is not None and settled is not None and (not known or depends(settled[0])):
        as_names = bool(known)  # the build the file is of reads it (the index form if neutral)
    else:
        fits = [(b, f[0]) for b in (False, True) if (f := fit(b)) is not None]
        if known is not None:
            other = [b for b, m in fits if b != bool(known) and depends(m)]
            fits = [(b, m) for b, m in fits if b == bool(known) or not depends(m)]
            if not fits and other:
                raise LayoutError(f"the build the {ctx.source.get(BUILD, '')!r} block was written "
                                  f"by ({_build_name(bool(known))}); this block reads only as the "
                                  f"{_build_name(other[0])} build")
        if len(fits) > 1 and depends(fits[0][1]):
            raise LayoutError("the build option SAVE_AS_STRINGS: the block reads both with "
                              "indexes and with names")
        # neither fits: read the settled build (or indexes) for real, for the error it meets
        as_names = fits[0][0] if fits else bool(known)
    kept = tried.get(as_names)
    if kept is not None and active_sink() is None:  # the trial is the reading: no spans to note
        m, r.pos = kept
    else:
        m = read_as(r, as_names)
    if not depends(m):
        return m, None
    if known is None:
        ctx.set(BUILD, int(as_names), block)
    return m, as_names


def _build_name(as_names: bool) -> str:
    return "SAVE_AS_STRINGS (names)" if as_names else "indexes"


def rd_name_or_index(r: Reader, as_names: bool, name: str, index: str,
                     limit: int = NAME_MAX, numbers: bool = False) -> int | str:
    """A kind, artifact, ego, race or trap kind: a name in a names build, else an index
    (``index`` is its field type, ``u8`` or ``u16``).

    A name comes from the game's data files, so it has a letter in it; a string
    without one (a comma: the low byte of an index read as text) is refused, or
    an index would too easily read as a short name. ``numbers``: the field may
    also hold digits (an artifact or ego "1", known to be none; a random
    artifact's number).
    """
    if not as_names:
        return r.u8(name) if index == "u8" else r.u16(name)
    at = r.pos
    text = read_str(r, name, limit)
    if text and not any(c.isalpha() for c in text) and not (numbers and text.isdigit()):
        r.fail(name, "a name from the game's data (with a letter)" + (" or a number" if numbers else ""),
               repr(text), at=at)
    return text


def wr_name_or_index(w: Writer, value: int | str, as_names: bool, name: str, index: str,
                     limit: int = NAME_MAX) -> None:
    if isinstance(value, str) != as_names:
        raise FormatError(None, name, "a name (the block is written by a SAVE_AS_STRINGS build)"
                          if as_names else "an index (the block is written by an indexes build)",
                          repr(value))
    if isinstance(value, str):
        write_str(w, value, name, limit)
    elif index == "u8":
        w.u8(value, name)
    else:
        w.u16(value, name)


# -- history --------------------------------------------------------------------------------


@dataclass(slots=True)
class HistoryEntry:
    """One line of the history: ``turn_era``/``turn`` is the game's two-word turn counter.

    ``artifact`` is the artifact as the build stored it: its index (0 for
    none) or, in a ``SAVE_AS_STRINGS`` build, its name ("" for none).
    """

    type: bytes = b""
    turn_era: int = 0
    turn: int = 0
    dlev: int = 0
    clev: int = 0
    artifact: int | str = 0
    name: str = ""
    event: str = ""


@dataclass(slots=True)
class History(BlockModel):
    """The character's history; ``artifacts_as_names`` says which build wrote it, None when no
    entry names an artifact (both builds write the same bytes then)."""

    KIND: ClassVar[str] = "history-pwm"
    hist_size: int = 0
    entries: list[HistoryEntry] = field(default_factory=list)
    artifacts_as_names: bool | None = None


_HIST = Record("PWMAngband history entry", [
    ("turn_era", "u32"), ("turn", "u32"), ("dlev", "i16"), ("clev", "i16")])


def _rd_history_as(r: Reader, as_names: bool) -> History:
    m = History(r.u8("hist_size"), artifacts_as_names=as_names)
    n = r.count(r.i16("count"), m.hist_size + _HIST.size + 3, "entries", "entry")
    for i in range(n):
        p = f"entries[{i}]"
        e = HistoryEntry(r.bytes(m.hist_size, f"{p}.type"), *r.record(_HIST, p))
        e.artifact = rd_name_or_index(r, as_names, f"{p}.artifact", "u8", numbers=True)
        e.name = read_str(r, f"{p}.name", NAME_MAX)
        e.event = read_str(r, f"{p}.event", NAME_MAX)
        m.entries.append(e)
    return m


def _rd_history(r: Reader, ctx: Context) -> History:
    m, build = read_build(r, ctx, "history", _rd_history_as, lambda m: any(e.artifact for e in m.entries))
    m.artifacts_as_names = build  # None: no artifact, the same bytes in both builds
    return m


def _wr_history(m: History, w: Writer, ctx: Context) -> None:
    w.u8(m.hist_size, "hist_size")
    w.i16(len(m.entries), "count")
    for i, e in enumerate(m.entries):
        p = f"entries[{i}]"
        w.bytes(e.type, f"{p}.type", size=m.hist_size)
        w.record(_HIST, [e.turn_era, e.turn, e.dlev, e.clev], p)
        if isinstance(e.artifact, str) != bool(m.artifacts_as_names) and e.artifact:
            raise FormatError(None, f"{p}.artifact", "an artifact name" if m.artifacts_as_names
                              else "an artifact index", repr(e.artifact))
        if m.artifacts_as_names:
            write_str(w, str(e.artifact or ""), f"{p}.artifact", NAME_MAX)
        else:
            w.u8(int(e.artifact or 0), f"{p}.artifact")
        write_str(w, e.name, f"{p}.name", NAME_MAX)
        write_str(w, e.event, f"{p}.event", NAME_MAX)


_layout("header", Header, _rd_header, _wr_header)
_layout("monster memory", MonsterMemory, _rd_monster_memory, _wr_monster_memory)
_layout("object memory", ObjectMemory, _rd_object_memory, _wr_object_memory)
_layout("player", Player, _rd_player, _wr_player)
_layout("ignore", Ignore, _rd_ignore, _wr_ignore)
_layout("artifacts", Artifacts, _rd_artifacts, _wr_artifacts)
_layout("player hp", character.PlayerHp, character.PLAYER_HP.read, character.PLAYER_HP.write)  # as Vanilla
_layout("player spells", PlayerSpells, _rd_spells, _wr_spells)
_layout("wild map", WildMap, _rd_wild_map, _wr_wild_map)
_layout("history", History, _rd_history, _wr_history)


# The blocks that hold objects, the level and the misc block, which use read_build above.
from . import pwmangband_world  # noqa: F401
