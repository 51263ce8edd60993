"""Safe editing: change values by field path, and write only a file the format still accepts.

An edit goes through four gates before anything is written:

1. the path must name a value (:mod:`savecraft.paths`);
2. the new value must fit the field's type hint (the same checks the JSON
   mapping applies to a dump, so ``--set`` and ``$EDITOR`` agree);
3. the format's own ``build`` must accept it: its :class:`~savecraft.binary.Writer`
   range-checks every field and recomputes sizes, counts and checksums;
4. the rebuilt bytes are parsed again in validate mode (plus the format's
   ``check``) and must hold no problem the original did not already have,
   and every edited value must read back as it was set (a value the format
   would silently truncate or replace is refused).

Nothing here knows any particular format: it works through the registry, so
a format gets ``savecraft edit`` by registering.

>>> from savecraft import edit
>>> result = edit.edit_file("world.sav", {"users[name=Brigid].entity.x": 120})
>>> result.changes
[('users[0].entity.x', 120)]
"""

from __future__ import annotations

import dataclasses
import enum
import re
import types
import typing
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Union, get_args, get_origin
import datetime as dt

import orjson
import numpy as np

from . import api, jsonmap, registry
from .errors import FormatError, Problem
from .fileio import PathLike, atomic_write, read_input
from .paths import Attr, PathError, Resolved, assign, canonical_prefix, renamed, resolve, same_value

Changes = Mapping[str, Any] | Iterable[tuple[str, Any]]


@dataclass(slots=True)
class Edited:
    """The outcome of an accepted edit: the new bytes and the model read back from them."""

    format: str
    data: bytes
    model: Any
    changes: list[tuple[str, Any]] = field(default_factory=list)  # canonical path, new value
    original: bytes | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        """False when the edit gives back the very same bytes (nothing to write)."""
        return self.original is None or self.original != self.data


# -- values -------------------------------------------------------------------------------


def parse_value(text: str) -> Any:
    """A command-line value: JSON when it parses as JSON, otherwise the text itself."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return text


def conforms(value: Any, hint: Any) -> bool:
    """Whether ``value`` is already a Python value of type ``hint`` (no conversion needed)."""
    if hint is Any or hint is None:
        return True
    origin = get_origin(hint)
    args = get_args(hint)
    if origin in (Union, types.UnionType):
        return any(conforms(value, a) for a in args)
    if hint is type(None):
        return value is None
    if origin is typing.Literal:
        return any(value == a and type(value) is type(a) for a in args)
    if hint is bool:
        return isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if hint is float:
        return isinstance(value, float)
    if origin is list:
        return isinstance(value, list) and all(conforms(x, args[0]) for x in value)
    if origin is tuple:
        if not isinstance(value, tuple):
            return False
        if len(args) == 2 and args[1] is Ellipsis:
            return all(conforms(x, args[0]) for x in value)
        return len(value) == len(args) and all(conforms(x, a) for x, a in zip(value, args))
    if origin is dict:
        return isinstance(value, dict) and all(
            conforms(k, args[0]) and conforms(v, args[1]) for k, v in value.items())
    if isinstance(hint, type):  # a class, an enum among them
        return isinstance(value, hint)
    return False


def coerce(value: Any, hint: Any, path: str, current: Any = None) -> Any:
    """``value`` as the type ``hint`` asks for, or FormatError naming ``path``.

    Python values of the right type pass as they are; anything else is read
    as its JSON form (base64 for bytes, an enum's name or number, an object
    for a record), exactly as ``savecraft build`` reads a dump.
    """
    if hint is None:
        if current is None:
            return value
        hint = type(current)
    if conforms(value, hint):
        return value
    if _is_numpy_scalar_type(hint):
        return _numpy_scalar(value, hint, path)
    try:
        return jsonmap.decoder(hint)(value, path)
    except TypeError as exc:  # a hint the JSON mapping does not cover
        raise FormatError(None, path, f"a value of type {hint!r}", str(exc)) from None


def _is_numpy_scalar_type(hint: Any) -> bool:
    return isinstance(hint, type) and hint.__module__ == "numpy" and hasattr(hint, "dtype") \
        and hasattr(hint, "item")


def _numpy_scalar(value: Any, hint: type, path: str) -> Any:
    """An element of a numpy array (``layers[2][5][7]``): a number within the dtype's range."""
    kind = np.dtype(hint)
    if kind.kind in "iu":
        info = np.iinfo(typing.cast(Any, kind))
        if isinstance(value, bool) or not isinstance(value, int) or not info.min <= value <= info.max:
            raise FormatError(None, path, f"an integer from {info.min} to {info.max} ({kind.name})",
                              _short(value))
        return hint(value)
    if kind.kind == "f":
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise FormatError(None, path, f"a number ({kind.name})", _short(value))
        return hint(value)
    if kind.kind == "b":
        if not isinstance(value, bool):
            raise FormatError(None, path, "true or false", _short(value))
        return hint(value)
    raise FormatError(None, path, f"a value of type {kind.name}", _short(value))


