"""The TCP side of the server: accept, count, TLS under its own timeout, then the handshake.

Connections are counted from the moment they are accepted, not from the
end of TLS: a connection that never finishes TLS holds a descriptor like
any other, so 1,100 idle connections could otherwise take every descriptor
of a process limited to 1,024 and lock out players and the state's saves.
Here such connections never number more than the limit (itself kept below
the process's descriptor limit, see :func:`connection_limit`) nor live
longer than the TLS timeout.

The slots are shared fairly: one address holds at most
``max_handshakes_per_address`` (16 of 512 by default), and when every slot
is taken a connection from an address holding fewer than the busiest one
takes the place of the busiest address's oldest handshake (one still in TLS
first). Four addresses that each held 128 idle connections once took all
512 slots and refused 14 of 15 players' logins during a 30 s flood; now a
fresh address always finds a slot, and the flooders only take each other's.

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
from typing import TYPE_CHECKING, Any

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
        # each address's connections, oldest first; the flag: TLS is done (evicted last)
        self._held: dict[str, dict[asyncio.Task[Any], _Held]] = {}
        self._task: asyncio.Task[None] | None = None
        self._connections: dict[asyncio.Task[Any], _Held] = {}  # every live one

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
        if mine >= server.config.max_handshakes_per_address or (
                self.open >= self.limit and not self._evict_for(mine)):
            server.count("tcp_busy")
            server.log("refuse", addr=where, reason="too many handshakes at once")
            conn.close()
            return
        self.open += 1
        self.by_host[host] = mine + 1
        held = _Held(conn, host)
        task = asyncio.create_task(self._serve(held, where))
        self._held.setdefault(host, {})[task] = held
        self._connections[task] = held
        task.add_done_callback(self._ended)

    def _evict_for(self, mine: int) -> bool:
        """Every slot is taken: free one of the busiest address's if it holds over ``mine + 1``.

        The busiest address keeps at least as many as the newcomer will have,
        so addresses end up sharing the slots evenly and none is starved. Its
        oldest connection still in TLS goes first (idle, most likely a
        flood's), else its oldest. True when a slot was freed.
        """
        if not self.by_host:
            return False
        busiest = max(self.by_host, key=self.by_host.__getitem__)
        if self.by_host[busiest] <= mine + 1:
            return False
        held = self._held.get(busiest)
        if not held:
            return False
        victim = next((t for t, h in held.items() if not h.tls), None) or next(iter(held))
        self._release(victim)  # the slot is free now, whenever the cancelled task ends
        victim.cancel()
        self.server.count("tcp_evicted")
        self.server.log("evict", addr=busiest, reason="every handshake slot taken: the "
                        "oldest handshake of the busiest address closed")
        return True

    def _release(self, task: asyncio.Task[Any]) -> None:
        """Give back a connection's slot (once: at eviction or at its end)."""
        for host, held in self._held.items():
            if task in held:
                del held[task]
                if not held:
                    del self._held[host]
                break
        else:
            return  # (released already)
        self.open -= 1
        left = self.by_host[host] - 1
        if left:
            self.by_host[host] = left
        else:
            del self.by_host[host]

    def _ended(self, task: asyncio.Task[Any]) -> None:
        held = self._connections.pop(task, None)
        if held is not None and not held.started:  # cancelled before its first step
            held.conn.close()
        self._release(task)

    async def _serve(self, held: _Held, where: str) -> None:
        server = self.server
        loop = asyncio.get_running_loop()
        conn = held.conn
        held.started = True
        transport: asyncio.BaseTransport | None = None
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
                return
            held.tls = True  # (evicted after this address's connections still in TLS)
            writer = asyncio.StreamWriter(transport, protocol, reader, loop)
            await self.handler(reader, writer)
        finally:
            if transport is None:  # (a transport closes its socket itself)
                conn.close()


class _Held:
    """One accepted connection while it holds a slot."""

    __slots__ = ("conn", "host", "started", "tls")

    def __init__(self, conn: socket.socket, host: str) -> None:
        self.conn = conn
        self.host = host
        self.started = False  # False at its end: cancelled before it ran (socket closed for it)
        self.tls = False


__all__ = ["TcpListener", "connection_limit"]
