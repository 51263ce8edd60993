"""A TirNanoG client: the TLS handshake, the asset bundle cache, and a UDP session.

    hello, bundle = await fetch_bundle("127.0.0.1", 4000, cache=Path("cache"))
    session = await login("127.0.0.1", 4000, "Brigid", "secret", register=[0, 0, 5, 5])
    session.move(0, 10, 12, direction=2)
    session.chat("hello")
    await session.pump_for(0.5)
    print(session.players)
    await session.logout()

The handshake runs the sans-IO :class:`~savecraft.net.session.Handshake`;
the UDP side the same NetQ and cipher as the server. :class:`ClientSession`
keeps what the client has seen (players around, chat lines, maps, quests),
and is driven either by its own task (:meth:`ClientSession.run`) or by a
caller that owns many sessions (the load test calls :meth:`ClientSession.tick`).
"""

from __future__ import annotations

import asyncio
import ssl
import time
import zlib
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import FormatError, SavecraftError
from ..fileio import atomic_write, ensure_dir
from ..formats.tirnanog.save.model import UserChunk
from .backoff import ResendBackoff
from .certs import client_context
from .crypto import SessionCipher, is_plain, parse_plain, password_hash, plain_datagram
from .netq import MapAssembler, NetQ, SequenceExhausted
from .packets import (
    OWN_INVENTORY,
    AssetBundle,
    BundleRequest,
    ClientHello,
    Context,
    Error,
    ErrorReason,
    InventoryQuery,
    InventoryRecord,
    LanDiscoveryReply,
    Login,
    LoginOk,
    Logout,
    LogoutRecord,
    MapFragment,
    MapRequest,
    Message,
    Move,
    MoveRecord,
    Quest,
    QuestAction,
    Register,
    Role,
    ServerHello,
    SpritesRecord,
    TextChat,
    UdpHello,
    Update,
    VoiceChat,
    Whois,
    decode,
)
from .session import Handshake
from .tcpio import close, receive_event, send
from ..errors import Report
from ..formats.tirnanog.game.assets import Source
from ..formats.tirnanog.game.container import read_game
from ..formats.tirnanog.game.header import MAGIC


class ClientError(SavecraftError):
    """The server refused (with its reason) or the connection failed."""

    def __init__(self, message: str, reason: ErrorReason | int | None = None) -> None:
        super().__init__(message)
        self.reason = reason


@dataclass(slots=True)
class BundleInfo:
    """What a client reads from the asset bundle to play: maps, character options, attributes."""

    map_count: int
    map_size: int
    option_counts: list[int]
    attribute_kinds: list[int]  # the non-global attributes, in order
    free_points: int
    max_points: int

    def default_character(self, choice: int = 0) -> list[int]:
        """A valid character specification: option ``choice`` (mod the group's size) of each
        group, palette 0, and the free-form points spread evenly over the primary attributes."""
        options = [(choice % max(n, 1)) << 8 for n in self.option_counts]
        primary = [k for k, kind in enumerate(self.attribute_kinds) if kind == 0]
        values = [0] * len(self.attribute_kinds)
        if primary:
            each = self.free_points // len(primary)
            if self.max_points:
                each = min(each, self.max_points)
            for k in primary:
                values[k] = max(each, 0)
        return options + values


def describe_bundle(hello: ServerHello, bundle: bytes) -> BundleInfo:
    """Read the sections of an asset bundle with the game-file API (no map asset needed)."""
    head = MAGIC + hello.file_header_fields() + bytes(8)
    game = read_game(Source(head + bundle), Report(strict=False), verify_file_crc=False)
    attrs = game.attributes
    groups = game.character_options
    kinds = [int(a.kind) for a in attrs.attributes if int(a.kind) < 3] if attrs else []
    return BundleInfo(
        map_count=len(game.maps.maps) if game.maps is not None else 0,
        map_size=game.header.map_size,
        option_counts=[len(g.asset.value.options) for g in groups.groups] if groups else [],
        attribute_kinds=kinds,
        free_points=attrs.free_total_points if attrs else 0,
        max_points=attrs.free_max_points if attrs else 0,
    )


