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

import base64
import dataclasses
import enum
import re
import types
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Union, get_args, get_origin, get_type_hints

from .errors import FormatError, Problem, SavecraftError
from . import registry
from .lazy import lazy_module

if TYPE_CHECKING:
    import difflib

    import orjson
else:  # imported on first use (savecraft.lazy): start-up does not need them (orjson: only a
    # path with a quoted key, which a validate that finds nothing never writes)
    difflib = lazy_module("difflib")
    orjson = lazy_module("orjson")


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
    if shown is not None and shown == text:
        return True
    if isinstance(value, bytes | bytearray):  # as a dump shows bytes: base64
        return base64.b64encode(bytes(value)).decode("ascii") == text
    return False


# -- resolving ----------------------------------------------------------------------------


@dataclass(slots=True)
class Resolved:
    """Where a path leads: the value, its type hint, and how to get there again.

    ``chain`` holds ``(container, step)`` for every step, so a setter can walk
    back up and replace immutable containers (tuples, frozen dataclasses).
    ``canonical`` is the path with key selections turned into indexes, as
    the model holds it; :attr:`path` is how it is shown (see :func:`shown`).
    """

    value: Any
    hint: Any
    steps: list[Step]
    canonical: list[Step]
    chain: list[tuple[Any, Step, Any]]  # (container, canonical step, container hint)

    @property
    def path(self) -> str:
        """The canonical path: what dumps, edits, diffs and messages print for this value."""
        if not self.chain:
            return format_path(self.canonical)
        return format_path(shown(self.chain[0][0], self.canonical))


def resolve(root: Any, path: str | Sequence[Step]) -> Resolved:
    """Follow ``path`` from ``root``; :class:`PathError` names the first step that fails."""
    steps = _own_steps(root, path)
    walk = _Follow(root)
    for step in steps:
        walk.step(step)
    return Resolved(walk.value, walk.hint, steps, walk.canonical, walk.chain)


def _own_steps(root: Any, path: str | Sequence[Step]) -> list[Step]:
    steps = parse_path(path) if isinstance(path, str) else list(path)
    if (steps and isinstance(steps[0], Attr) and steps[0].name == "data"
            and not hasattr(root, "data")):
        steps = steps[1:]  # a JSON dump's path ("data.chunks[3]") names the same field
    return steps


class _Follow:
    """A walk down a model, one step at a time (so a caller can stop where a step fails)."""

    __slots__ = ("canonical", "chain", "hint", "value")

    def __init__(self, root: Any) -> None:
        self.value = root
        self.hint: Any = type(root)
        self.canonical: list[Step] = []
        self.chain: list[tuple[Any, Step, Any]] = []  # (container, canonical step, container hint)

    def step(self, step: Step) -> None:
        value, hint, canonical = self.value, self.hint, self.canonical
        where = format_path(canonical) or "(top)"
        if isinstance(step, Attr):
            if _through_holder(value, step.name):
                # ``asset.title`` is ``asset.value.title``: the canonical path says so
                inner = _get_attr(value, "value", where)
                self.chain.append((value, Attr("value"), hint))
                canonical.append(Attr("value"))
                value, hint = inner, None
                where = format_path(canonical)
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
        self.chain.append((value, canon, hint))
        canonical.append(canon)
        self.value = nxt
        self.hint = new_hint


def get(root: Any, path: str | Sequence[Step]) -> Any:
    return resolve(root, path).value


def holds_value(cls: type) -> bool:
    """Whether instances hold one decoded value as ``.value`` (a TirNanoG asset) and are no record.

    Paths see through them: ``asset.title`` names ``asset.value.title``.
    """
    return isinstance(getattr(cls, "value", None), property) and not dataclasses.is_dataclass(cls)


def _through_holder(value: Any, name: str) -> bool:
    return (name != "value" and holds_value(type(value)) and not name.startswith("_")
            and not hasattr(type(value), name))


