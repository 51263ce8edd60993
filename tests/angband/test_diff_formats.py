"""Diff and edit on the Angband and QfG5 formats: keyed blocks and objects, real files."""

from __future__ import annotations

from pathlib import Path

import pytest

from savecraft import api, diff, edit
from savecraft.errors import FormatError
from savecraft.paths import get

angband_sample = pytest.importorskip("savecraft.formats.angband.sample")
qfg5_sample = pytest.importorskip("savecraft.formats.qfg5.sample")


def test_angband_block_insertion_is_one_added_block() -> None:
    from savecraft.formats.angband.block import RawBlock

    save = angband_sample.block_save()
    before = api.build(save)
    save.blocks.insert(3, RawBlock("patch", 1, b"an extra block"))
    after = api.build(save)
    changes = diff.diff_bytes(before, after).changes
    assert [(c.kind, c.path, c.note) for c in changes] == [("added", "blocks[3]", "raw name=patch")]
    assert changes[0].new == RawBlock("patch", 1, b"an extra block")


def test_angband_block_edit_by_block_name(tmp_path: Path) -> None:
    data = api.build(angband_sample.block_save())
    p = tmp_path / "angband.sav"
    p.write_bytes(data)
    result = edit.edit_file(p, {"blocks[name=stores].version": 2})
    assert result.changes == [("blocks[6].version", 2)]
    assert api.validate(p).ok
    changes = diff.diff_files(tmp_path / "angband.sav.bak", p).changes
    assert [(c.path, c.old, c.new) for c in changes] == [("blocks[6].version", 1, 2)]
    with pytest.raises(FormatError):
        edit.edit_file(p, {"blocks[name=stores].version": -1})
    assert p.read_bytes() == result.data
    # the character's level lives in the description line: "Brand, L12 ..."
    levelled = edit.edit_bytes(data, {"blocks[0].level": 13})
    assert api.parse(levelled.data).description.line.startswith("Brand, L13 ")


def test_angband_real_file_single_change(real_samples: Path) -> None:
    files = sorted((real_samples / "angband-block").glob("*.sav"))
    files = [f for f in files if f.stat().st_size > 50_000]
    data = files[0].read_bytes()
    save = api.parse(data)
    k = next(i for i, b in enumerate(save.blocks) if getattr(b, "data", b""))
    raw = bytearray(save.blocks[k].data)
    raw[len(raw) // 2] ^= 0xFF
    save.blocks[k].data = bytes(raw)
    changes = diff.diff_bytes(data, api.build(save)).changes
    assert [(c.kind, c.path) for c in changes] == [
        ("changed", f"blocks[{k}].data")]
    assert api.validate(api.build(save)).ok


def test_angband_modular_edit_and_self_diff() -> None:
    data = api.build(angband_sample.modular_save())
    assert diff.diff(api.parse(data), api.parse(data)).changes == []
    result = edit.edit_bytes(data, {"description": "Asira, L8 Zebra Priest, in the Town"})
    changes = diff.diff_bytes(data, result.data).changes
    assert [(c.path, c.new) for c in changes] == [("description", "Asira, L8 Zebra Priest, in the Town")]
    with pytest.raises(FormatError, match="description"):
        edit.edit_bytes(data, {"description": "x" * 65})


def test_qfg5_edit_and_keyed_objects() -> None:
    from savecraft.formats.qfg5.model import GameObject

    save = qfg5_sample.qfg5_save()
    data = api.build(save)
    result = edit.edit_bytes(data, {"inventory[3].amount": 7})
    changes = diff.diff_bytes(data, result.data).changes
    assert [(c.path, c.old, c.new) for c in changes] == [
        ("inventory[3].amount", save.inventory[3].amount, 7)]
    assert api.validate(result.data).ok
    room = next(i for i, r in enumerate(save.rooms) if len(r.objects) >= 2)
    save.rooms[room].objects.insert(0, GameObject(2, 4999, b"new object"))
    changes = diff.diff_bytes(data, api.build(save)).changes
    assert [(c.kind, c.path) for c in changes] == [("added", f"rooms[{room}].objects[0]")]
    assert get(api.parse(api.build(save)), changes[0].path) == GameObject(2, 4999, b"new object")
