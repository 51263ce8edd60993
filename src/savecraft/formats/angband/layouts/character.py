"""Vanilla Angband 4.2 blocks about the character: rng, options, messages, quests,
player, misc, player hp, player spells and history (``rd_*`` / ``wr_*`` of 4.2).
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
    Computed,
    CStr,
    Ctx,
    Field,
    Len,
    List,
    Member,
    Prefix,
    Range,
    Ref,
    SetCtx,
    Struct,
    Switch,
    Tuple,
    Until,
    When,
)
from . import BlockModel, register_struct
from .items import NAME_MAX
from .records import Experience

VARIANTS = ("VNLA", "FAAN")  # the variant ids this module registers layouts for (see the package)

VANILLA = frozenset({"VNLA"})
GAME = "Vanilla 4.2"
STAT_NAMES = ("str", "int", "wis", "dex", "con")
MAX_LEVEL = 50  # PY_MAX_LEVEL: the loader refuses a level outside 1..50
STAT_RANGE = (3, 118)  # 3 to 18/100, the range the game's stat code works in
# The game reads and writes its strings as bytes: a name or message typed on an 8-bit terminal
# (or by an older release) is not UTF-8. Such text is read as Latin-1 and written back as read.
EIGHT_BIT = "latin-1"
# TMD_MAX, the number of timed effects each release writes (list-player-timed.h): see release().
TMD_MAX_BY_RELEASE = {"4.2.0": 52, "4.2.1": 53}


FAANGBAND = "FAangband 1 (Ponyband)"
# Blocks FAangband 1 / Ponyband lays out exactly as Vanilla does.
SHARED_WITH_FAAN = ("rng", "messages", "player hp")


def _layout(struct: Struct, name: str) -> None:
    register_struct(struct, name, 1, VANILLA, GAME)
    if name in SHARED_WITH_FAAN:
        register_struct(struct, name, 1, frozenset({"FAAN"}), FAANGBAND)


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


RNG = Struct(Rng, [Field("rand_value", U32), Field("state_i", U32), Field("z", Array(U32, 3)),
                   Field("state", Array(U32, RAND_DEG)),
                   Field("padding", Array(U32, RNG_WORDS - 5 - RAND_DEG))], name="rng")


# -- options --------------------------------------------------------------------------------


@dataclass(slots=True)
class Options(BlockModel):
    """The special options, then each option by name (``rd_options``).

    4.2.0 and 4.2.1 store the movement delay as a u16 (their loader keeps a value
    below 1000); 4.2.2 on store it as a byte followed by the sidebar mode
    (``sidebar_mode`` is None before). Nothing in the block says which: the player
    block does (4.2.0 writes 52 timed effects, see :func:`release`), and the
    decoder puts its release range in the context (``release_last``) before this
    block is read. ``delay_u16`` keeps the choice, so a rebuild writes the same
    bytes. A 4.2.1 file cannot be told from 4.2.2 on and is read as those
    (the same bytes for a delay below 256 and the left sidebar).
    """

    KIND: ClassVar[str] = "options-4.2"
    delay_factor: int = 0
    hitpoint_warn: int = 0
    lazymove_delay: int = 0
    sidebar_mode: int | None = 0
    options: dict[str, int] = field(default_factory=dict)
    delay_u16: bool = False


@dataclass(slots=True)
class _Option:
    """One (name, value) of the options block, as the C reader returns it."""

    name: str = ""
    value: int = 0


def _options_dict(pairs: list[_Option]) -> dict[str, int]:
    out: dict[str, int] = {}
    for o in pairs:
        if o.name in out:
            raise ValueError(f"{o.name!r} twice")
        out[o.name] = o.value
    return out


def _options_list(options: dict[str, int]) -> list[_Option]:
    return [_Option(k, v) for k, v in options.items()]


_OPTION = Struct(_Option, [Field("name", CStr(39)), Field("value", U8)], name="option")
# The context entry the decoder sets from the player block: the last 4.2 release that writes
# the file's player block, as 0x040200 for 4.2.0 (absent for the other games of this layout,
# all of which write the 4.2.2 options).
RELEASE_LAST = "release_last"
OPTIONS = Struct(Options, [
    Field("delay_factor", U8), Field("hitpoint_warn", U8),
    Computed("delay_u16", f"ctx.values.get({RELEASE_LAST!r}, 0) in (0x040200, 0x040201)"),
    Field("lazymove_delay", Switch("delay_u16", {True: U16, False: U8})),
    When("not delay_u16", [Field("sidebar_mode", U8)], "the sidebar mode from 4.2.2 on"),
    Field("options", Adapt(Until(_OPTION, CStr(39), ""), _options_dict, _options_list,
                           "each option once")),
    SetCtx("levels_persist", "options.get('birth_levels_persist', 0)"),
], name="options")


# -- messages -------------------------------------------------------------------------------


@dataclass(slots=True)
class Message:
    text: str = ""
    type: int = 0


@dataclass(slots=True)
class Messages(BlockModel):
    KIND: ClassVar[str] = "messages-4.2"
    messages: list[Message] = field(default_factory=list)


MESSAGES = Struct(Messages, [Field("messages", List(
    Struct(Message, [Field("text", CStr(NAME_MAX, eight_bit=EIGHT_BIT)), Field("type", U16)], name="message"),
    Prefix(I16, "count")))], name="messages")


# -- quests ---------------------------------------------------------------------------------


@dataclass(slots=True)
class Quest:
    level: int = 0
    cur_num: int = 0


@dataclass(slots=True)
class Quests(BlockModel):
    KIND: ClassVar[str] = "quests-4.2"
    quests: list[Quest] = field(default_factory=list)


QUESTS = Struct(Quests, [Field("quests", List(
    Struct(Quest, [Field("level", U8), Field("cur_num", U16)], name="quest"),
    Prefix(U16, "count")))], name="quests")


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

    def release_reason(self) -> str:
        """Which 4.2 releases write this block, and why (for ``info``'s game reason)."""
        label, why = release(self)
        return f"read as Vanilla {label}: {why}"

    def context_facts(self) -> dict[str, int]:
        """What the blocks before this one need to know of the file (the options block: the
        release range's last release, ``release_last``, as 0x040200 for 4.2.0)."""
        label = release(self)[0]
        last = label.rsplit("-", 1)[-1].split(".")
        if len(last) != 3:
            return {}
        return {RELEASE_LAST: int(last[0]) << 16 | int(last[1]) << 8 | int(last[2])}


# Which 4.2 release wrote a file: nothing in it names the release, and every release writes
# every block as version 1, with the same fields in the same bytes (4.2.4 fills two bytes 4.2.0
# to 4.2.3 write as 0 with the old grid, 4.2.5 a third with skip_cmd_coercion). What differs is
# what each release writes there, as read from save.c at each tag: ``wr_player`` writes exactly
# TMD_MAX timed effects (52 in 4.2.0, 53 from 4.2.1 on: list-player-timed.h; every loader reads
# fewer or more, discarding the extra ones, so no count is refused). 4.2.6 (December 2025)
# writes what 4.2.5 writes (save.c the same; list-player-timed.h the same): a new option and
# an object flag, both stored with their names or sizes, so only the ranges end later.
RELEASES_42 = ("4.2.0", "4.2.1", "4.2.2", "4.2.3", "4.2.4", "4.2.5", "4.2.6")
LAST_42 = RELEASES_42[-1]


def release(p: Player) -> tuple[str, str]:
    """The 4.2 releases that write this player block (a range, "4.2.1-4.2.6"), and why.

    Only what a release writes differently counts: the number of timed effects (TMD_MAX),
    the old grid (4.2.4 on; earlier releases write zeros) and skip_cmd_coercion (4.2.5 on;
    4.2.6 writes the same as 4.2.5).
    A block that says nothing more is shown as the whole range it fits, never narrowed by
    guessing.
    """
    n = len(p.timed)
    if n == TMD_MAX_BY_RELEASE["4.2.0"]:
        first, why = "4.2.0", [f"it stores {n} timed effects, 4.2.0's TMD_MAX (4.2.1 on write 53)"]
        last = "4.2.0"
    elif n == TMD_MAX_BY_RELEASE["4.2.1"]:
        first, last = "4.2.1", LAST_42
        why = [f"it stores {n} timed effects, the TMD_MAX of 4.2.1 to {LAST_42} (4.2.0 writes 52)"]
        if p.unused_more[4:5] not in (b"", b"\0"):
            first, why = "4.2.5", why + ["skip_cmd_coercion is set (4.2.5 on write it; earlier releases "
                                         "write 0 in that byte)"]
        elif p.old_y or p.old_x:
            first, why = "4.2.4", why + ["the old grid is stored (4.2.4 on write it; 4.2.0-4.2.3 write 0)"]
        else:
            why.append(f"nothing it stores tells 4.2.1 to {LAST_42} apart (the old grid and "
                       "skip_cmd_coercion are 0)")
    else:
        return "4.2", (f"it stores {n} timed effects, which no 4.2 release writes "
                       f"(4.2.0 writes 52, 4.2.1-{LAST_42} write 53)")
    label = first if first == last else f"{first}-{last}"
    return label, "; ".join(why)


def stat_text(value: int) -> str:
    """A stored stat as the game prints it: 3..18, then 18/01 .. 18/100 (``cnv_stat``)."""
    if value <= 18:
        return str(value)
    bonus = value - 18
    return "18/***" if bonus >= 220 else f"18/{bonus:03d}" if bonus >= 100 else f"18/{bonus:02d}"


_BODY = Struct(BodySlot, [Field("type", U16), Field("name", CStr(79))], name="body slot")
# The body (``rd_player``): its name, then its slots; the same in every game built on 4.2.
BODY: list[Member] = [Field("body_name", CStr(79)), Field("body", List(_BODY, Prefix(U16, "body_count")))]


def stats(most: int, expected: str) -> list[Member]:
    """The stats (``rd_player``): their count (at most ``most``, the loader's check), then
    the maximum, current, mapped and birth value of each."""
    return [
        Len("stat_count", U8, ("stat_max", "stat_cur", "stat_map", "stat_birth"), most=most, expected=expected),
        Field("stat_max", Array(I16, Ref("stat_count"))), Field("stat_cur", Array(I16, Ref("stat_count"))),
        Field("stat_map", Array(I16, Ref("stat_count"))),
        Field("stat_birth", Array(I16, Ref("stat_count"))),
    ]


# The looks and gold at birth, and the body: the same in 4.1, 4.2 and FAangband 2.
BIRTH: list[Member] = [Field("height_birth", I16), Field("weight_birth", I16), Field("unused_birth", I16),
                       Field("au_birth", I32), *BODY]
PLAYER = Struct(Player, [
    Field("full_name", CStr(31, eight_bit=EIGHT_BIT)), Field("died_from", CStr(79, eight_bit=EIGHT_BIT)),
    Field("history", CStr(249, eight_bit=EIGHT_BIT)),
    Field("race", CStr(79)), Field("shape", CStr(79)), Field("character_class", CStr(79)),
    Field("name_suffix", U8), Field("hitdie", U8), Field("expfact", U8), Field("age", I16),
    Field("height", I16), Field("weight", I16),
    *stats(len(STAT_NAMES), f"at most {len(STAT_NAMES)} stats"), *BIRTH, Field("unused_body", U32),
    Field("au", I32), Field("max_exp", I32), Field("exp", I32), Field("exp_frac", U16),
    Field("lev", I16, check=Range(1, MAX_LEVEL, f"a level from 1 to {MAX_LEVEL}")),
    Field("mhp", I16), Field("chp", I16), Field("chp_frac", U16), Field("msp", I16),
    Field("csp", I16), Field("csp_frac", U16), Field("max_lev", I16), Field("max_depth", I16),
    Field("recall_depth", I16), Field("old_y", U8), Field("old_x", U8),
    Field("unused_more", Bytes(5)), Field("unignoring", U8), Field("deep_descent", I16),
    Field("energy", I16), Field("word_recall", I16),
    Field("timed", Array(I16, Prefix(U8, "timed_count"))), Field("total_energy", U32),
    Field("resting_turn", U32), Field("future", Bytes(32)),
    SetCtx("spell_count_known", "1"),
], name="player")


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


def _memory(name: str) -> Ctx:
    return Ctx(name, "object memory")


# ``rd_misc`` of 4.2 (FAangband 2 stores its map and the levels visited first).
MISC_MEMBERS: list[Member] = [
    Field("seed_randart", U32), Field("seed_flavor", U32), Field("total_winner", U16),
    Field("noscore", U16), Field("is_dead", U8, export="is_dead"), Field("turn", I32),
    Field("known_flags", Bytes(_memory("of_size"))),
    Field("known_modifiers", Array(I16, _memory("obj_mod_max"))),
    Field("known_elements", List(Tuple(("res_level", I16), ("flags", U8)), _memory("elem_max"))),
    Field("known_brands", Bytes(_memory("brand_max"))), Field("known_slays", Bytes(_memory("slay_max"))),
    Field("known_curses", Bytes(_memory("curse_max"))), Field("known_ac", I16), Field("known_to_a", I16),
    Field("known_to_h", I16), Field("known_to_d", I16), Field("known_dd", U8), Field("known_ds", U8),
]
MISC = Struct(Misc, MISC_MEMBERS, name="misc")


# -- player hp, player spells ---------------------------------------------------------------


@dataclass(slots=True)
class PlayerHp(BlockModel):
    """The hit points rolled at each level (the game sums them for maximum HP)."""

    KIND: ClassVar[str] = "player-hp-4.2"
    player_hp: list[int] = field(default_factory=list)


PLAYER_HP = Struct(PlayerHp, [Field("player_hp", Array(I16, Prefix(
    U16, "count", MAX_LEVEL, f"at most {MAX_LEVEL} entries")))], name="player hp")


@dataclass(slots=True)
class PlayerSpells(BlockModel):
    KIND: ClassVar[str] = "player-spells-4.2"
    spell_flags: bytes = b""
    spell_order: bytes = b""


PLAYER_SPELLS = Struct(PlayerSpells, [
    Len("count", U16, ("spell_flags", "spell_order")),
    Field("spell_flags", Bytes(Ref("count"))), Field("spell_order", Bytes(Ref("count"))),
], name="player spells")


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


# Each entry's type is a bitflag of ``hist_size`` bytes, a size the block stores first.
_HISTORY_ENTRY = Struct(HistoryEntry, [
    Field("type", Bytes(Ctx("hist_size", "history"))), Field("turn", I32), Field("dlev", I16),
    Field("clev", I16), Field("artifact", CStr(79)), Field("event", CStr(79, eight_bit=EIGHT_BIT))], name="history entry")
HISTORY = Struct(History, [
    Field("hist_size", U8, export="hist_size"),
    Field("entries", List(_HISTORY_ENTRY, Prefix(U32, "count"))),
], name="history")


for _struct in (RNG, OPTIONS, MESSAGES, QUESTS, PLAYER, MISC, PLAYER_HP, PLAYER_SPELLS, HISTORY):
    _layout(_struct, _struct.name)


def description_line(p: Player, rest: str) -> str:
    """The savefile-menu line 4.2 writes for a living character (``wr_description``)."""
    return f"{p.full_name}, L{p.lev} {p.race} {p.character_class}{rest}"
