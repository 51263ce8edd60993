"""The client: the asset bundle cache, ``savecraft play``, ``savecraft loadtest``, the demo step."""

from __future__ import annotations

import os
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from savecraft import api
from savecraft.cli import main
from savecraft.formats.tirnanog.save.model import SaveGame
from savecraft.net.client import cached_bundle, describe_bundle, fetch_bundle, fetch_hello
from savecraft.net.loadtest import bench_world, process_cpu, run_loadtest
from savecraft.net.server import GameServer
from savecraft.net.world import world_from_bytes

from .support import ServerThread, run, running_server


def test_bundle_is_cached_checked_and_fetched_again_when_stale(tmp_path: Path) -> None:
    cache = tmp_path / "cache"

    async def body() -> None:
        async with running_server(tmp_path) as server:
            port = server.tcp_port
            hello, bundle, downloaded = await fetch_bundle("127.0.0.1", port, cache=cache)
            assert downloaded
            files = list(cache.iterdir())
            assert len(files) == 1 and hello.game_id in files[0].name
            again = await fetch_bundle("127.0.0.1", port, cache=cache)
            assert again == (hello, bundle, False)
            # a damaged cache fails its CRC and is fetched again
            raw = bytearray(files[0].read_bytes())
            raw[100] ^= 0xFF
            files[0].write_bytes(bytes(raw))
            assert cached_bundle(cache, hello) is None
            third = await fetch_bundle("127.0.0.1", port, cache=cache)
            assert third == (hello, bundle, True)
            # a cache made for other header fields is not used
            raw = bytearray(files[0].read_bytes())
            raw[20] ^= 1  # inside the stored header fields (the map size byte)
            files[0].write_bytes(bytes(raw))
            assert cached_bundle(cache, hello) is None
            assert zlib.crc32(bundle) == server.world.bundle_crc

    run(body)


