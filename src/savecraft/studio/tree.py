"""The field tree: any model as nodes the page can show, one level and one page at a time.

Nothing here knows a format. A node is found by its field path
(:mod:`savecraft.paths`), and its children are read from what the model is:
dataclass fields, list items, mapping entries, array rows, an asset's value.
Lists are paged (:data:`PAGE` items per request), so a server save with
50,000 players shows its first players at once and decodes only those.
"""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Union, get_args, get_origin
import base64
import numpy as np

from ..binary import join_path
from ..diff import _ref_kind, key_field
from ..paths import (Attr, Index, Resolved, field_hints, format_path, item_hint, key_text, resolve,
                     shown, strip_optional, views)
from .. import registry
from ..paths import PathError, parse_path, quote

PAGE = 200
UNION_SHOWN = 4  # a union of more types is named by its count and first few
NAME_ATTRS = ("name", "full_name", "title")  # what a record is called, when it says
TEXT_LIMIT = 120
TEXT_FULL = 200_000
EDIT_BYTES_LIMIT = 4096


def _is_numpy(value: Any) -> bool:
    return type(value).__module__ == "numpy"


def _is_asset(value: Any) -> bool:
    """A lazily loaded part of a file (TirNanoG assets): children are its value, loaded on demand."""
    return hasattr(value, "stored") and hasattr(value, "loaded") and hasattr(value, "file_offset")


def kind(value: Any) -> str:
    """``record``, ``list``, ``map``, ``array``, ``asset`` or ``leaf``."""
    if value is None or isinstance(value, bool | int | float | str | bytes | bytearray | enum.Enum):
        return "leaf"
    if _is_numpy(value):
        return "array" if getattr(value, "ndim", 0) > 0 else "leaf"
    if _is_asset(value):
        return "asset"
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return "record"
    if isinstance(value, Mapping):
        return "map"
    if isinstance(value, Sequence) or (hasattr(value, "__len__") and hasattr(value, "__getitem__")):
        return "list"
    return "leaf"


def type_name(hint: Any, value: Any = None) -> str:
    """A type as a person reads it: ``int``, ``list[InventoryItem]``, ``AddressFamily | None``."""
    if hint is None:
        if value is None:
            return "null"
        if _is_numpy(value) and hasattr(value, "dtype"):
            shape = "x".join(map(str, getattr(value, "shape", ())))
            return f"{value.dtype}[{shape}]" if shape else str(value.dtype)
        return type(value).__name__
    origin = get_origin(hint)
    if origin in (Union, types.UnionType):
        names = list(dict.fromkeys(type_name(a) for a in get_args(hint)))
        if len(names) > UNION_SHOWN:  # a block list's union of 90 classes helps nobody: say how many
            return f"one of {len(names)} types ({', '.join(names[:UNION_SHOWN - 1])}, ...)"
        return " | ".join(names)
    if hint is type(None):
        return "None"
    if origin is typing.Literal:
        return " | ".join(repr(a) for a in get_args(hint))
    if origin is not None:
        args = ", ".join("..." if a is Ellipsis else type_name(a) for a in get_args(hint))
        return f"{getattr(origin, '__name__', str(origin))}[{args}]"
    return getattr(hint, "__name__", str(hint).replace("typing.", ""))


def show(value: Any) -> str:
    """A leaf's value in one short line."""
    if isinstance(value, enum.Enum):
        return f"{value.name} ({value.value})"
    if isinstance(value, bytes | bytearray):
        head = bytes(value[:16]).hex(" ")
        more = " ..." if len(value) > 16 else ""
        return f"{len(value)} bytes: {head}{more}" if value else "0 bytes"
    if isinstance(value, str):
        text = repr(value)
        return text if len(text) <= TEXT_LIMIT else text[: TEXT_LIMIT - 3] + "..."
    if _is_numpy(value) and hasattr(value, "item"):
        return str(value.item())
    return str(value)


def edit_text(value: Any) -> str:
    """The value as a person would type it back (what ``savecraft edit --set`` reads)."""
    if isinstance(value, enum.Enum):
        return value.name
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, bytes | bytearray):
        return base64.b64encode(bytes(value)).decode("ascii")
    if _is_numpy(value) and hasattr(value, "item"):
        return str(value.item())
    return str(value)


