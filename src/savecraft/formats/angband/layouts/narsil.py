"""NarSil (NickMcConnell/NarSil 1.4.0): Sil's game in Angband 4.2's block format, variant id ``USIL``.

NarSil keeps 4.2's container and many of its blocks (rng, options,
messages, artifacts are read as 4.2 reads them), but the character is Sil's:
no level, class or gold; race, house and sex by name; four stats; eight
skills; abilities bought with experience; health and voice. It writes
description, rng, options, messages, monster memory, object memory, player,
ignore, misc, artifacts, gear, dungeon, objects, monsters, traps, history and
monster groups, all version 1 (``savefile.c``). Every layout here is
``load.c``/``save.c`` of 1.4.0; where a field the loader refuses is checked
(too many stats or skills), the message names the loader's check.

Objects are Sil's: attack and evasion bonuses (``att``, ``evn``), protection
dice (``pd``, ``ps``), abilities, no curses or activations; an inscription
only when a "has note" byte says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import ClassVar, Generic, TypeVar

from ....layout import (
    I16,
    I32,
    U8,
    U16,
    U32,
    Array,
    Bytes,
    Const,
    CStr,
    Ctx,
    Custom,
    Field,
    GenericRecord,
    Len,
    List,
    Member,
    Optional,
    Prefix,
    Ref,
    Struct,
    Tuple,
    Until,
    When,
)
from . import BlockModel, register_struct
from . import character, items, knowledge, shapes
from .character import BodySlot
from .items import ITEM_MARK, NAME_MAX, NOTE_MAX, Item
from .levels import check_rle, read_rle
from .shapes import CarriedKnown

VARIANTS = ("USIL",)  # the variant ids this module registers layouts for (see the package)

NARSIL = frozenset({"USIL"})
GAME = "NarSil 1.4"
STAT_NAMES = ("str", "dex", "con", "gra")
STAT_MAX = 4  # rd_player: "Too many stats"
SKILL_NAMES = ("melee", "archery", "evasion", "stealth", "perception", "will", "smithing", "song")
SKILL_MAX = 8  # rd_player: "Too many skills"
MAX_ACTION = 6  # player.h: the previous actions kept, of the player and of each monster
END = "end"  # the name that ends a list of abilities
FINISHED_CODE = shapes.FINISHED_CODE
ALIVE = shapes.ALIVE

# 4.2's layouts NarSil's loader reads the same way.
for _struct in (character.RNG, character.OPTIONS, character.MESSAGES, knowledge.ARTIFACTS):
    register_struct(_struct, _struct.name, 1, NARSIL, GAME)


# -- monster memory, object memory, ignore ----------------------------------------------------


@dataclass(slots=True)
class MonsterKills:
    race: str = ""
    pkills: int = 0
    psights: int = 0


@dataclass(slots=True)
class MonsterMemory(BlockModel):
    """Kill and sighting counts by monster race name."""

    KIND: ClassVar[str] = "monster-memory-narsil"
    mflag_size: int = 0
    races: list[MonsterKills] = field(default_factory=list)


_KILLS = Struct(MonsterKills, [Field("race", CStr(NAME_MAX)), Field("pkills", U16),
                               Field("psights", U16)], name="monster kills")


def monster_memory(cls: type, sizes: Sequence[str]) -> Struct:
    """The sizes of the flags every monster record stores (``sizes``, in file order), then the
    kills and sightings of each race the character knows, by name."""
    return Struct(cls, [*[Field(size, U8, export=size) for size in sizes],
                        Field("races", Until(_KILLS, CStr(NAME_MAX), knowledge.END_OF_MONSTERS))],
                  name="monster memory")


MONSTER_MEMORY = monster_memory(MonsterMemory, ["mflag_size"])


@dataclass(slots=True)
class ObjectMemory(BlockModel):
    """Per object kind: aware (1), tried (2), ignored when aware (4), seen (8), ignored unaware
    (16); and the sizes every object record uses (NarSil has no curses)."""

    KIND: ClassVar[str] = "object-memory-narsil"
    of_size: int = 0
    obj_mod_max: int = 0
    elem_max: int = 0
    brand_max: int = 0
    slay_max: int = 0
    kinds: bytes = b""


_SIZES = ("of_size", "obj_mod_max", "elem_max", "brand_max", "slay_max")
OBJECT_MEMORY = Struct(ObjectMemory, [
    Len("count", U16, ("kinds",)),
    *[Field(name, U8, export=name) for name in _SIZES],
    Field("kinds", Bytes(Ref("count"))),
], name="object memory")


@dataclass(slots=True)
class Ignore(BlockModel):
    """4.2's ignore block without the rune inscriptions (NarSil has no runes)."""

    KIND: ClassVar[str] = "ignore-narsil"
    levels: bytes = b""
    itype_size: int = 0
    egos: list[knowledge.EgoIgnore] = field(default_factory=list)
    aware_notes: list[knowledge.KindNote] = field(default_factory=list)
    unaware_notes: list[knowledge.KindNote] = field(default_factory=list)


