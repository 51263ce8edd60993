"""``savecraft serve --metrics ADDR:PORT``: the server's figures for Prometheus.

Made with the established client library (``prometheus-client``) and served
as its text format on ``GET /metrics`` by aiohttp on the game server's own
loop (no thread: the figures are read between two datagrams, never while
the loop changes them).

Most figures are the counters the server keeps anyway (``GameServer.stats``,
``outcomes``, each session's NetQ), turned into metrics only when scraped by
a custom collector, so playing costs nothing more with metrics on. Four
things are timed as they happen, as histograms: each tick phase's duration
and lateness (100 a second at 20 ticks of 5 phases), the relay wait (once
per phase: how long the oldest move that phase sends waited on the server,
from its arrival to the send), and each state save's duration.

Names follow the Prometheus conventions: ``savecraft_`` prefix, base units
(seconds, bytes), ``_total`` for counters, labels for reasons.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from prometheus_client import CollectorRegistry, Gauge, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector
from aiohttp import web

if TYPE_CHECKING:
    from .server import GameServer

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
_TICK_BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5)
_RELAY_BUCKETS = (0.005, 0.01, 0.02, 0.03, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.5, 1.0)
_SAVE_BUCKETS = (0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)

# GameServer.stats keys that are not counters of events but maxima (milliseconds)
_MAXIMA = {"tick_max_ms", "tick_late_max_ms", "tick_period_max_ms", "fanout_max_ms",
           "send_max_ms", "expire_max_ms"}


def parse_listen(text: str) -> tuple[str, int]:
    """``ADDR:PORT`` (``[::1]:9100`` for IPv6); ValueError otherwise."""
    host, sep, port = text.strip().rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ValueError(f"{text!r}: expected ADDR:PORT")
    return host.strip("[]"), int(port)


class _ServerCollector(Collector):
    """The server's own counters, read at scrape time."""

    def __init__(self, server: GameServer) -> None:
        self.server = server

    def collect(self) -> Iterator[Metric]:
        s = self.server
        online = sum(1 for sess in s.sessions.values() if sess.addr is not None)
        yield GaugeMetricFamily("savecraft_players_online", "Players logged in and bound to "
                                "their UDP address.", value=online)
        yield GaugeMetricFamily("savecraft_players_pending", "Players logged in on TCP, "
                                "waiting for their UDP hello.", value=len(s.pending))
        yield GaugeMetricFamily("savecraft_users_registered", "Users in the state.",
                                value=len(s.store.users))
        yield GaugeMetricFamily("savecraft_registration_open", "1 while registration is "
                                "open.", value=int(s.config.registration_open))
        tcp = s._tcp
        yield GaugeMetricFamily("savecraft_handshakes_in_progress", "TCP connections from "
                                "accept to close (TLS or not).", value=tcp.open if tcp else 0)
        yield GaugeMetricFamily("savecraft_handshakes_limit", "TCP connections allowed at "
                                "once (after the descriptor reserve).",
                                value=tcp.limit if tcp else 0)
        outcomes = {kind: CounterMetricFamily(
            f"savecraft_{kind}s", f"{kind.capitalize()}s by result and reason.",
            labels=["result", "reason"]) for kind in ("registration", "login")}
        for (kind, reason), n in sorted(s.outcomes.items()):
            fam = outcomes.get(kind)
            if fam is not None:
                fam.add_metric(["ok" if reason == "ok" else "refused",
                                "" if reason == "ok" else reason], n)
        yield from outcomes.values()
        stats = s.stats
        yield CounterMetricFamily("savecraft_datagrams_received", "UDP datagrams received.",
                                  value=stats["datagrams"])
        sender = s._sender
        yield CounterMetricFamily("savecraft_datagrams_sent", "UDP datagrams sent.",
                                  value=sender.sent if sender else 0)
        dropped = CounterMetricFamily("savecraft_datagrams_dropped", "UDP datagrams and "
                                      "records dropped, by reason (docs: Abuse and bounds).",
                                      labels=["reason"])
        events = CounterMetricFamily("savecraft_events", "Every other counter the server "
                                     "keeps (TCP refusals, saves, chat, admin requests...).",
                                     labels=["event"])
        maxima = GaugeMetricFamily("savecraft_max_seconds", "The longest tick phase, "
                                   "lateness, period and parts of a phase since the start.",
                                   labels=["what"])
        for key, n in sorted(stats.items()):
            if key == "datagrams":
                continue
            if key.startswith("dropped_"):
                dropped.add_metric([key[len("dropped_"):]], n)
            elif key in _MAXIMA:
                maxima.add_metric([key[:-len("_max_ms")]], n / 1000)
            else:
                events.add_metric([key], n)
        yield dropped
        yield events
        yield maxima
        resent = s._resent_closed + sum(sess.netq.stats.resent for sess in s.sessions.values())
        yield CounterMetricFamily("savecraft_netq_resent", "NetQ datagrams sent again after "
                                  "their resend timeout.", value=resent)
        yield GaugeMetricFamily("savecraft_state_save_failing", "1 while the last state write "
                                "failed (the state is kept in memory and retried).",
                                value=int(s.save_error is not None))
        yield GaugeMetricFamily("savecraft_state_last_save_timestamp_seconds", "UTC time of "
                                "the last successful state write.", value=s.saved_wall)