def test_default_character_is_accepted_by_the_world(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_server(tmp_path) as server:
            hello, bundle, _ = await fetch_bundle("127.0.0.1", server.tcp_port)
            info = describe_bundle(hello, bundle)
            spec = info.default_character(1)
            assert spec[0] >> 8 == 1 and len(spec) == 1 + len(info.attribute_kinds)
            assert sum(v for v, k in zip(spec[1:], info.attribute_kinds) if k == 0) \
                <= info.free_points

    run(body)


@pytest.fixture
def threaded(tmp_path: Path) -> Iterator[GameServer]:
    with ServerThread(tmp_path / "server") as server:
        yield server


def test_savecraft_play_registers_walks_chats_and_logs_out(
        tmp_path: Path, threaded: GameServer, capsys: pytest.CaptureFixture[str]) -> None:
    port = str(threaded.tcp_port)
    cache = str(tmp_path / "cache")
    args = ["play", "127.0.0.1", "--port", port, "--cache", cache, "--name", "Niamh",
            "--password", "harp", "--steps", "3", "--say", "hello all"]
    assert main(args) == 0
    out = capsys.readouterr().out
    for text in ("verified, downloaded", "registered 'Niamh'", "in the world at map 0 (8,8)",
                 "walked to map 0 (11,8)", "said 'hello all'", "logged out",
                 "bytes of map asset received"):
        assert text in out
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "from the cache" in out and "logged in as 'Niamh'" in out
    assert "in the world at map 0 (11,8)" in out  # where the last session ended
    wrong = ["play", "127.0.0.1", "--port", port, "--cache", cache, "--name", "Niamh",
             "--password", "flute", "--steps", "0"]
    assert main(wrong) == 1  # the server said no: 1, as README's exit statuses say
    assert "wrong password for 'Niamh'" in capsys.readouterr().err


def test_savecraft_loadtest_reports_its_figures(tmp_path: Path, threaded: GameServer,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    args = ["loadtest", "127.0.0.1", "--port", str(threaded.tcp_port), "--clients", "6",
            "--rate", "5", "--duration", "1", "--server-pid", str(os.getpid())]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "clients: 6 of 6 logged in" in out
    assert "p50" in out and "p99" in out and "drops: 0 relays missing" in out
    assert "server CPU:" in out and "% of one core" in out
    assert main(["loadtest", "10.1.2.3", "--clients", "1", "--rate", "1",
                 "--duration", "1"]) == 2
    assert "only runs against loopback" in capsys.readouterr().err


def test_loadtest_on_a_world_of_many_maps(tmp_path: Path) -> None:
    data = bench_world(6)
    world = world_from_bytes(data)
    assert world.map_count == 6 and world.neighbours[0] == frozenset({0, 1, 5})

    async def body() -> None:
        async with running_server(tmp_path, world) as server:
            report = await run_loadtest("127.0.0.1", server.tcp_port, clients=12, rate=10,
                                        duration=1.0)
            assert report.logged_in == 12
            assert report.moves_sent >= 100
            # two bots per map: each move reaches the other bot on its map and the four on the
            # two neighbouring maps
            assert report.expected_relays == report.moves_sent
            assert report.missing_relays == 0
            assert report.relays_received >= 4 * report.moves_sent
            assert report.p50_ms < 500
            assert server.stats["dropped_overflow"] == 0

    run(body, timeout=60)
    assert process_cpu(os.getpid()) is not None


def test_demo_step_runs_a_server_and_two_bots(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    from savecraft.net.demo import write_samples

    paths = write_samples(tmp_path)
    assert [p.name for p in paths] == ["tirnanog-server-state.sav"]
    state = api.load(paths[0])
    assert isinstance(state, SaveGame)
    assert [u.name for u in state.users] == ["Brigid", "Cian"]
    assert api.build(state) == paths[0].read_bytes()
    out = capsys.readouterr().out
    assert "Cian hears player 1: Dia dhuit, Cian!" in out


def test_the_server_process_is_found_by_its_port() -> None:
    import socket

    from savecraft.net.loadtest import listener_pid

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen()
    try:
        assert listener_pid(s.getsockname()[1]) == os.getpid()
    finally:
        s.close()


def test_hello_from_a_server_that_is_not_there(tmp_path: Path) -> None:
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    from savecraft.net.client import ClientError

    async def body() -> None:
        with pytest.raises(ClientError, match="cannot connect"):
            await fetch_hello("127.0.0.1", port, timeout=2)

    run(body)


def test_loadtest_bots_split_over_processes_by_map(tmp_path: Path) -> None:
    from savecraft.net.loadtest import _partition

    assert _partition(8, 4, 2) == [[0, 1, 4, 5], [2, 3, 6, 7]]  # maps 0-1 and maps 2-3
    assert _partition(3, 10, 4) == [[0, 1, 2]]  # maps 0-2 are the first process's range
    world = world_from_bytes(bench_world(4))

    async def body() -> None:
        async with running_server(tmp_path, world) as server:
            report = await run_loadtest("127.0.0.1", server.tcp_port, clients=8, rate=5,
                                        duration=1.0, processes=2)
            assert report.logged_in == 8 and report.moves_sent >= 30
            assert report.expected_relays == report.moves_sent  # one other bot per map
            assert report.missing_relays == 0 and report.p50_ms < 1000

    run(body, timeout=90)


_MOVE_FIELDS = st.builds(lambda u, m, x, y, d, a: (u, m, x, y, d, a),
                         st.integers(0, 2**32 - 1), st.integers(0, 2**32 - 1),
                         st.integers(0, 0xFFFF), st.integers(0, 0xFFFF),
                         st.integers(0, 0xFF), st.integers(0, 0xFF))


@given(st.lists(st.one_of(_MOVE_FIELDS, st.integers(0, 2**32 - 1)), max_size=40))
def test_loadtest_fast_path_reads_what_the_client_library_decodes(
        items: list[tuple[int, ...] | int]) -> None:
    """The bots' shortcut for an update of move records gives the records ``decode`` gives,
    and declines (None: the client library decodes it) every other message."""
    from savecraft.net.loadtest import _move_records
    from savecraft.net.packets import LogoutRecord, MoveRecord, Role, Update, decode

    records: list[MoveRecord | LogoutRecord] = [
        MoveRecord(*it) if isinstance(it, tuple) else LogoutRecord(it) for it in items]
    raw = Update(list(records)).encode()
    fast = _move_records(raw)
    decoded = decode(raw, sender=Role.SERVER)
    assert isinstance(decoded, Update) and decoded.records == records
    if records and all(isinstance(r, MoveRecord) for r in records):
        assert fast is not None
        assert [MoveRecord(*t[1:]) for t in fast] == records
    else:
        assert fast is None


def test_loadtest_fast_path_declines_other_messages() -> None:
    from savecraft.net.loadtest import _move_records
    from savecraft.net.packets import MoveRecord, TextChat, Update

    one = Update([MoveRecord(1, 2, 3, 4, 5, 6)]).encode()
    assert _move_records(one) is not None
    assert _move_records(Update([]).encode()) is None  # the keepalive
    assert _move_records(TextChat(1, "x" * 13).encode()) is None
    assert _move_records(one + b"\0") is None  # the header's length disagrees
    assert _move_records(one[:-1]) is None


def test_client_refuses_a_hello_with_must_be_zero_fields_set(tmp_path: Path) -> None:
    from dataclasses import replace

    from savecraft.net.client import ClientError

    async def body() -> None:
        async with running_server(tmp_path) as server:
            assert (await fetch_hello("127.0.0.1", server.tcp_port)).nonzero_reserved() == []
            for field, value in (("features", 1), ("reserved", 0x100)):
                server.world.hello = replace(server.world.hello, **{field: value})
                with pytest.raises(ClientError, match=f"must-be-zero.*{field}"):
                    await fetch_hello("127.0.0.1", server.tcp_port, timeout=5)
                server.world.hello = replace(server.world.hello, **{field: 0})

    run(body)
