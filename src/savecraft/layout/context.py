"""What a layout may depend on beyond its own bytes, and how it says it cannot apply.

Many formats store a size once and use it later: Angband's object memory
block says how many flag bytes every object record holds; a save's header
gives a version that decides which fields follow. A :class:`Context` carries
such values from the layout that read them to the layouts that need them,
in file order, for reading and writing alike.
"""

from __future__ import annotations

from dataclasses import dataclass, field


class LayoutError(Exception):
    """A layout cannot apply: a value it depends on is unknown. Not a file error.

    A caller that tries layouts in turn (which game wrote this block?) takes it
    as "not this one" and keeps the bytes raw with the reason.
    """


class NotCanonical(LayoutError):
    """A layout met bytes its writer would not write back the same way.

    A flag byte of 2 where the writer writes 1: the game reads it, but a
    rebuild would change the file, so the decode is refused and the bytes are
    kept as they are (with this reason) instead of being silently normalised.
    """


@dataclass(slots=True)
class Context:
    """Named values earlier layouts stored for later ones.

    ``values`` maps a name (``of_size``, ``levels_persist``...) to the number
    read; ``source`` says which layout set it, for messages.
    """

    values: dict[str, int] = field(default_factory=dict)
    source: dict[str, str] = field(default_factory=dict)

    def set(self, name: str, value: int, block: str) -> None:
        self.values[name] = value
        self.source[name] = block

    def need(self, name: str, block: str) -> int:
        try:
            return self.values[name]
        except KeyError:
            raise LayoutError(f"{name}, which the game takes from the {block!r} block "
                              "(missing or not decoded)") from None