def canonical_prefix(root: Any, path: str) -> str:
    """``path`` shown canonically as far as it names values of ``root``, the rest as written.

    For problems: a problem may name bytes the model does not keep (a
    block's ``checksum``, a record that could not be read); the part that
    does name something in the model is printed the one way, so one record
    has one name in every message.
    """
    try:
        steps = _own_steps(root, path)
    except PathError:
        return path
    walk = _Follow(root)
    n = 0
    for step in steps:  # as far as the steps go: a value that cannot be decoded is tried once
        try:
            walk.step(step)
        except (SavecraftError, ValueError, LookupError, TypeError, AttributeError):
            break
        n += 1
    if n == 0:
        return path
    try:
        head = shown(root, walk.canonical)
    except (SavecraftError, ValueError, LookupError, TypeError, AttributeError):
        return path
    return format_path(head + steps[n:])


def canonical(root: Any, path: str | Sequence[Step]) -> str:
    """The one way a value's path is printed: indexes, through the model's views by kind.

    ``chunks[3].entity.x``, ``users[name=Brigid].entity.x`` and
    ``users[1].entity.x`` name one value of a TirNanoG save; all three give
    ``users[1].entity.x``.
    """
    return resolve(root, path).path


# -- views by kind ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class View:
    """A property of a record that shows the items of one of its lists that have one type.

    ``many``: a list of them (``SaveGame.users`` -> ``users[k]``); otherwise
    the first of them (``SaveGame.deny`` -> ``deny``).
    """

    name: str
    many: bool


_VIEWS: dict[tuple[type, str], dict[type, View]] = {}


def views(cls: type, name: str) -> dict[type, View]:
    """The views of the list field ``name`` of record class ``cls``, by item type.

    Derived from the type hints of the class's properties, so a model gets
    kind-named paths by declaring ``def users(self) -> list[UserChunk]``.
    """
    key = (cls, name)
    found = _VIEWS.get(key)
    if found is None:
        found = {}
        is_record = dataclasses.is_dataclass(cls)
        names = {f.name for f in dataclasses.fields(cls)} if is_record else set()
        hints = field_hints(cls)
        holds = _item_types(hints.get(name)) if name in names else None
        if holds is not None:
            props = {n for base in cls.__mro__ for n, a in vars(base).items()
                     if isinstance(a, property)}
            for prop, hint in hints.items():
                if prop not in props:
                    continue
                origin = get_origin(hint)
                many = isinstance(origin, type) and issubclass(origin, Sequence) \
                    and not issubclass(origin, str | bytes)
                item = get_args(hint)[0] if many and get_args(hint) else strip_optional(hint)
                # a view of one of several record types (``Player | PwmPlayer | None``)
                # views each of them
                kinds = get_args(item) if get_origin(item) in (Union, types.UnionType) else (item,)
                for kind in kinds:
                    if (isinstance(kind, type) and dataclasses.is_dataclass(kind)
                            and (not holds or any(issubclass(kind, t) for t in holds))):
                        found.setdefault(kind, View(prop, many))
        _VIEWS[key] = found
    # A record may name its views itself, for item types its hints cannot list (an Angband
    # save's blocks, found by block name for any game): ``__path_views__(name)`` gives
    # {item class: property} for single views; the hints' own views come first.
    more = getattr(cls, "__path_views__", None)
    if callable(more):
        extra = more(name)
        if extra:
            found = {**{k: View(v, False) for k, v in extra.items()}, **found}
    return found


def _item_types(hint: Any) -> tuple[type, ...] | None:
    """The item types a list field's hint names; () when it names none (an untyped list
    class); None when the field is no list at all."""
    hint = strip_optional(hint)
    origin = get_origin(hint)
    if origin is not None and isinstance(origin, type) and issubclass(origin, Sequence) \
            and not issubclass(origin, str | bytes):
        args = get_args(hint)
        item = args[0] if args else None
        members = get_args(item) if get_origin(item) in (Union, types.UnionType) else (item,)
        return tuple(t for t in members if isinstance(t, type))
    if isinstance(hint, type) and issubclass(hint, Sequence) and not issubclass(hint, str | bytes):
        return ()
    return None


