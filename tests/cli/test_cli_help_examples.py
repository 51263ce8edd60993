"""Every example a command's ``--help`` prints runs as written.

The examples are read from the help text itself (what a person copies), and
run by bash in a folder holding the files they name, with this checkout's
``savecraft``. A command exits 0, except ``diff`` and ``validate``, which
may also answer 1 ("different", "invalid"), and ``repair``, which answers 1
for damage it cannot mend safely (the half-written real save). Examples that need a running
TirNanoG server or open a browser and run until stopped are parsed only
(their options must exist); :data:`PARSED_ONLY` says why for each.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from savecraft.cli import COMMAND_MODULES, make_parser
from tests import samples

ROOT = Path(__file__).resolve().parents[2]

PARSED_ONLY = {
    "studio": "serves until stopped and opens a browser",
    "serve": "serves until stopped",
    "play": "needs a running server on port 4000",
    "loadtest": "needs a running server and minutes of load",
    "admin": "needs a running server's administration port",
}

FIXTURES = r'''
import os, shutil, subprocess, sys
from pathlib import Path
import savecraft
from savecraft.formats.qfg5.sample import qfg5_save
from savecraft.formats.tirnanog.game.sample import build_sample_game
from savecraft.formats.tirnanog.save import sample

def sc(*argv):
    subprocess.run([sys.executable, "-m", "savecraft", *argv], check=True, capture_output=True)

game = build_sample_game()
for name in ("world.tng", "game.tng", "a.tng"):
    open(name, "wb").write(game)
g = savecraft.load(game)
g.header.revision += 1
savecraft.save(g, "b.tng")
world = sample.server_save(users=12)
for name in ("world.sav", "a.sav", "old.sav", "big.sav"):
    savecraft.save(world, name)
world.users[1].entity.x += 5
for name in ("b.sav", "new.sav"):
    savecraft.save(world, name)
for day in range(1, 5):  # a series of saves of one world, a player moving a step a day
    world.users[1].entity.x += 1
    savecraft.save(world, f"day{day}.sav")
savecraft.save(sample.player_save(), "player.sav")
state = sample.server_save(users=3)
state.game_id = g.header.game_id
savecraft.save(state, "server.sav")
savecraft.save(qfg5_save(), "SAVE001.sav")
os.makedirs("saves/more", exist_ok=True)
os.makedirs("backup", exist_ok=True)
shutil.copy("world.sav", "saves/world.sav")
shutil.copy("player.sav", "saves/more/player.sav")
shutil.copy("SAVE001.sav", "backup/SAVE001.sav")
sc("dump", "player.sav", "-o", "player.json", "-q")
sc("extract", "world.tng", "-o", "world", "-q")
script = sorted(Path("world").rglob("*.asm"))[0]
sc("asm", str(script), "--game", "world.tng", "-o", "script.bin", "-q")
sc("disasm", "script.bin", "-o", "script.asm", "-q")
open("pw.txt", "w").write("secret\n")
real = Path(sys.argv[1])  # tests/samples.py's SAMPLES
for src, name in (("angband-truncated/vanilla-4.0.1_half-written.sav", "PLAYER.new"),
                  ("angband-block-more/angband_4.0.2_Aralorn-Copy-truncated131072.sav", "Aralorn"),
                  ("angband-block-variants/vanilla-4.2_Aduial.sav", "Aduial")):
    if (real / src).is_file():  # the real damaged saves the repair examples name
        shutil.copyfile(real / src, name)  # not its mode: shared/ is read-only (the examples' saves)
for d in (".local/share/bash-completion/completions", ".zfunc", ".config/fish/completions"):
    os.makedirs(os.path.join("home", d), exist_ok=True)
'''

REAL_COPIES = ("PLAYER.new", "Aralorn", "Aduial")  # the real saves FIXTURES copies, as the examples name them


def help_examples(command: str) -> list[str]:
    """The examples at the end of ``savecraft COMMAND --help``, as printed."""
    out = subprocess.run([sys.executable, "-m", "savecraft", command, "--help"], capture_output=True,
                         text=True, timeout=60, env={**os.environ, "COLUMNS": "200"})
    assert out.returncode == 0, out.stderr
    text = out.stdout.split("\nexamples:\n", 1)
    if len(text) == 1:
        return []
    return [line.strip() for line in text[1].splitlines() if line.startswith("  savecraft ")
            or line.startswith("  SAVECRAFT_")]


COMMANDS = sorted(COMMAND_MODULES)


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("examples")
    subprocess.run([sys.executable, "-c", FIXTURES, str(samples.SAMPLES)], cwd=folder, check=True, timeout=300,
                   env=_env(folder))
    return folder


def _env(folder: Path) -> dict[str, str]:
    bin_dir = folder / "bin"
    bin_dir.mkdir(exist_ok=True)
    wrapper = bin_dir / "savecraft"
    wrapper.write_text(f"#!/bin/sh\nexec {shlex.quote(sys.executable)} -m savecraft \"$@\"\n")
    wrapper.chmod(0o755)
    src = str(ROOT / "src")
    path = os.environ.get("PYTHONPATH", "")
    return {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "HOME": str(folder / "home"),
            "PYTHONPATH": f"{src}:{path}" if path else src, "EDITOR": "true", "NO_COLOR": "1"}


def test_every_command_has_examples() -> None:
    assert all(help_examples(c) for c in ("info", "validate", "hexdump", "edit", "render-map"))


@pytest.mark.parametrize("command", COMMANDS)
def test_help_examples_run_as_written(command: str, template: Path, tmp_path: Path) -> None:
    examples = help_examples(command)
    if command in PARSED_ONLY:
        parser = make_parser()
        for example in examples:
            words = shlex.split(example)
            words = words[words.index("savecraft") + 1:]
            parser.parse_args(words)  # a usage error exits 2: the example names no such option
        return
    if any(name in example for example in examples for name in REAL_COPIES):
        samples.require()
    folder = tmp_path / "run"
    shutil.copytree(template, folder, symlinks=True)
    for example in examples:
        if "| jq" in example and shutil.which("jq") is None:
            continue  # jq is the reader's tool, not this project's
        out = subprocess.run(["bash", "-c", example], cwd=folder, env=_env(folder), capture_output=True,
                             text=True, timeout=300, stdin=subprocess.DEVNULL)
        allowed = (0, 1) if re.match(r"savecraft (diff|validate|repair)\b", example) else (0,)
        assert out.returncode in allowed, f"{command}: {example}\n{out.stderr[-2000:]}"
        assert "Traceback" not in out.stderr and "null" != out.stdout.strip(), example
