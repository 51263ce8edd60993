"""``savecraft loadtest``: many simulated players against one server, on loopback.

Each bot registers (or logs in), learns its user id from its own inventory,
goes to its map (bots are spread evenly over the world's maps) and walks
at ``rate`` moves per second. Every move is stamped: the bot's altitude
byte carries a move counter, so the relay of (user, x, y, counter) reaching
another bot gives one latency sample, from the move's send to its arrival.

Reported: messages per second (NetQ messages the bots sent and received),
p50/p99 move-to-relay latency, drops (relays a bot on the same map never
received, once a grace period has passed; plus NetQ resends), and CPU time
of the server (when its pid is known) and of the load test itself.

All bots live in one process and one event loop, driven by one loop that
ticks each bot every 50 ms, so the load test costs about what the clients
of a real game would, and not a task per bot.
"""

from __future__ import annotations

import asyncio
import os
import random
import resource
import time
from array import array
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
import multiprocessing as mp
from dataclasses import asdict, replace
import numpy as np

from .client import BundleInfo, ClientError, ClientSession, describe_bundle, fetch_bundle, login
from .packets import ErrorReason, InventoryRecord, MoveRecord
from .packets.updates import MOVE_RECORD
from ..formats.tirnanog.game.container import build_game
from ..formats.tirnanog.game.sample import sample_game
from ..formats.tirnanog.game.sections.s35_maps import LazyMap, MapEntry
from .server import run
from .server import tune_gc

ACK_EVERY = 0.2  # a bot acknowledges at least this often (its moves carry acknowledgements too)
GRACE = 1.0  # seconds after the last move before missing relays count as drops
MAX_SAMPLES = 2_000_000


@dataclass(slots=True)
class Bot:
    index: int
    session: ClientSession
    map_id: int
    x: int
    y: int
    size: int = 1
    uid: int = 0
    counter: int = 0
    next_move: float = 0.0
    last_tick: float = 0.0


@dataclass
class LoadReport:
    clients: int
    rate: float
    duration: float
    logged_in: int = 0
    login_seconds: float = 0.0
    moves_sent: int = 0
    relays_received: int = 0
    messages_sent: int = 0
    messages_received: int = 0
    resent: int = 0
    expected_relays: int = 0
    missing_relays: int = 0
    errors: int = 0
    lost: int = 0  # bots whose server fell silent (the server had dropped them)
    p50_ms: float = float("nan")
    p99_ms: float = float("nan")
    max_ms: float = float("nan")
    server_cpu: float | None = None  # fraction of one core over the walking phase
    loadtest_cpu: float = 0.0
    refused: dict[str, int] = field(default_factory=dict)
    server_counters: str = ""  # the server's own counters, when the caller has them
    loop_stall_ms: float = 0.0  # the load test's own longest pause between two rounds

    @property
    def messages_per_second(self) -> float:
        return (self.messages_sent + self.messages_received) / max(self.duration, 1e-9)

    @property
    def drops(self) -> int:
        return self.missing_relays

    def lines(self) -> list[str]:
        cpu = "unknown (not found; give --server-pid)" if self.server_cpu is None \
            else f"{self.server_cpu * 100:.0f}% of one core"
        return [
            (f"clients: {self.logged_in} of {self.clients} logged in "
             f"({self.login_seconds:.1f} s), {self.rate:g} moves/s each for {self.duration:g} s"),
            (f"messages: {self.messages_per_second:,.0f}/s ({self.messages_sent:,} sent, "
             f"{self.messages_received:,} received by the bots)"),
            f"moves: {self.moves_sent:,} sent, {self.relays_received:,} relays received",
            (f"move->relay latency: p50 {self.p50_ms:.1f} ms, p99 {self.p99_ms:.1f} ms, "
             f"max {self.max_ms:.1f} ms"),
            (f"drops: {self.drops:,} relays missing of {self.expected_relays:,} expected "
             f"(same-map bots); NetQ resends {self.resent:,}; bad datagrams {self.errors:,}; "
             f"bots dropped by the server {self.lost:,}"),
            (f"server CPU: {cpu}; load test CPU: {self.loadtest_cpu * 100:.0f}% of one core "
             f"(longest pause of its loop {self.loop_stall_ms:.0f} ms)"),
        ] + ([f"refused: {self.refused}"] if self.refused else []) + (
            ["(the server limits registrations per address and per minute: for a load test, "
             "start it with --registrations-per-address 0 --registrations-per-minute 0)"]
            if "TOO_MANY_REGISTRATIONS" in self.refused else [])


