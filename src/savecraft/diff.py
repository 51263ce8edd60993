"""Field-aware comparison: which values changed, which records came and went.

Two models are walked side by side over their dataclass fields. Lists of
records are matched by what a person calls them, not by position, so
inserting one player into a server save shows as one added record rather
than every later player changing. The key of a record class is its ``KEY``
class attribute when it has one, else its first field named ``name``,
``id``, ``key`` or ``uid``; a key that is a reference (field metadata
``ref``) is compared by what it names in its model; a record type that
occurs once on both sides is one record whatever its key; records without a
key are matched by their order among records of the same type. Lists that
can hand out the original bytes of an item they never decoded
(``raw_or_none``, as the lazy chunk lists do) are first matched on those
bytes, so two large files that differ in one record decode only that record
on each side.

Paths in the result are canonical (:func:`savecraft.paths.canonical`), so
every one of them can be handed back to :func:`savecraft.paths.resolve` or
to ``savecraft edit --set``; which record a value belongs to is a ``note``
for people. Fields declared with ``compare=False`` only record how a file
was encoded; they are compared (as ``encoding`` changes) only when the data
is the same and the bytes still differ.

>>> from savecraft import diff
>>> result = diff.diff_files("before.sav", "after.sav")
>>> for change in result.changes:
...     print(change)
  users[0].entity.x: 723 -> 120  (USER name=Brigid)
"""

from __future__ import annotations

import base64
import bisect
import dataclasses
import enum
import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import orjson
import numpy as np

from . import jsonmap, registry
from .binary import join_path
from .errors import FormatError, Report, SavecraftError
from .fileio import PathLike, read_input
from .paths import PathError, holds_value, key_step, key_text, quote, resolve, same_value

ChangeKind = Literal["changed", "added", "removed", "moved", "encoding"]

KEY_NAMES = ("name", "id", "key", "uid")
# More element-wise changes than this in one list of plain values show as one change of the list.
SCALAR_LIMIT = 64


@dataclass(frozen=True, slots=True)
class Change:
    """One difference. ``old``/``new`` are model values (indexes for ``moved``)."""

    kind: ChangeKind
    path: str
    old: Any = None
    new: Any = None
    # For people, not for edit: which record the value belongs to ("USER name=Brigid"),
    # or what a reference names on each side ("hp" -> "hit_points").
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"change": self.kind, "path": self.path}
        if self.kind == "moved":
            out["from"] = self.old
            out["to"] = self.new
        else:
            if self.kind != "added":
                out["old"] = plain(self.old)
            if self.kind != "removed":
                out["new"] = plain(self.new)
        if self.note:
            out["note"] = self.note
        return out

    def __str__(self) -> str:
        where = self.path or "(top)"
        note = f"  ({self.note})" if self.note else ""
        if self.kind == "added":
            return f"+ {where}: {self.note or describe(self.new)}"
        if self.kind == "removed":
            return f"- {where}: {self.note or describe(self.old)}"
        if self.kind == "moved":
            return f"  {where}: moved from position {self.old} to {self.new}{note}"
        tag = " (encoding only)" if self.kind == "encoding" else ""
        return f"  {where}: {show(self.old)} -> {show(self.new)}{tag}{note}"


@dataclass(slots=True)
class Diff:
    """The differences between two files or models (``a`` is the old side)."""

    format_a: str | None
    format_b: str | None
    changes: list[Change] = field(default_factory=list)
    name_a: str = "a"
    name_b: str = "b"

    @property
    def same_format(self) -> bool:
        return self.format_a == self.format_b

    @property
    def equal(self) -> bool:
        return self.same_format and not self.changes

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "equal": self.equal,
            "a": {"file": self.name_a, "format": self.format_a},
            "b": {"file": self.name_b, "format": self.format_b},
        }
        if not self.same_format:
            out["note"] = "different formats: no field comparison"
        out["changes"] = [c.to_json() for c in self.changes]
        return out

    def dumps(self) -> bytes:
        return orjson.dumps(self.to_json(), option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE)

    def lines(self) -> list[str]:
        if not self.same_format:
            return [(f"{self.name_a} is {self.format_a}, {self.name_b} is {self.format_b}: "
                     "different formats, no field comparison")]
        return [str(c) for c in self.changes]


