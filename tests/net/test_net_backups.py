"""Backups: rotation, snapshots, --restore, and a state folder that refuses writes."""

from __future__ import annotations

import asyncio
import json
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from savecraft import api
from savecraft.formats.tirnanog.save.model import SaveGame
from savecraft.net.backups import Backups, restore
from savecraft.net.client import ClientError, login
from savecraft.net.packets import ErrorReason
from savecraft.net.state import PlayerStore, StateError

from .support import SPEC, free_port, player, run, running_server, sample_world, \
    until, write_world


def test_rotation_keeps_n_whole_generations_and_snapshots_apart(tmp_path: Path) -> None:
    state = tmp_path / "state.sav"
    b = Backups(state, keep=3, every=100.0, snapshots=2)
    for k in range(5):
        state.write_bytes(b"generation %d" % k)
        b.after_timer_save(now=1_000_000.0 + 50 * k)
    assert [b.generation(k).read_bytes() for k in (1, 2, 3)] == [
        b"generation 4", b"generation 3", b"generation 2"]
    assert not b.generation(4).exists()
    snaps = sorted(b.folder.iterdir())
    assert [p.read_bytes() for p in snaps] == [b"generation 2", b"generation 4"]  # every 100 s
    assert all(p.name.startswith("state.sav-1970") for p in snaps)
    state.write_bytes(b"next")  # the state is replaced by a rename: backups keep their bytes
    assert b.generation(1).read_bytes() == b"generation 4"
    assert not list(tmp_path.glob(".*.tmp"))


def test_timer_saves_rotate_backups(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_server(tmp_path, backups=2, save_interval=0.2) as server:
            a = await player(server, "Brigid")
            for x in (3, 4, 5):
                a.move(0, x, 2)
                assert await until(lambda: server.store.users[0].entity.x == x)
                await asyncio.sleep(0.5)
            first = tmp_path / "state.sav.1"
            assert await until(first.exists)
            on_disk = api.load(first)
            assert isinstance(on_disk, SaveGame) and on_disk.users[0].name == "Brigid"
            assert (tmp_path / "state.sav.2").exists()
            assert server.stats["backups"] >= 2
            await a.logout()

    run(body)


def _serve(tmp_path: Path, port: int, *extra: str) -> subprocess.Popen[str]:
    world = tmp_path / "world.tng"
    if not world.exists():
        write_world(tmp_path)
    return subprocess.Popen(
        [sys.executable, "-m", "savecraft", "serve", str(world), "--state",
         str(tmp_path / "state.sav"), "--port", str(port), *extra],
        stderr=subprocess.PIPE, text=True)


async def _wait_listening(port: int) -> None:
    for _ in range(200):
        try:
            _, w = await asyncio.open_connection("127.0.0.1", port)
            w.close()
            return
        except OSError:
            await asyncio.sleep(0.05)
    raise AssertionError("the server did not start")


def _stop(proc: subprocess.Popen[str]) -> str:
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=20)
    return err


def test_restore_a_backup_and_log_in(tmp_path: Path) -> None:
    port = free_port()
    proc = _serve(tmp_path, port, "--backups", "2", "--save-interval", "0.3")
    try:
        async def first() -> None:
            await _wait_listening(port)
            old = await login("127.0.0.1", port, "Old", "pw", register=SPEC)
            old.run(0.02)
            old.move(0, 5, 6)
            await asyncio.sleep(0.2)
            assert await until(lambda: (tmp_path / "state.sav.1").exists(), timeout=5)
            await asyncio.sleep(0.5)  # (a timer save after the move)
            await old.logout()
            await asyncio.sleep(0.8)
        run(first)
    finally:
        _stop(proc)
    backup = tmp_path / "backup.sav"
    backup.write_bytes((tmp_path / "state.sav.1").read_bytes())
    proc = _serve(tmp_path, port)
    try:
        async def second() -> None:
            await _wait_listening(port)
            await (await login("127.0.0.1", port, "New", "pw", register=SPEC)).logout()
        run(second)
    finally:
        _stop(proc)
    # a broken backup is refused and changes nothing
    junk = tmp_path / "junk.sav"
    junk.write_bytes(b"not a state")
    bad = subprocess.run([sys.executable, "-m", "savecraft", "serve", str(tmp_path / "world.tng"),
                          "--state", str(tmp_path / "state.sav"), "--port", str(port),
                          "--restore", str(junk)], capture_output=True, text=True, timeout=30)
    assert bad.returncode == 2 and "--restore" in bad.stderr
    assert PlayerStore(tmp_path / "state.sav", sample_world()).find("New") is not None
    proc = _serve(tmp_path, port, "--restore", str(backup))
    try:
        async def third() -> None:
            await _wait_listening(port)
            old = await login("127.0.0.1", port, "Old", "pw")
            assert (old.user.entity.x, old.user.entity.y) == (5, 6)
            await old.logout()
            with pytest.raises(ClientError) as err:  # the state as it was before New
                await login("127.0.0.1", port, "New", "pw")
            assert err.value.reason == ErrorReason.BAD_CREDENTIALS
        run(third)
    finally:
        err_text = _stop(proc)
    assert "restore backup=" in err_text
    kept = tmp_path / "state.sav.before-restore"
    assert PlayerStore(kept, sample_world()).find("New") is not None


