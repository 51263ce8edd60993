"""The server's answers: hello, bundle, registration and login rules, UDP messages, start-up errors."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import socket
import zlib
from pathlib import Path

import pytest

from savecraft import api
from savecraft.cli import main
from savecraft.formats.tirnanog.game.header import parse_header
from savecraft.formats.tirnanog.save.model import (
    AddressFamily,
    DenyChunk,
    DenyEntry,
    GlobalsChunk,
    InventoryItem,
    QuestsChunk,
    SaveGame,
    UserChunk,
)
from savecraft.net.certs import default_paths
from savecraft.net.client import (
    ClientError,
    describe_bundle,
    discover,
    fetch_bundle,
    fetch_hello,
    login,
)
from savecraft.net.packets import (
    ErrorReason,
    InventoryRecord,
    QuestAction,
    SpritesRecord,
    TextChat,
    VoiceChat,
)
from savecraft.net.server_login import AttemptLimiter, name_problem
from savecraft.net.state import PlayerStore, StateError
from savecraft.net.world import WorldError, load_world

from .support import (
    SPEC,
    player,
    run,
    running_server,
    sample_game_bytes,
    sample_world,
    until,
    write_world,
)


def test_hello_carries_the_world_header_and_the_bundle_its_crc(tmp_path: Path) -> None:
    data = sample_game_bytes()
    header = parse_header(data)

    async def body() -> None:
        async with running_server(tmp_path) as server:
            hello = await fetch_hello("127.0.0.1", server.tcp_port)
            assert hello.encode()[16:56] == data[16:56]
            assert hello.game_id == header.game_id and hello.bundle_id == header.unique_id
            assert (hello.tile_width, hello.map_layers, hello.fps) == (
                header.tile_width, header.map_layers, header.fps)
            first_map = min(e.asset.file_offset for e in _maps(data))
            assert hello.bundle_size == first_map - 64
            _, bundle, downloaded = await fetch_bundle("127.0.0.1", server.tcp_port)
            assert downloaded and bundle == data[64:first_map]
            assert server.world.bundle_crc == zlib.crc32(bundle)
            info = describe_bundle(hello, bundle)
            assert (info.map_count, info.map_size, info.option_counts) == (2, 16, [2])
            reply = await discover("127.0.0.1", server.udp_port)
            assert reply is not None and reply.game_id == header.game_id

    run(body)


def _maps(data: bytes) -> list:  # type: ignore[type-arg]
    from savecraft.formats.tirnanog.game.assets import Source
    from savecraft.formats.tirnanog.game.container import read_game

    game = read_game(Source(data))
    assert game.maps is not None
    return list(game.maps.maps)


def test_registration_builds_the_user_from_the_spec_and_the_world(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_server(tmp_path) as server:
            sess = await player(server, "Brigid", "pw", spec=[1 << 8 | 3, 20, 15, 999, 999])
            user = server.store.users[0]
            assert user.name == "Brigid"
            assert user.password_hash == hashlib.sha256(b"pw").digest()
            assert user.character_options == [1 << 8 | 3]
            # primary attributes as chosen, the variable one at the world's default (10),
            # the calculated one at 0: what the client sent for those is not trusted
            assert user.entity.attributes == [20, 15, 10, 0]
            assert (user.entity.map, user.entity.x, user.entity.y) == (0, 8, 8)
            assert user.created > 0
            # the login OK's world state: exactly this user and no DENY
            state = sess.login.state
            assert [state.magic(i) for i in range(len(state))].count(b"USER") == 1
            assert b"DENY" not in [state.magic(i) for i in range(len(state))]
            assert sess.user.name == "Brigid"
            assert state.of_kind(GlobalsChunk)[0].values == [1, 0]  # the world's defaults
            # the registration was written before the OK
            saved = api.load(tmp_path / "state.sav")
            assert isinstance(saved, SaveGame) and saved.user("Brigid") is not None
            await sess.logout()

    run(body)


@pytest.mark.parametrize("spec, why", [
    ([2 << 8, 20, 15, 0, 0], "option 2 of group 0"),
    ([0, 21, 0, 0, 0], "outside 0..20"),
    ([0, 20, 15, 0], "3 attribute values for 4"),
    ([], "0 values for 1 character options"),
])
def test_bad_character_specs_are_refused(tmp_path: Path, spec: list[int], why: str,
                                         caplog: pytest.LogCaptureFixture) -> None:
    async def body() -> None:
        async with running_server(tmp_path) as server:
            with pytest.raises(ClientError) as err:
                await login("127.0.0.1", server.tcp_port, "Eve", "pw", register=spec)
            assert err.value.reason == ErrorReason.BAD_CHARACTER
            assert server.store.users == []

    with caplog.at_level(logging.INFO, logger="savecraft.net.server"):
        run(body)
    assert any("refuse" in r.message and why in r.message for r in caplog.records)


def test_login_rules(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    async def body() -> None:
        async with running_server(tmp_path, attempts_limit=3) as server:
            port = server.tcp_port
            first = await player(server, "Aoife", "right")
            with pytest.raises(ClientError) as err:
                await login("127.0.0.1", port, "aoife", "other", register=SPEC)
            assert err.value.reason == ErrorReason.NAME_TAKEN  # names compare case-folded
            with pytest.raises(ClientError) as err:
                await login("127.0.0.1", port, "", "pw", register=SPEC)
            assert err.value.reason == ErrorReason.BAD_NAME
            # logging in again replaces the old session, with fresh secrets
            second = await login("127.0.0.1", port, "Aoife", "right")
            assert second.login.token != first.login.token
            assert second.login.otp != first.login.otp
            assert server.sessions[1].token == second.login.token
            second.close()
            server.store.users[0].flags = 1  # banned
            with pytest.raises(ClientError) as err:
                await login("127.0.0.1", port, "Aoife", "right")
            assert err.value.reason == ErrorReason.BANNED
            for name in ("Aoife", "nobody", "Aoife"):
                with pytest.raises(ClientError) as err:
                    await login("127.0.0.1", port, name, "wrong")
                assert err.value.reason == ErrorReason.BAD_CREDENTIALS
            with pytest.raises(ClientError) as err:  # three failures: this address waits
                await login("127.0.0.1", port, "Aoife", "right")
            assert err.value.reason == ErrorReason.TOO_MANY_ATTEMPTS
            first.close()

    with caplog.at_level(logging.INFO, logger="savecraft.net.server"):
        run(body)
    text = "\n".join(r.message for r in caplog.records)
    for reason in ("user name taken", "user name empty", "user is banned", "wrong password",
                   "unknown user name", "too many failed attempts", "reason=logged in again"):
        assert reason in text


def test_denied_addresses_and_closed_registration(tmp_path: Path) -> None:
    world = sample_world()
    store = PlayerStore(tmp_path / "state.sav", world)
    store.save_game.chunks.append(DenyChunk([DenyEntry(AddressFamily.AF_INET, "127.0.0.1")]))
    store.write()

    async def body() -> None:
        async with running_server(tmp_path, world) as server:
            assert server.store.denied("127.0.0.1")
            with pytest.raises(ClientError) as err:
                await login("127.0.0.1", server.tcp_port, "Mallory", "pw", register=SPEC)
            assert err.value.reason == ErrorReason.ADDRESS_DENIED
            assert await discover("127.0.0.1", server.udp_port, timeout=0.6) is None
            assert server.stats["dropped_denied"] >= 1
        (tmp_path / "state.sav").unlink()
        async with running_server(tmp_path, world, registration_open=False) as server:
            with pytest.raises(ClientError) as err:
                await login("127.0.0.1", server.tcp_port, "Mallory", "pw", register=SPEC)
            assert err.value.reason == ErrorReason.REGISTRATION_DISABLED

    run(body)


def test_quests_whois_inventory_maps_and_voice(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_server(tmp_path) as server:
            a = await player(server, "Niamh")
            b = await player(server, "Oisin")
            a.quest(0, QuestAction.ACCEPTED)
            assert await until(lambda: len(a.quests) == 1)
            assert server.store.users[0].entity.quests[0].quest_id == 0
            a.quest(0, QuestAction.COMPLETED)
            assert await until(lambda: len(a.quests) == 2)
            assert server.store.users[0].entity.quests[0].completed
            a.quest(7, QuestAction.ACCEPTED)  # the world has one quest
            await asyncio.sleep(0.2)
            assert server.stats["dropped_bad_quest"] == 1 and len(a.quests) == 2
            server.store.users[1].entity.inventory.append(InventoryItem(3, 42))
            records: list[object] = []
            a.on_record = records.append
            a.whois(2)
            a.inventory(2)
            a.inventory()
            assert await until(lambda: len(records) >= 3)
            sprites = next(r for r in records if isinstance(r, SpritesRecord))
            assert (sprites.user_id, sprites.name, sprites.options) == (2, "Oisin", [1 << 8 | 3])
            inv = {r.user_id: r.items for r in records if isinstance(r, InventoryRecord)}
            assert [(i.quantity, i.object_id) for i in inv[2]] == [(3, 42)]
            assert inv[1] == []
            for m in range(2):
                a.request_map(m)
                assert await until(lambda m=m: m in a.maps)
                assert a.maps[m] == server.world.map_bytes(m)
                assert zlib.decompress(a.maps[m])  # deflated, as in the game file
            got: list[object] = []
            b.on_message = got.append
            a.speak(bytes(range(256)) * 3)
            assert await until(lambda: any(isinstance(m, VoiceChat) for m in got))
            voice = next(m for m in got if isinstance(m, VoiceChat))
            assert voice.speaker_id == 1 and voice.pcm() == bytes(range(256)) * 3
            assert not any(isinstance(m, TextChat) for m in got)
            await a.logout()
            await b.logout()
            # the cached snapshot holds every change the server made
            snap = api.parse(server.store.snapshot())
            assert isinstance(snap, SaveGame)
            assert snap.chunks == server.store.save_game.chunks
            assert snap.users[0].entity.quests[0].completed

    run(body)


def test_big_map_assets_come_in_fragments_and_are_reassembled(tmp_path: Path) -> None:
    world = sample_world()
    big = zlib.compress(bytes(range(256)) * 40, 0)  # ~10 kB: eight fragments
    world.map_asset = lambda i: big
    world._map_cache.clear()

    async def body() -> None:
        async with running_server(tmp_path, world) as server:
            a = await player(server, "Fionn")
            a.request_map(1)
            assert await until(lambda: 1 in a.maps)
            assert a.maps[1] == big
            await a.logout()

    run(body)


def test_start_up_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    world = write_world(tmp_path)
    missing = tmp_path / "nope.tng"
    assert main(["serve", str(missing), "--state", str(tmp_path / "s.sav"), "--port", "0"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "world file not found" in err
    junk = tmp_path / "junk.tng"
    junk.write_bytes(b"#!/usr/bin/tngp\n" + bytes(100))
    assert main(["serve", str(junk), "--state", str(tmp_path / "s.sav"), "--port", "0"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "not a usable TirNanoG world" in err
    bad_state = tmp_path / "bad.sav"
    bad_state.write_bytes(b"not a save at all")
    assert main(["serve", str(world), "--state", str(bad_state), "--port", "0"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "bad.sav" in err
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen()
    try:
        port = busy.getsockname()[1]
        assert main(["serve", str(world), "--state", str(tmp_path / "s2.sav"),
                     "--port", str(port)]) == 2
    finally:
        busy.close()
    err = capsys.readouterr().err.strip().splitlines()
    assert err and f"cannot listen on 127.0.0.1:{port}" in err[-1]
    with pytest.raises(WorldError):
        load_world(tmp_path)
    other = tmp_path / "other.sav"
    other.write_bytes(api.build(SaveGame(game_id="another", chunks=[UserChunk(name="x")])))
    with pytest.raises(StateError, match="saved for world 'another'"):
        PlayerStore(other, sample_world())


def test_missing_state_and_certificate_are_created_and_kept(tmp_path: Path) -> None:
    state = tmp_path / "new.sav"
    store = PlayerStore(state, sample_world())
    assert state.exists() and store.users == []
    saved = api.load(state)
    assert isinstance(saved, SaveGame) and saved.game_id == "tngsample"
    assert saved.chunks.of_kind(QuestsChunk)[0].completers == [-1]

    async def body() -> bytes:
        async with running_server(tmp_path):
            pass
        return default_paths(tmp_path / "state.sav")[0].read_bytes()

    first = run(body)
    assert run(body) == first  # reused on the next start
    cert, key = default_paths(tmp_path / "state.sav")
    assert key.stat().st_mode & 0o777 == 0o600 and b"CERTIFICATE" in cert.read_bytes()


def test_small_rules() -> None:
    limiter = AttemptLimiter(2, 10.0, max_hosts=2)
    limiter.fail("a", 0.0)
    assert not limiter.blocked("a", 1.0)
    limiter.fail("a", 1.0)
    assert limiter.blocked("a", 2.0) and not limiter.blocked("a", 11.5)
    for h in "bcd":
        limiter.fail(h, 0.0)
    assert len(limiter._fails) <= 2  # bounded, whoever asks
    assert name_problem("ok name") is None
    assert name_problem(" padded") and name_problem("x" * 33) and name_problem("bell\a")


def test_the_tick_period_stretches_under_load_and_recovers(tmp_path: Path) -> None:
    import time as _time

    async def body() -> None:
        async with running_server(tmp_path, tick=0.01, max_tick=0.2) as server:
            real = server.tick
            slow = {"on": True}

            def tick(now: float) -> None:
                if slow["on"]:
                    _time.sleep(0.04)  # a tick that takes four times its period
                real(now)

            server.tick = tick  # type: ignore[method-assign]
            await asyncio.sleep(1.0)
            assert 45 <= server.stats["tick_period_max_ms"] <= 200  # stretched from 10 ms
            slow["on"] = False
            await asyncio.sleep(0.6)
            server.stats["tick_period_max_ms"] = 0
            await asyncio.sleep(0.3)
            assert server.stats["tick_period_max_ms"] <= 60  # back near its 10 ms

    run(body)


def test_each_phase_of_the_tick_sends_to_its_own_share_of_the_players(tmp_path: Path) -> None:
    import time as _time

    async def body() -> None:
        async with running_server(tmp_path, phases=3) as server:
            players = [await player(server, name) for name in ("Aoife", "Cian", "Niamh",
                                                               "Fionn", "Oisin")]
            assert await until(lambda: len(server.by_addr) == 5)
            assert sorted(len(g) for g in server.groups) == [1, 2, 2]  # balanced
            assert {a for g in server.groups for a in g} == set(server.by_addr)
            # (no await below: the server's own ticker cannot run in between)
            for sess in server.by_addr.values():
                sess.records.clear()
                sess.add_records([b"\x01\x02\x00\x00\x00"])
            waiting = {s.uid for s in server.by_addr.values()}
            for _ in server.groups:
                group = server._phase
                server.tick(_time.monotonic())
                flushed = {s.uid for s in server.by_addr.values() if not s.records}
                members = {s.uid for s in server.groups[group].values()}
                assert flushed & waiting == members & waiting  # that group, no other
                waiting -= flushed
            assert not waiting  # one tick (every phase once) reached everyone
            gone = players[0].uid
            await players[0].logout()
            assert await until(lambda: all(s.uid != gone for g in server.groups
                                           for s in g.values()))
            for p in players[1:]:
                await p.logout()

    run(body)


def test_a_logout_is_acknowledged_so_the_client_need_not_resend_it(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_server(tmp_path) as server:
            a = await player(server, "Aoife")
            assert await until(lambda: len(server.by_addr) == 1)
            [addr] = server.by_addr
            loop = asyncio.get_running_loop()
            t0 = loop.time()
            await a.logout(linger=2.0)  # returns once the logout is acknowledged
            assert loop.time() - t0 < 0.3  # (a resend would come after 0.4 s)
            assert not a.netq.in_flight and a.netq.stats.resent == 0
            assert not server.sessions
            await asyncio.sleep(0.1)
            assert server.stats["dropped_unknown_peer"] == 0
            # what a client sends after its logout is told apart from strangers' datagrams
            straggler = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            straggler.bind(addr)  # the port the client had
            straggler.sendto(b"\x01" * 12, ("127.0.0.1", server.udp_port))
            assert await until(lambda: server.stats["dropped_after_logout"] == 1)
            assert server.stats["dropped_unknown_peer"] == 0
            straggler.close()

    run(body)
