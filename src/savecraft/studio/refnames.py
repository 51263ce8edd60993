"""References resolved to names for the tree: a string offset shown with its string, and so on.

Which fields are references is declared by the models themselves (dataclass
field metadata ``ref``: ``string``, ``text``, ``sprite``); turning one into a
name needs the whole file, so a format that has references says how through its
``references`` hook (:class:`~savecraft.registry.Format`). Formats without
references get no names and need nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..registry import Format

Describe = Callable[[str, Any], "str | None"]


def references(fmt: Format, model: Any) -> tuple[Describe | None, tuple[type, ...]]:
    """How to name a reference (``string``/``text``/``sprite``) in this file, and the record
    types that are references as a whole (a sprite: category and index)."""
    if fmt.references is None:
        return None, ()
    return fmt.references(model)
