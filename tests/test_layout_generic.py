"""GenericRecord: a record model shared by several games, each naming the record it holds.

The model a game declares in one line (``class ItemList(ObjectList[FaItem]): pass``) must be
what a hand-written dataclass would be: the fields in the base's order with the type named
(what the JSON mapping reads), defaults of that type, and a C record program (where the
extension is built) that builds whole records although the slots are the base's.
"""

from __future__ import annotations

import dataclasses
import typing
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import pytest

from savecraft import jsonmap
from savecraft.binary import Reader
from savecraft.layout import U8, U16, Context, Field, GenericRecord, List, Prefix, Struct
from savecraft.layout.native import program_of

T = TypeVar("T")


@dataclass(slots=True)
class Coin:
    value: int = 0


@dataclass(slots=True)
class Purse(GenericRecord, Generic[T]):
    owner: int = 0
    coins: list[T] = field(default_factory=list)
    best: T = typing.cast(Any, None)
    spare: T | None = None
    count: int = 0


@dataclass(slots=True)
class CoinPurse(Purse[Coin]):
    pass


def test_the_named_type_is_what_the_class_declares() -> None:
    hints = typing.get_type_hints(CoinPurse)
    assert hints["coins"] == list[Coin]
    assert hints["best"] is Coin
    assert hints["spare"] == Coin | None
    assert [f.name for f in dataclasses.fields(CoinPurse)] == ["owner", "coins", "best", "spare", "count"]
    purse = CoinPurse()
    assert purse.best == Coin() and purse.coins == [] and purse.spare is None
    assert CoinPurse().coins is not purse.coins  # a new list each time, as the base's default
    assert not hasattr(purse, "__dict__")  # still a slotted record


def test_the_json_mapping_reads_the_named_type() -> None:
    purse = CoinPurse(3, [Coin(1), Coin(5)], Coin(5), None, 2)
    doc = jsonmap.encoder(CoinPurse)(purse)
    assert doc == {"owner": 3, "coins": [{"value": 1}, {"value": 5}], "best": {"value": 5},
                   "spare": None, "count": 2}
    assert jsonmap.decoder(CoinPurse)(doc, "") == purse


@dataclass(slots=True)
class Pair(GenericRecord, Generic[T]):
    a: int = 0
    b: int = 0


@dataclass(slots=True)
class IntPair(Pair[int]):
    """Nothing of the base names the type variable: nothing to declare again."""


@dataclass(slots=True)
class Wider(IntPair):
    c: int = 0  # a field the description below does not read


@dataclass(slots=True)
class Box:
    pairs: list[Any] = field(default_factory=list)


def _pair(cls: type) -> Struct:
    return Struct(cls, [Field("a", U8), Field("b", U16)], name="pair")


def _box(pair: Struct) -> Struct:
    return Struct(Box, [Field("pairs", List(pair, Prefix(U8, "count")))], name="box")


DATA = bytes([3, 1, 2, 0, 3, 4, 0, 5, 6, 0])


def test_a_record_on_inherited_slots_reads_whole() -> None:
    box = _box(_pair(IntPair)).read(Reader(DATA), Context())
    assert box == Box([IntPair(1, 2), IntPair(3, 4), IntPair(5, 6)])
    # A record with a field the description does not read gets no C program (the program sets
    # only the slots it reads): the generated reader builds it whole, with the default.
    wide = _pair(Wider)
    assert _box(wide).read(Reader(DATA), Context()) == Box([Wider(1, 2), Wider(3, 4), Wider(5, 6)])
    assert program_of(wide) is None


def test_a_complete_record_on_inherited_slots_has_a_program() -> None:
    if program_of(Struct(Coin, [Field("value", U8)], name="coin")) is None:
        pytest.skip("no C extension")
    assert program_of(_pair(IntPair)) is not None
