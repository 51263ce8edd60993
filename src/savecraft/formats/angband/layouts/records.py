"""What the variant layouts share: a model's fields to and from a fixed ``Record``, the
"is the character alive" switch of the level blocks, and the experience rule of a player.

The games' loaders read long runs of fixed fields; a layout declares each run
once as a :class:`~savecraft.binary.Record` whose field names are the model's,
and moves it in one step with these helpers.
"""

from __future__ import annotations

from typing import Any, Protocol

from ....binary import Record
from . import Context


def record_values(model: object, rec: Record) -> list[Any]:
    """The model's values for ``rec``'s fields, in the record's order (to write it)."""
    return [getattr(model, name) for name in rec.names]


def set_from_record(model: object, rec: Record, values: tuple[Any, ...]) -> None:
    """Set the model's fields named by ``rec`` from the values the record read."""
    for name, value in zip(rec.names, values):
        setattr(model, name, value)


def alive(ctx: Context) -> bool:
    """The game writes no level (map, objects, monsters) for a dead character."""
    return not ctx.need("is_dead", "misc")


class _Points(Protocol):
    exp: int
    max_exp: int


def _gain(player: _Points, value: int) -> None:
    player.exp = value
    player.max_exp = max(player.max_exp, value)


class Experience:
    """``experience`` sets current and maximum experience together, the way the game gains it
    (the maximum never falls below the current value)."""

    __slots__ = ()
    exp: int
    max_exp: int

    @property
    def experience(self) -> int:
        return self.exp

    @experience.setter
    def experience(self, value: int) -> None:
        _gain(self, value)


class _Counted(Protocol):
    number: int


def _set_number(obj: _Counted, value: int) -> None:
    obj.number = value


class Quantity:
    """``quantity``: how many objects the stack holds (the record's ``number``)."""

    __slots__ = ()
    number: int

    @property
    def quantity(self) -> int:
        return self.number

    @quantity.setter
    def quantity(self, value: int) -> None:
        _set_number(self, value)


class _Holds(Protocol):
    @property
    def item(self) -> Quantity: ...


class HeldQuantity:
    """``quantity`` of a list entry that wraps one object (its slot and the object)."""

    __slots__ = ()

    @property
    def quantity(self: _Holds) -> int:
        return self.item.quantity

    @quantity.setter
    def quantity(self: _Holds, value: int) -> None:
        self.item.quantity = value
