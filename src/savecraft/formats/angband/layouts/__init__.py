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

import builtins
import importlib
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from ....binary import Reader, Writer
from ....errors import SavecraftError
from ....layout import Struct
from ....layout import Context as Context, LayoutError as LayoutError, NotCanonical as NotCanonical

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


def register_game_context(game: str, values: dict[str, int]) -> None:
    """What reading a file as ``game`` puts in the Context before its first block (a fork that
    writes another game's header, whose own fields are conditions over these entries)."""
    _GAME_CONTEXT[game] = dict(values)


def game_context(variant: str, game: str | None) -> dict[str, int]:
    """The Context entries :func:`register_game_context` gave ``game`` (loading the layout
    modules of ``variant`` first: a build from JSON may not have imported them)."""
    if not game:
        return {}
    _load(variant)
    return _GAME_CONTEXT.get(game, {})


def layouts_for(variant: str, name: str, version: int) -> list[Layout]:
    """The layouts that may apply, in the order they are tried (empty: the block stays raw)."""
    _load(variant)
    return _BY_KEY.get((variant, name, version), [])


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
    table = modules()
    named = variant is not None and any(variant in ids for ids in table.values())
    key = variant if named and variant is not None else ""
    for name, ids in table.items():
        if not named or variant in ids:
            importlib.import_module(f"{__name__}.{name}")
    _loaded.add(key)