class Metrics:
    """The registry, the histograms the server feeds as things happen, and the endpoint."""

    def __init__(self, server: GameServer) -> None:
        self.server = server
        self.registry = CollectorRegistry(auto_describe=True)
        self.registry.register(_ServerCollector(server))
        r = self.registry
        self.tick_seconds = Histogram("savecraft_tick_phase_duration_seconds",
                                      "Time spent in one phase of the tick.",
                                      buckets=_TICK_BUCKETS, registry=r)
        self.tick_late = Histogram("savecraft_tick_phase_lateness_seconds",
                                   "How late a phase of the tick started.",
                                   buckets=_TICK_BUCKETS, registry=r)
        self.relay_wait = Histogram("savecraft_relay_wait_seconds",
                                    "Per tick phase: how long the oldest move it sends "
                                    "waited on the server (arrival to send).",
                                    buckets=_RELAY_BUCKETS, registry=r)
        self.save_seconds = Histogram("savecraft_state_save_duration_seconds",
                                      "Time to build and write the state file.",
                                      buckets=_SAVE_BUCKETS, registry=r)
        self.state_bytes = Gauge("savecraft_state_size_bytes", "Size of the last state file "
                                 "written.", registry=r)
        self.scrapes = 0
        self._runner: web.AppRunner | None = None
        self.port = 0

    # -- fed by the server ---------------------------------------------------------------
    def tick(self, spent: float, late: float) -> None:
        self.tick_seconds.observe(spent)
        self.tick_late.observe(late)

    def relay(self, wait: float) -> None:
        self.relay_wait.observe(wait)

    def saved(self, seconds: float, size: int) -> None:
        self.save_seconds.observe(seconds)
        self.state_bytes.set(size)

    def text(self) -> bytes:
        self.scrapes += 1
        return generate_latest(self.registry)

    # -- the endpoint --------------------------------------------------------------------
    async def start(self, host: str, port: int) -> int:
        async def handle(request: web.Request) -> web.Response:
            if request.path not in ("/metrics", "/"):
                return web.Response(status=404, text="not found\n")
            return web.Response(body=self.text(), headers={"Content-Type": CONTENT_TYPE})

        app = web.Application()
        app.router.add_get("/{tail:.*}", handle)
        runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await runner.setup()
        site = web.TCPSite(runner, host, port, reuse_address=True)
        await site.start()
        self._runner = runner
        bound = runner.addresses  # (the port the OS picked for 0)
        self.port = int(bound[0][1]) if bound else port
        self.server.log("metrics", listen=f"{host}:{self.port}")
        return self.port

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None


__all__ = ["Metrics", "parse_listen"]
