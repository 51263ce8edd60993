"""validate over many files: folders, globs, a process pool, one record per file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import savecraft
from savecraft.cli import main
from savecraft.formats.qfg5 import sample as qfg5_sample


@pytest.fixture()
def folder(tmp_path: Path) -> Path:
    d = tmp_path / "saves"
    (d / "sub").mkdir(parents=True)
    data = savecraft.build(qfg5_sample.qfg5_save())
    for i in range(10):
        (d / f"s{i:02d}.sav").write_bytes(data)
    (d / "sub" / "bad.sav").write_bytes(data[:-3])
    (d / "sub" / "notes.txt").write_bytes(b"not a save")
    return d


def test_a_folder_is_walked_in_parallel_with_a_line_per_file_and_a_summary(
        folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "-j", "2", str(folder)]) == 1
    lines = capsys.readouterr().out.splitlines()
    ok = [ln for ln in lines if ln.endswith(": ok (qfg5-save)")]
    assert len(ok) == 10 and ok == sorted(ok)  # in order, though two processes did the work
    assert any(ln.startswith(str(folder / "sub" / "bad.sav") + ": ") for ln in lines)
    assert any(ln.startswith(str(folder / "sub" / "notes.txt") + ": ") for ln in lines)
    assert lines[-1] == "12 files: 10 ok, 2 with problems"


def test_json_is_one_record_per_file(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "--json", "-j", "2", str(folder / "*.sav"), str(folder / "sub/bad.sav"),
                 str(folder / "missing.sav")]) == 2
    records = [json.loads(ln) for ln in capsys.readouterr().out.splitlines()]
    assert len(records) == 12
    assert all(r["ok"] and r["format"] == "qfg5-save" and r["problems"] == [] for r in records[:10])
    bad = records[10]
    assert bad["file"].endswith("bad.sav") and not bad["ok"]
    p = bad["problems"][0]
    assert set(p) == {"severity", "offset", "path", "expected", "found", "message"}
    assert isinstance(p["offset"], int) and p["severity"] == "error"
    assert records[11]["file"].endswith("missing.sav") and "cannot read" in records[11]["error"]


def test_a_glob_with_no_match_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(tmp_path / "*.nothing")]) == 2
    assert "no file matches" in capsys.readouterr().err


def test_progress_stays_off_when_stderr_is_piped(folder: Path) -> None:
    out = subprocess.run([sys.executable, "-m", "savecraft", "validate", str(folder)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 1
    assert "\x1b" not in out.stdout and "\x1b" not in out.stderr  # no bar, no colour
    assert "validating" not in out.stderr