def shown(root: Any, steps: Sequence[Step]) -> list[Step]:
    """Index-form ``steps`` with every list item that a view shows named through that view."""
    out: list[Step] = []
    value = root
    k = 0
    while k < len(steps):
        step = steps[k]
        nxt = steps[k + 1] if k + 1 < len(steps) else None
        if (isinstance(step, Attr) and isinstance(nxt, Index) and dataclasses.is_dataclass(value)
                and not isinstance(value, type)):
            seq = getattr(value, step.name)
            i = nxt.index + len(seq) if nxt.index < 0 else nxt.index
            item = seq[i]
            via = _through_view(value, step.name, seq, i, item)
            if via is not None:
                out.extend(via)
                value = item
                k += 2
                continue
        out.append(step)
        value = _step_value(value, step)
        k += 1
    return out


def _step_value(value: Any, step: Step) -> Any:
    if isinstance(step, Attr):
        return getattr(value, step.name)
    if isinstance(step, Key):
        if step.key in value:
            return value[step.key]
        return next(v for k, v in value.items() if key_matches(k, step.key))
    if isinstance(step, Index):
        if isinstance(value, Mapping):
            return _step_value(value, Key(str(step.index)))
        return value[step.index]
    raise PathError(f"{step}: not an index-form step")


def _through_view(record: Any, name: str, seq: Any, i: int, item: Any) -> list[Step] | None:
    view = views(type(record), name).get(type(item))
    if view is None:
        return None
    # A lazy list may tag its items cheaply (``magic(i)``: equal for items of one type),
    # so counting the items before this one decodes none of them.
    tag = getattr(seq, "magic", None)
    if callable(tag):
        mine = tag(i)
        before = sum(1 for j in range(i) if tag(j) == mine)
        trusted = True
    else:
        cls = type(item)
        before = sum(1 for j in range(i) if type(seq[j]) is cls)
        trusted = False
    try:
        if view.many:
            if not trusted:
                shown_list = getattr(record, view.name)
                if not (0 <= before < len(shown_list) and shown_list[before] is item):
                    return None
            return [Attr(view.name), Index(before)]
        if before == 0 and getattr(record, view.name) is item:
            return [Attr(view.name)]
    except (SavecraftError, ValueError, LookupError, TypeError, AttributeError):
        pass  # a view that cannot be computed here: the item keeps its plain name
    return None


def _dump_view(cls: type, name: str, items: list[Any], i: int) -> tuple[list[Step], type] | None:
    """``[view steps], item class`` for item ``i`` of a dumped list, told apart by ``kind`` tags."""
    from .jsonmap import KIND

    tag = items[i].get(KIND) if isinstance(items[i], dict) else None
    if tag is None:
        return None
    for item_cls, view in views(cls, name).items():
        if getattr(item_cls, "KIND", None) != tag:
            continue
        before = sum(1 for x in items[:i] if isinstance(x, dict) and x.get(KIND) == tag)
        if view.many:
            return [Attr(view.name), Index(before)], item_cls
        if before == 0:
            return [Attr(view.name)], item_cls
    return None


def from_dump_error(err: FormatError, doc: Any, model_type: type | None = None) -> FormatError:
    """The JSON mapping's error about a dump, with its paths as the model's.

    ``savecraft build`` and the ``$EDITOR`` round trip read a dump with
    :func:`savecraft.jsonmap.from_json`; its problems name values where they
    sit in the document (``chunks[2].entity.x``, or with the document's
    ``data.`` in front). This gives the same
    error naming them as every other message does (``users[0].entity.x``).
    ``model_type`` defaults to the model of the document's ``format``.
    """
    if model_type is None and isinstance(doc, dict):
        try:
            model_type = registry.get(str(doc.get("format"))).model
        except SavecraftError:
            model_type = None
    if model_type is None:
        return err
    data = doc.get("data") if isinstance(doc, dict) else None
    return renamed(err, lambda path: from_dump_path(model_type, data, path))


