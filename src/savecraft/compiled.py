"""The optional C extension (``savecraft._speedups``), or None where it is absent.

pip compiles it when a compiler is at hand; without one savecraft runs its
pure Python/numpy paths, with the same results, only slower. ``SAVECRAFT_PURE=1``
asks for those paths even where it was built (the tests run both and compare).
Every user of the extension imports it from here, so that rule lives in one place.
"""

from __future__ import annotations

import os
from types import ModuleType

# The interface version this code was written against (SPEEDUPS_VERSION in _speedups.c).
VERSION = 2

speedups: ModuleType | None
_status: str
if os.environ.get("SAVECRAFT_PURE"):
    speedups = None
    _status = "off (SAVECRAFT_PURE is set): pure Python paths"
else:
    try:
        from . import _speedups as speedups
    except ImportError:  # no compiler where it was installed
        speedups = None
        _status = "not built (no C compiler at install): pure Python paths"
    else:
        found = getattr(speedups, "VERSION", None)
        if found != VERSION:  # a build left from an older checkout: use none of it
            speedups = None
            _status = (f"a stale build (interface {found}, this savecraft needs {VERSION}): pure Python "
                       "paths until it is rebuilt (pip install -e . again)")
        else:
            _status = (f"active (interface {VERSION}): object and record lists, RLE, checksums, "
                       "datagram batches")


def status() -> str:
    """Which accelerated paths run, in words (``savecraft --version`` prints it)."""
    return _status


__all__ = ["speedups", "status", "VERSION"]
