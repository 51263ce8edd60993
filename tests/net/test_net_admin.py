"""The administration interface (``serve --admin``): TLS, the one allowed address, operators'
tokens and roles, every request, moderation while bots play, and bans that outlive a restart."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import pytest

from savecraft import api
from savecraft.formats.tirnanog.save.model import SaveGame
from savecraft.net.admin import REQUIRED_ROLE, AdminAddress
from savecraft.net.admin_client import AdminClient, AdminRequestError
from savecraft.net.certs import default_paths
from savecraft.net.client import ClientError, login
from savecraft.net.operators import ROLES, Operators, default_path, save
from savecraft.net.packets import ErrorReason
from savecraft.net.server import GameServer
from savecraft.net.state import PlayerStore

from .support import SPEC, player, run, running_server, sample_world, until


_TOKENS: dict[Path, dict[str, str]] = {}  # by state file: each role's operator's token


def operators(folder: Path) -> dict[str, str]:
    """One operator per role (``read``, ``moderator``, ``admin``) in STATE.operators; their tokens.

    Made before the server starts, as ``savecraft operators ... add`` would.
    """
    folder.mkdir(parents=True, exist_ok=True)
    state = folder / "state.sav"
    if state not in _TOKENS:
        ops = Operators()
        names = {"read-only": "read", "moderator": "moderator", "administrator": "admin"}
        _TOKENS[state] = {role: ops.add(names[role], role) for role in ROLES}
        save(default_path(state), ops)
    return _TOKENS[state]


async def ask(server: GameServer, what: str, *, source: str | None = None,
              role: str | None = "administrator", token: str | None = None,
              **params: Any) -> dict[str, Any]:
    """One request from a thread (the client is synchronous; the server runs on this loop).

    As the operator of ``role`` (None: no token at all) unless ``token`` is given.
    """
    cafile = str(default_paths(server.store.path)[0])  # the server's own certificate, pinned
    if token is None and role is not None:
        token = _TOKENS[Path(server.store.path)][role]
    client = AdminClient("127.0.0.1", server.admin.port, cafile=cafile, source=source,
                         token=token)
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
        operators(tmp_path)
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
        operators(tmp_path)
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
        operators(tmp_path)
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
        operators(tmp_path)
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
        operators(tmp_path)
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


def test_savecraft_admin_command(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from savecraft.cli import main

    tokens = operators(tmp_path)
    token_file = tmp_path / "moderator.token"
    token_file.write_text(tokens["moderator"] + "\n")

    async def body() -> tuple[int, ...]:
        async with running_server(tmp_path, admin="127.0.0.1:0") as server:
            endpoint = f"127.0.0.1:{server.admin.port}"
            loop = asyncio.get_running_loop()

            def cli(*argv: str) -> int:
                return main(["admin", endpoint, *argv])

            monkeypatch.delenv("SAVECRAFT_ADMIN_TOKEN", raising=False)
            anonymous = await loop.run_in_executor(None, cli, "status")
            monkeypatch.setenv("SAVECRAFT_ADMIN_TOKEN", tokens["administrator"])
            ok = await loop.run_in_executor(None, cli, "status")
            closed = await loop.run_in_executor(None, cli, "registration", "open=0")
            bad = await loop.run_in_executor(None, cli, "kick", "name=Nobody")
            # --token-file wins over the environment: the moderator may not close registration
            forbidden = await loop.run_in_executor(
                None, cli, "registration", "open=1", "--token-file", str(token_file))
            missing = await loop.run_in_executor(
                None, cli, "status", "--token-file", str(tmp_path / "nowhere"))
            assert server.config.registration_open is False
            return anonymous, ok, closed, bad, forbidden, missing

    assert run(body) == (1, 0, 0, 1, 1, 2)  # the server answered and refused: exit 1
    captured = capsys.readouterr()
    assert '"total": 0' in captured.out and '"reg": false' in captured.out
    err = captured.err.splitlines()
    assert len(err) == 4, err  # one line each
    assert "401" in err[0] and "SAVECRAFT_ADMIN_TOKEN" in err[0]
    assert "the server refused: 404: no user named 'Nobody'" in err[1]
    assert "403: registration needs the role administrator or above (moderator is moderator)" \
        in err[2]
    assert "nowhere: cannot read" in err[3]


# -- operators, tokens and roles -----------------------------------------------------------

def test_each_request_needs_a_token_and_the_least_role_it_maps_to(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Every request kind by every kind of caller: refused as 404 (address), 401 (no or an
    unknown token), 403 (role too low); the refusals are counted by kind and logged."""
    tokens = operators(tmp_path)
    refused: dict[str, int] = {}

    async def body() -> None:
        async with running_server(tmp_path, admin="127.0.0.1:0") as server:
            await player(server, "Brigid")

            async def status_of(what: str, **kw: Any) -> int:
                try:
                    await ask(server, what, **kw)
                except AdminRequestError as err:
                    kind = {404: "address or unknown", 401: "no or unknown token",
                            403: "role too low"}.get(err.status, str(err.status))
                    refused[kind] = refused.get(kind, 0) + 1
                    return err.status
                return 200

            for path, needed in REQUIRED_ROLE.items():
                what = path[1:]
                # another address, even with the administrator's token: 404, as before
                assert await status_of(what, source="127.0.0.2") == 404
                assert await status_of(what, role=None) == 401  # no token
                assert await status_of(what, token="sco_" + "A" * 43) == 401  # unknown token
                assert await status_of(what, token=tokens["administrator"] + "x") == 401
                for role in ROLES:  # a role below the request's: 403; the others are let in
                    if ROLES.index(role) < ROLES.index(needed):
                        assert await status_of(what, role=role, name="Brigid") == 403
                    elif needed == "read-only":
                        assert await status_of(what, role=role, name="Brigid") == 200
            # the least roles that may change things do (a moderator kicks; an administrator
            # closes registration)
            assert (await ask(server, "kick", role="moderator", name="Brigid"))["id"] == 1
            assert await ask(server, "registration", open=0) == {"reg": False}
            assert server.stats["admin_refused"] == 12
            assert server.stats["admin_unauthorized"] == 36
            assert server.stats["admin_forbidden"] == 5 * 1 + 2 * 2  # moderator's, admin's
            assert not server.sessions

    with caplog.at_level(logging.INFO, logger="savecraft.net.server"):
        run(body)
    print("refused requests by kind:", refused)
    assert refused == {"address or unknown": 12, "no or unknown token": 36, "role too low": 9}
    lines = [r.getMessage() for r in caplog.records]
    assert any(m.startswith("admin access op=moderator role=moderator addr=127.0.0.1 "
                            "request=/kick status=200") for m in lines), lines
    assert any(m.startswith("admin access op=read role=read-only addr=127.0.0.1 "
                            "request=/shutdown status=403") for m in lines)
    assert any(m.startswith("admin request=kick by=moderator") for m in lines)
    assert sum("reason=no token" in m for m in lines) == 12
    assert sum("reason=unknown token" in m for m in lines) == 24
    for token in tokens.values():  # a token is never written to the log
        assert not any(token in m for m in lines)


