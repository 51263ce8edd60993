"""Record programs for the lists of the Angband 4.x games that were read a record per call or in
generated Python: an end record told by two fields being 0 (4.0's object of no kind, a trap at
(0, 0)), a record whose own leading size sizes its later fields (a trap list's ``trf_size``), a
list up to the end of the block (FAangband 2's stores), a list after a u32 count (the history),
and the (i16, u8) pairs of an object's elements, which the C module keeps. Each reads and writes
what the generated Python reads and writes, and refuses what is unusual (the Python then gives
the located error)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from savecraft import compiled

from .support import read_outcome as _outcome, written_outcome as _written

needs_records = pytest.mark.skipif(not compiled.active("records"),
                                   reason="the C extension is not built or is turned off")


@dataclass(slots=True)
class _Spot:
    kind: int = 0
    y: int = 0
    x: int = 0
    flags: bytes = b""

    @property
    def is_end(self) -> bool:
        return self.y == 0 and self.x == 0


@dataclass(slots=True)
class _Spots:
    size: int = 0
    spots: list[_Spot] = field(default_factory=list)
    end: _Spot = field(default_factory=_Spot)


@dataclass(slots=True)
class _Rec:
    a: Any = None
    b: Any = None


def _same_as_python(struct: Any, good: bytes, bad: bytes, make_ctx: Any) -> tuple[Any, str]:
    """The program reads ``good`` as the generated Python does (the same model, the same Context
    values after it) and writes it back; both paths give one error for ``bad``."""
    from savecraft.layout import native

    prog = native.program_of(struct)
    assert prog is not None
    ctx = make_ctx()
    got = prog.read(good, 0, len(good), ctx, 1)
    assert got is not None and got[1] == len(good)
    with native.suspended():
        pure_ctx = make_ctx()
        pure = _outcome(struct, good, pure_ctx)
        pure_bad = _outcome(struct, bad, make_ctx())
        pure_written = _written(struct, pure, make_ctx())
    assert got[0] == [pure] and ctx.values == pure_ctx.values
    assert prog.write([pure], make_ctx()) == good == pure_written == _written(struct, pure, make_ctx())
    fast_bad = _outcome(struct, bad, make_ctx())
    assert fast_bad == pure_bad and isinstance(fast_bad, str)
    return pure, fast_bad


def _spots() -> Any:
    from savecraft.layout import U8, Bytes, Ctx, Field, Struct, Terminated

    spot = Struct(_Spot, [Field("kind", U8), Field("y", U8), Field("x", U8),
                          Field("flags", Bytes(Ctx("size", "spots")))], name="spot")
    return Struct(_Spots, [Field("size", U8, export="size"),
                           Terminated("spots", spot, "end", "is_end", "a spot at (0, 0)")], name="spots")


@needs_records
def test_an_end_record_told_by_two_fields_being_0_is_tested_in_c() -> None:
    """``return self.y == 0 and self.x == 0`` is the two fields tested on the record read (no
    property call per record): the E code gets both places; a spot at (0, 5) is no end."""
    from savecraft.layout import native

    prog = native.program_of(_spots())
    assert prog is not None
    assert [(c, a[2]) for _, c, a in prog.specs if c == "E"] == [("E", (1, 2))]
    data = b"\2" + b"\7\0\5ab" + b"\1\3\0cd" + b"\0\0\0\0\0"
    model, err = _same_as_python(_spots(), data, data[:-1], _Context)
    assert [(s.y, s.x) for s in model.spots] == [(0, 5), (3, 0)] and model.end == _Spot(0, 0, 0, b"\0\0")
    assert "rec.end.flags" in err or "rec.spots[2]" in err
    # an end record inside the list, or no end record: the Python writer's to refuse
    for bad in (_Spots(2, [_Spot(1, 0, 0, b"ab")], _Spot(0, 0, 0, b"\0\0")),
                _Spots(2, [], _Spot(0, 1, 0, b"\0\0"))):
        assert prog.write([bad], _Context()) is None
        with native.suspended():
            pure = _written(_spots(), bad, _Context())
        assert _written(_spots(), bad, _Context()) == pure


def _Context() -> Any:
    from savecraft.layout import Context

    return Context()


@needs_records
def test_a_record_whose_leading_size_sizes_its_later_fields_is_read_alone_by_its_program() -> None:
    """A trap list exports ``trf_size`` and its traps' flags are that long: the program reads one
    such record with the size peeked from its first byte (two lists of different sizes in a row
    come out right), never several in one call and never inside another record's program."""
    from savecraft.layout import Field, List, Struct, U8
    from savecraft.layout import native

    spots = _spots()
    prog = native.program_of(spots)
    assert prog is not None and prog.peek is not None
    one = b"\1" + b"\7\2\5a" + b"\0\0\0\0"
    two = b"\2" + b"\7\2\5ab" + b"\0\0\0\0\0"
    for data in (one, two, one):
        _same_as_python(spots, data, data[:4], _Context)
    assert prog.read(one + one, 0, 2 * len(one), _Context(), 2) is None
    assert native.program_of(Struct(_Rec, [Field("a", spots), Field("b", U8)], name="outer")) is None
    assert native.program_of(Struct(_Rec, [Field("a", List(spots, 2)), Field("b", U8)], name="two")) is None
    # a size in the model that is no byte: the Python writer's to refuse
    bad = _Spots(300, [], _Spot(0, 0, 0, b""))
    assert prog.write([bad], _Context()) is None
    with native.suspended():
        pure = _written(spots, bad, _Context())
    assert _written(spots, bad, _Context()) == pure and isinstance(pure, str)