def editable(value: Any, hint: Any) -> bool:
    """Whether the page offers in-place editing (the edit itself decides what is accepted)."""
    if isinstance(value, bytes | bytearray) and len(value) > EDIT_BYTES_LIMIT:
        return False  # an image or a stream: replaced through extract/build, not typed in
    return kind(value) == "leaf"


def allowed(hint: Any, value: Any) -> str | None:
    """What values a field takes, where the type says it (enumerations, booleans, array dtypes)."""
    base = strip_optional(hint)
    if isinstance(base, type) and issubclass(base, enum.Enum):
        return "one of " + ", ".join(f"{m.name} ({m.value})" for m in base)
    if base is bool or isinstance(value, bool):
        return "true or false"
    if _is_numpy(value) and hasattr(value, "dtype") and value.dtype.kind in "iu":
        info = np.iinfo(value.dtype)
        return f"{info.min} to {info.max}"
    return None


def label(value: Any) -> str:
    """What names a list item beside its index, as a person calls it.

    Its kind and key (``USER Brigid``), else its own name (an Angband item's
    ``Ring of Speed``, a field or a property ``name``/``full_name``/``title``),
    else its kind. The class name is not a label: it is shown with the details.
    """
    parts = []
    kind_name = getattr(type(value), "KIND", None)
    if isinstance(kind_name, str):
        parts.append(kind_name)
    key = key_field(type(value)) if dataclasses.is_dataclass(value) else None
    if key is not None:
        text = key_text(getattr(value, key, None))
        if text:
            parts.append(text)
            return " ".join(parts)
    for attr in NAME_ATTRS:
        try:
            own = getattr(value, attr, None)
        except Exception:  # noqa: BLE001 - a property that cannot compute its name: no label
            own = None
        if isinstance(own, str) and own.strip():
            parts.append(own if len(own) <= TEXT_LIMIT else own[: TEXT_LIMIT - 3] + "...")
            break
    if not parts and dataclasses.is_dataclass(value):
        parts.append(type(value).__name__)
    return " ".join(parts)


def _node(name: str, path: str, value: Any, hint: Any) -> dict[str, Any]:
    k = kind(value)
    shown_type = type_name(hint, value) if k in ("leaf", "list", "map", "array") else type(value).__name__
    node: dict[str, Any] = {"name": name, "path": path, "kind": k, "type": shown_type}
    if k == "leaf":
        node["value"] = show(value)
        node["editable"] = editable(value, hint)
        if node["editable"]:
            node["edit"] = edit_text(value)
        if isinstance(value, str) and "\n" in value:
            node["text"] = value[:TEXT_FULL]  # assembly of a script, a long message: shown whole
        rng = allowed(hint, value)
        if rng:
            node["allowed"] = rng
    elif k in ("list", "map", "array"):
        try:
            node["count"] = len(value)
        except TypeError:
            node["count"] = 0
        node["value"] = f"{node['count']} items"
    elif k == "asset":
        what = getattr(type(value), "WHAT", "asset")
        size = getattr(value, "length", 0)
        node["value"] = f"{what}, {size} bytes" + (
            f" at 0x{value.file_offset:X}" if getattr(value, "file_offset", -1) >= 0 else "")
    else:
        node["value"] = label(value)
    return node


Describe = Callable[[str, Any], "str | None"]


def _name_refs(node: dict[str, Any], value: Any, kind_of: str | None, describe: Describe | None,
               whole: tuple[type, ...]) -> None:
    """Add ``ref`` (the name a reference points at) to a node, when it is one."""
    if describe is None:
        return
    if kind_of is not None and not isinstance(value, list):
        text = describe(kind_of, value)
    elif whole and isinstance(value, whole):
        text = describe("sprite", value)
    else:
        return
    if text:
        node["ref"] = text


FieldHint = Callable[[str, Any], "dict[str, str] | None"]


def _field_hint(model: Any) -> FieldHint | None:
    """The format's ``field_hint(path, value)``: a value as the game shows it, and the game's limits."""
    try:
        return registry.for_model(model).field_hint
    except Exception:  # noqa: BLE001 - a model of no registered format (tests): no hints
        return None


