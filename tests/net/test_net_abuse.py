"""The server under abuse: idle TCP connections, descriptor exhaustion, registration floods,
LAN discovery floods."""

from __future__ import annotations

import asyncio
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest

from savecraft.net.client import ClientError, login

from .support import SPEC, free_port, player, run, running_server, until, write_world


async def _idle_connections(port: int, n: int) -> list[tuple[asyncio.StreamReader,
                                                             asyncio.StreamWriter]]:
    out = []
    for _ in range(n):
        out.append(await asyncio.open_connection("127.0.0.1", port))
    return out


async def _closed_soon(reader: asyncio.StreamReader, within: float) -> bool:
    try:
        return await asyncio.wait_for(reader.read(), within) == b""
    except TimeoutError:
        return False
    except ConnectionError:
        return True


def test_connections_that_never_start_tls_are_counted_and_timed_out(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_server(tmp_path, max_handshakes=4, tls_timeout=1.0) as server:
            conns = await _idle_connections(server.tcp_port, 10)
            # beyond the limit: closed at once, although none of them ever sent a byte
            over = await asyncio.gather(*(_closed_soon(r, 0.5) for r, _ in conns[4:]))
            assert all(over) and server.stats["tcp_busy"] >= 6
            held = await asyncio.gather(*(_closed_soon(r, 0.2) for r, _ in conns[:4]))
            assert not any(held)
            # the held ones go after the TLS timeout, and players get in again
            assert all(await asyncio.gather(*(_closed_soon(r, 3.0) for r, _ in conns[:4])))
            assert server.stats["tcp_tls_timeout"] == 4
            p = await player(server, "Niamh")
            await p.logout()
            for _, w in conns:
                w.close()

    run(body)


_SERVE_LIMITED = """
import resource, sys
resource.setrlimit(resource.RLIMIT_NOFILE, (int(sys.argv[1]), int(sys.argv[1])))
from savecraft.cli import main
sys.exit(main(sys.argv[2:]))
"""


def test_timer_saves_never_run_out_of_descriptors(tmp_path: Path) -> None:
    """A descriptor limit of 128 and 300 idle connections: saves still happen, players get in."""
    world = write_world(tmp_path)
    state = tmp_path / "state.sav"
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-c", _SERVE_LIMITED, "128", "serve", str(world), "--state", str(state),
         "--port", str(port), "--save-interval", "0.3", "--tls-timeout", "2"],
        stderr=subprocess.PIPE, text=True)
    try:
        async def body() -> None:
            for _ in range(100):  # wait for the server to listen
                try:
                    r, w = await asyncio.open_connection("127.0.0.1", port)
                    w.close()
                    break
                except OSError:
                    await asyncio.sleep(0.1)
            sess = await login("127.0.0.1", port, "Fionn", "pw", register=SPEC)
            sess.run(0.02)
            conns = await _idle_connections(port, 300)
            before = state.stat().st_mtime_ns
            for k in range(20):  # moves: changes the timer saves must write
                sess.move(0, 1 + k % 5, 2)
                await asyncio.sleep(0.05)
            await asyncio.sleep(0.5)
            assert state.stat().st_mtime_ns != before
            for _, w in conns:
                w.close()
            await asyncio.sleep(2.5)  # the held connections time out
            other = await login("127.0.0.1", port, "Grainne", "pw", register=SPEC)
            await other.logout()
            await sess.logout()

        run(body, timeout=60)
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=20)
    assert "Too many open files" not in err, err[-2000:]
    assert "reason=timer" in err


