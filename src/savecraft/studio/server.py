"""The studio's HTTP server: an aiohttp application in the library's own process.

Every request must carry the access token printed at start-up (as Jupyter
does): in the address (``?token=``, which also sets a same-site cookie so the
page's own requests carry it), in the cookie, or in an ``X-Savecraft-Token``
header. Anything else is refused with 403. The page is static files shipped
in the package; the Content-Security-Policy header forbids loading anything
from elsewhere, so the studio works offline and never calls out.

Library calls that can take a while (parsing, validating, rendering) run in
worker threads, so the page stays responsive; each document has its own lock.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import secrets
from collections.abc import Awaitable, Callable
from functools import partial
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from aiohttp import web

from ..diff import Change, diff_bytes
from ..errors import FormatError, Problem, SavecraftError
from ..paths import PathError
from . import hexview, pictures, refnames, tree
from .documents import Document, EditOutcome, Workspace

COOKIE = "savecraft_studio_token"
HEADER = "X-Savecraft-Token"
MAX_UPLOAD = 2 << 30  # a dropped file up to 2 GiB
CSP = ("default-src 'self'; img-src 'self' blob: data:; style-src 'self'; script-src 'self'; "
       "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
       "frame-ancestors 'none'")

WORKSPACE: web.AppKey[Workspace] = web.AppKey("workspace", Workspace)
TOKEN: web.AppKey[str] = web.AppKey("token", str)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def static_dir() -> Path:
    """The page's files, inside the installed package."""
    return Path(str(resources.files("savecraft.studio") / "static"))


def new_token() -> str:
    return secrets.token_hex(24)


def _token_ok(request: web.Request) -> bool:
    expected = request.app[TOKEN]
    for given in (request.query.get("token"), request.headers.get(HEADER), request.cookies.get(COOKIE)):
        if given and hmac.compare_digest(given.encode(), expected.encode()):
            return True
    return False