# -- showing values ---------------------------------------------------------------------------


def plain(value: Any) -> Any:
    """A value as JSON-ready data, through the one JSON mapping where it has a type."""
    if value is None or isinstance(value, bool | str | float) or (
            isinstance(value, int) and not isinstance(value, enum.Enum)):
        return value
    if isinstance(value, bytes | bytearray):
        return base64.b64encode(bytes(value)).decode("ascii")
    if _is_record(value):
        encoded = jsonmap.encoder(type(value))(value)
        kind = getattr(value, "KIND", None)
        if isinstance(kind, str) and isinstance(encoded, dict):
            return {jsonmap.KIND: kind, **encoded}
        return encoded
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    tolist = getattr(value, "tolist", None)
    if callable(tolist) and not isinstance(value, Sequence):
        return tolist()
    if isinstance(value, Sequence) and not isinstance(value, str):
        return [plain(v) for v in value]
    try:
        return jsonmap.encoder(type(value))(value)
    except TypeError:
        return repr(value)


def show(value: Any, width: int = 80) -> str:
    """A short human form of a value for the text output."""
    if isinstance(value, bytes | bytearray):
        if len(value) <= 16:
            return value.hex(" ") if value else "(no bytes)"
        return f"({len(value)} bytes)"
    if _is_record(value):
        return describe(value)
    if isinstance(value, enum.Enum):
        return f"{value.name} ({value.value})"
    text = orjson.dumps(plain(value)).decode("utf-8")
    return text if len(text) <= width else text[: width - 3] + "..."


def describe(value: Any, refs: Refs | None = None) -> str:
    """A record by its kind and key, e.g. ``USER name=Brigid`` (references resolved by ``refs``)."""
    if _is_record(value):
        kind = getattr(value, "KIND", None)
        label = kind if isinstance(kind, str) else type(value).__name__
        key = key_field(type(value))
        if key is not None:
            text = _key_text(value, key, refs)
            if text is not None:
                return f"{label} {key}={quote(text)}"
        return label
    return show(value)


# -- references -------------------------------------------------------------------------------

# (kind, value) -> what the reference names in its model, or None when it names nothing.
Refs = Callable[[str, Any], Any]


def refs_of(model: Any) -> Refs:
    """How ``model`` resolves a reference field (``field(metadata={"ref": KIND})``).

    A reference of kind ``string`` is what ``model.string(value)`` returns,
    and so on: a model that stores names as offsets into a string table
    (a TirNanoG game) offers that method, and diff compares the names.
    """
    def resolve_ref(kind: str, value: Any) -> Any:
        method = getattr(model, kind, None)
        if not callable(method) or isinstance(value, bool) or not isinstance(value, int):
            return None
        try:
            return method(value)
        except (SavecraftError, ValueError, TypeError, LookupError):
            return None
    return resolve_ref


_REF_KEYS: dict[tuple[type, str], str | None] = {}


def _ref_kind(cls: type, name: str) -> str | None:
    """The reference kind of field ``name`` of ``cls``, or None for an ordinary field."""
    try:
        return _REF_KEYS[(cls, name)]
    except KeyError:
        pass
    kind = None
    if dataclasses.is_dataclass(cls):
        for f in dataclasses.fields(cls):
            if f.name == name:
                found = f.metadata.get("ref")
                kind = found if isinstance(found, str) else None
    _REF_KEYS[(cls, name)] = kind
    return kind


def _key_text(item: Any, key: str, refs: Refs | None) -> str | None:
    value = getattr(item, key, None)
    ref = _ref_kind(type(item), key) if refs is not None else None
    if ref is not None and refs is not None:
        named = refs(ref, value)
        if isinstance(named, str):
            return named
    return key_text(value)


# -- keys -------------------------------------------------------------------------------------

_KEYS: dict[type, str | None] = {}


def key_field(cls: type) -> str | None:
    """The field that identifies records of ``cls`` in a list, or None (match by order)."""
    try:
        return _KEYS[cls]
    except KeyError:
        pass
    key: str | None = None
    declared = getattr(cls, "KEY", None)
    names = [f.name for f in dataclasses.fields(cls)] if dataclasses.is_dataclass(cls) else []
    if isinstance(declared, str):
        key = declared or None
    else:
        key = next((n for n in KEY_NAMES if n in names), None)
    _KEYS[cls] = key
    return key