def set_value(model: Any, path: str, value: Any, *, text: bool = False) -> tuple[str, Any]:
    """Set one value in ``model`` (in memory), checked against its type.

    With ``text``, ``value`` is command-line text: JSON when it parses and
    fits the field, else the text as a string (so ``name=123`` sets the
    string "123" on a string field). Returns the canonical path (key
    selections turned into indexes) and the value that was stored.
    """
    where = resolve(model, path)
    _settable(where)
    new = _checked(where, value, text)
    assign(where, new)
    _keep_together(where)
    return where.path, new


def _keep_together(where: Resolved) -> None:
    """Let the record holding the edited field bring what the format keeps with it into line.

    A record may define ``__edited__(name)``: it is called with the name of
    its field that was set (``stat_cur`` for ``player.stat_cur[2]``), and may
    change the values that go with it (an Angband player's level follows
    its experience) or raise FormatError for a value the record cannot hold.
    Only the innermost record is asked.
    """
    for container, step, _ in reversed(where.chain):
        if isinstance(step, Attr):
            hook = getattr(container, "__edited__", None)
            if callable(hook):
                hook(step.name)
            return


def _settable(where: Resolved) -> None:
    """Refuse a computed list (``users``, a view of ``chunks``) before reading the value:
    its type is the view's, which no JSON or typed value converts to."""
    if not where.chain:
        return
    container, step, _ = where.chain[-1]
    if isinstance(step, Attr):
        prop = getattr(type(container), step.name, None)
        if (isinstance(prop, property) and prop.fset is None and isinstance(where.value, Sequence)
                and not isinstance(where.value, str | bytes)):  # a record (``deny``) is replaced in place
            raise PathError(f"{where.path}: cannot be replaced here, it is a list computed from "
                            "other fields; set the fields of its items instead")


_HEX = re.compile(r"-?0[xX][0-9a-fA-F]+")
# An ISO 8601 date or instant, as info prints them (2025-09-13T08:42:23Z); no zone means UTC.
_ISO = re.compile(r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?)?(?:Z|[+-]\d{2}:?\d{2})?")


def field_metadata(where: Resolved) -> Mapping[str, Any]:
    """The ``dataclasses.field`` metadata of the field ``where`` names (empty for list items).

    Formats say there how people write a value the bytes keep as a number:
    ``{"time": "unix"}`` for an instant in Unix seconds (typed as ISO 8601),
    ``{"enum": SomeIntEnum}`` for a number with names (typed by name).
    """
    if not where.chain:
        return {}
    container, step, _ = where.chain[-1]
    if isinstance(step, Attr) and dataclasses.is_dataclass(container):
        for f in dataclasses.fields(container):
            if f.name == step.name:
                return f.metadata
    return {}


def unix_seconds(text: str, path: str) -> int:
    """An ISO 8601 date or instant as Unix seconds (UTC when no zone is given)."""
    try:
        when = dt.datetime.fromisoformat(text.strip())
    except ValueError:
        raise FormatError(None, path, "a date and time as ISO 8601 (2025-09-13T08:42:23Z)",
                          repr(text)) from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.timezone.utc)
    return int(when.timestamp())


def enum_member(kind: type[enum.Enum], text: str) -> enum.Enum | None:
    """The member of ``kind`` named ``text`` as info prints it (``hex-vertical``) or as the
    code spells it (``HEX_VERTICAL``), whatever the case; None when no name matches."""
    wanted = text.strip().replace("-", "_").replace(" ", "_").upper()
    for member in kind:
        if member.name.upper() == wanted:
            return member
    return None


def _as_people_write(where: Resolved, text: str) -> Any:
    """A value typed the way info shows it (a date, a name, hex), as the field stores it; or None."""
    meta = field_metadata(where)
    if meta.get("time") == "unix" and _ISO.fullmatch(text.strip()):
        return unix_seconds(text, where.path)
    kind = meta.get("enum")
    hint = where.hint
    if kind is None and isinstance(hint, type) and issubclass(hint, enum.Enum):
        kind = hint
    if kind is not None:
        member = enum_member(kind, text)
        if member is not None:
            return member if kind is hint else member.value
        names = ", ".join(m.name.lower().replace("_", "-") for m in kind)
        raise FormatError(None, where.path, f"one of {names} (or its number)", repr(text))
    if _HEX.fullmatch(text):  # an integer in hex, as info and hexdump print ids and offsets
        return int(text, 16)
    return None


def _checked(where: Resolved, value: Any, text: bool) -> Any:
    if not text:
        if isinstance(value, str):
            typed = _as_people_write(where, value)
            if typed is not None:
                return coerce(typed, where.hint, where.path, where.value)
        return coerce(value, where.hint, where.path, where.value)
    parsed = parse_value(value)
    try:
        return coerce(parsed, where.hint, where.path, where.value)
    except FormatError as first:
        if isinstance(parsed, str):
            typed = _as_people_write(where, parsed)
            if typed is None:
                raise
            try:
                return coerce(typed, where.hint, where.path, where.value)
            except FormatError:
                raise first from None
        try:
            return coerce(value, where.hint, where.path, where.value)
        except FormatError:
            raise first from None


# -- the gates after the values are set ------------------------------------------------------


