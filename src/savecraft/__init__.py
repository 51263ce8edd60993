"""savecraft: open, inspect, validate, edit and rewrite game files, byte for byte.

>>> import savecraft
>>> game = savecraft.load("player.sav")        # format found from the content
>>> savecraft.save(game, "player-copy.sav")    # atomic; unchanged -> same bytes
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .errors import FormatError, Problem, Report, SavecraftError, UnsupportedFormatError

if TYPE_CHECKING:
    from .api import Validation, build, load, parse, save, validate
    from .jsonmap import dumps, from_json, loads, to_json
    from .registry import Format, detect
    from .registry import formats as available_formats

__version__ = "0.1.0"

# The rest of the front door is imported on first use: the command line
# imports this package too, and must not pay for the JSON mapping (orjson)
# or the API when it runs a command that needs neither.
_LAZY = {
    "Validation": ("api", "Validation"), "build": ("api", "build"), "load": ("api", "load"),
    "parse": ("api", "parse"), "save": ("api", "save"), "validate": ("api", "validate"),
    "dumps": ("jsonmap", "dumps"), "from_json": ("jsonmap", "from_json"),
    "loads": ("jsonmap", "loads"), "to_json": ("jsonmap", "to_json"),
    "Format": ("registry", "Format"), "detect": ("registry", "detect"),
    "available_formats": ("registry", "formats"),
}


def __getattr__(name: str) -> Any:
    if name == "tables":  # savecraft.tables(...): the package, callable (pyarrow loads on use)
        return importlib.import_module(".tables", __name__)
    if name in _LAZY:
        module, attr = _LAZY[name]
        value = getattr(importlib.import_module(f".{module}", __name__), attr)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = [
    "Format",
    "FormatError",
    "Problem",
    "Report",
    "SavecraftError",
    "UnsupportedFormatError",
    "Validation",
    "build",
    "detect",
    "dumps",
    "available_formats",
    "from_json",
    "load",
    "loads",
    "parse",
    "save",
    "to_json",
    "validate",
]
