"""Start-up: a command imports only what it needs (the command's module, the matched plugin)."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pytest

import savecraft
from savecraft import cli, registry
from savecraft.formats.qfg5 import sample as qfg5_sample
from savecraft.formats.tirnanog.save import sample as tng_sample


def modules_after(*code: str) -> set[str]:
    """The modules a fresh interpreter has imported after running ``code``."""
    prog = "\n".join([*code, "import sys", "print('\\n'.join(sys.modules))"])
    out = subprocess.run([sys.executable, "-c", prog], capture_output=True, text=True, timeout=60, check=True)
    return set(out.stdout.split())


def test_command_table_matches_what_the_modules_register() -> None:
    parser = cli.make_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    registered = set(sub.choices)
    assert registered <= set(cli.COMMAND_MODULES)  # (the table may name a command merged later)
    for name in registered:
        one = cli.make_parser(name)
        only = next(a for a in one._actions if isinstance(a, argparse._SubParsersAction))
        assert name in only.choices, (name, cli.COMMAND_MODULES[name])
    assert registered <= set(cli.EXAMPLES)


def test_plugin_table_names_every_format_and_its_module() -> None:
    fmts = {f.name: f for f in registry.formats()}
    assert [p.name for p in registry.PLUGINS] == [n for n in registry.names() if n in fmts]
    for plugin in registry.PLUGINS:
        assert fmts[plugin.name].__module__ == "savecraft.registry"  # a Format instance
        assert sys.modules[plugin.module] is not None


def test_demo_files_are_detected_through_the_table(tmp_path: Path) -> None:
    from savecraft.commands.demo import _steps

    for step in _steps()[:4]:
        for path in step(tmp_path):
            data = path.read_bytes()
            fmt = registry.detect(data)
            plugin = next(p for p in registry.PLUGINS if p.name == fmt.name)
            assert plugin.maybe(data), path


def test_validate_of_a_qfg5_save_imports_one_plugin_and_no_numpy(tmp_path: Path) -> None:
    path = tmp_path / "SAVE001.sav"
    savecraft.save(qfg5_sample.qfg5_save(), path)
    mods = modules_after("from savecraft.cli import main", f"assert main(['validate', {str(path)!r}]) == 0")
    assert "savecraft.formats.qfg5" in mods
    for heavy in ("numpy", "rich", "PIL", "savecraft.formats.tirnanog.save", "savecraft.formats.tirnanog.game",
                  "savecraft.formats.angband.block", "savecraft.commands.edit", "savecraft.commands.net",
                  "savecraft.diff"):
        assert heavy not in mods, heavy


def test_importing_the_package_is_light_and_its_names_still_work() -> None:
    mods = modules_after("import savecraft")
    assert "savecraft.jsonmap" not in mods and "savecraft.api" not in mods and "orjson" not in mods
    assert savecraft.load is savecraft.api.load
    assert savecraft.available_formats is registry.formats
    with pytest.raises(AttributeError):
        savecraft.no_such_name  # noqa: B018


def test_get_by_name_imports_only_that_plugin() -> None:
    mods = modules_after("from savecraft import registry", "registry.get('qfg5-save')")
    assert "savecraft.formats.qfg5" in mods and "savecraft.formats.tirnanog.save" not in mods


def test_an_unknown_format_lists_the_known_ones() -> None:
    with pytest.raises(savecraft.SavecraftError, match="known: angband-block"):
        registry.get("nope")


def test_validate_of_a_player_save_imports_no_numpy_and_no_pillow(tmp_path: Path) -> None:
    path = tmp_path / "player.sav"
    savecraft.save(tng_sample.player_save(), path)
    mods = modules_after("from savecraft.cli import main", f"assert main(['validate', {str(path)!r}]) == 0")
    assert "savecraft.formats.tirnanog.save.codec" in mods
    assert "numpy" not in mods and "PIL" not in mods


def test_the_lazy_rle_runs_when_a_map_or_another_importer_needs_it() -> None:
    mods = modules_after(
        "import sys",
        "import savecraft.formats.tirnanog.save.codec",
        "assert 'numpy' not in sys.modules",
        "import savecraft.formats.tirnanog.game.maps",  # a plain import of rle runs it
        "import numpy as np",
        "from savecraft import jsonmap",
        "assert jsonmap.encoder(np.ndarray).__name__ == 'array_to_json'")
    assert "numpy" in mods
    save = tng_sample.server_save(users=2)
    from savecraft.formats.tirnanog.save.model import MapChunk

    save.chunks.append(MapChunk(map_id=3, tiles=[1, 1, 1, 2] * 64))
    again = savecraft.load(savecraft.build(save))
    assert next(m for m in again.maps if m.map_id == 3).tiles == [1, 1, 1, 2] * 64