_KIND_NOTE = Struct(knowledge.KindNote, [Field("tval", CStr(79)), Field("sval", CStr(79)),
                                          Field("note", CStr(79))], name="kind note")
IGNORE = Struct(Ignore, knowledge.ignore_members(_KIND_NOTE), name="ignore")


# -- player -----------------------------------------------------------------------------------


@dataclass(slots=True)
class Ability:
    """An ability the character has (``skill``: the skill it belongs to), and whether it is on."""

    name: str = ""
    skill: int = 0
    active: int = 0


@dataclass
class SilCharacter:
    """The character as every Sil game stores it up to the body (``character_members``): names,
    origins and looks, four stats kept as a base value and a drain, skills, abilities; no level
    or gold. (No slots of its own: each game's player model holds them.)"""

    __slots__ = ()
    # The vocabulary's paths Sil's characters do not have: no level, no gold, and experience as
    # a pool to spend (``exp``, ``new_exp``) instead of a maximum.
    NOT_STORED: ClassVar[frozenset[str]] = frozenset({"au", "lev", "max_lev", "max_exp", "experience"})
    STAT_NAMES: ClassVar[tuple[str, ...]] = STAT_NAMES
    full_name: str = ""
    died_from: str = ""
    history: str = ""
    race: str = ""
    house: str = ""
    sex: str = ""
    name_suffix: int = 0
    game_type: int = 0
    age: int = 0
    height: int = 0
    weight: int = 0
    height_birth: int = 0
    weight_birth: int = 0
    stat_base: list[int] = field(default_factory=list)
    stat_drain: list[int] = field(default_factory=list)
    skill_base: list[int] = field(default_factory=list)
    abilities: list[Ability] = field(default_factory=list)
    item_abilities: list[Ability] = field(default_factory=list)
    previous_action: bytes = b"\0" * MAX_ACTION
    body_name: str = ""
    body: list[BodySlot] = field(default_factory=list)

    @property
    def stat_cur(self) -> list[int]:
        """Each stat as it stands: the base value with its drain (stored as a negative number)."""
        return [b + d for b, d in zip(self.stat_base, self.stat_drain)]

    @property
    def stat_max(self) -> list[int]:
        """Each stat undrained: the base value."""
        return list(self.stat_base)


@dataclass(slots=True)
class Player(SilCharacter, BlockModel):
    """The character (``rd_player`` of NarSil): Sil's, with experience to spend, no level."""

    KIND: ClassVar[str] = "player-narsil"
    new_exp: int = 0
    exp: int = 0
    encounter_exp: int = 0
    kill_exp: int = 0
    descent_exp: int = 0
    ident_exp: int = 0
    turn: int = 0
    mhp: int = 0
    chp: int = 0
    msp: int = 0
    csp: int = 0
    max_depth: int = 0
    staircasiness: int = 0
    energy: int = 0
    total_energy: int = 0
    resting_turn: int = 0
    timed: list[int] = field(default_factory=list)
    vaults: bytes = b""
    unignoring: int = 0
    last_attack_m_idx: int = 0
    consecutive_attacks: int = 0
    bane_type: int = 0
    focused: int = 0
    song_main: int = 0
    song_minor: int = 0
    song_duration: int = 0
    wrath: int = 0
    stairs_taken: int = 0
    forge_drought: int = 0
    forge_count: int = 0
    stealth_mode: int = 0
    self_made_arts: int = 0
    truce: int = 0
    morgoth_hits: int = 0
    crown_hint: int = 0
    crown_shatter: int = 0
    cursed: int = 0
    on_the_run: int = 0
    morgoth_slain: int = 0
    escaped: int = 0
    noscore: int = 0
    smithing_leftover: int = 0
    unique_forge_made: int = 0
    unique_forge_seen: int = 0


