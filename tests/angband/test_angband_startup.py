"""Start-up of ``savecraft validate`` on an Angband-family file: what a fresh interpreter imports.

A validate writes no JSON, so it imports no orjson (it did, through the paths module, the
command module and the block format, 7-14 ms of a small file's start-up)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.samples import SAMPLES, real_samples

BUILT = Path(__file__).resolve().parents[1] / "data" / "angband-built"
V42 = SAMPLES / "angband-block-variants" / "vanilla-4.2_Aduial.sav"


def modules_after_validate(path: Path) -> set[str]:
    """The modules a fresh interpreter has imported after ``savecraft validate PATH`` (exit 0)."""
    prog = "\n".join(["import sys", "from savecraft.cli import main",
                      f"assert main(['validate', {str(path)!r}]) == 0", "print('\\n'.join(sys.modules))"])
    out = subprocess.run([sys.executable, "-c", prog], capture_output=True, text=True, timeout=120, check=True)
    return set(out.stdout.split())


@pytest.mark.parametrize("path", [BUILT / "narsil-1.3.1" / "Telchar.sav", BUILT / "vanilla-4.2.5" / "AldaAlda-alive.sav",
                                  BUILT / "faangband-1.4.5" / "Tuor.sav"], ids=lambda p: p.parent.name)
def test_validate_imports_no_json_library(path: Path) -> None:
    if not path.exists():  # (the game-written files of the repository)
        pytest.fail(f"{path} is missing")
    mods = modules_after_validate(path)
    assert "savecraft.formats.angband.block" in mods
    assert "orjson" not in mods


@real_samples
def test_validate_of_the_real_42_save_imports_no_json_library() -> None:
    assert "orjson" not in modules_after_validate(V42)
