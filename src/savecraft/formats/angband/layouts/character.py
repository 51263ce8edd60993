"""Vanilla Angband 4.2 blocks about the character: rng, options, messages, quests,
player, misc, player hp, player spells and history (``rd_*`` / ``wr_*`` of 4.2).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from ....binary import Reader, Writer
from ....errors import FormatError
from . import BlockModel, Context, Layout, register_layout
from .items import NAME_MAX, Records, check_len, read_str, write_str
from .records import Experience

VANILLA = frozenset({"VNLA"})
GAME = "Vanilla 4.2"
STAT_NAMES = ("str", "int", "wis", "dex", "con")
MAX_LEVEL = 50  # PY_MAX_LEVEL: the loader refuses a level outside 1..50
STAT_RANGE = (3, 118)  # 3 to 18/100, the range the game's stat code works in


FAANGBAND = "FAangband 1 (Ponyband)"
# Blocks FAangband 1 / Ponyband lays out exactly as Vanilla does.
SHARED_WITH_FAAN = ("rng", "messages", "player hp")


def _layout(name: str, model: type, decode: object, encode: object) -> None:
    register_layout(Layout(name, 1, VANILLA, model, decode, encode, GAME,  # type: ignore[arg-type]
                           exact=True))
    if name in SHARED_WITH_FAAN:
        register_layout(Layout(name, 1, frozenset({"FAAN"}), model, decode, encode,  # type: ignore[arg-type]
                               FAANGBAND, exact=True))


# -- rng ------------------------------------------------------------------------------------


@dataclass(slots=True)
class Rng(BlockModel):
    """The random number generator's state (WELL1024a) and its unused padding words."""

    KIND: ClassVar[str] = "rng-4.2"
    rand_value: int = 0
    state_i: int = 0
    z: list[int] = field(default_factory=lambda: [0, 0, 0])
    state: list[int] = field(default_factory=list)
    padding: list[int] = field(default_factory=list)


RAND_DEG = 32
RNG_WORDS = 64


def _rd_rng(r: Reader, ctx: Context) -> Rng:
    words = r.array("u32", RNG_WORDS, "words")
    return Rng(words[0], words[1], list(words[2:5]), list(words[5:5 + RAND_DEG]),
               list(words[5 + RAND_DEG:]))


def _wr_rng(m: Rng, w: Writer, ctx: Context) -> None:
    check_len(m.z, 3, "z", "words")
    check_len(m.state, RAND_DEG, "state", "words")
    check_len(m.padding, RNG_WORDS - 5 - RAND_DEG, "padding", "words")
    w.array("u32", [m.rand_value, m.state_i, *m.z, *m.state, *m.padding], "words")


# -- options --------------------------------------------------------------------------------


@dataclass(slots=True)
class Options(BlockModel):
    KIND: ClassVar[str] = "options-4.2"
    delay_factor: int = 0
    hitpoint_warn: int = 0
    lazymove_delay: int = 0
    sidebar_mode: int = 0
    options: dict[str, int] = field(default_factory=dict)


@dataclass(slots=True)
class _Option:
    """One (name, value) of the options block, as the C reader returns it."""

    name: str = ""
    value: int = 0


_OPTION = Records(_Option, [("name", "s", 39), ("value", "B")])


def _rd_options(r: Reader, ctx: Context) -> Options:
    m = Options(r.u8("delay_factor"), r.u8("hitpoint_warn"), r.u8("lazymove_delay"),
                r.u8("sidebar_mode"))
    start = r.pos
    fast = _OPTION.read(r, ctx, -1, "")
    if fast is not None:
        m.options = {o.name: o.value for o in fast}
        if len(m.options) == len(fast):
            ctx.set("levels_persist", m.options.get("birth_levels_persist", 0), "options")
            return m
        m.options = {}  # a name twice: the loop below says where
        r.pos = start
    while True:
        at = r.pos
        name = read_str(r, f"options[{len(m.options)}].name", 39)
        if not name:
            break
        if name in m.options:
            r.fail("options", "each option once", f"{name!r} twice", at=at)
        m.options[name] = r.u8(f"options[{name}]")
    ctx.set("levels_persist", m.options.get("birth_levels_persist", 0), "options")
    return m


