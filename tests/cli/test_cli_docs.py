"""The examples of README.md and docs/ run as written.

Every fenced ```python and ```sh block runs, in a fresh folder holding the
files the examples name (server.sav with a user Brigid, world.sav and its
.bak, a.sav and b.sav, broken.sav, game.tng, atlas.png; world.tng and
players.sav, its server's state; Brand.sav, an Angband character, and
Brand-cut.sav, the same cut short). A block is left out
only when the line before its fence says why:

    <!-- doc: no-run (needs a running server) -->

Python blocks of one page run in order in one namespace (a later block may
use an earlier one's imports). Shell blocks run line by line, with
``savecraft`` being this checkout's command; a line starting ``$ `` is a
command whose printed output follows it (the output is not compared: it
depends on the sample files). A command exits 0, except ``savecraft diff``
and ``savecraft validate``, which may also exit 1 (a documented answer:
"different", "invalid"), never 2 or more (a usage error or a crash).
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```(\w*)\s*$")
NO_RUN = re.compile(r"<!--\s*doc:\s*no-run\b.*-->")

FIXTURES = r'''
import shutil
import savecraft
from savecraft.formats.tirnanog.save import sample
from savecraft.formats.tirnanog.game.sample import build_sample_game, draw_tile_atlas

save = sample.server_save(users=12)
for name in ("server.sav", "world.sav", "a.sav"):
    savecraft.save(save, name)
shutil.copy("world.sav", "world.sav.bak")
save.users[1].entity.x += 5
savecraft.save(save, "b.sav")
data = open("server.sav", "rb").read()
open("broken.sav", "wb").write(data[:-4] + b"\0\0\0\0")
open("game.tng", "wb").write(build_sample_game())
open("atlas.png", "wb").write(draw_tile_atlas())
# docs/tirnanog-server-operators.md: a world and the state of its server
shutil.copy("game.tng", "world.tng")
players = sample.server_save(users=12)
players.game_id = savecraft.load("world.tng").header.game_id
savecraft.save(players, "players.sav")
# docs/angband-players.md: a whole Vanilla 4.2 character, and the same save cut short
from savecraft.formats.angband.demo import character_save
savecraft.save(character_save(), "Brand.sav")
open("Brand-cut.sav", "wb").write(open("Brand.sav", "rb").read()[:2500])
'''


def blocks(page: Path) -> list[tuple[int, str, str, bool]]:
    """(line, language, code, runnable) of every fenced block of ``page``."""
    out = []
    lines = page.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if m is None:
            i += 1
            continue
        start, lang = i, m.group(1)
        j = i + 1
        while j < len(lines) and not lines[j].startswith("```"):
            j += 1
        skip = start > 0 and NO_RUN.search(lines[start - 1]) is not None
        out.append((start + 1, lang, "\n".join(lines[start + 1 : j]), not skip))
        i = j + 1
    return out


def runnable(lang: str) -> list[Path]:
    return [p for p in PAGES if any(b[1] == lang and b[3] for b in blocks(p))]


@pytest.fixture()
def folder(tmp_path: Path) -> Path:
    subprocess.run([sys.executable, "-c", FIXTURES], cwd=tmp_path, check=True, timeout=120)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    wrapper = bin_dir / "savecraft"
    wrapper.write_text(f"#!/bin/sh\nexec {shlex.quote(sys.executable)} -m savecraft \"$@\"\n")
    wrapper.chmod(0o755)
    return tmp_path


def _env(folder: Path) -> dict[str, str]:
    src = str(ROOT / "src")
    path = os.environ.get("PYTHONPATH", "")
    return {**os.environ, "PATH": f"{folder / 'bin'}:{os.environ['PATH']}",
            "PYTHONPATH": f"{src}:{path}" if path else src, "EDITOR": "true", "NO_COLOR": "1"}


@pytest.mark.parametrize("page", runnable("python"), ids=lambda p: p.name)
def test_python_examples_run(page: Path, folder: Path) -> None:
    code = [f"# {page.name}:{line}\n{text}" for line, lang, text, run in blocks(page)
            if lang == "python" and run]
    program = "ns = {}\n" + "".join(
        f"exec(compile({c!r}, {page.name!r}, 'exec'), ns)\n" for c in code)
    out = subprocess.run([sys.executable, "-c", program], cwd=folder, env=_env(folder),
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, f"{page.name}: {out.stderr[-3000:]}"


@pytest.mark.parametrize("page", runnable("sh"), ids=lambda p: p.name)
def test_shell_examples_run(page: Path, folder: Path) -> None:
    for line, lang, text, run in blocks(page):
        if lang != "sh" or not run:
            continue
        commands: list[str] = []
        for raw in text.replace("\\\n", " ").splitlines():
            if raw.startswith("$ "):
                commands.append(raw[2:])
            elif raw.strip() and not raw.startswith((" ", "#")) and not any(
                    t.startswith("$ ") for t in text.splitlines()):
                commands.append(raw)
        for cmd in commands:
            out = subprocess.run(["bash", "-c", cmd], cwd=folder, env=_env(folder), capture_output=True,
                                 text=True, timeout=300, stdin=subprocess.DEVNULL)
            allowed = (0, 1) if cmd.startswith(("savecraft diff", "savecraft validate", "savecraft repair")) \
                else (0,)
            assert out.returncode in allowed, f"{page.name}:{line}: {cmd}\n{out.stderr[-2000:]}"


def test_every_block_says_its_language_and_skips_say_why() -> None:
    for page in PAGES:
        lines = page.read_text(encoding="utf-8").splitlines()
        for n, line in enumerate(lines):
            if NO_RUN.search(line):
                assert re.search(r"no-run\s*\(.+\)", line), f"{page.name}:{n + 1}: say why"
        assert all(lang in ("python", "sh", "text", "json", "yaml", "asm", "") for _, lang, _, _ in blocks(page)), page


AUDIENCES = ("angband-players.md", "tirnanog-server-operators.md", "tirnanog-game-makers.md",
             "many-saves.md")


def test_the_readme_starts_from_the_readers_file() -> None:
    """What savecraft is, the two set-up commands, 'open your file' in five lines, then links;
    the design, performance and limit tables live in docs/."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 60 and "| cap |" not in text and "| bench |" not in text
    heads = [line for line in text.splitlines() if line.startswith("## ")]
    assert heads == ["## Set up", "## Open your file", "## Where next"]
    setup = [code for _, lang, code, _ in blocks(ROOT / "README.md") if "pip install" in code]
    assert len(setup) == 2
    opening = next(code for _, lang, code, run in blocks(ROOT / "README.md")
                   if run and code.startswith("savecraft info"))
    assert len(opening.splitlines()) == 5
    for page in AUDIENCES:
        assert f"(docs/{page})" in text and (ROOT / "docs" / page).exists()
    for moved in ("design.md", "performance.md", "command-line.md"):
        assert (ROOT / "docs" / moved).exists()


def test_links_between_pages_lead_somewhere() -> None:
    # docs/tables.md comes with `savecraft sql`, written alongside this page set.
    pending = {"tables.md"}
    for page in PAGES:
        for target in re.findall(r"\]\(([^)#:]+\.md)(?:#[^)]*)?\)", page.read_text(encoding="utf-8")):
            if Path(target).name in pending:
                continue
            assert (page.parent / target).exists(), f"{page.name}: {target}"
