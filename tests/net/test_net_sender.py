"""The server's batched send: sendmmsg (compiled) and the transport's path deliver alike."""

from __future__ import annotations

import asyncio
import errno
import socket
from collections.abc import Iterator
from typing import Any

import pytest

from savecraft.net import sender as sender_mod
from savecraft.net.sender import DatagramSender

COMPILED = sender_mod._send_batch
PATHS = [pytest.param(COMPILED, id="sendmmsg",
                      marks=pytest.mark.skipif(COMPILED is None, reason="not compiled")),
         pytest.param(None, id="transport")]


class _Errors(asyncio.DatagramProtocol):
    def __init__(self) -> None:
        self.errors: list[Exception] = []

    def error_received(self, exc: Exception) -> None:
        self.errors.append(exc)


def _receivers(n: int, family: int = socket.AF_INET,
               host: str = "127.0.0.1") -> list[socket.socket]:
    socks = []
    for _ in range(n):
        s = socket.socket(family, socket.SOCK_DGRAM)
        s.bind((host, 0))
        s.settimeout(2.0)
        socks.append(s)
    return socks


def _drain(sock: socket.socket, count: int) -> list[bytes]:
    return [sock.recv(70_000) for _ in range(count)]


@pytest.fixture
def path(request: pytest.FixtureRequest) -> Iterator[Any]:
    sender_mod._send_batch = request.param
    try:
        yield request.param
    finally:
        sender_mod._send_batch = COMPILED


async def _sender(host: str = "127.0.0.1") -> tuple[DatagramSender, _Errors, list[int]]:
    loop = asyncio.get_running_loop()
    errors: list[int] = []
    transport, protocol = await loop.create_datagram_endpoint(_Errors, local_addr=(host, 0))
    return DatagramSender(transport, lambda: errors.append(1)), protocol, errors


@pytest.mark.parametrize("path", PATHS, indirect=True)
def test_every_datagram_reaches_its_address_in_order(path: Any) -> None:
    receivers = _receivers(3)
    addrs = [("127.0.0.1", s.getsockname()[1]) for s in receivers]

    async def body() -> None:
        sender, protocol, errors = await _sender()
        datagrams = [bytes([k]) * (1 + 37 * k) for k in range(30)]
        sender.send(datagrams, [addrs[k % 3] for k in range(30)])
        sender.send([], [])
        await asyncio.sleep(0)
        for r, sock in enumerate(receivers):
            assert _drain(sock, 10) == datagrams[r::3]
        assert not errors and not protocol.errors
        sender.transport.close()

    asyncio.run(body())
    for s in receivers:
        s.close()


@pytest.mark.parametrize("path", PATHS, indirect=True)
def test_a_datagram_the_kernel_refuses_costs_only_itself(path: Any) -> None:
    [receiver] = _receivers(1)
    addr = ("127.0.0.1", receiver.getsockname()[1])

    async def body() -> None:
        sender, protocol, errors = await _sender()
        too_big = b"x" * 70_000  # over UDP's 65,507: EMSGSIZE
        sender.send([b"one", too_big, b"two"], [addr] * 3)
        await asyncio.sleep(0.05)
        assert _drain(receiver, 2) == [b"one", b"two"]
        assert len(errors) + len(protocol.errors) == 1  # reported once, by either path
        sender.transport.close()

    asyncio.run(body())
    receiver.close()


def test_a_full_socket_hands_the_rest_to_the_transport(monkeypatch: pytest.MonkeyPatch) -> None:
    [receiver] = _receivers(1)
    addr = ("127.0.0.1", receiver.getsockname()[1])
    calls: list[int] = []

    def full_after_two(fd: int, datagrams: list[bytes], addresses: list[tuple[str, int]],
                       start: int) -> tuple[int, int]:
        calls.append(start)
        with socket.socket(fileno=socket.dup(fd)) as sock:
            for d, a in zip(datagrams[start:start + 2], addresses[start:start + 2]):
                sock.sendto(d, a)
        return start + 2, errno.EAGAIN

    monkeypatch.setattr(sender_mod, "_send_batch", full_after_two)

    async def body() -> None:
        sender, _, errors = await _sender()
        datagrams = [b"%d" % k for k in range(5)]
        sender.send(datagrams, [addr] * 5)
        await asyncio.sleep(0.05)
        assert _drain(receiver, 5) == datagrams  # none lost, none reordered
        assert calls == [0] and not errors
        sender.transport.close()

    asyncio.run(body())
    receiver.close()


@pytest.mark.skipif(COMPILED is None, reason="not compiled")
def test_ipv6_addresses_and_bad_arguments() -> None:
    assert COMPILED is not None
    try:
        [receiver] = _receivers(1, socket.AF_INET6, "::1")
    except OSError:
        pytest.skip("no IPv6 loopback here")
    out = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    port = receiver.getsockname()[1]
    assert COMPILED(out.fileno(), [b"six"], [("::1", port)], 0) == (1, 0)
    assert receiver.recv(100) == b"six"
    with pytest.raises(ValueError, match="numeric IP"):
        COMPILED(out.fileno(), [b"x"], [("localhost", port)], 0)
    with pytest.raises(TypeError):
        COMPILED(out.fileno(), [b"x"], [["::1", port]], 0)  # type: ignore[list-item]
    with pytest.raises(TypeError):
        COMPILED(out.fileno(), ["text"], [("::1", port)], 0)  # type: ignore[list-item]
    with pytest.raises(ValueError, match="as many"):
        COMPILED(out.fileno(), [b"x", b"y"], [("::1", port)], 0)
    with pytest.raises(ValueError, match="port"):
        COMPILED(out.fileno(), [b"x"], [("::1", 70_000)], 0)
    assert COMPILED(out.fileno(), [b"x"], [("::1", port)], 1) == (1, 0)  # nothing left
    out.close()
    receiver.close()
