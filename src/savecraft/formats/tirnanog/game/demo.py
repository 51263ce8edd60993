"""The game-file part of ``savecraft demo``: the sample game."""

from __future__ import annotations

from pathlib import Path

from ....fileio import atomic_write
from .sample import build_sample_game


def write_samples(folder: Path) -> list[Path]:
    path = folder / "sample.tng"
    atomic_write(path, build_sample_game())
    return [path]
