"""The one reader/writer: values, bounds, offsets and field paths in errors."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from savecraft.binary import Reader, Writer, int_range, join_path
from savecraft.errors import FormatError

def test_error_message_shape() -> None:
    r = Reader(b"Bob", base=0x29, path="users[1]", what="the chunk")
    with pytest.raises(FormatError) as exc:
        r.cstr("name")
    assert str(exc.value) == ("offset 0x00000029: users[1].name: expected a NUL-terminated UTF-8 "
                              "string, found the end of the chunk")


def test_bad_utf8_reports_the_byte() -> None:
    r = Reader(b"ab\xffc\0")
    with pytest.raises(FormatError) as exc:
        r.cstr("name")
    assert exc.value.offset == 2
    assert "0xFF" in exc.value.found


def test_count_guard_refuses_counts_that_cannot_fit() -> None:
    r = Reader(bytes(16), path="entity")
    with pytest.raises(FormatError) as exc:
        r.array("u32", 1_000_000_000, "inventory")
    assert exc.value.path == "entity.inventory"
    assert "a count of 1000000000" in exc.value.found
    assert r.pos == 0


def test_sub_reader_keeps_absolute_offsets() -> None:
    r = Reader(bytes(range(20)), base=100)
    r.skip(4)
    s = r.sub(8, "part")
    assert s.u8("a") == 4
    with pytest.raises(FormatError) as exc:
        s.bytes(10, "b")
    assert exc.value.offset == 105
    assert exc.value.path == "part.b"
    assert r.pos == 12


@given(st.lists(st.tuples(st.sampled_from(["u8", "i8", "u16", "i16", "u24", "u32", "i32", "u64", "i64"]),
                          st.integers()), max_size=20))
def test_writer_reader_scalars(items: list[tuple[str, int]]) -> None:
    w = Writer()
    kept = []
    for kind, v in items:
        lo, hi = int_range(kind)
        if lo <= v <= hi:
            getattr(w, kind)(v, kind)
            kept.append((kind, v))
        else:
            with pytest.raises(FormatError):
                getattr(w, kind)(v, kind)
    r = Reader(w.getvalue())
    assert [(k, getattr(r, k)(k)) for k, _ in kept] == kept
    assert r.at_end()


def test_fixed_string_too_long_is_refused() -> None:
    w = Writer("save")
    with pytest.raises(FormatError) as exc:
        w.fixed_str("x" * 17, 16, "game_id")
    assert exc.value.path == "save.game_id"
    assert "at most 16 bytes" in exc.value.expected


def test_join_path() -> None:
    assert join_path("", "a") == "a"
    assert join_path("a", "b") == "a.b"
    assert join_path("a", "[3]") == "a[3]"
    assert join_path("a", "") == "a"


def test_check_count_names_the_list() -> None:
    w = Writer("hud")
    assert w.check_count([1, 2], 255, "progress_bars", "bars") == 2
    with pytest.raises(FormatError) as exc:
        w.check_count([0] * 256, 255, "progress_bars", "bars")
    assert exc.value.path == "hud.progress_bars"
    assert (exc.value.expected, exc.value.found) == ("at most 255 bars", "256")
