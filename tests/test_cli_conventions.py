"""The command line's conventions: exit statuses, help with defaults and examples, hex, completion."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import pytest

import savecraft
from savecraft import cli, registry
from savecraft.cli import main
from savecraft.formats.qfg5 import sample as qfg5_sample
from savecraft.formats.tirnanog.save import sample as tng_sample


@pytest.fixture()
def qfg5(tmp_path: Path) -> Path:
    p = tmp_path / "q.sav"
    savecraft.save(qfg5_sample.qfg5_save(), p)
    return p


def test_diff_of_one_file_twice_as_a_format_it_is_not_reads_it(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    p = tmp_path / "p.sav"
    savecraft.save(tng_sample.player_save(), p)
    assert main(["diff", str(p), str(p), "--format", "qfg5-save"]) == 1
    assert "expected" in capsys.readouterr().err
    assert main(["diff", str(p), str(p)]) == 0


def test_render_map_statuses(qfg5: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["render-map", str(qfg5), "0", "-o", str(tmp_path / "m.png"), "--scale", "0"])
    assert exc.value.code == 2
    assert "more than 0" in capsys.readouterr().err
    assert main(["render-map", str(qfg5), "0", "-o", str(tmp_path / "m.png")]) == 2
    assert "not a TirNanoG game" in capsys.readouterr().err


def test_offsets_accept_hex(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from savecraft.commands.argtypes import whole

    whole_number = whole(0)
    assert whole_number("0x100") == 256 and whole_number("256") == 256
    with pytest.raises(argparse.ArgumentTypeError):
        whole_number("-1")
    with pytest.raises(argparse.ArgumentTypeError, match="a port is 0 to 65535, not 70000"):
        whole(0, 65535, "a port")("70000")
    code = tmp_path / "code.bin"
    code.write_bytes(b"\xff" * 0x20)
    with pytest.raises(SystemExit) as exc:
        main(["disasm", str(code), "--offset", "zz"])
    assert exc.value.code == 2
    assert main(["disasm", str(code), "--offset", "0x40"]) == 2  # outside the file: usage
    assert "not inside" in capsys.readouterr().err


def _all_parsers() -> dict[str, argparse.ArgumentParser]:
    parser = cli.make_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def test_every_command_help_shows_defaults_and_ends_with_examples() -> None:
    for name, p in _all_parsers().items():
        text = p.format_help()
        tail = text.rstrip().splitlines()
        examples = [ln for ln in tail[tail.index("examples:") + 1:]] if "examples:" in tail else []
        assert 1 <= len(examples) <= 3 and all(e.strip().startswith(("savecraft", "SAVECRAFT_"))
                                               for e in examples), name
        for action in p._actions:
            if action.option_strings and action.default not in (None, False, argparse.SUPPRESS) \
                    and action.nargs != 0 and action.help is not argparse.SUPPRESS:
                shown = p._get_formatter()._expand_help(action) if action.help else ""
                assert "default" in shown, (name, action.option_strings)


def test_format_lists_the_format_names() -> None:
    text = _all_parsers()["info"].format_help()
    for name in registry.names():
        assert name in text


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_scripts_generate(shell: str) -> None:
    out = subprocess.run([sys.executable, "-m", "savecraft", "completion", shell], capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0 and "savecraft" in out.stdout and "_ARGCOMPLETE" in out.stdout


def test_completion_completes_commands_and_options(tmp_path: Path) -> None:
    result = tmp_path / "completions"

    def complete(line: str) -> list[str]:
        env = {**os.environ, "_ARGCOMPLETE": "1", "COMP_LINE": line, "COMP_POINT": str(len(line)),
               "_ARGCOMPLETE_STDOUT_FILENAME": str(result)}
        subprocess.run([sys.executable, "-m", "savecraft"], env=env, timeout=60, check=True)
        return result.read_text().replace("\x0b", " ").split()

    assert complete("savecraft val") == ["validate"]
    assert "--format" in complete("savecraft validate --for")
    assert "qfg5-save" in complete("savecraft info --format qf")


def test_unknown_command_and_bad_option_are_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["nope"], ["info"], ["validate", "--jobs", "0", "x"], ["info", "--format", "nope", "x"]):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code == 2, argv