# -- TCP -------------------------------------------------------------------------------------

async def _open(host: str, port: int, tls: ssl.SSLContext | None, timeout: float,
                source: str | None = None
                ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter, Handshake, ServerHello]:
    ctx = tls or client_context()
    try:
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection(host, port, ssl=ctx, server_hostname=host,
                                    local_addr=(source, 0) if source else None), timeout)
    except (TimeoutError, OSError, ssl.SSLError) as err:
        raise ClientError(f"{host}:{port}: cannot connect: {err or type(err).__name__}") from None
    hs = Handshake(Role.CLIENT)
    try:
        await send(hs, writer, ClientHello())
        hello = await asyncio.wait_for(receive_event(hs, reader), timeout)
    except BaseException:
        await close(writer)
        raise
    if isinstance(hello, Error):
        await close(writer)
        raise ClientError(f"server refused: {_reason(hello.reason)}", hello.reason)
    if not isinstance(hello, ServerHello):
        await close(writer)
        raise ClientError("the server closed the connection before its hello")
    odd = hello.nonzero_reserved()
    if odd:  # the spec: must be zero; flags would announce features this client lacks
        await close(writer)
        raise ClientError(f"{host}:{port}: the server's hello has must-be-zero fields set "
                          f"({', '.join(odd)}): a protocol this client does not speak")
    return reader, writer, hs, hello


def _reason(code: ErrorReason | int) -> str:
    if isinstance(code, ErrorReason):
        return code.name.lower().replace("_", " ")
    return f"reason code {code}"


async def fetch_hello(host: str, port: int, *, tls: ssl.SSLContext | None = None,
                      timeout: float = 10.0) -> ServerHello:
    _, writer, hs, hello = await _open(host, port, tls, timeout)
    hs.close()
    await close(writer)
    return hello


def _cache_file(cache: Path, hello: ServerHello) -> Path:
    safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in hello.game_id) or "game"
    return cache / f"{safe}-{hello.bundle_id:016x}.bundle"


def cached_bundle(cache: Path, hello: ServerHello) -> bytes | None:
    """The cached bundle for this hello: header fields equal and CRC right, else None."""
    path = _cache_file(cache, hello)
    try:
        raw = path.read_bytes()
    except OSError:
        return None
    head = hello.file_header_fields()
    if raw[:len(head)] != head:
        return None
    try:
        return AssetBundle.decode(raw[len(head):], hello.bundle_size).data
    except FormatError:
        return None


async def fetch_bundle(host: str, port: int, *, cache: Path | None = None,
                       tls: ssl.SSLContext | None = None, timeout: float = 30.0
                       ) -> tuple[ServerHello, bytes, bool]:
    """The server's hello and asset bundle; from ``cache`` when it is current.

    Returns (hello, bundle, downloaded). A bundle whose CRC does not match
    is fetched again once, then refused.
    """
    for attempt in range(2):
        reader, writer, hs, hello = await _open(host, port, tls, timeout)
        if cache is not None:
            have = cached_bundle(cache, hello)
            if have is not None:
                hs.close()
                await close(writer)
                return hello, have, False
        try:
            await send(hs, writer, BundleRequest())
            got = await asyncio.wait_for(receive_event(hs, reader), timeout)
        except FormatError as err:
            await close(writer)
            if attempt == 0:
                continue
            raise ClientError(f"asset bundle refused: {err}") from None
        await close(writer)
        if not isinstance(got, AssetBundle):
            raise ClientError("the server closed the connection instead of sending the bundle")
        if cache is not None:
            ensure_dir(cache)
            atomic_write(_cache_file(cache, hello), hello.file_header_fields() + got.encode())
        return hello, got.data, True
    raise ClientError("asset bundle CRC mismatch twice")  # pragma: no cover - loop returns


