"""The files of an extract folder, read back by a format's rebuild (``savecraft build DIR``).

Every format's rebuild reads its parts the same way, so a missing file or a
JSON mistake reads the same whichever format it is: the file's name first,
then what to mend (its line and column for a syntax error).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import FormatError
from .lazy import lazy_module

if TYPE_CHECKING:
    from . import jsonmap
else:  # imported on first use (savecraft.lazy): start-up does not need them
    jsonmap = lazy_module("savecraft.jsonmap")

PART = "a file of the extract folder"


def read_part(path: Path, name: str | None = None, expected: str = PART) -> bytes:
    """The bytes of one part; ``name`` is how messages name it (the file's name by default)."""
    try:
        return path.read_bytes()
    except OSError as exc:
        raise FormatError(None, name or path.name, expected, exc.strerror or str(exc)) from None


def load_part(path: Path, name: str | None = None) -> Any:
    """One JSON part, parsed; a syntax error names the file, the line and the column."""
    data = read_part(path, name)
    try:
        return jsonmap.parse_text(data)
    except FormatError as err:
        raise FormatError(None, f"{name or path.name}: {err.path}", err.expected, err.found) from None
