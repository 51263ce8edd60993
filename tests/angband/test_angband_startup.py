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


# -- the index of which module registers which layouts (layouts/_registered.py) ----------------

LAYOUTS = "savecraft.formats.angband.layouts"
OTHER_GAMES_THAN_42 = {"vanilla3", "anquestria", "faangband_character", "faangband_world", "faangband13",
                       "faangband14", "narsil", "narsil13", "beleriand", "xygos", "pwmangband", "tangaria",
                       "pwmangband_world", "pwmangband_server"}


def test_the_index_is_what_the_modules_register() -> None:
    """Regenerated from the modules (each variant loaded whole in a fresh interpreter): the same
    text. After an edit of a layout module, ``python -m savecraft.formats.angband.layouts``
    writes it again (until then the stale index is not used: see the next tests)."""
    from savecraft.formats.angband import layouts

    written = (Path(layouts.__file__).parent / "_registered.py").read_text(encoding="utf-8")
    assert layouts.index_source() == written, "run: python -m savecraft.formats.angband.layouts"


def _child(*code: str) -> str:
    out = subprocess.run([sys.executable, "-c", "\n".join(code)], capture_output=True, text=True,
                         timeout=120, check=True)
    return out.stdout


@pytest.mark.parametrize("path", [BUILT / "vanilla-4.2.5" / "AldaAlda-alive.sav",
                                  BUILT / "vanilla-4.2.0" / "Borin-dead.sav"], ids=lambda p: p.parent.name)
def test_validate_of_a_42_file_imports_no_module_of_another_game(path: Path) -> None:
    """Only the modules of the games whose player layout the file's player block version has
    (4.0, 4.1, 4.2, FAangband 2: each is tried) and what they import: not Vanilla 3.x's,
    Anquestria's, FAangband 1's, NarSil's... (every VNLA module was imported)."""
    mods = {m.rpartition(".")[2] for m in modules_after_validate(path) if m.startswith(LAYOUTS + ".")}
    assert {"character", "vanilla40", "vanilla41", "faangband2"} <= mods
    assert not mods & OTHER_GAMES_THAN_42, mods & OTHER_GAMES_THAN_42


def test_validate_of_a_narsil_file_imports_no_vanilla_module() -> None:
    mods = {m.rpartition(".")[2] for m in modules_after_validate(BUILT / "narsil-1.4.0" / "Nerdanel.sav")
            if m.startswith(LAYOUTS + ".")}
    assert {"narsil", "narsil13", "beleriand"} <= mods
    assert not mods & {"vanilla3", "vanilla40", "vanilla41", "anquestria", "faangband2", "xygos"}


def test_a_blocks_layouts_come_in_the_order_of_a_whole_load() -> None:
    """After a 4.2 file imported only some modules, each VNLA key's layouts (now importing the
    rest of that key's modules) are in the index's order, which is the whole load's."""
    prog = [
        "import sys",
        f"from {LAYOUTS} import _registered as index, layouts_for, _entry",
        "from savecraft.cli import main",
        f"assert main(['validate', {str(BUILT / 'vanilla-4.2.5' / 'AldaAlda-alive.sav')!r}]) == 0",
        "bad = [k for k, entries in index.KEYS.items() if k[0] == 'VNLA'",
        "       and tuple(_entry(lay) for lay in layouts_for(*k)) != entries]",
        "print(bad)",
    ]
    assert _child(*prog).strip() == "[]"


def test_a_stale_index_is_not_used() -> None:
    """An index whose sources are not the modules' (a module edited since) is ignored: every
    module of the variant is imported, and the file reads as the same game for the same reason."""
    path = BUILT / "vanilla-4.2.5" / "AldaAlda-alive.sav"
    read = ["from pathlib import Path",
            "from savecraft.formats.angband import block",
            "from savecraft.errors import Report",
            f"s = block.parse(Path({str(path)!r}).read_bytes(), Report(strict=True))",
            "import sys",
            f"print(repr((s.game, s.game_reason, '{LAYOUTS}.vanilla3' in sys.modules)))"]
    fresh = _child(*read)
    stale = _child(f"from {LAYOUTS} import _registered as index", "index.SOURCES['character'] = (0, 0)", *read)
    assert eval(fresh)[:2] == eval(stale)[:2]
    assert eval(fresh)[2] is False and eval(stale)[2] is True
