"""The containers of objects and monsters that Vanilla 4.2 and the games built on it (Xygos,
FAangband 2, NarSil, Beleriand) share, declared once.

Each of those games stores its own object record (and its own monster record) but wraps it the
same way: the gear stored twice (every object, then every known copy) or once, object lists
ended by a dummy record, the floor's list after its size, a store's stock in pairs, a level
block holding the level as it is and as the player knows it (nothing for a dead character), the
monster list after its limit. So the descriptions here are factories that take what differs,
the game's model class and the description of the record it holds, and the models are generic
records (:class:`~savecraft.layout.GenericRecord`): a game's model only names its record type
(``class ItemList(shapes.ObjectList[FaItem])``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, Protocol, TypeVar, cast

from ....layout import (
    U8,
    U16,
    Field,
    GenericRecord,
    List,
    Member,
    Parallel,
    Prefix,
    Struct,
    Terminated,
    Until,
    When,
)

# The game writes no level (map, objects, monsters, traps) for a dead character.
ALIVE = "not ctx.need('is_dead', 'misc')"
FINISHED_CODE = 0xFF  # the slot byte that ends a list of carried objects


class GameObject(Protocol):
    """What the gear's common names (``quantity``, ``note``) read in a game's object record."""

    number: int
    inscription: Any  # text, or None where a "has note" byte says there is none

    @property
    def name(self) -> str: ...


O = TypeVar("O", bound=GameObject)  # a game's object record
T = TypeVar("T")  # what a level block holds: a game's level, floor objects, monsters or traps
# The default of a field whose type a game's class names (GenericRecord makes it a new record).
GAME_SETS: Any = cast(Any, None)


# -- models ---------------------------------------------------------------------------------


@dataclass
class Carried(GenericRecord, Generic[O]):
    """One carried object: the body slot it is wielded in, or a number past the body's slots
    for the pack. ``NO_NOTE`` is the inscription of an object without one (None where the
    record stores a "has note" byte)."""

    __slots__ = ()

    NO_NOTE: ClassVar[str | None] = ""
    slot: int = 0
    item: O = GAME_SETS

    def copies(self) -> tuple[O, ...]:
        """The records an edit of the object changes together (the game keeps them in step)."""
        return (self.item,)

    @property
    def name(self) -> str:
        return self.item.name

    @property
    def quantity(self) -> int:
        return self.item.number

    @quantity.setter
    def quantity(self, value: int) -> None:
        for copy in self.copies():
            copy.number = value

    @property
    def note(self) -> str:
        return self.item.inscription or ""

    @note.setter
    def note(self, value: str) -> None:
        for copy in self.copies():
            copy.inscription = value or self.NO_NOTE


@dataclass
class CarriedKnown(Carried[O]):
    """A carried object and the player's knowledge of it: ``quantity`` and ``note`` change the
    object and the known copy together, as the game does."""

    __slots__ = ()

    known_slot: int = 0
    known: O = GAME_SETS

    def copies(self) -> tuple[O, ...]:
        return (self.item, self.known)


G = TypeVar("G")  # a game's carried object


@dataclass
class GearList(GenericRecord, Generic[G]):
    """The gear block: every carried object."""

    __slots__ = ()

    items: list[G] = field(default_factory=list)


@dataclass
class ObjectList(GenericRecord, Generic[O]):
    """Objects up to the dummy record that ends the list (kept in ``end``)."""

    __slots__ = ()

    items: list[O] = field(default_factory=list)
    end: O = GAME_SETS


@dataclass
class StockPair(GenericRecord, Generic[O]):
    """An object of a store's stock and the player's knowledge of it."""

    __slots__ = ()

    known: O = GAME_SETS
    item: O = GAME_SETS


@dataclass
class Floor(GenericRecord, Generic[T]):
    """A level's objects: the size of its object list, then the list."""

    __slots__ = ()

    obj_max: int = 0
    objects: T = GAME_SETS


@dataclass
class MonsterList(GenericRecord, Generic[T]):
    """A level's monsters (``limit``, one more than them, is stored: slot 0 is never used)."""

    __slots__ = ()

    monsters: list[T] = field(default_factory=list)


@dataclass
class OneList(GenericRecord, Generic[T]):
    """A monsters block of one list (of the level, or of every level in memory)."""

    __slots__ = ()

    monsters: list[T] | None = None


class GridTrap:
    """A trap record placed by ``y`` and ``x``: the one at (0, 0) ends a list."""

    __slots__ = ()
    y: int
    x: int

    @property
    def is_end(self) -> bool:
        """The trap at (0, 0) that ends a list."""
        return self.y == 0 and self.x == 0


@dataclass
class TrapList(GenericRecord, Generic[T]):
    """Traps up to the one at (0, 0) that ends the list (kept in ``end``)."""

    __slots__ = ()

    trf_size: int = 0
    traps: list[T] = field(default_factory=list)
    end: T = GAME_SETS


@dataclass
class BothLevels(GenericRecord, Generic[T]):
    """A level block: what it holds of the level as it is and as the player knows it."""

    __slots__ = ()

    cave: T | None = None
    known_cave: T | None = None


