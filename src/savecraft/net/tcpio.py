"""Driving the sans-IO TCP handshake (:class:`~savecraft.net.session.Handshake`) over asyncio.

The handshake object decides what may arrive and bounds its buffer; this
only moves bytes between it and a stream, so the server and the client
share one loop.
"""

from __future__ import annotations

import asyncio

from .packets import Message
from .packets.handshake import AssetBundle
from .session import ConnectionClosed, Handshake, NeedData

READ_SIZE = 65536


async def receive_event(hs: Handshake, reader: asyncio.StreamReader
                        ) -> Message | AssetBundle | ConnectionClosed:
    """The peer's next message (or the asset bundle, or the end of the stream).

    Raises FormatError for anything the handshake refuses.
    """
    while True:
        ev = hs.next_event()
        if not isinstance(ev, NeedData):
            return ev
        hs.receive_data(await reader.read(READ_SIZE))


async def send(hs: Handshake, writer: asyncio.StreamWriter, msg: Message | AssetBundle) -> None:
    writer.write(hs.send(msg))
    await writer.drain()


async def close(writer: asyncio.StreamWriter, timeout: float = 2.0) -> None:
    """Close a (TLS) stream without waiting forever for the peer's close_notify."""
    try:
        writer.close()
        await asyncio.wait_for(writer.wait_closed(), timeout)
    except (TimeoutError, OSError):  # ssl.SSLError and ConnectionError are OSErrors
        pass


__all__ = ["close", "receive_event", "send"]
