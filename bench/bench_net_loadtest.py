"""The TirNanoG server under load: ``savecraft loadtest`` at 100, 500 and 2,000 players.

For each size, a world with one map per five players (maps in a ring, so
each player sees the players of three maps: about 14 others) is generated,
``savecraft serve`` is started in its own process on a free loopback port
with a fresh state, and the load test runs in two processes (the bots split
by map, ``--processes``): every bot
registers, then walks at ``--rate`` moves per second for ``--duration``
seconds. The figures (messages/s, p50/p99 move->relay latency, drops, CPU
of the server process and of the load test) are printed, and with
``--out`` written as JSON.

The goal on the 2-core machine this was written for: 2,000 players at 5
moves/s each, p99 relay latency under 100 ms, no drops. The server and the
bots share those two cores, so the bots' own CPU is reported next to the
server's.

    python3 bench/bench_net_loadtest.py [--sizes 100,500,2000] [--rate 5] [--duration 10]
    python3 bench/bench_net_loadtest.py --sizes 500 --scrape 0,1 --repeat 3   # their cost
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from dataclasses import asdict
from pathlib import Path

from savecraft.net.admin_client import AdminClient, AdminRequestError
from savecraft.net.loadtest import LoadReport, bench_world, run_loadtest
from savecraft.net.server import run

PLAYERS_PER_MAP = 5


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(folder: Path, world: Path, tick: float, phases: int,
                 extra: list[str] | None = None) -> tuple[subprocess.Popen[str], int]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "savecraft", "serve", str(world), "--state",
         str(folder / "state.sav"), "--port", "0", "--tick", str(tick), "--phases", str(phases),
         # every bot registers from 127.0.0.1: no registration limits for the load test
         "--registrations-per-address", "0", "--registrations-per-minute", "0",
         *(extra or [])],
        stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        if " start " in line:
            return proc, int(line.split("tcp=")[1].split()[0])
        if not line and proc.poll() is not None:
            break
    proc.kill()
    raise SystemExit("the server did not start")


def udp_drops(port: int) -> tuple[int, int]:
    """Kernel receive-buffer drops (/proc/net/udp): at the server's socket, and at every other
    loopback socket (the bots', and whatever else runs on the machine)."""
    server = others = 0
    try:
        lines = Path("/proc/net/udp").read_text().splitlines()[1:]
    except OSError:
        return -1, -1
    for line in lines:
        f = line.split()
        local_port = int(f[1].split(":")[1], 16)
        drops = int(f[-1])
        if local_port == port:
            server += drops
        else:
            others += drops
    return server, others


class Scraper(threading.Thread):
    """Polls /metrics and the admin interface's /status once a second, as a monitor would."""

    def __init__(self, metrics_port: int, admin_port: int, token: str) -> None:
        super().__init__(daemon=True)
        self.metrics = f"http://127.0.0.1:{metrics_port}/metrics"
        self.admin = AdminClient("127.0.0.1", admin_port, token=token)
        self.done = threading.Event()
        self.scrapes = 0
        self.errors = 0

    def run(self) -> None:
        while not self.done.wait(1.0):
            try:
                with urllib.request.urlopen(self.metrics, timeout=5) as r:
                    r.read()
                self.admin.request("status")
                self.scrapes += 1
            except (OSError, AdminRequestError):
                self.errors += 1


def one(size: int, rate: float, duration: float, tick: float, processes: int,
        phases: int, scrape: bool = False) -> LoadReport:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        world = folder / "world.tng"
        world.write_bytes(bench_world(max(size // PLAYERS_PER_MAP, 2)))
        extra: list[str] = []
        scraper = None
        if scrape:
            metrics_port, admin_port = free_port(), free_port()
            extra = ["--metrics", f"127.0.0.1:{metrics_port}",
                     "--admin", f"127.0.0.1:{admin_port}"]
            from savecraft.net.operators import Operators, default_path, save

            ops = Operators()  # --admin answers an operator's token only: a read-only one
            token = ops.add("monitor", "read-only")
            save(default_path(folder / "state.sav"), ops)
            scraper = Scraper(metrics_port, admin_port, token)
        proc, port = start_server(folder, world, tick, phases, extra)
        if scraper is not None:
            scraper.start()
        # the server logs every connect/register/login: drain its stderr so it never blocks
        assert proc.stderr is not None
        log = (folder / "server.log").open("w")
        drain = subprocess.Popen(["cat"], stdin=proc.stderr, stdout=log)
        before = udp_drops(port)
        try:
            report: LoadReport = run(lambda: asyncio.wait_for(
                run_loadtest("127.0.0.1", port, clients=size, rate=rate, duration=duration,
                             server_pid=proc.pid, concurrency=64, own_process=True,
                             processes=processes),
                timeout=duration + 600))
            after = udp_drops(port)
            report.server_counters = f"kernel drops: server socket {after[0] - before[0]}, " \
                f"other sockets {after[1] - before[1]}"
        finally:
            if scraper is not None:
                scraper.done.set()
                scraper.join(10)
                report_scrapes = f"scrapes {scraper.scrapes} (errors {scraper.errors}); "
            else:
                report_scrapes = ""
            proc.terminate()
            proc.wait(60)
            drain.wait(10)
            log.close()
        stops = [ln for ln in (folder / "server.log").read_text().splitlines() if " stop " in ln]
        report.server_counters = report_scrapes + report.server_counters + "; " + (
            stops[-1].split(" stop ", 1)[1] if stops else "")
        return report


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="100,500,2000")
    ap.add_argument("--rate", type=float, default=5.0)
    ap.add_argument("--duration", type=float, default=10.0)
    ap.add_argument("--tick", type=float, default=0.05)
    ap.add_argument("--phases", default="5", help="the server's tick phases; a list (1,5) "
                    "runs each size with each, alternately, to compare them in one run")
    ap.add_argument("--repeat", type=int, default=1, help="run everything this many times")
    ap.add_argument("--processes", type=int, default=2, help="load test processes (bots split "
                    "by map; two use both cores next to the server)")
    ap.add_argument("--scrape", default="0", help="1: serve with --admin and --metrics and "
                    "poll /metrics and /status every second; a list (0,1) alternates runs "
                    "without and with, to measure their cost in one run")
    ap.add_argument("--out", default=None, help="write the figures as JSON here")
    args = ap.parse_args()
    results = []
    runs = [(size, phases, scrape) for _ in range(args.repeat)
            for size in (int(s) for s in args.sizes.split(","))
            for phases in (int(p) for p in args.phases.split(","))
            for scrape in (bool(int(x)) for x in args.scrape.split(","))]
    for size, phases, scrape in runs:
        report = one(size, args.rate, args.duration, args.tick, args.processes, phases, scrape)
        print(f"== {size} players, {args.rate:g} moves/s, {args.duration:g} s, "
              f"{max(size // PLAYERS_PER_MAP, 2)} maps, tick {args.tick * 1000:g} ms "
              f"in {phases} phase(s), bots in {args.processes} process(es)"
              + (", admin + metrics scraped every second" if scrape else ""))
        for line in report.lines():
            print("  " + line)
        print(f"  server counters: {report.server_counters}")
        ok = (report.logged_in == size and report.p99_ms < 100 and report.drops == 0)
        print(f"  goal (all in, p99 < 100 ms, no drops): {'met' if ok else 'NOT met'}")
        results.append({**asdict(report), "phases": phases, "scrape": scrape,
                        "messages_per_second": report.messages_per_second,
                        "goal_met": ok})
    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=2))
    _scrape_ratios(results)


def _scrape_ratios(results: list[dict[str, object]]) -> None:
    """p99 with the scraper over p99 without, pairing each run with the one before it."""
    for size in sorted({int(str(r["clients"])) for r in results}):
        rows = [r for r in results if r["clients"] == size]
        ratios = []
        for a, b in zip(rows, rows[1:]):
            if not a["scrape"] and b["scrape"]:
                ratios.append(float(str(b["p99_ms"])) / max(float(str(a["p99_ms"])), 1e-9))
        if ratios:
            print(f"{size} players: p99 with / without the scraper, per pair: "
                  + ", ".join(f"{x:.2f}" for x in ratios)
                  + f"; median {statistics.median(ratios):.2f}")


if __name__ == "__main__":
    main()