def _wr_options(m: Options, w: Writer, ctx: Context) -> None:
    for name in ("delay_factor", "hitpoint_warn", "lazymove_delay", "sidebar_mode"):
        w.u8(getattr(m, name), name)
    opts = [_Option(k, v) for k, v in m.options.items()] if type(m.options) is dict else None
    fast = opts is not None and _OPTION.write(w, ctx, opts, "")
    for name, value in ({} if fast else m.options).items():
        if not name:
            raise FormatError(None, "options", "option names that are not empty", "''")
        write_str(w, name, f"options[{name}]", 39)
        w.u8(value, f"options[{name}]")
    w.u8(0, "end")
    ctx.set("levels_persist", m.options.get("birth_levels_persist", 0), "options")


# -- messages -------------------------------------------------------------------------------


@dataclass(slots=True)
class Message:
    text: str = ""
    type: int = 0


@dataclass(slots=True)
class Messages(BlockModel):
    KIND: ClassVar[str] = "messages-4.2"
    messages: list[Message] = field(default_factory=list)


_MESSAGE = Records(Message, [("text", "s", NAME_MAX), ("type", "H")])


def _rd_messages(r: Reader, ctx: Context) -> Messages:
    n = r.count(r.i16("count"), 3, "messages", "message")
    fast = _MESSAGE.read(r, ctx, n)
    if fast is not None:
        return Messages(fast)
    return Messages([Message(read_str(r, f"messages[{i}].text"), r.u16(f"messages[{i}].type"))
                     for i in range(n)])


def _wr_messages(m: Messages, w: Writer, ctx: Context) -> None:
    w.i16(len(m.messages), "count")
    fast = _MESSAGE.write(w, ctx, m.messages)
    for i, msg in enumerate([] if fast else m.messages):
        write_str(w, msg.text, f"messages[{i}].text")
        w.u16(msg.type, f"messages[{i}].type")


# -- quests ---------------------------------------------------------------------------------


@dataclass(slots=True)
class Quest:
    level: int = 0
    cur_num: int = 0


@dataclass(slots=True)
class Quests(BlockModel):
    KIND: ClassVar[str] = "quests-4.2"
    quests: list[Quest] = field(default_factory=list)


def _rd_quests(r: Reader, ctx: Context) -> Quests:
    n = r.count(r.u16("count"), 3, "quests", "quest")
    return Quests([Quest(r.u8(f"quests[{i}].level"), r.u16(f"quests[{i}].cur_num")) for i in range(n)])


def _wr_quests(m: Quests, w: Writer, ctx: Context) -> None:
    w.u16(len(m.quests), "count")
    for i, q in enumerate(m.quests):
        w.u8(q.level, f"quests[{i}].level")
        w.u16(q.cur_num, f"quests[{i}].cur_num")


# -- player ---------------------------------------------------------------------------------


@dataclass(slots=True)
class BodySlot:
    type: int = 0
    name: str = ""


@dataclass(slots=True)
class Player(Experience, BlockModel):
    """The character (``rd_player``): who they are, stats, gold, experience, hit and spell points.

    ``experience`` sets current and maximum experience together the way the
    game gains it (the maximum never falls below the current value).
    """

    KIND: ClassVar[str] = "player-4.2"
    full_name: str = ""
    died_from: str = ""
    history: str = ""
    race: str = ""
    shape: str = ""
    character_class: str = ""
    name_suffix: int = 0
    hitdie: int = 0
    expfact: int = 0
    age: int = 0
    height: int = 0
    weight: int = 0
    stat_max: list[int] = field(default_factory=list)
    stat_cur: list[int] = field(default_factory=list)
    stat_map: list[int] = field(default_factory=list)
    stat_birth: list[int] = field(default_factory=list)
    height_birth: int = 0
    weight_birth: int = 0
    unused_birth: int = 0
    au_birth: int = 0
    body_name: str = ""
    body: list[BodySlot] = field(default_factory=list)
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
    recall_depth: int = 0
    old_y: int = 0
    old_x: int = 0
    unused_more: bytes = b"\0" * 5
    unignoring: int = 0
    deep_descent: int = 0
    energy: int = 0
    word_recall: int = 0
    timed: list[int] = field(default_factory=list)
    total_energy: int = 0
    resting_turn: int = 0
    future: bytes = b"\0" * 32

    @property
    def stats(self) -> dict[str, str]:
        """Each stat as the character sheet shows it: current (and maximum when drained)."""
        out = {}
        for i, name in enumerate(STAT_NAMES[:len(self.stat_cur)]):
            cur, top = self.stat_cur[i], self.stat_max[i]
            out[name] = stat_text(cur) if cur == top else f"{stat_text(cur)} (max {stat_text(top)})"
        return out


