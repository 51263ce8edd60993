"""The summary ``savecraft info`` prints for a game: header fields, sections, counts, titles."""

from __future__ import annotations

from typing import Any

from ....errors import FormatError
from .model import Game
from .sections import section_name


def summary(game: Game) -> dict[str, Any]:
    out: dict[str, Any] = dict(game.header.summary())
    try:
        out["title"] = game.title
    except FormatError as err:
        out["title"] = f"(unreadable: {err})"
    out["languages"] = [t.language for t in game.translations]
    counts: dict[str, int] = {}
    for s in game.sections:
        name = section_name(int(s.TYPE))
        counts[name] = counts.get(name, 0) + 1
    out["sections"] = counts
    entries = {}
    for s in game.sections:
        for attr in ("entries", "sprites", "npcs", "objects", "maps", "quests", "dialogs", "spawners", "groups",
                     "attributes", "scripts", "actions", "tiles", "slots", "alerts", "strings"):
            v = getattr(s, attr, None)
            if isinstance(v, list):
                entries[f"{section_name(int(s.TYPE))}"] = len(v)
                break
    out["records"] = entries
    if game.source is not None:
        out["file size"] = len(game.source)
        start, end = game.asset_bundle_range()
        out["asset bundle"] = f"bytes {start} to {end} ({end - start} bytes)"
    return out
