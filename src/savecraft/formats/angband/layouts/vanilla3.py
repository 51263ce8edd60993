"""Vanilla Angband 3.1.1 to 3.5.1 (variant id ``VNLA``): one game per set of block versions a
release writes, as read from each tag's ``src/save.c`` / ``src/load.c`` / ``src/savefile.c``.

Which releases write which (name:version), from the ``savers`` tables:

* 3.1.1-3.1.2 and 3.2.0 write every block as version 1 (artifacts and player 2), but not the
  same bytes: 3.1 stores the old random number generator (``Rand_place`` and 63 state
  words), 3.2 the WELL state (5 words, 32 state words, 28 spare). The loaders cannot tell
  (same versions), so savecraft does by trial reads: the rng block differs in size (256 and
  260 bytes). Within 3.1, 3.1.1 writes 40-byte random artifacts and forty spare bytes at
  the end of the player, where 3.1.2 (like 3.2) writes 45-byte artifacts (with the
  allocation bytes) and the turns played and rested in the first eight spare bytes: the
  artifacts' size tells them apart when there are any; 3.1.1's player block is read with
  3.1.2's layout (its spare bytes, zeros, read as zero turns, and are written back as read).
* 3.3.0: options 2, monster memory 2, randarts 2, inventory/stores/objects 4, monsters 6
  (misc 1); 3.3.1-3.3.2 the same with misc 2.
* 3.4.0-3.4.1: misc 2, randarts 3 (an empty block: the artifacts are regenerated from the
  seed), inventory/stores/objects 5.
* 3.5.0-3.5.1: a description block first, monster memory 3 and object memory 2 (which store
  the flag sizes every later record is read with), player 3 (which stores the number of
  stats: 5, charisma is gone), misc 2, inventory/stores/objects 6, monsters 7; no randarts.

3.1 to 3.4 keep six stats (``A_MAX`` 6, charisma last) and every record size is a compile-time
constant of the release (``OF_BYTES`` 32, ``RF_BYTES`` 32, ``MAX_PVALS`` 3 from 3.3; 12 flag
bytes per set before); where the bytes are Anquestria's (a 3.3-era fork, also six stats) its
descriptions are registered again for these games.

Text: 3.1 and 3.2 keep names in Latin-1 (their edit files spell accents as encodes, ``M[^i]m``,
which the parser turns into Latin-1 bytes; ``x-char.c``), so a history event, a message, a
cause of death or an inscription may hold 8-bit bytes: their strings are read and written as
Latin-1 (every byte round-trips). From 3.3 the edit files are UTF-8 (``Mîm``), as the strings.

Loader checks kept as ``Check``/``Range``: the player level (``rd_player``: "Invalid player
level"), and 3.5's stored sizes (``rd_monster_memory_3``: "Too many (%u) monster flags!",
"... monster spell flags!", "... monster blows!"; ``rd_object_memory_2``: "Too many (%u)
object flags!", "... pvals allowed!").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar, Protocol

from ....layout import (
    I16,
    I32,
    U8,
    U16,
    U32,
    Array,
    Bytes,
    Check,
    CStr,
    Ctx,
    Custom,
    Expr,
    Field,
    Len,
    List,
    Prefix,
    Range,
    Ref,
    SetCtx,
    Struct,
    Until,
    When,
)
from . import BlockModel, Layout, anquestria, character, faangband_character, faangband_world, register_layout
from . import register_struct, shapes
from .faangband import Inscription
from .items import NAME_MAX
from .levels import check_rle, read_rle
from .records import Experience, HeldQuantity, Quantity
from .vanilla40 import MONSTER_HEAD

VARIANTS = ("VNLA",)  # the variant ids this module registers layouts for (see the package)

VANILLA = frozenset({"VNLA"})
Size = int | Ref | Ctx | Expr  # a byte count: fixed by the release, or stored by an earlier block
V31 = "Vanilla 3.1"
V32 = "Vanilla 3.2"
V33 = "Vanilla 3.3"
V34 = "Vanilla 3.4"
V35 = "Vanilla 3.5"
ALIVE = anquestria.ALIVE
ITEM_MARK = anquestria.ITEM_MARK
OLD_FLAG_BYTES = 12  # 3.1: three u32 flag words; 3.2: min(12, OF_SIZE) bytes, padded to 12
RAND_DEG_31 = 63  # 3.1's old generator (z-rand.h)
TERM_MAX = 8  # ANGBAND_TERM_MAX
OPTION_WORDS = 8
ADULT_RANDARTS = 193  # option.h (3.1.1, 3.2.0): OPT_ADULT + 1
# The sizes 3.5.1's loader refuses to exceed (its headers: RF_SIZE, RSF_SIZE, OF_SIZE are
# FLAG_SIZE(n) = (n + 7) / 8 of the list-*-flags.h counts; MONSTER_BLOW_MAX, MAX_PVALS).
RF_SIZE_35 = 13  # RF_MAX 97 (monster/list-mon-flags.h)
RSF_SIZE_35 = 13  # RSF_MAX 97 or 98 (monster/list-mon-spells.h)
OF_SIZE_35 = 14  # OF_MAX 110 (object/list-object-flags.h)
MONSTER_BLOW_MAX = 4
MAX_PVALS = 3
GAMES = (V31, V32, V33, V34, V35)
LATIN1 = "latin-1"  # 3.1 and 3.2's text


# -- rng ------------------------------------------------------------------------------------


@dataclass(slots=True)
class Rng31(BlockModel):
    """3.1's generator: an unused word, ``Rand_place`` and the 63 state words."""

    KIND: ClassVar[str] = "rng-3.1"
    unused: int = 0
    rand_place: int = 0
    state: list[int] = field(default_factory=list)