def stat_text(value: int) -> str:
    """A stored stat as the game prints it: 3..18, then 18/01 .. 18/100 (``cnv_stat``)."""
    if value <= 18:
        return str(value)
    bonus = value - 18
    return "18/***" if bonus >= 220 else f"18/{bonus:03d}" if bonus >= 100 else f"18/{bonus:02d}"


_BODY = Records(BodySlot, [("type", "H"), ("name", "s", 79)])
_PLAYER = Records(Player, [
    ("full_name", "s", 31), ("died_from", "s", 79), ("history", "s", 249), ("race", "s", 79),
    ("shape", "s", 79), ("character_class", "s", 79), ("name_suffix", "B"), ("hitdie", "B"),
    ("expfact", "B"), ("age", "h"), ("height", "h"), ("weight", "h"), ("", "C", len(STAT_NAMES)),
    ("stat_max", "L"), ("stat_cur", "L"), ("stat_map", "L"), ("stat_birth", "L"),
    ("height_birth", "h"), ("weight_birth", "h"), ("unused_birth", "h"), ("au_birth", "i"),
    ("body_name", "s", 79), ("body", "N", _BODY), ("unused_body", "I"), ("au", "i"),
    ("max_exp", "i"), ("exp", "i"), ("exp_frac", "H"), ("lev", "h"), ("mhp", "h"), ("chp", "h"),
    ("chp_frac", "H"), ("msp", "h"), ("csp", "h"), ("csp_frac", "H"), ("max_lev", "h"),
    ("max_depth", "h"), ("recall_depth", "h"), ("old_y", "B"), ("old_x", "B"),
    ("unused_more", "y", 5), ("unignoring", "B"), ("deep_descent", "h"), ("energy", "h"),
    ("word_recall", "h"), ("timed", "c"), ("total_energy", "I"), ("resting_turn", "I"),
    ("future", "y", 32)])


def _rd_player(r: Reader, ctx: Context) -> Player:
    start = r.pos
    fast = _PLAYER.read(r, ctx, 1)
    if fast is not None and 1 <= fast[0].lev <= MAX_LEVEL:
        ctx.set("spell_count_known", 1, "player")
        return fast[0]  # type: ignore[no-any-return]
    r.pos = start  # a level the loader refuses, or anything unusual: read again, checked
    p = Player()
    p.full_name = read_str(r, "full_name", 31)
    p.died_from = read_str(r, "died_from", 79)
    p.history = read_str(r, "history", 249)
    p.race = read_str(r, "race", 79)
    p.shape = read_str(r, "shape", 79)
    p.character_class = read_str(r, "character_class", 79)
    p.name_suffix = r.u8("name_suffix")
    p.hitdie = r.u8("hitdie")
    p.expfact = r.u8("expfact")
    p.age, p.height, p.weight = r.array("i16", 3, "age")
    at = r.pos
    n = r.u8("stat_count")
    if n > len(STAT_NAMES):
        r.fail("stat_count", f"at most {len(STAT_NAMES)} stats", str(n), at=at)
    p.stat_max = list(r.array("i16", n, "stat_max"))
    p.stat_cur = list(r.array("i16", n, "stat_cur"))
    p.stat_map = list(r.array("i16", n, "stat_map"))
    p.stat_birth = list(r.array("i16", n, "stat_birth"))
    p.height_birth, p.weight_birth, p.unused_birth = r.array("i16", 3, "height_birth")
    p.au_birth = r.i32("au_birth")
    p.body_name = read_str(r, "body_name", 79)
    n = r.count(r.u16("body_count"), 3, "body", "slot")
    p.body = [BodySlot(r.u16(f"body[{i}].type"), read_str(r, f"body[{i}].name", 79)) for i in range(n)]
    p.unused_body = r.u32("unused_body")
    p.au = r.i32("au")
    p.max_exp = r.i32("max_exp")
    p.exp = r.i32("exp")
    p.exp_frac = r.u16("exp_frac")
    at = r.pos
    p.lev = r.i16("lev")
    if not 1 <= p.lev <= MAX_LEVEL:
        r.fail("lev", f"a level from 1 to {MAX_LEVEL}", str(p.lev), at=at)
    p.mhp, p.chp = r.array("i16", 2, "mhp")
    p.chp_frac = r.u16("chp_frac")
    p.msp, p.csp = r.array("i16", 2, "msp")
    p.csp_frac = r.u16("csp_frac")
    p.max_lev, p.max_depth, p.recall_depth = r.array("i16", 3, "max_lev")
    p.old_y = r.u8("old_y")
    p.old_x = r.u8("old_x")
    p.unused_more = r.bytes(5, "unused_more")
    p.unignoring = r.u8("unignoring")
    p.deep_descent, p.energy, p.word_recall = r.array("i16", 3, "deep_descent")
    n = r.u8("timed_count")
    p.timed = list(r.array("i16", n, "timed"))
    p.total_energy = r.u32("total_energy")
    p.resting_turn = r.u32("resting_turn")
    p.future = r.bytes(32, "future")
    ctx.set("spell_count_known", 1, "player")
    return p


