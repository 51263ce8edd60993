"""PWMAngband player savefiles (variant ``PWMG``) of every savefile magic, 1.1.12.3 to
1.6.2.0: the character's blocks, as ``rd_*`` of PWMAngband's ``src/server/load.c`` reads them
and ``save.c`` writes them at the commit each magic was current (draconisPW/PWMAngband:
7e62df8, a5e06d7, bdbf039, f948251, afa0f6d, 1941cee). One layout per block: the fields that
come and go with the magic are conditions over the ``pwm_magic`` context entry (:data:`MAGIC`),
which the decoder sets from the file header, as ``check_header`` reads it.

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
from typing import TYPE_CHECKING, ClassVar, TypeVar

from ....binary import Reader, Writer, active_sink, not_recording
from ....errors import FormatError
from ....layout import I16, I32, U8, U16, Array, Bytes, Columns, CStr, Ctx, Field, Len, List, Range, Ref
from ....layout import U32, Adapt, Expr, Int, Prefix, SetCtx, Struct, Switch, Type, When
from . import BlockModel, Context, Layout, LayoutError, character, register_layout, register_struct
from . import items
from .records import Experience

if TYPE_CHECKING:
    from ....layout.compiler import Emitter

VARIANTS = ("PWMG",)  # the variant ids this module registers layouts for (see the package)

PWMG = frozenset({"PWMG"})
GAME = "PWMAngband"
# The savefile magic (the file's first 4 bytes) as one number, 0x01060200 for 1.6.2.0: the
# Context entry the decoder sets from the file header before the first block, as check_header
# reads it. Fields that come and go with the magic are ``When``s over it.
MAGIC = "pwm_magic"
V1_3 = 0x01030001  # 1.3.0: level_req, spell cooldowns, 16-bit terrain; "confusing" gone
V1_4 = 0x01040000  # 1.4.0 dev: lore thefts; food became a timed effect; 16-bit tval/sval
V1_5 = 0x01050000  # 1.5.0 alpha: the object's origin_player
V1_6 = 0x01060000  # 1.6.0: 16-bit artifact and ego indexes
V1_6_1 = 0x01060100  # 1.6.1: the object's worn_time


# A fork that writes PWMAngband's magic with its own fields: the Context entry the decoder sets
# from the game it reads the file as (Tangaria: 1; absent for PWMAngband itself). The fields a
# fork adds are ``When``s over it, in these shared declarations (layouts/tangaria.py).
FORK = "pwm_fork"
TANGARIA = 1
IS_TANGARIA = f"ctx.values.get({FORK!r}, 0) == {TANGARIA}"
# STAT_MAX: five stats (list-stats.h); Tangaria adds charisma.
STAT_COUNT = Expr(f"6 if {IS_TANGARIA} else {5}")


def since(version: int) -> str:
    """The condition "the file's magic is ``version`` or later", for a ``When``."""
    return f"ctx.need({MAGIC!r}, 'the file header') >= {version}"


def magic(ctx: Context) -> int:
    return ctx.need(MAGIC, "the file header")
NAME_MAX = 79  # NORMAL_WID - 1
STAT_MAX = 5
HISTORY_LINES = 3  # N_HIST_LINES
MAX_LEVEL = 50
# The game writes its strings' bytes as they are (wr_string), and its data files are Latin-1
# ("E\xf6l, the Dark Elf" in monster.txt from 1.2.0 to 1.6.2), so text is read as Latin-1:
# every byte is a character, and the same bytes are written back.
ENCODING = "latin-1"


def read_str(r: Reader, name: str, limit: int = NAME_MAX) -> str:
    """A NUL-terminated string the loader reads into a buffer of ``limit`` + 1 bytes."""
    start = r.pos
    text = r.cstr(name, ENCODING)
    if r.pos - start - 1 > limit:
        r.fail(name, f"a string of at most {limit} bytes (the game's buffer)",
               f"{r.pos - start - 1} bytes", at=start)
    return text


def write_str(w: Writer, text: str, name: str, limit: int = NAME_MAX) -> None:
    try:
        raw = text.encode(ENCODING)
    except UnicodeEncodeError:
        raise FormatError(None, name, "text in the game's Latin-1", repr(text)) from None
    if len(raw) > limit or b"\0" in raw:
        raise FormatError(None, name, f"text of at most {limit} bytes without NUL",
                          f"{len(raw)} bytes" if len(raw) > limit else "a NUL character")
    w.bytes(raw + b"\0", name)


def _layout(name: str, model: type, decode: object, encode: object) -> None:
    """A block read and written by code over the descriptions. ``exact``: its reader reads only
    what its writer writes back the same way (the descriptions read only canonical encodings;
    the build a block is read as is kept in the model, and a block read as neither build
    depends on has the same bytes in both), so a load does not re-encode it."""
    register_layout(Layout(name, 1, PWMG, model, decode, encode, GAME,  # type: ignore[arg-type]
                           exact=True))


@dataclass(slots=True)
class Header(BlockModel):
    """Who the character is (``rd_header``); the password is the server's hash, kept as is."""

    KIND: ClassVar[str] = "header-pwm"
    full_name: str = ""
    password: str = ""
    race: str = ""
    character_class: str = ""
    sex: int = 0