@dataclass(slots=True)
class Rng32(character.Rng):
    """3.2's WELL state as 3.3+ (and 4.x) write it, but with 28 spare words, not 27."""

    KIND: ClassVar[str] = "rng-3.2"


RNG_31 = Struct(Rng31, [Field("unused", U16), Field("rand_place", U16),
                        Field("state", Array(U32, RAND_DEG_31))], name="rng")
RNG_32 = Struct(Rng32, [Field("rand_value", U32), Field("state_i", U32), Field("z", Array(U32, 3)),
                        Field("state", Array(U32, character.RAND_DEG)),
                        Field("padding", Array(U32, 60 - character.RAND_DEG))], name="rng")


# -- options version 1 (3.1, 3.2): the options as bit sets -----------------------------------


@dataclass(slots=True)
class Options1(BlockModel):
    """``rd_options`` of 3.1/3.2: 16 unused bytes, then each option a bit of ``flags`` (read
    only where its bit of ``masks`` is set), then the subwindow flags."""

    KIND: ClassVar[str] = "options-3.1"
    unused: bytes = b"\0" * 16
    delay_factor: int = 0
    hitpoint_warn: int = 0
    lazymove_delay: int = 0
    flags: list[int] = field(default_factory=lambda: [0] * OPTION_WORDS)
    masks: list[int] = field(default_factory=lambda: [0] * OPTION_WORDS)
    window_flags: list[int] = field(default_factory=lambda: [0] * TERM_MAX)
    window_masks: list[int] = field(default_factory=lambda: [0] * TERM_MAX)

    @property
    def randarts(self) -> bool:
        """adult_randarts, as the loader sets it (the option's bit where its mask bit is set)."""
        word, bit = divmod(ADULT_RANDARTS, 32)
        return bool(self.masks[word] >> bit & self.flags[word] >> bit & 1)


_RANDARTS_BIT = f"(masks[{ADULT_RANDARTS // 32}] & flags[{ADULT_RANDARTS // 32}]) >> {ADULT_RANDARTS % 32} & 1"
OPTIONS_1 = Struct(Options1, [
    Field("unused", Bytes(16)), Field("delay_factor", U8), Field("hitpoint_warn", U8),
    Field("lazymove_delay", U16), Field("flags", Array(U32, OPTION_WORDS)),
    Field("masks", Array(U32, OPTION_WORDS)), Field("window_flags", Array(U32, TERM_MAX)),
    Field("window_masks", Array(U32, TERM_MAX)),
    SetCtx("randarts", _RANDARTS_BIT),
], name="options")


# -- monster and object memory --------------------------------------------------------------


@dataclass(slots=True)
class MonsterMemory1(BlockModel):
    """What the player knows of each monster race (3.1/3.2): 12 flag and 12 spell-flag bytes."""

    KIND: ClassVar[str] = "monster-memory-3.1"
    races: list[anquestria.Lore] = field(default_factory=list)


@dataclass(slots=True)
class MonsterMemory3(BlockModel):
    """3.5's monster memory: the flag sizes and blow count are stored before the races."""

    KIND: ClassVar[str] = "monster-memory-3.5"
    rf_size: int = RF_SIZE_35
    rsf_size: int = RSF_SIZE_35
    monster_blow_max: int = MONSTER_BLOW_MAX
    races: list[anquestria.Lore] = field(default_factory=list)


def _lore(blows: Size, flags: Size, spell_flags: Size) -> Struct:
    return Struct(anquestria.Lore, [
        Field("sights", I16), Field("deaths", I16), Field("pkills", I16), Field("tkills", I16),
        Field("wake", U8), Field("ignore", U8), Field("drop_gold", U8), Field("drop_item", U8),
        Field("cast_innate", U8), Field("cast_spell", U8), Field("blows", Bytes(blows)),
        Field("flags", Bytes(flags)), Field("spell_flags", Bytes(spell_flags)),
        Field("max_num", U8), Field("unused", Bytes(3))], name="lore")


