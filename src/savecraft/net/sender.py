"""Many datagrams to many addresses in one call: the server's send path.

At 2,000 players the server sends 40,000 datagrams a second, one per player
per tick. Through the event loop's transport each is a Python call, an
address conversion and a ``sendto`` system call. With the compiled helper
(``savecraft._speedups.send_datagrams``, Linux) a phase's datagrams go in
``sendmmsg`` batches straight to the socket, with the GIL released. Without
it, or whenever the transport is holding datagrams of its own (its socket
was full), every datagram takes the transport's path, so none overtakes
another.
"""

from __future__ import annotations

import asyncio
import errno
from collections.abc import Callable

from ..compiled import speedups
from .server_session import Address

SendBatch = Callable[[int, list[bytes], list[Address], int], tuple[int, int]]

_send_batch: SendBatch | None = getattr(speedups, "send_datagrams", None)


class DatagramSender:
    """Sends through one datagram transport; ``on_error`` hears of each datagram refused.

    (The transport's own path reports those to its protocol's ``error_received``.)
    """

    __slots__ = ("transport", "sent", "_fd", "_buffered", "_on_error")

    def __init__(self, transport: asyncio.DatagramTransport,
                 on_error: Callable[[], None]) -> None:
        self.transport = transport
        self.sent = 0  # datagrams handed to the socket (or to the transport's buffer)
        sock = transport.get_extra_info("socket")
        self._fd = sock.fileno() if sock is not None else -1
        # (asyncio's and uvloop's datagram transports have it; one without is always used)
        self._buffered: Callable[[], int] = getattr(transport, "get_write_buffer_size",
                                                    lambda: 1)
        self._on_error = on_error

    def send(self, datagrams: list[bytes], addresses: list[Address]) -> None:
        """Send ``datagrams[i]`` to ``addresses[i]``, in order."""
        transport = self.transport
        if transport.is_closing():
            return
        self.sent += len(datagrams)
        k = 0
        if _send_batch is not None and self._fd >= 0 and self._buffered() == 0:
            n = len(datagrams)
            while k < n:
                k, err = _send_batch(self._fd, datagrams, addresses, k)
                if err == 0 or err in (errno.EAGAIN, errno.EWOULDBLOCK):
                    break  # all sent, or the rest waits in the transport's buffer
                self._on_error()  # that one datagram (e.g. an unreachable address)
                k += 1
        sendto = transport.sendto
        for k in range(k, len(datagrams)):
            sendto(datagrams[k], addresses[k])


__all__ = ["DatagramSender"]
