"""Writes are atomic and keep a backup when asked."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from savecraft.fileio import atomic_write


def test_atomic_write_and_backup(tmp_path: Path) -> None:
    p = tmp_path / "f.sav"
    assert atomic_write(p, b"one") == p
    os.chmod(p, 0o600)
    bak = atomic_write(p, b"two", backup=True)
    assert bak == tmp_path / "f.sav.bak"
    assert p.read_bytes() == b"two" and bak.read_bytes() == b"one"
    assert (p.stat().st_mode & 0o777) == 0o600
    assert sorted(x.name for x in tmp_path.iterdir()) == ["f.sav", "f.sav.bak"]


def test_failed_write_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    p = tmp_path / "f.sav"
    p.write_bytes(b"old")

    with pytest.raises(TypeError):
        atomic_write(p, 12345)  # type: ignore[arg-type]
    assert p.read_bytes() == b"old"
    assert [x.name for x in tmp_path.iterdir()] == ["f.sav"]