def rebuild(model: Any, *, original: bytes | None = None,
            changes: Iterable[tuple[str, Any]] = ()) -> Edited:
    """Build ``model`` with its format, read the result back, and refuse anything invalid.

    ``original`` (the file before the edit) lets problems the file already
    had pass: an edit is refused only for problems it introduces.
    """
    fmt = registry.for_model(model)
    try:
        data = fmt.build(model)
    except FormatError as err:  # a ValueError too, but it already says where
        raise _named(err, model) from None
    except (ValueError, TypeError, OverflowError, KeyError, IndexError, AttributeError) as exc:
        # A value of the right type that the codec still cannot write.
        raise FormatError(None, "", f"values the {fmt.name} format can store", str(exc)) from None
    result = api.validate(data, fmt.name)
    errors = [p for p in result.problems if p.severity == "error"]
    if errors and original is not None:
        known = {_problem_key(p) for p in api.validate(original, fmt.name).problems}
        errors = [p for p in errors if _problem_key(p) not in known]
    if errors:
        first = errors[0]
        raise FormatError(first.offset, first.path, first.expected, first.found, problems=errors)
    changes = list(changes)
    for path, value in changes:
        try:
            got = resolve(result.model, path).value
        except PathError as exc:
            raise FormatError(None, path, "the edited value after rebuilding", str(exc)) from None
        if not same_value(got, value):
            raise FormatError(None, path, f"a value the format stores as set ({_short(value)})",
                              f"{_short(got)} after rebuilding")
    return Edited(fmt.name, data, result.model, changes, original, list(result.notes))


def _named(err: FormatError, model: Any) -> FormatError:
    """A writer's refusal with its paths as every other message prints them (``player.au``,
    not the writer's ``blocks[7].au``)."""
    return renamed(err, lambda path: canonical_prefix(model, path))


def _problem_key(p: Problem) -> tuple[str, str, str, str]:
    return (p.severity, p.path, p.expected, p.found)


def _short(value: Any) -> str:
    shown = repr(value)
    return shown if len(shown) <= 60 else shown[:57] + "..."


# -- whole edits ----------------------------------------------------------------------------


def _pairs(changes: Changes) -> list[tuple[str, Any]]:
    if isinstance(changes, Mapping):
        return list(changes.items())
    return list(changes)


def edit_bytes(data: bytes, changes: Changes, *, format: str | None = None,
               text: bool = False) -> Edited:
    """Apply ``{path: value}`` to a file's bytes and return the checked result (nothing written)."""
    model = api.parse(data, format)  # strictly: an edit starts from a file the format can read
    return edit_model(model, changes, original=data, text=text)


def edit_model(model: Any, changes: Changes, *, original: bytes | None = None,
               text: bool = False) -> Edited:
    """Like :func:`edit_bytes` for a model already loaded.

    The model is changed in place, and keeps the change even when the edit
    is then refused: load it again to start over.
    """
    done: dict[str, Any] = {}
    for path, value in _pairs(changes):
        canonical, stored = set_value(model, path, value, text=text)
        done[canonical] = stored
    return rebuild(model, original=original, changes=done.items())


def edit_dump(data: bytes, dump: bytes | str, *, format: str | None = None) -> Edited:
    """Rebuild a file from an edited JSON dump of it (the ``$EDITOR`` round trip)."""
    fmt = registry.find(data, format)
    doc = jsonmap.parse_text(dump)  # a syntax error names its line and column
    if isinstance(doc, dict) and doc.get("format", fmt.name) != fmt.name:
        raise FormatError(None, "format", f"{fmt.name!r} (the format of the file being edited)",
                          repr(doc.get("format")))
    model = jsonmap.from_json(doc)  # problems named by model path (users[1].entity.x)
    if registry.for_model(model).name != fmt.name:
        raise FormatError(None, "format", f"{fmt.name!r} (the format of the file being edited)",
                          repr(registry.for_model(model).name))
    return rebuild(model, original=data)


def dump_for_editing(data: bytes, format: str | None = None) -> bytes:
    """The JSON text a person edits: the same document ``savecraft dump`` prints."""
    model = api.parse(data, format)
    return jsonmap.dumps(model)


def write(edited: Edited, path: PathLike, *, backup: bool = True) -> Path | None:
    """Write atomically; with ``backup``, the old file is kept as ``path.bak`` first.

    Returns the backup's path when one was made.
    """
    made = atomic_write(path, edited.data, backup=backup)
    return made if made != Path(path) else None


def edit_file(path: PathLike, changes: Changes, *, output: PathLike | None = None,
              backup: bool = True, format: str | None = None, text: bool = False) -> Edited:
    """Edit a file on disk: refused edits raise FormatError and leave every file untouched."""
    data = read_input(path)
    edited = edit_bytes(data, changes, format=format, text=text)
    if edited.changed or output is not None:
        write(edited, output if output is not None else path, backup=backup)
    return edited


__all__ = [
    "Changes", "Edited", "coerce", "conforms", "dump_for_editing", "edit_bytes", "edit_dump",
    "edit_file", "edit_model", "parse_value", "rebuild", "set_value", "write",
]
