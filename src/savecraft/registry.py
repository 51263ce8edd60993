"""The one format registry: content sniffers, codecs and model types, by name.

A format module registers a :class:`Format` at import time (like a Pillow
plugin). Detection looks at content only, never at the file name: the first
format whose sniffer accepts the bytes wins, in the order of the plugins'
detection entries.

Importing a plugin costs tens of milliseconds (its codec, numpy, the game-file
package), more than the whole of a small ``savecraft validate``. So each plugin
folder under ``savecraft/formats`` also holds a light ``detection`` module: a
:class:`Plugin` entry per format with its name, its module and a cheap
pre-check on the first bytes (its magic). The registry finds those modules on
disk (it names no format), imports only the plugins whose pre-check accepts
the data, then asks their real sniffer; :func:`get` imports only the plugin of
that name. docs/architecture.md walks through writing a plugin.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import FormatError, Report, SavecraftError

Sniffer = Callable[[bytes], bool]


@dataclass
class Repair:
    """What a format's ``repair`` hook found in damaged bytes and would do about it.

    ``damage``, ``actions`` and ``lost`` are sentences for a person (with offsets);
    ``data`` is the repaired file, or None when it cannot be repaired safely,
    and then ``refused`` says why. No damage found: all empty and ``data`` None.
    """

    damage: list[str] = field(default_factory=list)
    actions: list[str] = field(default_factory=list)
    lost: list[str] = field(default_factory=list)
    data: bytes | None = None
    refused: str = ""


@dataclass(frozen=True)
class Format:
    """Everything the library and the command line need to know about one format.

    ``parse(data, report)`` decodes; with a non-strict report it records every
    problem it can and goes on. ``build(model)`` encodes. ``info(model)``
    returns a small dict for ``savecraft info``; ``extract(model, folder)``
    writes the parts of a file as ordinary files and returns their paths, and
    ``rebuild(folder)`` reads such a folder back into a model (after edits to
    its files; unchanged, the model builds the original bytes).
    ``repair(data)`` finds the damage a format can mend (a cut or overrunning
    part, a wrong checksum or size) and returns a :class:`Repair`; formats
    without it get the generic one of ``savecraft repair``.
    ``summary(model)``: the studio's overview of a file (a character sheet, a
    server's players, a game's maps and scripts) as plain data, never HTML;
    its schema is :mod:`savecraft.studio.views`'s. None: the studio shows the
    field tree only. ``field_hint(path, value)``: for one field, the value as
    the game shows it (``shown``: a date, a stat's 18/100) and the range the
    game allows (``allowed``: what the edit path enforces, not the storage
    type's range), either may be absent.
    ``validate_by_building``: validation also builds a model that parsed
    cleanly and reports what the writer refuses (for formats whose reader
    accepts values their writer does not; off where building is costly).
    ``spans``: builds the format's span-recording hook (a
    :class:`savecraft.spans.Adapter`: its parse with recording on, the units
    it leaves for later, its list items' shown names), called on first use so
    that the plugin imports its span code only when spans are recorded; None:
    the plain parse records everything.
    ``pictures``: returns the format's pictures for the studio (a module or object with
    ``listing(model)``, plain descriptions of what can be drawn, and ``render(model, name,
    query)``, one as PNG bytes), imported on first use; None: nothing to draw.
    ``references(model)``: how the studio's tree names a reference field of this file
    (``describe(kind, value)``, None where it cannot) and the record types that are a
    reference as a whole; None: the format has no references.
    """

    name: str
    description: str
    model: type
    sniff: Sniffer
    parse: Callable[[bytes, Report], Any]
    build: Callable[[Any], bytes]
    info: Callable[[Any], dict[str, Any]]
    extract: Callable[[Any, Path], list[Path]] | None = None
    rebuild: Callable[[Path], Any] | None = None
    check: Callable[[Any, Report], None] | None = None
    suffixes: tuple[str, ...] = field(default_factory=tuple)
    validate_by_building: bool = False
    repair: Callable[[bytes], Repair] | None = None
    summary: Callable[[Any], dict[str, Any]] | None = None
    field_hint: Callable[[str, Any], dict[str, str] | None] | None = None
    spans: Callable[[], Any] | None = None
    pictures: Callable[[], Any] | None = None
    references: Callable[[Any], tuple[Callable[[str, Any], str | None], tuple[type, ...]]] | None = None


_FORMATS: dict[str, Format] = {}
_BY_MODEL: dict[type, Format] = {}
_loaded = False


@dataclass(frozen=True)
class Plugin:
    """What detection knows of a format before importing it: its entry in a plugin's detection module.

    ``maybe`` must accept every file the format's real sniffer accepts (it
    may accept more: the real sniffer decides); it looks at magic bytes only,
    so that it costs nothing. ``module`` is imported when ``maybe`` accepts a
    file or the format is asked for by name; it registers the :class:`Format`.
    ``tables``: the module that describes the format's tables
    (:mod:`savecraft.tables`), if it offers any. ``order``: detection tries the
    entries by rising order (then name); formats with a magic take one below
    :data:`LAST`, a sniffer with no magic (that must see every other format's
    magic fail first) takes :data:`LAST`.
    """

    name: str
    module: str
    maybe: Sniffer
    tables: str | None = None
    order: int = 100


# The order of a sniffer that has no magic: after every format that has one.
LAST = 1_000_000


def starts_with(magic: bytes) -> Sniffer:
    """A :attr:`Plugin.maybe` for a format whose files begin with ``magic``."""
    return lambda data: bytes(data[:len(magic)]) == magic


# Each folder under savecraft/formats that holds a module of this name is a plugin folder:
# the module's DETECTION is its tuple of Plugin entries (see docs/architecture.md).
DETECTION_MODULE = "detection"
_PLUGIN_PACKAGE = "savecraft.formats"
_plugins: tuple[Plugin, ...] | None = None
_plugin_by_name: dict[str, Plugin] = {}


def _discover() -> tuple[Plugin, ...]:
    """Every plugin folder's detection entries, in detection order.

    The folders are found on disk (one ``os.scandir`` of the formats package),
    not in a list kept here: a new format is a new folder. Each detection
    module is small and imports nothing but this module, so finding them all
    costs well under a millisecond of start-up (measured in
    docs/architecture.md).
    """
    global _plugins
    if _plugins is None:
        package = importlib.import_module(_PLUGIN_PACKAGE)
        found: list[Plugin] = []
        for folder in sorted(package.__path__):
            with os.scandir(folder) as entries:
                names = sorted(e.name for e in entries
                               if e.is_dir() and os.path.isfile(os.path.join(e.path, DETECTION_MODULE + ".py")))
            for name in names:
                module = importlib.import_module(f"{_PLUGIN_PACKAGE}.{name}.{DETECTION_MODULE}")
                found.extend(module.DETECTION)
        _plugins = tuple(sorted(found, key=lambda p: (p.order, p.name)))
        _plugin_by_name.update((p.name, p) for p in _plugins)
    return _plugins


def __getattr__(name: str) -> Any:
    """``PLUGINS``: the detection table, found on first use (so importing the registry scans nothing)."""
    if name == "PLUGINS":
        return _discover()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def names() -> list[str]:
    """Every format's name, without importing any plugin (for help texts and completion)."""
    table = _discover()
    return [p.name for p in table] + [n for n in _FORMATS if n not in _plugin_by_name]


