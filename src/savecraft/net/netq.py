"""NetQ: reliable, ordered delivery of TirNanoG messages over UDP, without I/O.

The original NetQ library's header is not published; this is the project's
own 6-byte header (NOTES.md), which may not be wire-compatible:

    u16 seq   sequence number of this datagram (per side, from 0, wrapping)
    u16 ack   the newest sequence number received from the peer
    u16 bits  bit i set: datagram ack - 1 - i was received too

One message per datagram; a datagram with nothing after the header carries
acknowledgements only, is not itself acknowledged and does not use up a
sequence number (its seq field holds the next one). Sequence numbers compare
with RFC 1982 serial arithmetic.

Design choices that keep it small and bounded:

* Messages in flight span at most 17 sequence numbers (ack + 16 bits): then
  every unacknowledged message is always inside the range an acknowledgement
  can name, so no acknowledgement is ever lost for good. More messages wait in a queue
  capped at ``max_queue`` (:class:`QueueFull` beyond it).
* The receiver keeps at most 16 messages that arrived ahead of a gap;
  a sender that respects the window never sends further ahead than that,
  so a datagram beyond it (or acknowledging something never sent) is
  malformed and raises :class:`~savecraft.errors.FormatError` before any
  state changes: garbage and wrongly encrypted datagrams are dropped and
  counted by the caller without disturbing the session.
* A session never uses a sequence number twice: one side sends at most
  :data:`SEQ_MOD` (65,536) messages, and the receiver refuses any message
  past the 65,536th as malformed. The numbers wrap on the wire (a session
  may start anywhere), but a datagram replayed from 65,536 messages earlier
  carries the same number as a new one and the same bytes (the XOR with the
  session token does not change), so nothing in the 6-byte header could tell
  them apart once the numbers come round again. As IPsec does with its
  sequence numbers (RFC 4303, 3.3.3), the session ends instead: the sender
  raises :class:`SequenceExhausted`, the server logs the player out, and a
  new login brings a new token, under which the old datagrams do not decrypt.
* A peer is alive when a datagram brings something new: a message not seen
  before, or an acknowledgement of something in flight. A duplicate (a
  resend, or an attacker's replay of a recorded datagram) changes neither
  :attr:`NetQ.last_heard` nor anything else but the duplicate counter and the
  acknowledgement owed.
* Time is passed in (``now``, seconds, any monotonic clock); nothing here
  sleeps, reads a clock or touches a socket. :meth:`NetQ.next_deadline` says
  when :meth:`NetQ.flush` has something to do next.

Typical use by a server per peer: ``netq.queue(msg.encode())`` for each
message of a tick, then ``for d in netq.flush(now): sock.sendto(cipher.apply(d))``;
on a datagram, ``for m in netq.receive(cipher.apply(data), now): handle(decode(m))``.
"""

from __future__ import annotations

import struct
from collections import deque
from dataclasses import dataclass

from ..errors import FormatError, SavecraftError
from .packets.base import NETQ_HEADER_SIZE, UDP_MAX_DATAGRAM, UDP_MAX_MESSAGE
from .packets.game import MapFragment

SEQ_MOD = 1 << 16
ACK_BITS = 16
MAX_WINDOW = ACK_BITS + 1
HEADER = struct.Struct("<HHH")


def seq_add(a: int, n: int) -> int:
    return (a + n) & 0xFFFF


def seq_diff(a: int, b: int) -> int:
    """a - b as a signed serial-number distance (RFC 1982), in -32768..32767."""
    d = (a - b) & 0xFFFF
    return d - SEQ_MOD if d >= 0x8000 else d


def seq_newer(a: int, b: int) -> bool:
    """True when ``a`` comes after ``b`` in serial-number order."""
    return 0 < ((a - b) & 0xFFFF) < 0x8000


class QueueFull(SavecraftError):
    """The peer does not acknowledge fast enough and the send queue is at its cap."""


class SequenceExhausted(QueueFull):
    """This side has sent its 65,536 messages: the session must end (a new login, a new token).

    A subclass of :class:`QueueFull` so that every caller that ends a session
    whose queue is full ends this one too.
    """