MONSTER_MEMORY_1 = Struct(MonsterMemory1, [Field("races", List(
    _lore(MONSTER_BLOW_MAX, OLD_FLAG_BYTES, OLD_FLAG_BYTES), Prefix(U16, "count")))],
    name="monster memory")


def _memory(name: str) -> Ctx:
    return Ctx(name, "monster memory")


MONSTER_MEMORY_3 = Struct(MonsterMemory3, [
    Len("count", U16, ("races",)),
    Field("rf_size", U8, check=Range(0, RF_SIZE_35, "rd_monster_memory_3: 'Too many (%u) monster flags!'"),
          export="rf_size"),
    Field("rsf_size", U8, check=Range(0, RSF_SIZE_35,
                                      "rd_monster_memory_3: 'Too many (%u) monster spell flags!'"),
          export="rsf_size"),
    Field("monster_blow_max", U8, check=Range(0, MONSTER_BLOW_MAX,
                                              "rd_monster_memory_3: 'Too many (%u) monster blows!'"),
          export="monster_blow_max"),
    Field("races", List(_lore(_memory("monster_blow_max"), _memory("rf_size"), _memory("rsf_size")),
                        Ref("count"))),
], name="monster memory")


@dataclass(slots=True)
class ObjectMemory2(BlockModel):
    """3.5's object memory: the object flag bytes and pvals every object record holds, then
    per object kind aware 1, tried 2, squelch when aware 4, seen 8, squelch unaware 16."""

    KIND: ClassVar[str] = "object-memory-3.5"
    of_size: int = OF_SIZE_35
    max_pvals: int = MAX_PVALS
    kinds: bytes = b""


OBJECT_MEMORY_2 = Struct(ObjectMemory2, [
    Len("count", U16, ("kinds",)),
    Field("of_size", U8, check=Range(0, OF_SIZE_35, "rd_object_memory_2: 'Too many (%u) object flags!'"),
          export="of_size"),
    Field("max_pvals", U8, check=Range(0, MAX_PVALS, "rd_object_memory_2: 'Too many (%u) pvals allowed!'"),
          export="max_pvals"),
    Field("kinds", Bytes(Ref("count"))),
    SetCtx("pval_bytes", "2 * max_pvals"), SetCtx("pval_flag_bytes", "max_pvals * of_size"),
], name="object memory")


# -- player ---------------------------------------------------------------------------------


@dataclass(slots=True)
class Player35(Experience, BlockModel):
    """3.5's player block (``rd_player_3``): race and class by index, the number of stats
    stored (5: charisma is gone); where 3.2 kept the social class, 3.5 stores zeros,
    ``unignoring`` and ``deep_descent``."""

    KIND: ClassVar[str] = "player-3.5"
    STAT_NAMES: ClassVar[tuple[str, ...]] = character.STAT_NAMES
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
    stat_max: list[int] = field(default_factory=lambda: [0] * 5)
    stat_cur: list[int] = field(default_factory=lambda: [0] * 5)
    stat_birth: list[int] = field(default_factory=lambda: [0] * 5)
    height_birth: int = 0
    weight_birth: int = 0
    unused_birth_sc: bytes = b"\0\0"
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
    unused_more: bytes = b"\0" * 9
    unignoring: int = 0
    deep_descent: int = 0
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


_LEVEL = Field("lev", I16, check=Range(1, character.MAX_LEVEL,
                                       "rd_player: 'Invalid player level' (1 to PY_MAX_LEVEL)"))
_HEAD = [Field("full_name", CStr(31)), Field("died_from", CStr(79)), Field("history", CStr(249)),
         Field("prace", U8), Field("pclass", U8), Field("psex", U8), Field("name_suffix", U8),
         Field("hitdie", U8), Field("expfact", U8), Field("age", I16), Field("height", I16),
         Field("weight", I16)]
_POINTS = [Field("au", I32), Field("max_exp", I32), Field("exp", I32), Field("exp_frac", U16), _LEVEL,
           Field("mhp", I16), Field("chp", I16), Field("chp_frac", U16), Field("msp", I16),
           Field("csp", I16), Field("csp_frac", U16), Field("max_lev", I16), Field("max_depth", I16)]
_STATE = [Field("food", I16), Field("energy", I16), Field("word_recall", I16), Field("see_infra", I16),
          Field("confusing", U8), Field("searching", U8),
          Field("timed", Array(I16, Prefix(U8, "timed_count")))]

