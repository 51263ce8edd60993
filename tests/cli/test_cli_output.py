"""Every command that writes goes through the one writer: ``-o -``, links, ``--force``, OS errors."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import savecraft
from savecraft.formats.tirnanog.game.sample import build_sample_game
from savecraft.formats.tirnanog.save import sample


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "savecraft", *args], capture_output=True,
                          timeout=120, cwd=cwd)


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("inputs")
    save = d / "server.sav"
    savecraft.save(sample.server_save(users=3), save)
    game = d / "game.tng"
    game.write_bytes(build_sample_game())
    dump = d / "server.json"
    dump.write_bytes(run("dump", str(save)).stdout)
    asm = d / "s.asm"
    asm.write_text("PUSH8 1\nEND\n")
    code = d / "s.bin"
    assert run("asm", str(asm), "-o", str(code)).returncode == 0
    return {"save": save, "game": game, "dump": dump, "asm": asm, "bin": code}


def _writers(f: dict[str, Path], out: str) -> dict[str, list[str]]:
    return {
        "dump": ["dump", str(f["save"]), "-o", out],
        "build": ["build", str(f["dump"]), "-o", out],
        "edit": ["edit", str(f["save"]), "--set", "users[0].entity.x=5", "-o", out],
        "render-map": ["render-map", str(f["game"]), "0", "-o", out],
        "asm": ["asm", str(f["asm"]), "-o", out],
        "disasm": ["disasm", str(f["bin"]), "-o", out],
    }


@pytest.mark.parametrize("command", ["dump", "build", "edit", "render-map", "asm", "disasm"])
def test_dash_writes_the_data_to_standard_output(files: dict[str, Path], tmp_path: Path,
                                                  command: str) -> None:
    r = run(*_writers(files, "-")[command], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    expected = tmp_path / "expected"
    assert run(*_writers(files, str(expected))[command]).returncode == 0
    assert r.stdout == expected.read_bytes()
    assert list(tmp_path.iterdir()) == [expected]  # nothing called "-" was made


@pytest.mark.parametrize("command", ["dump", "build", "edit", "render-map", "asm", "disasm"])
def test_a_missing_folder_is_one_line_and_exit_2(files: dict[str, Path], tmp_path: Path,
                                                 command: str) -> None:
    out = tmp_path / "missing" / "out.bin"
    r = run(*_writers(files, str(out))[command])
    assert r.returncode == 2
    assert r.stderr.decode().strip() == (f"savecraft: error: {out}: cannot write: the folder "
                                         f"{out.parent} does not exist")
    assert not out.parent.exists()


def test_edit_through_a_symlink_changes_the_target(files: dict[str, Path], tmp_path: Path) -> None:
    game = tmp_path / "game"
    game.mkdir()
    real = game / "real.sav"
    real.write_bytes(files["save"].read_bytes())
    link = tmp_path / "linked.sav"
    link.symlink_to(real)
    r = run("edit", str(link), "--set", "users[0].entity.x=1")
    assert r.returncode == 0, r.stderr
    assert link.is_symlink()
    assert savecraft.load(real).users[0].entity.x == 1
    assert (game / "real.sav.bak").read_bytes() == files["save"].read_bytes()


def test_a_read_only_target_is_refused_unless_forced(files: dict[str, Path], tmp_path: Path) -> None:
    target = tmp_path / "ro.sav"
    target.write_bytes(files["save"].read_bytes())
    os.chmod(target, 0o444)
    r = run("edit", str(target), "--set", "users[0].entity.x=7")
    assert r.returncode == 2
    assert b"cannot write: the file is read-only (use --force to replace it)" in r.stderr
    assert target.read_bytes() == files["save"].read_bytes()
    assert run("edit", str(target), "--set", "users[0].entity.x=7", "--force").returncode == 0
    assert savecraft.load(target).users[0].entity.x == 7


def test_extract_makes_its_folder_but_not_the_folders_above(files: dict[str, Path],
                                                            tmp_path: Path) -> None:
    r = run("extract", str(files["save"]), "-o", str(tmp_path / "a" / "b"))
    assert r.returncode == 2
    assert b"cannot write: the folder" in r.stderr and not (tmp_path / "a").exists()
    assert run("extract", str(files["save"]), "-o", str(tmp_path / "a")).returncode == 0
    assert (tmp_path / "a").is_dir() and any((tmp_path / "a").iterdir())


def test_an_unreadable_input_is_exit_2(tmp_path: Path) -> None:
    r = run("info", str(tmp_path))
    assert r.returncode == 2
    assert r.stderr.decode().strip() == f"savecraft: error: {tmp_path}: cannot read: it is a folder, not a file"
    r = run("dump", str(tmp_path / "nope.sav"))
    assert r.returncode == 2 and b"cannot read: No such file or directory" in r.stderr


def test_validate_never_raises_on_a_missing_path_or_a_folder(tmp_path: Path) -> None:
    for source in (tmp_path / "nope.sav", tmp_path):
        result = savecraft.validate(source)
        assert not result.ok and result.format is None
        assert "cannot read" in str(result.problems[0])


_PEAK = """
import sys
import savecraft
from savecraft.cli import main

def hwm():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024

how, path = sys.argv[1], sys.argv[2]
if how == "api":
    result = savecraft.validate(path)
    assert not result.ok
else:
    main(["validate", path])
print(hwm())
"""


@pytest.mark.parametrize("how", ["api", "cli"])
def test_a_huge_file_that_fails_early_is_not_read_whole(tmp_path: Path, how: str) -> None:
    """A 512 MiB file with a valid magic used to peak at three times its size before failing."""
    big = tmp_path / "big.sav"
    with open(big, "wb") as fh:
        fh.write(b"TNG Saved Game\n\0" + b"\xff" * 16)
        fh.truncate(512 << 20)  # sparse: costs no disk
    r = subprocess.run([sys.executable, "-c", _PEAK, how, str(big)], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    peak = int(r.stdout.split()[-1])
    assert peak < 200 << 20, f"peak {peak >> 20} MiB for a 512 MiB file"