@dataclass(slots=True)
class NetQStats:
    """Counters for logs and load tests."""

    sent: int = 0  # datagrams carrying a message, first transmission
    resent: int = 0  # retransmissions after the timeout
    acks_sent: int = 0  # acknowledgement-only datagrams
    received: int = 0  # valid datagrams received
    delivered: int = 0  # messages handed to the application
    duplicates: int = 0  # messages received again and dropped
    reordered: int = 0  # messages that arrived ahead of a gap and waited


@dataclass(slots=True)
class _InFlight:
    seq: int
    message: bytes
    sent_at: float  # last sent (resends move it)
    first_sent: float


class NetQ:
    """One side of a NetQ session with one peer."""

    __slots__ = ("resend_timeout", "window", "max_queue", "max_out_of_order", "stats",
                 "_next_seq", "_in_flight", "_queue", "_expected", "_early", "_newest",
                 "_received_any", "_delivered", "_ack_owed", "last_heard", "last_acked",
                 "_queued_total", "_delivered_total")

    def __init__(self, *, resend_timeout: float = 0.2, window: int = MAX_WINDOW,
                 max_queue: int = 1024, max_out_of_order: int = ACK_BITS) -> None:
        if not 1 <= window <= MAX_WINDOW:
            raise ValueError(f"window must be 1 to {MAX_WINDOW}")
        if not 0 <= max_out_of_order <= ACK_BITS:
            raise ValueError(f"max_out_of_order must be 0 to {ACK_BITS}")
        self.resend_timeout = resend_timeout
        self.window = window
        self.max_queue = max_queue
        self.max_out_of_order = max_out_of_order
        self.stats = NetQStats()
        self._next_seq = 0
        self._in_flight: dict[int, _InFlight] = {}  # insertion order = send order
        self._queue: deque[bytes] = deque()
        self._expected = 0  # next sequence number to deliver
        self._early: dict[int, bytes] = {}  # arrived ahead of a gap
        self._newest = 0xFFFF
        self._received_any = False
        self._delivered = 0  # messages delivered (capped): seqs before the first are not "received"
        self._ack_owed = False
        self.last_heard: float | None = None  # when a valid datagram last arrived
        self.last_acked: float | None = None  # when the peer last acknowledged something new
        self._queued_total = 0  # messages ever queued: at most SEQ_MOD (numbers are not reused)
        self._delivered_total = 0  # messages ever delivered: the receiver's count, uncapped

    # -- sending -------------------------------------------------------------------------
    @property
    def in_flight(self) -> int:
        return len(self._in_flight)

    @property
    def queued(self) -> int:
        return len(self._queue)

    @property
    def idle(self) -> bool:
        """Nothing in flight, nothing queued, no acknowledgement owed."""
        return not self._in_flight and not self._queue and not self._ack_owed

    def queue(self, message: bytes) -> None:
        """Queue an encoded message; :meth:`flush` sends it when the window allows."""
        n = len(message)
        if n == 0 or n > UDP_MAX_MESSAGE:
            raise FormatError(None, "netq.message",
                              f"a message of 1 to {UDP_MAX_MESSAGE} bytes (1400 with NetQ's 6)",
                              f"{n} bytes")
        if len(self._queue) >= self.max_queue:
            raise QueueFull(f"NetQ send queue full ({self.max_queue} messages waiting)")
        if self._queued_total >= SEQ_MOD:
            raise SequenceExhausted(f"this session has sent its {SEQ_MOD} messages (a sequence "
                                    "number is never used twice): log in again")
        self._queued_total += 1
        self._queue.append(bytes(message))

    def send(self, message: bytes, now: float) -> list[bytes]:
        """Queue and flush: the datagrams to put on the wire now."""
        self.queue(message)
        return self.flush(now)

    def _ack_fields(self) -> tuple[int, int]:
        if not self._received_any:
            return 0xFFFF, 0
        newest = self._newest
        expected = self._expected
        early = self._early
        behind = self._delivered
        if not early and behind > ACK_BITS and ((expected - newest) & 0xFFFF) == 1:
            # the steady state (everything up to the newest came, 17+ delivered): the loop
            # below would set all 16 bits, since expected - s runs over 2..17 <= behind
            return newest, 0xFFFF
        bits = 0
        for i in range(ACK_BITS):
            s = (newest - 1 - i) & 0xFFFF
            if 0 < ((expected - s) & 0xFFFF) <= behind or s in early:
                bits |= 1 << i
        return newest, bits

    def flush(self, now: float) -> list[bytes]:
        """Resends that are due, new messages the window allows, and an owed acknowledgement."""
        out: list[bytes] = []
        ack, bits = self._ack_fields()
        pack = HEADER.pack
        flight = self._in_flight
        if flight:
            timeout = self.resend_timeout
            for f in flight.values():
                if now - f.sent_at >= timeout:
                    f.sent_at = now
                    out.append(pack(f.seq, ack, bits) + f.message)
                    self.stats.resent += 1
        queue = self._queue
        if queue:  # (called once per player per tick on a server: the loop is inlined)
            window = self.window
            first = len(out)
            seq = self._next_seq
            oldest = next(iter(flight)) if flight else seq
            while queue and ((seq - oldest) & 0xFFFF) < window:  # what _window_open says
                msg = queue.popleft()
                flight[seq] = _InFlight(seq, msg, now, now)
                out.append(pack(seq, ack, bits) + msg)
                seq = (seq + 1) & 0xFFFF
            self.stats.sent += len(out) - first
            self._next_seq = seq
        if self._ack_owed and not out:
            out.append(pack(self._next_seq, ack, bits))
            self.stats.acks_sent += 1
        self._ack_owed = False
        return out

    def _window_open(self) -> bool:
        """The span from the oldest unacknowledged message to the next one is under ``window``.

        A span, not a count: acknowledgements can only name the 16 datagrams
        before the newest, so nothing may be sent further ahead of a gap.
        """
        if not self._in_flight:
            return True
        oldest = next(iter(self._in_flight))
        return ((self._next_seq - oldest) & 0xFFFF) < self.window

    def ack_datagram(self) -> bytes:
        """An acknowledgement-only datagram (e.g. to answer at once, not at the next flush)."""
        ack, bits = self._ack_fields()
        self._ack_owed = False
        self.stats.acks_sent += 1
        return HEADER.pack(self._next_seq, ack, bits)

    def next_deadline(self) -> float | None:
        """When :meth:`flush` next has work: -inf if now, None if only on new input."""
        if self._ack_owed or (self._queue and self._window_open()):
            return float("-inf")
        if not self._in_flight:
            return None
        return min(f.sent_at for f in self._in_flight.values()) + self.resend_timeout

    def oldest_unacked_age(self, now: float) -> float:
        """Seconds the oldest message in flight has waited for its acknowledgement (0 if none).

        Counted from its first sending, not its latest resend (resends come
        every few seconds at most, so that age would never reach a timeout).
        In flight is in sending order, so the oldest is the first.
        """
        for f in self._in_flight.values():
            return now - f.first_sent
        return 0.0

    # -- receiving -----------------------------------------------------------------------
    def receive(self, datagram: bytes | bytearray | memoryview, now: float) -> list[bytes]:
        """Take one (decrypted) datagram; return the messages now deliverable, in order.

        Raises FormatError, changing nothing, for a datagram that is too
        short or too long, acknowledges a sequence number never sent, lies
        beyond the receive window, or carries a message past the session's
        65,536th (its number was used before). :attr:`last_heard` moves only
        for a datagram that brings something new (see the module's notes).
        """
        n = len(datagram)
        if n < NETQ_HEADER_SIZE:
            raise FormatError(0, "netq.header", "a 6-byte NetQ header",
                              f"the end of the datagram after {n} bytes")
        if n > UDP_MAX_DATAGRAM:
            raise FormatError(UDP_MAX_DATAGRAM, "netq", f"a datagram of at most {UDP_MAX_DATAGRAM} "
                              "bytes", f"{n} bytes")
        seq, ack, bits = HEADER.unpack_from(datagram, 0)
        last_sent = (self._next_seq - 1) & 0xFFFF
        if seq_newer(ack, last_sent):
            raise FormatError(2, "netq.ack", f"an acknowledgement of a sent datagram "
                              f"(at most {last_sent})", str(ack))
        has_message = n > NETQ_HEADER_SIZE
        d = seq_diff(seq, self._expected)
        if has_message and d > self.max_out_of_order:
            raise FormatError(0, "netq.seq", f"a sequence number from {self._expected} to "
                              f"{seq_add(self._expected, self.max_out_of_order)} (the window)",
                              str(seq))
        if has_message and d >= 0 and self._delivered_total + d >= SEQ_MOD:
            # the 65,537th message or later would reuse a number: a replay from a lap ago
            raise FormatError(0, "netq.seq", f"at most {SEQ_MOD} messages in a session (a "
                              "sequence number is never used twice)",
                              f"message {self._delivered_total + d + 1}")
        self.stats.received += 1
        acked = self._take_ack(ack, bits, now)
        if not has_message:
            if acked:
                self.last_heard = now
            return []
        self._ack_owed = True
        if d < 0 or (d > 0 and seq in self._early):
            # (a resend whose acknowledgement was lost, or a replay: answered, but no sign of life)
            self.stats.duplicates += 1
            if acked:
                self.last_heard = now
            return []
        self.last_heard = now
        if not self._received_any or seq_newer(seq, self._newest):
            self._newest = seq
            self._received_any = True
        message = bytes(datagram[NETQ_HEADER_SIZE:])
        if d > 0:
            self._early[seq] = message
            self.stats.reordered += 1
            return []
        out = [message]
        expected = (seq + 1) & 0xFFFF
        early = self._early
        while early:
            m = early.pop(expected, None)
            if m is None:
                break
            out.append(m)
            expected = (expected + 1) & 0xFFFF
        self._expected = expected
        self.stats.delivered += len(out)
        self._delivered_total += len(out)
        if self._delivered < 2 * ACK_BITS:
            self._delivered += len(out)
        return out

    def _take_ack(self, ack: int, bits: int, now: float) -> bool:
        """Drop what ``ack`` and ``bits`` acknowledge; True when that was anything."""
        flight = self._in_flight
        if not flight:
            return False
        done = []
        for s in flight:
            d = (ack - s) & 0xFFFF
            if d == 0 or (d <= ACK_BITS and bits >> (d - 1) & 1):
                done.append(s)
        if done:
            for s in done:
                del flight[s]
            self.last_acked = now
            return True
        return False


