"""Pausing the garbage collector while a big model is built.

Decoding a large file allocates hundreds of thousands of small objects, none
of them garbage; the collector's generation-0 passes over them roughly double
the time. Pausing it for the duration of a bulk decode (and restoring the
caller's setting after) is the cheapest large speed-up there is.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

_depth = 0


@contextmanager
def gc_paused() -> Iterator[None]:
    """Reentrant: only the outermost use switches the collector back on."""
    global _depth
    was_enabled = gc.isenabled()
    _depth += 1
    gc.disable()
    try:
        yield
    finally:
        _depth -= 1
        if _depth == 0 and was_enabled:
            gc.enable()
