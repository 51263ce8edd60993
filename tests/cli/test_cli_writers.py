"""Every command that writes says what it wrote; progress bars advance and name their unit.

Run as a person runs them: the installed command in a subprocess, on real
files the tests make. A writer's line is one line on standard error,
``wrote FILE (N bytes)``, and ``-q`` silences it; data written to standard
output is not announced.
"""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

import savecraft
from savecraft import console
from savecraft.formats.tirnanog.game.sample import build_sample_game
from savecraft.formats.tirnanog.save import sample as tng_sample

WROTE = re.compile(r"^wrote (\S+) \(([\d,]+) bytes?[,)]")


def run(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1"}
    return subprocess.run([sys.executable, "-m", "savecraft", *argv], cwd=cwd, capture_output=True,
                          text=True, timeout=120, env=env, stdin=subprocess.DEVNULL)


@pytest.fixture()
def folder(tmp_path: Path) -> Path:
    (tmp_path / "game.tng").write_bytes(build_sample_game())
    savecraft.save(tng_sample.server_save(users=3), tmp_path / "server.sav")
    return tmp_path


def said(out: subprocess.CompletedProcess[str], *names: str, folder: Path) -> None:
    assert out.returncode == 0, out.stderr
    lines = out.stderr.splitlines()
    assert len(lines) == len(names), out.stderr
    for line, name in zip(lines, names):
        m = WROTE.match(line)
        assert m is not None and m.group(1) == name, line
        size = int(m.group(2).replace(",", ""))
        assert (folder / name).stat().st_size == size


def test_render_map_says_what_it_wrote_and_q_keeps_quiet(folder: Path) -> None:
    said(run("render-map", "game.tng", "0", "-o", "map.png", cwd=folder), "map.png", folder=folder)
    said(run("render-map", "game.tng", "0", "-o", "m.png", "--tmx", "m.tmx", cwd=folder),
         "m.png", "m.tileset.png", "m.tmx", folder=folder)
    out = run("render-map", "game.tng", "0", "-o", "q.png", "-q", cwd=folder)
    assert out.returncode == 0 and out.stderr == "" and (folder / "q.png").stat().st_size > 0


def test_dump_build_edit_say_what_they_wrote(folder: Path) -> None:
    said(run("dump", "server.sav", "-o", "s.json", cwd=folder), "s.json", folder=folder)
    said(run("build", "s.json", "-o", "copy.sav", cwd=folder), "copy.sav", folder=folder)
    out = run("edit", "copy.sav", "--set", "users[0].entity.x=7", cwd=folder)
    said(out, "copy.sav", folder=folder)
    assert "the old file is kept as" in out.stderr and "set users[0].entity.x = 7" in out.stdout


def test_extract_says_how_many_files_and_bytes(folder: Path) -> None:
    out = run("extract", "game.tng", "-o", "parts", cwd=folder)
    assert out.returncode == 0, out.stderr
    files = [p for p in (folder / "parts").rglob("*") if p.is_file()]
    total = sum(p.stat().st_size for p in files)
    assert out.stderr == f"wrote parts ({len(files)} files, {total:,} bytes)\n"
    assert run("extract", "game.tng", "-o", "parts2", "-q", cwd=folder).stderr == ""


def test_asm_and_disasm_say_what_they_wrote(folder: Path) -> None:
    assert run("extract", "game.tng", "-o", "parts", "-q", cwd=folder).returncode == 0
    script = sorted((folder / "parts").rglob("*.asm"))[0]
    said(run("asm", str(script), "--game", "game.tng", "-o", "s.bin", cwd=folder), "s.bin", folder=folder)
    said(run("disasm", "s.bin", "-o", "s.asm", cwd=folder), "s.asm", folder=folder)
    out = run("disasm", "s.bin", cwd=folder)  # to standard output: the text is the answer
    assert out.returncode == 0 and out.stdout and out.stderr == ""


def test_data_on_standard_output_is_not_announced(folder: Path) -> None:
    out = run("dump", "server.sav", cwd=folder)
    assert out.returncode == 0 and out.stdout.startswith("{") and out.stderr == ""


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _frames(monkeypatch: pytest.MonkeyPatch, unit: str, total: int, step: int) -> list[str]:
    """What a bar drew while work advanced for about 1.5 s (every redraw, in order)."""
    monkeypatch.setattr(console, "_isatty", lambda stream: True)
    console.configure(quiet=False)
    err = _Terminal()
    monkeypatch.setattr(sys, "stderr", err)
    with console.progress("working", total, unit=unit) as advance:
        for _ in range(total // step):
            advance(step)
            time.sleep(1.5 / (total // step))
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", err.getvalue()).replace("\r", "\n").splitlines()


def test_a_bar_of_files_advances_while_the_work_goes_on(monkeypatch: pytest.MonkeyPatch) -> None:
    frames = _frames(monkeypatch, "files", 30, 1)
    counts = {int(m.group(1)) for f in frames if (m := re.search(r"(\d+)/30 files", f))}
    # Drawn from half a second on, redrawn as it goes: many counts, not one frozen at the start.
    assert len(counts) >= 3 and max(counts) > min(counts) + 5, counts


def test_a_bar_of_bytes_shows_mib_not_a_raw_count(monkeypatch: pytest.MonkeyPatch) -> None:
    frames = _frames(monkeypatch, "bytes", 40 << 20, 1 << 20)
    shown = [f for f in frames if "MiB" in f]
    assert shown and not any(str(40 << 20) in f for f in frames)
    assert re.search(r"\d+(\.\d)?/40\.0 MiB", " ".join(shown)), shown