def test_registrations_are_limited_per_address_and_in_total(tmp_path: Path) -> None:
    from savecraft.net.packets import ErrorReason

    async def body() -> None:
        async with running_server(tmp_path, registrations_per_address=3,
                                  registrations_per_minute=5) as server:
            port = server.tcp_port
            for k in range(3):
                await (await login("127.0.0.1", port, f"a{k}", "pw", register=SPEC)).logout()
            with pytest.raises(ClientError) as err:
                await login("127.0.0.1", port, "a3", "pw", register=SPEC)
            assert err.value.reason == ErrorReason.TOO_MANY_REGISTRATIONS
            assert server.store.find("a3") is None
            # another address has its own allowance, until the total runs out
            for k in range(2):
                await (await login("127.0.0.1", port, f"b{k}", "pw", register=SPEC,
                                   source="127.0.0.2")).logout()
            with pytest.raises(ClientError) as err:
                await login("127.0.0.1", port, "b2", "pw", register=SPEC, source="127.0.0.2")
            assert err.value.reason == ErrorReason.TOO_MANY_REGISTRATIONS
            assert server.stats["registrations_limited"] == 2
            # logging in is not registering
            await (await login("127.0.0.1", port, "a0", "pw")).logout()

    run(body)


def test_registrations_share_writes_but_each_is_on_disk_before_its_ok(tmp_path: Path) -> None:
    from savecraft import api
    from savecraft.formats.tirnanog.save.model import SaveGame

    async def body() -> None:
        async with running_server(tmp_path) as server:
            store = server.store
            real_write = store.write
            seen_on_disk: list[int] = []

            def slow_write(data: object = None) -> int:
                time.sleep(0.05)  # a slow disk: registrations pile up behind a write
                return real_write(data)  # type: ignore[arg-type]

            store.write = slow_write  # type: ignore[method-assign]
            writes = store.writes

            async def one(k: int) -> None:
                sess = await login("127.0.0.1", server.tcp_port, f"r{k}", "pw", register=SPEC)
                on_disk = api.load(store.path)
                assert isinstance(on_disk, SaveGame)
                seen_on_disk.append(sum(u.name == f"r{k}" for u in on_disk.users))
                await sess.logout()

            await asyncio.gather(*(one(k) for k in range(20)))
            assert seen_on_disk == [1] * 20
            assert store.writes - writes < 20  # batched: fewer writes than registrations

    run(body)


def test_lan_discovery_replies_are_limited_per_source(tmp_path: Path) -> None:
    from savecraft.net.crypto import plain_datagram
    from savecraft.net.packets import UdpHello

    async def body() -> None:
        async with running_server(tmp_path, discovery_per_second=3) as server:
            got: list[bytes] = []

            class P(asyncio.DatagramProtocol):
                def datagram_received(self, data: bytes, addr: object) -> None:
                    got.append(data)

            loop = asyncio.get_running_loop()
            t, _ = await loop.create_datagram_endpoint(
                P, remote_addr=("127.0.0.1", server.udp_port))
            for _ in range(50):
                t.sendto(plain_datagram(UdpHello()))
            assert await until(lambda: server.stats["dropped_discovery_limited"] == 47)
            await asyncio.sleep(0.1)
            assert len(got) == 3 and server.stats["discovery"] == 3
            t2, _ = await loop.create_datagram_endpoint(   # another source is answered
                P, local_addr=("127.0.0.2", 0), remote_addr=("127.0.0.1", server.udp_port))
            t2.sendto(plain_datagram(UdpHello()))
            assert await until(lambda: len(got) == 4)
            await asyncio.sleep(1.1)  # and the first again, a second later
            t.sendto(plain_datagram(UdpHello()))
            assert await until(lambda: len(got) == 5)
            t.close()
            t2.close()

    run(body)


