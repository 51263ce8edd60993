"""The TirNanoG server: hosts one ``.tng`` world for many players (``savecraft serve``).

* TCP (TLS): hello, asset bundle, registration and login (:mod:`.server_login`).
* UDP, same port number unless told otherwise: the plain UDP hello binds a
  logged-in session to its address (and a zero OTP asks for the LAN
  discovery reply); everything else is XORed with the session token and
  carried by NetQ (:mod:`.netq`).
* A tick (20 per second by default) batches the movement records each
  player should see (same and neighbouring maps) into update messages,
  sends chat, voice and quest messages, feeds map fragments, resends what
  was not acknowledged, and logs out players silent for 5 seconds. It runs
  in phases, each sending to its share of the players, so the datagrams go
  out in small bursts rather than one burst as long as the whole send.
* The state (:mod:`.state`) is written atomically on a timer, after each
  registration (the player is told OK only once it is on disk) and on
  shutdown.

Anything a peer sends that does not decode, decrypt or fit NetQ's window is
dropped and counted in :attr:`GameServer.stats`; it never reaches another
player. Memory per client is bounded (see :mod:`.server_session`).
"""

from __future__ import annotations

import asyncio
import logging
import signal
import ssl
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
import gc
import socket

from ..errors import FormatError
from ..lazy import lazy_module
from ..formats.tirnanog.save.model import QuestState, UserChunk
from .crypto import SessionCipher, is_plain, otp_matches, parse_plain, plain_datagram
from .netq import NetQ, QueueFull, SequenceExhausted
from .packets import (
    OWN_INVENTORY,
    UDP_MAX_DATAGRAM,
    Context,
    InventoryQuery,
    InventoryRecord,
    Logout,
    LogoutRecord,
    MapFragment,
    MapRequest,
    Message,
    Move,
    MoveRecord,
    OpaquePacket,
    Quest,
    QuestAction,
    Role,
    SpritesRecord,
    TextChat,
    UdpHello,
    VoiceChat,
    Whois,
    decode,
)
from .packets.base import finish
from .packets.game import Update
from .server_login import AttemptLimiter, handle_connection
from .backups import Backups
from .listener import TcpListener
from .sender import DatagramSender
from .server_session import Address, Session
from .state import PlayerStore
from .world import World
from .certs import ensure_server_context
from .world import load_world
from .admin import AdminAddress, AdminServer
from .operators import OperatorFile, default_path

if TYPE_CHECKING:
    from . import metrics as metrics_endpoint
else:  # prometheus-client is an extra (savecraft[server]): imported for serve --metrics only
    metrics_endpoint = lazy_module("savecraft.net.metrics")

log = logging.getLogger("savecraft.net.server")
LOAD_FACTOR = 1.6  # a tick's period is at least this many times its (smoothed) duration
_EMPTY_UPDATE = finish(Update, b"")  # "still there?": the keepalive a server sends
GONE_FOR = 5.0  # seconds a logged-out address's stragglers are told from unknown peers


@dataclass(slots=True)
class ServerConfig:
    host: str = "127.0.0.1"
    port: int = 0  # 0: the OS picks
    udp_port: int | None = None  # None: the TCP port's number
    tick: float = 0.05  # each player gets its batch this often
    max_tick: float = 0.2  # how far the period may stretch under load
    phases: int = 5  # a tick runs as this many phases, each sending to 1/phases of the players
    save_interval: float = 10.0
    error_log_interval: float = 60.0  # a failing state write is logged at most this often
    timeout: float = 5.0  # no acknowledgement (or no datagram) for this long: logged out
    keepalive: float = 1.0  # an empty update when nothing was sent for this long
    resend: float = 0.4  # NetQ resend timeout (clients acknowledge within ~0.2 s)
    handshake_timeout: float = 10.0  # hello to login OK, once TLS is up
    tls_timeout: float = 5.0  # accept to the end of the TLS handshake
    fd_reserve: int = 64  # descriptors never taken by connections (saves, logs, backups)
    login_pending: float = 30.0  # login OK without a UDP hello for this long: dropped
    max_handshakes: int = 512
    max_handshakes_per_address: int = 64  # an eighth: a few cannot hold every slot (.listener)
    attempts_limit: int = 5  # failed logins per address per window
    attempts_window: float = 60.0
    attempts_per_connection: int = 3
    max_players: int = 10_000
    max_queue: int = 256  # NetQ messages waiting per client
    registration_open: bool = True
    registrations_per_address: int = 10  # new accounts per address per minute (0: no limit)
    registrations_per_minute: int = 600  # new accounts per minute from everyone (0: no limit)
    send_budget: int = 4000  # datagrams per tick, at most (80,000/s at 20 ticks/s), split by phase
    window: int = 8  # NetQ messages in flight per player (fewer to resend after a stall)
    discovery_per_second: int = 4  # LAN discovery replies per source address (0: no limit)
    admin: str | None = None  # "ADDR[:PORT]": the administration interface (see .admin)
    operators: str | None = None  # its operators file (None: STATE.operators; see .operators)
    metrics: str | None = None  # "ADDR:PORT": the Prometheus endpoint (see .metrics)
    backups: int = 0  # keep this many rotated copies of the state (see .backups)
    backup_every: float = 0.0  # seconds between snapshots kept apart (0: none)
    snapshots: int = 7  # snapshots kept
    udp_buffer: int = 4 << 20  # socket buffers: every player's datagrams meet in one socket


