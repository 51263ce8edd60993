"""The administration interface of ``savecraft serve --admin ADDR[:PORT]``: REST over TLS, JSON.

As the original TirNanoG server's (NOTES.md, "TirNanoG Admin Protocol"):
GET requests whose URL and query string are all that is read, answered in
JSON over TLS with the server's own certificate, and only for the one
client address given on the command line; any other address gets 404 (and
is counted, ``admin_refused``, and logged), as does an unknown request.

The address alone let every local user and program kick, ban and shut
down, so each request must also carry an operator's token
(``Authorization: Bearer TOKEN``, see :mod:`.operators`): none or an unknown
one is 401 (``admin_unauthorized``), a role below the request's is 403
(``admin_forbidden``). :data:`REQUIRED_ROLE` gives each request the least
role that may make it. Every request is logged as one ``admin access`` line
naming its operator, and a malformed HTTP request (a bad header, TLS bytes
on the wrong layer) is one ``admin malformed`` line and a count
(``admin_malformed``), not aiohttp's 11-line traceback.

``/status`` and ``/tng`` are the two requests the original documents; the
others are this project's, in the same style (docs/tirnanog-server.md lists
every field). Each change is logged as one ``admin`` line and persisted like
every other change (bans at once, the rest on the timer).

The HTTP side is aiohttp's web server on the game server's own event loop:
the requests read and change the server's state directly, between two
datagrams, with no locks and no threads. :class:`AdminActions` holds the
requests themselves (no HTTP), :func:`start_admin` the web glue.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import sys
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError

from ..formats.tirnanog.save.model import UserChunk
from ..jsonmap import encoder
from .operators import Operator, OperatorFile
from .packets import TextChat

if TYPE_CHECKING:
    from .server import GameServer

BANNED_FLAG = 1  # USER flags bit 0 (the saved-game spec)
GAME_TYPES = {0: "ortho", 1: "iso", 2: "hex"}
MAX_ANNOUNCE = 255  # characters in one announcement (a chat line fits one datagram)
MAX_SHUTDOWN_DELAY = 3600.0


class AdminError(Exception):
    """A request that cannot be done: answered 400 (or 404 for an unknown user) with ``error``."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


@dataclass(slots=True)
class AdminAddress:
    """``--admin ADDR[:PORT]``: the one client address answered, and the port to listen on."""

    allowed: ipaddress.IPv4Address | ipaddress.IPv6Address
    port: int | None  # None: the game's TCP port + 1 (or one the OS picks when that is 0)

    @classmethod
    def parse(cls, text: str) -> AdminAddress:
        """``127.0.0.1``, ``127.0.0.1:4001``, ``::1``, ``[::1]:4001``; ValueError otherwise."""
        host, port = text.strip(), None
        if host.startswith("["):
            end = host.find("]")
            if end < 0:
                raise ValueError(f"{text!r}: no closing ']'")
            rest = host[end + 1:]
            host = host[1:end]
            if rest:
                if not rest.startswith(":"):
                    raise ValueError(f"{text!r}: expected ':PORT' after ']'")
                port = rest[1:]
        elif host.count(":") == 1:
            host, port = host.split(":")
        try:
            allowed = ipaddress.ip_address(host)
        except ValueError:
            raise ValueError(f"{text!r}: not an IP address (the one client allowed)") from None
        number = None
        if port is not None:
            if not port.isdigit() or not 0 <= int(port) <= 65535:
                raise ValueError(f"{text!r}: the port is 0 to 65535")
            number = int(port)
        return cls(allowed, number)

    def allows(self, remote: str | None) -> bool:
        if not remote:
            return False
        try:
            ip = ipaddress.ip_address(remote.split("%", 1)[0])
        except ValueError:
            return False
        if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped
        return ip == self.allowed


def _user_json(user: UserChunk) -> dict[str, Any]:
    doc: dict[str, Any] = encoder(UserChunk)(user)
    doc.pop("password_hash", None)  # never leaves the server
    doc.pop("kind", None)
    return doc


