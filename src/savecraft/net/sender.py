"""Many datagrams to many addresses: the server's send path.

At 2,000 players the server sends 40,000 datagrams a second, one per player
per tick, each through the event loop's datagram transport (on uvloop, a
``sendto`` from C). A compiled ``sendmmsg`` batch once sent a phase's
datagrams in one system call; measured on phases of 400 to 2,000 datagrams to
20 loopback addresses it was only 1.1-1.3x faster than the transport's path
(uvloop and asyncio, medians of 15 rounds; 1.5 against 2.0 us a datagram at
400, which at 40,000 datagrams a second is 2% of one core), within the 1.5x
that native code must gain to stay (issue 19), so it went: one path, the
transport's, which also keeps the datagrams in order when the socket is full
(it buffers them).
"""

from __future__ import annotations

import asyncio

from .server_session import Address


class DatagramSender:
    """Sends through one datagram transport, counting what it hands over.

    (The transport reports a datagram the kernel refuses to its protocol's
    ``error_received``, which the server counts.)
    """

    __slots__ = ("transport", "sent")

    def __init__(self, transport: asyncio.DatagramTransport) -> None:
        self.transport = transport
        self.sent = 0  # datagrams handed to the transport

    def send(self, datagrams: list[bytes], addresses: list[Address]) -> None:
        """Send ``datagrams[i]`` to ``addresses[i]``, in order."""
        transport = self.transport
        if transport.is_closing():
            return
        self.sent += len(datagrams)
        sendto = transport.sendto
        for datagram, address in zip(datagrams, addresses):
            sendto(datagram, address)


__all__ = ["DatagramSender"]
