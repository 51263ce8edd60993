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
    U8,
    Field,
    Struct,
)
from . import BlockModel, register_struct
from . import character, knowledge, narsil, shapes
from .shapes import Carried

VARIANTS = ("USIL",)  # the variant ids this module registers layouts for (see the package)

USIL = frozenset({"USIL"})
GAME = "NarSil 1.3"  # 1.3.0 and 1.3.1

for _struct in (character.RNG, character.OPTIONS, character.MESSAGES, knowledge.ARTIFACTS,
                narsil.MONSTER_MEMORY, narsil.OBJECT_MEMORY, narsil.IGNORE, narsil.PLAYER, narsil.HISTORY,
                narsil.MONSTER_GROUPS):
    register_struct(_struct, _struct.name, 1, USIL, GAME)


@dataclass(slots=True)
class Misc(narsil.MiscHead, BlockModel):
    """Seeds, death and the game turn (1.3 stores no knowledge of object properties)."""

    KIND: ClassVar[str] = "misc-narsil13"


MISC = Struct(Misc, narsil.MISC_HEAD, name="misc")


@dataclass(slots=True)
class SilItem(narsil.SilObject):
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


OBJECT = narsil.object_record(SilItem, first=narsil.USED, after_timeout=(), after_pseudo=[Field("marked", U8)])


@dataclass(slots=True)
class ItemList(shapes.ObjectList[SilItem]):
    pass


ITEM_LIST = shapes.object_list(ItemList, OBJECT)


@dataclass(slots=True)
class GearItem(Carried[SilItem]):
    """One carried object (1.3 keeps no separate known copy)."""

    NO_NOTE: ClassVar[str | None] = None


@dataclass(slots=True)
class Gear(shapes.GearList[GearItem], BlockModel):
    KIND: ClassVar[str] = "gear-narsil13"


GEAR = shapes.gear_once(Gear, GearItem, OBJECT)


@dataclass(slots=True)
class Dungeon(shapes.Place[narsil.Level], BlockModel):
    KIND: ClassVar[str] = "dungeon-narsil13"


DUNGEON = shapes.dungeon(Dungeon, narsil.LEVEL, known=False)


@dataclass(slots=True)
class FloorObjects(shapes.Floor[ItemList]):
    pass


FLOOR = shapes.floor(FloorObjects, ITEM_LIST)


@dataclass(slots=True)
class Objects(shapes.OneLevel[FloorObjects], BlockModel):
    KIND: ClassVar[str] = "objects-narsil13"


OBJECTS = shapes.one_level(Objects, FLOOR, "objects")


@dataclass(slots=True)
class Monster(narsil.SilMonster[ItemList]):
    """One monster (``rd_monster`` of 1.3.1: 1.4's record, holding 1.3.1's objects)."""


MONSTER = narsil.monster(Monster, ITEM_LIST)


@dataclass(slots=True)
class Monsters(shapes.OneList[Monster], BlockModel):
    KIND: ClassVar[str] = "monsters-narsil13"


MONSTERS = shapes.monsters_once(Monsters, MONSTER, "the level's monsters")


@dataclass(slots=True)
class Traps(shapes.OneLevel[narsil.TrapList], BlockModel):
    KIND: ClassVar[str] = "traps-narsil13"


TRAPS = shapes.one_level(Traps, narsil.TRAP_LIST, "traps")


for _struct in (MISC, GEAR, DUNGEON, OBJECTS, MONSTERS, TRAPS):
    register_struct(_struct, _struct.name, 1, USIL, GAME)
