"""The server's send path: every datagram to its address, in order; a refused one costs only itself."""

from __future__ import annotations

import asyncio
import socket

from savecraft.net.sender import DatagramSender


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


async def _sender(host: str = "127.0.0.1") -> tuple[DatagramSender, _Errors]:
    loop = asyncio.get_running_loop()
    transport, protocol = await loop.create_datagram_endpoint(_Errors, local_addr=(host, 0))
    return DatagramSender(transport), protocol


def test_every_datagram_reaches_its_address_in_order() -> None:
    receivers = _receivers(3)
    addrs = [("127.0.0.1", s.getsockname()[1]) for s in receivers]

    async def body() -> None:
        sender, protocol = await _sender()
        datagrams = [bytes([k]) * (1 + 37 * k) for k in range(30)]
        sender.send(datagrams, [addrs[k % 3] for k in range(30)])
        sender.send([], [])
        await asyncio.sleep(0)
        for r, sock in enumerate(receivers):
            assert _drain(sock, 10) == datagrams[r::3]
        assert not protocol.errors and sender.sent == 30
        sender.transport.close()

    asyncio.run(body())
    for s in receivers:
        s.close()


def test_a_datagram_the_kernel_refuses_costs_only_itself() -> None:
    [receiver] = _receivers(1)
    addr = ("127.0.0.1", receiver.getsockname()[1])

    async def body() -> None:
        sender, protocol = await _sender()
        too_big = b"x" * 70_000  # over UDP's 65,507: EMSGSIZE
        sender.send([b"one", too_big, b"two"], [addr] * 3)
        await asyncio.sleep(0.05)
        assert _drain(receiver, 2) == [b"one", b"two"]
        assert len(protocol.errors) == 1  # reported once, to the protocol
        sender.transport.close()

    asyncio.run(body())
    receiver.close()
