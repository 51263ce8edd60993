"""The optional C extension (``savecraft._speedups``), or None where it is absent.

pip compiles it when a compiler is at hand; without one savecraft runs its
pure Python/numpy paths, with the same results, only slower. ``SAVECRAFT_PURE=1``
asks for those paths even where it was built (the tests run both and compare).
Every user of the extension imports it from here, so that rule lives in one place.
"""

from __future__ import annotations

import os
from types import ModuleType

speedups: ModuleType | None
if os.environ.get("SAVECRAFT_PURE"):
    speedups = None
else:
    try:
        from . import _speedups as speedups
    except ImportError:  # no compiler where it was installed
        speedups = None

__all__ = ["speedups"]
