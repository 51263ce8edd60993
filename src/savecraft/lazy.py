"""The one place where savecraft defers an import: modules imported on first use, for start-up time.

A command's start-up is most of its time on a small file: ``savecraft validate``
of a 1 KB save must not pay for numpy, rich, the network stack or another
format's plugin, and ``--help`` imports every command module to list its
options. So a module that needs something heavy on some of its paths only
declares it at its top, as its other imports are, and this module imports it
when the code first reads one of its attributes::

    if TYPE_CHECKING:
        import numpy as np
        from ..net import server
    else:  # imported on first use (savecraft.lazy): start-up
        np = lazy_module("numpy")
        server = lazy_module("savecraft.net.server")

The ``TYPE_CHECKING`` branch gives mypy (and a reader) the real imports; the
other binds a stand-in. Its first attribute read (``server.run``) imports the
module and puts it in the place of the stand-in in the declaring module's
globals, so later reads cost what a plain import's do. Nothing is imported
before that, not even the module's parent package (a format's plugin
``__init__`` can be heavy). tests/core/test_import_graph.py counts these
declarations as imports (no circles, theirs included) and holds the few
imports still written inside functions at a documented list.
"""

from __future__ import annotations

import importlib
import sys
from types import ModuleType
from typing import Any


class _Deferred(ModuleType):
    """Stands for a module not imported yet: reading any attribute imports it."""

    def __getattr__(self, attr: str) -> Any:  # (called only for names the stand-in lacks)
        real = importlib.import_module(self.__name__)  # the import system's lock: thread-safe
        namespace: dict[str, Any] | None = self.__dict__.get("_lazy_namespace")
        if namespace is not None:
            for key, value in list(namespace.items()):
                if value is self:
                    namespace[key] = real  # later reads in the declaring module go straight to it
        return getattr(real, attr)


def lazy_module(name: str) -> ModuleType:
    """The module ``name`` if already imported, else a stand-in that imports it on first use.

    Call it at module level: the stand-in replaces itself with the module in the
    caller's globals once used. Holders elsewhere keep a working stand-in.
    """
    if name in sys.modules:
        return sys.modules[name]
    stand_in = _Deferred(name)
    stand_in.__dict__["_lazy_namespace"] = sys._getframe(1).f_globals
    return stand_in
