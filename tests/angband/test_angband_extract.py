"""``savecraft extract`` then ``savecraft build DIR`` for Angband block saves, as ttx rebuilds a font."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import savecraft
from savecraft import diff
from savecraft.cli import main
from savecraft.formats.angband import sample
from savecraft.formats.angband.block import build as build_block

from tests.samples import real_samples

from .support import ALL_REAL, V42


def _round_trip(src: Path, tmp_path: Path) -> Path:
    folder = tmp_path / "x"
    assert main(["extract", str(src), "-o", str(folder)]) == 0
    out = tmp_path / "out.sav"
    assert main(["build", str(folder), "-o", str(out), "--no-backup"]) == 0
    return out


def test_the_sample_block_save_rebuilds_byte_for_byte(tmp_path: Path) -> None:
    src = tmp_path / "sample.sav"
    src.write_bytes(build_block(sample.block_save()))
    assert _round_trip(src, tmp_path).read_bytes() == src.read_bytes()


@real_samples
@pytest.mark.parametrize("src", ALL_REAL, ids=lambda p: p.name)
def test_every_real_file_rebuilds_byte_for_byte_from_its_folder(src: Path, tmp_path: Path) -> None:
    if savecraft.validate(src).format != "angband-block":
        pytest.skip("not a block save")
    if not savecraft.validate(src).ok:
        pytest.skip("a damaged file: extract shows what could be read")
    assert _round_trip(src, tmp_path).read_bytes() == src.read_bytes()


@real_samples
def test_gold_edited_in_the_folder_is_the_only_change(tmp_path: Path) -> None:
    folder = tmp_path / "x"
    assert main(["extract", str(V42), "-o", str(folder)]) == 0
    player = next(folder.glob("*-player.json"))
    doc = json.loads(player.read_text())
    doc["au"] = 1_000_000
    player.write_text(json.dumps(doc))
    out = tmp_path / "rich.sav"
    assert main(["build", str(folder), "-o", str(out)]) == 0
    assert savecraft.load(out).player.au == 1_000_000
    assert savecraft.validate(out).ok
    changes = diff.diff_files(V42, out).changes
    assert [(c.path, c.old, c.new) for c in changes] == [("player.au", 672848, 1_000_000)]


def test_a_folder_from_an_older_extract_is_refused_with_the_reason(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "sample.sav"
    src.write_bytes(build_block(sample.block_save()))
    folder = tmp_path / "x"
    assert main(["extract", str(src), "-o", str(folder)]) == 0
    head = folder / "file-header.json"
    doc = json.loads(head.read_text())
    del doc["files"]
    head.write_text(json.dumps(doc))
    assert main(["build", str(folder), "-o", str(tmp_path / "out.sav")]) == 1
    assert "file-header.json.files: expected the list of the folder's block files" in capsys.readouterr().err
    assert not (tmp_path / "out.sav").exists()


def test_a_modular_save_rebuilds_from_its_folder_and_takes_edits(tmp_path: Path) -> None:
    from savecraft.formats.angband.modular import build as build_modular

    src = tmp_path / "modular.sav"
    src.write_bytes(build_modular(sample.modular_save()))
    assert _round_trip(src, tmp_path).read_bytes() == src.read_bytes()
    folder = tmp_path / "x"
    head = folder / "file-header.json"
    doc = json.loads(head.read_text())
    doc["description"] = "Asira, L8 Zebra Priest, in the Town"
    head.write_text(json.dumps(doc))
    out = tmp_path / "edited.sav"
    assert main(["build", str(folder), "-o", str(out)]) == 0
    changes = diff.diff_files(src, out).changes
    assert [(c.path, c.new) for c in changes] == [("description", "Asira, L8 Zebra Priest, in the Town")]
