"""One logged-in player on the server: keys, NetQ, position, and what waits to be sent.

A session is made by a successful login (TCP) and bound to a UDP address by
the first UDP hello carrying its OTP. Everything it will be sent is held in
bounded lists until the next tick batches it, so a client that stops
reading costs at most ``MAX_RECORDS`` records and NetQ's capped queue.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field

from ..formats.tirnanog.save.model import UserChunk
from .backoff import ResendBackoff
from .crypto import SessionCipher
from .netq import NetQ
from .packets import MapFragment, Update
from .packets.base import HEADER as _HEADER
from .packets.base import HEADER_SIZE, UDP_MAX_MESSAGE, finish

MAX_RECORDS = 4096  # update records waiting for the next tick
MAX_DIRECT = 256  # chat, voice and quest messages waiting for the next tick
MAX_FRAGMENTS_IN_QUEUE = 8  # map fragments handed to NetQ at a time
UPDATE_ROOM = UDP_MAX_MESSAGE - 2  # record bytes in one update message

Address = tuple[str, int]
_UPDATE_TYPE = Update.TYPE


@dataclass(slots=True, eq=False)
class Session:
    """A player between login OK and logout."""

    uid: int
    user: UserChunk
    token: bytes
    otp: bytes
    cipher: SessionCipher
    netq: NetQ
    host: str  # the address the TCP login came from
    created: float = field(default_factory=time.monotonic)
    addr: Address | None = None  # bound by the UDP hello
    map_id: int = 0
    group: int = 0  # which phase of the server's tick sends to this player
    records: list[bytes] = field(default_factory=list)
    direct: list[bytes] = field(default_factory=list)
    fragments: deque[MapFragment] = field(default_factory=deque)
    last_sent: float = 0.0
    overflow: int = 0  # records or messages dropped because the client fell behind
    datagrams: int = 0  # datagrams received from its address (the UDP hello included)
    bad: int = 0  # datagrams from this address that failed decryption or NetQ checks
    moves: int = 0
    actions: int = 0
    backoff: ResendBackoff = field(init=False)

    def __post_init__(self) -> None:
        self.backoff = ResendBackoff(self.netq)

    def add_records(self, records: list[bytes]) -> None:
        room = MAX_RECORDS - len(self.records)
        if room >= len(records):
            self.records.extend(records)
        else:
            self.records.extend(records[:max(room, 0)])
            self.overflow += len(records) - max(room, 0)

    def add_direct(self, message: bytes) -> None:
        if len(self.direct) < MAX_DIRECT:
            self.direct.append(message)
        else:
            self.overflow += 1

    def outgoing(self) -> list[bytes]:
        """Messages for this tick: records batched into as few updates as fit, then the rest."""
        out: list[bytes] = []
        records = self.records
        joined = b"".join(records) if records else b""
        if records and len(joined) <= UPDATE_ROOM:  # the usual case: one update
            # finish() without its length check: UPDATE_ROOM leaves room for the header
            out.append(_HEADER.pack(_UPDATE_TYPE | (len(joined) + HEADER_SIZE) << 5) + joined)
            records.clear()
        elif records:
            body: list[bytes] = []
            size = 0
            for rec in self.records:
                if size + len(rec) > UPDATE_ROOM and body:
                    out.append(finish(Update, b"".join(body)))
                    body, size = [], 0
                body.append(rec)
                size += len(rec)
            if body:
                out.append(finish(Update, b"".join(body)))
            self.records.clear()
        if self.direct:
            out.extend(self.direct)
            self.direct.clear()
        if not self.fragments:
            return out
        room = MAX_FRAGMENTS_IN_QUEUE - self.netq.queued - self.netq.in_flight
        while self.fragments and room > 0:
            out.append(self.fragments.popleft().encode())
            room -= 1
        return out


__all__ = ["MAX_DIRECT", "MAX_RECORDS", "Address", "Session"]
