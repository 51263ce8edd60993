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
        assert 2 <= len(examples) <= 3 and all(e.strip().startswith(("savecraft", "SAVECRAFT_"))
                                               for e in examples), name
        for action in p._actions:
            # Every option that takes a value and may be left out says what happens then: a
            # default of 0 too, and an option whose absence means something (None).
            if action.option_strings and action.nargs != 0 and not action.required \
                    and action.help is not argparse.SUPPRESS:
                shown = p._get_formatter()._expand_help(action) if action.help else ""
                assert "default" in shown, (name, action.option_strings)


def test_every_example_is_a_command_line_the_parser_accepts(capsys: pytest.CaptureFixture[str]) -> None:
    import shlex

    for name, examples in cli.EXAMPLES.items():
        for example in examples:
            words = shlex.split(example, comments=True)
            while words and "=" in words[0]:  # SAVECRAFT_PASSWORD=... savecraft ...
                words.pop(0)
            end = next((i for i, w in enumerate(words) if w in ("|", ">", ">>")), len(words))
            argv = words[1:end]
            assert words[0] == "savecraft" and argv[0] == name, example
            try:
                cli.make_parser(argv[0]).parse_args(argv)
            except SystemExit:
                pytest.fail(f"{example}: {capsys.readouterr().err.strip()}")


def test_a_default_of_zero_is_shown() -> None:
    text = _all_parsers()["hexdump"].format_help()
    assert "default: 0)" in " ".join(text.split())
    text = _all_parsers()["serve"].format_help()
    assert "(default: 0, none)" in " ".join(text.split())


def test_every_format_option_lists_the_format_names(capsys: pytest.CaptureFixture[str]) -> None:
    with_format = {name: p for name, p in _all_parsers().items()
                   if any("--format" in a.option_strings for a in p._actions)}
    assert {"info", "validate", "dump", "extract", "edit", "diff", "hexdump"} <= set(with_format)
    for name, p in with_format.items():
        text = " ".join(p.format_help().split())
        for fmt in registry.names():
            assert fmt in text, (name, fmt)
    for argv in (["diff", "a", "b", "--format", "nope"], ["edit", "a", "--format", "nope"],
                 ["hexdump", "a", "--format", "nope"]):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code == 2 and "invalid choice: 'nope'" in capsys.readouterr().err, argv


def test_edit_takes_integers_in_hex_as_info_prints_them(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from savecraft.formats.tirnanog.game.sample import build_sample_game

    game = tmp_path / "g.tng"
    game.write_bytes(build_sample_game())
    assert main(["info", str(game)]) == 0
    shown = next(ln for ln in capsys.readouterr().out.splitlines() if "unique id:" in ln).split()[-1]
    assert shown.startswith("0x")
    new = hex(int(shown, 16) + 1)
    assert main(["edit", str(game), "--set", f"header.unique_id={new}", "--no-backup"]) == 0
    assert savecraft.load(game).header.unique_id == int(new, 16)
    assert main(["edit", str(game), "--set", "header.game_id=0x10", "--no-backup"]) == 0  # text stays text
    assert savecraft.load(game).header.game_id == "0x10"


@pytest.mark.parametrize("argv", [["sections", "{f}"], ["refs", "{f}"], ["render-map", "{f}", "0", "-o", "{out}"],
                                  ["disasm", "{code}", "--game", "{f}"], ["asm", "{asm}", "-o", "{out}", "--game", "{f}"]])
def test_game_commands_on_a_file_that_is_no_game_say_what_it_is(argv: list[str], qfg5: Path, tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    code = tmp_path / "code.bin"
    code.write_bytes(b"\x00")
    asm = tmp_path / "a.asm"
    asm.write_text("END\n")
    text = tmp_path / "notes.txt"
    text.write_text("not a game at all\n")
    for f, what in ((qfg5, "is a qfg5-save file"), (text, "is in no format savecraft knows")):
        args = [a.format(f=f, out=tmp_path / "out.bin", code=code, asm=asm) for a in argv]
        assert main(args) == 2, args
        err = capsys.readouterr().err
        assert f"{f} {what}" in err and "not a TirNanoG game" in err, err
    assert main([a.format(f=tmp_path / "missing.tng", out=tmp_path / "o", code=code, asm=asm) for a in argv]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_admin_exit_statuses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                             capsys: pytest.CaptureFixture[str]) -> None:
    import socket

    with socket.socket() as s:  # a loopback port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    assert main(["admin", f"127.0.0.1:{port}", "status", "--timeout", "5"]) == 2  # no server: unusable
    err = capsys.readouterr().err
    assert f"127.0.0.1:{port} status: 127.0.0.1:{port}:" in err and " 0: " not in err
    from savecraft.net.admin_client import AdminClient, AdminRequestError

    def refuse(self: AdminClient, request: str, **params: str) -> dict[str, str]:
        raise AdminRequestError(404, "no user named 'Nobody'")
    monkeypatch.setattr(AdminClient, "request", refuse)
    assert main(["admin", f"127.0.0.1:{port}", "kick", "name=Nobody"]) == 1  # the server refused
    assert "the server refused: 404: no user named 'Nobody'" in capsys.readouterr().err


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


def test_every_whole_number_option_takes_hex_and_states_its_range(capsys: pytest.CaptureFixture[str]) -> None:
    """``play --steps`` and three loadtest counts were plain ``int``: no hex, a bare traceback-like message."""
    parser = cli.make_parser()
    args = parser.parse_args(["loadtest", "127.0.0.1", "--clients", "0x10", "--rate", "1", "--duration", "1",
                              "--processes", "2", "--server-pid", "0x1F"])
    assert (args.clients, args.processes, args.server_pid) == (16, 2, 31)
    assert parser.parse_args(["play", "127.0.0.1", "--steps", "0x3"]).steps == 3
    with pytest.raises(SystemExit) as exit_:
        parser.parse_args(["loadtest", "127.0.0.1", "--clients", "0", "--rate", "1", "--duration", "1"])
    assert exit_.value.code == 2
    assert "the number of clients is 1 to 1000000, not 0" in capsys.readouterr().err
