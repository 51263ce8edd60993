"""An Angband save's pictures for the studio: the dungeon level it stores (the format's
``pictures`` hook), drawn by the same code as ``savecraft render-map``."""

from __future__ import annotations

from typing import Any

from ...errors import SavecraftError
from . import mapview


def listing(save: Any) -> list[dict[str, Any]]:
    """The dungeon level the save stores, as stored and as the character knows it."""
    out: list[dict[str, Any]] = []
    for known, name, what in ((False, "level", "as stored"), (True, "level-known", "as the character knows it")):
        try:
            level = mapview.level_map(save, known=known)
        except SavecraftError:
            continue
        out.append({"name": name, "kind": "map", "title": f"dungeon level {level.depth}, {what}",
                    "layers": [{"id": i, "name": n} for i, n in enumerate(mapview.LAYERS)],
                    "width": level.width * mapview.CELL, "height": level.height * mapview.CELL,
                    "path": "blocks[name=dungeon]"})
    return out


def render(save: Any, name: str, query: dict[str, str]) -> bytes:
    """The PNG of the level as stored (``level``) or as the character knows it (``level-known``),
    with the ``layers`` asked for."""
    if name not in ("level", "level-known"):
        raise SavecraftError(f"no picture {name!r}")
    layers = None
    if "layers" in query:
        layers = {int(x) for x in query["layers"].split(",") if x.strip().isdigit()}
    return mapview.to_png(mapview.level_map(save, known=name == "level-known", layers=layers))
