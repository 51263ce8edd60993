"""The administration interface (``serve --admin``): TLS, the one allowed address, every
request, moderation while bots play, and bans that outlive a restart."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import pytest

from savecraft import api
from savecraft.formats.tirnanog.save.model import SaveGame
from savecraft.net.admin import AdminAddress
from savecraft.net.admin_client import AdminClient, AdminRequestError
from savecraft.net.certs import default_paths
from savecraft.net.client import ClientError, login
from savecraft.net.packets import ErrorReason
from savecraft.net.server import GameServer
from savecraft.net.state import PlayerStore

from .net_server_support import SPEC, player, run, running_server, sample_world, until


async def ask(server: GameServer, what: str, *, source: str | None = None,
              **params: Any) -> dict[str, Any]:
    """One request from a thread (the client is synchronous; the server runs on this loop)."""
    cafile = str(default_paths(server.store.path)[0])  # the server's own certificate, pinned
    client = AdminClient("127.0.0.1", server.admin.port, cafile=cafile, source=source)
    return await asyncio.get_running_loop().run_in_executor(
        None, lambda: client.request(what, **params))


def test_admin_address_parsing() -> None:
    a = AdminAddress.parse("127.0.0.1:4001")
    assert str(a.allowed) == "127.0.0.1" and a.port == 4001
    assert AdminAddress.parse("127.0.0.1").port is None
    b = AdminAddress.parse("[::1]:9")
    assert str(b.allowed) == "::1" and b.port == 9
    assert AdminAddress.parse("::1").port is None
    assert a.allows("127.0.0.1") and a.allows("::ffff:127.0.0.1") and not a.allows("127.0.0.2")
    for bad in ("localhost", "127.0.0.1:x", "127.0.0.1:70000", "[::1"):
        with pytest.raises(ValueError):
            AdminAddress.parse(bad)


def test_status_and_tng_over_tls_only_for_the_allowed_address(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    async def body() -> None:
        async with running_server(tmp_path) as plain:
            assert plain.admin is None  # without --admin nothing listens
        async with running_server(tmp_path, admin="127.0.0.1:0") as server:
            p = await player(server, "Brigid")
            status = await ask(server, "status")
            assert set(status) == {"now", "uptime", "saved", "users", "total", "reg",
                                   "save_error"}
            assert status["users"] == 1 and status["total"] == 1 and status["reg"] is True
            assert status["saved"] > 0 and status["save_error"] is None
            tng = await ask(server, "tng")
            hello = server.world.hello
            assert tng["gameid"] == hello.game_id and tng["type"] == "ortho"
            assert (tng["tilew"], tng["tileh"], tng["rev"]) == (hello.tile_width,
                                                                hello.tile_height, 0)
            assert tng["mapsize"] == 1 << hello.map_size and tng["id"] == f"{hello.bundle_id:016x}"
            # another loopback address reaches the same socket and gets 404, counted and logged
            with pytest.raises(AdminRequestError) as err:
                await ask(server, "status", source="127.0.0.2")
            assert err.value.status == 404
            with pytest.raises(AdminRequestError) as err:
                await ask(server, "kick", source="127.0.0.2", name="Brigid")
            assert err.value.status == 404 and 1 in server.sessions
            assert server.stats["admin_refused"] == 2
            with pytest.raises(AdminRequestError) as err:
                await ask(server, "nonsense")
            assert err.value.status == 404
            players = await ask(server, "players")
            (row,) = players["players"]
            assert row["name"] == "Brigid" and row["id"] == 1 and row["address"].startswith(
                "127.0.0.1:") and row["datagrams_in"] >= 1
            user = await ask(server, "user", name="brigid")
            assert user["id"] == 1 and user["online"] and "password_hash" not in user["user"]
            assert user["user"]["entity"]["x"] == p.user.entity.x
            assert (await ask(server, "user", id=1))["user"]["name"] == "Brigid"
            with pytest.raises(AdminRequestError) as err:
                await ask(server, "user", id=99)
            assert err.value.status == 404
            await p.logout()

    with caplog.at_level(logging.INFO, logger="savecraft.net.server"):
        run(body)
    assert any("admin" in r.message and "refused=127.0.0.2" in r.message for r in caplog.records)


def test_registration_announce_save_and_shutdown(tmp_path: Path,
                                                 caplog: pytest.LogCaptureFixture) -> None:
    async def body() -> None:
        async with running_server(tmp_path, admin="127.0.0.1:0") as server:
            a = await player(server, "Aoife")
            assert (await ask(server, "registration", open=0)) == {"reg": False}
            with pytest.raises(ClientError) as err:
                await player(server, "Late")
            assert err.value.reason == ErrorReason.REGISTRATION_DISABLED
            await ask(server, "registration", open=1)
            b = await player(server, "Early")
            told = await ask(server, "announce", text="Maintenance at noon")
            assert told["players"] == 2
            assert await until(lambda: (0, "Maintenance at noon") in a.chat_lines
                               and (0, "Maintenance at noon") in b.chat_lines)
            a.move(0, 3, 4)
            assert await until(lambda: server.sessions[1].user.entity.x == 3)
            saved = await ask(server, "save")
            assert saved["save_error"] is None
            on_disk = api.load(server.store.path)
            assert isinstance(on_disk, SaveGame) and on_disk.users[0].entity.x == 3
            answer = await ask(server, "shutdown", delay=0.5, text="Back soon")
            assert answer["shutdown_in"] == 0.5
            assert await until(lambda: (0, "Back soon") in a.chat_lines)
            assert not server.stop_requested.is_set()
            assert await until(server.stop_requested.is_set, timeout=3)
            assert "administrator" in server.stop_reason

    with caplog.at_level(logging.INFO, logger="savecraft.net.server"):
        run(body)
    changes = [r.message for r in caplog.records if r.message.startswith("admin request=")]
    assert [m.split()[1] for m in changes] == [
        "request=registration", "request=registration", "request=announce", "request=shutdown"]


def test_kick_and_ban_bots_while_a_load_test_runs(tmp_path: Path) -> None:
    from savecraft.net.loadtest import run_loadtest

    async def body() -> None:
        async with running_server(tmp_path, admin="127.0.0.1:0") as server:
            load = asyncio.create_task(run_loadtest(
                "127.0.0.1", server.tcp_port, clients=12, rate=5, duration=4, prefix="bot",
                password="load", concurrency=12))
            assert await until(lambda: sum(s.addr is not None
                                           for s in server.sessions.values()) == 12, timeout=15)
            kicked = await ask(server, "kick", name="bot3")
            assert kicked == {"kicked": "bot3", "id": server.store.find("bot3")[0]}  # type: ignore
            banned = await ask(server, "ban", name="bot5")
            assert banned["kicked"] is True
            uid5 = banned["id"]
            assert uid5 not in server.sessions and kicked["id"] not in server.sessions
            # the ban is on disk at once, not at the next timer save
            on_disk = api.load(server.store.path)
            assert isinstance(on_disk, SaveGame) and on_disk.users[uid5 - 1].banned
            await asyncio.sleep(0.5)
            assert len(server.sessions) == 10  # everyone else still plays
            report = await load
            assert report.logged_in == 12 and report.relays_received > 0
            with pytest.raises(ClientError) as err:
                await login("127.0.0.1", server.tcp_port, "bot5", "load")
            assert err.value.reason == ErrorReason.BANNED
            again = await login("127.0.0.1", server.tcp_port, "bot3", "load")  # kicked, not banned
            await again.logout()
            await ask(server, "unban", name="bot5")
            back = await login("127.0.0.1", server.tcp_port, "bot5", "load")
            await back.logout()

    run(body, timeout=60)


def test_address_bans_act_at_once_and_hold_across_a_restart(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_server(tmp_path, admin="127.0.0.1:0") as server:
            far = await login("127.0.0.1", server.tcp_port, "Far", "pw", register=SPEC,
                              source="127.0.0.2")
            far.run(0.02)
            near = await player(server, "Near")
            assert await until(lambda: len(server.sessions) == 2)
            far.move(0, 9, 9)
            assert await until(lambda: 1 in near.players)  # Near sees Far
            answer = await ask(server, "ban", address="127.0.0.2/31")  # 127.0.0.2 and .3
            assert answer["denied"] == ["127.0.0.2", "127.0.0.3"] and answer["kicked"] == ["Far"]
            assert set(server.sessions) == {2}
            assert await until(lambda: 1 not in near.players)  # told by a logout record
            far.chat("still here?")  # its datagrams go nowhere now
            await asyncio.sleep(0.2)
            assert (1, "still here?") not in near.chat_lines
            with pytest.raises(ClientError) as err:
                await login("127.0.0.1", server.tcp_port, "Far", "pw", source="127.0.0.2")
            assert err.value.reason == ErrorReason.ADDRESS_DENIED
            assert PlayerStore(server.store.path, sample_world()).denied("127.0.0.3")  # on disk
            await ask(server, "ban", name="Near")
            assert (await ask(server, "deny"))["deny"] == ["127.0.0.2", "127.0.0.3"]
            far.close()
        # a new server on the same state: both bans hold
        async with running_server(tmp_path, admin="127.0.0.1:0") as server:
            with pytest.raises(ClientError) as err:
                await login("127.0.0.1", server.tcp_port, "Far", "pw", source="127.0.0.2")
            assert err.value.reason == ErrorReason.ADDRESS_DENIED
            with pytest.raises(ClientError) as err:
                await login("127.0.0.1", server.tcp_port, "Near", "pw")
            assert err.value.reason == ErrorReason.BANNED
            assert (await ask(server, "user", name="Near"))["banned"] is True
            await ask(server, "unban", address="127.0.0.2")
            await ask(server, "unban", name="Near")
            ok = await login("127.0.0.1", server.tcp_port, "Far", "pw", source="127.0.0.2")
            await ok.logout()
            ok = await login("127.0.0.1", server.tcp_port, "Near", "pw")
            await ok.logout()
            assert (await ask(server, "deny"))["deny"] == ["127.0.0.3"]

    run(body, timeout=40)


def test_savecraft_admin_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from savecraft.cli import main

    async def body() -> tuple[int, int, int]:
        async with running_server(tmp_path, admin="127.0.0.1:0") as server:
            endpoint = f"127.0.0.1:{server.admin.port}"
            loop = asyncio.get_running_loop()
            ok = await loop.run_in_executor(None, main, ["admin", endpoint, "status"])
            closed = await loop.run_in_executor(
                None, main, ["admin", endpoint, "registration", "open=0"])
            bad = await loop.run_in_executor(None, main, ["admin", endpoint, "kick",
                                                          "name=Nobody"])
            assert server.config.registration_open is False
            return ok, closed, bad

    assert run(body) == (0, 0, 1)  # the server answered and refused: exit 1, as README says
    captured = capsys.readouterr()
    assert '"total": 0' in captured.out and '"reg": false' in captured.out
    assert "the server refused: 404: no user named 'Nobody'" in captured.err