def test_restore_refuses_another_worlds_state(tmp_path: Path) -> None:
    from savecraft.formats.tirnanog.save.model import ChunkList
    from savecraft.formats.tirnanog.save.codec import build

    other = tmp_path / "other.sav"
    other.write_bytes(build(SaveGame(game_id="elsewhere", chunks=ChunkList([]))))
    state = tmp_path / "state.sav"
    PlayerStore(state, sample_world())
    before = state.read_bytes()
    with pytest.raises(StateError):
        restore(state, other, sample_world())
    assert state.read_bytes() == before


_LIMITED = """
import resource, signal, sys
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG
resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv[1]), resource.RLIM_INFINITY))
from savecraft.cli import main
sys.exit(main(sys.argv[2:]))
"""


def test_a_full_disk_keeps_the_state_in_memory_and_retries(tmp_path: Path) -> None:
    """A file size limit stands for a full disk; lifting it is the disk freed."""
    from savecraft.net.admin_client import AdminClient

    world = write_world(tmp_path)
    port, admin_port = free_port(), free_port()
    state = tmp_path / "state.sav"
    from savecraft.net.certs import ensure_server_context

    PlayerStore(state, sample_world())
    ensure_server_context(state)  # (the certificate is bigger than the limit)
    from savecraft.net.operators import Operators, default_path, save

    ops = Operators()
    token = ops.add("monitor", "read-only")
    save(default_path(state), ops)
    proc = subprocess.Popen(
        [sys.executable, "-c", _LIMITED, "500", "serve", str(world), "--state", str(state),
         "--port", str(port), "--save-interval", "0.3", "--admin", f"127.0.0.1:{admin_port}",
         "--registrations-per-address", "0"],
        stderr=subprocess.PIPE, text=True)
    admin = AdminClient("127.0.0.1", admin_port, token=token)
    try:
        async def body() -> None:
            await _wait_listening(port)
            loop = asyncio.get_running_loop()
            players = []
            acknowledged = []
            for k in range(40):  # until the state no longer fits
                try:
                    # (different passwords: identical users would compress to nothing)
                    p = await login("127.0.0.1", port, f"p{k}", f"pw{k}", register=SPEC)
                except ClientError as err:
                    assert err.reason == ErrorReason.SERVER_ERROR
                    break
                acknowledged.append(f"p{k}")
                p.run(0.02)
                players.append(p)
            else:
                raise AssertionError("the file size limit never bit")
            on_disk = api.load(state)
            assert isinstance(on_disk, SaveGame)
            assert [u.name for u in on_disk.users][:len(acknowledged)] == acknowledged
            for p in players:
                p.move(0, 7, 7)
            await asyncio.sleep(1.5)  # several timer saves fail meanwhile
            status = await loop.run_in_executor(None, admin.request, "status")
            assert status["save_error"] and status["users"] == len(players)
            # the disk is freed: the next timer save writes everything kept in memory
            resource.prlimit(proc.pid, resource.RLIMIT_FSIZE,
                             (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
            ok = await loop.run_in_executor(None, admin.request, "status")
            for _ in range(50):
                ok = await loop.run_in_executor(None, admin.request, "status")
                if ok["save_error"] is None:
                    break
                await asyncio.sleep(0.1)
            assert ok["save_error"] is None
            saved = api.load(state)
            assert isinstance(saved, SaveGame)
            assert all((u.entity.x, u.entity.y) == (7, 7) for u in saved.users[:len(players)])
            for p in players:
                await p.logout()

        run(body, timeout=60)
    finally:
        err = _stop(proc)
    failures = [ln for ln in err.splitlines() if " error=File too large" in ln]
    assert len(failures) == 1, err[-3000:]  # once a minute at most, not at every retry
    assert "recovered=" in err
