"""Colour and progress rules: --color=auto|always|never, NO_COLOR, plain text when piped."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import savecraft
from savecraft import console
from savecraft.cli import main
from savecraft.formats.qfg5 import sample as qfg5_sample
from savecraft.formats.tirnanog.save.sample import server_save

ESC = "\x1b["


@pytest.fixture(autouse=True)
def _reset() -> object:
    yield
    console.configure()


@pytest.fixture()
def pair(tmp_path: Path) -> tuple[Path, Path]:
    a, b = tmp_path / "a.sav", tmp_path / "b.sav"
    save = qfg5_sample.qfg5_save()
    savecraft.save(save, a)
    save.current_room += 1
    save.belt.items[0] = 101001
    savecraft.save(save, b)
    return a, b


def test_diff_is_coloured_like_git_only_when_asked_or_on_a_terminal(
        pair: tuple[Path, Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    a, b = map(str, pair)
    assert main(["diff", a, b]) == 1
    plain = capsys.readouterr().out
    assert ESC not in plain
    assert main(["diff", "--color=always", a, b]) == 1
    coloured = capsys.readouterr().out
    assert f"{ESC}1m--- {a}" in coloured and f"{ESC}1m+++ {b}" in coloured
    assert f"{ESC}31m" in coloured and f"{ESC}32m" in coloured  # old red, new green
    monkeypatch.setattr(console, "_isatty", lambda stream: True)  # as on a terminal
    assert main(["diff", a, b]) == 1
    assert ESC in capsys.readouterr().out
    monkeypatch.setenv("NO_COLOR", "1")
    assert main(["diff", a, b]) == 1
    assert ESC not in capsys.readouterr().out
    assert main(["--color", "always", "diff", a, b]) == 1  # the option before the command works too
    assert ESC in capsys.readouterr().out
    assert main(["diff", "--color=never", a, b]) == 1
    assert ESC not in capsys.readouterr().out


def test_validate_colours_problems_by_severity(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.sav"
    path.write_bytes(savecraft.build(qfg5_sample.qfg5_save())[:-2])
    assert main(["validate", "--color=always", str(path)]) == 1
    out = capsys.readouterr().out
    assert f"{ESC}1;31m" in out  # errors bold red
    assert main(["validate", str(path)]) == 1
    assert ESC not in capsys.readouterr().out


def test_info_is_a_table_on_a_terminal(pair: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["info", "--color=always", str(pair[0])]) == 0
    out = capsys.readouterr().out
    assert ESC in out and "current room" in out and "510" in out
    assert main(["info", str(pair[0])]) == 0
    out = capsys.readouterr().out
    assert ESC not in out and "  current room: 510" in out


def test_piped_output_is_plain_and_shows_no_progress(pair: tuple[Path, Path]) -> None:
    for argv in (["diff", *map(str, pair)], ["info", str(pair[0])], ["validate", *map(str, pair)]):
        out = subprocess.run([sys.executable, "-m", "savecraft", *argv], capture_output=True, text=True,
                             timeout=60)
        assert ESC not in out.stdout and ESC not in out.stderr, argv


def test_progress_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(console, "_isatty", lambda stream: False)
    assert not console.show_progress()
    monkeypatch.setattr(console, "_isatty", lambda stream: True)
    assert console.show_progress()
    console.configure(quiet=True)
    assert not console.show_progress()
    with console.progress("x", 3) as advance:  # off: a no-op that costs nothing
        advance(1)


def test_progress_draws_on_a_terminal_after_half_a_second(monkeypatch: pytest.MonkeyPatch) -> None:
    import io
    import time

    monkeypatch.setattr(console, "_isatty", lambda stream: True)
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    with console.progress("validating", 4) as advance:
        advance(1)
        time.sleep(0.6)
        advance(1)
        advance(2)
    assert "validating" in err.getvalue()


def test_bad_color_value_is_a_usage_error(pair: tuple[Path, Path]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["info", "--color=sometimes", str(pair[0])])
    assert exc.value.code == 2


def test_a_large_input_shows_a_spinner_only_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    monkeypatch.setattr(console, "_isatty", lambda stream: False)
    with console.busy("reading big.sav", 1 << 30):
        pass
    assert err.getvalue() == ""
    monkeypatch.setattr(console, "_isatty", lambda stream: True)
    with console.busy("reading small.sav", 10):
        pass
    assert err.getvalue() == ""
    with console.busy("reading big.sav", 1 << 30):
        pass
    assert "reading big.sav (1,024 MiB)" in err.getvalue()


def test_build_dir_of_a_large_folder_shows_a_spinner(monkeypatch: pytest.MonkeyPatch,
                                                     tmp_path: Path) -> None:
    """``build DIR`` of a big game reads thousands of files with no feedback. Extract shows none
    of its own: a game's extract draws a bar, and rich allows one live display at a time."""
    from collections.abc import Iterator
    from contextlib import contextmanager

    from savecraft.commands import files

    shown: list[tuple[str, int, int]] = []

    @contextmanager
    def busy(text: str, size: int, from_bytes: int = console.BUSY_FROM) -> Iterator[None]:
        shown.append((text, size, from_bytes))
        yield

    monkeypatch.setattr(console, "busy", busy)
    src = tmp_path / "world.sav"
    src.write_bytes(savecraft.build(server_save(users=3)))
    assert main(["extract", str(src), "-o", str(tmp_path / "x")]) == 0
    assert main(["build", str(tmp_path / "x"), "-o", str(tmp_path / "again.sav")]) == 0
    texts = [t for t, _, _ in shown]
    assert f"building from {tmp_path / 'x'}" in texts and not any(t.startswith("extracting") for t in texts)
    assert all(f == files.BUILD_DIR_BUSY_FROM for t, _, f in shown if not t.startswith("reading"))
    assert (tmp_path / "again.sav").read_bytes() == src.read_bytes()
