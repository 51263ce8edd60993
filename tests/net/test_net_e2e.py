"""End to end on loopback: register, see each other move and chat, log out, restart, log in again."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from savecraft import api
from savecraft.formats.tirnanog.save.model import SaveGame
from savecraft.net.packets import LogoutRecord

from .support import player, run, running_server, until, write_world


def test_two_players_register_meet_chat_leave_and_come_back_after_a_restart(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_server(tmp_path) as server:
            alice = await player(server, "Alice", "wonderland")
            bob = await player(server, "Bob", "builder")
            assert alice.user.name == "Alice" and bob.user.name == "Bob"
            assert len(server.store.users) == 2
            alice.move(0, 3, 4, direction=1)
            bob.move(0, 9, 10, direction=2, actions=[1, 2])
            assert await until(lambda: 2 in alice.players and alice.players[2].x == 9)
            assert await until(lambda: 1 in bob.players and bob.players[1].y == 4)
            assert (alice.players[2].map_id, alice.players[2].x, alice.players[2].y,
                    alice.players[2].direction) == (0, 9, 10, 2)
            alice.move(1, 5, 6, direction=3)  # the next map is a neighbour: still seen
            assert await until(lambda: bob.players.get(1) is not None
                               and bob.players[1].map_id == 1)
            alice.chat("hello Bob")
            bob.chat("hi Alice")
            assert await until(lambda: (1, "hello Bob") in bob.chat_lines)
            assert await until(lambda: (2, "hi Alice") in alice.chat_lines)
            assert (1, "hello Bob") not in alice.chat_lines  # not echoed to the speaker
            seen: list[object] = []
            bob.on_record = seen.append
            await alice.logout()
            assert await until(lambda: any(isinstance(r, LogoutRecord) and r.user_id == 1
                                           for r in seen))
            assert 1 not in bob.players
            assert 1 not in server.sessions
            bob.move(0, 11, 12, direction=4)
            assert await until(lambda: server.store.users[1].entity.x == 11)
            await bob.logout()
        # the server saved on stop: a new one knows both players and where they were
        state = api.load(tmp_path / "state.sav")
        assert isinstance(state, SaveGame)
        assert [u.name for u in state.users] == ["Alice", "Bob"]
        async with running_server(tmp_path) as server:
            assert len(server.store.users) == 2
            alice = await player(server, "Alice", "wonderland", register=False)
            bob = await player(server, "Bob", "builder", register=False)
            a, b = alice.user.entity, bob.user.entity
            assert (a.map, a.x, a.y, a.direction) == (1, 5, 6, 3)
            assert (b.map, b.x, b.y, b.direction) == (0, 11, 12, 4)
            assert alice.user.last_logout > 0
            # both are back in the world and see each other's arrival
            assert await until(lambda: 2 in alice.players and 1 in bob.players)
            await alice.logout()
            await bob.logout()

    run(body)


def _start_cli_server(tmp_path: Path) -> tuple[subprocess.Popen[str], int]:
    world = write_world(tmp_path)
    proc = subprocess.Popen(
        [sys.executable, "-m", "savecraft", "serve", str(world), "--state",
         str(tmp_path / "state.sav"), "--port", "0", "--save-interval", "0.2"],
        stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        if " start " in line:
            port = int(line.split("tcp=")[1].split()[0])
            return proc, port
        if not line and proc.poll() is not None:
            break
    proc.kill()
    raise AssertionError("the server did not start")


def test_cli_server_survives_kill_9_and_saves_on_sigterm(tmp_path: Path) -> None:
    proc, port = _start_cli_server(tmp_path)
    try:
        async def visit(name: str, x: int) -> None:
            from savecraft.net.client import login

            from .support import SPEC
            sess = await login("127.0.0.1", port, name, "pw", register=SPEC)
            sess.move(0, x, 2)
            await sess.pump_for(0.5)  # the timer (0.2 s) writes the new position
            await sess.logout()

        run(lambda: visit("Ciara", 7))
        os.kill(proc.pid, signal.SIGKILL)  # at any moment: the file stays whole
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
    state = api.load(tmp_path / "state.sav")
    assert isinstance(state, SaveGame)
    ciara = state.user("Ciara")
    assert ciara is not None and ciara.entity.x == 7
    # restarted: knows Ciara; SIGTERM logs everyone out and writes the state
    proc, port = _start_cli_server(tmp_path)
    try:
        async def again() -> None:
            from savecraft.net.client import login

            sess = await login("127.0.0.1", port, "Ciara", "pw")
            assert sess.user.entity.x == 7
            sess.move(0, 8, 3)
            await sess.pump_for(0.1)
            sess.close()  # vanishes without a logout

        run(again)
        os.kill(proc.pid, signal.SIGTERM)
        assert proc.wait(15) == 0
        assert proc.stderr is not None
        tail = proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
    assert "logout user='Ciara'" in tail and "reason=signal SIGTERM" in tail
    assert "save reason=signal SIGTERM" in tail
    state = api.load(tmp_path / "state.sav")
    ciara = state.user("Ciara")
    assert ciara is not None and (ciara.entity.x, ciara.entity.y) == (8, 3)
    assert ciara.last_logout >= ciara.last_login > 0