@dataclass
class OneLevel(GenericRecord, Generic[T]):
    """A level block of a game that keeps no copy of what the player knows."""

    __slots__ = ()

    cave: T | None = None


@dataclass
class Place(GenericRecord, Generic[T]):
    """The dungeon block of a game that keeps no copy of what the player knows: where the
    player is, and the current level."""

    __slots__ = ()

    depth: int = 0
    daycount: int = 0
    py: int = 0
    px: int = 0
    square_size: int = 0
    cave: T | None = None


@dataclass
class Whereabouts(Place[T]):
    """The dungeon block: where the player is, and the current level twice, as it is and as
    the player knows it."""

    __slots__ = ()

    known_cave: T | None = None


# -- descriptions ---------------------------------------------------------------------------


def object_list(cls: type, obj: Struct) -> Struct:
    """Objects up to the dummy record that ends the list (an object with no kind, which the
    loader reads whole and drops; the model keeps it in ``end``)."""
    return Struct(cls, [Terminated("items", obj, "end", "is_marker", "an empty kind name (the end marker)")],
                  name="object list")


def gear(cls: type, entry: type, obj: Struct) -> Struct:
    """The gear stored twice: every (slot, object), then every (slot, known object), each list
    ended by a slot byte of 255. The model keeps each object beside its known copy."""
    return Struct(cls, [Parallel(
        "items",
        [Struct(entry, [Field("slot", U8), Field("item", obj)], name="gear entry"),
         Struct(entry, [Field("known_slot", U8), Field("known", obj)], name="known gear entry")],
        U8, FINISHED_CODE, ("end", "known_end"),
        "as many known objects as objects (the game pairs them)")], name="gear")


def gear_once(cls: type, entry: type, obj: Struct) -> Struct:
    """The gear stored once: every (slot, object), ended by a slot byte of 255."""
    return Struct(cls, [Field("items", Until(
        Struct(entry, [Field("slot", U8), Field("item", obj)], name="gear entry"), U8, FINISHED_CODE))],
        name="gear")


def stock_pair(cls: type, obj: Struct) -> Struct:
    """An object of a store's stock: the known copy, then the object."""
    return Struct(cls, [Field("known", obj), Field("item", obj)], name="stock pair")


def floor(cls: type, objects: Struct) -> Struct:
    """A level's objects: the size of its object list (``obj_max``), then the list."""
    return Struct(cls, [Field("obj_max", U16), Field("objects", objects)], name="floor")


def trap_list(cls: type, trap: Struct) -> Struct:
    """A level's traps: the size of their flags, then the traps up to the one at (0, 0)."""
    return Struct(cls, [Field("trf_size", U8, export="trf_size"),
                        Terminated("traps", trap, "end", "is_end", "a trap at (0, 0) (the end marker)")],
                  name="trap list")


def monster_list(cls: type, monster: Struct) -> Struct:
    """A level's monsters. ``limit`` is stored: one more than the monsters (slot 0 is never
    used); the game reads a limit of 0 as 1, and writes 1."""
    return Struct(cls, [Field("monsters", List(monster, Prefix(U16, "limit", bias=1)))],
                  name="monster list")


def monsters_once(cls: type, monster: Struct, which: str) -> Struct:
    """A monsters block of one list (``monsters``, the stored limit one more than them), of
    ``which`` monsters; nothing for a dead character."""
    return Struct(cls, [When(ALIVE, [Field("monsters", List(monster, Prefix(U16, "limit", bias=1)))],
                             f"{which} exactly when the character is alive")], name="monsters")


def both_levels(cls: type, inner: Struct, name: str) -> Struct:
    """A block of the level's ``name`` (objects, monsters, traps) twice: as it is (``cave``) and
    as the player knows it (``known_cave``); nothing for a dead character."""
    return Struct(cls, [When(ALIVE, [Field("cave", inner), Field("known_cave", inner)],
                             f"the {name} of both levels exactly when the character is alive")],
                  name=name)


def one_level(cls: type, inner: Struct, name: str) -> Struct:
    """A block of the level's ``name`` stored once (``cave``); nothing for a dead character."""
    return Struct(cls, [When(ALIVE, [Field("cave", inner)],
                             f"the level's {name} exactly when the character is alive")], name=name)


def dungeon(cls: type, level: Struct, before_square: Sequence[Member] = (), known: bool = True) -> Struct:
    """``rd_dungeon`` of 4.2: the player's place (with a game's fields before the square size),
    then the level as it is and, where the game keeps one (``known``), as the player knows it;
    no level for a dead character."""
    levels = ([Field("cave", level), Field("known_cave", level)], "the two levels") if known else \
        ([Field("cave", level)], "the level")
    return Struct(cls, [
        Field("depth", U16), Field("daycount", U16), Field("py", U16), Field("px", U16), *before_square,
        Field("square_size", U8, export="square_size"),
        When(ALIVE, levels[0], f"{levels[1]} exactly when the character is alive"),
    ], name="dungeon")