async def login(host: str, port: int, name: str, password: str | bytes, *,
                register: list[int] | None = None, udp_port: int | None = None,
                language: str = "en", tls: ssl.SSLContext | None = None,
                timeout: float = 10.0, start: bool = True,
                source: str | None = None) -> ClientSession:
    """Log in (or register first, with ``register`` as the character specification).

    ``udp_port`` is the server's UDP port when it is not the TCP port's number.
    With ``start`` the session's UDP socket is opened and the UDP hello sent.
    """
    ph = password if isinstance(password, bytes) else password_hash(password)
    reader, writer, hs, hello = await _open(host, port, tls, timeout, source)
    try:
        request: Register | Login = Register(name, ph, language, list(register)) \
            if register is not None else Login(name, ph, language)
        await send(hs, writer, request)
        answer = await asyncio.wait_for(receive_event(hs, reader), timeout)
    finally:
        await close(writer)
    if isinstance(answer, Error):
        raise ClientError(f"{'registration' if register is not None else 'login'} refused: "
                          f"{_reason(answer.reason)}", answer.reason)
    if not isinstance(answer, LoginOk):
        raise ClientError("the server closed the connection without an answer")
    sess = ClientSession(answer, hello, host, udp_port or port)
    sess.source = source
    if start:
        await sess.start(timeout=timeout)
    return sess


async def discover(host: str, port: int, timeout: float = 2.0) -> LanDiscoveryReply | None:
    """Send a zero-OTP UDP hello; the server's shortened hello, or None if no answer."""
    loop = asyncio.get_running_loop()
    got: asyncio.Future[LanDiscoveryReply] = loop.create_future()

    class _P(asyncio.DatagramProtocol):
        def datagram_received(self, data: bytes, addr: Any) -> None:
            try:
                msg = parse_plain(data)
            except FormatError:
                return
            if isinstance(msg, LanDiscoveryReply) and not got.done():
                got.set_result(msg)

    transport, _ = await loop.create_datagram_endpoint(_P, remote_addr=(host, port))
    try:
        for _ in range(3):
            transport.sendto(plain_datagram(UdpHello()))
            try:
                return await asyncio.wait_for(asyncio.shield(got), timeout / 3)
            except TimeoutError:
                continue
        return None
    finally:
        transport.close()


# -- UDP -------------------------------------------------------------------------------------

@dataclass(slots=True)
class Seen:
    """A player the client knows about."""

    uid: int
    map_id: int = 0
    x: int = 0
    y: int = 0
    direction: int = 0
    altitude: int = 0
    name: str = ""


class _Udp(asyncio.DatagramProtocol):
    def __init__(self, session: ClientSession) -> None:
        self.session = session

    def datagram_received(self, data: bytes, addr: Any) -> None:
        self.session.on_datagram(data)

    def error_received(self, exc: Exception) -> None:
        self.session.errors += 1


