"""Pictures of a document: what a person would rather look at than read.

What can be drawn is the format's own knowledge: its ``pictures`` hook (on the
:class:`~savecraft.registry.Format`, imported on first use) lists plain descriptions
the page shows without knowing the format: an ``image`` (one PNG), an ``animation``
(PNG frames and a frame time), a ``map`` (a PNG drawn on request with chosen layers)
or a ``text`` (a script's assembly); and draws one by name. A format without the hook
lists nothing.
"""

from __future__ import annotations

from typing import Any

from ..errors import SavecraftError
from .documents import Document

PNG = "image/png"


def listing(doc: Document) -> list[dict[str, Any]]:
    """What this document can show as pictures, in the order a person looks for it."""
    hook = doc.format.pictures
    if hook is None:
        return []
    with doc.lock:
        return hook().listing(doc.model)  # type: ignore[no-any-return]


def render(doc: Document, name: str, query: dict[str, str]) -> tuple[bytes, str]:
    """The PNG of one listed picture (a map takes ``layers`` and ``scale``, a frame ``frame``)."""
    hook = doc.format.pictures
    if hook is None:
        raise SavecraftError(f"a {doc.format.name} file has no pictures")
    with doc.lock:
        return hook().render(doc.model, name, query), PNG
