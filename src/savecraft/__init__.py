"""savecraft: open, inspect, validate, edit and rewrite game files, byte for byte.

>>> import savecraft
>>> game = savecraft.load("player.sav")        # format found from the content
>>> savecraft.save(game, "player-copy.sav")    # atomic; unchanged -> same bytes
"""

from __future__ import annotations

from .api import Validation, build, load, parse, save, validate
from .errors import FormatError, Problem, Report, SavecraftError, UnsupportedFormatError
from .jsonmap import dumps, from_json, loads, to_json
from .registry import Format, detect
from .registry import formats as available_formats

__version__ = "0.1.0"

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
