"""Faults: garbage on TCP and UDP, replayed and wrongly encrypted datagrams, vanishing and
non-acknowledging clients, and loss plus reordering injected under NetQ."""

from __future__ import annotations

import asyncio
import logging
import random
import ssl
import struct
from pathlib import Path
from typing import Any

import pytest

from savecraft.formats.tirnanog.save.model import UserChunk
from savecraft.net.certs import client_context
from savecraft.net.client import ClientError, login
from savecraft.net.crypto import SessionCipher, new_token, plain_datagram
from savecraft.net.netq import NetQ
from savecraft.net.packets import ErrorReason, LogoutRecord, Move, TextChat, UdpHello
from savecraft.net.server_session import MAX_RECORDS, Session

from .support import SPEC, player, run, running_server, until


async def _udp(port: int) -> tuple[asyncio.DatagramTransport, list[bytes]]:
    got: list[bytes] = []

    class P(asyncio.DatagramProtocol):
        def datagram_received(self, data: bytes, addr: Any) -> None:
            got.append(data)

    loop = asyncio.get_running_loop()
    t, _ = await loop.create_datagram_endpoint(P, remote_addr=("127.0.0.1", port))
    return t, got


def test_garbage_on_tcp_and_udp_disturbs_nobody(tmp_path: Path,
                                                caplog: pytest.LogCaptureFixture) -> None:
    async def body() -> None:
        async with running_server(tmp_path, handshake_timeout=0.5) as server:
            a = await player(server, "Ronan")
            b = await player(server, "Eabha")
            port = server.tcp_port
            rng = random.Random(5)
            # not TLS at all
            r, w = await asyncio.open_connection("127.0.0.1", port)
            w.write(bytes(rng.randrange(256) for _ in range(300)))
            await w.drain()
            assert await asyncio.wait_for(r.read(), 5) == b""
            w.close()
            # TLS, then garbage where the hello should be; then a hello and a bad request
            for junk in (b"\xff\xff" + bytes(40), b"\x08\x01\x00\x00TNGP" + b"\x41" * 60):
                r, w = await asyncio.open_connection("127.0.0.1", port, ssl=client_context(),
                                                     server_hostname="localhost")
                w.write(junk)
                await w.drain()
                await asyncio.wait_for(r.read(), 5)
                w.close()
            # a connection that says nothing is dropped after the handshake timeout
            r, w = await asyncio.open_connection("127.0.0.1", port, ssl=client_context(),
                                                 server_hostname="localhost")
            assert await asyncio.wait_for(r.read(), 5) == b""
            w.close()
            # Both junk messages are refused from their header; only the silent one times out.
            assert server.stats["tcp_malformed"] >= 2 and server.stats["tcp_timeout"] >= 1
            # UDP garbage from a stranger, an oversized datagram, a hello with a wrong OTP
            t, _ = await _udp(server.udp_port)
            for n in (1, 5, 6, 7, 100, 1400):
                t.sendto(bytes(rng.randrange(256) for _ in range(n)))
            t.sendto(bytes(1500))
            t.sendto(plain_datagram(UdpHello(b"12345678")))
            t.sendto(b"Hi\0\0\0\0" + b"\x01\x02\x03")
            # garbage from a logged-in player's own address
            for n in (3, 40, 100, 1400):
                a.send_raw(bytes(rng.randrange(256) for _ in range(n)))
            await asyncio.sleep(0.3)
            s = server.stats
            assert s["dropped_oversized"] == 1 and s["dropped_bad_otp"] == 1
            assert s["dropped_unknown_peer"] >= 5 and s["dropped_malformed"] >= 1
            # each fails NetQ's checks, or decodes to nothing, or (by the luck of the XOR)
            # looks like a datagram already delivered
            assert s["dropped_undecryptable"] + s["dropped_malformed"] \
                + s["dropped_duplicate"] >= 4
            # everyone still plays
            a.chat("still here")
            assert await until(lambda: (1, "still here") in b.chat_lines)
            assert set(server.sessions) == {1, 2}
            t.close()
            await a.logout()
            await b.logout()

    with caplog.at_level(logging.INFO, logger="savecraft.net.server"):
        run(body)
    assert any("refuse" in r.message and "malformed handshake" in r.message
               for r in caplog.records)
    assert any("handshake timed out" in r.message for r in caplog.records)


