"""The Quest for Glory 5 part of ``savecraft demo``: a generated savegame."""

from __future__ import annotations

from pathlib import Path

from ... import api
from . import sample


def write_samples(folder: Path) -> list[Path]:
    path = folder / "qfg5.sav"
    api.save(sample.qfg5_save(), path)
    return [path]
