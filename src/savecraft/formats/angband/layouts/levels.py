"""The run-length encoded level maps every Angband variant stores the same way.

A level's square info layers and terrain are (count, byte) pairs; the model
keeps the pairs as the game wrote them (an equivalent re-encoding would not be
the same bytes), checked to cover the level exactly once. Kept apart from the
Vanilla 4.2 world layouts so that the other variants' level blocks use them
without importing those.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ....binary import Reader
from ....compiled import active
from ....errors import FormatError
from ....lazy import lazy_module

if TYPE_CHECKING:
    import numpy as np
else:  # only a level map read without the C walk needs it, not a small file's start-up
    np = lazy_module("numpy")

# The C walk over the pairs (savecraft._native.rle), or None: numpy's cumsum does it.
# ``rle_cover(data, pos, end, cells[, stride])``: PWMAngband's terrain runs use it too.
rle_cover: Callable[..., int] | None = None
if active("rle"):
    from ...._native.rle import rle_cover


def read_rle(r: Reader, cells: int, name: str) -> bytes:
    """The (count, byte) pairs that fill ``cells`` squares, as stored."""
    if rle_cover is not None:
        covering = rle_cover(r.data, r.pos, r.end, cells)
        if covering >= 0:
            return r.bytes(2 * covering, name)
    avail = r.remaining // 2
    pairs = np.frombuffer(r.data, np.uint8, count=2 * avail, offset=r.pos) if avail else \
        np.zeros(0, np.uint8)
    if cells == 0:
        return b""
    done = np.cumsum(pairs[0::2], dtype=np.int64)
    k = int(np.searchsorted(done, cells))
    if k >= len(done):
        r.fail(name, f"run-length pairs covering {cells} squares",
               f"{int(done[-1]) if len(done) else 0} squares before the end of the block")
    return r.bytes(2 * (k + 1), name)


def check_rle(runs: bytes, cells: int, path: str) -> None:
    if rle_cover is not None and isinstance(runs, bytes) and len(runs) % 2 == 0 \
            and rle_cover(runs, 0, len(runs), cells) == len(runs) // 2:
        return  # the pairs reach `cells` squares exactly with the last one
    counts = runs[0::2]
    total = sum(counts)
    if len(runs) % 2 or total < cells or (counts and total - counts[-1] >= cells):
        raise FormatError(None, path, f"(count, byte) pairs covering exactly {cells} squares",
                          f"{len(runs)} bytes covering {total}")