def process_cpu(pid: int) -> float | None:
    """User + system CPU seconds of a process (Linux /proc), None if unavailable."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


def listener_pid(port: int) -> int | None:
    """The process listening on TCP ``port`` on this machine (Linux /proc), if it can be seen.

    Lets the load test report the server's CPU without being told its pid.
    """
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            f = line.split()
            if len(f) > 9 and f[3] == "0A" and int(f[1].rsplit(":", 1)[1], 16) == port:
                inodes.add(f"socket:[{f[9]}]")
    if not inodes:
        return None
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            for fd in (proc / "fd").iterdir():
                if os.readlink(fd) in inodes:
                    return int(proc.name)
        except OSError:
            continue
    return None


def _own_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


class _Tracker:
    """Sent moves and their relays: latency samples and missing receivers."""

    def __init__(self) -> None:
        self.sent: dict[tuple[int, int, int, int], list[Any]] = {}  # key -> [t, expected, got]
        self.samples = array("d")
        self.relays = 0

    def on_relay(self, rec: MoveRecord, receiver_map: int, now: float) -> None:
        entry = self.sent.get((rec.user_id, rec.x, rec.y, rec.altitude))
        if entry is None:
            return
        self.relays += 1
        if len(self.samples) < MAX_SAMPLES:
            self.samples.append(now - entry[0])
        if receiver_map == rec.map_id:
            entry[2] += 1


async def _connect_bot(i: int, host: str, port: int, udp_port: int | None, info: BundleInfo,
                       prefix: str, password: str, rng: random.Random,
                       refused: dict[str, int], tracker: _Tracker) -> Bot | None:
    name = f"{prefix}{i}"
    try:
        try:
            sess = await login(host, port, name, password, udp_port=udp_port,
                               register=info.default_character(i))
        except ClientError as err:
            if err.reason != ErrorReason.NAME_TAKEN:
                raise
            sess = await login(host, port, name, password, udp_port=udp_port)
    except (TimeoutError, ClientError, OSError) as err:
        why = getattr(err, "reason", None)
        key = why.name if isinstance(why, ErrorReason) else type(err).__name__
        refused[key] = refused.get(key, 0) + 1
        return None
    size = max(info.map_size, 1)
    bot = Bot(i, sess, i % max(info.map_count, 1), rng.randrange(size), rng.randrange(size), size)
    _listen(bot, tracker)
    sess.move(bot.map_id, bot.x, bot.y)  # off the spawn point at once: no crowd there
    sess.inventory()  # the answer names our user id
    return bot


@dataclass
class LiveControl:
    """What a caller (the command line) sees of a running test: a stop switch and a look each second.

    ``stop`` ends the walking phase early (Ctrl-C): the report then covers
    the time walked. ``on_second`` gets a :class:`LiveFigures` about once a
    second while the bots walk. Single-process runs only.
    """

    stop: bool = False
    on_second: Callable[[LiveFigures], None] | None = None


@dataclass(slots=True)
class LiveFigures:
    connected: int
    seconds: float
    messages_per_second: float
    p50_ms: float
    p99_ms: float
    drops: int


async def run_loadtest(host: str, port: int, *, clients: int, rate: float, duration: float,
                       udp_port: int | None = None, server_pid: int | None = None,
                       prefix: str = "bot", password: str = "load", concurrency: int = 32,
                       seed: int = 1, own_process: bool = False, processes: int = 1,
                       control: LiveControl | None = None) -> LoadReport:
    """Run the load test; ``own_process`` when this process does nothing else (the CLI, the
    benchmark): its garbage collector is then tuned for a long run (see ``tune_gc``).

    With ``processes`` > 1 the bots are split over that many processes (by map, so the
    bots of one map share a process and its clock for latency and drops); they start
    walking together and their figures are merged.
    """
    if server_pid is None:
        listener = listener_pid(port)
        server_pid = listener if listener != os.getpid() else None  # not our own (tests)
    hello, bundle, _ = await fetch_bundle(host, port)
    info = describe_bundle(hello, bundle)
    args: dict[str, Any] = {
        "host": host, "port": port, "rate": rate, "duration": duration, "udp_port": udp_port,
        "server_pid": server_pid, "prefix": prefix, "password": password,
        "concurrency": concurrency, "seed": seed, "own_process": own_process,
    }
    if processes <= 1:
        report, samples = await _run_part(info, list(range(clients)), **args, control=control)
        _percentiles(report, samples)
        report.clients = clients
        return report
    return await asyncio.get_running_loop().run_in_executor(
        None, _run_processes, info, clients, processes, args)


def _partition(clients: int, maps: int, processes: int) -> list[list[int]]:
    """Bot indices per process: bot i walks map i % maps; maps go to processes in ranges."""
    maps = max(maps, 1)
    parts: list[list[int]] = [[] for _ in range(processes)]
    for i in range(clients):
        parts[(i % maps) * processes // maps].append(i)
    return [p for p in parts if p]


def _run_processes(info: BundleInfo, clients: int, processes: int,
                   args: dict[str, Any]) -> LoadReport:
    ctx = mp.get_context("spawn")
    parts = _partition(clients, info.map_count, processes)
    # together no more handshakes at once than one process would open
    args = {**args, "concurrency": max(1, args["concurrency"] // len(parts))}
    ready = ctx.Value("i", 0)
    results = ctx.Queue()
    procs = [ctx.Process(target=_worker, args=(info, part, args, ready, len(parts), results),
                         daemon=True) for part in parts]
    for proc in procs:
        proc.start()
    got = []
    try:
        for _ in procs:
            got.append(results.get(timeout=args["duration"] + 600))
    finally:
        for proc in procs:
            proc.join(10)
            if proc.is_alive():
                proc.kill()
    report = LoadReport(clients, args["rate"], args["duration"])
    samples = array("d")
    cpus = []
    for fields, raw in got:
        part = LoadReport(**fields)
        samples.frombytes(raw)
        for name in ("logged_in", "moves_sent", "relays_received", "messages_sent",
                     "messages_received", "resent", "expected_relays", "missing_relays",
                     "errors", "lost"):
            setattr(report, name, getattr(report, name) + getattr(part, name))
        report.login_seconds = max(report.login_seconds, part.login_seconds)
        report.loop_stall_ms = max(report.loop_stall_ms, part.loop_stall_ms)
        report.loadtest_cpu += part.loadtest_cpu
        report.duration = max(part.duration, report.duration if report.logged_in else 0)
        if part.server_cpu is not None:
            cpus.append(part.server_cpu)
        for k, v in part.refused.items():
            report.refused[k] = report.refused.get(k, 0) + v
    report.server_cpu = max(cpus) if cpus else None
    _percentiles(report, samples)
    return report


def _worker(info: BundleInfo, indices: list[int], args: dict[str, Any], ready: Any,
            parties: int, results: Any) -> None:
    """One load test process: its bots log in, wait for every process, walk, report."""
    async def barrier(bots: list[Bot]) -> None:
        with ready.get_lock():
            ready.value += 1
        end = time.monotonic() + 600
        while ready.value < parties and time.monotonic() < end:
            now = time.monotonic()
            for b in bots:
                b.session.tick(now, keepalive=0.5)
            await asyncio.sleep(0.02)

    report, samples = run(lambda: _run_part(info, indices, barrier=barrier, **args))
    fields = asdict(report)
    results.put((fields, samples.tobytes()))


def _percentiles(report: LoadReport, samples: array[float]) -> None:
    if samples:
        ms = np.frombuffer(samples, dtype=np.float64) * 1000.0
        report.p50_ms = float(np.percentile(ms, 50))
        report.p99_ms = float(np.percentile(ms, 99))
        report.max_ms = float(ms.max())


Barrier = Callable[[list[Bot]], Awaitable[None]]


async def _run_part(info: BundleInfo, indices: list[int], *, host: str, port: int, rate: float,
                    duration: float, udp_port: int | None, server_pid: int | None, prefix: str,
                    password: str, concurrency: int, seed: int, own_process: bool,
                    barrier: Barrier | None = None, control: LiveControl | None = None
                    ) -> tuple[LoadReport, array[float]]:
    report = LoadReport(len(indices), rate, duration)
    rng = random.Random(seed * 1_000_003 + (indices[0] if indices else 0))
    gate = asyncio.Semaphore(concurrency)
    tracker = _Tracker()

    async def one(i: int) -> Bot | None:
        async with gate:
            return await _connect_bot(i, host, port, udp_port, info, prefix, password, rng,
                                      report.refused, tracker)

    t0 = time.monotonic()
    ready: list[Bot] = []

    async def keep_alive() -> None:  # bots logged in early must not time out meanwhile
        while True:
            now = time.monotonic()
            for b in ready:
                b.session.tick(now, keepalive=0.5)
            await asyncio.sleep(0.05)

    async def one_ready(i: int) -> Bot | None:
        bot = await one(i)
        if bot is not None:
            ready.append(bot)
        return bot

    pinger = asyncio.create_task(keep_alive())
    try:
        found = await asyncio.gather(*(one_ready(i) for i in indices))
    finally:
        pinger.cancel()
    bots = [b for b in found if b is not None]
    if own_process:
        tune_gc()
    report.logged_in = len(bots)
    report.login_seconds = time.monotonic() - t0
    try:
        await _walk(bots, rate, duration, report, server_pid, tracker, barrier, control)
    finally:
        await asyncio.gather(*(b.session.logout(linger=0.5) for b in bots),
                             return_exceptions=True)
    return report, tracker.samples


async def _walk(bots: list[Bot], rate: float, duration: float, report: LoadReport,
                server_pid: int | None, tracker: _Tracker, barrier: Barrier | None,
                control: LiveControl | None = None) -> None:
    on_map: dict[int, int] = {}
    for bot in bots:
        on_map[bot.map_id] = on_map.get(bot.map_id, 0) + 1
    await _pump(bots, 5.0, until=lambda: all(b.uid for b in bots))
    if barrier is not None:
        await barrier(bots)
    for bot in bots:
        bot.session.players.clear()
    cpu0 = process_cpu(server_pid) if server_pid else None
    own0 = _own_cpu()
    base = _counters(bots)
    start = time.monotonic()
    period = 1.0 / rate if rate > 0 else float("inf")
    for k, bot in enumerate(bots):
        bot.next_move = start + period * k / max(len(bots), 1)
    end = start + duration
    last = time.monotonic()
    live = _Live(bots, base, start) if control is not None and control.on_second else None
    while True:
        now = time.monotonic()
        report.loop_stall_ms = max(report.loop_stall_ms, (now - last) * 1000)
        last = now
        if now >= end or (control is not None and control.stop):
            break
        if live is not None and control is not None and control.on_second and now >= live.next:
            control.on_second(live.figures(now, tracker))
        for bot in bots:
            if now >= bot.next_move:
                bot.next_move += period
                bot.counter = (bot.counter + 1) & 0xFF
                bot.x = (bot.x + 1) % bot.size
                expected = on_map.get(bot.map_id, 1) - 1
                tracker.sent[(bot.uid, bot.x, bot.y, bot.counter)] = [now, expected, 0]
                bot.session.move(bot.map_id, bot.x, bot.y, 2, bot.counter)
                bot.last_tick = now
                report.moves_sent += 1
            elif now - bot.last_tick >= ACK_EVERY:
                bot.session.tick(now)
                bot.last_tick = now
        await asyncio.sleep(0.005)
    walked = time.monotonic() - start
    await _pump(bots, GRACE)
    if server_pid:
        cpu1 = process_cpu(server_pid)
        if cpu0 is not None and cpu1 is not None:
            report.server_cpu = (cpu1 - cpu0) / walked
    report.loadtest_cpu = (_own_cpu() - own0) / (walked + GRACE)
    report.duration = walked
    after = _counters(bots)
    report.messages_sent = after[0] - base[0]
    report.messages_received = after[1] - base[1]
    report.resent = after[2] - base[2]
    report.errors = sum(b.session.errors for b in bots)
    report.lost = sum(b.session.lost for b in bots)
    report.relays_received = tracker.relays
    for t, expected, got in tracker.sent.values():
        report.expected_relays += expected
        report.missing_relays += max(expected - got, 0)


class _Live:
    """The figures of the live line, cheap enough to take every second of a long run."""

    def __init__(self, bots: list[Bot], base: tuple[int, int, int], start: float) -> None:
        self.bots, self.base, self.start = bots, base, start
        self.next = start + 1.0
        self.seen = 0  # moves already judged for drops (the sent dict keeps send order)
        self.drops = 0

    def figures(self, now: float, tracker: _Tracker) -> LiveFigures:
        self.next = now + 1.0
        counters = _counters(self.bots)
        elapsed = max(now - self.start, 1e-9)
        recent = sorted(tracker.samples[-2000:])
        # A move is judged once a grace period has passed since it was sent.
        entries = list(tracker.sent.values())
        while self.seen < len(entries) and entries[self.seen][0] < now - GRACE:
            t, expected, got = entries[self.seen]
            self.drops += max(expected - got, 0)
            self.seen += 1
        return LiveFigures(
            connected=len(self.bots), seconds=now - self.start,
            messages_per_second=(counters[0] + counters[1] - self.base[0] - self.base[1]) / elapsed,
            p50_ms=recent[len(recent) // 2] * 1000 if recent else float("nan"),
            p99_ms=recent[min(len(recent) - 1, len(recent) * 99 // 100)] * 1000 if recent else float("nan"),
            drops=self.drops)


_MOVE_SIZE = MOVE_RECORD.size  # id byte 0, u32 user, u32 map, u16 x, u16 y, u8 dir, u8 alt
_UPDATE_TYPE = 7


def _move_records(raw: bytes) -> Iterator[tuple[int, ...]] | None:
    """The (0, user, map, x, y, direction, altitude) tuples of an update holding only move
    records, or None for any other message (the client library then decodes it)."""
    n = len(raw)
    body = n - 2
    # the header (u16: type | length << 5) says an update of n bytes, and every record's
    # id byte, at a 15-byte stride, is 0: the whole body is move records
    if (body <= 0 or body % _MOVE_SIZE or raw[0] | raw[1] << 8 != _UPDATE_TYPE | n << 5
            or any(raw[2::_MOVE_SIZE])):
        return None
    return MOVE_RECORD.iter_unpack(memoryview(raw)[2:])


def _listen(bot: Bot, tracker: _Tracker) -> None:
    """Latency bookkeeping for one bot, with a fast path for the common datagram.

    Nearly everything a bot receives is one update message holding only move
    records; decoding each into a MoveRecord and through the client's
    bookkeeping costs the bots more CPU than the server spends relaying, on
    the same cores. Such a message is read with one precompiled
    ``iter_unpack`` straight into the tracker (the bot's ``players`` table,
    which the load test never reads, is not kept); anything else goes
    through the client library unchanged.
    """
    sess = bot.session

    def on_record(rec: Any) -> None:
        if isinstance(rec, MoveRecord):
            tracker.on_relay(rec, bot.map_id, time.monotonic())
        elif isinstance(rec, InventoryRecord) and not bot.uid:
            bot.uid = rec.user_id

    sess.on_record = on_record
    slow = sess.on_message_bytes
    sent = tracker.sent
    samples = tracker.samples
    move_records = _move_records
    monotonic = time.monotonic

    def on_message_bytes(raw: bytes) -> None:
        moves = move_records(raw)
        if moves is None:
            slow(raw)
            return
        now = monotonic()
        here = bot.map_id
        found = 0
        for _, uid, map_id, x, y, _, alt in moves:
            entry = sent.get((uid, x, y, alt))
            if entry is None:
                continue
            found += 1
            if len(samples) < MAX_SAMPLES:
                samples.append(now - entry[0])
            if map_id == here:
                entry[2] += 1
        tracker.relays += found

    # The session's own datagram path (plain hellos, NetQ, decryption) hands each message here.
    sess.on_message_bytes = on_message_bytes  # type: ignore[method-assign]


def _counters(bots: list[Bot]) -> tuple[int, int, int]:
    sent = received = resent = 0
    for b in bots:
        st = b.session.netq.stats
        sent += st.sent
        received += st.delivered
        resent += st.resent
    return sent, received, resent


async def _pump(bots: list[Bot], seconds: float, until: Any = None) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        now = time.monotonic()
        for b in bots:
            b.session.tick(now, keepalive=0.5)
        if until is not None and until():
            return
        await asyncio.sleep(0.02)


def bench_world(maps: int, seed: int = 0) -> bytes:
    """The sample world with ``maps`` maps in a ring (each the neighbour of the next).

    The sample game has two maps, so its players all see each other; a load
    test of thousands of players needs them spread over many maps, as a real
    world would. Built with the game-file API, from the sample's first map.
    """
    game = sample_game(random.Random(seed))
    strings = game.strings
    section = game.maps
    assert section is not None
    template = section.maps[0].asset.value
    names = [strings.add(f"room{k}") for k in range(maps)]
    entries = []
    for k in range(maps):
        near = [0] * 6
        if maps > 1:
            near[2] = names[(k + 1) % maps]
            near[5] = names[(k - 1) % maps]
        entries.append(MapEntry(names[k], LazyMap(replace(template, neighbours=near,
                                                          rle_stream=None))))
    section.maps = entries
    return build_game(game)


__all__ = ["LoadReport", "bench_world", "listener_pid", "process_cpu", "run_loadtest"]