class AdminActions:
    """The requests, on the server's own state; each returns the JSON answer as a dict."""

    def __init__(self, server: GameServer, by: str = "admin") -> None:
        self.server = server
        self.by = by
        self.shutdown_task: asyncio.Task[None] | None = None

    # -- reading -------------------------------------------------------------------------
    def status(self, q: Mapping[str, str]) -> dict[str, Any]:
        s = self.server
        return {"now": int(time.time()), "uptime": int(time.time() - s.started_wall),
                "saved": s.saved_wall, "users": len(s.sessions), "total": len(s.store.users),
                "reg": s.config.registration_open, "save_error": s.save_error}

    def tng(self, q: Mapping[str, str]) -> dict[str, Any]:
        h = self.server.world.hello
        return {"gameid": h.game_id, "rev": h.revision,
                "type": GAME_TYPES.get(h.game_type, str(h.game_type)),
                "id": f"{h.bundle_id:016x}",  # (a u64: JSON numbers lose it past 2**53)
                "tilew": h.tile_width, "tileh": h.tile_height, "mapsize": 1 << h.map_size,
                "atlas": 1 << h.atlas_size, "freq": h.audio_rate, "fps": h.fps,
                "actions": h.default_actions, "layers": h.map_layers,
                "transports": h.transports, "cmd": h.highest_command, "deltay": h.sprite_delta_y,
                "sprites": h.sprites_per_layer, "size": h.bundle_size,
                "maps": self.server.world.map_count}

    def players(self, q: Mapping[str, str]) -> dict[str, Any]:
        now_mono, now_wall = time.monotonic(), time.time()
        out = []
        for sess in sorted(self.server.sessions.values(), key=lambda x: x.uid):
            e = sess.user.entity
            st = sess.netq.stats
            out.append({
                "name": sess.user.name, "id": sess.uid, "map": e.map, "x": e.x, "y": e.y,
                "address": f"{sess.addr[0]}:{sess.addr[1]}" if sess.addr else sess.host,
                "since": int(now_wall - (now_mono - sess.created)),
                "datagrams_in": sess.datagrams, "datagrams_out": st.sent + st.resent + st.acks_sent,
                "resent": st.resent, "drops": sess.bad + sess.overflow + st.duplicates,
            })
        return {"users": len(out), "players": out}

    def _find(self, q: Mapping[str, str]) -> tuple[int, UserChunk]:
        store = self.server.store
        if "id" in q:
            try:
                uid = int(q["id"])
            except ValueError:
                raise AdminError(f"id={q['id']!r} is not a number") from None
            user = store.user(uid)
            if user is None:
                raise AdminError(f"no user with id {uid}", 404)
            return uid, user
        if "name" in q:
            found = store.find(q["name"])
            if found is None:
                raise AdminError(f"no user named {q['name']!r}", 404)
            return found
        raise AdminError("give name=NAME or id=NUMBER")

    def user(self, q: Mapping[str, str]) -> dict[str, Any]:
        uid, user = self._find(q)
        return {"id": uid, "online": uid in self.server.sessions, "banned": user.banned,
                "user": _user_json(user)}

    def deny(self, q: Mapping[str, str]) -> dict[str, Any]:
        return {"deny": self.server.store.deny_list()}

    # -- changing ------------------------------------------------------------------------
    def _log(self, request: str, **fields: Any) -> None:
        self.server.log("admin", request=request, by=self.by, **fields)

    def kick(self, q: Mapping[str, str]) -> dict[str, Any]:
        uid, user = self._find(q)
        sess = self.server.sessions.get(uid)
        if sess is None:
            raise AdminError(f"{user.name!r} is not online", 409)
        self.server.logout(sess, q.get("reason") or "kicked by the administrator")
        self._log("kick", user=repr(user.name), id=uid)
        return {"kicked": user.name, "id": uid}

    async def ban(self, q: Mapping[str, str]) -> dict[str, Any]:
        if "address" in q:
            return await self._ban_address(q["address"], ban=True)
        uid, user = self._find(q)
        user.flags |= BANNED_FLAG
        self.server.store.touch(uid)
        self.server.changed()
        sess = self.server.sessions.get(uid)
        if sess is not None:
            self.server.logout(sess, "banned by the administrator")
        self._log("ban", user=repr(user.name), id=uid)
        await self._save_now("ban")
        return {"banned": user.name, "id": uid, "kicked": sess is not None}

    async def unban(self, q: Mapping[str, str]) -> dict[str, Any]:
        if "address" in q:
            return await self._ban_address(q["address"], ban=False)
        uid, user = self._find(q)
        user.flags &= ~BANNED_FLAG
        self.server.store.touch(uid)
        self.server.changed()
        self._log("unban", user=repr(user.name), id=uid)
        await self._save_now("unban")
        return {"unbanned": user.name, "id": uid}

    async def _ban_address(self, spec: str, ban: bool) -> dict[str, Any]:
        store = self.server.store
        try:
            changed = store.deny_add(spec) if ban else store.deny_remove(spec)
        except ValueError as err:
            raise AdminError(str(err)) from None
        kicked: list[str] = []
        if ban:  # at once for datagrams too: whoever plays from there is logged out
            for sess in list(self.server.sessions.values()):
                host = sess.addr[0] if sess.addr else sess.host
                if store.denied(host) or store.denied(sess.host):
                    self.server.logout(sess, "address denied by the administrator")
                    kicked.append(sess.user.name)
        self.server.changed()
        self._log("ban" if ban else "unban", address=spec, changed=len(changed),
                  kicked=len(kicked))
        await self._save_now("ban" if ban else "unban")
        key = "denied" if ban else "allowed"
        return {key: changed, "kicked": kicked, "deny_count": len(store.deny)}

    def registration(self, q: Mapping[str, str]) -> dict[str, Any]:
        value = q.get("open", "").lower()
        if value not in ("1", "0", "true", "false", "yes", "no"):
            raise AdminError("give open=1 or open=0")
        opened = value in ("1", "true", "yes")
        self.server.config.registration_open = opened
        self._log("registration", open=opened)
        return {"reg": opened}

    async def save(self, q: Mapping[str, str]) -> dict[str, Any]:
        await self._save_now("admin")
        return {"saved": self.server.saved_wall, "save_error": self.server.save_error}

    def announce(self, q: Mapping[str, str]) -> dict[str, Any]:
        text = q.get("text", "")
        if not text or len(text) > MAX_ANNOUNCE:
            raise AdminError(f"give text=... (1 to {MAX_ANNOUNCE} characters)")
        told = self.server.announce(text)
        self._log("announce", text=repr(text), players=told)
        return {"announced": text, "players": told}

    def shutdown(self, q: Mapping[str, str]) -> dict[str, Any]:
        try:
            delay = float(q.get("delay", "0"))
        except ValueError:
            raise AdminError(f"delay={q.get('delay')!r} is not a number") from None
        if not 0 <= delay <= MAX_SHUTDOWN_DELAY:
            raise AdminError(f"delay is 0 to {MAX_SHUTDOWN_DELAY:g} seconds")
        if self.shutdown_task is not None and not self.shutdown_task.done():
            raise AdminError("a shutdown is already under way", 409)
        text = q.get("text") or f"The server stops in {delay:g} seconds."
        told = self.server.announce(text[:MAX_ANNOUNCE]) if delay > 0 or "text" in q else 0
        self._log("shutdown", delay=f"{delay:g}", text=repr(text))
        self.shutdown_task = asyncio.create_task(self._stop_later(delay))
        return {"shutdown_in": delay, "announced": told}

    async def _stop_later(self, delay: float) -> None:
        await asyncio.sleep(delay)
        self.server.request_stop("shutdown by the administrator")

    async def _save_now(self, reason: str) -> None:
        try:
            await self.server.save(reason, force=True)
        except OSError as err:  # kept in memory; the timer retries (and /status says so)
            raise AdminError(f"the change is made but could not be written yet: {err}",
                             503) from None