@dataclass(eq=False)
class ClientSession:
    """A logged-in player's UDP session."""

    login: LoginOk
    hello: ServerHello
    host: str
    port: int
    netq: NetQ = field(default_factory=lambda: NetQ(resend_timeout=0.4, window=8, max_queue=512))
    players: dict[int, Seen] = field(default_factory=dict)
    chat_lines: deque[tuple[int, str]] = field(default_factory=lambda: deque(maxlen=1000))
    maps: dict[int, bytes] = field(default_factory=dict)
    quests: deque[Quest] = field(default_factory=lambda: deque(maxlen=1000))
    inventories: dict[int, InventoryRecord] = field(default_factory=dict)
    voice: deque[VoiceChat] = field(default_factory=lambda: deque(maxlen=100))
    on_message: Callable[[Message], None] | None = None
    on_record: Callable[[Any], None] | None = None
    errors: int = 0  # datagrams that did not decrypt or decode
    logged_out: bool = False
    lost: bool = False  # closed because the server fell silent
    server_timeout: float = 10.0
    source: str | None = None  # the local address to send from (None: the system's choice)
    _started: float = 0.0
    echoed: asyncio.Event = field(default_factory=asyncio.Event)
    _transport: asyncio.DatagramTransport | None = None
    _assembler: MapAssembler = field(default_factory=MapAssembler)
    _last_sent: float = 0.0
    _task: asyncio.Task[None] | None = None

    def __post_init__(self) -> None:
        self.cipher = SessionCipher(self.login.token)
        self._backoff = ResendBackoff(self.netq)
        self.user: UserChunk = self.login.user
        self.ctx = Context(numchar=len(self.user.character_options))
        e = self.user.entity
        self.position = (e.map, e.x, e.y, e.direction, e.altitude)
        self.uid = 0  # learnt from the first update that shows ourselves (unknown before)

    # -- lifecycle -----------------------------------------------------------------------
    async def start(self, timeout: float = 5.0) -> None:
        """Open the UDP socket and send the UDP hello until the server echoes it."""
        loop = asyncio.get_running_loop()
        transport, _ = await loop.create_datagram_endpoint(
            lambda: _Udp(self), remote_addr=(self.host, self.port),
            local_addr=(self.source, 0) if self.source else None)
        self._transport = transport
        hello = plain_datagram(UdpHello(self.login.otp))
        deadline = loop.time() + timeout
        while not self.echoed.is_set():
            transport.sendto(hello)
            try:
                await asyncio.wait_for(self.echoed.wait(), min(0.5, max(deadline - loop.time(),
                                                                        0.01)))
            except TimeoutError:
                if loop.time() >= deadline:
                    transport.close()
                    raise ClientError("no answer to the UDP hello") from None
        self._last_sent = self._started = time.monotonic()

    def run(self, period: float = 0.05) -> asyncio.Task[None]:
        """Keep the session alive in the background (acks, resends, keepalives)."""
        async def loop() -> None:
            while not self.logged_out:
                self.tick(time.monotonic())
                await asyncio.sleep(period)
        self._task = asyncio.create_task(loop())
        return self._task

    async def pump_for(self, seconds: float, period: float = 0.02) -> None:
        """Tick for a while (when no :meth:`run` task does it)."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.tick(time.monotonic())
            await asyncio.sleep(period)

    async def logout(self, linger: float = 0.3) -> None:
        """Send the logout and wait a moment for it to be acknowledged."""
        if not self.logged_out:
            self.send(Logout())
            end = time.monotonic() + linger
            while self.netq.in_flight and time.monotonic() < end:
                self.tick(time.monotonic())
                await asyncio.sleep(0.02)
        self.close()

    def close(self) -> None:
        self.logged_out = True
        if self._task is not None:
            self._task.cancel()
        if self._transport is not None:
            self._transport.close()

    # -- sending -------------------------------------------------------------------------
    def send(self, msg: Message) -> None:
        """Queue a message and put it on the wire now."""
        self.netq.queue(msg.encode())
        self._flush(time.monotonic())

    def send_raw(self, datagram: bytes) -> None:
        """A datagram exactly as given (for tests that misbehave on purpose)."""
        if self._transport is not None:
            self._transport.sendto(datagram)

    def _flush(self, now: float) -> None:
        out = self.netq.flush(now)
        self._backoff.update(self.netq)
        if out and self._transport is not None:
            apply = self.cipher.apply
            for d in out:
                self._transport.sendto(apply(d))
            self._last_sent = now

    def tick(self, now: float, keepalive: float = 1.0) -> None:
        """Acknowledge, resend what is due, and send a keepalive move when quiet for a while.

        A server silent for ``server_timeout`` seconds has dropped the session
        (it sends something at least every second): the session closes
        instead of resending into the void.
        """
        if self.logged_out:
            return
        heard = self.netq.last_heard if self.netq.last_heard is not None else self._started
        if now - heard > self.server_timeout:
            self.lost = True
            self.close()
            return
        if now - self._last_sent >= keepalive and not self.netq.in_flight:
            m, x, y, d, a = self.position
            try:
                self.netq.queue(Move(m, x, y, d, a).encode())
            except SequenceExhausted:  # 65,536 messages sent: the session is over (log in again)
                self.lost = True
                self.close()
                return
        self._flush(now)

    def move(self, map_id: int, x: int, y: int, direction: int = 0, altitude: int = 0,
             actions: list[int] | None = None) -> None:
        self.position = (map_id, x, y, direction, altitude)
        self.send(Move(map_id, x, y, direction, altitude, list(actions or [])))

    def chat(self, text: str) -> None:
        self.send(TextChat(0, text))

    def speak(self, pcm: bytes) -> None:
        self.send(VoiceChat.from_pcm(pcm))

    def quest(self, quest_id: int, action: QuestAction) -> None:
        self.send(Quest(quest_id, action))

    def whois(self, uid: int) -> None:
        self.send(Whois(uid))

    def inventory(self, uid: int = OWN_INVENTORY) -> None:
        self.send(InventoryQuery(uid))

    def request_map(self, map_id: int) -> None:
        self.send(MapRequest(map_id))

    # -- receiving -----------------------------------------------------------------------
    def on_datagram(self, data: bytes) -> None:
        if is_plain(data):
            try:
                plain = parse_plain(data)
            except FormatError:
                self.errors += 1
                return
            if isinstance(plain, UdpHello) and plain.otp == self.login.otp:
                self.echoed.set()
            return
        now = time.monotonic()
        try:
            messages = self.netq.receive(self.cipher.apply(data), now)
        except FormatError:
            self.errors += 1
            return
        for raw in messages:
            self.on_message_bytes(raw)

    def on_message_bytes(self, raw: bytes) -> None:
        """One message NetQ delivered (decrypted, in order): decode it and act on it."""
        try:
            msg = decode(raw, sender=Role.SERVER, ctx=self.ctx)
        except FormatError:
            self.errors += 1
            return
        self._handle(msg)

    def _handle(self, msg: Message) -> None:
        if isinstance(msg, Update):
            for rec in msg.records:
                self._record(rec)
        elif isinstance(msg, TextChat):
            self.chat_lines.append((msg.user_id, msg.text))
        elif isinstance(msg, MapFragment):
            whole = self._assembler.add(msg)
            if whole is not None:
                self.maps[msg.map_id] = whole
        elif isinstance(msg, Quest):
            self.quests.append(msg)
        elif isinstance(msg, VoiceChat):
            self.voice.append(msg)
        if self.on_message is not None:
            self.on_message(msg)

    def _record(self, rec: Any) -> None:
        if isinstance(rec, MoveRecord):
            seen = self.players.get(rec.user_id)
            if seen is None:
                seen = self.players[rec.user_id] = Seen(rec.user_id)
            seen.map_id, seen.x, seen.y = rec.map_id, rec.x, rec.y
            seen.direction, seen.altitude = rec.direction, rec.altitude
        elif isinstance(rec, LogoutRecord):
            self.players.pop(rec.user_id, None)
        elif isinstance(rec, SpritesRecord):
            seen = self.players.get(rec.user_id)
            if seen is None:
                seen = self.players[rec.user_id] = Seen(rec.user_id)
            seen.name = rec.name
        elif isinstance(rec, InventoryRecord):
            self.inventories[rec.user_id] = rec
        if self.on_record is not None:
            self.on_record(rec)


async def play(host: str, port: int, name: str, password: str, *, udp_port: int | None = None,
               cache: Path | None = None, tls: ssl.SSLContext | None = None, steps: int = 5,
               say: str | None = "hello", step_time: float = 0.2, linger: float = 0.5,
               out: Callable[[str], None] = print) -> ClientSession:
    """What ``savecraft play`` does: bundle, log in (registering when the name is new), walk,
    chat, look around, log out; every message seen is printed through ``out``."""
    hello, bundle, downloaded = await fetch_bundle(host, port, cache=cache, tls=tls)
    out(f"world {hello.game_id!r}: asset bundle {len(bundle)} bytes, CRC "
        f"0x{zlib.crc32(bundle):08X} verified, {'downloaded' if downloaded else 'from the cache'}")
    info = describe_bundle(hello, bundle)
    try:
        sess = await login(host, port, name, password, udp_port=udp_port, tls=tls, start=False)
        out(f"logged in as {name!r}")
    except ClientError as err:
        if err.reason != ErrorReason.BAD_CREDENTIALS:
            raise
        try:
            sess = await login(host, port, name, password, udp_port=udp_port, tls=tls,
                               register=info.default_character(), start=False)
        except ClientError as err2:
            if err2.reason == ErrorReason.NAME_TAKEN:
                raise ClientError(f"wrong password for {name!r}", err2.reason) from None
            raise
        out(f"registered {name!r}")
    sess.on_message = lambda m: out(describe_message(m))
    await sess.start()
    e = sess.user.entity
    out(f"in the world at map {e.map} ({e.x},{e.y}), facing {e.direction}")
    sess.run()
    sess.inventory()
    sess.request_map(e.map)
    size = max(info.map_size, 1)
    m, x, y = e.map, e.x, e.y
    for k in range(steps):
        x = (x + 1) % size
        sess.move(m, x, y, direction=2, actions=[k % 9] if k % 3 == 0 else [])
        out(f"walked to map {m} ({x},{y})")
        await asyncio.sleep(step_time)
    if say:
        sess.chat(say)
        out(f"said {say!r}")
    for uid in list(sess.players):
        sess.whois(uid)
    await asyncio.sleep(linger)
    for seen in sess.players.values():
        out(f"around: player {seen.uid} {seen.name!r} at map {seen.map_id} ({seen.x},{seen.y})")
    for map_id, asset in sess.maps.items():
        out(f"map {map_id}: {len(asset)} bytes of map asset received")
    await sess.logout()
    out("logged out")
    return sess


def describe_message(msg: Message) -> str:
    """One line about a message from the server, for ``savecraft play``."""
    if isinstance(msg, Update):
        if not msg.records:
            return "server: still there?"
        parts = []
        for rec in msg.records:
            if isinstance(rec, MoveRecord):
                parts.append(f"player {rec.user_id} at map {rec.map_id} ({rec.x},{rec.y})")
            elif isinstance(rec, LogoutRecord):
                parts.append(f"player {rec.user_id} left")
            elif isinstance(rec, SpritesRecord):
                parts.append(f"player {rec.user_id} is {rec.name!r}")
            elif isinstance(rec, InventoryRecord):
                parts.append(f"player {rec.user_id} carries {len(rec.items)} kinds of items")
            else:
                parts.append(f"player {rec.user_id} equipment")
        return "update: " + "; ".join(parts)
    if isinstance(msg, TextChat):
        return f"chat from player {msg.user_id}: {msg.text}"
    if isinstance(msg, VoiceChat):
        return f"voice from player {msg.speaker_id}: {len(msg.data)} bytes"
    if isinstance(msg, MapFragment):
        return f"map {msg.map_id}: bytes {msg.offset}-{msg.offset + len(msg.data)} of {msg.total}"
    if isinstance(msg, Quest):
        return f"quest {msg.quest_id} {msg.action.name.lower()}"
    return f"{msg.NAME}"


__all__ = [
    "BundleInfo",
    "ClientError",
    "ClientSession",
    "Seen",
    "cached_bundle",
    "describe_bundle",
    "describe_message",
    "discover",
    "fetch_bundle",
    "fetch_hello",
    "login",
    "password_hash",
    "play",
]
