"""Edit and diff know no format: a toy format registered here gets them as a real one would.

The toy model uses what other formats may: frozen records (replaced, not
mutated), tuples, a ``dict``, an optional field, an enum, a ``KEY`` class
attribute, fixed-size strings and a CRC that ``build`` must recompute.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import IntEnum
from pathlib import Path
from typing import Any, ClassVar

import pytest

from savecraft import diff, edit, jsonmap, registry
from savecraft.binary import Reader, Writer
from savecraft.errors import FormatError, Report
from savecraft.paths import PathError, get, resolve

MAGIC = b"TOYSAVE\0"


class Mood(IntEnum):
    CALM = 0
    ANGRY = 1


@dataclass(frozen=True)
class Item:
    KEY: ClassVar[str] = "code"
    code: str
    count: int = 1


@dataclass
class Toy:
    title: str = ""
    level: int = 1
    mood: Mood = Mood.CALM
    pos: tuple[int, int] = (0, 0)
    items: list[Item] = field(default_factory=list)
    tags: dict[str, int] = field(default_factory=dict)
    note: str | None = None


def toy_build(t: Toy) -> bytes:
    w = Writer()
    w.bytes(MAGIC)
    w.fixed_str(t.title, 8, "title")
    w.u8(t.level, "level")
    w.u8(int(t.mood), "mood")
    w.u16(t.pos[0], "pos[0]")
    w.u16(t.pos[1], "pos[1]")
    w.u16(len(t.items), "items")
    for k, it in enumerate(t.items):
        w.fixed_str(it.code, 4, f"items[{k}].code")
        w.u32(it.count, f"items[{k}].count")
    w.u8(len(t.tags), "tags")
    for name, value in t.tags.items():
        w.cstr(name, f"tags[{name}]")
        w.i16(value, f"tags[{name}]")
    w.u8(t.note is not None, "note")
    if t.note is not None:
        w.cstr(t.note, "note")
    w.u32(zlib.crc32(w.getvalue()), "crc")
    return w.getvalue()


def toy_parse(data: bytes, report: Report) -> Toy:
    r = Reader(data, what="the toy file")
    if r.bytes(8, "magic") != MAGIC:
        r.fail("magic", repr(MAGIC), at=0)
    title = r.fixed_str(8, "title")
    level = r.u8("level")
    mood = r.u8("mood")
    if mood not in (0, 1):
        r.fail("mood", "0 or 1", str(mood), at=r.pos - 1)
    pos = (r.u16("pos[0]"), r.u16("pos[1]"))
    n = r.count(r.u16("items"), 8, "items")
    items = [Item(r.fixed_str(4, f"items[{k}].code"), r.u32(f"items[{k}].count")) for k in range(n)]
    tags = {}
    for _ in range(r.u8("tags")):
        name = r.cstr("tags")
        tags[name] = r.i16(f"tags[{name}]")
    note = r.cstr("note") if r.u8("note") else None
    crc = r.u32("crc")
    if crc != zlib.crc32(data[:-4]):
        report.error(len(data) - 4, "crc", f"0x{zlib.crc32(data[:-4]):08X}", f"0x{crc:08X}")
    if not r.at_end():
        report.error(r.offset, "", "the end of the file", f"{r.remaining} more bytes")
    return Toy(title, level, Mood(mood), pos, items, tags, note)


def toy_check(t: Toy, report: Report) -> None:
    if t.level > 99:
        report.error(None, "level", "a level from 0 to 99", str(t.level))
    seen: set[str] = set()
    for k, it in enumerate(t.items):
        if it.code in seen:
            report.error(None, f"items[{k}].code", "an item code not used before", repr(it.code))
        seen.add(it.code)


TOY = registry.Format(
    name="savecraft-test-toy", description="a toy format for the edit and diff tests", model=Toy,
    sniff=lambda data: data[:8] == MAGIC, parse=toy_parse, build=toy_build,
    info=lambda t: {"title": t.title}, check=toy_check,
)


@pytest.fixture
def toy_format() -> Iterator[registry.Format]:
    """Registered only for the test that asks, then removed again."""
    registry.formats()  # load the real plugins first
    registry.register(TOY)
    try:
        yield TOY
    finally:
        registry._FORMATS.pop(TOY.name, None)
        registry._BY_MODEL.pop(Toy, None)


def sample_toy(n: int = 3) -> Toy:
    return Toy("hero", 7, Mood.CALM, (10, 20), [Item(f"i{k:03d}", k + 1) for k in range(n)],
               {"speed": 3, "luck": -1}, "hello")


@pytest.fixture
def toy_bytes(toy_format: registry.Format) -> bytes:
    return toy_build(sample_toy())


# -- edit ------------------------------------------------------------------------------


@pytest.mark.parametrize(("path", "value", "expected"), [
    ("items[code=i001].count", 50, 50),
    ("items[1].count", 51, 51),
    ("pos[1]", 99, 99),
    ("mood", "ANGRY", Mood.ANGRY),
    ("mood", 1, Mood.ANGRY),
    ("tags[speed]", -7, -7),
    ("note", None, None),
    ("note", "changed", "changed"),
    ("title", "12345678", "12345678"),
    ("items[code=i002]", {"code": "new", "count": 2}, Item("new", 2)),
])
def test_toy_edit_round_trips(toy_bytes: bytes, path: str, value: Any, expected: Any) -> None:
    before = toy_parse(toy_bytes, Report())
    result = edit.edit_bytes(toy_bytes, {path: value})
    assert result.changed
    assert result.format == "savecraft-test-toy"
    # the CRC was recomputed: strict parsing accepts the new bytes
    after = toy_parse(result.data, Report())
    canonical = result.changes[0][0]
    assert get(after, canonical) == expected
    # the dump shows the new value
    assert get(jsonmap.loads(edit.dump_for_editing(result.data)), canonical) == expected
    # nothing else changed
    changes = diff.diff(before, after).changes
    if path == "items[code=i002]":  # a new key: the old record went, a new one came
        assert [(c.kind, c.path, c.note) for c in changes] == [
            ("added", "items[2]", "Item code=new"), ("removed", "items[2]", "Item code=i002")]
        return
    assert len(changes) == 1
    assert changes[0].kind == "changed"
    assert resolve(after, changes[0].path).path == canonical
    assert changes[0].new == expected
    assert changes[0].old == get(before, canonical)


def test_toy_edit_with_command_line_text(toy_bytes: bytes) -> None:
    result = edit.edit_bytes(toy_bytes, [("title", "123"), ("level", "8"), ("note", "null")], text=True)
    t = result.model
    assert (t.title, t.level, t.note) == ("123", 8, None)
    result = edit.edit_bytes(toy_bytes, [("note", '"null"')], text=True)
    assert result.model.note == "null"


@pytest.mark.parametrize(("path", "value", "says"), [
    ("title", "123456789", "title: expected a string of at most 8 bytes"),
    ("level", 256, "level: expected an integer from 0 to 255 (u8)"),
    ("level", 100, "level: expected a level from 0 to 99"),        # the format's own check
    ("level", "high", "level: expected an integer"),               # the type hint
    ("mood", 5, "mood: expected one of CALM (0), ANGRY (1)"),
    ("pos[0]", -1, "pos[0]: expected an integer from 0 to 65535"),
    ("items[code=i001].code", "i000", "items[1].code: expected an item code not used before"),
    ("items[0].count", 2**32, "items[0].count: expected an integer from 0 to 4294967295"),
    ("tags[luck]", 40000, "expected an integer from -32768 to 32767"),
    ("note", "a\0b", "note: expected a string without NUL characters"),
    ("items[0]", {"code": "x"}, "items[0].count: expected the field 'count' of Item, found nothing"),
    ("items[0]", {"code": "x", "count": 1}, None),  # a whole item: accepted
])
def test_toy_refused_edits_raise_with_the_path(toy_bytes: bytes, path: str, value: Any,
                                              says: str | None) -> None:
    if says is None:
        edit.edit_bytes(toy_bytes, {path: value})
        return
    with pytest.raises(FormatError) as info:
        edit.edit_bytes(toy_bytes, {path: value})
    assert says in "\n".join(str(p) for p in info.value.problems)


def test_toy_refused_file_edit_leaves_the_file_alone(toy_bytes: bytes, tmp_path: Path) -> None:
    p = tmp_path / "toy.bin"
    p.write_bytes(toy_bytes)
    with pytest.raises(FormatError):
        edit.edit_file(p, {"title": "far too long"})
    with pytest.raises(PathError):
        edit.edit_file(p, {"nothing.here": 1})
    assert p.read_bytes() == toy_bytes
    assert sorted(x.name for x in tmp_path.iterdir()) == ["toy.bin"]


def test_toy_file_edit_keeps_a_backup(toy_bytes: bytes, tmp_path: Path) -> None:
    p = tmp_path / "toy.bin"
    p.write_bytes(toy_bytes)
    result = edit.edit_file(p, {"level": 9})
    assert (tmp_path / "toy.bin.bak").read_bytes() == toy_bytes
    assert p.read_bytes() == result.data
    out = tmp_path / "other.bin"
    edit.edit_file(p, {"level": 10}, output=out, backup=False)
    assert toy_parse(out.read_bytes(), Report()).level == 10
    assert p.read_bytes() == result.data


def test_problems_the_file_already_had_do_not_block_an_edit(toy_format: registry.Format) -> None:
    t = sample_toy()
    t.items.append(Item("i000", 9))  # a duplicate code: the format's check complains
    data = toy_build(t)
    result = edit.edit_bytes(data, {"level": 8})
    assert result.model.level == 8
    with pytest.raises(FormatError, match="level"):
        edit.edit_bytes(data, {"level": 100})


def test_toy_dump_edit_round_trip(toy_bytes: bytes) -> None:
    doc = jsonmap.to_json(toy_parse(toy_bytes, Report()))
    doc["data"]["items"].append({"code": "zz", "count": 4})
    import orjson
    result = edit.edit_dump(toy_bytes, orjson.dumps(doc))
    changes = diff.diff_bytes(toy_bytes, result.data).changes
    assert [(c.kind, c.path) for c in changes] == [("added", "items[3]")]
    doc["format"] = "tirnanog-save"
    with pytest.raises(FormatError, match="format"):
        edit.edit_dump(toy_bytes, orjson.dumps(doc))


# -- diff ------------------------------------------------------------------------------


def test_toy_diff_matches_items_by_their_key(toy_format: registry.Format) -> None:
    a = sample_toy(50)
    b = sample_toy(50)
    b.items.insert(10, Item("new", 5))
    b.items[30] = Item(b.items[30].code, 999)
    del b.items[45]
    b.tags["extra"] = 1
    del b.tags["luck"]
    b.pos = (10, 21)
    got = [(c.kind, c.path, c.old, c.new) for c in diff.diff(a, b).changes]
    assert got == [
        ("changed", "pos[1]", 20, 21),
        ("added", "items[10]", None, Item("new", 5)),
        ("changed", "items[30].count", 30, 999),
        ("removed", "items[44]", Item("i044", 45), None),
        ("removed", "tags[luck]", -1, None),
        ("added", "tags[extra]", None, 1),
    ]


def test_toy_diff_reports_moves(toy_format: registry.Format) -> None:
    a = sample_toy(20)
    b = sample_toy(20)
    moved = b.items.pop(3)
    b.items.insert(15, moved)
    changes = diff.diff(a, b).changes
    assert [(c.kind, c.path, c.old, c.new) for c in changes] == [("moved", "items[15]", 3, 15)]


def test_toy_diff_paths_resolve_on_their_side(toy_format: registry.Format) -> None:
    a = sample_toy(10)
    b = sample_toy(10)
    b.items[4] = Item("i004", 77)
    b.items.append(Item("last", 1))
    b.title = "villain"
    for c in diff.diff(a, b).changes:
        if c.kind in ("changed", "added"):
            assert get(b, c.path) == c.new
        if c.kind in ("changed", "removed"):
            assert get(a, c.path) == c.old


def test_diff_of_two_formats_says_so(toy_format: registry.Format) -> None:
    from savecraft import api
    from savecraft.formats.tirnanog.save.sample import player_save
    result = diff.diff_bytes(toy_build(sample_toy()), api.build(player_save()), name_a="t", name_b="p")
    assert not result.equal and not result.same_format
    assert result.lines() == [("t is savecraft-test-toy, p is tirnanog-save: different formats, "
                               "no field comparison")]
    doc = result.to_json()
    assert doc["equal"] is False and doc["changes"] == []
    assert (doc["a"]["format"], doc["b"]["format"]) == ("savecraft-test-toy", "tirnanog-save")


def test_same_data_stored_differently_is_an_encoding_change(toy_format: registry.Format) -> None:
    from savecraft import api
    from savecraft.formats.tirnanog.save.sample import player_save
    save = player_save()
    a = api.build(save)
    save.encoding.deflate.original = None
    save.encoding.deflate.level = 1
    b = api.build(save)
    assert a != b
    result = diff.diff_bytes(a, b)
    assert not result.equal
    assert result.changes and all(c.kind == "encoding" for c in result.changes)
    assert any(c.path.startswith("encoding.deflate") for c in result.changes)


@dataclass
class Grid:
    """A model with a numpy field, as map layers are."""

    layers: Any = None
    name: str = ""


def test_numpy_array_elements_are_edited_and_diffed() -> None:
    import numpy as np

    registry.formats()  # the numpy JSON mapping is registered by the TirNanoG formats
    a = Grid(np.arange(200, dtype=np.uint16).reshape(2, 10, 10), "g")
    b = Grid(a.layers.copy(), "g")
    path, stored = edit.set_value(b, "layers[1][2][3]", 999)
    assert path == "layers[1][2][3]" and stored == 999 and b.layers[1, 2, 3] == 999
    edit.set_value(b, "layers[0][0][0]", "7", text=True)
    with pytest.raises(FormatError, match="an integer from 0 to 65535"):
        edit.set_value(b, "layers[0][0][1]", 70000)
    with pytest.raises(FormatError):
        edit.set_value(b, "layers[0][0][1]", "x")
    changes = diff.diff(a, b).changes
    assert [(c.kind, c.path, c.old, c.new) for c in changes] == [
        ("changed", "layers[0][0][0]", 0, 7), ("changed", "layers[1][2][3]", 123, 999)]
    assert get(b, changes[1].path) == 999
    b.layers = np.zeros((2, 10, 10), dtype=np.uint16)
    assert [(c.kind, c.path) for c in diff.diff(a, b).changes] == [("changed", "layers")]
    b.layers = np.zeros((3, 3), dtype=np.uint16)
    assert [(c.kind, c.path) for c in diff.diff(a, b).changes] == [("changed", "layers")]
    assert diff.diff(a, Grid(a.layers.copy(), "g")).changes == []
    assert diff.diff(a, b).to_json()["changes"][0]["new"] == np.zeros((3, 3)).tolist()