def _wr_player(p: Player, w: Writer, ctx: Context) -> None:
    if type(p.lev) is int and 1 <= p.lev <= MAX_LEVEL and _PLAYER.write(w, ctx, [p]):
        return
    write_str(w, p.full_name, "full_name", 31)
    write_str(w, p.died_from, "died_from", 79)
    write_str(w, p.history, "history", 249)
    write_str(w, p.race, "race", 79)
    write_str(w, p.shape, "shape", 79)
    write_str(w, p.character_class, "character_class", 79)
    w.u8(p.name_suffix, "name_suffix")
    w.u8(p.hitdie, "hitdie")
    w.u8(p.expfact, "expfact")
    w.array("i16", [p.age, p.height, p.weight], "age")
    n = len(p.stat_max)
    if n > len(STAT_NAMES):
        raise FormatError(None, "stat_max", f"at most {len(STAT_NAMES)} stats", str(n))
    w.u8(n, "stat_count")
    for name in ("stat_max", "stat_cur", "stat_map", "stat_birth"):
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
    w.i32(p.au, "au")
    w.i32(p.max_exp, "max_exp")
    w.i32(p.exp, "exp")
    w.u16(p.exp_frac, "exp_frac")
    if not 1 <= p.lev <= MAX_LEVEL:
        raise FormatError(None, "lev", f"a level from 1 to {MAX_LEVEL}", str(p.lev))
    w.i16(p.lev, "lev")
    w.array("i16", [p.mhp, p.chp], "mhp")
    w.u16(p.chp_frac, "chp_frac")
    w.array("i16", [p.msp, p.csp], "msp")
    w.u16(p.csp_frac, "csp_frac")
    w.array("i16", [p.max_lev, p.max_depth, p.recall_depth], "max_lev")
    w.u8(p.old_y, "old_y")
    w.u8(p.old_x, "old_x")
    w.bytes(p.unused_more, "unused_more", size=5)
    w.u8(p.unignoring, "unignoring")
    w.array("i16", [p.deep_descent, p.energy, p.word_recall], "deep_descent")
    w.u8(len(p.timed), "timed_count")
    w.array("i16", p.timed, "timed")
    w.u32(p.total_energy, "total_energy")
    w.u32(p.resting_turn, "resting_turn")
    w.bytes(p.future, "future", size=32)


# -- misc -----------------------------------------------------------------------------------


@dataclass(slots=True)
class Misc(BlockModel):
    """Seeds, the game turn, and what the character knows of object properties (runes)."""

    KIND: ClassVar[str] = "misc-4.2"
    seed_randart: int = 0
    seed_flavor: int = 0
    total_winner: int = 0
    noscore: int = 0
    is_dead: int = 0
    turn: int = 0
    known_flags: bytes = b""
    known_modifiers: list[int] = field(default_factory=list)
    known_elements: list[tuple[int, int]] = field(default_factory=list)
    known_brands: bytes = b""
    known_slays: bytes = b""
    known_curses: bytes = b""
    known_ac: int = 0
    known_to_a: int = 0
    known_to_h: int = 0
    known_to_d: int = 0
    known_dd: int = 0
    known_ds: int = 0


