"""``serve --metrics``: the Prometheus endpoint, scraped while bots play."""

from __future__ import annotations

import asyncio
import urllib.request
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from savecraft.net.client import ClientError, login
from savecraft.net.metrics import parse_listen
from savecraft.net.server import GameServer

from .support import SPEC, free_port, run, running_server, until


async def scrape(server: GameServer) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    url = f"http://127.0.0.1:{server.metrics.port}/metrics"

    def get() -> str:
        with urllib.request.urlopen(url, timeout=5) as r:
            assert r.headers["Content-Type"].startswith("text/plain")
            return str(r.read().decode())

    text = await asyncio.get_running_loop().run_in_executor(None, get)
    out = {}
    for fam in text_string_to_metric_families(text):
        for sample in fam.samples:
            out[sample.name, tuple(sorted(sample.labels.items()))] = sample.value
    return out


def test_parse_listen() -> None:
    assert parse_listen("127.0.0.1:9100") == ("127.0.0.1", 9100)
    assert parse_listen("[::1]:9100") == ("::1", 9100)
    for bad in ("127.0.0.1", ":9100", "h:x", "h:70000"):
        with pytest.raises(ValueError):
            parse_listen(bad)


def test_metrics_move_while_bots_play(tmp_path: Path) -> None:
    from savecraft.net.loadtest import run_loadtest

    async def body() -> None:
        async with running_server(tmp_path, metrics=f"127.0.0.1:{free_port()}",
                                  registrations_per_address=12) as server:
            before = await scrape(server)
            assert before["savecraft_players_online", ()] == 0
            load = asyncio.create_task(run_loadtest(
                "127.0.0.1", server.tcp_port, clients=10, rate=5, duration=3, prefix="m",
                concurrency=10))
            assert await until(lambda: len(server.by_addr) == 10, timeout=15)
            await asyncio.sleep(1.0)
            during = await scrape(server)
            await asyncio.sleep(1.0)
            later = await scrape(server)
            await load
            # a wrong password and a registration over the limit, counted by reason
            with pytest.raises(ClientError):
                await login("127.0.0.1", server.tcp_port, "m1", "wrong")
            for k in range(3):
                try:
                    await (await login("127.0.0.1", server.tcp_port, f"x{k}", "pw",
                                       register=SPEC)).logout()
                except ClientError:
                    pass
            after = await scrape(server)

            assert during["savecraft_players_online", ()] == 10
            assert during["savecraft_users_registered", ()] == 10
            assert later["savecraft_datagrams_received_total", ()] > \
                during["savecraft_datagrams_received_total", ()] > 0
            assert later["savecraft_datagrams_sent_total", ()] > \
                during["savecraft_datagrams_sent_total", ()] > 0
            assert later["savecraft_tick_phase_duration_seconds_count", ()] > \
                during["savecraft_tick_phase_duration_seconds_count", ()]
            assert later["savecraft_relay_wait_seconds_count", ()] > 0
            assert later["savecraft_relay_wait_seconds_sum", ()] > 0
            assert during["savecraft_registrations_total", (("reason", ""),
                                                            ("result", "ok"))] == 10
            assert after["savecraft_logins_total", (("reason", "bad_credentials"),
                                                    ("result", "refused"))] == 1
            assert after["savecraft_registrations_total", (
                ("reason", "too_many_registrations"), ("result", "refused"))] == 1
            saves = after["savecraft_state_save_duration_seconds_count", ()]
            assert saves >= 1 and after["savecraft_events_total", (("event", "saves"),)] == saves
            assert after["savecraft_state_size_bytes", ()] > 0
            assert after["savecraft_players_online", ()] == 0
            assert after["savecraft_state_save_failing", ()] == 0
            assert ("savecraft_handshakes_in_progress", ()) in after
            assert ("savecraft_netq_resent_total", ()) in after

    run(body, timeout=60)