def _identity(item: Any, refs: Refs, single: frozenset[type]) -> tuple[str, str | None, str | None]:
    """(type, key field, key text) of a list item; plain values are all alike.

    A record whose type occurs once in the list on both sides is that one
    record whatever its key says (an Angband save's one description block,
    whose ``name`` is the character's and may change).
    """
    if _is_record(item):
        cls = type(item)
        key = key_field(cls)
        if key is not None and cls not in single:
            text = _key_text(item, key, refs)
            if text is not None:
                return cls.__qualname__, key, text
        return cls.__qualname__, None, None
    return "", None, None


def _is_record(value: Any) -> bool:
    return dataclasses.is_dataclass(value) and not isinstance(value, type)


def _is_sequence(value: Any) -> bool:
    if isinstance(value, str | bytes | bytearray | Mapping):
        return False
    return isinstance(value, Sequence)


def _is_array(value: Any) -> bool:
    return hasattr(value, "shape") and hasattr(value, "dtype")


def _own_eq(cls: type) -> bool:
    """Whether ``==`` on ``cls`` means something (generated by dataclass or written by hand)."""
    params = getattr(cls, "__dataclass_params__", None)
    if params is not None and params.eq:
        return True
    return any("__eq__" in vars(base) for base in cls.__mro__[:-1])


# -- the walk --------------------------------------------------------------------------------


