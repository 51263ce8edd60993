"""docs/tables.md: every table and column is documented, and every worked example runs as written."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from savecraft.tables import catalogue

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "tables.md").read_text(encoding="utf-8")
sys.path.insert(0, str(ROOT / "bench"))
import make_corpus  # noqa: E402


def examples() -> list[str]:
    return [line for block in re.findall(r"```sh\n(.*?)```", DOC, re.S)
            for line in block.splitlines() if line.startswith("savecraft ")]


def test_every_table_and_column_is_documented() -> None:
    for t in catalogue().values():
        head = re.search(rf"^### `{t.name}`.*?$(.*?)(?=^### |\Z)", DOC, re.S | re.M)
        assert head, t.name
        for c in t.columns:
            assert f"| `{c.name}` | {c.type} | `{c.source}` |" in head.group(1), (t.name, c.name)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("docs")
    make_corpus.make_angband(d / "saves", 150, seed=11, jobs=1)
    make_corpus.make_tirnanog(d / "server.sav", 3000)
    from savecraft.formats.tirnanog.game.sample import build_sample_game

    (d / "world.tng").write_bytes(build_sample_game())
    first = sorted((d / "saves").iterdir())[0]
    (d / "damaged.sav").write_bytes(first.read_bytes()[:4000])
    return d


@pytest.mark.parametrize("line", examples())
def test_worked_example_runs(line: str, workdir: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "NO_COLOR": "1"}
    argv = shlex.split(line)
    r = subprocess.run([sys.executable, "-m", "savecraft", *argv[1:]], cwd=workdir, env=env,
                       capture_output=True, text=True, timeout=300)
    if "damaged.sav" in argv:
        assert r.returncode == 1 and "1 of 152 files had problems" in r.stderr, (line, r.stderr)
    else:
        assert r.returncode == 0, (line, r.stderr)
    assert r.stdout.strip(), line
    if argv[1] == "sql":
        lines = r.stdout.splitlines()
        assert len(lines) >= 2, r.stdout  # a header and at least one row


def test_the_examples_are_the_questions_the_issue_asks() -> None:
    text = "\n".join(examples())
    for needle in ("win_rate", "median(max_depth)", "killed_by", "median(gold)", "FROM tng_users GROUP BY map",
                   "JOIN tng_maps", "FROM tng_npcs"):
        assert needle in text