ABILITY = Struct(Ability, [Field("name", CStr(79)), Field("skill", U8), Field("active", U8)],
                 name="ability")


def character_members(skill_max: int) -> list[Member]:
    """``rd_player`` of NarSil to the body: the character's names, origins and looks, stats,
    skills (at most ``skill_max``), abilities and last actions."""
    return [
        Field("full_name", CStr(31)), Field("died_from", CStr(79)), Field("history", CStr(249)),
        Field("race", CStr(79)), Field("house", CStr(79)), Field("sex", CStr(79)),
        Field("name_suffix", U8), Field("game_type", I16), Field("age", I16), Field("height", I16),
        Field("weight", I16), Field("height_birth", I16), Field("weight_birth", I16),
        Len("stat_count", U8, ("stat_base", "stat_drain"), most=STAT_MAX,
            expected=f"at most {STAT_MAX} stats (rd_player: 'Too many stats')"),
        Field("stat_base", Array(I16, Ref("stat_count"))), Field("stat_drain", Array(I16, Ref("stat_count"))),
        Field("skill_base", Array(I16, Prefix(U8, "skill_count", skill_max,
                                              f"at most {skill_max} skills (rd_player: 'Too many skills')"))),
        Field("abilities", Until(ABILITY, CStr(79), END)),
        Field("item_abilities", Until(ABILITY, CStr(79), END)),
        Field("previous_action", Bytes(MAX_ACTION)), *character.BODY,
    ]


def experience(fourth: str) -> list[Member]:
    """The experience to spend and its sources (the fourth is ``fourth``), the turn, health and
    voice, and the deepest level."""
    return [
        Field("new_exp", I32), Field("exp", I32), Field("encounter_exp", I32), Field("kill_exp", I32),
        Field(fourth, I32), Field("ident_exp", I32), Field("turn", I32),
        Field("mhp", I16), Field("chp", I16), Field("msp", I16), Field("csp", I16), Field("max_depth", I16),
    ]


# From the energy to the wrath, and from the forge to the end: the same in NarSil and Beleriand.
STATE: list[Member] = [
    Field("energy", I16), Field("total_energy", U32), Field("resting_turn", U32),
    Field("timed", Array(I16, Prefix(U8, "timed_count"))),
    Len("vault_count", U16, ("vaults",)), Field("vaults", Bytes(Ref("vault_count"))),
    Field("unignoring", U8), Field("last_attack_m_idx", I16), Field("consecutive_attacks", I16),
    Field("bane_type", I16), Field("focused", U8), Field("song_main", U8), Field("song_minor", U8),
    Field("song_duration", I16), Field("wrath", I16),
]
FORGE: list[Member] = [
    Field("forge_drought", U16), Field("forge_count", U16), Field("stealth_mode", U8),
    Field("self_made_arts", U8), Field("truce", U8), Field("morgoth_hits", U8),
    Field("crown_hint", U8), Field("crown_shatter", U8), Field("cursed", U8),
    Field("on_the_run", U8), Field("morgoth_slain", U8), Field("escaped", U8),
    Field("noscore", U16), Field("smithing_leftover", I16), Field("unique_forge_made", U8),
    Field("unique_forge_seen", U8),
]
PLAYER = Struct(Player, [
    *character_members(SKILL_MAX), *experience("descent_exp"), Field("staircasiness", U16), *STATE,
    Field("stairs_taken", U16), *FORGE,
], name="player")


# -- misc -------------------------------------------------------------------------------------


@dataclass
class MiscHead:
    """What every NarSil misc block starts with: the seeds, death and the game turn (no slots of
    its own: each version's block model holds them)."""

    __slots__ = ()
    seed_randart: int = 0
    seed_flavor: int = 0
    noscore: int = 0
    is_dead: int = 0
    turn: int = 0


@dataclass(slots=True)
class Misc(MiscHead, BlockModel):
    """Seeds, death, the game turn, and what the character knows of object properties."""

    KIND: ClassVar[str] = "misc-narsil"
    known_flags: bytes = b""
    known_modifiers: list[int] = field(default_factory=list)
    known_elements: list[tuple[int, int]] = field(default_factory=list)
    known_brands: bytes = b""
    known_slays: bytes = b""
    known_att: int = 0
    known_evn: int = 0
    known_pd: int = 0
    known_ps: int = 0
    known_dd: int = 0
    known_ds: int = 0


def _memory(name: str) -> Ctx:
    return Ctx(name, "object memory")


