"""savecraft demo as a newcomer runs it: each format at its best, a folder that validates, and
where to go next (the studio, and a first SQL question when this savecraft has `sql`)."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

from savecraft.commands.demo import SQL_QUESTION


def run(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "savecraft", *argv], cwd=cwd, capture_output=True,
                          text=True, timeout=300, env={**os.environ, "NO_COLOR": "1"})


def test_demo_shows_each_format_at_its_best_and_its_folder_validates(tmp_path: Path) -> None:
    out = run("demo", "-o", "out", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "NO" not in out.stdout.split("rebuilt byte for byte: ")[1:]
    # The folder holds samples only: validate of the whole folder passes (no TLS files).
    check = run("validate", "out", cwd=tmp_path)
    assert check.returncode == 0, check.stdout + check.stderr
    assert not list((tmp_path / "out").glob("*.pem"))
    # The Angband character is whole: a name, every block decoded, gear with item names.
    doc = json.loads(run("info", "--json", "out/angband-block.sav", cwd=tmp_path).stdout)
    assert doc["name"] == "Brand" and doc["game"] == "Vanilla 4.2" and doc["not_decoded"] == []
    assert all(b["decoded"] for b in doc["blocks"]) and len(doc["blocks"]) == 21
    assert doc["gold"] == 1234 and "weapon: Dagger" in doc["equipment"]
    # It ends by saying where to go next, and by asking its files one sql question.
    lines = [line.strip() for line in out.stdout.splitlines()]
    assert any(line.startswith("savecraft studio out/") for line in lines)
    sql = [line for line in lines if line.startswith("savecraft sql ")]
    assert sql and SQL_QUESTION in sql[0] and sql[0].endswith(" out/")
    answer = lines[lines.index(sql[0]) + 1:]
    if importlib.util.find_spec("duckdb"):  # the tables extra (the test extra has it)
        assert answer[0] == '"name","race","class","level","gold"' and '"Brand","High-Elf","Mage",12,1234' in answer
    else:
        assert "tables extra" in answer[0]