class _Udp(asyncio.DatagramProtocol):
    def __init__(self, server: GameServer) -> None:
        self.server = server

    def datagram_received(self, data: bytes, addr: Any) -> None:
        self.server.on_datagram(data, (str(addr[0]), int(addr[1])))

    def error_received(self, exc: Exception) -> None:
        self.server.count("udp_errors")


class GameServer:
    """One world, its players and its sockets. ``await start()``, then ``await stop()``."""

    def __init__(self, world: World, store: PlayerStore, tls: ssl.SSLContext,
                 config: ServerConfig | None = None) -> None:
        self.world = world
        self.store = store
        self.tls = tls
        self.config = config or ServerConfig()
        self.stats: Counter[str] = Counter()
        self.outcomes: Counter[tuple[str, str]] = Counter()  # (registration|login, ok|reason)
        self.metrics: Any = None  # the Metrics, with --metrics (see .metrics)
        self._resent_closed = 0  # NetQ resends of the sessions already logged out
        self._relay_since: list[float | None] = []  # per group: its oldest unsent move
        self.attempts = AttemptLimiter(self.config.attempts_limit, self.config.attempts_window)
        # new accounts in the last minute, by address and (under the key "") in total
        self.registrations = AttemptLimiter(max(self.config.registrations_per_address, 1), 60.0)
        # LAN discovery replies are 2.4x the request: a reflector unless limited per source
        self.discoveries = AttemptLimiter(max(self.config.discovery_per_second, 1), 1.0)
        self.registrations_total = AttemptLimiter(max(self.config.registrations_per_minute, 1),
                                                  60.0)
        self.sessions: dict[int, Session] = {}  # by user id, bound or not
        self.pending: dict[bytes, Session] = {}  # by OTP, until the UDP hello
        self.bound_otps: dict[bytes, Session] = {}  # by OTP, after it (a replay's target)
        self.by_addr: dict[Address, Session] = {}
        self._gone: dict[Address, float] = {}  # logged-out addresses, oldest first: when
        # the players each phase of the tick sends to (every bound session is in one)
        self.groups: list[dict[Address, Session]] = [{} for _ in range(max(self.config.phases,
                                                                            1))]
        self.on_map: dict[int, set[Session]] = {}
        self._moves: dict[int, list[tuple[int, bytes]]] = {}  # this tick, by map
        self.ctx = Context()
        self._tcp: TcpListener | None = None
        self._udp: asyncio.DatagramTransport | None = None
        self._sender: DatagramSender | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._save_lock = asyncio.Lock()
        self._changes = 0  # bumped by every change worth saving
        self._saved = 0  # the value of _changes the file on disk holds
        self.tcp_port = 0
        self.udp_port = 0
        self.stopped = asyncio.Event()
        self.stop_requested = asyncio.Event()  # set by the admin interface's shutdown
        self.stop_reason = "shutdown"
        self.started_wall = time.time()
        self.saved_wall = 0  # UTC seconds of the last successful write (0: none yet)
        self.save_error: str | None = None  # why the last write failed, until one succeeds
        self._save_error_logged = 0.0
        self.admin: Any = None  # the AdminServer, with --admin
        self.backups: Backups | None = None
        if self.config.backups > 0 or self.config.backup_every > 0:
            self.backups = Backups(store.path, self.config.backups, self.config.backup_every,
                                   self.config.snapshots)
        self._phase = 0  # the group the next phase sends to
        self._resume = [0] * len(self.groups)  # where a group's next phase starts sending
        self._relay_since = [None] * len(self.groups)
        self._move_first: float | None = None  # when the oldest move not yet fanned out came

    # -- logging and counters -----------------------------------------------------------
    def log(self, event: str, **fields: Any) -> None:
        if log.isEnabledFor(logging.INFO):
            log.info("%s %s", event, " ".join(f"{k}={v}" for k, v in fields.items()))

    def count(self, what: str, n: int = 1) -> None:
        self.stats[what] += n

    def changed(self) -> None:
        self._changes += 1

    # -- lifecycle -----------------------------------------------------------------------
    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        cfg = self.config
        for attempt in range(8):
            tcp = self._tcp = TcpListener(self, self._on_tcp)
            self.tcp_port = tcp.bind(cfg.host, cfg.port)
            udp_port = self.tcp_port if cfg.udp_port is None else cfg.udp_port
            try:
                transport, _ = await loop.create_datagram_endpoint(
                    lambda: _Udp(self), local_addr=(cfg.host, udp_port))
                break
            except OSError:
                tcp.close()
                # a port the OS chose for TCP may be taken for UDP: choose again
                if cfg.port != 0 or cfg.udp_port is not None or attempt == 7:
                    raise
        tcp.start()
        self._udp = transport
        self._sender = DatagramSender(transport)
        self.udp_port = int(transport.get_extra_info("sockname")[1])
        _grow_buffers(transport, cfg.udp_buffer)
        self._tasks = [asyncio.create_task(self._ticker()), asyncio.create_task(self._saver())]
        self.started_wall = time.time()
        self.log("start", world=repr(self.world.game_id), host=cfg.host, tcp=self.tcp_port,
                 udp=self.udp_port, users=len(self.store.users), state=self.store.path)
        if cfg.metrics is not None:
            self.metrics = metrics_endpoint.Metrics(self)
            await self.metrics.start(*metrics_endpoint.parse_listen(cfg.metrics))
        if cfg.admin is not None:
            ops = OperatorFile(cfg.operators or default_path(self.store.path))
            self.admin = AdminServer(self, AdminAddress.parse(cfg.admin), cfg.host, ops)
            await self.admin.start()

    def request_stop(self, reason: str) -> None:
        """Ask :func:`serve` to stop the server (it saves and logs everyone out)."""
        self.stop_reason = reason
        self.stop_requested.set()

    def announce(self, text: str) -> int:
        """A chat line from the server (speaker 0, "nobody") to every player; how many."""
        message = TextChat(0, text).encode()
        for sess in self.sessions.values():
            if sess.addr is not None:
                sess.add_direct(message)
        return len(self.sessions)

    async def stop(self, reason: str = "shutdown") -> None:
        """Log everyone out, close the sockets and write the state one last time."""
        if self.stopped.is_set():
            return
        if self.admin is not None:
            await self.admin.stop()
        if self.metrics is not None:
            await self.metrics.stop()
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            try:
                await task
            except asyncio.CancelledError:
                pass
        if self._tcp is not None:
            self._tcp.close()
        for sess in list(self.sessions.values()):
            self.logout(sess, reason)
        if self._udp is not None:
            self._udp.close()
        await self.save(reason, force=True)
        self.log("stop", reason=reason, **{k: v for k, v in sorted(self.stats.items())})
        self.stopped.set()

    async def _on_tcp(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await handle_connection(self, reader, writer)

    # -- persistence ---------------------------------------------------------------------
    async def save(self, reason: str, force: bool = False) -> None:
        """Write the state if anything changed since the last write (coalescing callers)."""
        wanted = self._changes
        async with self._save_lock:
            if self._saved >= wanted and not force:
                return
            taken = self._changes
            t0 = time.perf_counter()
            frozen = self.store.freeze()  # on the loop: cheap, consistent
            # Compression, CRC and the fsync'd write in a worker, so players are not kept waiting.
            try:
                size = await asyncio.get_running_loop().run_in_executor(None, self.store.write,
                                                                        frozen)
            except OSError as err:
                self._save_failed(reason, err)
                raise
            self._saved = taken
            self.saved_wall = int(time.time())
            if self.metrics is not None:
                self.metrics.saved(time.perf_counter() - t0, size)
            if self.save_error is not None:
                log.warning("save reason=%s recovered=%r", reason, self.save_error)
            self.save_error = None
            self.count("saves")
            self.log("save", reason=reason, users=len(self.store.users), bytes=size,
                     ms=f"{(time.perf_counter() - t0) * 1000:.1f}", path=self.store.path)
            if self.backups is not None and reason == "timer":
                await self._backup()

    async def _backup(self) -> None:
        """Rotate the backups (and snapshot) after a timer save; a failure only logs."""
        assert self.backups is not None
        try:
            made = await asyncio.get_running_loop().run_in_executor(
                None, self.backups.after_timer_save)
        except OSError as err:
            self.count("backup_errors")
            log.warning("backup error=%s path=%s", err.strerror or err, self.store.path)
            return
        self.count("backups", len(made))

    def _save_failed(self, reason: str, err: OSError) -> None:
        """Keep running on the state in memory; say so once per minute, not at every retry."""
        self.save_error = f"{err.strerror or err}"
        self.count("save_errors")
        now = time.monotonic()
        if not self._save_error_logged or \
                now - self._save_error_logged >= self.config.error_log_interval:
            self._save_error_logged = now
            log.warning("save reason=%s error=%s path=%s (kept in memory; retrying)", reason,
                        self.save_error, self.store.path)

    async def _saver(self) -> None:
        while True:
            await asyncio.sleep(self.config.save_interval)
            try:
                await self.save("timer", force=self.save_error is not None)
            except OSError:
                pass  # logged by _save_failed; the next interval tries again

    # -- sessions ------------------------------------------------------------------------
    def open_session(self, uid: int, user: UserChunk, token: bytes, otp: bytes,
                     host: str) -> Session:
        old = self.sessions.get(uid)
        if old is not None:
            self.logout(old, "logged in again")
        sess = Session(uid, user, token, otp, SessionCipher(token),
                       NetQ(resend_timeout=self.config.resend, window=self.config.window,
                            max_queue=self.config.max_queue),
                       host)
        user.last_login = int(time.time())
        self.store.touch(uid)
        self.sessions[uid] = sess
        self.pending[otp] = sess
        self.changed()
        return sess

    def _bind(self, sess: Session, addr: Address, now: float) -> None:
        self.pending.pop(sess.otp, None)
        self.bound_otps[sess.otp] = sess
        sess.addr = addr
        sess.datagrams += 1  # (the hello that binds it)
        sess.netq.last_heard = now
        sess.last_sent = now
        self.by_addr[addr] = sess
        self._gone.pop(addr, None)
        sess.group = min(range(len(self.groups)), key=lambda g: len(self.groups[g]))
        self.groups[sess.group][addr] = sess
        e = sess.user.entity
        sess.map_id = e.map if 0 <= e.map < self.world.map_count else 0
        self._enter_map(sess, sess.map_id)
        self._moves.setdefault(sess.map_id, []).append((sess.uid, self._move_record(sess)))

    def _enter_map(self, sess: Session, map_id: int) -> None:
        self.on_map.setdefault(map_id, set()).add(sess)
        # what the player sees on arrival: everyone already around
        sess.add_records([self._move_record(o) for m in self._near(map_id)
                          for o in self.on_map.get(m, ()) if o is not sess])

    def _near(self, map_id: int) -> frozenset[int]:
        if 0 <= map_id < len(self.world.neighbours):
            return self.world.neighbours[map_id]
        return frozenset({map_id})

    def _move_record(self, sess: Session) -> bytes:
        e = sess.user.entity
        return MoveRecord(sess.uid, e.map, e.x, e.y, e.direction, e.altitude).encode()

    def logout(self, sess: Session, reason: str) -> None:
        if self.sessions.get(sess.uid) is not sess:
            return
        del self.sessions[sess.uid]
        self.pending.pop(sess.otp, None)
        self.bound_otps.pop(sess.otp, None)
        if sess.addr is not None:
            self.by_addr.pop(sess.addr, None)
            self.groups[sess.group].pop(sess.addr, None)
            self._gone.pop(sess.addr, None)  # (kept in the order of logging out)
            if len(self._gone) < self.config.max_players:
                self._gone[sess.addr] = time.monotonic()
            here = self.on_map.get(sess.map_id)
            if here is not None:
                here.discard(sess)
            self._moves.setdefault(sess.map_id, []).append(
                (sess.uid, LogoutRecord(sess.uid).encode()))
        self._resent_closed += sess.netq.stats.resent
        wall = int(time.time())
        sess.user.last_logout = sess.user.last_seen = wall
        self.store.touch(sess.uid)
        self.changed()
        e = sess.user.entity
        self.log("logout", user=repr(sess.user.name), id=sess.uid, reason=reason,
                 at=f"map {e.map} ({e.x},{e.y})")

    # -- UDP -----------------------------------------------------------------------------
    def _send(self, data: bytes, addr: Address) -> None:
        """One datagram now (a hello's answer, an acknowledgement), on the tick's send path."""
        if self._sender is not None:
            self._sender.send([data], [addr])

    def on_datagram(self, data: bytes, addr: Address) -> None:
        self.stats["datagrams"] += 1
        if len(data) > UDP_MAX_DATAGRAM:
            self.count("dropped_oversized")
            return
        sess = self.by_addr.get(addr)
        if sess is not None:
            sess.datagrams += 1
        if sess is None or is_plain(data):
            self._on_plain(data, addr, sess)
            return
        now = time.monotonic()
        netq = sess.netq
        dups = netq.stats.duplicates
        try:
            messages = netq.receive(sess.cipher.apply(data), now)
        except FormatError:
            sess.bad += 1
            self.count("dropped_undecryptable")
            return
        if netq.stats.duplicates != dups:  # replays, and resends of what already came
            self.count("dropped_duplicate", netq.stats.duplicates - dups)
        for raw in messages:
            try:
                msg = decode(raw, sender=Role.CLIENT, ctx=self.ctx)
            except FormatError:
                self.count("dropped_malformed")
                continue
            try:
                self._dispatch(sess, msg, now)
            except FormatError as err:  # an answer that cannot be encoded (e.g. odd saved data)
                self.count("dropped_unanswerable")
                self.log("drop", user=repr(sess.user.name), message=msg.NAME, reason=str(err))

    def _on_plain(self, data: bytes, addr: Address, bound: Session | None) -> None:
        if not is_plain(data):
            # (acknowledgements still on their way when a player logged out are no attack)
            self.count("dropped_after_logout" if addr in self._gone else "dropped_unknown_peer")
            return
        if self.store.denied(addr[0]):
            self.count("dropped_denied")
            return
        try:
            hello = parse_plain(data)
        except FormatError:
            self.count("dropped_malformed")
            return
        if not isinstance(hello, UdpHello):
            self.count("dropped_malformed")
            return
        if hello.is_discovery:
            if self.config.discovery_per_second:
                now = time.monotonic()
                if self.discoveries.blocked(addr[0], now):
                    self.count("dropped_discovery_limited")
                    return
                self.discoveries.fail(addr[0], now)
            self.count("discovery")
            self._send(plain_datagram(self.world.hello.discovery_reply()), addr)
            return
        otp = bytes(hello.otp)
        sess = bound if bound is not None else self.pending.get(otp) or self.bound_otps.get(otp)
        if sess is None or not otp_matches(sess.otp, otp):
            self.count("dropped_bad_otp")
            return
        if sess.addr is None:
            self._bind(sess, addr, time.monotonic())
            self.log("connect", user=repr(sess.user.name), id=sess.uid, channel="udp",
                     addr=f"{addr[0]}:{addr[1]}")
        elif sess.addr != addr:
            self.count("dropped_replayed_hello")
            return
        self._send(plain_datagram(hello), addr)

    # -- messages ------------------------------------------------------------------------
    def _dispatch(self, sess: Session, msg: Message, now: float) -> None:
        if isinstance(msg, Move):
            self._on_move(sess, msg)
        elif isinstance(msg, TextChat):
            self._to_hearers(sess, TextChat(sess.uid, msg.text).encode())
            self.count("chat")
        elif isinstance(msg, VoiceChat):
            msg.speaker_id = sess.uid
            self._to_hearers(sess, msg.encode())
            self.count("voice")
        elif isinstance(msg, Logout):
            # acknowledged at once: the session (and its next flush) is gone after this, and
            # a client would otherwise resend its logout to a server that no longer knows it
            if sess.addr is not None:
                self._send(sess.cipher.apply(sess.netq.ack_datagram()), sess.addr)
            self.logout(sess, "client logged out")
        elif isinstance(msg, MapRequest):
            self._on_map_request(sess, msg)
        elif isinstance(msg, Quest):
            self._on_quest(sess, msg)
        elif isinstance(msg, Whois):
            other = self.store.user(msg.user_id)
            if other is None:
                self.count("dropped_unknown_user")
                return
            sess.add_records([SpritesRecord(msg.user_id, list(other.character_options),
                                            list(other.equipped), other.name).encode()])
        elif isinstance(msg, InventoryQuery):
            uid = sess.uid if msg.user_id == OWN_INVENTORY else msg.user_id
            other = self.store.user(uid)
            if other is None:
                self.count("dropped_unknown_user")
                return
            sess.add_records([InventoryRecord(uid, list(other.entity.inventory)).encode()])
        elif isinstance(msg, OpaquePacket):
            self.count("ignored_opaque")
        else:  # a UDP hello inside NetQ, or anything else a client has no reason to send
            self.count("dropped_unexpected")

    def _on_move(self, sess: Session, msg: Move) -> None:
        size = self.world.map_size
        if not (0 <= msg.map_id < self.world.map_count and msg.x < size and msg.y < size):
            self.count("dropped_bad_move")
            return
        e = sess.user.entity
        if not msg.actions and (e.map, e.x, e.y, e.direction, e.altitude) == (
                msg.map_id, msg.x, msg.y, msg.direction, msg.altitude):
            return  # a keepalive: the player is still there and did nothing
        e.map, e.x, e.y, e.direction, e.altitude = msg.map_id, msg.x, msg.y, msg.direction, \
            msg.altitude
        sess.moves += 1
        sess.actions += len(msg.actions)
        record = MoveRecord(sess.uid, msg.map_id, msg.x, msg.y, msg.direction,
                            msg.altitude).encode()
        if msg.map_id != sess.map_id:
            old = sess.map_id
            self.on_map.get(old, set()).discard(sess)
            self._moves.setdefault(old, []).append((sess.uid, record))
            sess.map_id = msg.map_id
            self._enter_map(sess, msg.map_id)
        self._moves.setdefault(msg.map_id, []).append((sess.uid, record))
        if self._move_first is None:
            self._move_first = time.monotonic()
        self.store.touch(sess.uid)
        self._changes += 1

    def _to_hearers(self, speaker: Session, message: bytes) -> None:
        for m in self._near(speaker.map_id):
            for other in self.on_map.get(m, ()):
                if other is not speaker:
                    other.add_direct(message)

    def _on_map_request(self, sess: Session, msg: MapRequest) -> None:
        if not 0 <= msg.map_id < self.world.map_count:
            self.count("dropped_bad_map")
            return
        try:
            asset = self.world.map_bytes(msg.map_id)
        except FormatError as err:
            self.log("map", id=msg.map_id, error=str(err))
            return
        sess.fragments.clear()  # one map at a time per player
        sess.fragments.extend(MapFragment.fragments(msg.map_id, asset))
        self.count("map_requests")

    def _on_quest(self, sess: Session, msg: Quest) -> None:
        world = self.world
        if world.quest_count and not 0 <= msg.quest_id < world.quest_count:
            self.count("dropped_bad_quest")
            return
        quests = sess.user.entity.quests
        mine = next((q for q in quests if q.quest_id == msg.quest_id), None)
        if msg.action == QuestAction.ACCEPTED:
            if mine is None:
                quests.append(QuestState(msg.quest_id, False))
        elif msg.action == QuestAction.CANCELLED:
            if mine is not None and not mine.completed:
                quests.remove(mine)
        else:
            is_global = msg.quest_id < world.quest_count and world.global_quests[msg.quest_id]
            if is_global:
                completers = self.store.quests.completers
                if msg.quest_id < len(completers) and completers[msg.quest_id] not in (-1,
                                                                                        sess.uid):
                    sess.add_direct(Quest(msg.quest_id, QuestAction.CANCELLED).encode())
                    return
                while len(completers) <= msg.quest_id:
                    completers.append(-1)
                completers[msg.quest_id] = sess.uid
            if mine is None:
                quests.append(QuestState(msg.quest_id, True))
            else:
                mine.completed = True
        self.store.touch(sess.uid)
        self.changed()
        sess.add_direct(msg.encode())

    # -- the tick ------------------------------------------------------------------------
    async def _ticker(self) -> None:
        """Run :meth:`tick` ``config.phases`` times per ``config.tick``, stretching under load.

        A tick that takes a large share of its period leaves the loop too
        little time to read the socket, which then overflows. So the period
        is kept at least ``LOAD_FACTOR`` times the phases' smoothed duration
        (up to ``config.max_tick``): when overloaded the server batches more per
        datagram and answers later, instead of dropping and resending.
        """
        cfg = self.config
        loop = asyncio.get_running_loop()
        phases = len(self.groups)
        shortest = cfg.tick / phases
        longest = max(cfg.max_tick, cfg.tick) / phases
        period = shortest
        load = 0.0
        last = time.monotonic()
        next_at = loop.time()
        while True:
            next_at += period
            delay = next_at - loop.time()
            if delay > 0:
                await asyncio.sleep(delay)
            else:
                next_at = loop.time()
                await asyncio.sleep(0)
            t0 = time.monotonic()
            try:
                self.tick(t0)
            except Exception:
                log.exception("tick failed")
            spent = time.monotonic() - t0
            # smoothed over time, not phases (one slow phase, a save, stretches nothing; and
            # the load is forgotten as fast at any number of phases, stretched or not)
            keep = 0.8 ** (min(t0 - last, cfg.tick) / cfg.tick)
            last = t0
            load = load * keep + spent * (1 - keep)
            period = min(max(shortest, load * LOAD_FACTOR), longest)
            if self.metrics is not None:
                self.metrics.tick(spent, max(t0 - next_at, 0.0))
            st = self.stats
            for key, ms in (("tick_max_ms", spent * 1000), ("tick_late_max_ms",
                                                           (t0 - next_at) * 1000),
                            ("tick_period_max_ms", period * phases * 1000)):
                st[key] = max(st[key], int(ms))

    def tick(self, now: float) -> None:
        """One phase of the tick: every player's new records, then one group's datagrams.

        The records are handed out at every phase, so whichever group sends
        next has them; each group sends once per tick, in turn. Spreading the
        sends keeps each burst short: a player late in a burst of all 2,000
        datagrams would wait as long as the whole send (tens of milliseconds
        at 2,000 players), on top of the wait for the tick.
        """
        t0 = time.perf_counter()
        self._fan_out()
        t1 = time.perf_counter()
        phase = self._phase
        self._phase = (phase + 1) % len(self.groups)
        self._send_tick(now, phase)
        t2 = time.perf_counter()
        self._expire(now, phase)
        t3 = time.perf_counter()
        st = self.stats
        for key, spent in (("fanout_max_ms", t1 - t0), ("send_max_ms", t2 - t1),
                           ("expire_max_ms", t3 - t2)):
            ms = int(spent * 1000)
            st[key] = max(st[key], ms)

    def _fan_out(self) -> None:
        """Each map's records of this tick to everyone who sees that map, but not their own.

        A crowded map is where the cost goes (n movers times n watchers), so
        the records are one shared list and a mover gets it with its own
        records cut out by slicing, never by testing every record.
        """
        moves, self._moves = self._moves, {}
        first, self._move_first = self._move_first, None
        if first is not None:  # each group's next send carries these moves
            since = self._relay_since
            for g, was in enumerate(since):
                if was is None:
                    since[g] = first
        for map_id, items in moves.items():
            records = [rec for _, rec in items]
            own: dict[int, list[int]] = {}
            for k, (uid, _) in enumerate(items):
                own.setdefault(uid, []).append(k)
            for m in self._near(map_id):
                for sess in self.on_map.get(m, ()):
                    mine = own.get(sess.uid)
                    if mine is None:
                        sess.add_records(records)
                    elif len(mine) < len(records):
                        sess.add_records(_without(records, mine))

    def _send_tick(self, now: float, group: int) -> None:
        """Flush the NetQ of every player in ``group``, within a budget of datagrams.

        After a stall every player's unacknowledged datagrams fall due at
        once; sending them all at once would stall the loop again (and
        overflow the socket's receive buffer meanwhile). Past the budget the
        phase stops, and the group's next phase starts with the players it skipped.
        The phase's datagrams go out together at the end (:mod:`.sender`).
        """
        keepalive = self.config.keepalive
        sender = self._sender
        sessions = list(self.groups[group].values())
        if not sessions or sender is None or sender.transport.is_closing():
            self._relay_since[group] = None
            return
        wire: list[bytes] = []
        to: list[Address] = []
        first = self._resume[group] % len(sessions)
        budget = max(self.config.send_budget // len(self.groups), 1)
        for k in range(len(sessions)):
            if budget <= 0:
                self._resume[group] = first + k
                self.count("ticks_over_budget")
                break
            sess = sessions[(first + k) % len(sessions)]
            addr = sess.addr
            assert addr is not None
            netq = sess.netq
            if sess.records or sess.direct or sess.fragments:
                try:
                    out = sess.outgoing()
                except FormatError as err:
                    self.count("dropped_unanswerable")
                    self.log("drop", user=repr(sess.user.name), reason=str(err))
                    sess.records.clear()
                    sess.direct.clear()
                    sess.fragments.clear()
                    continue
            else:  # nothing new: only resends, an owed acknowledgement, or a keepalive
                due = netq.next_deadline()
                if due is None:
                    if now - sess.last_sent < keepalive:
                        continue
                    out = [_EMPTY_UPDATE]
                elif due > now:
                    continue
                else:
                    out = []
            try:
                for message in out:
                    netq.queue(message)
            except SequenceExhausted:  # 65,536 messages sent: a new login, a new token
                self.count("sessions_exhausted")
                self.logout(sess, "session's 65536 sequence numbers used up")
                continue
            except QueueFull:
                self.logout(sess, "too far behind (send queue full)")
                continue
            datagrams = netq.flush(now)
            sess.backoff.update(netq)
            if datagrams:
                budget -= len(datagrams)
                sess.last_sent = now
                apply = sess.cipher.apply
                for d in datagrams:
                    wire.append(apply(d))
                    to.append(addr)
            if sess.overflow:
                self.count("dropped_overflow", sess.overflow)
                sess.overflow = 0
        sender.send(wire, to)
        since = self._relay_since[group]
        if since is not None:
            self._relay_since[group] = None
            if self.metrics is not None:
                self.metrics.relay(time.monotonic() - since)

    def _expire(self, now: float, group: int) -> None:
        """Log out the silent players of ``group`` (each group's turn comes once a tick)."""
        timeout = self.config.timeout
        for sess in list(self.groups[group].values()):
            heard = sess.netq.last_heard or sess.created
            if now - heard > timeout:
                self.logout(sess, f"silent for {timeout:g} s")
            elif sess.netq.oldest_unacked_age(now) > timeout:
                self.logout(sess, f"no acknowledgement for {timeout:g} s")
        gone = self._gone
        while gone:
            addr, when = next(iter(gone.items()))
            if now - when < GONE_FOR:
                break
            del gone[addr]
        limit = self.config.login_pending
        for otp, sess in list(self.pending.items()):
            if now - sess.created > limit:
                self.logout(sess, f"no UDP hello within {limit:g} s")


def _without(items: list[bytes], drop: list[int]) -> list[bytes]:
    """``items`` without the (ascending) positions in ``drop``."""
    out: list[bytes] = []
    start = 0
    for k in drop:
        out += items[start:k]
        start = k + 1
    out += items[start:]
    return out


def _grow_buffers(transport: asyncio.BaseTransport, size: int) -> None:
    """Ask for big UDP socket buffers (the kernel caps them at net.core.[rw]mem_max).

    With the default (~200 kB, a few hundred datagrams of kernel overhead
    each) a pause of a few milliseconds in the loop under load is enough
    for the kernel to drop datagrams; NetQ resends them, but late.
    """
    sock = transport.get_extra_info("socket")
    if sock is None:
        return
    for opt in (socket.SO_RCVBUF, socket.SO_SNDBUF):
        try:
            sock.setsockopt(socket.SOL_SOCKET, opt, size)
        except OSError:
            pass


def tune_gc() -> None:
    """For a long-running process: what is alive now (the world, every user) is never garbage.

    Freezing it keeps the collector's full passes from walking thousands of
    users at every turn, which otherwise shows as latency spikes of tens of
    milliseconds under load; a higher first threshold makes passes rarer.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(20_000, 50, 1000)


async def serve(world: World, store: PlayerStore, tls: ssl.SSLContext,
                config: ServerConfig) -> int:
    """Run until SIGINT or SIGTERM, then save and return 0."""
    server = GameServer(world, store, tls, config)
    tune_gc()
    await server.start()
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    reason = {"why": "shutdown"}

    def on_signal(name: str) -> None:
        reason["why"] = f"signal {name}"
        stop.set()

    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(sig, on_signal, sig.name)
        except (NotImplementedError, RuntimeError):
            pass
    asked = asyncio.ensure_future(server.stop_requested.wait())
    signalled = asyncio.ensure_future(stop.wait())
    await asyncio.wait([asked, signalled], return_when=asyncio.FIRST_COMPLETED)
    for f in (asked, signalled):
        f.cancel()
    await server.stop(reason["why"] if stop.is_set() else server.stop_reason)
    return 0


def run(coro_fn: Any, *args: Any) -> Any:
    """Run a coroutine function on uvloop when it is installed, else on asyncio's loop."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(coro_fn(*args))
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(coro_fn(*args))


def open_server(world_path: str | Path, state_path: str | Path, cert: str | None = None,
                key: str | None = None, host: str = "127.0.0.1"
                ) -> tuple[World, PlayerStore, ssl.SSLContext]:
    """Load the world, the state (created when missing) and the TLS pair; one-line errors."""
    world = load_world(world_path)
    store = PlayerStore(state_path, world)
    tls, cert_path, made = ensure_server_context(state_path, cert, key, host)
    if made:
        log.info("certificate made path=%s", cert_path)
    return world, store, tls


__all__ = ["GameServer", "ServerConfig", "open_server", "run", "serve", "tune_gc"]