_MISC = Records(Misc, [
    ("seed_randart", "I"), ("seed_flavor", "I"), ("total_winner", "H"), ("noscore", "H"),
    ("is_dead", "B"), ("turn", "i"), ("known_flags", "y", "of_size"),
    ("known_modifiers", "l", "obj_mod_max"), ("known_elements", "T", "elem_max"),
    ("known_brands", "y", "brand_max"), ("known_slays", "y", "slay_max"),
    ("known_curses", "y", "curse_max"), ("known_ac", "h"), ("known_to_a", "h"), ("known_to_h", "h"),
    ("known_to_d", "h"), ("known_dd", "B"), ("known_ds", "B")])


def _rd_misc(r: Reader, ctx: Context) -> Misc:
    fast = _MISC.read(r, ctx, 1)
    if fast is not None:
        ctx.set("is_dead", fast[0].is_dead, "misc")
        return fast[0]  # type: ignore[no-any-return]
    m = Misc(r.u32("seed_randart"), r.u32("seed_flavor"), r.u16("total_winner"), r.u16("noscore"),
             r.u8("is_dead"), r.i32("turn"))
    m.known_flags = r.bytes(ctx.need("of_size", "object memory"), "known_flags")
    m.known_modifiers = list(r.array("i16", ctx.need("obj_mod_max", "object memory"), "known_modifiers"))
    m.known_elements = [(r.i16(f"known_elements[{i}].res_level"), r.u8(f"known_elements[{i}].flags"))
                        for i in range(ctx.need("elem_max", "object memory"))]
    m.known_brands = r.bytes(ctx.need("brand_max", "object memory"), "known_brands")
    m.known_slays = r.bytes(ctx.need("slay_max", "object memory"), "known_slays")
    m.known_curses = r.bytes(ctx.need("curse_max", "object memory"), "known_curses")
    m.known_ac, m.known_to_a, m.known_to_h, m.known_to_d = r.array("i16", 4, "known_ac")
    m.known_dd = r.u8("known_dd")
    m.known_ds = r.u8("known_ds")
    ctx.set("is_dead", m.is_dead, "misc")
    return m


def _wr_misc(m: Misc, w: Writer, ctx: Context) -> None:
    if _MISC.write(w, ctx, [m]):
        ctx.set("is_dead", m.is_dead, "misc")
        return
    w.u32(m.seed_randart, "seed_randart")
    w.u32(m.seed_flavor, "seed_flavor")
    w.u16(m.total_winner, "total_winner")
    w.u16(m.noscore, "noscore")
    w.u8(m.is_dead, "is_dead")
    w.i32(m.turn, "turn")
    for name, key in (("known_flags", "of_size"), ("known_modifiers", "obj_mod_max"),
                      ("known_elements", "elem_max"), ("known_brands", "brand_max"),
                      ("known_slays", "slay_max"), ("known_curses", "curse_max")):
        check_len(getattr(m, name), ctx.need(key, "object memory"), name, "entries")
    w.bytes(m.known_flags, "known_flags")
    w.array("i16", m.known_modifiers, "known_modifiers")
    for i, (level, flags) in enumerate(m.known_elements):
        w.i16(level, f"known_elements[{i}].res_level")
        w.u8(flags, f"known_elements[{i}].flags")
    w.bytes(m.known_brands, "known_brands")
    w.bytes(m.known_slays, "known_slays")
    w.bytes(m.known_curses, "known_curses")
    w.array("i16", [m.known_ac, m.known_to_a, m.known_to_h, m.known_to_d], "known_ac")
    w.u8(m.known_dd, "known_dd")
    w.u8(m.known_ds, "known_ds")
    ctx.set("is_dead", m.is_dead, "misc")


# -- player hp, player spells ---------------------------------------------------------------


@dataclass(slots=True)
class PlayerHp(BlockModel):
    """The hit points rolled at each level (the game sums them for maximum HP)."""

    KIND: ClassVar[str] = "player-hp-4.2"
    player_hp: list[int] = field(default_factory=list)


def read_player_hp(r: Reader, ctx: Context) -> PlayerHp:
    at = r.pos
    n = r.u16("count")
    if n > MAX_LEVEL:
        r.fail("count", f"at most {MAX_LEVEL} entries", str(n), at=at)
    return PlayerHp(list(r.array("i16", n, "player_hp")))