class _Walk:
    def __init__(self, encoding: bool, refs: tuple[Refs, Refs]) -> None:
        self.out: list[Change] = []
        # encoding pass: also compare compare=False fields, and trust no == shortcut
        self.encoding = encoding
        self.refs = refs

    def emit(self, kind: ChangeKind, path: str, old: Any, new: Any, note: str = "") -> None:
        if self.encoding and kind == "changed":
            kind = "encoding"
        self.out.append(Change(kind, path, old, new, note))

    def value(self, a: Any, b: Any, path: str) -> None:
        if a is b:
            return
        if _is_record(a) and type(a) is type(b):
            self.record(a, b, path)
        elif isinstance(a, Mapping) and isinstance(b, Mapping):
            self.mapping(a, b, path)
        elif _is_array(a) and _is_array(b):
            self.array(a, b, path)
        elif _is_sequence(a) and _is_sequence(b):
            self.sequence(a, b, path)
        elif type(a) is type(b) and holds_value(type(a)):
            self.holder(a, b, path)
        elif type(a) is not type(b) or not same_value(a, b):
            self.emit("changed", path, a, b)

    def holder(self, a: Any, b: Any, path: str) -> None:
        """An object that holds one decoded value (a TirNanoG asset): compare the values."""
        if not self.encoding:
            try:
                if a == b:
                    return
            except (ValueError, TypeError):
                pass
        try:
            va, vb = a.value, b.value
        except SavecraftError:  # cannot be decoded: compare what can be
            if not same_value(a, b):
                self.emit("changed", path, a, b)
            return
        self.value(va, vb, join_path(path, "value"))

    def reference(self, kind: str, a: Any, b: Any, path: str) -> None:
        """A reference field: the same name on both sides is no change, whatever the offsets."""
        if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
            for i, (x, y) in enumerate(zip(a, b)):
                self.reference(kind, x, y, f"{path}[{i}]")
            return
        if type(a) is type(b) and same_value(a, b):
            return  # the same reference; if what it names was renamed, that change is listed there
        ra, rb = self.refs[0](kind, a), self.refs[1](kind, b)
        if ra is not None and rb is not None:
            if ra != rb:
                self.emit("changed", path, a, b, f"{show(ra)} -> {show(rb)}")
        elif type(a) is not type(b) or not same_value(a, b):
            self.emit("changed", path, a, b)

    def record(self, a: Any, b: Any, path: str) -> None:
        cls = type(a)
        if not self.encoding and _own_eq(cls):
            try:
                if a == b:
                    return
            except (ValueError, TypeError):  # e.g. numpy fields: compare field by field
                pass
        for f in dataclasses.fields(cls):
            if not f.compare and not self.encoding:
                continue
            ref = f.metadata.get("ref")
            if isinstance(ref, str):
                self.reference(ref, getattr(a, f.name), getattr(b, f.name), join_path(path, f.name))
                continue
            self.value(getattr(a, f.name), getattr(b, f.name), join_path(path, f.name))

    def mapping(self, a: Mapping[Any, Any], b: Mapping[Any, Any], path: str) -> None:
        for k in a:
            sub = path + _map_step(k)
            if k not in b:
                self.emit("removed", sub, a[k], None)
            else:
                self.value(a[k], b[k], sub)
        for k in b:
            if k not in a:
                self.emit("added", path + _map_step(k), None, b[k])

    def array(self, a: Any, b: Any, path: str) -> None:
        if a.shape != b.shape or a.dtype != b.dtype:
            self.emit("changed", path, a, b)
            return
        where = np.argwhere(a != b)
        if len(where) == 0:
            return
        if len(where) > SCALAR_LIMIT:
            self.emit("changed", path, a, b)
            return
        for idx in where:
            at = tuple(int(i) for i in idx)
            sub = path + "".join(f"[{i}]" for i in at)
            self.emit("changed", sub, a[at].item(), b[at].item())

    def sequence(self, a: Sequence[Any], b: Sequence[Any], path: str) -> None:
        na, nb = len(a), len(b)
        pairs: list[tuple[int, int]] = []
        left_a: list[int]
        left_b: list[int]
        raw_a = getattr(a, "raw_or_none", None)
        raw_b = getattr(b, "raw_or_none", None)
        if callable(raw_a) and callable(raw_b):
            # Items neither side has decoded: equal bytes mean equal items, and no decoding.
            pool: dict[bytes, list[int]] = {}
            left_b = []
            for j in range(nb):
                rb = raw_b(j)
                if rb is None:
                    left_b.append(j)
                else:
                    pool.setdefault(rb, []).append(j)
            for js in pool.values():
                js.reverse()  # so pop() hands out the first position first
            left_a = []
            for i in range(na):
                ra = raw_a(i)
                hit = pool.get(ra) if ra is not None else None
                if hit:
                    pairs.append((i, hit.pop()))
                else:
                    left_a.append(i)
            left_b.extend(j for js in pool.values() for j in js)
            left_b.sort()
        elif na == nb and not self.encoding:
            left_a, left_b = [], []
            for i in range(na):
                if not _same_item(a[i], b[i]):
                    left_a.append(i)
                    left_b.append(i)
                else:
                    pairs.append((i, i))
        else:
            left_a, left_b = list(range(na)), list(range(nb))
        items_a = {i: a[i] for i in left_a}
        items_b = {j: b[j] for j in left_b}
        single = _single_types(a, items_a) & _single_types(b, items_b)
        ids_a = _numbered(left_a, items_a, self.refs[0], single)
        ids_b = _numbered(left_b, items_b, self.refs[1], single)
        by_id_a = {ident: i for i, ident in ids_a.items()}
        start = len(self.out)
        plain_items = True
        matched_a: set[int] = set()
        for j in left_b:
            ident = ids_b[j]
            item_b = items_b[j]
            plain_items = plain_items and not _is_record(item_b) and not _is_sequence(item_b)
            sub_b = f"{path}[{j}]"
            ia = by_id_a.get(ident)
            if ia is None:
                self.emit("added", sub_b, None, item_b)
                continue
            matched_a.add(ia)
            pairs.append((ia, j))
            self.value(items_a[ia], item_b, sub_b)
        for i in left_a:
            if i not in matched_a:
                item_a = items_a[i]
                plain_items = plain_items and not _is_record(item_a) and not _is_sequence(item_a)
                self.emit("removed", f"{path}[{i}]", item_a, None)
        if plain_items and len(self.out) - start > SCALAR_LIMIT:
            del self.out[start:]
            self.emit("changed", path, a, b)
            return
        self.moves(pairs, path)

    def moves(self, pairs: list[tuple[int, int]], path: str) -> None:
        """Matched items whose relative order changed: those outside a longest increasing run."""
        pairs.sort()
        js = [j for _, j in pairs]
        if all(x < y for x, y in itertools.pairwise(js)):
            return
        keep = _longest_increasing(js)
        for k, (i, j) in enumerate(pairs):
            if k in keep:
                continue
            self.emit("moved", f"{path}[{j}]", i, j)


