"""Span recording and look-up grow linearly with the number of chunks (issue 21).

Recording a 10,000-user save took 62.8 s and ``hexdump --length 64`` 97.7 s
(a load takes 0.04 s): naming each chunk counted over every chunk. These
tests measure ratios in one run (alternating rounds, medians), never a fixed
time: the cost per user at 4,000 users against 500, and the studio's hex pane
against a load of the same bytes.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from collections.abc import Callable
from typing import Any

from aiohttp import ClientSession, ClientTimeout
from aiohttp.test_utils import TestServer

import savecraft
from savecraft import spans
from savecraft.commands.hexdump import render
from savecraft.formats.tirnanog.save import sample
from savecraft.studio.documents import Workspace
from savecraft.studio.server import HEADER, make_app

TOKEN = "test-token-0123456789"


def _median_times(work: dict[str, Callable[[], Any]], rounds: int) -> dict[str, float]:
    """Each contender's median time, the contenders alternating within every round."""
    times: dict[str, list[float]] = {name: [] for name in work}
    for _ in range(rounds):
        for name, fn in work.items():
            t0 = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t0)
    return {name: statistics.median(v) for name, v in times.items()}


def _record_and_look(data: bytes, users: int) -> None:
    """What ``hexdump`` and the studio do first: a lazy map, a window, a user, a byte."""
    smap = spans.record(data, lazy=True)
    lines = list(render(smap, None, length=64))
    assert lines[-1].startswith("-- ")  # the window ended before the file did
    found = smap.spans_for(f"users[{users // 2}].entity.x")
    assert found and found[0].path == f"users[{users // 2}].entity.x"
    middle = smap.at("payload", len(smap.spaces()["payload"].data) // 2)
    assert middle is not None and middle.path.startswith("users[")


def test_recording_and_looking_up_cost_the_same_per_user_at_4000_users_as_at_500() -> None:
    small, large = 500, 4000
    datas = {n: savecraft.build(sample.server_save(users=n)) for n in (small, large)}
    _record_and_look(datas[small], small)  # imports and first-use caches out of the timing
    def contender(n: int) -> Callable[[], None]:
        return lambda: _record_and_look(datas[n], n)

    med = _median_times({str(n): contender(n) for n in datas}, rounds=5)
    per_user = (med[str(large)] / large) / (med[str(small)] / small)
    # Linear is 1 (a fixed cost per run makes it less); the quadratic code gave about 6.
    assert per_user <= 3.0, f"{per_user:.2f}x the cost per user at {large} users as at {small}"


def test_lazy_recording_leaves_every_chunk_undecoded() -> None:
    """Naming the chunks must not decode them: the map of a 100,000-user save is cheap to make."""
    data = savecraft.build(sample.server_save(users=200))
    smap = spans.record(data, lazy=True)
    assert all(not u.done for u in smap.units())
    assert [u.path for u in smap.units()[3:6]] == ["users[0]", "users[1]", "users[2]"]
    assert smap.spans_for("chunks[4].magic")[0].path == "users[1].magic"
    assert sum(u.done for u in smap.units()) == 1  # only the one chunk looked into
    assert type(smap.model.chunks._items[10]).__name__ == "_Pending"  # the model kept its bytes


def test_the_studio_hex_pane_answers_for_a_10000_user_save() -> None:
    users = 10_000
    data = savecraft.build(sample.server_save(users=users))
    loads: list[float] = []

    def timed_loads() -> None:  # before and after the pane's requests, so a busy minute hits both
        loads.append(_median_times({"load": lambda: savecraft.load(data)}, rounds=3)["load"])

    async def main() -> tuple[float, dict[str, Any]]:
        ws = Workspace()
        ws.open_bytes("big.sav", data)
        server = TestServer(make_app(ws, TOKEN), host="127.0.0.1")
        await server.start_server()
        timed_loads()
        got: dict[str, Any] = {}
        try:
            async with ClientSession(headers={HEADER: TOKEN}) as session:
                async def get(url: str, **params: str) -> Any:
                    async with session.get(server.make_url(url), params=params, timeout=ClientTimeout(total=600)) as r:
                        assert r.status == 200, (url, r.status, await r.text())
                        return await r.json()
                t0 = time.perf_counter()
                got["spaces"] = await get("/api/doc/d1/spaces")
                got["file"] = await get("/api/doc/d1/hex", space="file", offset="0", length="4096")
                got["payload"] = await get("/api/doc/d1/hex", space="payload", offset="200000", length="4096")
                got["at"] = await get("/api/doc/d1/at", space="payload", offset="300000")
                got["spans"] = await get("/api/doc/d1/spans", path=f"users[{users - 1}].entity.x")
                took = time.perf_counter() - t0
            timed_loads()
        finally:
            await server.close()
        return took, got

    took, got = asyncio.run(asyncio.wait_for(main(), 900))  # a bound against a hang, not a measure
    assert {s["name"] for s in got["spaces"]} == {"file", "payload"}
    assert [sp["path"] for sp in got["file"]["spans"]][:2] == ["magic", "game_id"]
    assert any(sp["path"].startswith("users[") for sp in got["payload"]["spans"])
    assert got["at"]["span"]["tree"].startswith("users[")
    assert got["spans"][0]["tree"] == f"users[{users - 1}].entity.x"
    # About 7 loads alone, 53 once beside the whole suite on 2 cores; the quadratic code took
    # 101 s here (238 s, 3,213 loads, in this test).
    load = max(loads)
    assert took <= 150 * load, f"the hex pane took {took:.2f} s, {took / load:.0f}x a load ({load * 1000:.0f} ms)"


def test_spans_and_the_hex_view_name_no_format() -> None:
    """Format knowledge lives in the plugins (issue 19 §3): the span hook comes through the registry."""
    from savecraft import registry
    from savecraft.studio import hexview

    words = set(registry.names()) | {"tirnanog", "angband", "qfg5", ".formats", "b\"user\"", "chunk_path"}
    for module in (spans, hexview):
        source = Path(str(module.__file__)).read_text(encoding="utf-8").lower()
        named = sorted(w for w in words if w.lower() in source)
        assert not named, f"{module.__name__} names {named}"
    assert registry.get("tirnanog-save").spans is not None  # the plugin's hook, found by name
    assert spans.adapter_of(registry.get("tirnanog-save")).outline_units


def test_the_installed_hexdump_command_on_a_10000_user_save_costs_about_a_load(tmp_path: Path) -> None:
    """As a user runs it: the console script in a subprocess, against a process loading the file."""
    users = 10_000
    path = tmp_path / "big.sav"
    path.write_bytes(savecraft.build(sample.server_save(users=users)))
    command = shutil.which("savecraft")
    hexdump = ([command] if command else [sys.executable, "-m", "savecraft"]) + ["hexdump", str(path)]
    src = str(Path(savecraft.__file__).parents[1])
    env = dict(os.environ, PYTHONPATH=src + os.pathsep + os.environ.get("PYTHONPATH", ""))
    shown: list[str] = []

    def run_hexdump() -> None:
        res = subprocess.run(hexdump + ["--length", "64"], env=env, capture_output=True, text=True, timeout=900)
        assert res.returncode == 0, res.stderr
        shown[:] = res.stdout.splitlines()

    def run_load() -> None:
        subprocess.run([sys.executable, "-c", "import sys, savecraft; savecraft.load(sys.argv[1])", str(path)],
                       env=env, check=True, timeout=900)

    med = _median_times({"hexdump": run_hexdump, "load": run_load}, rounds=3)
    assert shown[0] == f"file: {path.stat().st_size} bytes (tirnanog-save)"
    assert shown[1].startswith("00000000  54 4e 47 20") and shown[1].endswith("magic")
    assert shown[-1] == f"-- {path.stat().st_size - 64} more bytes: --offset 0x40 shows the next ones"
    # 1.1-1.3x on this machine; the quadratic code took 97.7 s, about a hundred loads.
    assert med["hexdump"] <= 4 * med["load"], f"hexdump {med['hexdump']:.2f} s, a load {med['load']:.2f} s"