PLAYER_35 = Struct(Player35, [
    *_HEAD, Len("a_max", U8, ("stat_max", "stat_cur", "stat_birth")),
    Field("stat_max", Array(I16, Ref("a_max"))), Field("stat_cur", Array(I16, Ref("a_max"))),
    Field("stat_birth", Array(I16, Ref("a_max"))), Field("height_birth", I16), Field("weight_birth", I16),
    Field("unused_birth_sc", Bytes(2)), Field("au_birth", I32), Field("unused_birth", Bytes(4)), *_POINTS,
    Field("unused_more", Bytes(9)), Field("unignoring", U8), Field("deep_descent", I16), *_STATE,
    Field("total_energy", U32), Field("resting_turn", U32), Field("future", Bytes(32)),
], name="player")


@dataclass(slots=True)
class Player32(anquestria.Player):
    """3.1.2 and 3.2's player block: 3.3's bytes, with its text in Latin-1."""

    KIND: ClassVar[str] = "player-3.2"


PLAYER_32 = Struct(Player32, [
    Field("full_name", CStr(31, LATIN1)), Field("died_from", CStr(79, LATIN1)),
    Field("history", CStr(249, LATIN1)),
    *_HEAD[3:], Field("stat_max", Array(I16, anquestria.A_MAX)), Field("stat_cur", Array(I16, anquestria.A_MAX)),
    Field("stat_birth", Array(I16, anquestria.A_MAX)), Field("height_birth", I16), Field("weight_birth", I16),
    Field("sc_birth", I16), Field("au_birth", I32), Field("unused_birth", Bytes(4)), *_POINTS,
    Field("unused_more", Bytes(8)), Field("sc", I16), Field("unused_sc", Bytes(2)), *_STATE,
    Field("total_energy", U32), Field("resting_turn", U32), Field("future", Bytes(32)),
], name="player")


@dataclass(slots=True)
class Messages1(character.Messages):
    """The last messages (at most 80), oldest first, in 3.1/3.2's Latin-1."""

    KIND: ClassVar[str] = "messages-3.2"


@dataclass(slots=True)
class Messages3(character.Messages):
    """The last messages (at most 80), oldest first, in 3.3 on's UTF-8."""

    KIND: ClassVar[str] = "messages-3.3"


# rd_messages reads each into a 128-byte buffer and cuts a longer one (the writer stores the
# message whole): a longer message is the game's, so no limit here.
MESSAGES_1 = Struct(Messages1, [Field("messages", List(
    Struct(character.Message, [Field("text", CStr(None, LATIN1)), Field("type", U16)], name="message"),
    Prefix(I16, "count")))], name="messages")
MESSAGES_3 = Struct(Messages3, [Field("messages", List(
    Struct(character.Message, [Field("text", CStr()), Field("type", U16)], name="message"),
    Prefix(I16, "count")))], name="messages")


@dataclass(slots=True)
class History1(faangband_character.History):
    """The character's history as 3.1/3.2 write it (Latin-1 events; no expansion word)."""

    KIND: ClassVar[str] = "history-3.2"


HISTORY_1 = Struct(History1, [
    Field("entries", List(Struct(faangband_character.HistoryEntry, [
        Field("type", U16), Field("turn", I32), Field("place", I16), Field("clev", I16), Field("a_idx", U8),
        Field("event", CStr(79, LATIN1))], name="history entry"), Prefix(U32, "count"))),
    When("False", [Field("expansion", U32)], "", by_model=True),
], name="history")


@dataclass(slots=True)
class Squelch1(anquestria.Squelch):
    """3.1/3.2's squelch block: auto-inscriptions in Latin-1."""

    KIND: ClassVar[str] = "squelch-3.2"


SQUELCH_1 = Struct(Squelch1, [
    Len("level_count", U8, ("levels",)), Field("levels", Bytes(Ref("level_count"))),
    Len("ego_count", U16, ("egos",)), Field("egos", Bytes(Ref("ego_count"))),
    Field("inscriptions", List(Struct(Inscription, [Field("kind_index", I16), Field("text", CStr(79, LATIN1))],
                                      name="inscription"), Prefix(U16, "inscription_count"))),
], name="squelch")


# -- misc version 2 (3.3.1 on): the level feeling's squares ---------------------------------


@dataclass(slots=True)
class Misc2(anquestria.Misc):
    KIND: ClassVar[str] = "misc-3.4"
    feeling_squares: int = 0


MISC_2 = Struct(Misc2, [
    Field("randart_version", U32), Field("seed_randart", U32), Field("unused_flags", Bytes(12)),
    Field("seed_flavor", U32), Field("seed_town", U32), Field("panic_save", U16),
    Field("total_winner", U16), Field("noscore", U16), Field("is_dead", U8, export="is_dead"),
    Field("feeling", U8), Field("feeling_squares", U16), Field("created_at", I32), Field("turn", I32),
], name="misc")