def write_player_hp(m: PlayerHp, w: Writer, ctx: Context) -> None:
    if len(m.player_hp) > MAX_LEVEL:
        raise FormatError(None, "player_hp", f"at most {MAX_LEVEL} entries", str(len(m.player_hp)))
    w.u16(len(m.player_hp), "count")
    w.array("i16", m.player_hp, "player_hp")


@dataclass(slots=True)
class PlayerSpells(BlockModel):
    KIND: ClassVar[str] = "player-spells-4.2"
    spell_flags: bytes = b""
    spell_order: bytes = b""


def _rd_spells(r: Reader, ctx: Context) -> PlayerSpells:
    n = r.u16("count")
    return PlayerSpells(r.bytes(n, "spell_flags"), r.bytes(n, "spell_order"))


def _wr_spells(m: PlayerSpells, w: Writer, ctx: Context) -> None:
    check_len(m.spell_order, len(m.spell_flags), "spell_order", "entries (one per spell flag)")
    w.u16(len(m.spell_flags), "count")
    w.bytes(m.spell_flags, "spell_flags")
    w.bytes(m.spell_order, "spell_order")


# -- history --------------------------------------------------------------------------------


@dataclass(slots=True)
class HistoryEntry:
    type: bytes = b""
    turn: int = 0
    dlev: int = 0
    clev: int = 0
    artifact: str = ""
    event: str = ""


@dataclass(slots=True)
class History(BlockModel):
    KIND: ClassVar[str] = "history-4.2"
    hist_size: int = 0
    entries: list[HistoryEntry] = field(default_factory=list)


_HISTORY = Records(HistoryEntry, [("type", "y", "hist_size"), ("turn", "i"), ("dlev", "h"),
                                  ("clev", "h"), ("artifact", "s", 79), ("event", "s", 79)])


def _rd_history(r: Reader, ctx: Context) -> History:
    m = History(r.u8("hist_size"))
    n = r.count(r.u32("count"), m.hist_size + 10, "entries", "entry")
    fast = _HISTORY.read(r, ctx, n, hist_size=m.hist_size)
    if fast is not None:
        m.entries = fast
        return m
    for i in range(n):
        m.entries.append(HistoryEntry(
            r.bytes(m.hist_size, f"entries[{i}].type"), r.i32(f"entries[{i}].turn"),
            r.i16(f"entries[{i}].dlev"), r.i16(f"entries[{i}].clev"),
            read_str(r, f"entries[{i}].artifact", 79), read_str(r, f"entries[{i}].event", 79)))
    return m


def _wr_history(m: History, w: Writer, ctx: Context) -> None:
    w.u8(m.hist_size, "hist_size")
    w.u32(len(m.entries), "count")
    fast = _HISTORY.write(w, ctx, m.entries, hist_size=m.hist_size)
    for i, e in enumerate([] if fast else m.entries):
        check_len(e.type, m.hist_size, f"entries[{i}].type", "type bytes (hist_size)")
        w.bytes(e.type, f"entries[{i}].type")
        w.i32(e.turn, f"entries[{i}].turn")
        w.i16(e.dlev, f"entries[{i}].dlev")
        w.i16(e.clev, f"entries[{i}].clev")
        write_str(w, e.artifact, f"entries[{i}].artifact", 79)
        write_str(w, e.event, f"entries[{i}].event", 79)


_layout("rng", Rng, _rd_rng, _wr_rng)
_layout("options", Options, _rd_options, _wr_options)
_layout("messages", Messages, _rd_messages, _wr_messages)
_layout("quests", Quests, _rd_quests, _wr_quests)
_layout("player", Player, _rd_player, _wr_player)
_layout("misc", Misc, _rd_misc, _wr_misc)
_layout("player hp", PlayerHp, read_player_hp, write_player_hp)
_layout("player spells", PlayerSpells, _rd_spells, _wr_spells)
_layout("history", History, _rd_history, _wr_history)


def description_line(p: Player, rest: str) -> str:
    """The savefile-menu line 4.2 writes for a living character (``wr_description``)."""
    return f"{p.full_name}, L{p.lev} {p.race} {p.character_class}{rest}"
