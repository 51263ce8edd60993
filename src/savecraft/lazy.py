"""Modules imported on first use, for start-up time.

A command's start-up is most of its time on a small file, and a codec's
import pulls in what only some of its paths use (numpy for map tiles, which
a player save seldom has). :func:`lazy_module` gives the module object at
once and runs its code when an attribute is first read (the standard
library's ``importlib.util.LazyLoader``), so ``rle.decode(...)`` keeps
working everywhere while the import costs nothing until then.

Use it as::

    if TYPE_CHECKING:
        from .. import rle
    else:
        rle = lazy_module("savecraft.formats.tirnanog.rle")
"""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType


def lazy_module(name: str) -> ModuleType:
    """The module ``name``, its code run on the first attribute read (at once if already imported)."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        raise ImportError(f"no module named {name!r}", name=name)
    loader = importlib.util.LazyLoader(spec.loader)
    spec.loader = loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    loader.exec_module(module)
    return module