# -- random artifacts -----------------------------------------------------------------------


@dataclass(slots=True)
class Randarts1(BlockModel):
    """The random artifacts (3.1.1: 42-byte records; 3.1.2 and 3.2: 45 bytes, with the three
    allocation bytes), each record as stored; None without adult_randarts (nothing written)."""

    KIND: ClassVar[str] = "randarts-3.2"
    artifacts: list[bytes] | None = None


@dataclass(slots=True)
class Randarts31(Randarts1):
    """3.1.1's random artifacts: 42-byte records (no allocation bytes)."""

    KIND: ClassVar[str] = "randarts-3.1"


@dataclass(slots=True)
class Randarts3(BlockModel):
    """3.4 writes an empty randarts block (the artifacts come back from ``seed_randart``)."""

    KIND: ClassVar[str] = "randarts-3.4"


# wr_randarts: tval, sval, pval, to_h, to_d, to_a, ac, dd, ds, weight, cost, the flags, level,
# rarity, (3.1.2 on: alloc_prob, alloc_min, alloc_max,) effect, time base, dice and sides.
RANDART_31 = 1 + 1 + 2 + 4 * 2 + 1 + 1 + 2 + 4 + OLD_FLAG_BYTES + 1 + 1 + 2 + 3 * 2
RANDART_32 = RANDART_31 + 3
_WITH_RANDARTS = "ctx.need('randarts', 'options')"
RANDARTS_31 = Struct(Randarts31, [When(_WITH_RANDARTS, [Field("artifacts", List(
    Bytes(RANDART_31), Prefix(U16, "count")))], "random artifacts exactly when adult_randarts is on")],
    name="randarts")
RANDARTS_32 = Struct(Randarts1, [When(_WITH_RANDARTS, [Field("artifacts", List(
    Bytes(RANDART_32), Prefix(U16, "count")))], "random artifacts exactly when adult_randarts is on")],
    name="randarts")
RANDARTS_3 = Struct(Randarts3, [], name="randarts")


# -- objects --------------------------------------------------------------------------------


@dataclass(slots=True)
class Item1(Quantity):
    """An object as 3.1/3.2 write it (``wr_item``; read by ``rd_item_1``): one pval, 12 flag
    bytes and 12 known-flag bytes, artifact and ego by index."""

    mark: int = ITEM_MARK
    version: int = 0
    k_idx: int = 0
    iy: int = 0
    ix: int = 0
    tval: int = 0
    sval: int = 0
    pval: int = 0
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
    flags: bytes = b"\0" * OLD_FLAG_BYTES
    known_flags: bytes = b"\0" * OLD_FLAG_BYTES
    held_m_idx: int = 0
    inscription: str = ""

    @property
    def note(self) -> str:
        return self.inscription

    @note.setter
    def note(self, value: str) -> None:
        self.inscription = value


@dataclass(slots=True)
class Item4(anquestria.Item):
    """An object of ``rd_item_4`` (3.3): ``rd_item_3``'s and the monster it mimics."""

    mimicking_m_idx: int = 0

    @property
    def note(self) -> str:
        return self.inscription

    @note.setter
    def note(self, value: str) -> None:
        self.inscription = value


@dataclass(slots=True)
class Item5(Item4):
    """An object of ``rd_item_5`` (3.4) and ``rd_item_6`` (3.5: flag bytes and pvals as the
    object memory block says): ``rd_item_4``'s and its ignore byte."""

    ignore: int = 0


_MARK = Field("mark", U16, check=Range(ITEM_MARK, ITEM_MARK, "0xFFFF, the mark that starts an object"))
ITEM_1 = Struct(Item1, [
    _MARK, Field("version", U8), Field("k_idx", I16), Field("iy", U8), Field("ix", U8),
    Field("tval", U8), Field("sval", U8), Field("pval", I16), Field("pseudo_id", U8),
    Field("number", U8), Field("weight", I16), Field("art_idx", U8), Field("ego_idx", U8),
    Field("timeout", I16), Field("to_h", I16), Field("to_d", I16), Field("to_a", I16), Field("ac", I16),
    Field("dd", U8), Field("ds", U8), Field("ident", U16), Field("marked", U8), Field("origin", U8),
    Field("origin_depth", U8), Field("origin_xtra", U16), Field("flags", Bytes(OLD_FLAG_BYTES)),
    Field("known_flags", Bytes(OLD_FLAG_BYTES)), Field("held_m_idx", I16),
    Field("inscription", CStr(NAME_MAX, LATIN1)),
], name="object")


