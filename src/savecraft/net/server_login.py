"""The server's side of the TLS handshake: hello, asset bundle, registration, login.

Each connection runs the sans-IO :class:`~savecraft.net.session.Handshake`
under one overall timeout. Refusals answer with an error (type 4) carrying
one of the project's reason codes (:class:`~savecraft.net.packets.ErrorReason`)
and are logged with the reason in words.
"""

from __future__ import annotations

import asyncio
import ssl
import time
import unicodedata
from collections import deque
from typing import TYPE_CHECKING

from ..errors import FormatError
from ..formats.tirnanog.save.model import Entity, UserChunk
from .crypto import new_otp, new_token, same_secret
from .packets import (
    PROTOCOL_VERSION,
    BundleRequest,
    ClientHello,
    Error,
    ErrorReason,
    Login,
    LoginOk,
    Register,
    Role,
)
from .packets.handshake import HASH_SIZE, AssetBundle
from .session import ConnectionClosed, Handshake
from .tcpio import close, receive_event, send
from .world import PRIMARY

if TYPE_CHECKING:
    from .server import GameServer

MAX_NAME_BYTES = 32
_DUMMY_HASH = bytes(HASH_SIZE)


class AttemptLimiter:
    """Events per address in a sliding window; memory bounded by ``max_hosts``.

    Counts failed logins, registrations (per address, and in total under
    the key "") and LAN discovery hellos: ``fail()`` records one,
    ``blocked()`` says the window holds ``limit`` already.
    """

    def __init__(self, limit: int, window: float, max_hosts: int = 65536) -> None:
        self.limit = limit
        self.window = window
        self.max_hosts = max_hosts
        self._fails: dict[str, deque[float]] = {}

    def _recent(self, host: str, now: float) -> deque[float] | None:
        q = self._fails.get(host)
        if q is None:
            return None
        while q and now - q[0] > self.window:
            q.popleft()
        if not q:
            del self._fails[host]
            return None
        return q

    def blocked(self, host: str, now: float) -> bool:
        q = self._recent(host, now)
        return q is not None and len(q) >= self.limit

    def fail(self, host: str, now: float) -> None:
        q = self._recent(host, now)
        if q is None:
            if len(self._fails) >= self.max_hosts:
                del self._fails[next(iter(self._fails))]
            q = self._fails[host] = deque(maxlen=self.limit)
        q.append(now)


def name_problem(name: str) -> str | None:
    """Why a user name cannot be registered, or None."""
    if not name or name != name.strip():
        return "empty or padded with spaces"
    if len(name.encode("utf-8")) > MAX_NAME_BYTES:
        return f"longer than {MAX_NAME_BYTES} bytes"
    if any(unicodedata.category(ch).startswith("C") for ch in name):
        return "has control characters"
    return None


class Refused(Exception):
    def __init__(self, reason: ErrorReason, why: str) -> None:
        super().__init__(why)
        self.reason = reason
        self.why = why
        self.kind = "login"  # or "registration": which the metrics count it against


async def handle_connection(server: GameServer, reader: asyncio.StreamReader,
                            writer: asyncio.StreamWriter) -> None:
    peer = writer.get_extra_info("peername") or ("?", 0)
    host = str(peer[0])
    where = f"{host}:{peer[1]}"
    server.log("connect", addr=where, channel="tcp")
    hs = Handshake(Role.SERVER)
    try:
        await asyncio.wait_for(_converse(server, hs, reader, writer, host, where),
                               server.config.handshake_timeout)
    except TimeoutError:
        server.count("tcp_timeout")
        server.log("refuse", addr=where, reason="handshake timed out")
    except FormatError as err:
        server.count("tcp_malformed")
        server.log("refuse", addr=where, reason=f"malformed handshake: {err}")
        try:
            writer.write(Error(ErrorReason.PROTOCOL_ERROR).encode())
        except (OSError, RuntimeError):
            pass
    except (ConnectionError, asyncio.IncompleteReadError, ssl.SSLError, OSError) as err:
        server.log("refuse", addr=where, reason=f"connection lost: {type(err).__name__}")
    finally:
        await close(writer)


async def _converse(server: GameServer, hs: Handshake, reader: asyncio.StreamReader,
                    writer: asyncio.StreamWriter, host: str, where: str) -> None:
    hello = await receive_event(hs, reader)
    if isinstance(hello, ConnectionClosed):
        return
    assert isinstance(hello, ClientHello)
    if server.store.denied(host):
        await send(hs, writer, Error(ErrorReason.ADDRESS_DENIED))
        server.log("refuse", addr=where, reason="address in DENY")
        return
    if hello.version != PROTOCOL_VERSION:
        await send(hs, writer, Error(ErrorReason.UNSUPPORTED_VERSION))
        server.log("refuse", addr=where, reason=f"protocol version {hello.version}")
        return
    await send(hs, writer, server.world.hello)
    while True:
        request = await receive_event(hs, reader)
        if isinstance(request, ConnectionClosed):
            return
        if isinstance(request, BundleRequest):
            await send(hs, writer, AssetBundle(server.world.bundle))
            server.log("bundle", addr=where, size=len(server.world.bundle),
                       crc=f"0x{server.world.bundle_crc:08X}")
            return
        assert isinstance(request, Register | Login)
        try:
            answer = await _answer(server, request, host, where)
        except Refused as no:
            server.outcomes[no.kind, no.reason.name.lower()] += 1
            server.log("refuse", addr=where, user=repr(request.name), reason=no.why)
            await send(hs, writer, Error(no.reason))
            if hs.attempts >= server.config.attempts_per_connection:
                return
            continue
        await send(hs, writer, answer)
        return


