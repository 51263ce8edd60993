"""FAangband 1 as Ponyband writes it (variant ``FAAN``): the player (version 2), misc and
history blocks (``wr_player``, ``wr_misc``, ``wr_history`` of Ponyband's ``src/save.c``
at the samples' commit 59f6ca5, read back by ``rd_player_2``, ``rd_misc``, ``rd_history``).

FAangband 1.4.0-1.4.5 itself (NickMcConnell/FAangband, the same ``save.c`` at each tag) writes
the same blocks with fewer fields: no cutie mark, last moves or alignment in the player block,
its age, height, weight and social class stored signed (``rd_s16b``), and no follow distance
in misc; 1.2.0-1.3.3 write the player block as version 1 (``rd_player_1``: the same without
the map and game modes). Those are conditions over the ``faan_game`` context entry
(:data:`FAAN_GAME`) that the game the file is read as sets (:mod:`.faangband14`,
:mod:`.faangband13`); without it (0) the file is Ponyband's.

Race, class, cutie mark and sex are stored as indexes into the game's data
files, not as names; the description block carries the names the game
showed. How many stats the player has is the ``a_max`` the object memory
block stored. A layout reads exactly what the game's writer wrote, including
the "expansion" words the loader skips (the history block ends with one).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import ClassVar

from ....layout import (
    I16,
    I32,
    U8,
    U16,
    U32,
    Array,
    Bytes,
    CStr,
    Ctx,
    Field,
    Int,
    List,
    Member,
    Prefix,
    Range,
    Struct,
    Switch,
    When,
)
from . import BlockModel, register_struct
from .character import FAANGBAND, MAX_LEVEL, STAT_NAMES, stat_text
from .records import Experience

VARIANTS = ("FAAN",)  # the variant ids this module registers layouts for (see the package)

FAAN = frozenset({"FAAN"})
# Which FAangband 1 writes the file: a context entry the game the file is read as sets
# (layouts.register_game_context); the blocks differ in a few fields, the block versions not.
FAAN_GAME = "faan_game"
PONYBAND, FAANGBAND_14, FAANGBAND_13 = 0, 1, 2  # FAANGBAND_13: 1.2.0 to 1.3.3
# The games the file is read as (registered by faangband14 and faangband13; Ponyband's is FAANGBAND).
GAME_14, GAME_13 = "FAangband 1.4", "FAangband 1.2.0-1.3.3"
IS_FA = f"ctx.values.get({FAAN_GAME!r}, {PONYBAND}) != {PONYBAND}"  # FAangband's own releases
IS_PONY = f"not {IS_FA}"
# The map and game modes came with player block version 2 (1.4.0); 1.2.0-1.3.3 write version 1.
HAS_MAP = f"ctx.values.get({FAAN_GAME!r}, {PONYBAND}) != {FAANGBAND_13}"
_SIGNED = f"1 if {IS_FA} else 0"  # FAangband reads these rd_s16b, Ponyband rd_u16b
ACTION_MAX = 6  # previous_action[]: the last moves, kept for the "charge" attack
BAREHAND = 12  # barehand_dam[]: a druid's unarmed damage by level band
FA_STAT_NAMES = (*STAT_NAMES, "chr")  # FAangband keeps charisma (A_MAX 6)
# player_exp[] of Ponyband's src/tables.c (59f6ca5): FAangband's own table, which its
# check_experience compares with the experience as it is (no race factor).
FA_EXP = (10, 25, 45, 70, 105, 150, 210, 290, 390, 530, 720, 960, 1270, 1700, 2250, 3000, 4000,
          5300, 6900, 9100, 12100, 16000, 21000, 27500, 36500, 48500, 64000, 84500, 111000,
          144000, 183000, 230000, 285000, 350000, 430000, 525000, 640000, 780000, 945000,
          1140000, 1380000, 1660000, 2000000, 2400000, 2900000, 3500000, 4200000, 5000000,
          6000000, 7200000)
# Race and class names by the index the player block stores: ``N:index:name`` of the game's
# lib/edit/p_race.txt and p_class.txt. FAangband's are the same at every tag from v1.2.0 to
# v1.4.5 (compared tag by tag; 1.2.0 to 1.2.7 write the sixth race "Dr['u]adan", the game's
# escape for the u acute it shows). Ponyband's are those of 59f6ca5 (the samples' commit),
# also its last: the races have not changed since d7b3742, and its classes dropped the
# Necromancer and Assassin (7, 8) at 59f6ca5, the first seven unchanged.
FA_RACES = ("Easterling", "Green-Elf", "Grey-Elf", "Hobbit", "Petty-Dwarf", "Dwarf", "Drúadan",
            "Longbeard", "Adan", "High-Elf", "Maia", "Dark-Elf", "Ent", "Beorning")
FA_CLASSES = ("Warrior", "Mage", "Priest", "Rogue", "Ranger", "Paladin", "Druid", "Necromancer",
              "Assassin")
PONY_RACES = ("Earth Pony", "Pegasus", "Unicorn", "Bat Pony", "Alicorn", "Griffon", "Buffalo", "Mule",
              "Zebra", "Deer", "Young Dragon", "Diamond Dog", "Human")
PONY_CLASSES = ("Warrior", "Mage", "Priest", "Rogue", "Ranger", "Paladin", "Druid")


def _counted(kind: Int, name: str) -> Array:
    """A list the writer prefixes with its length in one byte (timed effects, runes...)."""
    return Array(kind, Prefix(U8, f"{name}_count"))


@dataclass(slots=True)
class Player(Experience, BlockModel):
    """The character (``wr_player``): name, stats, gold, experience, hit and spell points.

    ``experience`` sets current and maximum experience together, as the
    Vanilla model does. ``recall`` holds the recall points (stages) the
    character may return to; ``game_modes`` the birth modes (ironman...).
    """

    KIND: ClassVar[str] = "player-faan"
    STAT_NAMES: ClassVar[tuple[str, ...]] = FA_STAT_NAMES
    EXP_TABLE: ClassVar[tuple[int, ...]] = FA_EXP
    EXP_FACTOR: ClassVar[bool] = False
    # The names of the stored race and class indexes, by the game the file is read as (the
    # character sheet's, for a file whose description block does not name them: a dead
    # character's, and every file of 1.2.0 to 1.3.3, which write no description).
    RACE_NAMES: ClassVar[Mapping[str, tuple[str, ...]]] = {
        FAANGBAND: PONY_RACES, GAME_14: FA_RACES, GAME_13: FA_RACES}
    CLASS_NAMES: ClassVar[Mapping[str, tuple[str, ...]]] = {
        FAANGBAND: PONY_CLASSES, GAME_14: FA_CLASSES, GAME_13: FA_CLASSES}
    full_name: str = ""
    died_from: str = ""
    history: str = ""
    prace: int = 0
    pclass: int = 0
    pmark: int | None = 0  # (Ponyband only: None for FAangband 1.4, as alignment and the last moves)
    psex: int = 0
    name_suffix: int = 0
    hitdie: int = 0
    unused_hitdie: int = 0
    age: int = 0
    height: int = 0
    weight: int = 0
    previous_action: bytes | None = b"\0" * ACTION_MAX
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
    map: int | None = 0  # (None in player block version 1, as game_modes)
    game_modes: list[int] | None = field(default_factory=list)
    speed_boost: int = 0
    heighten_power: int = 0
    sc: int = 0
    alignment: int | None = 0
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
    follow_distance: int | None = 0  # (Ponyband only)
    is_dead: int = 0
    feeling: int = 0
    do_feeling: int = 0
    turn: int = 0


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


@dataclass(slots=True)
class Player1(Player):
    """The player block version 1 (FAangband 1.2.0-1.3.3, ``rd_player_1``): no map or game
    modes (None)."""

    KIND: ClassVar[str] = "player-faan-1"


_A_MAX = Ctx("a_max", "object memory")
_PLAYER_MEMBERS: list[Member] = [
    Field("full_name", CStr(31)), Field("died_from", CStr(79)), Field("history", CStr(249)),
    Field("prace", U8), Field("pclass", U8),
    When(IS_PONY, [Field("pmark", U8)], "Ponyband's cutie mark"), Field("psex", U8),
    Field("name_suffix", U8), Field("hitdie", U8), Field("unused_hitdie", U8),
    *[Field(name, Switch(_SIGNED, {0: U16, 1: I16})) for name in ("age", "height", "weight")],
    When(IS_PONY, [Field("previous_action", Bytes(ACTION_MAX))], "Ponyband's last moves"),
    Field("stat_max", Array(I16, _A_MAX)), Field("stat_cur", Array(I16, _A_MAX)),
    Field("stat_birth", Array(I16, _A_MAX)),
    Field("height_birth", I16), Field("weight_birth", I16), Field("sc_birth", I16), Field("au_birth", I32),
    Field("barehand_dam", Array(U16, BAREHAND)),
    Field("au", I32), Field("max_exp", I32), Field("exp", I32), Field("exp_frac", U16),
    Field("lev", I16, check=Range(1, MAX_LEVEL, f"a level from 1 to {MAX_LEVEL}")),
    Field("home", I16), Field("mhp", I16), Field("chp", I16), Field("chp_frac", U16), Field("msp", I16),
    Field("csp", I16), Field("csp_frac", U16), Field("max_lev", I16),
    Field("recall", _counted(I16, "recall")), Field("recall_pt", I16),
    When(HAS_MAP, [Field("map", U8), Field("game_modes", _counted(U8, "game_modes"))],
         "the map and the game modes (player block version 2)"),
    Field("speed_boost", I16), Field("heighten_power", I16), Field("sc", Switch(_SIGNED, {0: U16, 1: I16})),
    When(IS_PONY, [Field("alignment", I16)], "Ponyband's alignment"),
    Field("food", I16), Field("energy", I16), Field("word_recall", I16), Field("see_infra", I16),
    Field("timed", _counted(I16, "timed")),
    Field("special_attack", U32), Field("unused_a", Bytes(2)), Field("black_breath", U8),
    Field("searching", U8), Field("unused_b", Bytes(2)), Field("schange", U8),
    Field("bones_selector", U8), Field("thefts_on_level", U8), Field("traps_on_level", U8),
    Field("runes_on_level", _counted(U8, "runes_on_level")),
    Field("mana_reserve", U8), Field("themed_level", U8), Field("themed_level_appeared", U32),
    Field("specialties", _counted(U8, "specialties")),
    Field("unused_c", Bytes(2)), Field("expansion", Bytes(8)),
]
PLAYER = Struct(Player, _PLAYER_MEMBERS, name="player")
PLAYER_1 = Struct(Player1, _PLAYER_MEMBERS, name="player")  # (registered by faangband13)

MISC = Struct(Misc, [
    Field("seed_flavor", U32), Field("seed_town", Array(U32, Prefix(U8, "town_count"))),
    Field("quests", U16), Field("score", U32), Field("total_winner", U16), Field("noscore", U16),
    When(IS_PONY, [Field("follow_distance", U16)], "Ponyband's follow distance"),
    Field("is_dead", U8, export="is_dead"), Field("feeling", U8),
    Field("do_feeling", U8), Field("turn", I32),
], name="misc")

_ENTRIES = Field("entries", List(Struct(HistoryEntry, [
    Field("type", U16), Field("turn", I32), Field("place", I16), Field("clev", I16), Field("a_idx", U8),
    # The games write the text's bytes as they are (Anquestria's own lib/save/Twilight holds
    # an 0xE9, Latin-1 'e' acute): text that is not UTF-8 is read as Latin-1, written back as read.
    Field("event", CStr(79, eight_bit="latin-1"))], name="history entry"), Prefix(U32, "count")))
# FAangband's writer adds an "expansion" word that Angband 3.x's does not write (the model's
# None): one writer for both, writing the word when the model has it; a reader each.
HISTORY = Struct(History, [_ENTRIES, When("True", [Field("expansion", U32)], "", by_model=True)],
                 name="history")
HISTORY_3X = Struct(History, [_ENTRIES, When("False", [Field("expansion", U32)], "", by_model=True)],
                    name="history")

for _struct, _version in ((PLAYER, 2), (MISC, 1), (HISTORY, 1)):
    register_struct(_struct, _struct.name, _version, FAAN, FAANGBAND)