def test_deny_command_adds_lists_and_removes_addresses_offline(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from savecraft.cli import main
    from savecraft.net.state import PlayerStore

    from .support import sample_world

    world = write_world(tmp_path)
    state = tmp_path / "state.sav"
    PlayerStore(state, sample_world())  # a fresh state
    base = ["deny", str(world), "--state", str(state)]
    assert main([*base, "add", "10.0.0.7", "192.168.1.0/30", "::1"]) == 0
    assert "6 addresses added" in capsys.readouterr().out
    assert main([*base, "remove", "192.168.1.1"]) == 0
    assert main([*base, "list"]) == 0
    assert capsys.readouterr().out.splitlines()[-5:] == [
        "10.0.0.7", "192.168.1.0", "192.168.1.2", "192.168.1.3", "::1"]
    store = PlayerStore(state, sample_world())  # persisted in the DENY chunk
    assert store.denied("192.168.1.3") and not store.denied("192.168.1.1")
    assert store.denied("::1")
    assert main([*base, "add", "10.0.0.0/8"]) == 2  # too wide to store as addresses
    assert "more than the 4096" in capsys.readouterr().err
    assert main([*base, "add", "nonsense"]) == 2


async def _flood(port: int, source: str, hold: int, stop: asyncio.Event) -> int:
    """Keep ``hold`` idle connections (no TLS, no byte) open from ``source``; reopen closed ones.

    Tops up every 0.05 s (a bounded loop, not a spin); returns how many it opened.
    """
    alive: set[asyncio.Task[None]] = set()
    opened = 0

    async def sit(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await reader.read()  # b"" when the server closes it
        except ConnectionError:
            pass
        finally:
            writer.close()

    try:
        while not stop.is_set():
            for _ in range(hold - len(alive)):
                try:
                    r, w = await asyncio.open_connection("127.0.0.1", port,
                                                         local_addr=(source, 0))
                except OSError:
                    break
                opened += 1
                t = asyncio.create_task(sit(r, w))
                alive.add(t)
                t.add_done_callback(alive.discard)
            try:
                await asyncio.wait_for(stop.wait(), 0.05)
            except TimeoutError:
                pass
    finally:
        for t in list(alive):
            t.cancel()
        await asyncio.gather(*alive, return_exceptions=True)
    return opened


def test_a_few_addresses_flooding_idle_handshakes_lock_no_player_out(tmp_path: Path) -> None:
    """Four addresses each try to hold 128 idle pre-TLS connections (more than every slot);
    players from other addresses still log in, every one of them.

    Before: the first address took every slot and all 10 logins were refused.
    """
    async def body() -> None:
        async with running_server(tmp_path, max_handshakes=256, tls_timeout=3.0) as server:
            listener = server._tcp
            assert listener is not None
            stop = asyncio.Event()
            floods = [asyncio.create_task(_flood(server.tcp_port, f"127.0.0.{2 + i}", 128, stop))
                      for i in range(4)]
            widest = 0
            try:
                # every slot taken, 64 by each address (the per-address cap, an eighth of 512)
                assert await until(lambda: listener.open >= 256, timeout=15)
                refused: list[str] = []
                for i in range(10):  # fresh addresses 127.0.0.10 ... 127.0.0.19, one by one
                    widest = max([widest, *listener.by_host.values()])
                    try:
                        sess = await login("127.0.0.1", server.tcp_port, f"p{i}", "pw",
                                           register=SPEC, source=f"127.0.0.{10 + i}",
                                           timeout=5)
                    except ClientError as err:
                        refused.append(str(err))
                        continue
                    await sess.logout()
                assert listener.open >= 200  # the flood was on all along
            finally:
                stop.set()
                opened = await asyncio.gather(*floods)
            print(f"logins 10, refused {len(refused)}; flood connections opened {sum(opened)}, "
                  f"tcp_busy {server.stats['tcp_busy']}, tcp_evicted {server.stats['tcp_evicted']}")
            assert refused == []
            assert widest <= server.config.max_handshakes_per_address == 64
            assert server.stats["tcp_evicted"] >= 1 and server.stats["tcp_busy"] > 0
            assert sum(opened) > 256
            # every slot comes back once the flood stops: nothing evicted is still counted or open
            assert await until(lambda: listener.open == 0 and not listener.by_host
                               and not listener._held and not listener._connections, timeout=10)

    run(body, timeout=90)