def _item(cls: type, pvals: Size, flags: Size, pval_flags: Size, ignore: bool) -> Struct:
    return Struct(cls, [
        _MARK, Field("version", U8), Field("unused", Bytes(2)), Field("iy", U8), Field("ix", U8),
        Field("tval", U8), Field("sval", U8), Field("pval", Bytes(pvals)),
        Field("num_pvals", U8), Field("pseudo_id", U8), Field("number", U8), Field("weight", I16),
        Field("art_idx", U8), Field("ego_idx", U8), Field("timeout", I16), Field("to_h", I16),
        Field("to_d", I16), Field("to_a", I16), Field("ac", I16), Field("dd", U8), Field("ds", U8),
        Field("ident", U16), Field("marked", U8), Field("origin", U8), Field("origin_depth", U8),
        Field("origin_xtra", U16), *([Field("ignore", U8)] if ignore else []),
        Field("flags", Bytes(flags)), Field("known_flags", Bytes(flags)),
        Field("pval_flags", Bytes(pval_flags)), Field("held_m_idx", I16),
        Field("mimicking_m_idx", I16), Field("inscription", CStr(NAME_MAX)),
    ], name="object")


_OF = anquestria.OF_BYTES
ITEM_4 = _item(Item4, 2 * MAX_PVALS, _OF, MAX_PVALS * _OF, False)
ITEM_5 = _item(Item5, 2 * MAX_PVALS, _OF, MAX_PVALS * _OF, True)
ITEM_6 = _item(Item5, Ctx("pval_bytes", "object memory"), Ctx("of_size", "object memory"),
               Ctx("pval_flag_bytes", "object memory"), True)


class _Inscribed(Protocol):
    inscription: str


class _HoldsInscribed(Protocol):
    @property
    def item(self) -> _Inscribed: ...


class _HeldNote:
    """``note``: the inscription of the object an inventory entry holds (``quantity`` is
    :class:`HeldQuantity`'s), so the common edit paths reach it as in every game."""

    __slots__ = ()

    @property
    def note(self: _HoldsInscribed) -> str:
        return self.item.inscription

    @note.setter
    def note(self: _HoldsInscribed, value: str) -> None:
        self.item.inscription = value


@dataclass(slots=True)
class InventoryItem1(anquestria.InventoryEntry[Item1], _HeldNote):
    pass


@dataclass(slots=True)
class InventoryItem4(anquestria.InventoryEntry[Item4], _HeldNote):
    pass


@dataclass(slots=True)
class InventoryItem5(anquestria.InventoryEntry[Item5], _HeldNote):
    pass


@dataclass(slots=True)
class Inventory1(shapes.GearList[InventoryItem1], BlockModel):
    """The pack and equipment by inventory slot, ended by slot 0xFFFF (3.1, 3.2)."""

    KIND: ClassVar[str] = "inventory-3.2"


@dataclass(slots=True)
class Inventory4(shapes.GearList[InventoryItem4], BlockModel):
    KIND: ClassVar[str] = "inventory-3.3"


@dataclass(slots=True)
class Inventory5(shapes.GearList[InventoryItem5], BlockModel):
    KIND: ClassVar[str] = "inventory-3.4"


@dataclass(slots=True)
class Inventory6(Inventory5):
    KIND: ClassVar[str] = "inventory-3.5"


@dataclass(slots=True)
class Store1(anquestria.StoreRecord[Item1]):
    pass


@dataclass(slots=True)
class Store4(anquestria.StoreRecord[Item4]):
    pass


@dataclass(slots=True)
class Store5(anquestria.StoreRecord[Item5]):
    pass


@dataclass(slots=True)
class Stores1(anquestria.StoreList[Store1], BlockModel):
    """Every store (the home is one): owner by index, then its stock."""

    KIND: ClassVar[str] = "stores-3.2"


@dataclass(slots=True)
class Stores4(anquestria.StoreList[Store4], BlockModel):
    KIND: ClassVar[str] = "stores-3.3"


@dataclass(slots=True)
class Stores5(anquestria.StoreList[Store5], BlockModel):
    KIND: ClassVar[str] = "stores-3.4"


@dataclass(slots=True)
class Stores6(Stores5):
    KIND: ClassVar[str] = "stores-3.5"


@dataclass(slots=True)
class Objects1(anquestria.LevelObjects[Item1], BlockModel):
    KIND: ClassVar[str] = "objects-3.2"


@dataclass(slots=True)
class Objects4(anquestria.LevelObjects[Item4], BlockModel):
    KIND: ClassVar[str] = "objects-3.3"


@dataclass(slots=True)
class Objects5(anquestria.LevelObjects[Item5], BlockModel):
    KIND: ClassVar[str] = "objects-3.4"


@dataclass(slots=True)
class Objects6(Objects5):
    KIND: ClassVar[str] = "objects-3.5"


