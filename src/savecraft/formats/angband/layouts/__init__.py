"""The table of block layouts of the ``angband-block`` format, keyed by (variant, block name, version).

A savefile names each block and gives it a version, but what the bytes
inside mean is decided by the game that wrote it: Vanilla 4.0 and 4.2 both
write a "player" block version 1, with different fields. So a
layout is registered for the variant ids it applies to, a block name and a
block version: the same plugin idea as the modular v2 block codecs
(:mod:`..blocks`). A new game or version is supported by registering more
:class:`Layout` entries; nothing else changes.

Layouts read with :class:`~savecraft.binary.Reader` and write with
:class:`~savecraft.binary.Writer`. Some blocks depend on sizes an earlier
block stored (the object memory block says how many object flag bytes
every item has), so decoding and encoding walk the blocks in file order and
pass a :class:`Context` along; a layout that needs a value no earlier block
provided fails, and that block stays raw, with the reason.

A decoded block must consume its bytes exactly and encode back to the very
same bytes; the parser checks both and keeps any block that does not as raw
bytes, reporting why (nothing is forced or guessed). A layout marked
``exact`` proves the second by construction (see :class:`Layout`), so a
plain parse skips its re-encoding; validation still does it.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import re
import sys
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from ....binary import Reader, Writer
from ....errors import SavecraftError
from ....lazy import lazy_module
from ....layout import Struct
from ....layout import Context as Context, LayoutError as LayoutError, NotCanonical as NotCanonical

if TYPE_CHECKING:
    import subprocess
else:  # (only to write the index, never at start-up: savecraft.lazy)
    subprocess = lazy_module("subprocess")

Key = tuple[str, str, int]


@dataclass(frozen=True)
class Layout:
    """How one game version lays out one block: decode must consume the whole reader."""

    name: str
    version: int
    variants: frozenset[str]
    model: builtins.type[Any]
    decode: Callable[[Reader, Context], Any]
    encode: Callable[[Any, Writer, Context], None]
    game: str = ""
    # True when ``decode`` proves by construction that ``encode`` writes the same bytes back:
    # it reads only canonical encodings (UTF-8 strings, values the writer writes as read) and
    # raises NotCanonical on any other, and sets in the Context what ``encode`` sets. Then a
    # parse (a load or a validation) needs no re-encoding to know the block is exact (the
    # tests still re-encode: ``block.parse(..., verify=True)``). False (the default): every
    # parse re-encodes the block and compares.
    exact: bool = False


class BlockModel:
    """Base of decoded block models: they answer to their block's name, as raw blocks do.

    So ``blocks[name=player]`` selects the player block decoded or not, and
    ``diff`` keys blocks by name.
    """

    __slots__ = ()
    KEY: ClassVar[str] = "name"

    @property
    def name(self) -> str:
        layout = _BY_MODEL.get(type(self))
        return layout.name if layout is not None else type(self).__name__


_BY_KEY: dict[Key, list[Layout]] = {}
_ALL: list[Layout] = []
_BY_MODEL: dict[type, Layout] = {}
_REGISTERED_BY: dict[int, str] = {}


def register_layout(layout: Layout) -> Layout:
    """Add ``layout`` to the table for each of its variants.

    Another game that lays a block out the same way registers its own entry
    with the same model (same name, version and codec), so the table still
    says which game each entry belongs to.
    """
    first = _BY_MODEL.setdefault(layout.model, layout)
    if first is not layout and (first.name, first.version, first.encode) != \
            (layout.name, layout.version, layout.encode):
        raise SavecraftError(f"layout model {layout.model.__name__} is already registered "
                             "for another block")
    for variant in sorted(layout.variants):
        _BY_KEY.setdefault((variant, layout.name, layout.version), []).append(layout)
    _ALL.append(layout)
    caller = sys._getframe(1)
    while caller.f_back is not None and caller.f_globals.get("__name__") == __name__:
        caller = caller.f_back
    _REGISTERED_BY[id(layout)] = str(caller.f_globals.get("__name__", ""))
    return layout


def registered_by(layout: Layout) -> str:
    """The module that registered ``layout`` (its VARIANTS line must name the layout's variants)."""
    return _REGISTERED_BY.get(id(layout), "")


def register_struct(struct: Struct, name: str, version: int, variants: frozenset[str], game: str,
                    *, exact: bool = True) -> Layout:
    """Register a block layout declared as a record description: its reader and writer are the
    ones generated from it. ``exact`` (the default): the description reads only encodings its
    writer writes back the same way (strings in the declared encoding, flags of 0 or 1)."""
    return register_layout(Layout(name, version, variants, struct.cls, struct.read, struct.write, game,
                                  exact=exact))


_GAME_CONTEXT: dict[str, dict[str, int]] = {}
_CONTEXT_BY: dict[str, str] = {}


def register_game_context(game: str, values: dict[str, int]) -> None:
    """What reading a file as ``game`` puts in the Context before its first block (a fork that
    writes another game's header, whose own fields are conditions over these entries)."""
    _GAME_CONTEXT[game] = dict(values)
    _CONTEXT_BY[game] = str(sys._getframe(1).f_globals.get("__name__", ""))


def game_context(variant: str, game: str | None) -> dict[str, int]:
    """The Context entries :func:`register_game_context` gave ``game`` (importing the module
    that gives them first, or with no current index every layout module of ``variant``: a
    build from JSON may not have imported them)."""
    if not game:
        return {}
    index = _index(variant)
    if index is None:
        _load(variant)
    elif game in index.CONTEXTS:
        importlib.import_module(f"{__name__}.{index.CONTEXTS[game]}")
    return _GAME_CONTEXT.get(game, {})


_FOR: dict[tuple[Key, str | None], list[Layout]] = {}


def layouts_for(variant: str, name: str, version: int, game: str | None = None) -> list[Layout]:
    """The layouts that may apply, in the order they are tried (empty: the block stays raw);
    ``game``: only that game's. Imports the modules that register them (see :func:`_index`)."""
    key = (variant, name, version)
    got = _FOR.get((key, game))
    if got is not None:
        return got
    index = _index(variant)
    if index is None:
        _load(variant)
        got = [lay for lay in _BY_KEY.get(key, ()) if game is None or lay.game == game]
    else:
        entries: tuple[tuple[str, str, str], ...] = index.KEYS.get(key, ())
        for module in dict.fromkeys(m for m, g, _ in entries if game is None or g == game):
            importlib.import_module(f"{__name__}.{module}")
        # In the order of a whole load of the variant's modules, whatever was imported before.
        place = {entry: i for i, entry in enumerate(entries)}
        got = sorted((lay for lay in _BY_KEY.get(key, ()) if game is None or lay.game == game),
                     key=lambda lay: place.get(_entry(lay), len(place)))
    _FOR[key, game] = got
    return got


def games_for(variant: str, name: str, version: int) -> list[str]:
    """The games with a layout for block ``name`` version ``version`` of ``variant``, in the
    order :func:`layouts_for` gives them; imports nothing where the index is current."""
    index = _index(variant)
    if index is None:
        return [lay.game for lay in layouts_for(variant, name, version)]
    return [g for _, g, _ in index.KEYS.get((variant, name, version), ())]


def _entry(layout: Layout) -> tuple[str, str, str]:
    """How the index names a layout: its module, its game and its model class."""
    return (_REGISTERED_BY.get(id(layout), "").rpartition(".")[2], layout.game, layout.model.__qualname__)


def layout_of(model: object) -> Layout | None:
    # A model's module registered its layouts when it was imported, before the model existed.
    return _BY_MODEL.get(type(model))


def layout_type(model: type) -> Layout | None:
    """The layout registered for model class ``model`` (None for a class that is no block)."""
    return _BY_MODEL.get(model)


def loaded_models() -> list[type]:
    """The block model classes registered so far (only the modules imported yet: no import)."""
    return list(_BY_MODEL)


def registered(game: str) -> list[Layout]:
    """The layouts registered so far for ``game``, importing nothing (for a module that
    registers another game's layouts as its own: a fork that writes them the same way)."""
    return [lay for lay in _ALL if lay.game == game]


def layouts() -> list[Layout]:
    """Every entry of the table, in registration order."""
    _load()
    return list(_ALL)


# Which modules register layouts for which variant ids is found, not listed: every module of
# this package that registers layouts says so on one line of its own, near its top,
#
#     VARIANTS = ("VNLA", "FAAN")
#
# (a tuple of variant-id literals). A new game or version is a new module with that line;
# nothing else is edited. Only the modules of a file's variant are imported (a module costs
# milliseconds of start-up, mostly its dataclasses), so the line is read from the source, not
# by importing: reading the package's few files costs well under a millisecond. A variant no
# module names imports them all. Modules are imported in the order of their names, so the
# order in which the layouts of one key are tried (and so which game a file's player block
# names first) does not depend on the file. tests/angband/test_angband_speed.py checks that every
# module registers layouts only for the variants its line names.
_VARIANTS_LINE = re.compile(rb"^VARIANTS(?:: [^=]+)? = \(([^)\n]*)\)", re.MULTILINE)
_loaded: set[str] = set()


def modules() -> dict[str, tuple[str, ...]]:
    """Each layout module of this package (by name, in import order) and the variant ids it
    declares; modules without the line (shared records, helpers) are not listed."""
    folder = Path(__file__).parent
    found: dict[str, tuple[str, ...]] = {}
    for path in sorted(folder.glob("*.py")):
        if path.stem.startswith("_"):
            continue
        m = _VARIANTS_LINE.search(path.read_bytes())
        if m is not None:
            found[path.stem] = tuple(re.findall(r"[\"']([^\"']*)[\"']", m.group(1).decode()))
    return found


def _load(variant: str | None = None) -> None:
    """Import (so register) the layout modules of ``variant``, or all of them, by name order."""
    if variant in _loaded or "" in _loaded:
        return
    _FOR.clear()  # (a key's layouts found before may have more now)
    table = modules()
    named = variant is not None and any(variant in ids for ids in table.values())
    key = variant if named and variant is not None else ""
    for name, ids in table.items():
        if not named or variant in ids:
            importlib.import_module(f"{__name__}.{name}")
    _loaded.add(key)


# Which modules register which layouts is also known without importing them: ``_registered.py``,
# beside them, is generated from what they register (``python -m
# savecraft.formats.angband.layouts`` writes it; tests/angband/test_angband_startup.py holds it
# equal to what the modules register), and it holds each module's source length and CRC, so an
# index that a later edit of any module has made stale is never used: every module of the
# variant is imported instead, as without it. With it, a file imports only the modules of the
# layouts it asks for (a Vanilla 4.2 file: the player layouts of every game writing its player
# block version, and the chosen game's layouts; not Vanilla 3.x's, Anquestria's or FAangband
# 1's), and a block's layouts are still given in the order a whole load registers them. A
# variant one of whose modules reads the table as it imports (``registered``: a fork taking
# another game's layouts as its own) is always imported whole: what that module registers
# depends on what was imported before it.
_INDEX_MODULE = "_registered"
_INDEX: list[Any] = []  # [the index module, or None when it is absent or stale]


def _index(variant: str) -> Any:
    """The generated index, when it is current and ``variant`` is not imported whole; else None."""
    if not _INDEX:
        try:
            index: Any = importlib.import_module(f"{__name__}.{_INDEX_MODULE}")
        except ImportError:
            index = None
        if index is not None and getattr(index, "SOURCES", None) != sources():
            index = None
        _INDEX.append(index)
    got = _INDEX[0]
    return None if got is None or variant in got.WHOLE or variant not in got.VARIANTS else got


def sources() -> dict[str, tuple[int, int]]:
    """Every module of this package but the private ones, by name: its source's length and CRC-32."""
    found: dict[str, tuple[int, int]] = {}
    for path in sorted(Path(__file__).parent.glob("*.py")):
        if not path.stem.startswith("_"):
            data = path.read_bytes()
            found[path.stem] = (len(data), zlib.crc32(data))
    return found


def index_entries(variant: str) -> tuple[dict[Key, list[tuple[str, str, str]]], dict[str, str]]:
    """What a whole load of ``variant``'s modules registers (in a fresh interpreter: the order
    depends on what was imported before): each key's layouts as :func:`_entry` names them, in
    order, and the module that gives each game its context."""
    _load(variant)
    keys = {key: [_entry(lay) for lay in lays] for key, lays in _BY_KEY.items() if key[0] == variant}
    contexts = {game: module.rpartition(".")[2] for game, module in _CONTEXT_BY.items()}
    return keys, contexts


def index_source() -> str:
    """The text of ``_registered.py`` for the modules as they are now: each variant is loaded in
    a fresh interpreter of its own, as the command line does."""
    table = modules()
    variants = sorted({v for ids in table.values() for v in ids})
    whole = sorted({v for name, ids in table.items() for v in ids
                    if re.search(rb"\bregistered\(", (Path(__file__).parent / f"{name}.py").read_bytes())})
    keys: dict[Key, list[tuple[str, str, str]]] = {}
    contexts: dict[str, str] = {}
    for variant in variants:
        prog = (f"from {__name__} import index_entries\n"
                f"print(repr(index_entries({variant!r})))")
        out = subprocess.run([sys.executable, "-c", prog], capture_output=True, text=True, check=True).stdout
        got_keys, got_contexts = ast.literal_eval(out)
        keys.update(got_keys)
        contexts.update(got_contexts)
    lines = ['"""Which layout module registers which block layouts: GENERATED by',
             "``python -m savecraft.formats.angband.layouts`` from the modules; do not edit (see",
             'the package\'s ``_index``). Used only while SOURCES matches every module\'s source."""',
             "", "# (each module's source: length, CRC-32)", "SOURCES = {"]
    lines += [f"    {name!r}: {value!r}," for name, value in sources().items()]
    lines += ["}", "VARIANTS = " + repr(tuple(variants)),
              "# (variants imported whole: a module of theirs reads the table as it imports)",
              "WHOLE = " + repr(tuple(whole)),
              "# (the module that registers each game's context)", "CONTEXTS = {"]
    lines += [f"    {game!r}: {module!r}," for game, module in sorted(contexts.items())]
    lines += ["}", "# ((variant, block, version): (module, game, model class) of each layout, in the order a",
              "# whole load of the variant registers them)", "KEYS = {"]
    for key in sorted(keys):
        lines.append(f"    {key!r}: (")
        lines += [f"        {entry!r}," for entry in keys[key]]
        lines.append("    ),")
    lines += ["}", ""]
    return "\n".join(lines)
