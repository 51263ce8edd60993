"""The bytes beside the tree: pages of a byte space with their field spans, both ways.

Built on :mod:`savecraft.spans`, the one record of which bytes each decoded
value came from. A document's span map is recorded lazily (containers first,
a chunk's or an asset's fields when a query reaches them), so a
50,000-player save shows its bytes at once.

The tree, the span map, problems and diffs all name a field by its
canonical path (:mod:`savecraft.paths`: ``users[1].entity.x``,
``translations[0].texts.value[2]``); :func:`span_path` turns any accepted
form a person typed into it.
"""

from __future__ import annotations

import dataclasses
import enum
import re
import threading
from typing import Any

from .. import api, edit, spans
from ..errors import FormatError, Problem, SavecraftError
from ..paths import Attr, resolve
from .documents import Document, run_elsewhere
from ..paths import format_path, parse_path
from ..registry import get
from . import tree

PAGE_LIMIT = 1 << 16
SPAN_LIMIT = 4000  # spans sent for one selection; the page highlights what it shows
RECOMPUTED_LIMIT = 60


def _under(path: str, prefix: str) -> bool:
    if not prefix:
        return True
    return path == prefix or (path.startswith(prefix) and path[len(prefix)] in ".[")


def span_map(doc: Document, data: bytes | None = None) -> spans.SpanMap:
    """The (lazy) span map of the document's current bytes, or of ``data`` (:meth:`Document.span_map`).

    Only the recording runs under the document's span lock (a query waits for
    a recording under way: it needs it); the queries below take no lock of
    the document: a recorded map answers several threads under its own, so a
    field's few spans are not queued behind a query over 50,000 chunks, and
    the tree (the document's lock) never waits for either.
    """
    return doc.span_map(data)


def span_path(smap: spans.SpanMap, path: str) -> str:
    """A tree path (or any accepted form: ``chunks[3]``, ``users[name=Brigid]``) as spans name it."""
    return smap.shown(path)


def _span(sp: spans.Span) -> dict[str, Any]:
    out = sp.to_json()
    out["tree"] = sp.path  # the span map and the tree speak the one vocabulary
    return out


# -- what the page asks for ---------------------------------------------------------------


def spaces(doc: Document) -> list[dict[str, Any]]:
    """The file and every inflated stream recorded so far (name, length, where it is stored)."""
    smap = span_map(doc)
    out = []
    for s in smap.spaces().values():
        out.append({"name": s.name, "length": s.length,
                    "stored": None if s.stored is None else s.stored.to_json()})
    return out


def page(doc: Document, space: str, offset: int, length: int) -> dict[str, Any]:
    """``length`` bytes of ``space`` from ``offset`` and every span that overlaps them."""
    smap = span_map(doc)
    found = smap.spaces().get(space)
    if found is None:
        raise SavecraftError(f"no byte space {space!r} (known: {', '.join(smap.spaces())})")
    data = found.data
    length = max(0, min(length, PAGE_LIMIT, len(data) - offset))
    chunk = bytes(data[offset : offset + length])
    covering = []
    for sp in smap.covering(space, offset, length):
        covering.append({"offset": sp.offset, "length": sp.length, "path": sp.path,
                         "tree": sp.path})
        if len(covering) >= SPAN_LIMIT:
            break
    return {"space": space, "offset": offset, "size": len(data), "hex": chunk.hex(),
            "spans": covering}


def at(doc: Document, space: str, offset: int) -> dict[str, Any]:
    """The innermost field covering one byte, with the path the tree knows it by."""
    smap = span_map(doc)
    sp = smap.at(space, offset)
    if sp is None:
        return {"space": space, "offset": offset, "span": None}
    return {"space": space, "offset": offset, "span": _span(sp)}


def spans_for(doc: Document, path: str) -> list[dict[str, Any]]:
    """The bytes of a field (a tree path) in the document's current bytes; see :func:`spans_for_doc_data`."""
    return spans_for_doc_data(doc, None, path)


def spans_for_doc_data(doc: Document, data: bytes | None, path: str) -> list[dict[str, Any]]:
    """The bytes of a field (a tree path): its own span first when it has one, then its parts.

    A node holding thousands of chunks is answered with the chunks' own
    spans, without recording every field inside them; a field inside one
    chunk (or asset) from that chunk's spans alone (:meth:`SpanMap.unit_spans`),
    without sorting or reading the spans of the whole file. Each span is
    given once.
    """
    smap = span_map(doc, data)
    target = span_path(smap, path)
    quick = smap.unit_spans(target)
    if quick is None:
        inner = [u for u in smap.units() if u.path != target and _under(u.path, target)]
        if len(inner) > 1 and smap.outline_units:
            out = [{"space": u.space, "offset": u.offset, "length": u.length, "path": u.path,
                    "tree": u.path} for u in inner[:SPAN_LIMIT]]
            return out
    found = [_span(sp) for sp in dict.fromkeys(quick if quick is not None else smap.spans_for(target))]
    own = [sp for sp in found if sp["tree"] == path]
    # Not a parent's bytes (an asset's stored form when its value is asked for), unless
    # nothing nearer was recorded: then the parent is the best answer there is.
    rest = [sp for sp in found if sp not in own and _under(sp["tree"], path)]
    if not own and not rest:
        own = _grouped(smap, path)
        rest = [] if own else found
    return (own + rest)[:SPAN_LIMIT]


