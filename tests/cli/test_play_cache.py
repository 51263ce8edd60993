"""``savecraft play``'s asset cache: the default folder is made whole, a named one is not.

A first ``play`` on an account without ``~/.cache/savecraft`` failed with
"cannot write: the folder ~/.cache/savecraft does not exist": the one folder
rule (make what is asked for, never the folders above) was applied to
savecraft's own default cache too.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from savecraft.commands.net import cache_folder
from savecraft.fileio import WriteError, ensure_dir


def test_the_default_cache_is_made_with_its_parents(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    got = cache_folder(None)
    assert got == tmp_path / "home" / ".cache" / "savecraft" / "tirnanog" and got.is_dir()
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_folder(None) == tmp_path / "xdg" / "savecraft" / "tirnanog"
    assert (tmp_path / "xdg" / "savecraft" / "tirnanog").is_dir()


def test_a_named_cache_still_follows_the_one_folder_rule(tmp_path: Path) -> None:
    named = tmp_path / "missing" / "cache"
    assert cache_folder(str(named)) == named and not named.exists()  # made when a bundle is kept
    with pytest.raises(WriteError, match="does not exist"):
        ensure_dir(named)
