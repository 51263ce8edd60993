"""Pausing the garbage collector while a big model is built.

Decoding a large file allocates hundreds of thousands of small objects, none
of them garbage; the collector's generation-0 passes over them roughly double
the time. Pausing it for the duration of a bulk decode (and restoring the
caller's setting after) is the cheapest large speed-up there is.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

# The collector is one per process, and threads pause it too (the studio parses a file while
# another thread validates it): how many uses are open, and whether the collector was on when
# the first of them began, are the process's, kept under one lock.
_lock = threading.Lock()
_depth = 0
_was_enabled = False


@contextmanager
def gc_paused(keep: bool | Callable[[], bool] = False) -> Iterator[None]:
    """Reentrant, across threads too: the last use to end switches the collector back on
    when it was on as the first began (a use ending while another thread's is open leaves it
    off, and one beginning inside another's must not take "off" for the caller's setting).

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
    global _depth, _was_enabled
    with _lock:
        if _depth == 0:
            _was_enabled = gc.isenabled()
            if keep and _was_enabled:
                gc.collect(1)
        _depth += 1
        gc.disable()
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _was_enabled:
                if (keep() if callable(keep) else keep) and gc.get_freeze_count() == 0:
                    gc.freeze()
                    gc.unfreeze()
                gc.enable()
