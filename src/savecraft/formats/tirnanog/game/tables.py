"""The tables a TirNanoG game file (``.tng``) offers (``savecraft sql``, ``export``; docs/tables.md).

``tng_games``: one row per file, the header and how much of each kind the
game holds. ``tng_sections``: one per section, with its number of records
(the same counts ``savecraft sections`` prints). Assets are counted from
their stored lengths: nothing is inflated.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ....errors import FormatError
from ....tables.schema import Table, col
from .model import Game


def game(g: Game) -> str | None:
    return g.header.game_id or None


def _title(g: Game) -> str | None:
    try:
        return g.title or None
    except FormatError:
        return None


def _records(s: Any) -> int | None:
    from .info import _LISTS

    for attr in _LISTS:
        v = getattr(s, attr, None)
        if isinstance(v, list):
            return len(v)
    return None


def _game(g: Game) -> Iterator[tuple[Any, ...]]:
    from .header import game_type_name

    h = g.header
    maps = g.maps
    assets = list(g.assets())
    yield (h.game_id, _title(g), h.revision, game_type_name(h.game_type), len(g.sections),
           len(maps.maps) if maps is not None and isinstance(getattr(maps, "maps", None), list) else 0,
           len(assets), sum(a.length for a in assets), len(g.translations), h.encrypted)


def _sections(g: Game) -> Iterator[tuple[Any, ...]]:
    from .sections import section_name

    for i, s in enumerate(g.sections):
        t = int(s.TYPE)
        yield (i, t, section_name(t), _records(s))


GAMES = Table("tng_games", "tirnanog-game", "one per file", (
    col("game_id", "string", "header.game_id"),
    col("title", "string", "translations[0].title", "null when the game has no translation"),
    col("revision", "int64", "header.revision"),
    col("game_type", "string", "header.game_type", "its name (top-down, isometric, ...)"),
    col("sections", "int64", "sections"),
    col("maps", "int64", "maps.maps"),
    col("assets", "int64", "(sections)", "assets of every kind"),
    col("asset_bytes", "int64", "(sections)", "their stored bytes"),
    col("languages", "int64", "translations"),
    col("encrypted", "bool", "header.encrypted"),
), _game)

SECTIONS = Table("tng_sections", "tirnanog-game", "one per section", (
    col("section", "int64", "sections[N]"),
    col("type", "int64", "sections[N].TYPE"),
    col("name", "string", "sections[N]", "the section's name in the format's docs"),
    col("records", "int64", "sections[N]", "its records (maps, sprites, scripts, ...)"),
), _sections)

TABLES = (GAMES, SECTIONS)
