"""The TirNanoG save's chunks as record descriptions (layouts.py): every leaf of the demo saves
has bytes that ``savecraft hexdump`` shows, the picker other readers use gives the decoder's
values, and the structure check a load makes is the layouts' own reader."""

from __future__ import annotations

import dataclasses
import struct
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import savecraft
from savecraft import spans
from savecraft.commands.hexdump import _target
from savecraft.formats.tirnanog.save import codec, demo, layouts, sample
from savecraft.formats.tirnanog.save.model import SaveGame


@pytest.fixture(scope="module")
def demo_files(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    return demo.write_samples(tmp_path_factory.mktemp("tng-demo"))


def _leaves(obj: Any, path: str) -> Iterator[tuple[str, Any]]:
    """Every leaf of a model value with its path (an empty list is a leaf; of a long list of
    numbers, the first and the last)."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for f in dataclasses.fields(obj):
            yield from _leaves(getattr(obj, f.name), f"{path}.{f.name}" if path else f.name)
    elif isinstance(obj, list):
        if not obj:
            yield path, obj
        idx = range(len(obj)) if len(obj) <= 64 else (0, len(obj) - 1)
        for i in idx:
            yield from _leaves(obj[i], f"{path}[{i}]")
    else:
        yield path, obj


def _save_leaves(save: SaveGame) -> Iterator[tuple[str, Any]]:
    yield "game_id", save.game_id
    if save.preview is not None:
        yield from _leaves(save.preview, "preview")
    counters: dict[bytes, int] = {}
    for i in range(len(save.chunks)):
        magic = save.chunks.magic(i)
        k = counters.get(magic, 0)
        counters[magic] = k + 1
        yield from _leaves(save.chunks[i], codec.chunk_path(magic, k, i))


# Leaves that are not bytes of their own: the completed flag is bit 31 of its quest's word, an
# RLE stream kept only when not canonical, a raw chunk's bytes, the preview's compressed image.
_SHARED = (".completed", ".rle", ".data")


def test_every_leaf_of_the_demo_saves_has_its_bytes(demo_files: list[Path]) -> None:
    checked = own = 0
    for path in demo_files:
        data = path.read_bytes()
        smap = spans.record(data)
        assert not smap.problems
        save = savecraft.load(data)
        for leaf, value in _save_leaves(save):
            shown = _target(smap, leaf)  # what `savecraft hexdump FILE LEAF` shows
            assert isinstance(shown, spans.Span) and shown.length >= 0, leaf
            checked += 1
            sp = smap.span_of(leaf)
            if sp is None:  # shown by the bytes of the value it is part of
                assert leaf.endswith(_SHARED) or leaf.startswith("maps[") and ".tiles[" in leaf \
                    or leaf.startswith("chunks["), leaf
                continue
            own += 1
            raw = smap.spaces()[sp.space].data[sp.offset:sp.end]
            if type(value) is int and not leaf.endswith(".quest_id"):
                assert int.from_bytes(raw, "little", signed=value < 0) == value, leaf
            elif leaf.endswith(".quest_id"):
                assert int.from_bytes(raw, "little") & 0x7FFF_FFFF == value, leaf
            elif type(value) is str and leaf.endswith(".name"):
                assert raw.rstrip(b"\0") == value.encode(), leaf
    assert checked > 900 and own > 800


def test_hexdump_shows_a_leaf_of_each_chunk_kind(demo_files: list[Path]) -> None:
    server = demo_files[1]
    for leaf in ("users[3].entity.quests[1].quest_id", "npcs[2].entity.inventory[1].object_id",
                 "deny.entries[0].padding", "globals.values[2]", "users[0].language"):
        out = subprocess.run([sys.executable, "-m", "savecraft", "hexdump", str(server), leaf],
                             capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr
        assert leaf in out.stdout and "Traceback" not in out.stderr, (leaf, out.stdout[:400])


def test_the_picker_gives_the_values_the_decoder_gives() -> None:
    """summary, tables and the user names pick a few values straight from a chunk's bytes with
    the USER layout's picker: the decoder's values, and nothing where the fast reader gives up."""
    from savecraft.layout import FAST_READ_ERRORS, Context

    save = savecraft.load(savecraft.build(sample.server_save(users=12)))
    names = ("name", "flags", "language", "entity.map", "entity.y", "entity.inventory")
    pick = layouts.USER.picker(names)
    for user, i in zip(save.users, [i for i in range(len(save.chunks)) if save.chunks.magic(i) == b"USER"]):
        raw = codec.encode_chunk(user)
        values, end = pick(raw, 8, len(raw), Context())
        assert end == len(raw)
        assert values == (user.name, user.flags, user.language, user.entity.map, user.entity.y,
                          user.entity.inventory)
    bad = raw[:-1]
    with pytest.raises(FAST_READ_ERRORS):
        pick(bad, 8, len(bad), Context())
    del i


def test_a_load_checks_each_chunk_with_the_layouts_skim() -> None:
    """A USER chunk whose counts do not fill it is found by the skim at load, and the checked
    reader of the same layout says where (the attribute count) and why."""
    data = savecraft.build(sample.server_save(users=2))
    save = savecraft.load(data)
    raws = [save.chunks.raw_or_none(i) or b"" for i in range(len(save.chunks))]
    user = raws[3]
    from savecraft.layout import Context

    assert layouts.USER.skim(user, 8, len(user), Context()) == len(user)
    bad = user[:-4]
    bad = bad[:4] + struct.pack("<I", len(bad)) + bad[8:]
    assert layouts.USER.skim(bad, 8, len(bad), Context()) is None
    content = b"".join(raws[:3]) + bad
    import zlib

    wrapped = codec.MAGIC + b"g".ljust(16, b"\0") + zlib.compress(content) \
        + struct.pack("<I", zlib.crc32(content))
    problems = savecraft.validate(wrapped).problems
    assert [(p.path, p.found) for p in problems] == [("users[0].entity.attributes", "+4 bytes")]
    assert "quests in" in problems[0].expected and "to fill the" in problems[0].expected


def test_a_hash_longer_than_its_field_is_refused_not_cut() -> None:
    """The writer padded a short hash and silently cut a long one; the layout refuses it."""
    from savecraft.errors import FormatError

    save = sample.server_save(users=2)
    save.users[1].password_hash = bytes(range(33))
    with pytest.raises(FormatError) as exc:
        savecraft.build(save)
    assert (exc.value.path, exc.value.expected, exc.value.found) == (
        "users[1].password_hash", "a hash of at most 32 bytes", "33 bytes")
    save.users[1].password_hash = b"short"
    back = savecraft.load(savecraft.build(save))
    assert back.users[1].password_hash == b"short".ljust(32, b"\0")


def test_a_user_name_that_is_not_text_is_a_located_error() -> None:
    from savecraft.errors import FormatError

    save = sample.server_save(users=1)
    save.users[0].name = 5  # type: ignore[assignment]
    with pytest.raises(FormatError) as exc:
        savecraft.build(save)
    assert (exc.value.path, exc.value.expected, exc.value.found) == ("users[0].name", "a string", "int")
