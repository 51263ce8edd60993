"""The studio's views beyond the field tree: a file's summary, its tables, find, and byte patches.

**Summary.** A format plugin may provide ``summary(model)`` on its
:class:`savecraft.registry.Format` (an Angband character sheet, a TirNanoG
server's players, a game's world, a QfG5 hero). It returns plain data, never
HTML; the page lays it out without knowing the format::

    {"title": str, "subtitle": str, "sections": [SECTION, ...]}

    SECTION is one of
      {"kind": "facts", "title", "items": [{"label", "value", "path"?, "allowed"?}]}
      {"kind": "list", "title", "search"?, "note"?, "items": [{"text", "label"?, "path"?}]}
      {"kind": "table", "id", "title", "search"?, "columns": [{"key", "label", "type"?}],
                        "rows": [{"path", "cells": [...]}]}
      {"kind": "pictures", "title", "names": [picture name, ...]}   (from pictures.listing)
      {"kind": "maps", "title", "maps": [{"name", "title", "path", "width", "height",
                                          "layers": [{"id", "name"}]}]}

``path`` is a field path: the page selects that field in the tree. A column
of ``"type": "date"`` holds Unix seconds and is shown as ISO 8601 UTC;
``"number"`` is a quantity (sorted as a number, shown with separators),
``"id"`` a number that names something (sorted as a number, shown plain,
searchable as text).

Tables can be long (50,000 players): the summary sends each table's first
page, and :func:`table_page` sorts, searches and pages the rest here, from a
summary computed once per state of the document (cached on its bytes).
"""

from __future__ import annotations

import datetime as _dt
import struct
import threading
from typing import Any
import asyncio
import dataclasses

from aiohttp import web

from ..errors import FormatError, Report, SavecraftError
from .documents import Document, Snapshot
from . import hexview, tree

ROWS = 100  # table rows per page
FIND_LIMIT = 1 << 20  # a value search visits at most this many fields
PATCH_LIMIT = 4096  # bytes typed in one patch

_cache_lock = threading.Lock()
_cache: dict[str, tuple[bytes, dict[str, Any] | None]] = {}


