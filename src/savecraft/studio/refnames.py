"""References resolved to names for the tree: a string offset shown with its string, and so on.

Which fields are references is declared by the models themselves (dataclass
field metadata ``ref``: ``string``, ``text``, ``sprite``); turning one into a
name needs the whole file, so each format that has references says how here.
Formats without references get no names and need nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import FormatError

Describe = Callable[[str, Any], "str | None"]


def describer(format_name: str, model: Any) -> Describe | None:
    """How to name a reference of kind ``string``/``text``/``sprite`` in this file, if it has any."""
    if format_name == "tirnanog-game":
        from ..formats.tirnanog.game.refs import describe

        def name(kind: str, value: Any) -> str | None:
            try:
                return describe(model, kind, value)
            except (FormatError, LookupError, TypeError, ValueError):
                return None
        return name
    return None


def sprite_types() -> tuple[type, ...]:
    """Record types that are references as a whole (a sprite: category and index)."""
    try:
        from ..formats.tirnanog.game.sections.common import SpriteRef
    except ImportError:  # pragma: no cover - the format ships with the package
        return ()
    return (SpriteRef,)
