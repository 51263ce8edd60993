"""The studio's HTTP server: an aiohttp application in the library's own process.

Only the person who started it may drive it. Every request is refused (and
counted, by kind) unless it passes these fences, in this order:

* ``Host`` names the bound address or ``localhost`` (a DNS-rebound name is
  refused);
* an ``Origin``, when sent, is this studio's own, and ``Sec-Fetch-Site``, when
  sent, says same-origin for the API (a page on another loopback port is
  same-*site*, not same-origin);
* a state-changing request (POST, DELETE) carries the access token in the
  ``X-Savecraft-Token`` header, which no other page can set without a CORS
  preflight the studio never grants, and a JSON body (raw bytes only for a
  dropped file): a ``text/plain`` form is refused;
* a read carries the token in that header or in the address (``?token=``);
* only the page's own files (``/`` and ``/static/``) may be fetched with the
  cookie alone. Cookies are not port-scoped, so every server on 127.0.0.1
  receives it: it is therefore *not* the token, only a key to files the
  package ships anyway, and it is named after the port so that two studios
  do not overwrite each other's.

The page learns the token from the address it was opened with (the browser
is handed a private redirect file, not the token on its command line) and
keeps it in ``sessionStorage``, which is per origin, port included.

Connections are bounded: a request's headers and an idle keep-alive
connection get :data:`IDLE_TIMEOUT` seconds, at most ``max_connections`` are
open at once (a new one evicts the oldest that never completed a request's
headers, or is closed at once), and a shortage of file descriptors is
logged once, not once per refused ``accept``.

The page is static files shipped in the package; the Content-Security-Policy
header forbids loading anything from elsewhere, so the studio works offline
and never calls out.

Library calls that can take a while (parsing, validating, rendering) run in
worker threads, so the page stays responsive; each document has its own lock.
"""

from __future__ import annotations

import asyncio
import errno
import hmac
import ipaddress
import json
import resource
import secrets
import sys
from collections import Counter
from collections.abc import Awaitable, Callable
from functools import partial
from importlib import resources
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import unquote

from aiohttp import web

from ..diff import Change, diff_bytes
from ..errors import FormatError, Problem, SavecraftError
from ..paths import PathError
from ..registry import names as format_names
from . import hexview, pictures, refnames, tree
from .documents import Document, EditOutcome, Workspace
from . import timeline, views

COOKIE = "savecraft_studio_page"
"""The page key's cookie; the port is appended (``savecraft_studio_page_8888``)."""
HEADER = "X-Savecraft-Token"
MAX_UPLOAD = 2 << 30  # a dropped file up to 2 GiB
IDLE_TIMEOUT = 15.0
"""Seconds a connection may take for a request's headers, or sit idle between requests."""
CSP = ("default-src 'self'; img-src 'self' blob: data:; style-src 'self'; script-src 'self'; "
       "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
       "frame-ancestors 'none'")
SAFE_METHODS = frozenset({"GET", "HEAD"})
JSON = "application/json"
RAW = "application/octet-stream"

WORKSPACE: web.AppKey[Workspace] = web.AppKey("workspace", Workspace)
TOKEN: web.AppKey[str] = web.AppKey("token", str)
PAGE_KEY: web.AppKey[str] = web.AppKey("page_key", str)
HOSTS: web.AppKey[frozenset[str]] = web.AppKey("hosts")
REFUSED: web.AppKey[Counter[str]] = web.AppKey("refused")

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def static_dir() -> Path:
    """The page's files, inside the installed package."""
    return Path(str(resources.files("savecraft.studio") / "static"))


def new_token() -> str:
    return secrets.token_hex(24)


def _same(given: str | None, expected: str) -> bool:
    return bool(given) and hmac.compare_digest(str(given).encode(), expected.encode())


def _port(request: web.Request) -> int:
    sock = request.transport.get_extra_info("sockname") if request.transport is not None else None
    return int(sock[1]) if sock else 0


def cookie_name(port: int) -> str:
    return f"{COOKIE}_{port}"


def _hostname(host: str) -> str:
    """The name in a ``Host`` header, without its port: ``[::1]:80`` -> ``::1``."""
    if host.startswith("["):
        return host[1:host.find("]")] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def _host_ok(request: web.Request) -> bool:
    allowed = request.app[HOSTS]
    name = _hostname(request.headers.get("Host", "")).lower().rstrip(".")
    if name in allowed:
        return True
    if "*" in allowed:  # bound to every address: any address literal, never a name (rebinding)
        try:
            ipaddress.ip_address(name)
        except ValueError:
            return False
        return True
    return False