Handler = Callable[[Mapping[str, str]], "dict[str, Any] | Awaitable[dict[str, Any]]"]


# The least role that may make each request: reading, moderating players, running the server.
REQUIRED_ROLE: dict[str, str] = {
    "/status": "read-only", "/tng": "read-only", "/players": "read-only", "/user": "read-only",
    "/deny": "read-only",
    "/kick": "moderator", "/ban": "moderator", "/unban": "moderator", "/announce": "moderator",
    "/save": "moderator",
    "/registration": "administrator", "/shutdown": "administrator",
}


def _routes(actions: AdminActions) -> dict[str, Handler]:
    return {
        "/status": actions.status, "/tng": actions.tng, "/players": actions.players,
        "/user": actions.user, "/deny": actions.deny, "/kick": actions.kick,
        "/ban": actions.ban, "/unban": actions.unban, "/registration": actions.registration,
        "/save": actions.save, "/announce": actions.announce, "/shutdown": actions.shutdown,
    }


class AdminServer:
    """The aiohttp application and its TLS site; ``await start()``, ``await stop()``."""

    def __init__(self, server: GameServer, address: AdminAddress, host: str,
                 operators: OperatorFile) -> None:
        self.server = server
        self.address = address
        self.host = host
        self.operators = operators
        self._problem_logged: str | None = None
        self.actions = AdminActions(server)
        self.routes = _routes(self.actions)
        self.port = 0
        self._runner: web.AppRunner | None = None

    async def start(self) -> int:
        app = web.Application(handler_args={"max_field_size": 4096, "max_line_size": 4096})
        app.router.add_route("*", "/{tail:.*}", self._handle)
        runner = web.AppRunner(app, access_log=None, handle_signals=False,
                               logger=_RequestErrors(self.server))
        await runner.setup()
        port = self.address.port
        if port is None:
            port = self.server.tcp_port + 1 if self.server.config.port else 0
        site = web.TCPSite(runner, self.host, port, ssl_context=self.server.tls,
                           reuse_address=True)
        await site.start()
        self._runner = runner
        bound = runner.addresses  # (the port the OS picked for 0)
        self.port = int(bound[0][1]) if bound else port
        ops = self.operators.current()
        self.server.log("admin", listen=f"{self.host}:{self.port}",
                        allowed=str(self.address.allowed), operators=len(ops),
                        file=self.operators.path)
        return self.port

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        server = self.server
        remote = request.remote
        path = request.path.rstrip("/") or "/"
        if not self.address.allows(remote):  # the second fence: the one client address
            server.count("admin_refused")
            server.log("admin", refused=remote, path=repr(request.path[:80]), reason="address")
            return web.json_response({"error": "not found"}, status=404)
        operator = self._operator(request)
        if operator is None:
            server.count("admin_unauthorized")
            server.log("admin", refused=remote, path=repr(request.path[:80]),
                       reason="no token" if not request.headers.get("Authorization")
                       else "unknown token")
            return web.json_response(
                {"error": "give an operator's token (Authorization: Bearer TOKEN; "
                 "savecraft operators FILE add NAME --role ROLE makes one)"},
                status=401, headers={"WWW-Authenticate": 'Bearer realm="savecraft admin"'})
        handler = self.routes.get(path)
        if request.method != "GET" or handler is None:
            server.count("admin_not_found")
            self._access(operator.name, operator.role, remote, request.path, 404)
            return web.json_response({"error": "not found"}, status=404)
        needed = REQUIRED_ROLE[path]
        if not operator.may(needed):
            server.count("admin_forbidden")
            self._access(operator.name, operator.role, remote, path, 403)
            return web.json_response({"error": f"{path[1:]} needs the role {needed} or above "
                                      f"({operator.name} is {operator.role})"}, status=403)
        server.count("admin_requests")
        self.actions.by = operator.name
        try:
            answer = handler(request.query)
            if asyncio.iscoroutine(answer):
                answer = await answer
        except AdminError as err:
            self._access(operator.name, operator.role, remote, path, err.status)
            return web.json_response({"error": str(err)}, status=err.status)
        self._access(operator.name, operator.role, remote, path, 200)
        return web.json_response(answer)

    def _operator(self, request: web.Request) -> Operator | None:
        scheme, _, token = request.headers.get("Authorization", "").partition(" ")
        ops = self.operators.current()
        problem = self.operators.problem
        if problem != self._problem_logged:  # (once per change, not once per request)
            self._problem_logged = problem
            if problem is not None:
                log.warning("admin operators unusable, every request refused: %s", problem)
        if scheme.lower() != "bearer" or not token.strip():
            return None
        return ops.find(token.strip())

    def _access(self, name: str, role: str, remote: str | None, path: str, status: int) -> None:
        self.server.log("admin access", op=name, role=role, addr=remote, request=path[:80],
                        status=status)


log = logging.getLogger("savecraft.net.server")


class _RequestErrors:
    """aiohttp's request logger: a malformed request is one counted line, not a traceback.

    aiohttp answers a request it cannot parse with 400 and logs the parser's
    exception with its traceback (11 lines for one bad header), for anyone
    who can connect. Here that is the ``admin_malformed`` count and one line;
    any other exception (a fault of ours) keeps its traceback.
    """

    def __init__(self, server: GameServer) -> None:
        self.server = server
        self.real = logging.getLogger("aiohttp.server")

    def exception(self, msg: str, *args: Any, exc_info: Any = True, **kw: Any) -> None:
        exc = exc_info if isinstance(exc_info, BaseException) else sys.exc_info()[1]
        if isinstance(exc, HttpProcessingError):
            self.server.count("admin_malformed")
            why = " ".join(str(exc.message).split()) or type(exc).__name__
            who = str(args[0]) if args else "?"
            self.server.log("admin malformed", addr=who, reason=repr(f"{exc.code} {why}"[:120]))
            return
        self.real.exception(msg, *args, exc_info=exc_info, **kw)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)


__all__ = ["REQUIRED_ROLE", "AdminActions", "AdminAddress", "AdminError", "AdminServer"]