def test_operators_file_is_hashed_0600_and_read_again_when_it_changes(tmp_path: Path) -> None:
    tokens = operators(tmp_path)
    path = default_path(tmp_path / "state.sav")
    assert path.stat().st_mode & 0o777 == 0o600
    text = path.read_text()
    assert all(t not in text for t in tokens.values()) and [
        ln.split()[2][:7] for ln in text.splitlines() if not ln.startswith("#")] == ["sha256:"] * 3

    async def body() -> None:
        async with running_server(tmp_path, admin="127.0.0.1:0") as server:
            assert (await ask(server, "status", role="moderator"))["users"] == 0
            ops = Operators.parse(path.read_text())
            assert ops.remove("moderator")
            save(path, ops)  # as `savecraft operators FILE remove moderator` does
            with pytest.raises(AdminRequestError) as err:
                await ask(server, "status", role="moderator")
            assert err.value.status == 401
            path.chmod(0o644)  # a file others may read: everyone refused (fail closed)
            with pytest.raises(AdminRequestError) as err:
                await ask(server, "status")
            assert err.value.status == 401
            path.chmod(0o600)
            assert (await ask(server, "status"))["users"] == 0

    run(body)


def test_a_malformed_request_is_one_counted_line_not_a_traceback(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    import ssl

    operators(tmp_path)

    async def body() -> None:
        async with running_server(tmp_path, admin="127.0.0.1:0",
                                  metrics="127.0.0.1:0") as server:
            tls = ssl.create_default_context()
            tls.check_hostname = False
            tls.verify_mode = ssl.CERT_NONE
            for source in ("127.0.0.1", "127.0.0.2"):  # from anyone
                for raw in (b"GET /status HTTP/1.1\r\nHost: x\r\nX: \x01bad\r\n\r\n",
                            b"GET /status HTTP/9\r\n\r\n"):
                    r, w = await asyncio.open_connection("127.0.0.1", server.admin.port,
                                                         ssl=tls, local_addr=(source, 0))
                    w.write(raw)
                    await w.drain()
                    answer = await asyncio.wait_for(r.read(), 5)
                    assert answer.startswith(b"HTTP/1.") and b" 400 " in answer[:20]
                    w.close()
            assert await until(lambda: server.stats["admin_malformed"] == 4)
            from prometheus_client import generate_latest

            text = generate_latest(server.metrics.registry).decode()
            assert 'savecraft_events_total{event="admin_malformed"} 4.0' in text

    with caplog.at_level(logging.INFO):
        run(body)
    assert "Traceback" not in caplog.text and not any(r.exc_info for r in caplog.records)
    malformed = [r.getMessage() for r in caplog.records
                 if r.getMessage().startswith("admin malformed")]
    assert len(malformed) == 4 and all("\n" not in m for m in malformed)
    assert any("addr=127.0.0.2" in m for m in malformed)


def test_serve_with_admin_needs_operators(tmp_path: Path) -> None:
    import subprocess
    import sys

    from .support import free_port, write_world

    world = write_world(tmp_path)
    state = tmp_path / "state.sav"
    base = [sys.executable, "-m", "savecraft", "serve", str(world), "--state", str(state),
            "--port", str(free_port()), "--admin", "127.0.0.1:0"]
    out = subprocess.run(base, capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and len(out.stderr.splitlines()) == 1, out.stderr
    assert "no operators file" in out.stderr and "savecraft operators" in out.stderr
    ops_file = tmp_path / "state.sav.operators"
    ops_file.write_text("admin administrator sha256:" + "0" * 64 + "\n")
    ops_file.chmod(0o640)
    out = subprocess.run(base, capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "chmod 600" in out.stderr and len(out.stderr.splitlines()) == 1


def test_operators_command_as_users_run_it(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    ops = tmp_path / "server.sav.operators"

    def cli(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "savecraft", "operators", str(ops), *argv],
                              capture_output=True, text=True, timeout=60,
                              preexec_fn=lambda: os.umask(0o022))

    added = cli("add", "brigid", "--role", "administrator")
    assert added.returncode == 0, added.stderr
    token = added.stdout.strip()
    assert token.startswith("sco_") and len(token) >= 4 + 43 and "shown once" in added.stderr
    assert ops.stat().st_mode & 0o777 == 0o600 and token not in ops.read_text()
    to_file = cli("add", "aoife", "--role", "read-only", "--token-file", str(tmp_path / "a.tok"))
    assert to_file.returncode == 0 and "sco_" not in to_file.stdout
    assert (tmp_path / "a.tok").stat().st_mode & 0o777 == 0o600
    assert cli("list").stdout == "brigid\tadministrator\naoife\tread-only\n"
    again = cli("add", "brigid", "--role", "moderator")
    assert again.returncode == 2 and "an operator already" in again.stderr
    assert cli("add", "x y", "--role", "moderator").returncode == 2
    assert cli("add", "cara").returncode == 2  # no --role
    removed = cli("remove", "brigid")
    assert removed.returncode == 0 and cli("list").stdout == "aoife\tread-only\n"
    assert cli("remove", "brigid").returncode == 1
    assert load_ops(ops).find(token) is None
    quiet = cli("add", "dara", "--role", "moderator", "-q")  # -q, as every other writer takes
    assert quiet.returncode == 0 and quiet.stdout.startswith("sco_") and not quiet.stderr
    gone = cli("remove", "dara", "--quiet")
    assert gone.returncode == 0 and not gone.stdout and not gone.stderr


def load_ops(path: Path) -> Operators:
    from savecraft.net.operators import load

    return load(path)