def _hinted(node: dict[str, Any], hint: FieldHint | None) -> None:
    if hint is None or node["kind"] != "leaf":
        return
    try:
        more = hint(node["path"], node.get("edit", node.get("value")))
    except Exception:  # noqa: BLE001 - a hint is a nicety: never one that breaks the tree
        return
    if more:
        if more.get("shown"):
            node["shown"] = more["shown"]
        if more.get("allowed"):
            node["allowed"] = more["allowed"]


def children(model: Any, path: str, start: int = 0, limit: int = PAGE,
             describe: Describe | None = None, whole_refs: tuple[type, ...] = ()) -> dict[str, Any]:
    """The node at ``path`` and one page of its children.

    ``describe(kind, value)`` names references (fields whose metadata says
    ``ref``; records of a type in ``whole_refs``), for formats that have them.
    """
    where = resolve(model, path) if path else None
    value = where.value if where is not None else model
    hint = where.hint if where is not None else type(model)
    canonical = where.path if where is not None else ""
    out = _node(canonical.rsplit(".", 1)[-1] if canonical else "(file)", canonical, value, hint)
    k = out["kind"]
    items: list[dict[str, Any]] = []
    total = 0
    if k == "record":
        hints = field_hints(type(value))
        names = [f.name for f in dataclasses.fields(value) if not f.name.startswith("_")]
        total = len(names)
        for name in names[start : start + limit]:
            child = getattr(value, name)
            node = _node(name, join_path(canonical, name), child, hints.get(name))
            _name_refs(node, child, _ref_kind(type(value), name), describe, whole_refs)
            items.append(node)
    elif k == "asset":
        total = 1
        items.append(_node("value", join_path(canonical, "value"), value.value,
                           getattr(type(value), "value_type", lambda: None)()))
    elif k == "map":
        keys = list(value)
        total = len(keys)
        for key in keys[start : start + limit]:
            step = f"[{key}]" if isinstance(key, int) else f"[{_quote_key(str(key))}]"
            items.append(_node(str(key), canonical + step, value[key], item_hint(hint)))
    elif k in ("list", "array"):
        total = len(value)
        list_ref = None
        if where is not None and where.chain and isinstance(where.chain[-1][1], Attr):
            parent = where.chain[-1][0]
            if dataclasses.is_dataclass(parent):
                list_ref = _ref_kind(type(parent), where.chain[-1][1].name)
        stop = min(total, start + limit)
        item_paths = _item_paths(model, where, start, stop)
        for i in range(start, stop):
            item = value[i]
            node = _node(f"[{i}]", item_paths[i - start] if item_paths else f"{canonical}[{i}]",
                         item, item_hint(hint, i))
            if node["kind"] != "leaf":
                node["label"] = label(item)
            _name_refs(node, item, list_ref, describe, whole_refs)
            items.append(node)
    hint = _field_hint(model)
    _hinted(out, hint)
    for node in items:
        _hinted(node, hint)
        if node["name"].startswith("[") and not node["path"].startswith(canonical + "["):
            node["name"] = node["path"].rsplit(".", 1)[-1]  # users[1], as paths print it, not [4]
    out["children"] = items
    out["start"] = start
    out["total"] = total
    return out


