"""The one format registry: content sniffers, codecs and model types, by name.

A format module registers a :class:`Format` at import time (like a Pillow
plugin). Detection looks at content only, never at the file name: the first
format whose sniffer accepts the bytes wins, in registration order, so more
specific magics register first.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import FormatError, Report, SavecraftError

Sniffer = Callable[[bytes], bool]


@dataclass(frozen=True)
class Format:
    """Everything the library and the command line need to know about one format.

    ``parse(data, report)`` decodes; with a non-strict report it records every
    problem it can and goes on. ``build(model)`` encodes. ``info(model)``
    returns a small dict for ``savecraft info``; ``extract(model, folder)``
    writes the parts of a file as ordinary files and returns their paths.
    ``validate_by_building``: validation also builds a model that parsed
    cleanly and reports what the writer refuses (for formats whose reader
    accepts values their writer does not; off where building is costly).
    """

    name: str
    description: str
    model: type
    sniff: Sniffer
    parse: Callable[[bytes, Report], Any]
    build: Callable[[Any], bytes]
    info: Callable[[Any], dict[str, Any]]
    extract: Callable[[Any, Path], list[Path]] | None = None
    check: Callable[[Any, Report], None] | None = None
    suffixes: tuple[str, ...] = field(default_factory=tuple)
    validate_by_building: bool = False


_FORMATS: dict[str, Format] = {}
_BY_MODEL: dict[type, Format] = {}
_loaded = False

# Format modules that register themselves when imported. Order matters for
# sniffing only where magics overlap (none do today).
PLUGINS = (
    "savecraft.formats.tirnanog.save",
    "savecraft.formats.tirnanog.game",
    "savecraft.formats.angband.modular",
    "savecraft.formats.angband.block",
    "savecraft.formats.angband.legacy",
    "savecraft.formats.qfg5",
)


def register(fmt: Format) -> Format:
    if fmt.name in _FORMATS and _FORMATS[fmt.name] is not fmt:
        raise SavecraftError(f"format {fmt.name!r} is registered twice")
    _FORMATS[fmt.name] = fmt
    _BY_MODEL[fmt.model] = fmt
    return fmt


def _load_plugins() -> None:
    global _loaded
    if _loaded:
        return
    _loaded = True
    for mod in PLUGINS:
        importlib.import_module(mod)


def formats() -> list[Format]:
    _load_plugins()
    return list(_FORMATS.values())


def get(name: str) -> Format:
    _load_plugins()
    try:
        return _FORMATS[name]
    except KeyError:
        known = ", ".join(sorted(_FORMATS))
        raise SavecraftError(f"unknown format {name!r} (known: {known})") from None


def for_model(model: object) -> Format:
    _load_plugins()
    for cls in type(model).__mro__:
        if cls in _BY_MODEL:
            return _BY_MODEL[cls]
    raise SavecraftError(f"{type(model).__name__} is not the model of a registered format")


def find(data: bytes, name: str | None = None) -> Format:
    """The format called ``name`` when one is given, else the one ``data`` is in."""
    return get(name) if name else detect(data)


def detect(data: bytes) -> Format:
    """The format of ``data``, from its content; FormatError when nothing matches."""
    _load_plugins()
    for fmt in _FORMATS.values():
        if fmt.sniff(data):
            return fmt
    head = bytes(data[:16])
    raise FormatError(0, "", "the magic of a known format (" + ", ".join(_FORMATS) + ")",
                      f"{head!r}" if head else "an empty file")