def _map_step(key: Any) -> str:
    if isinstance(key, int) and not isinstance(key, bool):
        return f"[{key}]"  # resolves as the entry whose key is that number
    text = key_text(key)
    return key_step(text if text is not None else str(key))


def _same_item(x: Any, y: Any) -> bool:
    if x is y:
        return True
    if type(x) is not type(y):
        return False
    if _is_record(x) and not _own_eq(type(x)):
        return False
    return same_value(x, y)


Ident = tuple[str, str | None, str | None, int]


def _single_types(seq: Sequence[Any], items: Mapping[int, Any]) -> frozenset[type]:
    """Record types among ``items`` that occur exactly once in the whole of ``seq``.

    A lazy list that tags its items (``magic(i)``) is counted without decoding.
    """
    tag = getattr(seq, "magic", None)
    tags: list[Any] = ([tag(i) for i in range(len(seq))] if callable(tag)
                       else [type(seq[i]) for i in range(len(seq))])
    count: dict[Any, int] = {}
    for t in tags:
        count[t] = count.get(t, 0) + 1
    return frozenset(type(item) for i, item in items.items()
                     if _is_record(item) and count.get(tags[i]) == 1)


def _numbered(indexes: list[int], items: Mapping[int, Any], refs: Refs,
              single: frozenset[type]) -> dict[int, Ident]:
    """Each item's identity plus its occurrence among items of the same identity."""
    seen: dict[tuple[str, str | None, str | None], int] = {}
    out: dict[int, Ident] = {}
    for i in indexes:
        base = _identity(items[i], refs, single)
        k = seen.get(base, 0)
        seen[base] = k + 1
        out[i] = (*base, k)
    return out


def _longest_increasing(seq: list[int]) -> set[int]:
    """Positions of one longest strictly increasing subsequence (patience sorting, n log n)."""
    tails: list[int] = []
    tail_pos: list[int] = []
    prev = [-1] * len(seq)
    for k, x in enumerate(seq):
        at = bisect.bisect_left(tails, x)
        if at == len(tails):
            tails.append(x)
            tail_pos.append(k)
        else:
            tails[at] = x
            tail_pos[at] = k
        prev[k] = tail_pos[at - 1] if at else -1
    keep: set[int] = set()
    k = tail_pos[-1] if tail_pos else -1
    while k >= 0:
        keep.add(k)
        k = prev[k]
    return keep


# -- entry points ----------------------------------------------------------------------------


def diff(a: Any, b: Any, *, encoding: bool = False) -> Diff:
    """Compare two models (normally of one registered format).

    With ``encoding``, fields that only record how a file was stored are
    compared too, and their differences reported as ``encoding`` changes.
    """
    fa, fb = _format_name(a), _format_name(b)
    if fa != fb:
        return Diff(fa, fb)
    refs = (refs_of(a), refs_of(b))
    walk = _Walk(encoding, refs)
    walk.value(a, b, "")
    return Diff(fa, fb, [_named(c, a, b, refs) for c in walk.out])


def _named(change: Change, a: Any, b: Any, refs: tuple[Refs, Refs]) -> Change:
    """A change with its canonical path (:func:`savecraft.paths.canonical`) and, for a value
    inside a record with a key, that record for people to read."""
    if not change.path:
        return change
    removed = change.kind == "removed"
    root = a if removed else b
    try:
        where = resolve(root, change.path)
    except PathError:  # a path the walk made but the model cannot follow: keep it as it is
        return change
    note = change.note
    if not note and change.kind in ("changed", "encoding", "moved"):
        holders = [c for c, _, _ in where.chain[1:]]
        if change.kind == "moved":
            holders.append(where.value)
        for holder in reversed(holders):
            if _is_record(holder) and key_field(type(holder)) is not None:
                note = describe(holder, refs[0] if removed else refs[1])
                break
    elif not note and change.kind in ("added", "removed"):
        note = describe(where.value, refs[0] if removed else refs[1])
    return dataclasses.replace(change, path=where.path, note=note)