def _inventory(cls: type, entry: type, item: Struct) -> Struct:
    return Struct(cls, [Field("items", Until(
        Struct(entry, [Field("slot", U16), Field("item", item)], name="inventory entry"),
        U16, anquestria.INVEN_END))], name="inventory")


def _stores(cls: type, store: type, item: Struct) -> Struct:
    return Struct(cls, [Field("stores", List(Struct(store, [
        Field("unused_head", Bytes(6)), Field("owner", U8), Len("count", U8, ("stock",)),
        Field("unused_tail", Bytes(4)), Field("stock", List(item, Ref("count")))], name="store"),
        Prefix(U16, "count")))], name="stores")


def _objects(cls: type, item: Struct) -> Struct:
    return Struct(cls, [When(ALIVE, [Field("objects", List(item, Prefix(U16, "o_max", bias=1)))],
                             "objects exactly when the character is alive", flag="present")],
                  name="objects")


INVENTORY_1 = _inventory(Inventory1, InventoryItem1, ITEM_1)
INVENTORY_4 = _inventory(Inventory4, InventoryItem4, ITEM_4)
INVENTORY_5 = _inventory(Inventory5, InventoryItem5, ITEM_5)
INVENTORY_6 = _inventory(Inventory6, InventoryItem5, ITEM_6)
STORES_1 = _stores(Stores1, Store1, ITEM_1)
STORES_4 = _stores(Stores4, Store4, ITEM_4)
STORES_5 = _stores(Stores5, Store5, ITEM_5)
STORES_6 = _stores(Stores6, Store5, ITEM_6)
OBJECTS_1 = _objects(Objects1, ITEM_1)
OBJECTS_4 = _objects(Objects4, ITEM_4)
OBJECTS_5 = _objects(Objects5, ITEM_5)
OBJECTS_6 = _objects(Objects6, ITEM_6)


# -- the level ----------------------------------------------------------------------------


@dataclass(slots=True)
class Dungeon(anquestria.Dungeon):
    """The current level (``rd_dungeon``): depth, the player's place, the level's size, and
    ``info``, ``info2`` and terrain as run-length pairs. Every 3.x loader reads the three maps
    over DUNGEON_HGT x DUNGEON_WID squares (66 x 198), whatever size is stored: from 3.3 the
    writer stores the level's own (the 3.5 town is smaller), and still writes the whole area."""

    KIND: ClassVar[str] = "dungeon-vanilla-3.x"


DUNGEON_HGT = 66
DUNGEON_WID = 198
_AREA = Custom(read_rle, check_rle, f"{DUNGEON_HGT} * {DUNGEON_WID}")
DUNGEON = Struct(Dungeon, [When(ALIVE, [
    Field("depth", I16), Field("daycount", U16), Field("py", I16), Field("px", I16), Field("height", I16),
    Field("width", I16), Field("unused", Bytes(4)),
    Check(f"0 <= py < {DUNGEON_HGT} and 0 <= px < {DUNGEON_WID}", "py",
          "a player inside the dungeon (rd_dungeon: 'Ignoring illegal player location')",
          "f'({py}, {px})'"),
    Field("info", _AREA), Field("info2", _AREA), Field("feat", _AREA)],
    "a level exactly when the character is alive", flag="present"),
], name="dungeon")


# -- monsters -------------------------------------------------------------------------------


@dataclass(slots=True)
class Monster1(faangband_world.MonsterHead30):
    """A monster as 3.1/3.2 write it (``rd_monsters_1``)."""

    unused: int = 0


@dataclass(slots=True)
class Monsters1(anquestria.LevelMonsters[Monster1], BlockModel):
    KIND: ClassVar[str] = "monsters-3.2"


@dataclass(slots=True)
class Monsters6(anquestria.LevelMonsters[anquestria.Monster], BlockModel):
    """3.3 and 3.4's monsters (``rd_monsters_6``: the bytes of Anquestria's version 5)."""

    KIND: ClassVar[str] = "monsters-3.3"


@dataclass(slots=True)
class Monsters7(anquestria.LevelMonsters[anquestria.Monster], BlockModel):
    """3.5's monsters (``rd_monsters_7``): 3.3's record with as many known player-flag bytes as
    the object memory block says."""

    KIND: ClassVar[str] = "monsters-3.5"


MONSTERS_1 = Struct(Monsters1, [When(ALIVE, [Field("monsters", List(Struct(Monster1, [
    *faangband_world.MONSTER_HEAD_30, Field("unused", U8)], name="monster"),
    Prefix(U16, "m_max", bias=1)))], "monsters exactly when the character is alive", flag="present")],
    name="monsters")