MISC_HEAD: list[Member] = [
    Field("seed_randart", U32), Field("seed_flavor", U32), Field("noscore", U16),
    Field("is_dead", U8, export="is_dead"), Field("turn", I32),
]
MISC = Struct(Misc, [
    *MISC_HEAD, Field("known_flags", Bytes(_memory("of_size"))),
    Field("known_modifiers", Array(I16, _memory("obj_mod_max"))),
    Field("known_elements", List(Tuple(("res_level", I16), ("flags", U8)), _memory("elem_max"))),
    Field("known_brands", Bytes(_memory("brand_max"))), Field("known_slays", Bytes(_memory("slay_max"))),
    Field("known_att", I16), Field("known_evn", I16), Field("known_pd", U8), Field("known_ps", U8),
    Field("known_dd", U8), Field("known_ds", U8),
], name="misc")


# -- objects ----------------------------------------------------------------------------------


@dataclass(slots=True)
class ItemAbility:
    name: str = ""
    skill: int = 0


class SilObject:
    """What every Sil object model answers to, whichever version's fields it has."""

    __slots__ = ()
    tval: str
    sval: str
    number: int
    artifact: str
    ego: str
    inscription: str | None

    @property
    def is_marker(self) -> bool:
        """The dummy record that ends a list: no kind."""
        return not self.sval

    @property
    def name(self) -> str:
        """The object as the game's lists name it ("3 x Flask of Oil"), as 4.2's :class:`Item`."""
        return Item(tval=self.tval, sval=self.sval, number=self.number, artifact=self.artifact,
                    ego=self.ego, inscription=self.inscription or "").name


@dataclass(slots=True)
class SilItem(SilObject):
    """One object record (``rd_item`` of NarSil): kind by name, what it looks like (an object
    seen under hallucination, ``image_*``), Sil's combat values and abilities."""

    unused: int = 0
    oidx: int = 0
    y: int = 0
    x: int = 0
    tval: str = ""
    sval: str = ""
    image_tval: str = ""
    image_sval: str | None = None
    pval: int = 0
    number: int = 0
    weight: int = 0
    artifact: str = ""
    ego: str = ""
    timeout: int = 0
    used: int = 0
    att: int = 0
    dd: int = 0
    ds: int = 0
    evn: int = 0
    pd: int = 0
    ps: int = 0
    origin: int = 0
    origin_depth: int = 0
    origin_race: str = ""
    notice: int = 0
    pseudo: int = 0
    flags: bytes = b""
    modifiers: list[int] = field(default_factory=list)
    brands: bytes | None = None
    slays: bytes | None = None
    el_res: list[int] = field(default_factory=list)
    el_flags: bytes = b""
    abilities: list[ItemAbility] = field(default_factory=list)
    held_m_idx: int = 0
    inscription: str | None = None


ITEM_ABILITY = Struct(ItemAbility, [Field("name", CStr(79)), Field("skill", U8)], name="ability")
UNUSED = Field("unused", U8)
USED = Field("used", U8)


def object_record(cls: type, first: Member = UNUSED, after_grid: Sequence[Member] = (),
                  after_timeout: Sequence[Member] = (USED,), after_pseudo: Sequence[Member] = ()) -> Struct:
    """``rd_item`` of NarSil 1.4, with what another version stores otherwise: the byte after the
    mark (``first``), and its fields after the grid, the timeout and the pseudo-id."""
    return Struct(cls, [
        Const("mark", U16, ITEM_MARK, "0xFFFF, the start of an object record"),
        first, Field("oidx", U16), Field("y", U8), Field("x", U8), *after_grid,
        Field("tval", CStr(NAME_MAX)), Field("sval", CStr(NAME_MAX)),
        Field("image_tval", CStr(NAME_MAX)),
        When("image_tval != ''", [Field("image_sval", CStr(NAME_MAX))],
             "an image kind name exactly when there is an image base name"),
        Field("pval", I16), Field("number", U8), Field("weight", I16),
        Field("artifact", CStr(NAME_MAX)), Field("ego", CStr(NAME_MAX)),
        Field("timeout", I16), *after_timeout, Field("att", I16), Field("dd", U8), Field("ds", U8),
        Field("evn", I16), Field("pd", U8), Field("ps", U8), Field("origin", U8),
        Field("origin_depth", U8), Field("origin_race", CStr(NAME_MAX)), Field("notice", U8),
        Field("pseudo", U8), *after_pseudo,
        Field("flags", Bytes(Ctx("of_size", "object memory"))), *items.POWERS, items.ELEMENTS,
        Field("abilities", Until(ITEM_ABILITY, CStr(79), END)),
        Field("held_m_idx", I16),
        Field("inscription", Optional(U8, CStr(NOTE_MAX))),
    ], name="object")


