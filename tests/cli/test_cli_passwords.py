"""Passwords for play and loadtest: a file, the environment, the argument, a prompt, the default."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from savecraft import passwords
from savecraft.errors import SavecraftError


def ns(**kw: object) -> argparse.Namespace:
    return argparse.Namespace(**{"password": None, "password_file": None, **kw})


def test_file_then_environment_then_argument_then_default(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(passwords.ENV, raising=False)
    monkeypatch.setattr("sys.stdin.isatty", lambda: False)
    f = tmp_path / "pw"
    f.write_text("harp\nsecond line\n")
    assert passwords.resolve(ns(password_file=str(f), password="x"), "d") == "harp"
    monkeypatch.setenv(passwords.ENV, "flute")
    assert passwords.resolve(ns(password="x"), "d") == "flute"
    monkeypatch.delenv(passwords.ENV)
    assert passwords.resolve(ns(password="x"), "d") == "x"
    assert passwords.resolve(ns(), "d") == "d"
    with pytest.raises(SavecraftError, match="no password"):
        passwords.resolve(ns(), None)


def test_a_prompt_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(passwords.ENV, raising=False)
    monkeypatch.setattr("sys.stdin.isatty", lambda: True)
    monkeypatch.setattr("getpass.getpass", lambda prompt: "typed")
    assert passwords.resolve(ns(), "d") == "typed"


def test_unreadable_or_empty_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(SavecraftError, match="cannot read"):
        passwords.resolve(ns(password_file=str(tmp_path / "none")), "d")
    (tmp_path / "empty").write_text("\n")
    with pytest.raises(SavecraftError, match="empty"):
        passwords.resolve(ns(password_file=str(tmp_path / "empty")), "d")
