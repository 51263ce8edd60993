"""A field across several saves: the studio's timeline (issue 22).

"What changed across these 20 saves of one character": ``savecraft diff A B
C ...`` gives the series (:func:`savecraft.diff.series`); the studio shows it
for the open files a person picks (or a folder opened at once), and one chosen
field's value in every one of them, as a chart and a table.

A field is followed by what names it, not by its place: the chosen path is
rewritten with each list item by its key where its record has one
(``users[3].entity.x`` -> ``users[name=Brigid].entity.x``, as ``diff``
matches records), so the same character is followed in saves where it moved
in the list. A save without that field shows it as absent.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

from aiohttp import web

from ..diff import ABSENT, key_field, series
from ..errors import FormatError, SavecraftError
from ..paths import Index, Match, PathError, Step, format_path, key_text, parse_path, resolve
from . import tree
from .documents import Document, Workspace

FOLDER_LIMIT = 200  # files opened from one folder at most
FIELDS_LIMIT = 2000  # changed fields listed at most
_DIGITS = re.compile(r"(\d+)")


def keyed(model: Any, path: str) -> str:
    """``path`` with every list index replaced by the item's key where its record has one.

    Only a key that names one record of a plain list is used (two players of
    one name keep their places); a lazily decoded view (a save's 50,000
    players) is not read whole to check: its key is used as ``diff`` uses it
    to match records.
    """
    steps = parse_path(path)
    out: list[Step] = []
    for i, step in enumerate(steps):
        if isinstance(step, Index):
            item = resolve(model, steps[: i + 1]).value
            key = key_field(type(item)) if dataclasses.is_dataclass(item) else None
            text = key_text(getattr(item, key)) if key else None
            if key and text:
                container = resolve(model, steps[:i]).value
                same = [x for x in container if type(x) is type(item) and key_text(getattr(x, key, None)) == text] \
                    if isinstance(container, list) and len(container) <= 100_000 else [item]
                if len(same) == 1:  # a key that names one record only
                    out.append(Match(key, text))
                    continue
        out.append(step)
    return format_path(out)


def _models(docs: list[Document]) -> list[Any]:
    formats = {d.format.name for d in docs}
    if len(formats) > 1:
        raise SavecraftError("a timeline needs files of one format, found " + ", ".join(sorted(formats)))
    models = []
    for d in docs:
        with d.lock:
            models.append(d.model)
    return models


@contextmanager
def _locked(docs: list[Document]) -> Iterator[None]:
    """Every document's lock, taken in one order (by id): the walks below decode lazy records of
    the models the tree reads under those locks."""
    with ExitStack() as stack:
        for d in sorted({d.id: d for d in docs}.values(), key=lambda d: d.id):
            stack.enter_context(d.lock)
        yield


def changed_fields(docs: list[Document]) -> dict[str, Any]:
    """The fields that change across the documents, in order (``savecraft diff A B C``'s series)."""
    models = _models(docs)
    with _locked(docs):
        found = series(models, [d.name for d in docs]).to_json()["fields"]
    return {"docs": [{"id": d.id, "name": d.name} for d in docs],
            "fields": [{"path": f["path"], "shown": [ABSENT if v is None else _text(v) for v in f["values"]]}
                       for f in found[:FIELDS_LIMIT]],
            "more": max(0, len(found) - FIELDS_LIMIT)}


def _text(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value)
    return text if len(text) <= 60 else text[:57] + "..."


def values(docs: list[Document], path: str, start: str | None = None) -> dict[str, Any]:
    """One field's value in every document: shown, and as a number where it is one.

    ``start``: the document the path was picked in (its list items are named by
    key from there); else the first that has the field.
    """
    if not path:
        raise SavecraftError("timeline: expected a field path")
    models = _models(docs)
    with _locked(docs):
        return _values(docs, models, path, start)


def _values(docs: list[Document], models: list[Any], path: str, start: str | None) -> dict[str, Any]:
    followed = path
    order = sorted(range(len(docs)), key=lambda i: docs[i].id != start)
    for i in order:
        try:
            followed = keyed(models[i], path)
            break
        except (PathError, FormatError):
            continue
    points = []
    for d, m in zip(docs, models):
        try:
            where = resolve(m, followed)
        except (PathError, FormatError):
            points.append({"doc": d.id, "name": d.name, "present": False, "shown": ABSENT, "number": None,
                           "at": None})
            continue
        value = where.value
        number = value if isinstance(value, int | float) and not isinstance(value, bool) else None
        kind = tree.kind(value)
        shown = tree.show(value) if kind == "leaf" else f"({kind})"
        points.append({"doc": d.id, "name": d.name, "present": True, "shown": shown, "number": number,
                       "at": format_path(where.canonical)})  # where it is in that file (the tree's path)
    return {"path": path, "followed": followed, "points": points,
            "numeric": any(p["number"] is not None for p in points)}


def _natural(name: str) -> list[Any]:
    return [int(t) if t.isdigit() else t.casefold() for t in _DIGITS.split(name)]


def open_folder(ws: Workspace, folder: str) -> dict[str, Any]:
    """Open every file of a known format in ``folder`` (not its subfolders), in natural name order.

    Files of no known format are skipped and, as everywhere in the studio,
    neither shown nor kept; only how many there were is said.
    """
    where = Path(folder).expanduser()
    if not where.is_dir():
        raise SavecraftError(f"{folder}: not a folder")
    names = sorted((p for p in where.iterdir() if p.is_file()), key=lambda p: _natural(p.name))
    opened: list[Document] = []
    skipped = 0
    for p in names:
        if len(opened) >= FOLDER_LIMIT:
            skipped += 1
            continue
        try:
            doc = ws.open_path(p, validate=False)  # a series: problems only when asked
        except (FormatError, SavecraftError, OSError):
            skipped += 1
            continue
        opened.append(doc)
    return {"opened": [d.summary() for d in opened], "skipped": skipped}


# -- routes ------------------------------------------------------------------------------------


def _docs(request: web.Request) -> list[Document]:
    from .server import WORKSPACE

    ws = request.app[WORKSPACE]
    ids = [i for i in request.query.get("docs", "").split(",") if i]
    if not ids:
        raise SavecraftError("timeline: expected docs=ID,ID,...")
    return [ws.get(i) for i in ids]


async def get_fields(request: web.Request) -> web.StreamResponse:
    from .server import _run

    return web.json_response(await _run(changed_fields, _docs(request)))


async def get_values(request: web.Request) -> web.StreamResponse:
    from .server import _run

    q = request.query
    return web.json_response(await _run(values, _docs(request), q.get("path", ""), q.get("from")))


async def post_open_folder(request: web.Request) -> web.StreamResponse:
    from .server import WORKSPACE, _run

    body = await request.json()
    if not isinstance(body, dict) or not isinstance(body.get("path"), str) or not body["path"]:
        raise SavecraftError("expected {\"path\": \"FOLDER\"}")
    return web.json_response(await _run(open_folder, request.app[WORKSPACE], body["path"]))


def register(app: web.Application) -> None:
    """Add the timeline's routes (called by :func:`savecraft.studio.server.make_app`)."""
    r = app.router
    r.add_get("/api/timeline/fields", get_fields)
    r.add_get("/api/timeline/values", get_values)
    r.add_post("/api/open-folder", post_open_folder)