def _refusal(request: web.Request) -> tuple[str, int, str] | None:
    """Why the request is refused, as (kind, status, message); None when it may go on."""
    if not _host_ok(request):
        hosts: frozenset[str] = request.app[HOSTS]
        return ("host", 403, f"this studio answers to {', '.join(sorted(hosts))} only, "
                f"not {request.headers.get('Host', '')!r}")
    origin = request.headers.get("Origin")
    if origin is not None and origin != f"http://{request.headers.get('Host', '')}":
        return ("origin", 403, "a request from another page (Origin) is refused")
    api = request.path.startswith("/api/")
    site = request.headers.get("Sec-Fetch-Site")
    if site is not None and site not in ("same-origin", "none") and (
            api or request.method not in SAFE_METHODS):
        return ("fetch-site", 403, f"a request from another page (Sec-Fetch-Site: {site}) is refused")
    token = request.app[TOKEN]
    if request.method not in SAFE_METHODS:
        if not _same(request.headers.get(HEADER), token):
            return ("token", 403, f"a change needs the access token in the {HEADER} header")
        allowed = (JSON, RAW) if request.path == "/api/open" else (JSON,)
        kind = request.content_type if "Content-Type" in request.headers else "no Content-Type"
        if request.body_exists and kind not in allowed:  # (an empty body says nothing)
            return ("content-type", 415, f"expected {' or '.join(allowed)}, found {kind}")
        return None
    if _same(request.headers.get(HEADER), token) or _same(request.query.get("token"), token):
        return None
    if not api and _same(request.cookies.get(cookie_name(_port(request))), request.app[PAGE_KEY]):
        return None  # the page's own shipped files
    return ("token", 403, "this studio needs the access token printed when it started "
            "(open the address with ?token=...)")


