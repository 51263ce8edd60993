"""Field paths: the one way to name a value inside a model.

A path is what error messages, dumps and diffs print, and what ``savecraft
edit --set`` accepts::

    game_id
    users[name=Brigid].entity.x      # select a list item by a key field
    users[0].entity.inventory[2].quantity
    chunks[3]                        # by position (negative counts from the end)
    chunks[name="odd]name"]          # a key value with odd characters, JSON-quoted

Names are looked up with ``getattr``, so computed views such as
``SaveGame.users`` work as well as dataclass fields. Resolving also reports
the type hint of the value (from the dataclass annotations, or a property's
return annotation), which is what :mod:`savecraft.edit` checks new values
against, and a canonical path where every key selection became an index.
"""

from __future__ import annotations

import dataclasses
import enum
import re
import types
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Union, get_args, get_origin, get_type_hints

import orjson

from .errors import SavecraftError


class PathError(SavecraftError, LookupError):
    """A path that does not parse, or names nothing in the model."""


# -- the steps of a path ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Attr:
    """``.name``: a field or property."""

    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True)
class Index:
    """``[3]``: a position in a sequence (negative counts from the end)."""

    index: int

    def __str__(self) -> str:
        return f"[{self.index}]"


@dataclass(frozen=True, slots=True)
class Match:
    """``[key=value]``: the item of a sequence whose field ``key`` shows as ``value``."""

    key: str
    value: str

    def __str__(self) -> str:
        return f"[{self.key}={quote(self.value)}]"


@dataclass(frozen=True, slots=True)
class Key:
    """``["text"]``: an entry of a mapping."""

    key: str

    def __str__(self) -> str:
        return key_step(self.key)


Step = Attr | Index | Match | Key

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_INT = re.compile(r"-?[0-9]+$")
_PLAIN_VALUE = re.compile(r"[^\]\"=\s][^\]\"]*$")


def quote(text: str) -> str:
    """A key value as a path shows it: bare when it reads back the same, else JSON-quoted."""
    if _PLAIN_VALUE.match(text) and text == text.strip():
        return text
    return orjson.dumps(text).decode("utf-8")


def key_step(key: str) -> str:
    """``[key]`` for an entry of a mapping, quoted when bare text would read as something else."""
    if "=" in key or _INT.match(key.strip()):
        return "[" + orjson.dumps(key).decode("utf-8") + "]"
    return f"[{quote(key)}]"


def format_path(steps: Sequence[Step]) -> str:
    out = ""
    for step in steps:
        if isinstance(step, Attr):
            out = f"{out}.{step.name}" if out else step.name
        else:
            out += str(step)
    return out


def parse_path(path: str) -> list[Step]:
    """Split a path into steps; :class:`PathError` says where it stops making sense."""
    steps: list[Step] = []
    pos = 0
    n = len(path)
    if not path.strip():
        raise PathError("an empty field path")
    while pos < n:
        ch = path[pos]
        if ch == "[":
            step, pos = _selector(path, pos + 1)
            steps.append(step)
            continue
        if ch == ".":
            if not steps:
                raise PathError(f"{path!r}: a path cannot start with '.'")
            pos += 1
        elif steps:
            raise PathError(f"{path!r}: expected '.' or '[' at character {pos + 1}, found {ch!r}")
        m = _NAME.match(path, pos)
        if not m:
            found = repr(path[pos]) if pos < n else "the end"
            raise PathError(f"{path!r}: expected a field name at character {pos + 1}, found {found}")
        steps.append(Attr(m.group()))
        pos = m.end()
    return steps


