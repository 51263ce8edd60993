"""A TirNanoG save's pictures for the studio: its preview (the format's ``pictures`` hook)."""

from __future__ import annotations

from typing import Any

from ....errors import SavecraftError
from .preview import to_png


def listing(save: Any) -> list[dict[str, Any]]:
    if getattr(save, "preview", None) is None:
        return []
    return [{"name": "preview", "kind": "image", "title": "Save preview (256 x 256)",
             "path": "preview.image"}]


def render(save: Any, name: str, query: dict[str, str]) -> bytes:
    if name != "preview":
        raise SavecraftError(f"no picture {name!r}")
    if save.preview is None:
        raise SavecraftError("this save has no preview")
    return to_png(save.preview)
