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
    out["sections"] = [_line(s) for s in game.sections]
    kinds: dict[str, list[int]] = {}
    for a in game.assets():
        k = kinds.setdefault(a.WHAT, [0, 0])
        k[0] += 1
        k[1] += a.length  # as stored in the file; nothing is read
    out["assets"] = [f"{what}: {n} ({size} bytes)" for what, (n, size) in kinds.items()]
    if game.source is not None:
        out["file size"] = len(game.source)
        start, end = game.asset_bundle_range()
        out["asset bundle"] = f"bytes {start} to {end} ({end - start} bytes)"
    return out


_LISTS = ("entries", "sprites", "npcs", "objects", "maps", "quests", "dialogs", "spawners", "groups",
          "attributes", "scripts", "actions", "tiles", "slots", "alerts", "strings", "speech", "categories",
          "progress_bars")


_WORDS = {"entries": "records", "progress_bars": "progress bars", "groups": "option groups"}


def _line(s: Any) -> str:
    """One section as ``type name: n records``."""
    t = int(s.TYPE)
    name = section_name(t)
    if getattr(s, "KIND", "") == "opaque":
        return f"{t} {name}: {len(s.data)} bytes kept as they are"
    if getattr(s, "KIND", "") == "translation":
        return f"{t} {name}: {s.language}, {len(s.speech)} speech assets"
    for attr in _LISTS:
        v = getattr(s, attr, None)
        if isinstance(v, list):
            return f"{t} {name}: {len(v)} {_WORDS.get(attr, attr)}"
    return f"{t} {name}"