def renamed(err: FormatError, rename: Callable[[str], str]) -> FormatError:
    """``err`` with each problem's path (when it has one) passed through ``rename``; ``err``
    itself when no path changes."""
    problems = [renamed_problem(p, rename) for p in err.problems]
    if problems == err.problems:
        return err
    first = problems[0]
    return FormatError(first.offset, first.path, first.expected, first.found, problems=problems)


def renamed_problem(problem: Problem, rename: Callable[[str], str]) -> Problem:
    """``problem`` with its path (when it has one) passed through ``rename``."""
    if not problem.path:
        return problem
    path = rename(problem.path)
    return problem if path == problem.path else dataclasses.replace(problem, path=path)


def from_dump_path(model_type: type, data: Any, path: str) -> str:
    """The canonical path of a value a JSON dump names by its JSON path.

    ``savecraft.jsonmap`` names a bad value of a dump by where it sits in the
    document (``chunks[2].entity.x``, with ``data.`` in front or not); this
    is the same value's path in the model (``users[0].entity.x``), found
    from the dump's own ``kind`` tags and the model's views. ``data`` is the
    document's ``"data"`` member. A path that goes where the document does
    not is only stripped of its ``data.`` prefix.
    """
    try:
        steps = parse_path(path)
    except PathError:
        return path
    if steps and steps[0] == Attr("data"):
        steps = steps[1:]
    out: list[Step] = []
    cls: Any = model_type
    value = data
    k = 0
    while k < len(steps):
        step = steps[k]
        nxt = steps[k + 1] if k + 1 < len(steps) else None
        hints = field_hints(cls) if isinstance(cls, type) else {}
        items = value.get(step.name) if isinstance(step, Attr) and isinstance(value, dict) else None
        if (isinstance(step, Attr) and isinstance(nxt, Index) and isinstance(items, list)
                and 0 <= nxt.index < len(items)):
            item = items[nxt.index]
            via = _dump_view(cls, step.name, items, nxt.index) if isinstance(cls, type) else None
            if via is not None:
                out += via[0]
                cls = via[1]
            else:
                out += [step, nxt]
                cls = item_hint(hints.get(step.name))
            value = item
            k += 2
            continue
        out.append(step)
        if isinstance(step, Attr):
            cls = strip_optional(hints.get(step.name))
            value = value.get(step.name) if isinstance(value, dict) else None
        elif isinstance(step, Index) and isinstance(value, list) and 0 <= step.index < len(value):
            cls, value = item_hint(cls, step.index), value[step.index]
        else:
            cls, value = None, None
        k += 1
    return format_path(out)




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
    near = nearby(value, name, "" if where == "(top)" else where)
    hint = f"; nearby: {', '.join(near)}" if near else ""
    return PathError(f"{where}: {_kind(value)} has no field {name!r}{hint}{also}")


NEARBY_DEPTH = 3  # steps below the record where a name was not found that suggestions look into
NEARBY_BUDGET = 400  # records looked at, at most: a suggestion must not cost more than the edit