@web.middleware
async def guard(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Refuse requests without the token; turn library errors into JSON the page shows."""
    if not _token_ok(request):
        return web.json_response({"error": "this studio needs the access token printed when it "
                                  "started (open the address with ?token=...)"}, status=403)
    try:
        response = await handler(request)
    except FormatError as err:
        response = web.json_response({"error": str(err), "problems": [_problem(p) for p in err.problems]},
                                     status=422)
    except (SavecraftError, PathError, ValueError) as err:
        response = web.json_response({"error": str(err)}, status=400)
    if "token" in request.query:
        response.set_cookie(COOKIE, request.app[TOKEN], httponly=True, samesite="Strict", path="/")
    response.headers["Content-Security-Policy"] = CSP
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "no-referrer"
    response.headers.setdefault("Cache-Control", "no-store")
    return response


async def _run(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    return await asyncio.to_thread(partial(fn, *args, **kwargs))


def _problem(p: Problem) -> dict[str, Any]:
    return {"offset": p.offset, "path": p.path, "message": p.message, "severity": p.severity,
            "text": str(p)}


def _doc(request: web.Request) -> Document:
    return request.app[WORKSPACE].get(request.match_info["doc"])


def _int(request: web.Request, name: str, default: int = 0) -> int:
    text = request.query.get(name, "")
    if not text:
        return default
    try:
        return int(text, 0)
    except ValueError:
        raise SavecraftError(f"{name}: expected a number, found {text!r}") from None


# -- pages --------------------------------------------------------------------------------


async def index(request: web.Request) -> web.StreamResponse:
    if "token" in request.query:  # take the token out of the address bar (guard sets the cookie)
        return web.HTTPFound("/")
    return web.FileResponse(static_dir() / "index.html")


# -- documents ------------------------------------------------------------------------------


async def list_docs(request: web.Request) -> web.StreamResponse:
    return web.json_response([d.summary() for d in request.app[WORKSPACE].documents.values()])


async def open_doc(request: web.Request) -> web.StreamResponse:
    """Open a file by path (JSON ``{"path": ...}``) or the dropped file's bytes (the body)."""
    ws = request.app[WORKSPACE]
    if request.content_type == "application/json":
        body = await request.json()
        path = body.get("path") if isinstance(body, dict) else None
        if not isinstance(path, str) or not path:
            raise SavecraftError("expected {\"path\": \"FILE\"}")
        doc = await _run(ws.open_path, path)
    else:
        data = await request.read()
        name = unquote(request.headers.get("X-Filename", "dropped file"))
        doc = await _run(ws.open_bytes, name, data)
    await _run(lambda: doc.model)
    return web.json_response(doc.summary())


async def doc_summary(request: web.Request) -> web.StreamResponse:
    return web.json_response(_doc(request).summary())


async def close_doc(request: web.Request) -> web.StreamResponse:
    request.app[WORKSPACE].close(request.match_info["doc"])
    return web.json_response({"closed": True})


async def doc_tree(request: web.Request) -> web.StreamResponse:
    doc = _doc(request)
    path = request.query.get("path", "")
    start = max(0, _int(request, "start"))

    def work() -> dict[str, Any]:
        with doc.lock:
            model = doc.model
            return tree.children(model, path, start, tree.PAGE,
                                 refnames.describer(doc.format.name, model), refnames.sprite_types())

    return web.json_response(await _run(work))


async def doc_reveal(request: web.Request) -> web.StreamResponse:
    """Every level down to ``path``, each with the page of children that holds the next step."""
    doc = _doc(request)
    path = request.query.get("path", "")

    def work() -> dict[str, Any]:
        with doc.lock:
            model = doc.model
            return tree.reveal(model, path, refnames.describer(doc.format.name, model),
                               refnames.sprite_types())

    return web.json_response(await _run(work))


async def doc_problems(request: web.Request) -> web.StreamResponse:
    doc = _doc(request)

    def work() -> dict[str, Any]:
        problems, notes = doc.problems()
        out = []
        for p in problems:
            item = _problem(p)
            item["spans"] = hexview.problem_spans(doc, p)
            out.append(item)
        return {"problems": out, "notes": notes, "ok": not any(p.severity == "error" for p in problems)}

    return web.json_response(await _run(work))


async def doc_range(request: web.Request) -> web.StreamResponse:
    doc = _doc(request)
    path = request.query.get("path", "")
    return web.json_response({"path": path, "allowed": await _run(hexview.allowed_range, doc, path)})


def _outcome(doc: Document, out: EditOutcome) -> dict[str, Any]:
    result: dict[str, Any] = {
        "accepted": out.accepted, "message": out.message,
        "changes": [{"path": p, "value": tree.show(v)} for p, v in out.changes],
        "problems": [_problem(p) for p in out.problems],
        "document": doc.summary(),
    }
    if out.diff is not None:
        result["diff"] = [_change(c) for c in out.diff.changes]
    result["recomputed"] = out.recomputed
    return result


async def doc_edit(request: web.Request) -> web.StreamResponse:
    doc = _doc(request)
    body = await request.json()
    if not isinstance(body, dict) or not isinstance(body.get("path"), str) or "value" not in body:
        raise SavecraftError("expected {\"path\": PATH, \"value\": TEXT}")
    value = body["value"] if isinstance(body["value"], str) else json.dumps(body["value"])

    def work() -> dict[str, Any]:
        before = doc.data
        out = doc.edit(body["path"], value)
        if out.accepted and doc.data is not before:
            out.recomputed = hexview.recomputed(doc, before, doc.data, [p for p, _ in out.changes])
        return _outcome(doc, out)

    return web.json_response(await _run(work))


async def doc_undo(request: web.Request) -> web.StreamResponse:
    doc = _doc(request)
    undone = await _run(doc.undo)
    return web.json_response({"undone": undone, "document": doc.summary()})


async def doc_save(request: web.Request) -> web.StreamResponse:
    doc = _doc(request)
    backup = await _run(doc.save)
    return web.json_response({"saved": str(doc.path), "backup": str(backup) if backup else None,
                              "document": doc.summary()})


async def doc_download(request: web.Request) -> web.StreamResponse:
    doc = _doc(request)
    safe = "".join(c if c.isalnum() or c in "._-" else "_" for c in doc.name) or "file"
    return web.Response(body=doc.data, content_type="application/octet-stream",
                        headers={"Content-Disposition": f'attachment; filename="{safe}"'})


# -- bytes ----------------------------------------------------------------------------------


async def doc_spaces(request: web.Request) -> web.StreamResponse:
    doc = _doc(request)
    return web.json_response(await _run(hexview.spaces, doc))


async def doc_hex(request: web.Request) -> web.StreamResponse:
    doc = _doc(request)
    space = request.query.get("space", "file")
    offset = max(0, _int(request, "offset"))
    length = min(max(0, _int(request, "length", 4096)), 1 << 16)
    return web.json_response(await _run(hexview.page, doc, space, offset, length))


async def doc_at(request: web.Request) -> web.StreamResponse:
    doc = _doc(request)
    space = request.query.get("space", "file")
    return web.json_response(await _run(hexview.at, doc, space, _int(request, "offset")))


async def doc_spans(request: web.Request) -> web.StreamResponse:
    doc = _doc(request)
    return web.json_response(await _run(hexview.spans_for, doc, request.query.get("path", "")))


# -- comparing ------------------------------------------------------------------------------


def _change(c: Change) -> dict[str, Any]:
    out = c.to_json()
    out["text"] = str(c)
    return out


async def diff_docs(request: web.Request) -> web.StreamResponse:
    ws = request.app[WORKSPACE]
    a, b = ws.get(request.query.get("a", "")), ws.get(request.query.get("b", ""))

    def work() -> dict[str, Any]:
        result = diff_bytes(a.data, b.data, name_a=a.name, name_b=b.name)
        out = result.to_json()
        out["changes"] = []
        for c in result.changes:
            item = _change(c)
            item["spans_a"] = hexview.spans_for(a, c.path) if c.kind != "added" else []
            item["spans_b"] = hexview.spans_for(b, c.path) if c.kind != "removed" else []
            out["changes"].append(item)
        out["lines"] = result.lines()
        return out

    return web.json_response(await _run(work))


# -- pictures -------------------------------------------------------------------------------


async def doc_pictures(request: web.Request) -> web.StreamResponse:
    doc = _doc(request)
    return web.json_response(await _run(pictures.listing, doc))


async def doc_picture(request: web.Request) -> web.StreamResponse:
    doc = _doc(request)
    name = request.match_info["name"]
    query = dict(request.query)
    query.pop("token", None)
    body, content_type = await _run(pictures.render, doc, name, query)
    return web.Response(body=body, content_type=content_type)


def make_app(workspace: Workspace | None = None, token: str | None = None) -> web.Application:
    app = web.Application(middlewares=[guard], client_max_size=MAX_UPLOAD)
    app[WORKSPACE] = workspace if workspace is not None else Workspace()
    app[TOKEN] = token or new_token()
    r = app.router
    r.add_get("/", index)
    r.add_get("/api/docs", list_docs)
    r.add_post("/api/open", open_doc)
    r.add_get("/api/doc/{doc}", doc_summary)
    r.add_delete("/api/doc/{doc}", close_doc)
    r.add_get("/api/doc/{doc}/tree", doc_tree)
    r.add_get("/api/doc/{doc}/reveal", doc_reveal)
    r.add_get("/api/doc/{doc}/problems", doc_problems)
    r.add_get("/api/doc/{doc}/range", doc_range)
    r.add_post("/api/doc/{doc}/edit", doc_edit)
    r.add_post("/api/doc/{doc}/undo", doc_undo)
    r.add_post("/api/doc/{doc}/save", doc_save)
    r.add_get("/api/doc/{doc}/download", doc_download)
    r.add_get("/api/doc/{doc}/spaces", doc_spaces)
    r.add_get("/api/doc/{doc}/hex", doc_hex)
    r.add_get("/api/doc/{doc}/at", doc_at)
    r.add_get("/api/doc/{doc}/spans", doc_spans)
    r.add_get("/api/doc/{doc}/pictures", doc_pictures)
    r.add_get("/api/doc/{doc}/picture/{name}", doc_picture)
    r.add_get("/api/diff", diff_docs)
    from . import views

    views.register(app)  # summary, tables, inspector, find, byte patches (studio/views.py)
    r.add_static("/static/", static_dir(), append_version=False)
    return app
