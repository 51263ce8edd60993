"""How :mod:`savecraft.spans` records a TirNanoG game: each stored asset is a unit.

A lazy recording reads the header, the section table and the sections; an
asset (a map, a sprite sheet, a translation's texts) is read, inflated and
recorded when a query first reaches it, so a 1 GiB game opened from an
``mmap`` is read only where it is looked at. An asset's fields are recorded
directly under its path and shown under ``.value`` (``holds_value``).
"""

from __future__ import annotations

from typing import Any

from ....binary import stream_space
from ....errors import Report
from ....spans import FILE, Adapter, Unit
from .assets import Asset, Source
from .container import read_game
from .model import Game
from .sections.common import iter_values


def _parse(data: bytes, report: Report, lazy: bool) -> Game:
    # The whole-file CRC reads every byte: only when recording everything (not lazy).
    return read_game(Source(data), report, verify_file_crc=not lazy)


def _units(game: Game, data: bytes) -> list[Unit]:
    out = []
    seen: set[int] = set()
    model_paths: dict[int, str] = {}  # each asset's path in the model, as the tree names it
    for i, section in enumerate(game.sections):
        for where, asset in iter_values(section, Asset, f"sections[{i}]"):
            model_paths.setdefault(id(asset), where)
    for a in game.assets():
        if id(a) in seen or a._src is None or a.file_offset < 0 or not a.length:
            continue
        seen.add(id(a))

        def expand(a: Any = a) -> Any:
            if not a.COMPRESSED:
                return None  # a media file stored as is (never read here): its bytes are its span
            content, _ = a._read_content()
            with stream_space(a.path, content, (a.file_offset, a.length)):
                return a.decode(content, 0, a._ctx)
        out.append(Unit(a.path, FILE, a.file_offset, a.length, expand,
                        alias=model_paths.get(id(a), ""), holds_value=True))
    return out


def adapter() -> Adapter:
    """The game's span hook (``Format.spans``): assets as units; sections named through the model."""
    return Adapter(_parse, _units)