HEADER = Struct(Header, [
    Field("full_name", CStr(NAME_MAX, ENCODING)), Field("password", CStr(NAME_MAX, ENCODING)),
    Field("race", CStr(NAME_MAX, ENCODING)), Field("character_class", CStr(NAME_MAX, ENCODING)),
    Field("sex", U8)], name="header")


@dataclass(slots=True)
class Lore:
    spawned: int = 0
    seen: int = 0
    pseen: int = 0
    pdeaths: int = 0
    tdeaths: int = 0
    pkills: int = 0
    thefts: int | None = None  # 1.4.0 on
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


def _lore(thefts: bool) -> Struct:
    """One race's lore (``rd_monster_memory``), as the file's magic stores it: ``thefts`` from
    1.4.0 on (a plain field then, so where the C extension is built the list of every race's
    lore is read and written by its record program); before, None, and the writer refuses one."""
    return Struct(Lore, [
        Field("spawned", U8), Field("seen", U8), Field("pseen", U8), Field("pdeaths", I16),
        Field("tdeaths", I16), Field("pkills", I16),
        # (before 1.4.0 the Switch below picks this record: no thefts, which the writer refuses)
        Field("thefts", I16) if thefts else When("False", [Field("thefts", I16)], "thefts from 1.4.0 on"),
        Field("tkills", I16), Field("wake", U8),
        Field("ignore", U8), Field("cast_innate", U8), Field("cast_spell", U8),
        Field("blows", Bytes(Ctx("blows_max", "monster memory"))),
        Field("flags", Bytes(Ctx("rf_size", "monster memory"))),
        Field("spell_flags", Bytes(Ctx("rsf_size", "monster memory")))], name="lore")


MONSTER_MEMORY = Struct(MonsterMemory, [
    Len("count", U16, ("races",)), Field("rf_size", U8, export="rf_size"),
    Field("rsf_size", U8, export="rsf_size"), Field("blows_max", U8, export="blows_max"),
    Field("races", Switch(f"1 if {since(V1_4)} else 0", {
        0: List(_lore(False), Ref("count")), 1: List(_lore(True), Ref("count"))})),
], name="monster memory")


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


