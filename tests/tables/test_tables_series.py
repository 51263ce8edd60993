"""``savecraft diff A B C ...``: a series of saves of one character, field path -> value in each."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import savecraft
from savecraft import diff as diffing
from savecraft import edit
from tests.samples import SAMPLES

ROOT = Path(__file__).resolve().parents[2]

LORENZ = SAMPLES / "angband-block-more" / "angband_4.2.2+_Lorenz.sav"


@pytest.fixture(scope="module")
def saves(tmp_path_factory: pytest.TempPathFactory, real_samples: Path) -> list[Path]:
    """Four saves of one character: gold rises, then stays; the level changes once."""
    d = tmp_path_factory.mktemp("series")
    data = LORENZ.read_bytes()
    out = []
    for i, (gold, level) in enumerate([(100, 32), (250, 32), (250, 33), (900, 33)]):
        p = d / f"day{i}.sav"
        p.write_bytes(edit.edit_bytes(data, {"player.au": gold, "player.lev": level}).data)
        out.append(p)
    return out


def test_series_lists_each_changed_field_with_its_value_in_every_file(saves: list[Path]) -> None:
    s = diffing.series_files(saves)
    fields = dict(s.fields)
    assert fields["player.au"] == [100, 250, 250, 900]
    assert fields["player.lev"] == [32, 32, 33, 33]
    assert "player.full_name" not in fields
    assert not diffing.series_files([saves[1], saves[1], saves[1]]).fields


def test_series_on_the_command_line(saves: list[Path]) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "NO_COLOR": "1"}
    r = subprocess.run([sys.executable, "-m", "savecraft", "diff", *map(str, saves)], env=env,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 1, r.stderr
    assert "  player.au: 100 -> 250 -> 250 -> 900" in r.stdout.splitlines()
    r = subprocess.run([sys.executable, "-m", "savecraft", "diff", *map(str, saves), "--json"], env=env,
                       capture_output=True, text=True, timeout=120)
    doc = json.loads(r.stdout)
    assert doc["files"] == [str(p) for p in saves] and doc["format"] == "angband-block"
    assert {"path": "player.lev", "values": [32, 32, 33, 33]} in doc["fields"]
    same = [str(saves[0])] * 3
    r = subprocess.run([sys.executable, "-m", "savecraft", "diff", *same], env=env, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0
    r = subprocess.run([sys.executable, "-m", "savecraft", "diff", *same[:2], "/nonexistent.sav"], env=env,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and len(r.stderr.splitlines()) == 1 and "Traceback" not in r.stderr


def test_series_refuses_files_of_different_formats(saves: list[Path], tmp_path: Path) -> None:
    from savecraft.formats.qfg5 import sample

    q = tmp_path / "q.sav"
    savecraft.save(sample.qfg5_save(), q)
    with pytest.raises(savecraft.SavecraftError, match="one format"):
        diffing.series_files([saves[0], saves[1], q])
