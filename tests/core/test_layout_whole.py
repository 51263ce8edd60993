"""What the file and block headers need from a description: a record the game reads in one
piece (one problem when it is cut short), read as the start of an item (its span widened over
the item's data), the offsets of its fields, and packers of lists of nested records."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from savecraft.binary import Reader, SpanLog, recording
from savecraft.errors import FormatError
from savecraft.layout import U8, U16, U24, U32, Bytes, Computed, Const, Context, CStr, Field, List, Prefix, Stored
from savecraft.layout import Struct


@dataclass(slots=True)
class Head:
    name: bytes = b""
    version: int = 0
    size: int = 0


HEAD = Struct(Head, [Field("name", Bytes(4)), Field("version", U24), Field("size", U32)], name="block header",
              whole=True)


def test_a_record_read_whole_that_is_cut_short_is_one_problem_at_the_field_cut() -> None:
    raw = b"abcd\x01\x02\x03\x10\x00"  # 9 of the 11 bytes: the size is cut
    r = Reader(raw, base=0x20, path="blocks[2]", what="the file")
    with pytest.raises(FormatError) as exc:
        HEAD.read(r, Context(), "head")
    err = exc.value
    assert (err.offset, err.path) == (0x20 + 7, "blocks[2].head.size")
    assert (err.expected, err.found) == ("11 bytes of block header", "the end of the file after 9 bytes")
    with pytest.raises(FormatError) as exc:
        HEAD.read(Reader(b"ab", what="the file"), Context())
    assert (exc.value.offset, exc.value.path, exc.value.found) == (0, "name", "the end of the file after 2 bytes")
    plain = Struct(Head, HEAD.members, name="block header")  # not whole: the field's own problem
    with pytest.raises(FormatError) as exc:
        plain.read(Reader(raw, what="the file"), Context())
    assert (exc.value.path, exc.value.expected) == ("size", "4 bytes")


def test_only_a_record_of_fixed_members_is_read_whole() -> None:
    with pytest.raises(TypeError):
        Struct(Head, [Field("name", CStr()), Field("version", U8), Field("size", U8)], whole=True)


def test_offsets_of_fixed_members_skip_what_is_not_stored() -> None:
    @dataclass(slots=True)
    class Word:
        id: int = 0
        done: bool = False

    word = Struct(Word, [Const("tag", U16, 7, "7"), Stored("id", U32, "id | done << 31"),
                         Computed("done", "bool(id >> 31)"), Computed("id", "id & 0x7FFFFFFF")], whole=True)
    assert (word.offset_of("tag"), word.offset_of("id")) == (0, 2)
    assert (HEAD.offset_of("version"), HEAD.offset_of("size")) == (4, 7)
    with pytest.raises(KeyError):
        HEAD.offset_of("done")


def test_a_record_read_as_an_item_notes_its_span_first_and_marks_it() -> None:
    raw = b"abcd\x01\x02\x03\x04\x00\x00\x00DATA"
    log = SpanLog()
    with recording(log):
        r = Reader(raw, path="file")
        assert HEAD.read_item(r, Context(), "blocks[0]") == Head(b"abcd", 0x030201, 4)
        r.skip(4, "blocks[0].data")
    assert log.entries == [
        ("file", 0, 11, "file.blocks[0]"), ("file", 0, 4, "file.blocks[0].name"),
        ("file", 4, 3, "file.blocks[0].version"), ("file", 7, 4, "file.blocks[0].size"),
        ("file", 11, 4, "file.blocks[0].data"),
    ]
    assert log.items == [0]  # widened by a span map over blocks[0].data
    cut = SpanLog()
    with recording(cut), pytest.raises(FormatError):
        HEAD.read_item(Reader(raw[:5]), Context(), "blocks[0]")
    assert cut.entries == [] and cut.items == []  # the one problem, and no span
    assert HEAD.read_item(Reader(raw), Context(), "blocks[0]") == Head(b"abcd", 0x030201, 4)  # not recording


@dataclass(slots=True)
class Entry:
    name: str = ""
    level: int = 0


@dataclass(slots=True)
class Entries:
    entries: list[Entry] = field(default_factory=list)


def test_a_packer_writes_a_list_of_records_that_are_not_fixed() -> None:
    """Each element's writer is handed the parts' append: the packer keeps them (it raised
    NameError, taking the list for one with nothing to append)."""
    layout = Struct(Entries, [Field("entries", List(Struct(Entry, [Field("name", CStr()), Field("level", U8)]),
                                                    Prefix(U8)))])
    model = Entries([Entry("a", 1), Entry("bc", 2)])
    assert layout.pack(model, Context()) == b"\x02a\x00\x01bc\x00\x02"
    assert layout.read(Reader(layout.pack(model, Context())), Context()) == model