def _grouped(smap: spans.SpanMap, path: str) -> list[dict[str, Any]]:
    """The spans of ``parent.name`` recorded as ``parent.GROUP.name``.

    A codec that reads a fixed record in one go names its fields under the
    record (``value.header.title``) where the model keeps them flat
    (``value.title``): look one level down for the same name.
    """
    try:
        steps = parse_path(path)
    except SavecraftError:
        return []
    if len(steps) < 2:
        return []
    parent, last = format_path(steps[:-1]), format_path(steps[-1:])
    suffix = last if last.startswith("[") else "." + last
    out = []
    for sp in smap.spans_for(span_path(smap, parent)):
        tree = sp.path
        if tree.startswith(parent + ".") and tree.endswith(suffix):
            middle = tree[len(parent) + 1 : len(tree) - len(suffix)]
            if middle and "." not in middle and "[" not in middle:
                out.append(_span(sp))
    return out


def problem_spans(doc: Document, problem: Problem) -> dict[str, Any] | None:
    """Where a problem points: its byte space, offset and length, and the field in the tree."""
    try:
        smap = span_map(doc)
        located = smap.locate(problem)
    except (FormatError, SavecraftError):
        return None
    return {"space": located.space or spans.FILE, "offset": located.offset,
            "length": located.length, "tree": problem.path or ""}


# -- what an edit recomputed ----------------------------------------------------------------


def recomputed(doc: Document, before: bytes, after: bytes, edited: list[str]) -> list[dict[str, Any]]:
    """Fields whose bytes changed although nobody set them: sizes, counts, checksums, streams.

    Both versions' span maps are compared path by path (so a string that grew
    and moved everything after it does not count as a change of everything),
    over the fields recorded up front plus those of the edited chunks.
    """
    old, new = span_map(doc, before), span_map(doc, after)
    targets = [span_path(new, p) for p in edited]
    for t in list(targets):
        old.spans_for(t)
        new.spans_for(t)
    targets += edited  # a record holding the field may be noted under its tree path too
    # The edited field as the span map names it (``value.header.speed`` for ``value.speed``).
    targets += [sp["path"] for p in edited for sp in spans_for_doc_data(doc, after, p)]

    def contents(smap: spans.SpanMap) -> dict[str, bytes]:
        datas = {name: s.data for name, s in smap.spaces().items()}
        out: dict[str, bytes] = {}
        for sp in smap.spans():
            if sp.path not in out:
                out[sp.path] = bytes(datas[sp.space][sp.offset : sp.end]) if sp.space in datas else b""
        return out

    a, b = contents(old), contents(new)
    found = []
    for path, value in b.items():  # (each path once: a field has one name)
        if path not in a or a[path] == value:
            continue
        if any(_under(path, t) or _under(t, path) for t in targets):
            continue  # the edited field itself, its parts, or a record holding it
        sp = new.span_of(path)
        found.append({"path": path, "tree": path,
                      "old": _hex(a[path]), "new": _hex(value),
                      "space": sp.space if sp else None, "offset": sp.offset if sp else None,
                      "length": sp.length if sp else None})
        if len(found) >= RECOMPUTED_LIMIT:
            break
    # A record whose bytes changed because a field inside it did (a .tng header around its CRC)
    # is not a change of its own: the innermost fields are what the rebuild recomputed.
    paths = [str(f["path"]) for f in found]
    return [f for f, p in zip(found, paths) if not any(q != p and _under(q, p) for q in paths)]


def _hex(data: bytes) -> str:
    if len(data) <= 8:
        return data.hex(" ") or "(empty)"
    return f"{len(data)} bytes"


# -- allowed values -------------------------------------------------------------------------

_RANGE = re.compile(r"(from -?\d+ to -?\d+|at most \d+ \w+|up to \d+ \w+)")


def allowed_range(doc: Document, path: str) -> str | None:
    """What the format's own writer accepts for a field, found by asking it (:func:`probe_range`).

    The probe rebuilds the whole file, so its answer is kept per kind of
    field (a record type's attribute: every player's ``entity.x`` has the
    same range) and, for a big file, asked of a process of its own
    (:func:`savecraft.studio.documents.run_elsewhere`): a field selected in a
    50,000-player save no longer holds this process's interpreter lock for
    a parse and a build while the page waits for the field's bytes.
    """
    with doc.lock:
        model = doc.model
        where = resolve(model, path)
        value = where.value
        if isinstance(value, bool | enum.Enum) or not isinstance(value, int | str):
            return tree.allowed(where.hint, value)
        steps = where.canonical
        last = steps[-1] if steps else None
        parent = resolve(model, steps[:-1]).value if isinstance(last, Attr) else None
    key = None
    if parent is not None and dataclasses.is_dataclass(parent) and isinstance(last, Attr):
        key = (doc.format.name, type(parent).__module__, type(parent).__qualname__, last.name, type(value).__name__)
        with _ranges_lock:
            if key in _RANGES:
                return _RANGES[key]
    answer = run_elsewhere("range", doc.data, doc.format.name, path)
    found = answer if isinstance(answer, str) else None
    if key is not None:
        with _ranges_lock:
            _RANGES[key] = found
    return found


_RANGES: dict[tuple[str, ...], str | None] = {}
_ranges_lock = threading.Lock()


def probe_range(data: bytes, format: str, path: str) -> str | None:
    """The range the writer states for ``path``: a number far out of any range (or a very long
    string) is set on a fresh model of ``data`` and built; the writer's refusal names the
    field's range, exactly the check ``savecraft edit`` applies."""
    fmt = get(format)
    model = api.parse(data, format)
    value = resolve(model, path).value
    probe: Any
    if isinstance(value, int):
        probe = 1 << 80
    elif isinstance(value, str):
        probe = "x" * 70000
    else:
        return None
    try:
        edit.set_value(model, path, probe)
        fmt.build(model)
    except FormatError as err:
        expected = err.expected
        return expected if _RANGE.search(expected) else None
    except (SavecraftError, ValueError, TypeError, OverflowError):
        return None
    return None