OBJECT = object_record(SilItem)


@dataclass(slots=True)
class ItemList(shapes.ObjectList[SilItem]):
    """Objects up to the dummy record that ends the list (kept in ``end``)."""


ITEM_LIST = shapes.object_list(ItemList, OBJECT)


# -- gear -------------------------------------------------------------------------------------


@dataclass(slots=True)
class GearItem(CarriedKnown[SilItem]):
    """One carried object and the player's knowledge of it (kept in step, as the game does)."""

    NO_NOTE: ClassVar[str | None] = None


@dataclass(slots=True)
class Gear(shapes.GearList[GearItem], BlockModel):
    KIND: ClassVar[str] = "gear-narsil"


GEAR = shapes.gear(Gear, GearItem, OBJECT)


# -- levels -----------------------------------------------------------------------------------


@dataclass(slots=True)
class Level:
    """One level map (``rd_dungeon_aux`` of NarSil): name, size, the vault it holds, and the
    square info layers and terrain as run-length pairs."""

    name: str = ""
    height: int = 0
    width: int = 0
    vault_name: str | None = None
    info: list[bytes] = field(default_factory=list)
    feat: bytes = b""


def _square_size() -> Ctx:
    return Ctx("square_size", "dungeon")


_RLE = Custom(read_rle, check_rle, "height * width")
LEVEL = Struct(Level, [
    Field("name", CStr(99)), Field("height", U16), Field("width", U16),
    Field("vault_name", Optional(U8, CStr(99))),
    Field("info", List(_RLE, _square_size())), Field("feat", _RLE),
], name="level")


@dataclass(slots=True)
class Dungeon(shapes.Whereabouts[Level], BlockModel):
    KIND: ClassVar[str] = "dungeon-narsil"


DUNGEON = shapes.dungeon(Dungeon, LEVEL)


@dataclass(slots=True)
class FloorObjects(shapes.Floor[ItemList]):
    pass


FLOOR = shapes.floor(FloorObjects, ITEM_LIST)


@dataclass(slots=True)
class Objects(shapes.BothLevels[FloorObjects], BlockModel):
    KIND: ClassVar[str] = "objects-narsil"


OBJECTS = shapes.both_levels(Objects, FLOOR, "objects")


# -- monsters ---------------------------------------------------------------------------------


H = TypeVar("H")  # the object list a version's monster carries


@dataclass
class SilMonster(GenericRecord, Generic[H]):
    """One monster (``rd_monster`` of NarSil): Sil's alertness, morale, stance and song, and
    what it carries (``held``: a version's object list, which its class declares)."""

    __slots__ = ()

    midx: int = 0
    race: str = ""
    image_race: str = "none"
    y: int = 0
    x: int = 0
    hp: int = 0
    maxhp: int = 0
    mana: int = 0
    song: int = 0
    alertness: int = 0
    mspeed: int = 0
    energy: int = 0
    origin: int = 0
    stance: int = 0
    morale: int = 0
    tmp_morale: int = 0
    noise: int = 0
    encountered: int = 0
    timed: list[int] = field(default_factory=list)
    mflag: bytes = b""
    known_flags: list[int] = field(default_factory=list)
    known_res: list[int] = field(default_factory=list)
    previous_action: bytes = b"\0" * MAX_ACTION
    held: H = shapes.GAME_SETS
    group_index: int = 0
    group_role: int = 0
    target_y: int = 0
    target_x: int = 0
    skip_this_turn: int = 0
    skip_next_turn: int = 0
    consecutive_attacks: int = 0
    turns_stationary: int = 0


@dataclass(slots=True)
class Monster(SilMonster[ItemList]):
    """One monster of NarSil 1.4, carrying its objects."""


