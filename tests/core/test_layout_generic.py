"""GenericRecord: a record model shared by several games, each naming the record it holds.

The model a game declares in one line (``class ItemList(ObjectList[FaItem]): pass``) must be
what a hand-written dataclass would be: the fields in the base's order with the type named
(what the JSON mapping reads), defaults of that type, its own slots, and so a C record
program (where the extension is built) as any record has.
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


@dataclass
class Purse(GenericRecord, Generic[T]):
    __slots__ = ()
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


@dataclass
class Pair(GenericRecord, Generic[T]):
    __slots__ = ()
    a: int = 0
    b: int = 0


@dataclass(slots=True)
class IntPair(Pair[int]):
    """Nothing of the base names the type variable: nothing to declare again."""


@dataclass(slots=True)
class Box:
    pairs: list[Any] = field(default_factory=list)


def _pair(cls: type) -> Struct:
    return Struct(cls, [Field("a", U8), Field("b", U16)], name="pair")


DATA = bytes([3, 1, 2, 0, 3, 4, 0, 5, 6, 0])


def test_a_game_record_holds_its_slots_and_reads_as_a_hand_written_one() -> None:
    assert CoinPurse.__slots__ == ("owner", "coins", "best", "spare", "count")
    box = Struct(Box, [Field("pairs", List(_pair(IntPair), Prefix(U8, "count")))], name="box")
    assert box.read(Reader(DATA), Context()) == Box([IntPair(1, 2), IntPair(3, 4), IntPair(5, 6)])
    if program_of(Struct(Coin, [Field("value", U8)], name="coin")) is None:
        pytest.skip("no C extension")
    assert program_of(_pair(IntPair)) is not None  # the C record program, as for any record


def test_a_slotted_generic_base_is_refused() -> None:
    """A base with slots of its own would leave the game's class none: its C record programs
    could not set them, so the mistake is refused where it is made."""

    @dataclass(slots=True)
    class Slotted(GenericRecord, Generic[T]):
        value: T = typing.cast(Any, None)

    with pytest.raises(TypeError, match="__slots__ = \\(\\)"):
        @dataclass(slots=True)
        class CoinSlotted(Slotted[Coin]):
            pass
