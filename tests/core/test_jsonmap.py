"""The generic JSON mapping: shapes, symmetry, and errors that name the JSON path."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import IntEnum
from typing import ClassVar

import pytest

from savecraft.errors import FormatError
from savecraft.jsonmap import decoder, encoder


class Colour(IntEnum):
    RED = 1
    GREEN = 2


@dataclass
class Leaf:
    KIND: ClassVar[str] = "leaf"
    blob: bytes = b""
    colour: Colour = Colour.RED


@dataclass
class Other:
    KIND: ClassVar[str] = "other"
    n: int = 0


@dataclass
class Tree:
    name: str
    parts: list[Leaf | Other] = field(default_factory=list)
    pair: tuple[int, str] = (0, "")
    maybe: int | None = None
    hint: int = field(default=0, metadata={"json": False})


def test_shapes_and_round_trip() -> None:
    t = Tree("t", [Leaf(b"\x00\xff", Colour.GREEN), Other(3)], (1, "x"), None)
    doc = encoder(Tree)(t)
    assert doc == {
        "name": "t",
        "parts": [{"kind": "leaf", "blob": "AP8=", "colour": {"name": "GREEN", "value": 2}},
                  {"kind": "other", "n": 3}],
        "pair": [1, "x"],
        "maybe": None,
    }
    assert decoder(Tree)(doc, "data") == t


def test_enums_read_by_name_number_or_object() -> None:
    dec = decoder(Leaf)
    for v in ("GREEN", 2, {"name": "GREEN", "value": 2}):
        assert dec({"blob": "", "colour": v}, "x").colour is Colour.GREEN


FULL = {"name": "t", "parts": [], "pair": [0, ""], "maybe": None}


@pytest.mark.parametrize(
    ("doc", "path", "expected"),
    [
        ({**FULL, "name": 1}, "data.name", "a string"),
        ({**FULL, "parts": [{"kind": "leaf", "blob": "!!", "colour": 1}]}, "data.parts[0].blob",
         "base64 text"),
        ({**FULL, "parts": [{"kind": "nope"}]}, "data.parts[0].kind", "one of 'leaf', 'other'"),
        ({**FULL, "parts": [{"kind": "leaf", "blob": "", "colour": "BLUE"}]}, "data.parts[0].colour",
         "one of RED"),
        ({**FULL, "pair": [1]}, "data.pair", "an array of 2 values"),
        ({**FULL, "extra": 1}, "data.extra", "a field of Tree"),
        ({}, "data.name", "the field 'name' of Tree"),
        ({**FULL, "maybe": True}, "data.maybe", "an integer"),
    ],
)
def test_errors_name_the_path(doc: dict[str, object], path: str, expected: str) -> None:
    with pytest.raises(FormatError) as exc:
        decoder(Tree)(doc, "data")
    assert exc.value.path == path
    assert exc.value.expected.startswith(expected)


@dataclass
class _Seen:
    """Records what its ``__json_around__`` saw: the object before its fields, then the result."""

    SEEN: ClassVar[list[object]] = []
    x: int = 0

    @classmethod
    def __json_around__(cls, obj: object, decode: Callable[[object], _Seen], consuming: bool) -> _Seen:
        cls.SEEN.append(consuming)
        cls.SEEN.append(obj)
        made = decode(obj)
        cls.SEEN.append(made)
        return made


def test_json_around_sees_the_object_before_and_the_value_after(monkeypatch: pytest.MonkeyPatch) -> None:
    from savecraft import jsonmap
    from savecraft.jsonmap import strict_decoder

    _Seen.SEEN.clear()
    assert decoder(_Seen)({"x": 3}, "data") == _Seen(3)
    assert _Seen.SEEN == [False, {"x": 3}, _Seen(3)]
    _Seen.SEEN.clear()
    assert strict_decoder(_Seen)({"x": "3"}) is None  # refused inside: nothing made
    assert _Seen.SEEN == [False, {"x": "3"}]
    _Seen.SEEN.clear()
    monkeypatch.setattr(jsonmap._state, "consume", True, raising=False)  # as loads decodes
    assert strict_decoder(_Seen)({"x": 4}) == _Seen(4) and _Seen.SEEN[0] is True
