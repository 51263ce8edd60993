"""The record description (savecraft.layout): one declaration, and reader, writer, spans and
errors derived from it, the fast and the checked path always agreeing."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from savecraft.binary import Reader, SpanLog, Writer, recording
from savecraft.errors import FormatError
from savecraft.layout import (
    I16,
    I32,
    REST,
    U8,
    U16,
    U24,
    U32,
    Adapt,
    Array,
    Bytes,
    Check,
    Columns,
    Computed,
    Const,
    Context,
    CStr,
    Ctx,
    EightBitText,


    Expr,
    Field,
    Len,
    LayoutError,
    List,
    NotCanonical,
    Optional,
    Prefix,
    Range,
    Ref,
    SetCtx,
    Stored,
    Struct,
    Terminated,
    ToEnd,
    Tuple,
    Until,
)


@dataclass(slots=True)
class Pair:
    name: str = ""
    value: int = 0


@dataclass(slots=True)
class Thing:
    kind: int = 0
    level: int = 1
    big: int = 0
    name: str = ""
    stats_max: list[int] = field(default_factory=list)
    stats_cur: list[int] = field(default_factory=list)
    flags: bytes = b""
    brands: bytes | None = None
    pairs: list[Pair] = field(default_factory=list)
    res: list[int] = field(default_factory=list)
    res_flags: bytes = b""
    points: list[tuple[int, int]] = field(default_factory=list)
    timed: list[int] = field(default_factory=list)
    options: dict[str, int] = field(default_factory=dict)
    tail: bytes = b"\0\0"


PAIR = Struct(Pair, [Field("name", CStr(15)), Field("value", U8)])


def _to_dict(pairs: list[Pair]) -> dict[str, int]:
    out: dict[str, int] = {}
    for p in pairs:
        if p.name in out:
            raise ValueError(f"{p.name!r} twice")
        out[p.name] = p.value
    return out


def _from_dict(d: dict[str, int]) -> list[Pair]:
    return [Pair(k, v) for k, v in d.items()]


THING = Struct(Thing, [
    Const("mark", U16, 0xBEEF, "0xBEEF, the start of a thing"),
    Field("kind", U8), Field("level", I16, check=Range(1, 50, "a level from 1 to 50")),
    Field("big", U24, export="thing_big"),
    Field("name", CStr(31)),
    Len("stat_count", U8, ("stats_max", "stats_cur"), most=5, expected="at most 5 stats"),
    Field("stats_max", Array(I16, Ref("stat_count"))),
    Field("stats_cur", Array(I16, Ref("stat_count"))),
    Field("flags", Bytes(Ctx("flag_size", "memory"))),
    Field("brands", Optional(U8, Bytes(3))),
    Field("pairs", List(PAIR, Prefix(U16))),
    Columns(Ctx("elements", "memory"), [("res", I16, False), ("res_flags", U8, True)]),
    Field("points", List(Tuple(("x", U8), ("y", U8)), 2)),
    Field("timed", Array(I16, Prefix(U8, "timed_count"))),
    Field("options", Adapt(Until(PAIR, CStr(15), ""), _to_dict, _from_dict, "each option once")),
    SetCtx("persist", "options.get('persist', 0)"),
    Field("tail", Bytes(2)),
], name="thing")


def ctx() -> Context:
    c = Context()
    c.set("flag_size", 4, "memory")
    c.set("elements", 3, "memory")
    return c


def sample() -> Thing:
    return Thing(7, 12, 0x123456, "Frodo", [18, 17], [16, 15], b"\1\2\3\4", b"abc",
                 [Pair("a", 1), Pair("bb", 2)], [-1, 0, 3], b"\0\1\2", [(1, 2), (3, 4)], [5, -6, 7],
                 {"persist": 1, "quick": 0}, b"zz")


def encode(m: Any, c: Context | None = None) -> bytes:
    w = Writer()
    THING.write(m, w, c or ctx())
    return w.getvalue()


def decode(data: bytes, c: Context | None = None, *, checked: bool = False) -> Any:
    r = Reader(data)
    m = THING.checked_only(r, c or ctx()) if checked else THING.read(r, c or ctx())
    assert r.pos == len(data)
    return m


def test_round_trip_fast_and_checked_agree() -> None:
    data = encode(sample())
    assert data[:2] == b"\xef\xbe"
    for checked in (False, True):
        c = ctx()
        assert decode(data, c, checked=checked) == sample()
        assert c.values["thing_big"] == 0x123456 and c.values["persist"] == 1
    w = Writer()
    THING.checked_write_fn(sample(), w, ctx(), "")
    assert w.getvalue() == data


def test_the_writer_derives_counts() -> None:
    m = sample()
    m.stats_max, m.stats_cur = [3, 4, 5], [3, 4, 5]
    m.pairs.append(Pair("c", 3))
    m.timed = []
    back = decode(encode(m))
    assert back == m


def test_generated_source_reads_runs_in_one_unpack() -> None:
    src = THING.source()
    assert "unpack_from(d, pos)" in src and "def cr(r, ctx, pre):" in src


@pytest.mark.parametrize("cut", range(0, 60, 3))
def test_every_cut_is_a_located_error(cut: int) -> None:
    data = encode(sample())[:cut]
    with pytest.raises(FormatError) as e:
        decode(data)
    assert e.value.problem.offset is not None and e.value.problem.offset <= len(data)
    assert e.value.problem.path


def test_checks_the_game_makes_name_the_field() -> None:
    data = bytearray(encode(sample()))
    data[3:5] = (51).to_bytes(2, "little")
    with pytest.raises(FormatError) as e:
        decode(bytes(data))
    assert (e.value.problem.offset, e.value.problem.path, e.value.problem.expected,
            e.value.problem.found) == (3, "level", "a level from 1 to 50", "51")
    bad = bytearray(encode(sample()))
    bad[0] = 0
    with pytest.raises(FormatError, match="mark: expected 0xBEEF"):
        decode(bytes(bad))


def test_a_count_over_the_game_limit() -> None:
    m = sample()
    m.stats_max = m.stats_cur = [1] * 6
    with pytest.raises(FormatError) as e:
        encode(m)
    assert e.value.problem.path == "stats_max" and e.value.problem.expected == "at most 5 stats"
    data = bytearray(encode(sample()))
    at = 2 + 1 + 2 + 3 + 6
    data[at] = 6
    with pytest.raises(FormatError) as e2:
        decode(bytes(data))
    assert (e2.value.problem.offset, e2.value.problem.path) == (at, "stat_count")


def test_lists_of_one_count_must_agree() -> None:
    m = sample()
    m.stats_cur = [1]
    with pytest.raises(FormatError) as e:
        encode(m)
    assert e.value.problem.path == "stats_cur"


def test_write_errors_name_the_path() -> None:
    m = sample()
    m.pairs[1].value = 300
    with pytest.raises(FormatError) as e:
        encode(m)
    assert e.value.problem.path == "pairs[1].value"
    m = sample()
    m.name = "x" * 40
    with pytest.raises(FormatError, match="name: expected text of at most 31 bytes"):
        encode(m)
    m = sample()
    m.res_flags = b"\0"
    with pytest.raises(FormatError) as e:
        encode(m)
    assert e.value.problem.path == "res_flags"


def test_a_flag_the_writer_would_not_write_back_is_not_canonical() -> None:
    data = bytearray(encode(sample()))
    at = data.index(b"abc") - 1
    data[at] = 2
    with pytest.raises(NotCanonical, match="has_brands is 2"):
        decode(bytes(data))


def test_a_missing_context_value_is_a_layout_error() -> None:
    with pytest.raises(LayoutError, match="flag_size, which the game takes from the 'memory' block"):
        decode(encode(sample()), Context())


def test_an_adapter_reports_at_the_value() -> None:
    m = sample()
    m.options = {"ab": 1, "cd": 0}
    data = encode(m)
    bad = data.replace(b"cd\0", b"ab\0")
    with pytest.raises(FormatError) as e:
        decode(bad)
    assert e.value.problem.path == "options" and e.value.problem.found == "'ab' twice"
    assert e.value.problem.offset == data.index(b"ab\0")
    assert decode(data) == m


def test_a_list_element_equal_to_the_end_value_is_refused() -> None:
    m = sample()
    m.options = {"": 1}
    with pytest.raises(FormatError, match="which ends the list"):
        encode(m)


def test_spans_name_every_field_under_the_model_paths() -> None:
    data = encode(sample())
    log = SpanLog()
    with recording(log, "file", data):
        r = Reader(data)
        assert THING.read(r, ctx()) == sample()
    spans = {path: (off, n) for _, off, n, path in log.entries}
    assert spans["mark"] == (0, 2) and spans["level"] == (3, 2) and spans["big"] == (5, 3)
    assert spans["name"] == (8, 6)
    assert spans["pairs[1]"] == (spans["pairs[1].name"][0], 4)
    assert spans["pairs[1].value"][1] == 1
    assert "res[2]" in spans and "res_flags[2]" in spans and "points[1].y" in spans
    assert "options[0].name" in spans and "end" in spans
    starts = [path for _, _, _, path in log.entries]
    assert starts.index("pairs[0]") < starts.index("pairs[0].name")  # outer before inner


@dataclass(slots=True)
class Rec:
    a: int = 0
    s: str = ""

    @property
    def is_end(self) -> bool:
        return not self.s


@dataclass(slots=True)
class Recs:
    items: list[Rec] = field(default_factory=list)
    end: Rec = field(default_factory=Rec)


REC = Struct(Rec, [Field("a", I32), Field("s", CStr())])
RECS = Struct(Recs, [Terminated("items", REC, "end", "is_end", "an empty name")])


def test_a_list_ended_by_a_record_keeps_it() -> None:
    m = Recs([Rec(1, "x"), Rec(-2, "yy")], Rec(9, ""))
    w = Writer()
    RECS.write(m, w, Context())
    r = Reader(w.getvalue())
    assert RECS.read(r, Context()) == m
    r = Reader(w.getvalue())
    assert RECS.checked_only(r, Context()) == m
    with pytest.raises(FormatError, match=r"items\[0\]"):
        RECS.write(Recs([Rec(1, "")], Rec()), Writer(), Context())
    with pytest.raises(FormatError, match="end: expected an empty name"):
        RECS.write(Recs([], Rec(1, "x")), Writer(), Context())


@dataclass(slots=True)
class Num:
    n: int = 0


@pytest.mark.parametrize("kind,lo,hi", [(U8, 0, 255), (I16, -32768, 32767), (U32, 0, 2**32 - 1),
                                        (U24, 0, 2**24 - 1)])
def test_every_width_round_trips_and_range_checks(kind: Any, lo: int, hi: int) -> None:
    s = Struct(Num, [Field("n", kind)])
    for v in (lo, hi):
        w = Writer()
        s.write(Num(v), w, Context())
        assert s.read(Reader(w.getvalue()), Context()) == Num(v)
    with pytest.raises(FormatError) as e:
        s.write(Num(hi + 1), Writer(), Context())
    assert e.value.problem.path == "n"


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=120))
def test_fast_and_checked_agree_on_any_bytes(data: bytes) -> None:
    data = b"\xef\xbe" + data
    outcomes = []
    for checked in (False, True):
        r = Reader(data)
        try:
            m = THING.checked_only(r, ctx()) if checked else THING.read(r, ctx())
            outcomes.append(("ok", m, r.pos))
        except (FormatError, LayoutError) as err:
            outcomes.append(("err", type(err).__name__, str(err)))
    assert outcomes[0] == outcomes[1]
    if outcomes[0][0] == "ok":
        w = Writer()
        THING.write(outcomes[0][1], w, ctx())
        assert w.getvalue() == data[:outcomes[0][2]]


# -- the rest of the bounds, whole-record packers, names for expressions (the protocol's needs) --


# -- the skim, a reader that builds JSON, values to the end, and checks that name counts -------


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=120))
def test_the_skim_ends_where_the_fast_reader_ends(data: bytes) -> None:
    """skim builds nothing and answers exactly when the fast reader reads without giving up,
    with the same end (the structure check a load makes without decoding)."""
    from savecraft.layout import FAST_READ_ERRORS

    data = b"\xef\xbe" + data
    try:
        _, pos = THING.fast_read_fn(data, 0, len(data), ctx())
        fast: int | None = pos
    except FAST_READ_ERRORS:
        fast = None
    assert THING.skim(data, 0, len(data), ctx()) == fast


def test_the_skim_steps_over_lists_and_reads_only_what_a_count_uses() -> None:
    data = encode(sample())
    assert THING.skim(data, 0, len(data), ctx()) == len(data)
    assert THING.skim(data[:-1], 0, len(data) - 1, ctx()) is None
    source = "\n".join(THING._gen_fast_skip(
        __import__("savecraft.layout.compiler", fromlist=["Emitter"]).Emitter(
            {}, "def fs(d, pos, end, ctx):", THING._known())).lines)
    assert "v_stats_max =" not in source and "v_stat_count" in source  # the count, not the values


@dataclass(slots=True)
class Word:
    id: int = 0
    done: bool = False


# One stored word, two model fields (bits 0-30 and bit 31): fixed, so a list of it is skipped
# by its size, and its span is the id's.
WORD = Struct(Word, [
    Check("0 <= id < 0x80000000", "id", "an id from 0 to 2147483647", "id", on_write=True,
          on_read=False),
    Stored("id", U32, "id | (0x80000000 if done else 0)"),
    Computed("done", "bool(id & 0x80000000)"),
    Computed("id", "id & 0x7FFFFFFF"),
])


@dataclass(slots=True)
class Bag:
    total: int = 0
    words: list[Word] = field(default_factory=list)
    rest: list[int] = field(default_factory=list)


BAG = Struct(Bag, [
    Len("count", U8, ("words",)),
    Check("count * 4 <= left", "words", "", "f'{count * 4 - left:+d} bytes'",
          explain="f'{count} words in {count * 4} bytes of the {left} left'", back=1),
    Field("words", List(WORD, Ref("count"))),
    Field("total", U16),
    Field("rest", Array(I16, REST)),  # to the end: as many as the model holds
])


def test_a_stored_word_split_into_fields_round_trips_and_is_skipped_by_size() -> None:
    bag = Bag(7, [Word(5, True), Word(6)], [-1, 2, 3])
    w = Writer()
    BAG.write(bag, w, Context())
    data = w.getvalue()
    assert data == b"\x02" + (5 | 1 << 31).to_bytes(4, "little") + (6).to_bytes(4, "little") \
        + b"\x07\x00" + b"\xff\xff\x02\x00\x03\x00"
    assert BAG.read(Reader(data), Context()) == bag == BAG.checked_only(Reader(data), Context())
    assert WORD.fixed_size() == 4 and BAG.skim(data, 0, len(data), Context()) == len(data)
    with pytest.raises(FormatError) as e:
        BAG.write(Bag(0, [Word(-1)]), Writer(), Context())
    assert (e.value.path, e.value.expected, e.value.found) == ("words[0].id", "an id from 0 to 2147483647", "-1")
    log = SpanLog()
    with recording(log, "file", data):
        BAG.read(Reader(data), Context())
    spans = {path: (off, n) for _, off, n, path in log.entries}
    assert spans["words[1].id"] == (5, 4) and spans["words"] == (1, 8) and spans["rest"] == (11, 6)


def test_to_the_end_is_said_one_way_not_as_an_expression_over_left() -> None:
    """No writer can compute ``left``; an expression over it as a count is refused where the
    layout is declared, naming the two words for "to the end"."""
    for make in (lambda: Array(I16, Expr("left // 2")), lambda: Bytes(Expr("left")),
                 lambda: List(WORD, Expr("left // 4"))):
        with pytest.raises(TypeError, match="REST .*ToEnd"):
            make()
    Array(I16, Expr("leftover * 2"))  # a name that only starts with it is a name


def test_a_check_explains_with_the_values_and_points_back_at_the_count() -> None:
    data = b"\x05" + bytes(8)
    with pytest.raises(FormatError) as e:
        BAG.read(Reader(data), Context())
    err = e.value
    assert (err.offset, err.path, err.expected, err.found) == (
        0, "words", "5 words in 20 bytes of the 8 left", "+12 bytes")


def test_an_empty_list_has_a_span() -> None:
    data = b"\x00\x07\x00"
    log = SpanLog()
    with recording(log, "file", data):
        assert BAG.read(Reader(data), Context()) == Bag(7, [], [])
    assert ("file", 1, 0, "words") in log.entries


@dataclass(slots=True)
class OneValue:
    value: int = 0


@dataclass(slots=True)
class Body:
    head: int = 0
    items: list[Any] = field(default_factory=list)
    tail: bytes = b""


def _rest_layouts() -> tuple[Struct, Struct]:
    from savecraft.layout import REST, Switch

    one = Struct(OneValue, [Const("id", U8, 1, "1"), Field("value", U16)], name="one")
    lst = Struct(Body, [Field("head", U8), Field("items", List(Switch("", {1: one}, peek=U8), REST)),
                        Field("tail", Bytes(0))], name="body")
    raw = Struct(Body, [Field("head", U8), Field("items", Array(U16, 0)), Field("tail", Bytes(REST))],
                 name="raw")
    return lst, raw


def test_rest_fills_the_bounds_both_ways() -> None:
    from savecraft.layout import REST

    lst, raw = _rest_layouts()
    model = Body(7, [OneValue(5), OneValue(6)])
    data = lst.pack(model, Context())
    assert data == bytes([7, 1, 5, 0, 1, 6, 0])
    assert lst.read(Reader(data), Context()) == model == lst.checked_only(Reader(data), Context())
    assert raw.read(Reader(b"\x09abc"), Context()) == Body(9, [], b"abc")
    with pytest.raises(FormatError) as e:  # a record cut by the end of the bounds: located
        lst.checked_only(Reader(data[:-1]), Context())
    assert e.value.path == "items[1].value" and e.value.offset == 5
    words = Struct(Body, [Field("head", U8), Field("items", Array(U16, REST))])
    with pytest.raises(FormatError, match="a whole number of u16 values"):
        words.checked_only(Reader(b"\x01\x02\x00\x03"), Context())


def test_a_packer_is_the_writer_and_a_flat_record_is_one_pack() -> None:
    lst, _ = _rest_layouts()
    one = lst.members[1].type.elem.cases[1]  # type: ignore[attr-defined]
    assert one.pack(OneValue(0x1234), Context()) == b"\x01\x34\x12"
    assert one.packer(OneValue(1), Context()) == b"\x01\x01\x00"
    for model in (Body(1, [OneValue(2)]), Body(255, [])):
        w = Writer()
        lst.write(model, w, Context())
        assert lst.pack(model, Context()) == w.getvalue()
    with pytest.raises(FormatError) as e:  # the checked path names the field
        lst.pack(Body(1, [OneValue(70000)]), Context(), "msg")
    assert e.value.path == "msg.items[0].value"


def test_an_encoder_falls_back_to_the_checked_writer() -> None:
    lst, _ = _rest_layouts()
    seen: list[Any] = []

    def checked(m: Any) -> bytes:
        seen.append(m)
        return b"checked"

    enc = lst.encoder(Context(), checked)
    assert enc(Body(3, [OneValue(1)])) == b"\x03\x01\x01\x00" and not seen
    assert enc(Body(3, [OneValue(-1)])) == b"checked" and len(seen) == 1


def test_expressions_may_name_what_the_layout_lends_them() -> None:
    from enum import IntEnum

    from savecraft.layout import Computed, Stored

    class Colour(IntEnum):
        RED = 0
        BLUE = 1

    @dataclass(slots=True)
    class Packed:
        colour: Colour = Colour.RED
        size: int = 0

    lay = Struct(Packed, [Stored("byte", U8, "int(colour) | size << 4"), Computed("colour", "Colour(byte & 15)"),
                          Computed("size", "byte >> 4")], env={"Colour": Colour})
    data = lay.pack(Packed(Colour.BLUE, 3), Context())
    assert data == bytes([0x31])
    got = lay.read(Reader(data), Context())
    assert got == Packed(Colour.BLUE, 3) and type(got.colour) is Colour


def test_a_list_of_fixed_records_to_the_end_is_counted_before_it_is_read() -> None:
    from savecraft.layout import REST

    pairs = Struct(Body, [Field("head", U8), Field("items", List(Tuple(("a", U8), ("b", U16)), REST))])
    data = bytes([4, 1, 2, 0, 3, 4, 0])
    model = pairs.read(Reader(data), Context())
    assert model == Body(4, [(1, 2), (3, 4)]) == pairs.checked_only(Reader(data), Context())
    assert pairs.pack(model, Context()) == data
    assert "while" not in pairs.source().split("def cr")[0]  # one unpack, no loop
    with pytest.raises(FormatError, match="whole .* records of 3 bytes"):
        pairs.checked_only(Reader(data[:-1]), Context())


def test_a_skim_steps_over_values_to_the_end_as_the_reader_takes_them() -> None:
    """A skim (the load's structure check, a picker's steps) over values that fill the rest of
    the bounds: it used to ask REST for a number and gave up on every such record."""
    from savecraft.layout import REST

    words = Struct(Body, [Field("head", U8), Field("items", Array(U16, REST))], name="words")
    pairs = Struct(Body, [Field("head", U8), Field("items", List(Tuple(("a", U8), ("b", U16)), REST))],
                   name="pairs")
    _, raw = _rest_layouts()
    for lay, data in ((words, b"\x01\x02\x00\x03\x00"), (pairs, bytes([4, 1, 2, 0, 3, 4, 0])),
                      (raw, b"\x09abc")):
        assert lay.skim(data, 0, len(data), Context()) == len(data)
        assert lay.picker(("head",))(data, 0, len(data), Context()) == ((data[0],), len(data))
    # what the reader refuses, the skim refuses: a value cut by the end of the bounds
    assert words.skim(b"\x01\x02\x00\x03", 0, 4, Context()) is None
    assert pairs.skim(bytes([4, 1, 2, 0, 3, 4]), 0, 6, Context()) is None


# -- 8-bit text: a string that is not UTF-8 keeps its bytes and shows what the game shows ----


@dataclass(slots=True)
class Note:
    name: str = ""
    turn: int = 0
    text: str = ""


NOTE = Struct(Note, [Field("name", CStr(31, eight_bit="latin-1")), Field("turn", U16),
                     Field("text", CStr(79, eight_bit="latin-1"))], name="note")
NOTE_UTF8_ONLY = Struct(Note, [Field("name", CStr(31)), Field("turn", U16), Field("text", CStr(79))],
                        name="note (UTF-8 only)")


def _note_write(struct: Struct, m: Note) -> bytes:
    w = Writer()
    struct.write(m, w, Context())
    return w.getvalue()


def test_eight_bit_text_is_shown_decoded_and_written_back_byte_for_byte() -> None:
    data = b"Ren\xe9e\0\x07\x00caf\xc3\xa9\0"  # a Latin-1 name, then a UTF-8 message
    for checked in (False, True):
        r = Reader(data)
        m = NOTE.checked_only(r, Context()) if checked else NOTE.read(r, Context())
        assert r.pos == len(data)
        assert m.name == "Ren\u00e9e" and isinstance(m.name, EightBitText) and m.name.encoding == "latin-1"
        assert m.text == "caf\u00e9" and type(m.text) is str  # valid UTF-8 stays plain text
        assert m.turn == 7
        assert _note_write(NOTE, m) == data
        w = Writer()
        NOTE.checked_write_fn(m, w, Context(), "")
        assert w.getvalue() == data


def test_the_same_text_typed_in_is_written_as_utf8() -> None:
    # "\u00e9" typed in (a plain str) is UTF-8; only text read as 8-bit goes back as 8-bit
    assert _note_write(NOTE, Note("Ren\u00e9e", 7, "x")) == b"Ren\xc3\xa9e\0\x07\x00x\0"
    assert _note_write(NOTE, Note(EightBitText("Ren\u00e9e", "latin-1"), 7, "x")) == \
        b"Ren\xe9e\0\x07\x00x\0"


def test_without_eight_bit_such_bytes_are_an_error_at_the_byte() -> None:
    """Before this change every CStr was like this: the whole block stayed raw."""
    with pytest.raises(FormatError) as err:
        NOTE_UTF8_ONLY.read(Reader(b"Ren\xe9e\0\x07\x00x\0"), Context())
    assert err.value.offset == 3 and "0xE9" in str(err.value)


def test_eight_bit_text_keeps_the_buffer_limit_and_refuses_what_the_encoding_cannot_store() -> None:
    with pytest.raises(FormatError, match="at most 31 bytes"):
        NOTE.read(Reader(b"\xe9" * 32 + b"\0\0\0x\0"), Context())
    with pytest.raises(FormatError, match="latin-1"):
        _note_write(NOTE, Note(EightBitText("\u20ac", "latin-1"), 0, ""))


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=31).filter(lambda b: b"\0" not in b))
def test_any_eight_bit_name_round_trips(name: bytes) -> None:
    data = name + b"\0\x01\x00\0"
    m = NOTE.read(Reader(data), Context())
    assert _note_write(NOTE, m) == data
    try:
        name.decode("utf-8")
        assert type(m.name) is str
    except UnicodeDecodeError:
        assert m.name == name.decode("latin-1") and isinstance(m.name, EightBitText)


# -- values only the format's context resolves; lists to the end of the bytes ------------------


@dataclass(slots=True)
class Named:
    name: int = 0  # an index into a table the context holds, moved on write
    word: str = ""


class _Table(Context):
    """A Context that also maps stored indices to words and back (a strings section)."""

    def __init__(self, words: list[str], moved: dict[int, int] | None = None) -> None:
        super().__init__()
        self.words = words
        self.moved = moved or {}
        self.where: list[Any] = []


def _word(raw: int, ctx: Any, where: Any) -> str:
    if raw >= len(ctx.words):
        if where is None:
            raise ValueError("no place to report it: the checked path does")
        ctx.where.append(where)
        return "?"
    return str(ctx.words[raw])


NAMED = Struct(Named, [
    Field("name", Adapt(U16, None, lambda v, ctx, path: ctx.moved.get(v, v), "a name", ctx=True)),
    Field("word", Adapt(U8, _word, lambda v, ctx, path: ctx.words.index(v), "a word", ctx=True)),
])
NAMES = Struct(Pair, [Field("name", CStr(7)), Field("value", List(NAMED, ToEnd(3)))])


def test_an_adapter_with_the_context_resolves_and_moves_values() -> None:
    ctx = _Table(["zero", "one"], moved={5: 9})
    w = Writer()
    NAMED.write(Named(5, "one"), w, ctx)
    assert w.getvalue() == bytes([9, 0, 1])
    assert NAMED.read(Reader(bytes([5, 0, 0])), ctx) == Named(5, "zero")
    assert ctx.where == []
    # A value the decoder can only report with its place: the fast path gives way to the checked one.
    data = bytes([1, 0, 7])
    assert NAMED.read(Reader(data, base=100, path="names[2]"), ctx) == Named(1, "?")
    assert ctx.where == [(102, "names[2].word")]
    with pytest.raises(FormatError) as e:
        w = Writer("names[0]")
        NAMED.checked_write_fn(Named(1, "two"), w, ctx, "")
    assert e.value.problem.path == "names[0].word" and e.value.problem.expected == "a word"


def test_a_list_to_the_end_reads_what_is_left_and_writes_every_element() -> None:
    ctx = _Table(["a", "b", "c"])
    model = Pair("x", [Named(k, "abc"[k]) for k in range(3)])
    w = Writer()
    NAMES.write(model, w, ctx)
    data = w.getvalue()
    assert data == b"x\0" + bytes([0, 0, 0, 1, 0, 1, 2, 0, 2])
    assert NAMES.read(Reader(data), ctx) == model
    assert NAMES.checked_only(Reader(data), ctx) == model
    r = Reader(data + b"\x01")  # a byte too few for another record: left for the caller
    assert NAMES.read(r, ctx) == model and r.remaining == 1
    log = SpanLog()
    with recording(log, "file", data):
        NAMES.read(Reader(data), ctx)
    spans = {path: (off, n) for _, off, n, path in log.entries}
    assert spans["value[2]"] == (8, 3) and spans["value[2].word"] == (10, 1)


@dataclass(slots=True)
class Described:
    place: tuple[int, int] = (0, 0)
    name: int = 0


def test_a_tuple_of_siblings_names_its_parts_beside_the_field() -> None:
    # An asset descriptor: its offset and length are the record's own fields, so the path of
    # the value they point to (``place``) stays free for what is there.
    rec = Struct(Described, [Field("place", Tuple(("offset", U32), ("length", U16), sibling=True)),
                             Field("name", U8)])
    data = bytes([4, 0, 0, 0, 9, 0, 7])
    log = SpanLog()
    with recording(log, "file", data):
        assert rec.read(Reader(data, path="items[1]"), Context()) == Described((4, 9), 7)
    spans = {path: (off, n) for _, off, n, path in log.entries}
    assert spans == {"items[1].offset": (0, 4), "items[1].length": (4, 2), "items[1].name": (6, 1)}
    w = Writer()
    rec.write(Described((4, 9), 7), w, Context())
    assert w.getvalue() == data
    with pytest.raises(FormatError) as e:
        rec.checked_write_fn(Described((4, 1 << 16), 7), Writer("items[1]"), Context(), "")
    assert e.value.problem.path == "items[1].length"


@dataclass(slots=True)
class Words:
    words: list[str] = field(default_factory=list)


def test_a_list_of_any_size_elements_to_the_end() -> None:
    from savecraft.layout import REST

    rec = Struct(Words, [Field("words", List(CStr(7), REST))])
    data = b"\0ab\0cde\0"
    assert rec.read(Reader(data), Context()) == Words(["", "ab", "cde"])
    assert rec.checked_only(Reader(data), Context()) == Words(["", "ab", "cde"])
    w = Writer()
    rec.write(Words(["", "ab", "cde"]), w, Context())
    assert w.getvalue() == data
    log = SpanLog()
    with recording(log, "file", data):
        rec.read(Reader(data), Context())
    spans = {path: (off, n) for _, off, n, path in log.entries}
    assert spans["words[2]"] == (4, 4)
    with pytest.raises(FormatError) as e:  # a string cut short by the end
        rec.read(Reader(data + b"fg"), Context())
    assert e.value.problem.path == "words[3]"


@dataclass(slots=True)
class Tagged:
    name: str = ""
    pair: Pair = field(default_factory=Pair)
    pairs: list[Pair] = field(default_factory=list)


TAGGED = Struct(Tagged, [Field("name", CStr()), Field("pair", PAIR), Field("pairs", List(PAIR, 2))])


def test_a_reader_can_build_other_objects_from_the_same_description() -> None:
    """built_read_fn: the fast reader with a builder in place of each record's class (JSON)."""
    def as_dict(cls: type) -> Any:
        return _BUILDERS.setdefault(cls, lambda *values: dict(zip(
            [f.name for f in __import__("dataclasses").fields(cls)], values)))

    model = Tagged("t", Pair("a", 1), [Pair("b", 2), Pair("c", 3)])
    w = Writer()
    TAGGED.write(model, w, Context())
    data = w.getvalue()
    got, pos = TAGGED.built_read_fn(as_dict)(data, 0, len(data), Context())
    assert pos == len(data)
    assert got == {"name": "t", "pair": {"name": "a", "value": 1},
                   "pairs": [{"name": "b", "value": 2}, {"name": "c", "value": 3}]}
    assert TAGGED.read(Reader(data), Context()) == model  # the model's reader is untouched


_BUILDERS: dict[type, Any] = {}


def test_a_picker_returns_a_few_values_and_ends_where_the_skim_ends() -> None:
    data = encode(sample())
    values, end = THING.picker(("name", "level", "pairs"))(data, 0, len(data), ctx())
    assert end == len(data) == THING.skim(data, 0, len(data), ctx())
    assert values == ("Frodo", 12, [Pair("a", 1), Pair("bb", 2)])
    bag = Bag(7, [Word(5, True)], [3])
    w = Writer()
    BAG.write(bag, w, Context())
    raw = w.getvalue()
    nested = Struct(Tagged, [Field("name", CStr()), Field("pair", PAIR),
                             Field("pairs", List(PAIR, 0))])
    w = Writer()
    nested.write(Tagged("n", Pair("p", 9), []), w, Context())
    got, _ = nested.picker(("pair.value", "name"))(w.getvalue(), 0, len(w.getvalue()), Context())
    assert got == (9, "n")
    assert BAG.picker(("words",), lambda cls: (lambda *v: v))(raw, 0, len(raw), Context())[0] == \
        ([(5, True)],)
