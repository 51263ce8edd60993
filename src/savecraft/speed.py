"""Pausing the garbage collector while a big model is built.

Decoding a large file allocates hundreds of thousands of small objects, none
of them garbage; the collector's generation-0 passes over them roughly double
the time. Pausing it for the duration of a bulk decode (and restoring the
caller's setting after) is the cheapest large speed-up there is.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager

_depth = 0


@contextmanager
def gc_paused(keep: bool | Callable[[], bool] = False) -> Iterator[None]:
    """Reentrant: only the outermost use switches the collector back on.

    ``keep``: what is built inside outlives the call (a decoded model). The
    collector's next young collection would still traverse every one of those
    objects, only to find them alive (a quarter of a full Angband decode). So
    the young generations are collected first, and on the way out what was
    built goes straight to the oldest generation (``gc.freeze`` then
    ``gc.unfreeze``; skipped when the program froze objects of its own).
    A callable ``keep`` is asked on the way out: garbage in reference cycles
    (a caught exception's traceback) must not go there, where only the rare
    full collection would find it, so a decode that met problems says no.
    """
    global _depth
    was_enabled = gc.isenabled()
    if keep and was_enabled and _depth == 0:
        gc.collect(1)
    _depth += 1
    gc.disable()
    try:
        yield
    finally:
        _depth -= 1
        if _depth == 0 and was_enabled:
            if (keep() if callable(keep) else keep) and gc.get_freeze_count() == 0:
                gc.freeze()
                gc.unfreeze()
            gc.enable()