def _selector(path: str, pos: int) -> tuple[Step, int]:
    """Parse what follows ``[`` up to the matching ``]``."""
    n = len(path)
    if pos < n and path[pos] == '"':
        text, pos = _quoted(path, pos)
        return Key(text), _close(path, pos)
    end = pos
    while end < n and path[end] not in "]=\"":
        end += 1
    head = path[pos:end].strip()
    if end < n and path[end] == "=":
        if not _NAME.fullmatch(head):
            raise PathError(f"{path!r}: expected a field name before '=' at character {pos + 1}")
        pos = end + 1
        while pos < n and path[pos] == " ":
            pos += 1
        if pos < n and path[pos] == '"':
            value, pos = _quoted(path, pos)
            return Match(head, value), _close(path, pos)
        close = path.find("]", pos)
        if close < 0:
            raise PathError(f"{path!r}: '[' at character {pos} is never closed")
        return Match(head, path[pos:close].strip()), close + 1
    if end >= n or path[end] != "]":
        raise PathError(f"{path!r}: '[' at character {pos} is never closed")
    if _INT.match(head):
        return Index(int(head)), end + 1
    if not head:
        raise PathError(f"{path!r}: empty '[]' at character {pos}")
    return Key(head), end + 1


def _quoted(path: str, pos: int) -> tuple[str, int]:
    k = pos + 1
    while k < len(path):
        if path[k] == "\\":
            k += 2
            continue
        if path[k] == '"':
            try:
                text = orjson.loads(path[pos : k + 1])
            except orjson.JSONDecodeError:
                break
            assert isinstance(text, str)
            return text, k + 1
        k += 1
    raise PathError(f"{path!r}: the quoted text at character {pos + 1} is not a closed JSON string")


def _close(path: str, pos: int) -> int:
    if pos < len(path) and path[pos] == "]":
        return pos + 1
    raise PathError(f"{path!r}: expected ']' at character {pos + 1}")


def split_assignment(text: str) -> tuple[str, str]:
    """``PATH=VALUE`` split at the first ``=`` outside brackets and quotes."""
    opened: list[int] = []
    quoted = False
    k = 0
    while k < len(text):
        ch = text[k]
        if quoted:
            if ch == "\\":
                k += 1
            elif ch == '"':
                quoted = False
        elif ch == '"':
            quoted = True
        elif ch == "[":
            opened.append(k)
        elif ch == "]":
            if opened:
                opened.pop()
        elif ch == "=" and not opened:
            return text[:k].strip(), text[k + 1 :]
        k += 1
    if opened:
        raise PathError(f"{text!r}: '[' at character {opened[0] + 1} is never closed")
    raise PathError(f"{text!r}: expected PATH=VALUE")


# -- type hints ---------------------------------------------------------------------------

_HINTS: dict[type, dict[str, Any]] = {}


def field_hints(cls: type) -> dict[str, Any]:
    """The resolved annotations of a dataclass, plus the return types of its properties."""
    hints = _HINTS.get(cls)
    if hints is None:
        hints = {}
        if dataclasses.is_dataclass(cls):
            try:
                hints.update((k, v) for k, v in get_type_hints(cls).items()
                             if get_origin(v) is not ClassVar and v is not ClassVar)
            except (NameError, TypeError):
                pass
        for base in reversed(cls.__mro__):
            for name, attr in vars(base).items():
                if isinstance(attr, property) and attr.fget is not None and name not in hints:
                    try:
                        ret = get_type_hints(attr.fget).get("return")
                    except (NameError, TypeError):
                        ret = None
                    if ret is not None:
                        hints[name] = ret
        _HINTS[cls] = hints
    return hints


def strip_optional(hint: Any) -> Any:
    """``T | None`` -> ``T``; any other hint unchanged."""
    if get_origin(hint) in (Union, types.UnionType):
        rest = [a for a in get_args(hint) if a is not type(None)]
        if len(rest) == 1:
            return rest[0]
    return hint


def item_hint(hint: Any, index: int | None = None) -> Any:
    """The hint of one item of a container hint (``list[T]`` -> ``T``), or None if unknown."""
    hint = strip_optional(hint)
    origin = get_origin(hint)
    args = get_args(hint)
    if origin is tuple and args:
        if len(args) == 2 and args[1] is Ellipsis:
            return args[0]
        if index is not None and -len(args) <= index < len(args):
            return args[index]
        return None
    if origin is not None and isinstance(origin, type):
        if issubclass(origin, Mapping) and len(args) == 2:
            return args[1]
        if issubclass(origin, Sequence) and len(args) == 1:
            return args[0]
    return None


def fields_of(value: Any) -> list[str]:
    """The names a path can use after ``value.``, for messages."""
    if dataclasses.is_dataclass(value):
        names = [f.name for f in dataclasses.fields(value)]
        names += [n for n in field_hints(type(value)) if n not in names]
        return names
    return []


