"""The TCP side of the server: accept, count, TLS under its own timeout, then the handshake.

Connections are counted from the moment they are accepted, not from the
end of TLS: a connection that never finishes TLS holds a descriptor like
any other, so 1,100 idle connections could otherwise take every descriptor
of a process limited to 1,024 and lock out players and the state's saves.
Here such connections never number more than the limit (itself kept below
the process's descriptor limit, see :func:`connection_limit`) nor live
longer than the TLS timeout.

The server accepts the sockets itself (``sock_accept``) and hands each one
to ``connect_accepted_socket`` with TLS: starting TLS on a stream that is
already reading would lose the client's first TLS bytes under uvloop.
"""

from __future__ import annotations

import asyncio
import resource
import socket
import ssl
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .server import GameServer

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]
RETRY_ACCEPT = 0.1  # seconds to wait when accept itself fails (out of descriptors)


def connection_limit(wanted: int, reserve: int) -> int:
    """At most ``wanted`` connections, leaving ``reserve`` descriptors of the process's limit.

    With the usual limit of 1,024 and a reserve of 64, the server holds at
    most 944 connections however many arrive, so a timer save, a backup or
    a log file never fails with "Too many open files".
    """
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return wanted
    return max(1, min(wanted, soft - reserve - 16))  # (16: the process's own: sockets, stdio)


class TcpListener:
    """Accepts on one socket and runs ``handler`` over TLS for each connection within limits."""

    def __init__(self, server: GameServer, handler: Handler) -> None:
        self.server = server
        self.handler = handler
        self.sock: socket.socket | None = None
        self.port = 0
        self.limit = connection_limit(server.config.max_handshakes, server.config.fd_reserve)
        self.open = 0  # connections from accept to close, TLS or not
        self.by_host: dict[str, int] = {}
        self._task: asyncio.Task[None] | None = None
        self._connections: set[asyncio.Task[None]] = set()

    def bind(self, host: str, port: int) -> int:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind((host, port))
            sock.listen(1024)
            sock.setblocking(False)
        except OSError:
            sock.close()
            raise
        self.sock = sock
        self.port = int(sock.getsockname()[1])
        return self.port

    def start(self) -> None:
        self._task = asyncio.create_task(self._accept_loop())

    def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
        if self.sock is not None:
            self.sock.close()
            self.sock = None

    async def _accept_loop(self) -> None:
        assert self.sock is not None
        loop = asyncio.get_running_loop()
        listening = self.sock
        while True:
            try:
                conn, peer = await loop.sock_accept(listening)
            except OSError as err:  # EMFILE, ENFILE, ENOBUFS: wait, do not spin
                self.server.count("tcp_accept_errors")
                self.server.log("accept", error=err.strerror or str(err))
                await asyncio.sleep(RETRY_ACCEPT)
                continue
            self._accepted(conn, str(peer[0]), f"{peer[0]}:{peer[1]}")

    def _accepted(self, conn: socket.socket, host: str, where: str) -> None:
        server = self.server
        mine = self.by_host.get(host, 0)
        if self.open >= self.limit or mine >= server.config.max_handshakes_per_address:
            server.count("tcp_busy")
            server.log("refuse", addr=where, reason="too many handshakes at once")
            conn.close()
            return
        self.open += 1
        self.by_host[host] = mine + 1
        task = asyncio.create_task(self._serve(conn, host, where))
        self._connections.add(task)
        task.add_done_callback(self._connections.discard)

    async def _serve(self, conn: socket.socket, host: str, where: str) -> None:
        server = self.server
        loop = asyncio.get_running_loop()
        try:
            reader = asyncio.StreamReader()
            protocol = asyncio.StreamReaderProtocol(reader)
            try:
                transport, _ = await loop.connect_accepted_socket(
                    lambda: protocol, conn, ssl=server.tls,
                    ssl_handshake_timeout=server.config.tls_timeout)
            except (TimeoutError, ssl.SSLError, OSError) as err:
                # (uvloop says a timeout with ConnectionAbortedError "taking longer than")
                late = isinstance(err, TimeoutError) or "longer than" in str(err)
                server.count("tcp_tls_timeout" if late else "tcp_tls_failed")
                server.log("refuse", addr=where, reason="TLS handshake "
                           + ("timed out" if late else f"failed: {type(err).__name__}"))
                conn.close()
                return
            writer = asyncio.StreamWriter(transport, protocol, reader, loop)
            await self.handler(reader, writer)
        finally:
            self.open -= 1
            left = self.by_host[host] - 1
            if left:
                self.by_host[host] = left
            else:
                del self.by_host[host]


__all__ = ["TcpListener", "connection_limit"]
