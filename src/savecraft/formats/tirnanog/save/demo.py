"""The saved-game part of ``savecraft demo``: one player save and one server save."""

from __future__ import annotations

from pathlib import Path

from .... import api
from . import sample


def write_samples(folder: Path) -> list[Path]:
    player = folder / "player.sav"
    server = folder / "server.sav"
    api.save(sample.player_save(), player)
    api.save(sample.server_save(users=25), server)
    return [player, server]