# -- matching key values ------------------------------------------------------------------


def key_text(value: Any) -> str | None:
    """How a key value shows in a path, or None when it cannot be a key."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, enum.Enum):
        return value.name
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return value
    if isinstance(value, bytes):
        text = value.rstrip(b"\0")
        if text and all(32 <= b < 127 for b in text):
            return text.decode("ascii")
    return None


def key_matches(value: Any, text: str) -> bool:
    """Whether a field value is what ``[key=text]`` asks for."""
    if isinstance(value, bool):
        return text.lower() == ("true" if value else "false")
    if isinstance(value, enum.Enum) and value.name == text:
        return True
    if isinstance(value, int):
        try:
            return int(text, 0) == value
        except ValueError:
            return False
    if isinstance(value, str):
        return value == text
    shown = key_text(value)
    return shown is not None and shown == text


# -- resolving ----------------------------------------------------------------------------


@dataclass(slots=True)
class Resolved:
    """Where a path leads: the value, its type hint, and how to get there again.

    ``chain`` holds ``(container, step)`` for every step, so a setter can walk
    back up and replace immutable containers (tuples, frozen dataclasses).
    ``canonical`` is the path with key selections turned into indexes.
    """

    value: Any
    hint: Any
    steps: list[Step]
    canonical: list[Step]
    chain: list[tuple[Any, Step, Any]]  # (container, canonical step, container hint)

    @property
    def path(self) -> str:
        return format_path(self.canonical)


def resolve(root: Any, path: str | Sequence[Step]) -> Resolved:
    """Follow ``path`` from ``root``; :class:`PathError` names the first step that fails."""
    steps = parse_path(path) if isinstance(path, str) else list(path)
    if (steps and isinstance(steps[0], Attr) and steps[0].name == "data"
            and not hasattr(root, "data")):
        steps = steps[1:]  # a JSON dump's path ("data.chunks[3]") names the same field
    value = root
    hint: Any = type(root)
    canonical: list[Step] = []
    chain: list[tuple[Any, Step, Any]] = []
    for step in steps:
        where = format_path(canonical) or "(top)"
        if isinstance(step, Attr):
            new_hint = _attr_hint(value, step.name)
            nxt = _get_attr(value, step.name, where)
            canon: Step = step
        elif isinstance(step, Key):
            if not isinstance(value, Mapping):
                raise PathError(f"{where}: [{quote(step.key)}] needs a mapping, found {_kind(value)}")
            nxt, canon = _get_key(value, step.key, where), step
            new_hint = item_hint(hint)
        else:
            if isinstance(value, Mapping) and isinstance(step, Index):
                nxt, canon = _get_key(value, str(step.index), where), Key(str(step.index))
                new_hint = item_hint(hint)
            else:
                index = _index(value, step, where)
                nxt, canon = value[index], Index(index)
                new_hint = item_hint(hint, index)
        chain.append((value, canon, hint))
        canonical.append(canon)
        value = nxt
        hint = new_hint
    return Resolved(value, hint, steps, canonical, chain)


def get(root: Any, path: str | Sequence[Step]) -> Any:
    return resolve(root, path).value




def _kind(value: Any) -> str:
    if value is None:
        return "null"
    return type(value).__name__


def _attr_hint(value: Any, name: str) -> Any:
    return field_hints(type(value)).get(name)


def _get_attr(value: Any, name: str, where: str) -> Any:
    if name.startswith("_") or isinstance(value, str | bytes | int | float | Mapping) or value is None:
        raise _no_field(value, name, where)
    try:
        return getattr(value, name)
    except AttributeError:
        raise _no_field(value, name, where) from None


def _no_field(value: Any, name: str, where: str) -> PathError:
    names = fields_of(value)
    also = f" (fields: {', '.join(names)})" if names else ""
    return PathError(f"{where}: {_kind(value)} has no field {name!r}{also}")


def _get_key(value: Mapping[Any, Any], key: str, where: str) -> Any:
    if key in value:
        return value[key]
    for k in value:
        if key_matches(k, key):
            return value[k]
    shown = ", ".join(quote(str(k)) for k in list(value)[:20])
    raise PathError(f"{where}: no entry {quote(key)} (entries: {shown or 'none'})")


def _is_sequence(value: Any) -> bool:
    if isinstance(value, str | bytes | bytearray | Mapping):
        return False
    return isinstance(value, Sequence) or (hasattr(value, "__len__") and hasattr(value, "__getitem__"))


def _index(value: Any, step: Step, where: str) -> int:
    if not _is_sequence(value):
        raise PathError(f"{where}: {step} needs a list, found {_kind(value)}")
    n = len(value)
    if isinstance(step, Index):
        i = step.index + n if step.index < 0 else step.index
        if not 0 <= i < n:
            raise PathError(f"{where}: index {step.index} is out of range ({n} items)")
        return i
    assert isinstance(step, Match)
    found = [i for i in range(n) if _item_matches(value[i], step)]
    if not found:
        raise PathError(f"{where}: no item with {step.key} = {quote(step.value)} ({n} items)")
    if len(found) > 1:
        raise PathError(f"{where}: {len(found)} items have {step.key} = {quote(step.value)} "
                        f"(at {', '.join(map(str, found[:10]))}); select one by index")
    return found[0]


def _item_matches(item: Any, step: Match) -> bool:
    if isinstance(item, Mapping):
        return step.key in item and key_matches(item[step.key], step.value)
    if step.key.startswith("_"):
        return False
    try:
        value = getattr(item, step.key)
    except AttributeError:
        return False
    return key_matches(value, step.value)


# -- setting ------------------------------------------------------------------------------


def assign(resolved: Resolved, value: Any) -> None:
    """Put ``value`` where ``resolved`` points, rebuilding immutable containers on the way up.

    The root itself cannot be replaced (an empty path is refused when parsing).
    """
    new = value
    for container, step, _ in reversed(resolved.chain):
        replaced = _set_in(container, step, new)
        if replaced is None:
            break
        new = replaced
    else:
        raise PathError(f"{resolved.path}: the top-level model cannot be replaced in place")
    got = resolve(resolved.chain[0][0], resolved.canonical).value
    if got is not value and not same_value(got, value):
        raise PathError(f"{resolved.path}: cannot be replaced here, it sits in a list computed "
                        "from other fields; set the fields of the item instead")


def same_value(a: Any, b: Any) -> bool:
    """Equality that never raises (numpy arrays compare as a whole, not element-wise)."""
    if a is b:
        return True
    try:
        return bool(a == b)
    except (ValueError, TypeError):
        try:
            import numpy as np

            return bool(np.array_equal(a, b))
        except (ImportError, ValueError, TypeError):
            return False


def _set_in(container: Any, step: Step, value: Any) -> Any:
    """Set in place and return None, or return a changed copy of an immutable container."""
    if isinstance(step, Attr):
        if isinstance(getattr(type(container), step.name, None), property):
            prop = getattr(type(container), step.name)
            if prop.fset is None:
                raise PathError(f"{step.name} is computed from other fields and cannot be set "
                                "as a whole; set the fields of its items instead")
        try:
            setattr(container, step.name, value)
        except dataclasses.FrozenInstanceError:
            return dataclasses.replace(container, **{step.name: value})
        return None
    if isinstance(step, Key):
        if isinstance(container, dict):
            key = step.key if step.key in container else next(
                k for k in container if key_matches(k, step.key))
            container[key] = value
            return None
        raise PathError(f"[{quote(step.key)}]: this mapping cannot be changed")
    assert isinstance(step, Index)
    if isinstance(container, tuple):
        items = list(container)
        items[step.index] = value
        return type(container)(items) if type(container) is tuple else type(container)(*items)
    try:
        container[step.index] = value
    except TypeError:
        raise PathError(f"[{step.index}]: a {_kind(container)} cannot be changed in place") from None
    return None


__all__ = [
    "Attr", "Index", "Key", "Match", "PathError", "Resolved", "Step", "assign", "field_hints",
    "format_path", "get", "item_hint", "key_matches", "key_step", "key_text", "parse_path", "quote",
    "resolve",
    "same_value", "split_assignment", "strip_optional",
]