def test_a_hello_replayed_from_another_address_is_counted_as_such(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_server(tmp_path) as server:
            a = await player(server, "Cliodhna")
            assert a.login is not None
            t, got = await _udp(server.udp_port)  # another port: another address
            t.sendto(plain_datagram(UdpHello(a.login.otp)))
            t.sendto(plain_datagram(UdpHello(b"87654321")))
            assert await until(lambda: server.stats["dropped_bad_otp"] == 1)
            await asyncio.sleep(0.1)
            assert server.stats["dropped_replayed_hello"] == 1 and got == []
            assert server.sessions[1].addr != t.get_extra_info("sockname")
            t.close()
            await a.logout()

    run(body)


def test_replayed_and_wrongly_encrypted_datagrams_are_dropped(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_server(tmp_path) as server:
            a = await player(server, "Saoirse")
            b = await player(server, "Darragh")
            sent: list[bytes] = []
            assert a._transport is not None
            real = a._transport.sendto
            a._transport.sendto = lambda d, *x: (sent.append(d), real(d, *x))  # type: ignore
            a.chat("once")
            assert await until(lambda: (1, "once") in b.chat_lines)
            chat = [d for d in sent if len(d) > 6][-1]
            for _ in range(3):
                real(chat)  # replayed: the same encrypted datagram again
            # a well-formed NetQ datagram, encrypted with the wrong token
            other = NetQ()
            forged = SessionCipher(new_token()).apply(other.send(TextChat(0, "forged").encode(),
                                                                 0.0)[0])
            real(forged)
            # the right token, but a sequence number far outside the window
            real(SessionCipher(a.login.token).apply(b"\x00\x40\xff\xff\x00\x00" +
                                                    TextChat(0, "late").encode()))
            await asyncio.sleep(0.3)
            # the replays are duplicates; the forged ones fail NetQ's checks, or (by the luck of
            # the XOR) look like old sequence numbers: dropped either way
            assert server.stats["dropped_duplicate"] >= 3
            assert server.stats["dropped_undecryptable"] >= 1
            assert server.stats["dropped_duplicate"] + server.stats["dropped_undecryptable"] >= 5
            assert [t for u, t in b.chat_lines if u == 1] == ["once"]
            a.chat("twice")
            assert await until(lambda: (1, "twice") in b.chat_lines)
            await a.logout()
            await b.logout()

    run(body)


def test_vanishing_clients_are_logged_out(tmp_path: Path,
                                          caplog: pytest.LogCaptureFixture) -> None:
    async def body() -> None:
        async with running_server(tmp_path, timeout=0.6, keepalive=0.1,
                                  login_pending=0.4) as server:
            a = await player(server, "Cian")
            b = await player(server, "Brigid")
            records: list[object] = []
            a.on_record = records.append
            b.close()  # vanishes: no logout, no more datagrams
            assert await until(lambda: 2 not in server.sessions, timeout=3)
            assert await until(lambda: any(isinstance(r, LogoutRecord) and r.user_id == 2
                                           for r in records))
            # logged in over TCP but never said hello on UDP
            c = await login("127.0.0.1", server.tcp_port, "Aoife", "pw", register=SPEC,
                            start=False)
            assert 3 in server.sessions
            assert await until(lambda: 3 not in server.sessions, timeout=3)
            c.close()
            await a.logout()

    with caplog.at_level(logging.INFO, logger="savecraft.net.server"):
        run(body)
    text = "\n".join(r.message for r in caplog.records)
    assert "user='Brigid' id=2 reason=silent for 0.6 s" in text
    assert "user='Aoife' id=3 reason=no UDP hello within 0.4 s" in text


def test_a_client_that_never_acknowledges_is_dropped(tmp_path: Path,
                                                     caplog: pytest.LogCaptureFixture) -> None:
    async def body() -> None:
        async with running_server(tmp_path, timeout=4.0, max_queue=4) as server:
            a = await player(server, "Cian")
            d = await login("127.0.0.1", server.tcp_port, "Fionn", "pw", register=SPEC,
                            start=False)
            t, got = await _udp(server.udp_port)
            t.sendto(plain_datagram(UdpHello(d.login.otp)))
            assert await until(lambda: server.sessions.get(2) is not None
                               and server.sessions[2].addr is not None)
            cipher = SessionCipher(d.login.token)
            for k in range(80):
                a.move(0, k % 16, 1)
                # Fionn talks (so he is not silent) but acknowledges nothing
                t.sendto(cipher.apply(struct.pack("<HHH", k, 0xFFFF, 0)
                                      + Move(0, k % 16, 9).encode()))
                await asyncio.sleep(0.02)
                if 2 not in server.sessions:
                    break
            assert 2 not in server.sessions
            # what reached Fionn stayed within NetQ's window: resent, never more
            seqs = {struct.unpack_from("<H", cipher.apply(g))[0] for g in got[1:] if len(g) > 6}
            assert 0 < len(seqs) <= server.config.window
            t.close()
            await a.logout()

    with caplog.at_level(logging.INFO, logger="savecraft.net.server"):
        run(body)
    assert any("user='Fionn' id=2 reason=too far behind (send queue full)" in r.message
               for r in caplog.records)


def test_a_client_that_talks_but_never_acknowledges_times_out(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    async def body() -> None:
        async with running_server(tmp_path, timeout=2.5, resend=0.2) as server:
            a = await player(server, "Cian")
            d = await login("127.0.0.1", server.tcp_port, "Fionn", "pw", register=SPEC,
                            start=False)
            t, _ = await _udp(server.udp_port)
            t.sendto(plain_datagram(UdpHello(d.login.otp)))
            assert await until(lambda: server.sessions.get(2) is not None
                               and server.sessions[2].addr is not None)
            cipher = SessionCipher(d.login.token)
            for k in range(200):  # 4 s: resends (backing off to 2 s apart) must not keep him in
                a.move(0, k % 16, 1)
                t.sendto(cipher.apply(struct.pack("<HHH", k, 0xFFFF, 0)
                                      + Move(0, k % 16, 9).encode()))
                await asyncio.sleep(0.02)
                if 2 not in server.sessions:
                    break
            assert 2 not in server.sessions
            t.close()
            await a.logout()

    with caplog.at_level(logging.INFO, logger="savecraft.net.server"):
        run(body)
    assert any("user='Fionn' id=2 reason=no acknowledgement for 2.5 s" in r.message
               for r in caplog.records)


def test_a_session_holds_a_bounded_backlog() -> None:
    sess = Session(1, UserChunk(), bytes(256), bytes(8), SessionCipher(bytes(256)), NetQ(), "h")
    for _ in range(MAX_RECORDS + 10):
        sess.add_records([b"\x01\x02\x00\x00\x00"])
    assert len(sess.records) == MAX_RECORDS and sess.overflow == 10
    out = sess.outgoing()
    assert all(len(m) <= 1394 for m in out) and len(out) == -(-MAX_RECORDS * 5 // 1392)
    assert sess.records == []


class LossyLink:
    """A UDP relay between one client and the server that drops and delays (reorders)."""

    def __init__(self, target: tuple[str, int], loss: float, jitter: float, seed: int) -> None:
        self.target = target
        self.loss = loss
        self.jitter = jitter
        self.rng = random.Random(seed)
        self.client: Any = None
        self.dropped = 0
        self.passed = 0

    async def start(self) -> int:
        loop = asyncio.get_running_loop()
        link = self

        class Down(asyncio.DatagramProtocol):
            def datagram_received(self, data: bytes, addr: Any) -> None:
                link.client = addr
                link._later(lambda: link.up.sendto(data))

        class Up(asyncio.DatagramProtocol):
            def datagram_received(self, data: bytes, addr: Any) -> None:
                if link.client is not None:
                    link._later(lambda: link.down.sendto(data, link.client))

        self.down, _ = await loop.create_datagram_endpoint(Down, local_addr=("127.0.0.1", 0))
        self.up, _ = await loop.create_datagram_endpoint(Up, remote_addr=self.target)
        return int(self.down.get_extra_info("sockname")[1])

    def _later(self, send: Any) -> None:
        if self.rng.random() < self.loss:
            self.dropped += 1
            return
        self.passed += 1
        asyncio.get_running_loop().call_later(self.rng.uniform(0, self.jitter), send)

    def close(self) -> None:
        self.down.close()
        self.up.close()


def test_loss_and_reordering_under_netq(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_server(tmp_path, timeout=5.0) as server:
            links = [LossyLink(("127.0.0.1", server.udp_port), 0.2, 0.04, seed) for seed in (1, 2)]
            ports = [await link.start() for link in links]
            a = await login("127.0.0.1", server.tcp_port, "Aoife", "pw", register=SPEC,
                            udp_port=ports[0])
            b = await login("127.0.0.1", server.tcp_port, "Oisin", "pw", register=SPEC,
                            udp_port=ports[1])
            a.run(0.02)
            b.run(0.02)
            lines = [f"line {k}" for k in range(30)]
            for k, text in enumerate(lines):
                a.chat(text)
                a.move(0, k % 16, 5)
                await asyncio.sleep(0.01)
            assert await until(lambda: len(b.chat_lines) >= 30, timeout=15)
            assert [t for _, t in b.chat_lines] == lines  # all, once each, in order
            assert await until(lambda: b.players.get(1) is not None
                               and b.players[1].x == 29 % 16, timeout=10)
            assert all(link.dropped > 0 for link in links)
            assert a.netq.stats.resent > 0 and server.sessions[1].netq.stats.reordered >= 0
            assert b.netq.stats.reordered + server.sessions[1].netq.stats.reordered > 0
            await a.logout(linger=1.0)
            await b.logout(linger=1.0)
            for link in links:
                link.close()

    run(body, timeout=40)


def test_tls_is_required_on_tcp(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_server(tmp_path) as server:
            ctx = ssl.create_default_context()  # verifying: the self-signed cert is not trusted
            with pytest.raises(ClientError, match="cannot connect"):
                await login("127.0.0.1", server.tcp_port, "X", "pw", register=SPEC, tls=ctx)
            from savecraft.net.certs import default_paths
            pinned = client_context(default_paths(tmp_path / "state.sav")[0])
            sess = await login("127.0.0.1", server.tcp_port, "X", "pw", register=SPEC, tls=pinned)
            await sess.logout()

    run(body)


def test_unencodable_answers_and_failed_writes_are_contained(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_server(tmp_path) as server:
            a = await player(server, "Aoife")
            b = await player(server, "Oisin")
            server.store.users[1].name = "x" * 2000  # a saved name no datagram can carry
            a.whois(2)
            assert await until(lambda: server.stats["dropped_unanswerable"] == 1)
            a.chat("fine")
            assert await until(lambda: (1, "fine") in b.chat_lines)

            def full(data: bytes | None = None) -> int:
                raise OSError(28, "No space left on device")

            server.store.write = full  # type: ignore[method-assign]
            with pytest.raises(ClientError) as err:
                await login("127.0.0.1", server.tcp_port, "Ciara", "pw", register=SPEC)
            assert err.value.reason == ErrorReason.SERVER_ERROR
            await a.logout()
            await b.logout()
            del server.store.write  # the real one again, for the final save

    run(body)


def test_a_tick_sends_within_its_budget_and_the_next_one_catches_up(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_server(tmp_path, send_budget=1, phases=1) as server:
            players = [await player(server, name) for name in ("Aoife", "Cian", "Niamh")]
            for k, p in enumerate(players):
                p.chat(f"from {k}")
            for k, p in enumerate(players):
                others = {f"from {j}" for j in range(3) if j != k}
                assert await until(lambda o=others, q=p: o <= {t for _, t in q.chat_lines})
            assert server.stats["ticks_over_budget"] > 0
            for p in players:
                await p.logout()

    run(body)


def test_a_client_whose_server_falls_silent_gives_up(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_server(tmp_path) as server:
            a = await login("127.0.0.1", server.tcp_port, "Aoife", "pw", register=SPEC)
            a.server_timeout = 0.5
            a.run(0.02)
            await asyncio.sleep(0.2)
            assert not a.lost
            assert server._udp is not None
            server._udp.pause_reading()  # the server hears nothing more and says nothing
            server.by_addr.clear()
            for group in server.groups:
                group.clear()
            assert await until(lambda: a.lost and a.logged_out, timeout=3)
            server._udp.resume_reading()

    run(body)


def test_resends_back_off_while_unacknowledged_and_reset_on_progress() -> None:
    from savecraft.net.backoff import MAX_TIMEOUT, ResendBackoff

    a, b = NetQ(resend_timeout=0.4), NetQ()
    backoff = ResendBackoff(a)
    first = a.send(TextChat(0, "x").encode(), 0.0)
    backoff.update(a)
    assert a.resend_timeout == 0.4
    now = 0.0
    for expected in (0.8, 1.6, MAX_TIMEOUT, MAX_TIMEOUT):
        now += a.resend_timeout
        assert a.flush(now)  # resent: the peer is silent
        backoff.update(a)
        assert a.resend_timeout == expected
    b.receive(first[0], now)
    a.receive(b.flush(now)[0], now)  # the acknowledgement
    backoff.update(a)
    assert a.resend_timeout == 0.4 and a.in_flight == 0


def test_one_address_cannot_hold_every_handshake_slot(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_server(tmp_path, max_handshakes_per_address=2) as server:
            idle = []
            for _ in range(2):  # two connections that say nothing
                idle.append(await asyncio.open_connection(
                    "127.0.0.1", server.tcp_port, ssl=client_context(),
                    server_hostname="localhost"))
            await asyncio.sleep(0.1)
            with pytest.raises(ClientError):
                await login("127.0.0.1", server.tcp_port, "Aoife", "pw", register=SPEC,
                            timeout=3)
            assert server.stats["tcp_busy"] >= 1
            for _, w in idle:
                w.close()
            await asyncio.sleep(0.2)
            sess = await login("127.0.0.1", server.tcp_port, "Aoife", "pw", register=SPEC)
            await sess.logout()

    run(body)