@web.middleware
async def guard(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Refuse what did not come from the studio's own page; turn library errors into JSON."""
    refused = _refusal(request)
    if refused is not None:
        kind, status, message = refused
        request.app[REFUSED][kind] += 1
        return web.json_response({"error": message, "refused": kind}, status=status,
                                 headers={"Cache-Control": "no-store"})
    try:
        response = await handler(request)
    except FormatError as err:
        response = web.json_response({"error": str(err), "problems": [_problem(p) for p in err.problems]},
                                     status=422)
    except (SavecraftError, PathError, ValueError) as err:
        response = web.json_response({"error": str(err)}, status=400)
    if _same(request.query.get("token"), request.app[TOKEN]) and not request.path.startswith("/api/"):
        response.set_cookie(cookie_name(_port(request)), request.app[PAGE_KEY], httponly=True,
                            samesite="Strict", path="/")
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
    # Opened with ?token=: the page (api.js) keeps the token and takes it out of the address bar.
    return web.FileResponse(static_dir() / "index.html")


# -- documents ------------------------------------------------------------------------------


async def list_docs(request: web.Request) -> web.StreamResponse:
    return web.json_response([d.summary() for d in request.app[WORKSPACE].documents.values()])


async def open_doc(request: web.Request) -> web.StreamResponse:
    """Open a file by path (JSON ``{"path": ...}``) or the dropped file's bytes (the body).

    A file that is not of a known format is refused without quoting any of
    it (the path may name ``/etc/shadow``), and a refused file, dropped or
    named, is let go at once: the studio keeps no bytes of what it did not open.
    """
    ws = request.app[WORKSPACE]
    if request.content_type == JSON:
        body = await request.json()
        path = body.get("path") if isinstance(body, dict) else None
        if not isinstance(path, str) or not path:
            raise SavecraftError("expected {\"path\": \"FILE\"}")
        name = path
        opening: Callable[[], Document] = partial(ws.open_path, path)
    else:
        name = unquote(request.headers.get("X-Filename", "dropped file"))
        opening = partial(ws.open_bytes, name, await request.read())
    try:
        doc = await _run(opening)
    except FormatError:
        return web.json_response({"error": f"{name}: not a file of a known format: expected the "
                                  f"magic of one of {', '.join(format_names())}; nothing of it is "
                                  "shown"}, status=422)
    finally:
        del opening  # the dropped bytes: nothing else holds them now
    try:
        await _run(lambda: doc.model)
    except BaseException:
        ws.close(doc.id)
        raise
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
            return tree.children(model, path, start, tree.PAGE, *refnames.references(doc.format, model))

    return web.json_response(await _run(work))


async def doc_reveal(request: web.Request) -> web.StreamResponse:
    """Every level down to ``path``, each with the page of children that holds the next step."""
    doc = _doc(request)
    path = request.query.get("path", "")

    def work() -> dict[str, Any]:
        with doc.lock:
            model = doc.model
            return tree.reveal(model, path, *refnames.references(doc.format, model))

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


def allowed_hosts(host: str) -> frozenset[str]:
    """The names a ``Host`` header may carry: the bound address and ``localhost``.

    Bound to every address (``0.0.0.0``, ``::``), any address literal is fine too
    (``*``): a DNS-rebinding page always comes with a name.
    """
    bound = host.strip("[]").lower()
    hosts = {bound, "localhost"}
    try:
        if ipaddress.ip_address(bound).is_unspecified:
            hosts.add("*")
    except ValueError:
        pass
    return frozenset(hosts)


def make_app(workspace: Workspace | None = None, token: str | None = None,
             host: str = "127.0.0.1") -> web.Application:
    app = web.Application(middlewares=[guard], client_max_size=MAX_UPLOAD)
    app[WORKSPACE] = workspace if workspace is not None else Workspace()
    app[TOKEN] = token or new_token()
    app[PAGE_KEY] = new_token()
    app[HOSTS] = allowed_hosts(host)
    app[REFUSED] = Counter()
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

    views.register(app)  # summary, tables, inspector, find, byte patches (studio/views.py)

    timeline.register(app)  # a field across several files, a folder opened (studio/timeline.py)
    r.add_static("/static/", static_dir(), append_version=False)
    return app


# -- connections ----------------------------------------------------------------------------


def default_max_connections() -> int:
    """Well under the descriptor limit: the documents, worker threads and the log need some too."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return 256
    return max(8, min(256, (soft - 64) // 2))


class ConnectionLimit:
    """The protocol factory in front of aiohttp's: at most ``cap`` connections at once.

    At the cap, a new connection evicts the one that has waited longest
    without completing a request's headers (a silent or slowloris
    connection), so that a flood of those cannot lock the page out; when
    every connection has spoken, the new one is closed at once.
    """

    def __init__(self, factory: Callable[[], asyncio.BaseProtocol], cap: int) -> None:
        self.factory = factory
        self.cap = cap
        self.open: dict[_Counted, None] = {}  # in order of arrival
        self.refused = 0
        self.evicted = 0

    def __call__(self) -> _Counted:
        return _Counted(self)

    def admit(self, conn: _Counted) -> bool:
        if len(self.open) >= self.cap:
            victim = next((c for c in self.open if not c.spoke), None)
            if victim is None:
                self.refused += 1
                return False
            self.evicted += 1
            victim.drop()
        self.open[conn] = None
        return True


class _Counted(asyncio.Protocol):
    """One connection: counted, watched until its first request's headers, then aiohttp's."""

    def __init__(self, limit: ConnectionLimit) -> None:
        self.limit = limit
        self.inner: Any = None
        self.transport: asyncio.Transport | None = None
        self.spoke = False
        self._tail = b""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        if not self.limit.admit(self):
            transport.abort()  # type: ignore[attr-defined]
            return
        self.inner = self.limit.factory()
        self.inner.connection_made(transport)

    def drop(self) -> None:
        self.limit.open.pop(self, None)
        if self.transport is not None:
            self.transport.abort()

    def data_received(self, data: bytes) -> None:
        if self.inner is None:
            return
        if not self.spoke:
            seen = self._tail + data[:65536]
            self.spoke = b"\r\n\r\n" in seen
            self._tail = seen[-3:]
        self.inner.data_received(data)

    def eof_received(self) -> bool | None:
        return self.inner.eof_received() if self.inner is not None else None

    def connection_lost(self, exc: Exception | None) -> None:
        self.limit.open.pop(self, None)
        if self.inner is not None:
            self.inner.connection_lost(exc)
            self.inner = None

    def pause_writing(self) -> None:
        if self.inner is not None:
            self.inner.pause_writing()

    def resume_writing(self) -> None:
        if self.inner is not None:
            self.inner.resume_writing()


def quiet_descriptor_shortage(loop: asyncio.AbstractEventLoop, out: TextIO | None = None) -> None:
    """Log "out of file descriptors" once, not once a second for as long as it lasts.

    asyncio reports every failed ``accept`` through the loop's exception
    handler; a flood of connections used to write megabytes of the same line.
    """
    previous = loop.get_exception_handler()
    told = False

    def handler(lp: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        nonlocal told
        exc = context.get("exception")
        if isinstance(exc, OSError) and exc.errno in (errno.EMFILE, errno.ENFILE, errno.ENOBUFS,
                                                      errno.ENOMEM):
            if not told:
                told = True
                print(f"savecraft studio: out of file descriptors ({exc.strerror}); new connections "
                      "wait until some close (this is said once)", file=out or sys.stderr, flush=True)
            return
        if previous is not None:
            previous(lp, context)
        else:
            lp.default_exception_handler(context)

    loop.set_exception_handler(handler)


async def listen(runner: web.AppRunner, host: str, port: int,
                 max_connections: int | None = None) -> tuple[asyncio.Server, ConnectionLimit]:
    """Serve ``runner``'s application on ``host``:``port`` behind a :class:`ConnectionLimit`."""
    assert runner.server is not None, "runner.setup() first"
    loop = asyncio.get_running_loop()
    quiet_descriptor_shortage(loop)
    limit = ConnectionLimit(runner.server, max_connections or default_max_connections())
    server = await loop.create_server(limit, host, port, backlog=128)
    return server, limit


def runner_for(app: web.Application, timeout: float = IDLE_TIMEOUT) -> web.AppRunner:
    """An AppRunner whose connections time out: headers and idle keep-alive in :data:`IDLE_TIMEOUT`.

    (aiohttp's keep-alive timer runs from the connection's start and from each
    response, and closes a connection still waiting for a request's headers.)
    """
    return web.AppRunner(app, access_log=None, keepalive_timeout=timeout)
