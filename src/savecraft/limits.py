"""The caps that keep hostile input from costing unbounded memory: one place for all of them.

A file can claim anything (a map of 8192 x 8192 x 10 tiles, four million
chunks, a stream that inflates a thousandfold); what it may make savecraft
allocate is bounded here. Each cap is checked *before* the allocation it
guards, and exceeding it is a :class:`~savecraft.errors.FormatError` with the
offset of the claim and the name of the environment variable that raises it.

Every cap has a default, an environment variable read once at import, and a
setter that returns the previous value (so a test or a caller can raise it
for one job and put it back):

========================  ===========================  ===========================================
name                      environment variable         what it bounds
========================  ===========================  ===========================================
``inflate``               ``SAVECRAFT_MAX_INFLATE``    bytes one deflate stream may inflate to
``map_tiles``             ``SAVECRAFT_MAX_MAP_TILES``  decoded tiles of one map
``file_tiles``            ``SAVECRAFT_MAX_FILE_TILES`` decoded map tiles of one file, all maps together
``chunks``                ``SAVECRAFT_MAX_CHUNKS``     chunks in one saved game
``problems``              ``SAVECRAFT_MAX_PROBLEMS``   problems one validation keeps (then a count)
``decoded``               ``SAVECRAFT_MAX_DECODED``    bytes of one decoded structure (an array, a list)
``stream``                ``SAVECRAFT_MAX_STREAM``     bytes read from an input that is not a regular
                                                       file (stdin, a FIFO, ``/dev/zero``)
========================  ===========================  ===========================================
"""

from __future__ import annotations

import os
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Limit:
    name: str
    env: str
    default: int
    what: str


LIMITS: dict[str, Limit] = {lim.name: lim for lim in (
    Limit("inflate", "SAVECRAFT_MAX_INFLATE", 256 * 1024 * 1024, "bytes inflated from one stream"),
    Limit("map_tiles", "SAVECRAFT_MAX_MAP_TILES", 1 << 26, "decoded tiles in one map"),
    Limit("file_tiles", "SAVECRAFT_MAX_FILE_TILES", 1 << 27, "decoded map tiles in one file"),
    Limit("chunks", "SAVECRAFT_MAX_CHUNKS", 1 << 18, "chunks in one saved game"),
    Limit("problems", "SAVECRAFT_MAX_PROBLEMS", 1000, "problems kept for one file"),
    Limit("decoded", "SAVECRAFT_MAX_DECODED", 512 * 1024 * 1024, "bytes of one decoded structure"),
    # A stream (stdin, a FIFO, /dev/zero) has no size to check first and may never end; 1 GiB
    # is four times what one deflate stream may inflate to (docs/limits.md).
    Limit("stream", "SAVECRAFT_MAX_STREAM", 1 << 30, "bytes read from a stream"),
)}


def _from_env(lim: Limit) -> int:
    text = os.environ.get(lim.env)
    if text is None:
        return lim.default
    try:
        value = int(text, 0)
    except ValueError:
        return lim.default  # a bad setting must not make every command fail; the default holds
    return value if value >= 0 else lim.default


_values: dict[str, int] = {name: _from_env(lim) for name, lim in LIMITS.items()}


def get(name: str) -> int:
    """The current value of cap ``name`` (a key of :data:`LIMITS`)."""
    return _values[name]


def set_limit(name: str, value: int) -> int:
    """Change cap ``name``; returns the previous value."""
    if name not in LIMITS:
        raise KeyError(f"no limit named {name!r} (one of {', '.join(LIMITS)})")
    if int(value) < 0:
        raise ValueError(f"a limit is a non-negative number, not {value}")
    old, _values[name] = _values[name], int(value)
    return old


def check(name: str, amount: int, offset: int | None, path: str, claim: str) -> None:
    """Raise FormatError at ``offset`` when ``amount`` passes cap ``name``; ``claim`` says what asked."""
    cap = _values[name]
    if amount > cap:
        from .errors import FormatError  # errors imports this module for the problem cap
        lim = LIMITS[name]
        raise FormatError(offset, path, f"at most {cap} {lim.what} (the limit; raise it with {lim.env})",
                          f"{claim}: {amount}")


# The named shortcuts callers use most.

def inflate_limit() -> int:
    return _values["inflate"]


def set_inflate_limit(limit: int) -> int:
    return set_limit("inflate", limit)


def problem_limit() -> int:
    return _values["problems"]