async def _answer(server: GameServer, request: Register | Login, host: str,
                  where: str) -> LoginOk:
    now = time.monotonic()
    limiter = server.attempts
    if limiter.blocked(host, now):
        raise Refused(ErrorReason.TOO_MANY_ATTEMPTS, "too many failed attempts from this address")
    if isinstance(request, Register):
        try:
            uid = await _register(server, request, host, now)
        except Refused as no:
            no.kind = "registration"
            raise
        server.outcomes["registration", "ok"] += 1
        server.log("register", addr=where, user=repr(request.name), id=uid)
    found = server.store.find(request.name)
    if found is None:
        same_secret(_DUMMY_HASH, request.password_hash)  # same work as for a known name
        limiter.fail(host, now)
        raise Refused(ErrorReason.BAD_CREDENTIALS, "unknown user name")
    uid, user = found
    if not same_secret(user.password_hash, request.password_hash):
        limiter.fail(host, now)
        raise Refused(ErrorReason.BAD_CREDENTIALS, "wrong password")
    if user.banned:
        raise Refused(ErrorReason.BANNED, "user is banned")
    if len(server.sessions) >= server.config.max_players and uid not in server.sessions:
        raise Refused(ErrorReason.SERVER_FULL, f"{server.config.max_players} players online")
    token, otp = new_token(), new_otp()
    server.open_session(uid, user, token, otp, host)
    server.outcomes["login", "ok"] += 1
    server.log("login", addr=where, user=repr(user.name), id=uid,
               at=f"map {user.entity.map} ({user.entity.x},{user.entity.y})")
    return LoginOk(token, otp, server.store.client_state(user))


async def _register(server: GameServer, request: Register, host: str, now: float) -> int:
    world = server.world
    if not server.config.registration_open:
        raise Refused(ErrorReason.REGISTRATION_DISABLED, "registration is closed")
    why = name_problem(request.name)
    if why is not None:
        raise Refused(ErrorReason.BAD_NAME, f"user name {why}")
    if server.store.find(request.name) is not None:
        raise Refused(ErrorReason.NAME_TAKEN, "user name taken")
    if len(request.password_hash) != HASH_SIZE:
        raise Refused(ErrorReason.PROTOCOL_ERROR, "password hash is not 32 bytes")
    attributes = character_attributes(server, request)
    _registration_allowed(server, host, now)
    options = [o.packed() for o in request.character(world.numchar).options]
    mp, x, y = world.spawn_point()
    wall = int(time.time())
    user = UserChunk(
        name=request.name, password_hash=bytes(request.password_hash), created=wall,
        last_login=0, last_logout=0, last_seen=wall, language=request.language or "en",
        flags=0, character_options=options,
        entity=Entity(map=mp, x=x, y=y, attributes=attributes),
    )
    uid = server.store.add_user(user)
    server.changed()
    try:
        await server.save("registration")  # told OK only once the new user is on disk
    except OSError as err:
        raise Refused(ErrorReason.SERVER_ERROR, f"the state could not be written: {err}") from None
    return uid


def _registration_allowed(server: GameServer, host: str, now: float) -> None:
    """Count one registration against the per-address and total limits, or refuse it.

    Each registration is one more user in every save and one more write
    before its OK: unlimited, one address made 600 accounts in 5 s and
    kept the tick 200 ms late. Refusals cost nothing to store.
    """
    cfg = server.config
    if cfg.registrations_per_address and server.registrations.blocked(host, now):
        server.count("registrations_limited")
        raise Refused(ErrorReason.TOO_MANY_REGISTRATIONS,
                      f"{cfg.registrations_per_address} registrations from this address "
                      "in the last minute")
    if cfg.registrations_per_minute and server.registrations_total.blocked("", now):
        server.count("registrations_limited")
        raise Refused(ErrorReason.TOO_MANY_REGISTRATIONS,
                      f"{cfg.registrations_per_minute} registrations in the last minute")
    server.registrations.fail(host, now)
    server.registrations_total.fail("", now)


def character_attributes(server: GameServer, request: Register) -> list[int]:
    """The new character's attribute values: checked against the world's rules.

    The specification holds one int32 per character option (value << 8 |
    palette), then one per non-global attribute. Primary attributes take the
    player's choice (within the free-form points); variable attributes start
    at the world's default, calculated ones at 0 (the server computes them).
    """
    world = server.world
    numchar = world.numchar
    if len(request.spec) < numchar:
        raise Refused(ErrorReason.BAD_CHARACTER,
                      f"{len(request.spec)} values for {numchar} character options")
    spec = request.character(numchar)
    for g, (opt, count) in enumerate(zip(spec.options, world.option_counts)):
        if not 0 <= opt.value < max(count, 1):
            raise Refused(ErrorReason.BAD_CHARACTER,
                          f"option {opt.value} of group {g}, which has {count}")
    defs = world.character_attributes
    if len(spec.attributes) != len(defs):
        raise Refused(ErrorReason.BAD_CHARACTER,
                      f"{len(spec.attributes)} attribute values for {len(defs)} attributes")
    values: list[int] = []
    spent = 0
    for k, (d, v) in enumerate(zip(defs, spec.attributes)):
        if d.kind == PRIMARY:
            if v < 0 or (world.max_points and v > world.max_points):
                raise Refused(ErrorReason.BAD_CHARACTER,
                              f"attribute {k} = {v}, outside 0..{world.max_points}")
            spent += v
            values.append(v)
        else:
            values.append(d.default if d.kind == 1 else 0)
    if world.free_points and spent > world.free_points:
        raise Refused(ErrorReason.BAD_CHARACTER,
                      f"{spent} attribute points spent, {world.free_points} allowed")
    return values


__all__ = ["AttemptLimiter", "character_attributes", "handle_connection", "name_problem"]