def _format_name(model: Any) -> str | None:
    try:
        return registry.for_model(model).name
    except SavecraftError:  # not the model of a registered format: compare it all the same
        return type(model).__name__


def diff_bytes(a: bytes, b: bytes, *, format: str | None = None, name_a: str = "a",
               name_b: str = "b") -> Diff:
    """Compare two files' contents; a FormatError says which one cannot be read."""
    fmt_a = registry.find(a, format)
    fmt_b = registry.find(b, format)
    if fmt_a.name != fmt_b.name:
        return Diff(fmt_a.name, fmt_b.name, name_a=name_a, name_b=name_b)
    if a == b:
        return Diff(fmt_a.name, fmt_b.name, name_a=name_a, name_b=name_b)
    model_a = fmt_a.parse(a, Report(strict=True))
    model_b = fmt_b.parse(b, Report(strict=True))
    result = diff(model_a, model_b)
    if not result.changes:
        # Same data, stored differently (another compression level, padding...).
        result = diff(model_a, model_b, encoding=True)
        if not result.changes:
            result.changes.append(Change("encoding", "", f"{len(a)} bytes", f"{len(b)} bytes"))
    result.name_a, result.name_b = name_a, name_b
    return result


def diff_files(a: PathLike, b: PathLike, *, format: str | None = None) -> Diff:
    return diff_bytes(read_input(a), read_input(b), format=format, name_a=str(a), name_b=str(b))


# -- a series of files ----------------------------------------------------------------------

ABSENT = "(absent)"  # how a series shows a field one of its files does not have


@dataclass(slots=True)
class Series:
    """What changed across several files of one format: each changed field path, its value in each.

    "What changed across these 20 saves of one character": the paths are
    those :func:`diff` finds between neighbours (A and B, B and C, ...), in
    the order first found; the values are read from every file by path, so a
    field that changed once and changed back shows all of its values.
    """

    names: list[str]
    format: str | None
    fields: list[tuple[str, list[Any]]] = field(default_factory=list)  # path, value in each file

    @property
    def equal(self) -> bool:
        return not self.fields

    def to_json(self) -> dict[str, Any]:
        return {"equal": self.equal, "format": self.format, "files": self.names,
                "fields": [{"path": p, "values": [None if v is _MISSING else plain(v) for v in vals]}
                           for p, vals in self.fields]}

    def dumps(self) -> bytes:
        return orjson.dumps(self.to_json(), option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE)

    def lines(self) -> list[str]:
        return [f"  {p or '(top)'}: " + " -> ".join(ABSENT if v is _MISSING else describe(v) for v in vals)
                for p, vals in self.fields]


_MISSING = object()


def _value_at(model: Any, path: str) -> Any:
    try:
        return resolve(model, path).value if path else model
    except PathError:
        return _MISSING


def series(models: Sequence[Any], names: Sequence[str] | None = None) -> Series:
    """The changed fields across ``models`` (in order), each with its value in every model."""
    names = list(names) if names is not None else [str(i) for i in range(len(models))]
    formats = {_format_name(m) for m in models}
    if len(formats) > 1:
        raise SavecraftError("a series needs files of one format, found " + ", ".join(sorted(map(str, formats))))
    found: dict[str, None] = {}
    for a, b in zip(models, models[1:]):
        for c in diff(a, b).changes:
            if c.kind in ("changed", "added", "removed"):
                found.setdefault(c.path)
    out = Series(names, next(iter(formats), None))
    out.fields = [(p, [_value_at(m, p) for m in models]) for p in found]
    return out


def series_files(paths: Sequence[PathLike], *, format: str | None = None) -> Series:
    """:func:`series` of files (each read strictly: a FormatError names the one that fails)."""
    models = []
    for p in paths:
        data = read_input(p)
        try:
            models.append(registry.find(data, format).parse(data, Report(strict=True)))
        except FormatError as err:
            raise SavecraftError(f"{p}: {err}") from None
    return series(models, [str(p) for p in paths])


__all__ = ["ABSENT", "Change", "ChangeKind", "Diff", "Series", "diff", "diff_bytes", "diff_files",
           "key_field", "plain", "series", "series_files"]
