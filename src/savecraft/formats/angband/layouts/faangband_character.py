"""FAangband 1 as Ponyband writes it (variant ``FAAN``): the player (version 2), misc and
history blocks (``wr_player``, ``wr_misc``, ``wr_history`` of Ponyband's ``src/save.c``
at the samples' commit 59f6ca5, read back by ``rd_player_2``, ``rd_misc``, ``rd_history``).

Race, class, cutie mark and sex are stored as indexes into the game's data
files, not as names; the description block carries the names the game
showed. How many stats the player has is the ``a_max`` the object memory
block stored. A layout reads exactly what the game's writer wrote, including
the "expansion" words the loader skips (the history block ends with one).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from ....binary import Reader, Record, Writer
from ....errors import FormatError
from . import BlockModel, Context, Layout, register_layout
from .character import FAANGBAND, MAX_LEVEL, STAT_NAMES, stat_text
from .items import check_len, read_str, write_str
from .records import Experience, record_values, set_from_record

FAAN = frozenset({"FAAN"})
ACTION_MAX = 6  # previous_action[]: the last moves, kept for the "charge" attack
BAREHAND = 12  # barehand_dam[]: a druid's unarmed damage by level band
FA_STAT_NAMES = (*STAT_NAMES, "chr")  # FAangband keeps charisma (A_MAX 6)


def _layout(name: str, version: int, model: type, decode: object, encode: object) -> None:
    register_layout(Layout(name, version, FAAN, model, decode, encode, FAANGBAND))  # type: ignore[arg-type]


def _read_counted(r: Reader, kind: str, name: str) -> list[int]:
    """A list the writer prefixes with its length in one byte (timed effects, runes...)."""
    return list(r.array(kind, r.u8(f"{name}_count"), name))


def _write_counted(w: Writer, kind: str, values: list[int], name: str) -> None:
    if len(values) > 255:
        raise FormatError(None, name, "at most 255 entries (a one-byte count)", str(len(values)))
    w.u8(len(values), f"{name}_count")
    w.array(kind, values, name)


# -- player (version 2) ---------------------------------------------------------------------

_WHO = Record("FAangband player identity", [
    ("prace", "u8"), ("pclass", "u8"), ("pmark", "u8"), ("psex", "u8"), ("name_suffix", "u8"),
    ("hitdie", "u8"), ("unused_hitdie", "u8"), ("age", "u16"), ("height", "u16"), ("weight", "u16"),
    ("previous_action", f"bytes[{ACTION_MAX}]")])
_BIRTH = Record("FAangband birth values", [
    ("height_birth", "i16"), ("weight_birth", "i16"), ("sc_birth", "i16"), ("au_birth", "i32")])
_POINTS = Record("FAangband gold and points", [
    ("au", "i32"), ("max_exp", "i32"), ("exp", "i32"), ("exp_frac", "u16"), ("lev", "i16"),
    ("home", "i16"), ("mhp", "i16"), ("chp", "i16"), ("chp_frac", "u16"), ("msp", "i16"),
    ("csp", "i16"), ("csp_frac", "u16"), ("max_lev", "i16")])
_STATE = Record("FAangband player state", [
    ("speed_boost", "i16"), ("heighten_power", "i16"), ("sc", "u16"), ("alignment", "i16"),
    ("food", "i16"), ("energy", "i16"), ("word_recall", "i16"), ("see_infra", "i16")])
_LEVEL = Record("FAangband level state", [
    ("special_attack", "u32"), ("unused_a", "bytes[2]"), ("black_breath", "u8"), ("searching", "u8"),
    ("unused_b", "bytes[2]"), ("schange", "u8"), ("bones_selector", "u8"),
    ("thefts_on_level", "u8"), ("traps_on_level", "u8")])
_THEME = Record("FAangband themed level", [
    ("mana_reserve", "u8"), ("themed_level", "u8"), ("themed_level_appeared", "u32")])
_TAIL = Record("FAangband player tail", [("unused_c", "bytes[2]"), ("expansion", "bytes[8]")])


@dataclass(slots=True)
class Player(Experience, BlockModel):
    """The character (``wr_player``): name, stats, gold, experience, hit and spell points.

    ``experience`` sets current and maximum experience together, as the
    Vanilla model does. ``recall`` holds the recall points (stages) the
    character may return to; ``game_modes`` the birth modes (ironman...).
    """

    KIND: ClassVar[str] = "player-faan"
    STAT_NAMES: ClassVar[tuple[str, ...]] = FA_STAT_NAMES
    full_name: str = ""
    died_from: str = ""
    history: str = ""
    prace: int = 0
    pclass: int = 0
    pmark: int = 0
    psex: int = 0
    name_suffix: int = 0
    hitdie: int = 0
    unused_hitdie: int = 0
    age: int = 0
    height: int = 0
    weight: int = 0
    previous_action: bytes = b"\0" * ACTION_MAX
    stat_max: list[int] = field(default_factory=list)
    stat_cur: list[int] = field(default_factory=list)
    stat_birth: list[int] = field(default_factory=list)
    height_birth: int = 0
    weight_birth: int = 0
    sc_birth: int = 0
    au_birth: int = 0
    barehand_dam: list[int] = field(default_factory=lambda: [0] * BAREHAND)
    au: int = 0
    max_exp: int = 0
    exp: int = 0
    exp_frac: int = 0
    lev: int = 1
    home: int = 0
    mhp: int = 0
    chp: int = 0
    chp_frac: int = 0
    msp: int = 0
    csp: int = 0
    csp_frac: int = 0
    max_lev: int = 1
    recall: list[int] = field(default_factory=list)
    recall_pt: int = 0
    map: int = 0
    game_modes: list[int] = field(default_factory=list)
    speed_boost: int = 0
    heighten_power: int = 0
    sc: int = 0
    alignment: int = 0
    food: int = 0
    energy: int = 0
    word_recall: int = 0
    see_infra: int = 0
    timed: list[int] = field(default_factory=list)
    special_attack: int = 0
    unused_a: bytes = b"\0\0"
    black_breath: int = 0
    searching: int = 0
    unused_b: bytes = b"\0\0"
    schange: int = 0
    bones_selector: int = 0
    thefts_on_level: int = 0
    traps_on_level: int = 0
    runes_on_level: list[int] = field(default_factory=list)
    mana_reserve: int = 0
    themed_level: int = 0
    themed_level_appeared: int = 0
    specialties: list[int] = field(default_factory=list)
    unused_c: bytes = b"\0\0"
    expansion: bytes = b"\0" * 8

    @property
    def stats(self) -> dict[str, str]:
        """Each stat as the character sheet shows it: current (and maximum when drained)."""
        out = {}
        for i, name in enumerate(FA_STAT_NAMES[:len(self.stat_cur)]):
            cur, top = self.stat_cur[i], self.stat_max[i]
            out[name] = stat_text(cur) if cur == top else f"{stat_text(cur)} (max {stat_text(top)})"
        return out


def _rd_player(r: Reader, ctx: Context) -> Player:
    p = Player(read_str(r, "full_name", 31), read_str(r, "died_from", 79), read_str(r, "history", 249))
    set_from_record(p, _WHO, r.record(_WHO))
    a_max = ctx.need("a_max", "object memory")
    p.stat_max = list(r.array("i16", a_max, "stat_max"))
    p.stat_cur = list(r.array("i16", a_max, "stat_cur"))
    p.stat_birth = list(r.array("i16", a_max, "stat_birth"))
    set_from_record(p, _BIRTH, r.record(_BIRTH))
    p.barehand_dam = list(r.array("u16", BAREHAND, "barehand_dam"))
    at = r.pos
    set_from_record(p, _POINTS, r.record(_POINTS))
    if not 1 <= p.lev <= MAX_LEVEL:
        r.fail("lev", f"a level from 1 to {MAX_LEVEL}", str(p.lev), at=at + 14)
    p.recall = _read_counted(r, "i16", "recall")
    p.recall_pt = r.i16("recall_pt")
    p.map = r.u8("map")
    p.game_modes = _read_counted(r, "u8", "game_modes")
    set_from_record(p, _STATE, r.record(_STATE))
    p.timed = _read_counted(r, "i16", "timed")
    set_from_record(p, _LEVEL, r.record(_LEVEL))
    p.runes_on_level = _read_counted(r, "u8", "runes_on_level")
    set_from_record(p, _THEME, r.record(_THEME))
    p.specialties = _read_counted(r, "u8", "specialties")
    set_from_record(p, _TAIL, r.record(_TAIL))
    return p


def _wr_player(p: Player, w: Writer, ctx: Context) -> None:
    write_str(w, p.full_name, "full_name", 31)
    write_str(w, p.died_from, "died_from", 79)
    write_str(w, p.history, "history", 249)
    w.record(_WHO, record_values(p, _WHO))
    a_max = ctx.need("a_max", "object memory")
    for name in ("stat_max", "stat_cur", "stat_birth"):
        check_len(getattr(p, name), a_max, name, "stats (a_max)")
        w.array("i16", getattr(p, name), name)
    w.record(_BIRTH, record_values(p, _BIRTH))
    check_len(p.barehand_dam, BAREHAND, "barehand_dam", "values")
    w.array("u16", p.barehand_dam, "barehand_dam")
    if not 1 <= p.lev <= MAX_LEVEL:
        raise FormatError(None, "lev", f"a level from 1 to {MAX_LEVEL}", str(p.lev))
    w.record(_POINTS, record_values(p, _POINTS))
    _write_counted(w, "i16", p.recall, "recall")
    w.i16(p.recall_pt, "recall_pt")
    w.u8(p.map, "map")
    _write_counted(w, "u8", p.game_modes, "game_modes")
    w.record(_STATE, record_values(p, _STATE))
    _write_counted(w, "i16", p.timed, "timed")
    w.record(_LEVEL, record_values(p, _LEVEL))
    _write_counted(w, "u8", p.runes_on_level, "runes_on_level")
    w.record(_THEME, record_values(p, _THEME))
    _write_counted(w, "u8", p.specialties, "specialties")
    w.record(_TAIL, record_values(p, _TAIL))


# -- misc -----------------------------------------------------------------------------------

_MISC = Record("FAangband misc", [
    ("quests", "u16"), ("score", "u32"), ("total_winner", "u16"), ("noscore", "u16"),
    ("follow_distance", "u16"), ("is_dead", "u8"), ("feeling", "u8"), ("do_feeling", "u8"),
    ("turn", "i32")])


@dataclass(slots=True)
class Misc(BlockModel):
    """The flavour seed, one seed per town, the score, whether the character is dead, the turn."""

    KIND: ClassVar[str] = "misc-faan"
    seed_flavor: int = 0
    seed_town: list[int] = field(default_factory=list)
    quests: int = 0
    score: int = 0
    total_winner: int = 0
    noscore: int = 0
    follow_distance: int = 0
    is_dead: int = 0
    feeling: int = 0
    do_feeling: int = 0
    turn: int = 0


def _rd_misc(r: Reader, ctx: Context) -> Misc:
    m = Misc(r.u32("seed_flavor"), list(r.array("u32", r.u8("town_count"), "seed_town")))
    set_from_record(m, _MISC, r.record(_MISC))
    ctx.set("is_dead", m.is_dead, "misc")
    return m


def _wr_misc(m: Misc, w: Writer, ctx: Context) -> None:
    w.u32(m.seed_flavor, "seed_flavor")
    if len(m.seed_town) > 255:
        raise FormatError(None, "seed_town", "at most 255 towns", str(len(m.seed_town)))
    w.u8(len(m.seed_town), "town_count")
    w.array("u32", m.seed_town, "seed_town")
    w.record(_MISC, record_values(m, _MISC))
    ctx.set("is_dead", m.is_dead, "misc")


# -- history --------------------------------------------------------------------------------

_ENTRY = Record("3.x history entry", [
    ("type", "u16"), ("turn", "i32"), ("place", "i16"), ("clev", "i16"), ("a_idx", "u8")])


@dataclass(slots=True)
class HistoryEntry:
    """One line of the character's history: ``place`` is the depth (FAangband: the stage),
    ``a_idx`` the artifact's index (0: none)."""

    type: int = 0
    turn: int = 0
    place: int = 0
    clev: int = 0
    a_idx: int = 0
    event: str = ""