def nearby(value: Any, name: str, prefix: str = "", limit: int = 5) -> list[str]:
    """Paths that exist under ``value`` and end in a name like ``name`` (a typo, or one level off).

    A wrong path is most often a misspelt name (``gear.itmes``) or a right
    name one record too high (``items`` for ``gear.items``); both are found
    by looking a few records down for names close to the one given. Lists
    are looked into through their first item, so a suggestion reads
    ``users[0].name``, a path that resolves. The walk is bounded
    (:data:`NEARBY_BUDGET` records), so a huge model costs no more than a
    small one.
    """
    want = name.lower()
    found: list[tuple[float, int, str]] = []
    queue: list[tuple[Any, str, int]] = [(value, prefix, 0)]
    seen = 0
    while queue and seen < NEARBY_BUDGET:
        record, at, depth = queue.pop(0)
        seen += 1
        for field_name in fields_of(record):
            if field_name.startswith("_"):
                continue
            path = f"{at}.{field_name}" if at else field_name
            low = field_name.lower()
            score = difflib.SequenceMatcher(None, want, low).ratio()
            if low == want and depth:
                score = 2.0  # the very name, one record down: the likeliest meaning
            elif len(want) >= 3 and (want in low or low in want) and len(low) >= 3:
                score = max(score, 0.8)
            if score >= 0.75:
                found.append((-score, depth, path))
            if depth + 1 > NEARBY_DEPTH:
                continue
            try:
                child = getattr(record, field_name)
            except Exception:  # a view that cannot be computed for this record: not a suggestion
                continue
            if _is_sequence(child) and not isinstance(child, str | bytes | bytearray):
                if len(child) and dataclasses.is_dataclass(child[0]):
                    queue.append((child[0], f"{path}[0]", depth + 1))
            elif dataclasses.is_dataclass(child):
                queue.append((child, path, depth + 1))
    found.sort()
    return list(dict.fromkeys(path for _, _, path in found))[:limit]


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
        value = _shown_only_in_dumps(item, step.key)
        if value is None:
            return False
    return key_matches(value, step.value)


def _shown_only_in_dumps(item: Any, key: str) -> Any:
    """A member a dump shows that is no attribute: the ``kind`` tag of a record (its ``KIND``)."""
    from .jsonmap import KIND  # the tag's name is the JSON mapping's to choose

    if key == KIND:
        kind = getattr(type(item), "KIND", None)
        if isinstance(kind, str):
            return kind
    return None


# -- setting ------------------------------------------------------------------------------


def assign(resolved: Resolved, value: Any) -> None:
    """Put ``value`` where ``resolved`` points, rebuilding immutable containers on the way up.

    The root itself cannot be replaced (an empty path is refused when parsing).
    """
    new = value
    chain = resolved.chain
    for at in range(len(chain) - 1, -1, -1):
        container, step, _ = chain[at]
        underlying = _underlying(chain, at)
        if underlying is not None:  # a view's list (users[k]) or record (deny): set the model's own
            container, step = underlying
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


def _underlying(chain: list[tuple[Any, Step, Any]], at: int) -> tuple[Any, Step] | None:
    """Where the model itself holds what step ``at`` of the chain reaches through a view.

    ``users[3]`` sits in a list computed from ``chunks``; replacing it there
    would change nothing, so it is replaced in ``chunks`` (the same item, found
    by identity). None when step ``at`` is not such a step.
    """
    container, step, _ = chain[at]
    if isinstance(step, Attr):  # deny = {...}: the record a single view shows
        record, name = container, step.name
        many = False
    elif isinstance(step, Index) and at > 0 and isinstance(chain[at - 1][1], Attr):
        record, prev = chain[at - 1][0], chain[at - 1][1]
        assert isinstance(prev, Attr)
        name, many = prev.name, True
    else:
        return None
    if not dataclasses.is_dataclass(record) or isinstance(record, type):
        return None
    for field_name in (f.name for f in dataclasses.fields(record)):
        for view in views(type(record), field_name).values():
            if view.name != name or view.many != many:
                continue
            item = container[step.index] if many and isinstance(step, Index) else getattr(record, name)
            seq = getattr(record, field_name)
            if views(type(record), field_name).get(type(item)) != view:
                continue
            for i in range(len(seq)):
                if seq[i] is item:
                    return seq, Index(i)
    return None


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
    "Attr", "Index", "Key", "Match", "PathError", "Resolved", "Step", "View", "assign", "canonical",
    "canonical_prefix", "field_hints", "format_path", "from_dump_error", "from_dump_path", "get",
    "holds_value", "item_hint", "key_matches", "key_step", "key_text", "parse_path", "quote",
    "resolve", "same_value", "shown", "split_assignment", "strip_optional", "views",
]