@needs_records
def test_r_records_up_to_the_end_of_the_bytes() -> None:
    """FAangband 2's stores: a count the loader skips, then stores until the block ends, in one
    program call; a record cut short at the end is the Python reader's located error."""
    from savecraft.layout import REST, U8, U16, CStr, Field, List, Struct
    from savecraft.layout import native

    named = Struct(_Rec, [Field("a", U8), Field("b", CStr(9))], name="named")
    s = Struct(_Rec, [Field("a", U16), Field("b", List(named, REST))], name="rest")
    prog = native.program_of(s)
    assert prog is not None and prog.specs[-1][1] == "R"
    data = b"\2\0" + b"\1ab\0" + b"\2\0" + b"\3xyz\0"
    model, err = _same_as_python(s, data, data[:-1], _Context)
    assert model == _Rec(2, [_Rec(1, "ab"), _Rec(2, ""), _Rec(3, "xyz")])
    assert "rec.b[2]" in err
    assert _outcome(s, b"\2\0", _Context()) == _Rec(2, [])
    # up to the end of what is read: never a list inside another record, nor several records
    assert native.program_of(Struct(_Rec, [Field("a", s), Field("b", U8)], name="outer")) is None
    assert prog.read(data + data, 0, 2 * len(data), _Context(), 2) is None
    assert native.program_of(Struct(_Rec, [Field("a", List(named, REST)), Field("b", U8)],
                                    name="not last")) is None


@needs_records
def test_a_list_after_a_u32_count_is_read_by_the_program() -> None:
    """The history: a u32 count, then its entries (a count past the bytes there is the Python
    reader's error)."""
    from savecraft.layout import U8, U32, CStr, Field, List, Prefix, Struct
    from savecraft.layout import native

    named = Struct(_Rec, [Field("a", U8), Field("b", CStr(9))], name="named")
    s = Struct(_Rec, [Field("a", U8), Field("b", List(named, Prefix(U32, "count")))], name="u32")
    prog = native.program_of(s)
    assert prog is not None and "".join(c for _, c, _ in prog.specs) == "BQM"
    data = b"\7" + b"\2\0\0\0" + b"\1ab\0" + b"\2\0"
    model, err = _same_as_python(s, data, b"\7\3\0\0\0\1ab\0\2\0", _Context)
    assert model == _Rec(7, [_Rec(1, "ab"), _Rec(2, "")])
    assert "rec.b" in err


@needs_records
def test_element_pairs_are_kept_and_equal_to_new_ones() -> None:
    """The (i16, u8) pairs of a T list: small ones come from the module's table, the same
    tuples each time; others are made; every one equals the generated Python's."""
    from savecraft.layout import I16, U8, Field, List, Struct, Tuple
    from savecraft.layout import native

    s = Struct(_Rec, [Field("a", List(Tuple(("level", I16), ("flags", U8)), 4)), Field("b", U8)],
               name="pairs")
    pairs = [(0, 1), (-4, 15), (300, 200), (-1, 16)]
    data = b"".join(level.to_bytes(2, "little", signed=True) + bytes([flags]) for level, flags in pairs) + b"\5"
    model, _ = _same_as_python(s, data, data[:-1], _Context)
    assert model.a == pairs
    prog = native.program_of(s)
    assert prog is not None
    first, again = prog.read(data, 0, len(data), _Context(), 1), prog.read(data, 0, len(data), _Context(), 1)
    assert first is not None and again is not None
    assert first[0][0].a[0] is again[0][0].a[0] and first[0][0].a[1] is again[0][0].a[1]
    assert first[0][0].a[2] is not again[0][0].a[2]  # (300, 200): not kept


@needs_records
def test_strings_after_their_count_and_a_count_past_the_end() -> None:
    """Xygos's first town's stores: owner names after a u8 count (then the store's own counted
    stock); a count past the bytes there is the Python reader's error, not a list made first."""
    from savecraft.layout import U8, U32, CStr, Field, List, Prefix, Struct
    from savecraft.layout import native

    s = Struct(_Rec, [Field("a", List(CStr(9), Prefix(U8, "a_count"))), Field("b", U8)], name="names")
    prog = native.program_of(s)
    assert prog is not None and "".join(c for _, c, _ in prog.specs) == "QSB"
    model, err = _same_as_python(s, b"\2ab\0\0\7", b"\3ab\0\0\7", _Context)
    assert model == _Rec(["ab", ""], 7) and "rec.a" in err
    huge = Struct(_Rec, [Field("a", List(CStr(9), Prefix(U32, "a_count"))), Field("b", U8)], name="huge")
    _same_as_python(huge, b"\1\0\0\0ab\0\7", b"\xff\xff\xff\xffab\0\7", _Context)