def plugins() -> tuple[Plugin, ...]:
    """The light table of plugins (savecraft.tables finds each format's tables through it)."""
    return _discover()


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
    for plugin in _discover():
        importlib.import_module(plugin.module)


def _plugin_format(plugin: Plugin) -> Format:
    if plugin.name not in _FORMATS:
        importlib.import_module(plugin.module)
    return _FORMATS[plugin.name]


def formats() -> list[Format]:
    _load_plugins()
    return list(_FORMATS.values())


def get(name: str) -> Format:
    if name in _FORMATS:
        return _FORMATS[name]
    _discover()
    if name in _plugin_by_name:
        return _plugin_format(_plugin_by_name[name])
    known = ", ".join(sorted(names()))
    raise SavecraftError(f"unknown format {name!r} (known: {known})")


def for_model(model: object) -> Format:
    for _ in range(2):
        for cls in type(model).__mro__:
            if cls in _BY_MODEL:
                return _BY_MODEL[cls]
        _load_plugins()  # a model of a plugin not imported yet (e.g. unpickled): import them all
    raise SavecraftError(f"{type(model).__name__} is not the model of a registered format")


def find(data: bytes, name: str | None = None) -> Format:
    """The format called ``name`` when one is given, else the one ``data`` is in."""
    return get(name) if name else detect(data)


def detect(data: bytes) -> Format:
    """The format of ``data``, from its content; FormatError when nothing matches."""
    for plugin in _discover():
        if plugin.maybe(data):
            fmt = _plugin_format(plugin)
            if fmt.sniff(data):
                return fmt
    for fmt in list(_FORMATS.values()):  # registered directly, outside the table
        if fmt.name not in _plugin_by_name and fmt.sniff(data):
            return fmt
    head = bytes(data[:16])
    raise FormatError(0, "", "the magic of a known format (" + ", ".join(names()) + ")",
                      f"{head!r}" if head else "an empty file")