def _item_paths(model: Any, where: Resolved | None, start: int, stop: int) -> list[str] | None:
    """The paths of items ``start:stop`` of a list the model shows through views of their kind.

    A TirNanoG save's ``chunks[4]`` is printed ``users[1]`` everywhere
    (:func:`savecraft.paths.shown`); the tree names it the same way, so a
    path from a problem, a diff or a clicked byte finds its node. None for a
    list without views (its items are ``list[i]``).
    """
    if where is None or not where.chain:
        return None
    parent, step, _ = where.chain[-1]
    if (not isinstance(step, Attr) or not dataclasses.is_dataclass(parent)
            or not views(type(parent), step.name)):
        return None
    steps = list(where.canonical)
    tag = getattr(getattr(parent, step.name), "magic", None)
    if not callable(tag):
        return [format_path(shown(model, [*steps, Index(i)])) for i in range(start, stop)]
    # A lazy list tags its items cheaply (equal tags: one type): count each kind once for the
    # page, instead of once per item as shown() does (a page deep into 50,000 users stays fast).
    counts: dict[Any, int] = {}
    for j in range(start):
        t = tag(j)
        counts[t] = counts.get(t, 0) + 1
    plain = format_path(steps)
    many: dict[Any, str] = {}  # tag -> the view that shows items of that tag as view[k]
    out = []
    for i in range(start, stop):
        t = tag(i)
        k = counts.get(t, 0)
        counts[t] = k + 1
        if t in many:
            out.append(f"{many[t]}[{k}]")
            continue
        path = format_path(shown(model, [*steps, Index(i)]))
        if path != f"{plain}[{i}]" and path.endswith(f"[{k}]"):
            many[t] = path[: -len(f"[{k}]")]
        out.append(path)
    return out


def reveal(model: Any, path: str, describe: Describe | None = None,
           whole_refs: tuple[type, ...] = ()) -> dict[str, Any]:
    """Every level from the top down to ``path``, each with the page holding the next step.

    What the page needs to select a field it was pointed at (a clicked byte,
    a problem, a diff line) in a tree it has not expanded yet.
    """
    # A span can name bytes the model keeps no field for (a block's raw data, a
    # count computed on writing): select the nearest field that exists.
    steps = parse_path(path) if path else []
    while True:
        try:
            where = resolve(model, steps) if steps else None
            break
        except PathError:
            steps = _flattened(model, steps) or steps[:-1]
    # Down the model as it holds the value (chunks[4]), each level named as it is shown (users[1]).
    steps = _held(where) if where is not None else []
    levels = []
    for n, step in enumerate(steps):
        start = (step.index // PAGE) * PAGE if isinstance(step, Index) else 0
        levels.append(children(model, format_path(steps[:n]), start, PAGE, describe, whole_refs))
    return {"path": where.path if where is not None else "", "levels": levels}


def _held(where: Resolved) -> list[Any]:
    """The steps to a value through the model's own fields: ``chunks[5].name`` for ``users[2].name``.

    The tree shows a record's fields, so it is opened down the list that
    holds an item, not down a view of that list (``users`` is computed).
    """
    chain = where.chain
    out: list[Any] = []
    i = 0
    while i < len(chain):
        container, step, _ = chain[i]
        held = None
        if isinstance(step, Attr) and dataclasses.is_dataclass(container) and not isinstance(container, type):
            held = _through_field(container, step.name, chain, i, where.value)
        if held is None:
            out.append(step)
            i += 1
        else:
            out += held[0]
            i += held[1]
    return out


def _through_field(record: Any, name: str, chain: list[Any], i: int, value: Any) -> tuple[list[Any], int] | None:
    """``[field, Index(j)]`` and how many chain steps they replace, when ``name`` is a view of ``field``."""
    own = [f.name for f in dataclasses.fields(record)]
    if name in own:
        return None
    for field_name in own:
        for view in views(type(record), field_name).values():
            if view.name != name:
                continue
            used = 2 if view.many else 1
            if view.many and not (i + 1 < len(chain) and isinstance(chain[i + 1][1], Index)):
                return None  # the view's list itself: no one item to find
            item = chain[i + used][0] if i + used < len(chain) else value
            seq = getattr(record, field_name)
            for j in range(len(seq)):
                if seq[j] is item:
                    return [Attr(field_name), Index(j)], used
    return None


def _flattened(model: Any, steps: list[Any]) -> list[Any] | None:
    """``steps`` without the one step that names a group the model does not keep, if that resolves.

    The spans of a record read in one go name its fields under the record
    (``value.header.title``); the model may hold them flat (``value.title``).
    """
    for i in range(1, len(steps)):
        try:
            resolve(model, steps[:i])
        except PathError:
            candidate = steps[: i - 1] + steps[i:]
            try:
                resolve(model, candidate)
            except PathError:
                return None
            return candidate
    return None


def _quote_key(key: str) -> str:
    return quote(key)


__all__ = ["PAGE", "allowed", "children", "kind", "label", "reveal", "show", "type_name"]