def _iso(ts: Any) -> Any:
    if not isinstance(ts, int) or ts <= 0:
        return "" if ts in (0, None) else ts
    try:
        return _dt.datetime.fromtimestamp(ts, _dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%SZ")
    except (OverflowError, OSError, ValueError):
        return str(ts)


def full_summary(doc: Document) -> dict[str, Any] | None:
    """The plugin's summary of the document's current bytes (cached), None when it has none."""
    data = doc.data
    with _cache_lock:
        hit = _cache.get(doc.id)
    if hit is not None and hit[0] is data:
        return hit[1]  # without the document's lock: the spans may hold it for seconds on a huge save
    with doc.lock:
        data = doc.data
        hook = doc.format.summary
        result = hook(doc.model) if hook is not None else None
        if result is not None:
            for section in result.get("sections", []):
                if section.get("kind") == "table":
                    section["_sorted"] = {}
        with _cache_lock:
            _cache[doc.id] = (data, result)
        return result


def _shown_rows(section: dict[str, Any], rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    dates = [i for i, c in enumerate(section["columns"]) if c.get("type") == "date"]
    if not dates:
        return rows
    out = []
    for r in rows:
        cells = list(r["cells"])
        for i in dates:
            cells[i] = _iso(cells[i])
        out.append({"path": r["path"], "cells": cells})
    return out


def summary_view(doc: Document) -> dict[str, Any]:
    """The summary as the page first shows it: every table cut to its first page."""
    full = full_summary(doc)
    if full is None:
        return {"available": False, "format": doc.format.name}
    sections = []
    for section in full.get("sections", []):
        if section.get("kind") == "table":
            rows = section["rows"]
            shown = {k: v for k, v in section.items() if k not in ("rows", "_sorted")}
            shown.update(rows=_shown_rows(section, rows[:ROWS]), total=len(rows), start=0)
            sections.append(shown)
        else:
            sections.append(section)
    return {"available": True, "format": doc.format.name, "title": full.get("title", doc.name),
            "subtitle": full.get("subtitle", ""), "sections": sections}


def table_page(doc: Document, table: str, sort: str, descending: bool, query: str, start: int) -> dict[str, Any]:
    """One page of a summary table, sorted by a column and filtered by a text (a text cell contains it)."""
    full = full_summary(doc)
    found = next((s for s in (full or {}).get("sections", [])
                  if s.get("kind") == "table" and s.get("id") == table), None)
    if found is None:
        raise SavecraftError(f"no table {table!r} in the summary of {doc.name}")
    keys = [c["key"] for c in found["columns"]]
    rows: list[dict[str, Any]] = found["rows"]
    if sort:
        if sort not in keys:
            raise SavecraftError(f"sort: expected one of {', '.join(keys)}, found {sort!r}")
        cache = found["_sorted"]
        if sort not in cache:  # sorted once per column; descending is the same list read backwards
            col = keys.index(sort)
            number = found["columns"][col].get("type") in ("number", "date", "id")
            cache[sort] = sorted(rows, key=(lambda r: (r["cells"][col] is None, r["cells"][col] or 0)) if number
                                 else (lambda r: str(r["cells"][col]).casefold()))
        rows = cache[sort]
        if descending:
            rows = rows[::-1]
    if query:  # the text columns (names, languages, status): numbers and dates are sorted, not searched
        q = query.casefold()
        text = [i for i, c in enumerate(found["columns"]) if c.get("type") not in ("number", "date")]  # ids: searched
        rows = [r for r in rows if any(q in str(r["cells"][i]).casefold() for i in text)]
    start = max(0, min(start, max(0, len(rows) - 1)))
    return {"id": table, "total": len(rows), "start": start, "sort": sort, "descending": descending,
            "query": query, "rows": _shown_rows(found, rows[start:start + ROWS])}


# -- bytes: inspect, find, patch -----------------------------------------------------------


def _space_data(doc: Document, space: str) -> bytes:
    if space == "file":
        return doc.data

    found = hexview.span_map(doc).spaces().get(space)
    if found is None:
        raise SavecraftError(f"no byte space {space!r}")
    return bytes(found.data)


def inspect(data: bytes, offset: int) -> dict[str, Any]:
    """The bytes at ``offset`` read as every number type, both byte orders, and as text."""
    if not 0 <= offset < len(data):
        raise SavecraftError(f"offset: expected 0 to {len(data) - 1}, found {offset}")
    chunk = bytes(data[offset:offset + 8])
    values: list[dict[str, Any]] = []
    for name, size, code in (("u8", 1, "B"), ("i8", 1, "b"), ("u16", 2, "H"), ("i16", 2, "h"),
                             ("u32", 4, "I"), ("i32", 4, "i"), ("u64", 8, "Q"), ("i64", 8, "q"),
                             ("f32", 4, "f"), ("f64", 8, "d")):
        if len(chunk) < size:
            continue
        le = struct.unpack("<" + code, chunk[:size])[0]
        be = struct.unpack(">" + code, chunk[:size])[0]
        values.append({"type": name, "le": repr(le) if isinstance(le, float) else le,
                       "be": repr(be) if isinstance(be, float) else be})
    tail = bytes(data[offset:offset + 64])
    end = tail.find(b"\0")
    text = tail[: end if end >= 0 else len(tail)]
    return {"offset": offset, "bytes": chunk.hex(" "), "values": values,
            "text": text.decode("utf-8", "replace"), "latin1": text.decode("latin-1")}


def find(doc: Document, space: str, kind: str, query: str, start: int) -> dict[str, Any]:
    """The next match at or after ``start``: bytes (hex), text (UTF-8), or a field's shown value."""
    if not query:
        raise SavecraftError("find: expected something to look for")
    if kind == "value":
        return _find_value(doc, query, start)
    if kind == "bytes":
        try:
            needle = bytes.fromhex(query.replace("0x", "").replace(",", " "))
        except ValueError:
            raise SavecraftError(f"find bytes: expected hex such as '54 4e 47', found {query!r}") from None
    elif kind == "text":
        needle = query.encode("utf-8")
    else:
        raise SavecraftError(f"find: expected bytes, text or value, found {kind!r}")
    data = _space_data(doc, space)
    at = data.find(needle, max(0, start))
    wrapped = False
    if at < 0 and start > 0:
        at, wrapped = data.find(needle), True
    return {"kind": kind, "space": space, "offset": at if at >= 0 else None, "length": len(needle),
            "wrapped": wrapped}


def _find_value(doc: Document, query: str, start: int) -> dict[str, Any]:
    """The ``start``-th field (in tree order) whose shown value contains the text."""
    q = query.casefold()
    seen = 0
    hits = 0
    with doc.lock:
        stack: list[tuple[str, Any]] = [("", doc.model)]
        while stack and seen < FIND_LIMIT:
            path, value = stack.pop()
            seen += 1
            k = tree.kind(value)
            if k == "leaf":
                if path and q in tree.show(value).casefold():
                    if hits == start:
                        return {"kind": "value", "path": path, "index": hits, "visited": seen}
                    hits += 1
            elif k == "record":
                names = [f.name for f in dataclasses.fields(value) if not f.name.startswith("_")]
                stack += [(f"{path}.{n}" if path else n, getattr(value, n)) for n in reversed(names)]
            elif k == "list" and not tree._is_numpy(value):
                stack += [(f"{path}[{i}]", value[i]) for i in range(len(value) - 1, -1, -1)]
    return {"kind": "value", "path": None, "index": start, "visited": seen,
            "note": "no match" if seen < FIND_LIMIT else f"no match in the first {FIND_LIMIT:,} fields"}


def patch(doc: Document, offset: int, hex_text: str) -> dict[str, Any]:
    """Replace bytes of the file, accepted only if the edited file still reads without a problem.

    A raw patch bypasses the model, so nothing is recomputed: the parse of the
    edited bytes is the structure check (a broken size, count or checksum is
    refused with the reader's own message, and the document stays as it was).
    """
    try:
        new = bytes.fromhex(hex_text)
    except ValueError:
        raise SavecraftError(f"bytes: expected hex such as '2a 00', found {hex_text!r}") from None
    if not new or len(new) > PATCH_LIMIT:
        raise SavecraftError(f"bytes: expected 1 to {PATCH_LIMIT} bytes, found {len(new)}")
    with doc.lock:
        data = doc.data
        if not 0 <= offset <= len(data) - len(new):
            raise SavecraftError(f"offset: expected 0 to {len(data) - len(new)}, found {offset}")
        edited = data[:offset] + new + data[offset + len(new):]
        if edited == data:
            return {"accepted": True, "message": "the bytes are unchanged", "problems": [],
                    "document": doc.summary()}
        report = Report(strict=True)
        try:
            model = doc.format.parse(edited, report)
            if doc.format.check is not None:
                doc.format.check(model, report)
        except FormatError as err:
            return {"accepted": False, "message": f"refused: the edited bytes do not read: {err}",
                    "problems": [{"offset": p.offset, "path": p.path, "text": str(p)} for p in err.problems]
                    or [{"offset": err.offset, "path": err.path, "text": str(err)}],
                    "document": doc.summary()}
        note = f"bytes 0x{offset:X}..0x{offset + len(new) - 1:X} = {new.hex(' ')}"
        doc.history.append(Snapshot(edited, note, model))
        return {"accepted": True, "message": f"set {note}; the file still reads", "problems": [],
                "document": doc.summary()}


# -- routes ------------------------------------------------------------------------------------


def _int(request: web.Request, name: str, default: int = 0) -> int:
    text = request.query.get(name, "")
    if not text:
        return default
    try:
        return int(text, 0)
    except ValueError:
        raise SavecraftError(f"{name}: expected a number, found {text!r}") from None


def _doc(request: web.Request) -> Document:
    from .server import WORKSPACE

    return request.app[WORKSPACE].get(request.match_info["doc"])


async def _run(fn: Any, *args: Any) -> Any:
    return await asyncio.to_thread(fn, *args)


async def get_summary(request: web.Request) -> web.StreamResponse:
    return web.json_response(await _run(summary_view, _doc(request)))


async def get_table(request: web.Request) -> web.StreamResponse:
    q = request.query
    return web.json_response(await _run(table_page, _doc(request), q.get("id", ""), q.get("sort", ""),
                                        q.get("desc", "") in ("1", "true"), q.get("q", "").strip(),
                                        _int(request, "start")))


async def get_inspect(request: web.Request) -> web.StreamResponse:
    doc = _doc(request)
    space = request.query.get("space", "file")
    data = await _run(_space_data, doc, space)
    out = inspect(data, _int(request, "offset"))
    out["space"] = space
    return web.json_response(out)


async def get_bytes(request: web.Request) -> web.StreamResponse:
    """A page of the file's own bytes, without field spans and without waiting for them.

    The hex view paints these at once while the spans are recorded (seconds
    on a huge save, under the document's lock), then tints them: the bytes of
    a 50,000-player save are on screen as soon as the page asks.
    """
    doc = _doc(request)
    data = doc.data  # the current snapshot's bytes: immutable, no lock needed
    offset = max(0, _int(request, "offset"))
    length = max(0, min(_int(request, "length", 4096), 1 << 16, len(data) - offset))
    return web.json_response({"space": "file", "offset": offset, "size": len(data),
                              "hex": bytes(data[offset:offset + length]).hex(), "spans": []})


async def get_find(request: web.Request) -> web.StreamResponse:
    q = request.query
    return web.json_response(await _run(find, _doc(request), q.get("space", "file"), q.get("kind", "text"),
                                        q.get("q", ""), _int(request, "start")))


async def post_patch(request: web.Request) -> web.StreamResponse:
    body = await request.json()
    if not isinstance(body, dict) or not isinstance(body.get("hex"), str) or not isinstance(body.get("offset"), int):
        raise SavecraftError("expected {\"offset\": N, \"hex\": \"2a 00\"}")
    return web.json_response(await _run(patch, _doc(request), body["offset"], body["hex"]))


def register(app: web.Application) -> None:
    """Add the views' routes (called by :func:`savecraft.studio.server.make_app`)."""
    r = app.router
    r.add_get("/api/doc/{doc}/summary", get_summary)
    r.add_get("/api/doc/{doc}/table", get_table)
    r.add_get("/api/doc/{doc}/inspect", get_inspect)
    r.add_get("/api/doc/{doc}/find", get_find)
    r.add_get("/api/doc/{doc}/bytes", get_bytes)
    r.add_post("/api/doc/{doc}/patch", post_patch)