def monster(cls: type, held: Struct, after_grid: Sequence[Member] = ()) -> Struct:
    """``rd_monster`` of NarSil 1.4, carrying a version's object list, with the fields a game
    stores after the monster's grid."""
    return Struct(cls, [
        Field("midx", U16), Field("race", CStr(79)), Field("image_race", CStr(79)), Field("y", U8),
        Field("x", U8), *after_grid, Field("hp", I16), Field("maxhp", I16), Field("mana", U8),
        Field("song", U8), Field("alertness", I16), Field("mspeed", U8), Field("energy", U8),
        Field("origin", U8), Field("stance", U8), Field("morale", I16), Field("tmp_morale", I16),
        Field("noise", U8), Field("encountered", U8), Field("timed", Array(I16, Prefix(U8, "timed_count"))),
        Field("mflag", Bytes(Ctx("mflag_size", "monster memory"))),
        Field("known_flags", Array(I16, Ctx("of_size", "object memory"))),
        Field("known_res", Array(I16, Ctx("elem_max", "object memory"))),
        Field("previous_action", Bytes(MAX_ACTION)),
        Field("held", held), Field("group_index", U16), Field("group_role", U8),
        Field("target_y", U8), Field("target_x", U8), Field("skip_this_turn", U8),
        Field("skip_next_turn", U8), Field("consecutive_attacks", I16), Field("turns_stationary", I16),
    ], name="monster")


MONSTER = monster(Monster, ITEM_LIST)


@dataclass(slots=True)
class MonsterList(shapes.MonsterList[Monster]):
    pass


MONSTER_LIST = shapes.monster_list(MonsterList, MONSTER)


@dataclass(slots=True)
class Monsters(shapes.BothLevels[MonsterList], BlockModel):
    KIND: ClassVar[str] = "monsters-narsil"


MONSTERS = shapes.both_levels(Monsters, MONSTER_LIST, "monsters")


# -- traps ------------------------------------------------------------------------------------


@dataclass(slots=True)
class Trap(shapes.GridTrap):
    kind: str = ""
    y: int = 0
    x: int = 0
    power: int = 0
    flags: bytes = b""


@dataclass(slots=True)
class TrapList(shapes.TrapList[Trap]):
    pass


_TRAP = Struct(Trap, [Field("kind", CStr(79)), Field("y", U8), Field("x", U8), Field("power", U8),
                      Field("flags", Bytes(Ctx("trf_size", "traps")))], name="trap")
TRAP_LIST = shapes.trap_list(TrapList, _TRAP)


@dataclass(slots=True)
class Traps(shapes.BothLevels[TrapList], BlockModel):
    KIND: ClassVar[str] = "traps-narsil"


TRAPS = shapes.both_levels(Traps, TRAP_LIST, "traps")


# -- history, monster groups ------------------------------------------------------------------


@dataclass(slots=True)
class HistoryEntry:
    type: bytes = b""
    turn: int = 0
    dlev: int = 0
    artifact: str = ""
    event: str = ""


@dataclass(slots=True)
class History(BlockModel):
    """The character's history (4.2's, without the character level: Sil has none)."""

    KIND: ClassVar[str] = "history-narsil"
    hist_size: int = 0
    entries: list[HistoryEntry] = field(default_factory=list)


_HISTORY_ENTRY = Struct(HistoryEntry, [
    Field("type", Bytes(Ctx("hist_size", "history"))), Field("turn", I32), Field("dlev", I16),
    Field("artifact", CStr(79)), Field("event", CStr(79))], name="history entry")
HISTORY = Struct(History, [
    Field("hist_size", U8, export="hist_size"),
    Field("entries", List(_HISTORY_ENTRY, Prefix(U32, "count"))),
], name="history")


@dataclass(slots=True)
class MonsterGroup:
    """A group of monsters on the level: the centre of its flow and how long it waits."""

    index: int = 0
    centre_x: int = 0
    centre_y: int = 0
    wandering_pause: int = 0


@dataclass(slots=True)
class MonsterGroups(BlockModel):
    KIND: ClassVar[str] = "monster-groups-narsil"
    groups: list[MonsterGroup] = field(default_factory=list)


_GROUP = Struct(MonsterGroup, [Field("index", U16), Field("centre_x", U8), Field("centre_y", U8),
                               Field("wandering_pause", I16)], name="monster group")
MONSTER_GROUPS = Struct(MonsterGroups, [Field("groups", Until(_GROUP, U16, 0))], name="monster groups")


for _struct in (MONSTER_MEMORY, OBJECT_MEMORY, IGNORE, PLAYER, MISC, GEAR, DUNGEON, OBJECTS, MONSTERS,
                TRAPS, HISTORY, MONSTER_GROUPS):
    register_struct(_struct, _struct.name, 1, NARSIL, GAME)