def _monsters(cls: type, known_pflags: Size) -> Struct:
    return Struct(cls, [When(ALIVE, [Field("monsters", List(Struct(anquestria.Monster, [
        *MONSTER_HEAD, Field("flags", U8),
        Field("known_pflags", Bytes(known_pflags)), Field("unused", U8)],
        name="monster"), Prefix(U16, "m_max", bias=1)))],
        "monsters exactly when the character is alive", flag="present")], name="monsters")


MONSTERS_6 = _monsters(Monsters6, anquestria.OF_BYTES)
MONSTERS_7 = _monsters(Monsters7, Ctx("of_size", "object memory"))


@dataclass(slots=True)
class Ghost(BlockModel):
    """What is left of the old player-ghost record: the name "Broken Ghost" and 60 zero bytes,
    both None for a dead character (nothing written). The loaders of 3.1 to 3.4 skip it; 3.5's
    table reads it with ``rd_null``."""

    KIND: ClassVar[str] = "ghost-3.x"
    ghost_name: str | None = None
    data: bytes | None = None


GHOST = Struct(Ghost, [When(ALIVE, [Field("ghost_name", CStr(faangband_world.GHOST_NAME_MAX)),
                                    Field("data", Bytes(faangband_world.GHOST_DATA))],
                            "the ghost record exactly when the character is alive")], name="ghost")


# -- the table: each release's savers, block by block ----------------------------------------

_COMMON = ((anquestria.QUESTS, 1), (anquestria.ARTIFACTS, 2), (character.PLAYER_HP, 1),
           (character.PLAYER_SPELLS, 1), (DUNGEON, 1), (GHOST, 1))
_TEXT_8BIT = ((MESSAGES_1, 1), (SQUELCH_1, 1), (HISTORY_1, 1))  # 3.1, 3.2
_TEXT_UTF8 = ((MESSAGES_3, 1), (anquestria.SQUELCH, 1))  # 3.3 on
_GAMES: dict[str, tuple[tuple[Struct, int], ...]] = {
    V31: ((RNG_31, 1), (OPTIONS_1, 1), (MONSTER_MEMORY_1, 1), (anquestria.OBJECT_MEMORY, 1),
          (PLAYER_32, 2), (anquestria.MISC, 1), (RANDARTS_32, 1), (RANDARTS_31, 1), (INVENTORY_1, 1), (STORES_1, 1),
          (OBJECTS_1, 1), (MONSTERS_1, 1)),
    V32: ((RNG_32, 1), (OPTIONS_1, 1), (MONSTER_MEMORY_1, 1), (anquestria.OBJECT_MEMORY, 1),
          (PLAYER_32, 2), (anquestria.MISC, 1), (RANDARTS_32, 1), (INVENTORY_1, 1),
          (STORES_1, 1), (OBJECTS_1, 1), (MONSTERS_1, 1)),
    # 3.3.0 writes misc 1, 3.3.1 and 3.3.2 misc 2.
    V33: ((character.RNG, 1), (anquestria.OPTIONS, 2), (anquestria.MONSTER_MEMORY, 2),
          (anquestria.OBJECT_MEMORY, 1), (anquestria.PLAYER, 2), (anquestria.MISC, 1), (MISC_2, 2),
          (anquestria.RANDARTS, 2), (INVENTORY_4, 4), (STORES_4, 4), (OBJECTS_4, 4),
          (MONSTERS_6, 6)),
    V34: ((character.RNG, 1), (anquestria.OPTIONS, 2), (anquestria.MONSTER_MEMORY, 2),
          (anquestria.OBJECT_MEMORY, 1), (anquestria.PLAYER, 2), (MISC_2, 2), (RANDARTS_3, 3),
          (INVENTORY_5, 5), (STORES_5, 5), (OBJECTS_5, 5), (MONSTERS_6, 6)),
    V35: ((character.RNG, 1), (anquestria.OPTIONS, 2), (MONSTER_MEMORY_3, 3), (OBJECT_MEMORY_2, 2),
          (PLAYER_35, 3), (MISC_2, 2), (INVENTORY_6, 6), (STORES_6, 6), (OBJECTS_6, 6),
          (MONSTERS_7, 7)),
}

for _game, _blocks in _GAMES.items():
    _text = _TEXT_8BIT if _game in (V31, V32) else _TEXT_UTF8
    for _struct, _version in (*_blocks, *_COMMON, *_text):
        register_struct(_struct, _struct.name, _version, VANILLA, _game, exact=True)
    if _game not in (V31, V32):  # 3.3 on: Anquestria's history (UTF-8, no expansion word)
        register_layout(Layout("history", 1, VANILLA, faangband_character.History,
                               faangband_character.HISTORY_3X.read, faangband_character.HISTORY.write,
                               _game, exact=True))
