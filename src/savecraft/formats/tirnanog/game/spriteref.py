"""The sprite reference every section and map stores: a module of its own, below both.

(It lived in ``sections.common``; maps importing it from there ran the sections package's
``__init__``, which imports the maps section, which imports maps: an import circle.)
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True)
class SpriteRef:
    """A sprite: category (section type - 7) and record index in that section."""

    category: int = 0
    index: int = 0xFFFF

    @property
    def is_set(self) -> bool:
        return self.index != 0xFFFF and self.category != 0xFF