OBJECT_MEMORY = Struct(ObjectMemory, [
    *[Field(n, U8, export=n) for n in _SIZES],
    Len("kind_count", U16, ("kinds",)), Field("kinds", Bytes(Ref("kind_count"))),
    Len("ego_count", U16, ("egos",)), Field("itype_size", U16, export="itype_size"),
    Field("egos", List(Struct(EgoMemory, [Field("everseen", U8),
                                          Field("itypes", Bytes(Ctx("itype_size", "object memory")))],
                              name="ego"), Ref("ego_count"))),
], name="object memory")


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
    current and maximum experience together, as in the Vanilla model. The
    highest level follows only the levels reached: PWMAngband's
    ``adjust_level`` (src/server/player.c, the same at every magic from
    7e62df8 to 1941cee) raises ``max_lev`` when the level passes it, and
    ``rd_player`` raises it to the level; unlike Vanilla 4.2 nothing raises
    it from the maximum experience.
    """

    KIND: ClassVar[str] = "player-pwm"
    MAX_LEV_FROM_MAX_EXP: ClassVar[bool] = False
    # The sheet's stat names, as many as the file stores (Tangaria's sixth is charisma).
    STAT_NAMES: ClassVar[tuple[str, ...]] = ("str", "int", "wis", "dex", "con", "chr")
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
    food: int | None = None  # before 1.4.0 (then a timed effect)
    energy: int = 0
    word_recall: int = 0
    confusing: int | None = None  # before 1.3.0
    stealthy: int = 0
    timed: list[int] = field(default_factory=list)
    brand_type: int = 0
    brand_blast: int = 0
    brand_dam: int = 0


_DEATH = Struct(DeathInfo, [
    Field("title", CStr(NAME_MAX, ENCODING)), Field("max_lev", I16), Field("lev", I16),
    Field("max_exp", I32),
    Field("exp", I32), Field("au", I32), Field("max_depth", I16), Field("wpos_y", I16),
    Field("wpos_x", I16), Field("wpos_depth", I16), Field("died_from", CStr(NAME_MAX, ENCODING)),
    Field("time", I32), Field("ctime", CStr(NAME_MAX, ENCODING))], name="death info")
PLAYER = Struct(Player, [
    Field("id", I32), Field("died_from", CStr(NAME_MAX, ENCODING)),
    Field("died_flavor", CStr(159, ENCODING)),
    Field("death_info", _DEATH), Field("history", List(CStr(items.NAME_MAX, ENCODING), HISTORY_LINES)),
    Field("hitdie", U8), Field("expfact", I16), Field("age", I16), Field("height", I16),
    Field("weight", I16), Field("stat_max", Array(I16, STAT_COUNT)), Field("stat_cur", Array(I16, STAT_COUNT)),
    Field("stat_map", Array(I16, STAT_COUNT)), Field("stat_birth", Array(I16, STAT_COUNT)),
    Field("au", I32), Field("max_exp", I32), Field("exp", I32), Field("exp_frac", U16),
    Field("lev", I16, check=Range(1, MAX_LEVEL, f"a level from 1 to {MAX_LEVEL}")),
    Field("mhp", I16), Field("chp", I16), Field("chp_frac", U16), Field("msp", I16), Field("csp", I16),
    Field("csp_frac", U16), Field("max_lev", I16), Field("max_depth", I16), Field("unignoring", U8),
    Field("deep_descent", I16),
    When(f"not ({since(V1_4)})", [Field("food", I16)], "food before 1.4.0"),
    Field("energy", I32), Field("word_recall", I16),
    When(f"not ({since(V1_3)})", [Field("confusing", U8)], "confusing before 1.3.0"),
    Field("stealthy", U8), Field("timed", Array(I16, Prefix(U8, "timed_count"))),
    Field("brand_type", U8), Field("brand_blast", U8), Field("brand_dam", I16),
], name="player")


@dataclass(slots=True)
class Ignore(BlockModel):
    KIND: ClassVar[str] = "ignore-pwm"
    levels: bytes = b""


IGNORE = Struct(Ignore, [Len("count", U8, ("levels",)), Field("levels", Bytes(Ref("count")))],
                name="ignore")


@dataclass(slots=True)
class Artifacts(BlockModel):
    """Per artifact what this character knows; per random artifact slot (9 more) knows and made."""

    KIND: ClassVar[str] = "artifacts-pwm"
    art_info: bytes = b""
    randart_info: bytes = b""
    randart_created: bytes = b""


RANDART_EXTRA = 9


ARTIFACTS = Struct(Artifacts, [
    Len("count", U16, ("art_info",)), Field("art_info", Bytes(Ref("count"))),
    Columns(Expr(f"count + {RANDART_EXTRA}"), [("randart_info", U8, True), ("randart_created", U8, True)]),
], name="artifacts")


@dataclass(slots=True)
class PlayerSpells(BlockModel):
    KIND: ClassVar[str] = "player-spells-pwm"
    spell_flags: bytes = b""
    spell_order: bytes = b""
    spell_power: bytes = b""
    spell_cooldown: bytes | None = None  # 1.3.0 on


PLAYER_SPELLS = Struct(PlayerSpells, [
    Len("count", U16, ("spell_flags", "spell_order", "spell_power")),
    *[Field(n, Bytes(Ref("count"))) for n in ("spell_flags", "spell_order", "spell_power")],
    When(since(V1_3), [Field("spell_cooldown", Bytes(Ref("count")))], "spell cooldowns from 1.3.0 on"),
], name="player spells")


@dataclass(slots=True)
class WildMap(BlockModel):
    """Which wilderness squares the player has seen, row by row from the north."""

    KIND: ClassVar[str] = "wild-map-pwm"
    radius: int = 0
    squares: bytes = b""


WILD_MAP = Struct(WildMap, [
    Field("radius", U16), Field("squares", Bytes(Expr("(2 * radius + 1) ** 2"))),
], name="wild map")


# -- the SAVE_AS_STRINGS build option -------------------------------------------------------

BUILD = "save_as_strings"  # the Context entry: 1 for a names build, 0 for an indexes build
# The build a trial read is of (read_build tries both): the Context entry the descriptions'
# names-or-index fields switch on, set around each read and write of such a block.
AS_NAMES = "pwm_as_names"
M = TypeVar("M")


def _read_as(r: Reader, ctx: Context, read_as: Callable[[Reader, bool], M], as_names: bool) -> M:
    """``read_as`` of one build, with the ``pwm_as_names`` entry the descriptions' names-or-index
    fields switch on set for the whole block (taken away after): set once per block, not around
    every record."""
    ctx.values[AS_NAMES] = int(as_names)
    try:
        return read_as(r, as_names)
    finally:
        del ctx.values[AS_NAMES]


def _trial(r: Reader, ctx: Context, read_as: Callable[[Reader, bool], M], as_names: bool
           ) -> tuple[M, int] | None:
    """The block read one way, unrecorded, and where the reading ended; None if it does not fit."""
    with not_recording():
        trial = Reader(r.data, r.pos, r.end)
        try:
            m = _read_as(trial, ctx, read_as, as_names)
        except (FormatError, LayoutError):  # LayoutError: NotCanonical, a byte the other build misreads
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
            tried[as_names] = _trial(r, ctx, read_as, as_names)
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
        m = _read_as(r, ctx, read_as, as_names)
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

    A name comes from the game's data files, so it is printable and has a letter
    in it; a string without one (a comma: the low byte of an index read as text;
    a control byte) is refused, or an index would too easily read as a short name. ``numbers``: the field may
    also hold digits (an artifact or ego "1", known to be none; a random
    artifact's number).
    """
    if not as_names:
        return r.u8(name) if index == "u8" else r.u16(name)
    at = r.pos
    text = read_str(r, name, limit)
    if text and not _is_name(text) and not (numbers and text.isdigit()):
        r.fail(name, "a name from the game's data (printable, with a letter)"
               + (" or a number" if numbers else ""), repr(text), at=at)
    return text