@dataclass(slots=True)
class History(BlockModel):
    """The history as the 3.x line of games writes it; FAangband's writer adds an "expansion"
    word at the end (Angband 3.x's does not: ``expansion`` is None)."""

    KIND: ClassVar[str] = "history-3.x"
    entries: list[HistoryEntry] = field(default_factory=list)
    expansion: int | None = 0


def _rd_entries(r: Reader) -> list[HistoryEntry]:
    n = r.count(r.u32("count"), _ENTRY.size + 1, "entries", "entry")
    out = []
    for i in range(n):
        e = HistoryEntry(*r.record(_ENTRY, f"entries[{i}]"))
        e.event = read_str(r, f"entries[{i}].event", 79)
        out.append(e)
    return out


def _rd_history(r: Reader, ctx: Context) -> History:
    return History(_rd_entries(r), r.u32("expansion"))


def read_history_3x(r: Reader, ctx: Context) -> History:
    """Angband 3.x's history block: FAangband's without the expansion word."""
    return History(_rd_entries(r), None)


def write_history(m: History, w: Writer, ctx: Context) -> None:
    w.u32(len(m.entries), "count")
    for i, e in enumerate(m.entries):
        w.record(_ENTRY, record_values(e, _ENTRY), f"entries[{i}]")
        write_str(w, e.event, f"entries[{i}].event", 79)
    if m.expansion is not None:
        w.u32(m.expansion, "expansion")


_layout("player", 2, Player, _rd_player, _wr_player)
_layout("misc", 1, Misc, _rd_misc, _wr_misc)
_layout("history", 1, History, _rd_history, write_history)
