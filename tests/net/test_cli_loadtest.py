"""loadtest: Ctrl-C keeps the report (for the time walked), a live line shows the figures."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pytest

from savecraft import console
from savecraft.cli import main
from savecraft.net.loadtest import LiveControl, LiveFigures

from .support import ServerThread


def test_ctrl_c_prints_the_full_report_for_the_time_walked(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = signal.getsignal(signal.SIGINT)
    with ServerThread(tmp_path / "server") as server:
        timer = threading.Timer(2.5, os.kill, (os.getpid(), signal.SIGINT))
        timer.start()
        t0 = time.monotonic()
        try:
            status = main(["loadtest", "127.0.0.1", "--port", str(server.tcp_port), "--clients", "4",
                           "--rate", "5", "--duration", "60", "--server-pid", str(os.getpid())])
        finally:
            timer.cancel()
        took = time.monotonic() - t0
    assert status == 130 and took < 30
    out = capsys.readouterr().out
    assert "interrupted: the figures are for the" in out
    assert "clients: 4 of 4 logged in" in out and "p50" in out and "drops:" in out
    assert signal.getsignal(signal.SIGINT) is before  # restored


def test_the_live_line_gets_figures_every_second(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from savecraft.net.loadtest import run_loadtest
    from savecraft.net.server import run

    seen: list[LiveFigures] = []
    control = LiveControl(on_second=seen.append)
    with ServerThread(tmp_path / "server") as server:
        async def go() -> object:
            return await run_loadtest("127.0.0.1", server.tcp_port, clients=3, rate=5, duration=2.5,
                                      server_pid=os.getpid(), control=control)

        report = run(go)
    assert report.logged_in == 3
    assert len(seen) >= 2
    last = seen[-1]
    assert last.connected == 3 and last.messages_per_second > 0 and last.p50_ms >= 0 and last.drops == 0


def test_the_live_line_is_drawn_only_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(console, "_isatty", lambda stream: False)
    with console.live_loadtest() as control:
        assert control is not None and control.on_second is None
    monkeypatch.setattr(console, "_isatty", lambda stream: True)
    with console.live_loadtest() as control:
        assert control is not None and control.on_second is not None
    with console.live_loadtest(enabled=False) as control:
        assert control is None
