"""NarSil 1.3.0 and 1.3.1 (NickMcConnell/NarSil): the blocks where they differ from NarSil 1.4.

1.3 writes the same block names and versions as 1.4 (``USIL``, all version
1; 1.3.0 has no monster groups block) and the same player block, so the file's game is told by the other blocks
(the game choice compares how many blocks each game's layouts read when
several games' player layouts read the player block). From 1.3.1's
``load.c``/``save.c``:

* the object record stores ``used`` in the byte after its 0xFFFF mark (1.3.0:
  its ``ITEM_VERSION``, 5, in the same byte; 1.4: an unused byte, ``used``
  after the timeout) and a ``marked`` byte after ``pseudo``;
* the gear, the level, its objects, monsters and traps are stored once: 1.3
  keeps no separate copy of what the player knows;
* the misc block ends with the turn: no knowledge of object properties;
* the rng block's first padding word is 1 in 1.3.1, which tells its loader to
  read the monster groups block (1.3.1 always writes it); 1.3.0 writes 0 and
  no such block. Otherwise 1.3.0 and 1.3.1 write the same bytes (1.3.1's
  ego flags add an "aware" bit), so one set of layouts reads both.

Everything else is NarSil 1.4's layout, registered again for this game.
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
    Array,
    Bytes,
    Columns,
    Const,
    CStr,
    Ctx,
    Field,
    List,
    Optional,
    Prefix,
    Struct,
    Terminated,
    Until,
    When,
)
from . import BlockModel, register_struct
from . import character, knowledge, narsil
from .items import ITEM_MARK, NAME_MAX, NOTE_MAX, Item
from .narsil import ALIVE, END, FINISHED_CODE, MAX_ACTION

VARIANTS = ("USIL",)  # the variant ids this module registers layouts for (see the package)

USIL = frozenset({"USIL"})
GAME = "NarSil 1.3"  # 1.3.0 and 1.3.1

for _struct in (character.RNG, character.OPTIONS, character.MESSAGES, knowledge.ARTIFACTS,
                narsil.MONSTER_MEMORY, narsil.OBJECT_MEMORY, narsil.IGNORE, narsil.PLAYER, narsil.HISTORY,
                narsil.MONSTER_GROUPS):
    register_struct(_struct, _struct.name, 1, USIL, GAME)


@dataclass(slots=True)
class Misc(BlockModel):
    """Seeds, death and the game turn (1.3 stores no knowledge of object properties)."""

    KIND: ClassVar[str] = "misc-narsil13"
    seed_randart: int = 0
    seed_flavor: int = 0
    noscore: int = 0
    is_dead: int = 0
    turn: int = 0


MISC = Struct(Misc, [
    Field("seed_randart", U32), Field("seed_flavor", U32), Field("noscore", U16),
    Field("is_dead", U8, export="is_dead"), Field("turn", I32),
], name="misc")


@dataclass(slots=True)
class SilItem:
    """One object record (``rd_item`` of NarSil 1.3; ``used`` holds 1.3.0's item version)."""

    used: int = 0
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
    marked: int = 0
    flags: bytes = b""
    modifiers: list[int] = field(default_factory=list)
    brands: bytes | None = None
    slays: bytes | None = None
    el_res: list[int] = field(default_factory=list)
    el_flags: bytes = b""
    abilities: list[narsil.ItemAbility] = field(default_factory=list)
    held_m_idx: int = 0
    inscription: str | None = None

    @property
    def is_marker(self) -> bool:
        return not self.sval

    @property
    def name(self) -> str:
        return Item(tval=self.tval, sval=self.sval, number=self.number, artifact=self.artifact,
                    ego=self.ego, inscription=self.inscription or "").name


def _size(name: str) -> Ctx:
    return Ctx(name, "object memory")


_ITEM_ABILITY = Struct(narsil.ItemAbility, [Field("name", CStr(79)), Field("skill", U8)], name="ability")
OBJECT = Struct(SilItem, [
    Const("mark", U16, ITEM_MARK, "0xFFFF, the start of an object record"),
    Field("used", U8), Field("oidx", U16), Field("y", U8), Field("x", U8),
    Field("tval", CStr(NAME_MAX)), Field("sval", CStr(NAME_MAX)),
    Field("image_tval", CStr(NAME_MAX)),
    When("image_tval != ''", [Field("image_sval", CStr(NAME_MAX))],
         "an image kind name exactly when there is an image base name"),
    Field("pval", I16), Field("number", U8), Field("weight", I16),
    Field("artifact", CStr(NAME_MAX)), Field("ego", CStr(NAME_MAX)),
    Field("timeout", I16), Field("att", I16), Field("dd", U8), Field("ds", U8),
    Field("evn", I16), Field("pd", U8), Field("ps", U8), Field("origin", U8),
    Field("origin_depth", U8), Field("origin_race", CStr(NAME_MAX)), Field("notice", U8),
    Field("pseudo", U8), Field("marked", U8),
    Field("flags", Bytes(_size("of_size"))),
    Field("modifiers", Array(I16, _size("obj_mod_max"))),
    Field("brands", Optional(U8, Bytes(_size("brand_max")))),
    Field("slays", Optional(U8, Bytes(_size("slay_max")))),
    Columns(_size("elem_max"), [("el_res", I16, False), ("el_flags", U8, True)]),
    Field("abilities", Until(_ITEM_ABILITY, CStr(79), END)),
    Field("held_m_idx", I16),
    Field("inscription", Optional(U8, CStr(NOTE_MAX))),
], name="object")


@dataclass(slots=True)
class ItemList:
    items: list[SilItem] = field(default_factory=list)
    end: SilItem = field(default_factory=SilItem)


ITEM_LIST = Struct(ItemList, [
    Terminated("items", OBJECT, "end", "is_marker", "an empty kind name (the end marker)")],
    name="object list")


@dataclass(slots=True)
class GearItem:
    """One carried object (1.3 keeps no separate known copy)."""

    slot: int = 0
    item: SilItem = field(default_factory=SilItem)

    @property
    def name(self) -> str:
        return self.item.name

    @property
    def quantity(self) -> int:
        return self.item.number

    @quantity.setter
    def quantity(self, value: int) -> None:
        self.item.number = value

    @property
    def note(self) -> str:
        return self.item.inscription or ""

    @note.setter
    def note(self, value: str) -> None:
        self.item.inscription = value or None


@dataclass(slots=True)
class Gear(BlockModel):
    KIND: ClassVar[str] = "gear-narsil13"
    items: list[GearItem] = field(default_factory=list)


GEAR = Struct(Gear, [Field("items", Until(
    Struct(GearItem, [Field("slot", U8), Field("item", OBJECT)], name="gear entry"), U8, FINISHED_CODE))],
    name="gear")


@dataclass(slots=True)
class Dungeon(BlockModel):
    KIND: ClassVar[str] = "dungeon-narsil13"
    depth: int = 0
    daycount: int = 0
    py: int = 0
    px: int = 0
    square_size: int = 0
    cave: narsil.Level | None = None


DUNGEON = Struct(Dungeon, [
    Field("depth", U16), Field("daycount", U16), Field("py", U16), Field("px", U16),
    Field("square_size", U8, export="square_size"),
    When(ALIVE, [Field("cave", narsil.LEVEL)], "the level exactly when the character is alive"),
], name="dungeon")


@dataclass(slots=True)
class FloorObjects:
    obj_max: int = 0
    objects: ItemList = field(default_factory=ItemList)


FLOOR = Struct(FloorObjects, [Field("obj_max", U16), Field("objects", ITEM_LIST)], name="floor")


@dataclass(slots=True)
class Objects(BlockModel):
    KIND: ClassVar[str] = "objects-narsil13"
    cave: FloorObjects | None = None


OBJECTS = Struct(Objects, [When(ALIVE, [Field("cave", FLOOR)],
                                 "the level's objects exactly when the character is alive")],
                 name="objects")


@dataclass(slots=True)
class Monster:
    """One monster (``rd_monster`` of 1.3.1: 1.4's record, holding 1.3.1's objects)."""

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
    held: ItemList = field(default_factory=ItemList)
    group_index: int = 0
    group_role: int = 0
    target_y: int = 0
    target_x: int = 0
    skip_this_turn: int = 0
    skip_next_turn: int = 0
    consecutive_attacks: int = 0
    turns_stationary: int = 0


MONSTER = Struct(Monster, [
    Field("midx", U16), Field("race", CStr(79)), Field("image_race", CStr(79)), Field("y", U8),
    Field("x", U8), Field("hp", I16), Field("maxhp", I16), Field("mana", U8), Field("song", U8),
    Field("alertness", I16), Field("mspeed", U8), Field("energy", U8), Field("origin", U8),
    Field("stance", U8), Field("morale", I16), Field("tmp_morale", I16), Field("noise", U8),
    Field("encountered", U8), Field("timed", Array(I16, Prefix(U8, "timed_count"))),
    Field("mflag", Bytes(Ctx("mflag_size", "monster memory"))),
    Field("known_flags", Array(I16, Ctx("of_size", "object memory"))),
    Field("known_res", Array(I16, Ctx("elem_max", "object memory"))),
    Field("previous_action", Bytes(MAX_ACTION)),
    Field("held", ITEM_LIST), Field("group_index", U16), Field("group_role", U8),
    Field("target_y", U8), Field("target_x", U8), Field("skip_this_turn", U8),
    Field("skip_next_turn", U8), Field("consecutive_attacks", I16), Field("turns_stationary", I16),
], name="monster")


@dataclass(slots=True)
class Monsters(BlockModel):
    KIND: ClassVar[str] = "monsters-narsil13"
    monsters: list[Monster] | None = None


MONSTERS = Struct(Monsters, [
    When(ALIVE, [Field("monsters", List(MONSTER, Prefix(U16, "limit", bias=1)))],
         "the level's monsters exactly when the character is alive"),
], name="monsters")


@dataclass(slots=True)
class Traps(BlockModel):
    KIND: ClassVar[str] = "traps-narsil13"
    cave: narsil.TrapList | None = None


TRAPS = Struct(Traps, [When(ALIVE, [Field("cave", narsil.TRAP_LIST)],
                             "the level's traps exactly when the character is alive")], name="traps")


for _struct in (MISC, GEAR, DUNGEON, OBJECTS, MONSTERS, TRAPS):
    register_struct(_struct, _struct.name, 1, USIL, GAME)