def _is_name(text: str) -> bool:
    """Text the game's data files could hold as a name: printable Latin-1 with an ASCII letter."""
    return (any("a" <= c.lower() <= "z" for c in text)
            and all(" " <= c <= "~" or c >= "\xa0" for c in text))


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




def _name(text: str) -> str:
    """A name read in a SAVE_AS_STRINGS build: as :func:`rd_name_or_index` accepts it."""
    if text and not _is_name(text):
        raise ValueError(repr(text))
    return text


def _name_or_number(text: str) -> str:
    """An artifact or ego: a name, or a number ("1": known to be none; a random artifact's)."""
    if text and not _is_name(text) and not text.isdigit():
        raise ValueError(repr(text))
    return text


def _name_out(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{value!r} (the block is written by a SAVE_AS_STRINGS build: names)")
    return value


class Index(Int):
    """The index an indexes build stores for a kind, artifact, ego or race: a plain integer of
    ``kind`` (so it joins a run of fixed fields, read in one unpack), whose writer refuses a
    name, saying which build the block is written by."""

    def __init__(self, kind: Int) -> None:
        super().__init__(kind.kind)

    def checked_write(self, e: Emitter, value: str, name: str) -> None:
        e.line(f"if not isinstance({value}, int): raise FormatError(None, _j(w.path, {name}), "
               f"'an index (an indexes build)', repr({value}) + ' (the block is written by an indexes build)')")
        super().checked_write(e, value, name)


def name_or_index_as(as_names: bool, index: Int, numbers: bool = True, limit: int = NAME_MAX) -> Type:
    """An artifact, ego, kind or race field as one build stores it: ``index`` in an indexes
    build, a name (of at most ``limit`` bytes, the loader's buffer) in a names build;
    ``numbers``: the name may be a number (artifacts and egos)."""
    if not as_names:
        return Index(index)
    return Adapt(CStr(limit, ENCODING), _name_or_number if numbers else _name, _name_out,
                 "a name from the game's data (printable, with a letter)" + (" or a number" if numbers else ""))


def name_or_index(index: Int, numbers: bool = True, limit: int = NAME_MAX) -> Switch:
    """:func:`name_or_index_as` of the build the ``pwm_as_names`` entry says (set by
    :func:`read_build` for the block), for a record read once in a block."""
    return Switch(f"1 if ctx.values.get({AS_NAMES!r}) else 0", {
        0: name_or_index_as(False, index, numbers, limit), 1: name_or_index_as(True, index, numbers, limit)})


_HIST_ENTRY = Struct(HistoryEntry, [
    Field("type", Bytes(Ctx("pwm_hist_size", "history"))), Field("turn_era", U32), Field("turn", U32),
    Field("dlev", I16), Field("clev", I16),
    # wr_artifact: u8 before 1.6.0, u16 from 1.6.0
    Field("artifact", Switch(f"1 if {since(V1_6)} else 0", {0: name_or_index(U8), 1: name_or_index(U16)})),
    Field("name", CStr(NAME_MAX, ENCODING)), Field("event", CStr(NAME_MAX, ENCODING))], name="entry")
HISTORY = Struct(History, [
    Field("hist_size", U8), SetCtx("pwm_hist_size", "hist_size"),
    Field("entries", List(_HIST_ENTRY, Prefix(I16, "count"))),
], name="history")


def with_build(ctx: Context, as_names: bool, run: Callable[[], M]) -> M:
    """``run`` with the ``pwm_as_names`` entry set to the build (taken away after)."""
    ctx.values[AS_NAMES] = int(as_names)
    try:
        return run()
    finally:
        del ctx.values[AS_NAMES]


def _rd_history(r: Reader, ctx: Context) -> History:
    def read_as(rr: Reader, _: bool) -> History:
        h: History = HISTORY.read(rr, ctx)
        return h

    # From 1.6.0 an entry's artifact is a u16 index or a name, so even an entry naming none
    # differs between the builds (two 0 bytes, or one): such a block depends on the build (it
    # settles it, or must be of the build an earlier block settled).
    wide = magic(ctx) >= V1_6
    m, build = read_build(r, ctx, "history", read_as,
                          lambda m: any(e.artifact for e in m.entries) or wide and bool(m.entries))
    if build is False and not any(e.artifact for e in m.entries):
        build = None  # no artifact: written back in the index form, as read
    m.artifacts_as_names = build  # None: no artifact, read (and written) in the index form
    return m


def _wr_history(m: History, w: Writer, ctx: Context) -> None:
    if m.artifacts_as_names is None and any(e.artifact for e in m.entries):
        raise FormatError(None, "artifacts_as_names", "true or false (an entry names an artifact)", "null")
    with_build(ctx, bool(m.artifacts_as_names), lambda: HISTORY.write(m, w, ctx))


for _struct in (HEADER, MONSTER_MEMORY, OBJECT_MEMORY, PLAYER, IGNORE, ARTIFACTS, character.PLAYER_HP,
                PLAYER_SPELLS, WILD_MAP):
    register_struct(_struct, _struct.name, 1, PWMG, GAME)
_layout("history", History, _rd_history, _wr_history)

