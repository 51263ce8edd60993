"""Which optional C backends run: each domain's module of ``savecraft._native``, or none at all.

pip compiles one extension module per domain where a compiler is at hand;
without one savecraft runs its pure Python/numpy paths, with the same
results, only slower. ``SAVECRAFT_PURE=1`` asks for those paths even where
the modules were built (the tests run both and compare).

The modules are all or nothing: every one must be present and carry this
file's :data:`VERSION` (the one constant of ``_native/version.h``), or none
of them runs. A stale build (left from an older checkout) or a partial one
(a module that failed to compile) would otherwise run a silent mix of old
and new code. Every user of a module asks :func:`active` first, so that rule
lives here; ``savecraft --version`` prints :func:`status`.
"""

from __future__ import annotations

import importlib
import os

# The interface version this code was written against (SAVECRAFT_NATIVE_VERSION in _native/version.h).
VERSION = 8

# Each domain's module, and what it speeds up (what --version says).
DOMAINS: dict[str, str] = {
    "records": "Angband object records and record lists",
    "rle": "TirNanoG tile RLE, Angband level runs",
    "bytewise": "Angband block checksums, session XOR",
}

_states: dict[str, str] = {}
_active: frozenset[str] = frozenset()


def _load() -> None:
    """Import every module and decide, once: all active, or none."""
    global _active
    if os.environ.get("SAVECRAFT_PURE"):
        _states.update(dict.fromkeys(DOMAINS, "off (SAVECRAFT_PURE is set)"))
        return
    found: dict[str, object] = {}
    for name in DOMAINS:
        try:
            module = importlib.import_module(f"{__package__}._native.{name}")
        except ImportError:  # not compiled where it was installed
            continue
        found[name] = getattr(module, "VERSION", None)
    if len(found) == len(DOMAINS) and all(v == VERSION for v in found.values()):
        _states.update(dict.fromkeys(DOMAINS, "active"))
        _active = frozenset(DOMAINS)
        return
    why = "" if not found else "the build is partial or stale: pure Python paths until it is rebuilt " \
        "(pip install -e . again)"
    for name in DOMAINS:
        if name not in found:
            _states[name] = "not built"
        elif found[name] != VERSION:
            _states[name] = f"stale build (interface {found[name]}, this savecraft needs {VERSION}), not used"
        else:
            _states[name] = "built, not used"
    if why:
        _states["*"] = why


def active(domain: str) -> bool:
    """Whether ``domain``'s compiled module runs (False for a domain this file does not know)."""
    return domain in _active


def states() -> dict[str, str]:
    """Each domain's state: ``active``, ``not built``, ``off (...)``, ``stale build (...)`` or
    ``built, not used``."""
    return {name: _states[name] for name in DOMAINS}


def status() -> str:
    """Which accelerated paths run, one line per domain (``savecraft --version`` prints it)."""
    lines = [f"accelerated paths (C extension, interface {VERSION}):"]
    for name, what in DOMAINS.items():
        lines.append(f"  {name} ({what}): {_states[name]}")
    if "*" in _states:
        lines.append(f"  ({_states['*']})")
    return "\n".join(lines)


_load()

__all__ = ["DOMAINS", "VERSION", "active", "states", "status"]