class MapAssembler:
    """Puts map fragments (type 11) back together, whatever order they come in.

    Holds at most ``max_maps`` maps in progress (the oldest is dropped for a
    new one) and refuses a total above ``max_total``; a fragment giving a
    different total for a map restarts that map (the asset changed).
    """

    __slots__ = ("max_maps", "max_total", "_maps")

    def __init__(self, *, max_maps: int = 4, max_total: int = (1 << 24) - 1) -> None:
        self.max_maps = max_maps
        self.max_total = max_total
        self._maps: dict[int, tuple[bytearray, list[list[int]]]] = {}

    @property
    def pending(self) -> list[int]:
        return list(self._maps)

    def add(self, fragment: MapFragment) -> bytes | None:
        """Take one fragment; the whole map asset once its last missing piece arrives."""
        total = fragment.total
        if total > self.max_total:
            raise FormatError(None, "map_fragment.total", f"a map of at most {self.max_total} bytes",
                              str(total))
        end = fragment.offset + len(fragment.data)
        if end > total:
            raise FormatError(None, "map_fragment.data", f"a fragment inside the {total} bytes",
                              f"{len(fragment.data)} bytes at offset {fragment.offset}")
        entry = self._maps.pop(fragment.map_id, None)
        if entry is None or len(entry[0]) != total:
            while len(self._maps) >= self.max_maps:
                del self._maps[next(iter(self._maps))]
            entry = (bytearray(total), [])
        buf, spans = entry
        buf[fragment.offset:end] = fragment.data
        _add_span(spans, fragment.offset, end)
        if total == 0 or (len(spans) == 1 and spans[0][0] == 0 and spans[0][1] == total):
            return bytes(buf)
        self._maps[fragment.map_id] = entry  # most recently used last
        return None


def _add_span(spans: list[list[int]], start: int, end: int) -> None:
    """Insert [start, end) into sorted, disjoint spans, merging touching ones."""
    if start >= end:
        return
    out: list[list[int]] = []
    placed = False
    for s in spans:
        if s[1] < start:
            out.append(s)
        elif end < s[0]:
            if not placed:
                out.append([start, end])
                placed = True
            out.append(s)
        else:
            start, end = min(start, s[0]), max(end, s[1])
    if not placed:
        out.append([start, end])
    out.sort()
    spans[:] = out


__all__ = [
    "ACK_BITS", "HEADER", "MAX_WINDOW", "MapAssembler", "NetQ", "NetQStats", "QueueFull",
    "SEQ_MOD", "SequenceExhausted", "seq_add", "seq_diff", "seq_newer",
]
