"""NetQ: acknowledgements, resends, duplicates, ordering, limits, map reassembly."""

from __future__ import annotations

import random
import struct

import pytest

from savecraft.errors import FormatError
from savecraft.net.netq import (
    ACK_BITS,
    HEADER,
    MAX_WINDOW,
    MapAssembler,
    NetQ,
    SEQ_MOD,
    QueueFull,
    SequenceExhausted,
    seq_add,
    seq_diff,
    seq_newer,
)
from savecraft.net.packets import UDP_MAX_DATAGRAM, UDP_MAX_MESSAGE, MapFragment, TextChat, decode


def test_serial_arithmetic() -> None:
    assert seq_add(65535, 1) == 0 and seq_add(65530, 10) == 4
    assert seq_diff(3, 65533) == 6 and seq_diff(65533, 3) == -6
    assert seq_newer(0, 65535) and not seq_newer(65535, 0)
    assert not seq_newer(5, 5)
    assert seq_diff(32767, 0) == 32767 and seq_diff(32768, 0) == -32768


def test_header_and_first_exchange() -> None:
    a, b = NetQ(), NetQ()
    [d0] = a.send(b"msg0", 0.0)
    assert HEADER.unpack_from(d0) == (0, 0xFFFF, 0) and d0[6:] == b"msg0"
    assert b.receive(d0, 0.0) == [b"msg0"]
    [ack] = b.flush(0.0)
    assert len(ack) == 6 and HEADER.unpack_from(ack) == (0, 0, 0)  # seq 0 not used up
    assert a.in_flight == 1
    assert a.receive(ack, 0.01) == []
    assert a.in_flight == 0 and a.last_acked == 0.01
    assert b.flush(0.0) == []  # an acknowledgement is not itself acknowledged
    assert a.flush(0.0) == []
    [d1] = b.send(b"reply", 0.0)
    assert HEADER.unpack_from(d1)[0] == 0  # b's first message is b's seq 0


def test_bitfield_names_earlier_datagrams() -> None:
    a, b = NetQ(), NetQ()
    ds = [a.send(f"m{i}".encode(), 0.0)[0] for i in range(5)]
    for i in (0, 2, 4):
        b.receive(ds[i], 0.0)
    [ack] = b.flush(0.0)
    _, newest, bits = HEADER.unpack_from(ack)
    assert newest == 4
    assert bits & 0b1111 == 0b1010  # 3 missing (bit 0), 2 received (bit 1), 1 missing, 0 received
    a.receive(ack, 0.0)
    assert a.in_flight == 2  # 1 and 3 are still waiting


def test_resend_after_the_timeout_passed_in() -> None:
    a, b = NetQ(resend_timeout=0.5), NetQ()
    [lost] = a.send(b"hello", 10.0)
    assert a.flush(10.2) == []
    assert a.next_deadline() == pytest.approx(10.5)
    [again] = a.flush(10.5)
    assert again == lost and a.stats.resent == 1
    assert b.receive(again, 10.6) == [b"hello"]
    a.receive(b.flush(10.6)[0], 10.7)
    assert a.flush(20.0) == [] and a.next_deadline() is None and a.idle


def test_duplicates_are_dropped_and_acknowledged_again() -> None:
    a, b = NetQ(), NetQ()
    [d] = a.send(b"once", 0.0)
    assert b.receive(d, 0.0) == [b"once"]
    assert b.receive(d, 0.1) == []
    assert b.stats.duplicates == 1 and b.stats.delivered == 1
    assert len(b.flush(0.1)) == 1  # the duplicate is acknowledged, so the sender stops


def test_out_of_order_messages_wait_for_the_gap() -> None:
    a, b = NetQ(), NetQ()
    ds = [a.send(bytes([i + 1]), 0.0)[0] for i in range(4)]
    assert b.receive(ds[2], 0) == [] and b.receive(ds[1], 0) == []
    assert b.receive(ds[2], 0) == []  # duplicate of a waiting message
    assert b.receive(ds[0], 0) == [b"\x01", b"\x02", b"\x03"]
    assert b.receive(ds[3], 0) == [b"\x04"]
    assert b.stats.duplicates == 1 and b.stats.reordered == 2


def test_window_limits_messages_in_flight() -> None:
    a = NetQ()
    for i in range(40):
        a.queue(bytes([i]))
    sent = a.flush(0.0)
    assert len(sent) == MAX_WINDOW == ACK_BITS + 1
    assert a.in_flight == MAX_WINDOW and a.queued == 40 - MAX_WINDOW
    b = NetQ()
    for d in sent:
        b.receive(d, 0.0)
    a.receive(b.flush(0.0)[0], 0.0)
    assert a.in_flight == 0
    assert len(a.flush(0.0)) == MAX_WINDOW


def test_bounded_queue() -> None:
    a = NetQ(max_queue=5)
    for i in range(5):
        a.queue(b"x")
    with pytest.raises(QueueFull):
        a.queue(b"x")
    with pytest.raises(ValueError):
        NetQ(window=MAX_WINDOW + 1)
    with pytest.raises(ValueError):
        NetQ(max_out_of_order=ACK_BITS + 1)


def test_message_and_datagram_size_limits() -> None:
    a = NetQ()
    [d] = a.send(bytes(UDP_MAX_MESSAGE), 0.0)
    assert len(d) == UDP_MAX_DATAGRAM == 1400
    with pytest.raises(FormatError):
        a.queue(bytes(UDP_MAX_MESSAGE + 1))
    with pytest.raises(FormatError):
        a.queue(b"")
    b = NetQ()
    with pytest.raises(FormatError):
        b.receive(d + b"x", 0.0)
    with pytest.raises(FormatError) as e:
        b.receive(b"\0\0\0", 0.0)
    assert e.value.offset == 0 and "header" in e.value.path


def test_malformed_datagrams_change_nothing() -> None:
    a, b = NetQ(), NetQ()
    [d] = a.send(b"x", 0.0)
    before = (b._expected, dict(b._early), b.stats.received, b.last_heard)
    with pytest.raises(FormatError) as e:  # acknowledges something b never sent
        b.receive(struct.pack("<HHH", 0, 7, 0) + b"x", 0.0)
    assert "ack" in e.value.path and e.value.offset == 2
    with pytest.raises(FormatError) as e:  # far ahead of the window
        b.receive(struct.pack("<HHH", 500, 0xFFFF, 0) + b"x", 0.0)
    assert "seq" in e.value.path
    assert (b._expected, dict(b._early), b.stats.received, b.last_heard) == before
    assert b.receive(d, 0.0) == [b"x"]


def test_memory_stays_bounded_under_a_flood() -> None:
    b = NetQ()
    rng = random.Random(7)
    for _ in range(5000):
        seq = rng.randrange(65536)
        try:
            b.receive(struct.pack("<HHH", seq, 0xFFFF, 0) + bytes(rng.randrange(1, 50)), 0.0)
        except FormatError:
            pass
    assert len(b._early) <= ACK_BITS


def test_a_replayed_datagram_is_no_sign_of_life() -> None:
    """A duplicate (a recorded datagram sent again) must not keep a vanished peer alive."""
    a, b = NetQ(), NetQ()
    [d0] = a.send(b"move", 0.0)
    assert b.receive(d0, 1.0) == [b"move"] and b.last_heard == 1.0
    [ack] = b.flush(1.0)
    assert a.receive(ack, 1.0) == [] and a.last_heard == 1.0  # it acknowledged d0: alive
    for t in (3.0, 6.0, 9.0):  # the peer is gone; someone replays what it sent
        assert b.receive(d0, t) == []
        assert a.receive(ack, t) == []
    assert b.last_heard == 1.0 and a.last_heard == 1.0
    assert b.stats.duplicates == 3
    assert HEADER.unpack_from(b.flush(9.0)[0])[1] == 0  # the duplicate is still acknowledged
    # a resend that also acknowledges something new is a sign of life (the peer is there)
    [d1] = b.send(b"reply", 10.0)
    assert a.receive(d1, 10.0) == [b"reply"] and a.last_heard == 10.0
    [ack1] = a.flush(10.0)
    assert HEADER.unpack_from(ack1)[1] == 0
    assert b.receive(ack1, 11.0) == [] and b.last_heard == 11.0


def test_a_session_never_reuses_a_sequence_number() -> None:
    """After 65,536 messages the numbers come round: a datagram from a lap ago is not new."""
    a, b = NetQ(max_queue=SEQ_MOD), NetQ()
    now = 0.0
    first = None
    got = 0
    for i in range(SEQ_MOD):
        [d] = a.send(i.to_bytes(3, "little"), now)
        if first is None:
            first = d
        got += len(b.receive(d, now))
        if i % 8 == 7:
            for ack in b.flush(now):
                a.receive(ack, now)
    for ack in b.flush(now):
        a.receive(ack, now)
    assert got == SEQ_MOD and a.in_flight == 0 and b._expected == 0
    assert first is not None and HEADER.unpack_from(first)[0] == 0
    heard = b.last_heard
    with pytest.raises(FormatError) as e:  # seq 0 again: the replay of message 1
        b.receive(first, now + 1)
    assert "seq" in e.value.path and "65536" in e.value.expected
    assert b.last_heard == heard and b.stats.delivered == SEQ_MOD
    ahead = struct.pack("<HHH", 3, 0xFFFF, 0) + b"x"  # a number a little ahead: used too
    with pytest.raises(FormatError):
        b.receive(ahead, now + 1)
    assert not b._early
    with pytest.raises(SequenceExhausted):  # and the sender never sends one
        a.queue(b"one more")
    assert isinstance(SequenceExhausted("x"), QueueFull)  # callers end the session as for a full one


def _set_start(a: NetQ, b: NetQ, seq: int) -> None:
    """Both ends as if ``seq`` datagrams had already gone from a to b (to test wrapping)."""
    a._next_seq = seq
    b._expected = seq
    b._newest = (seq - 1) & 0xFFFF
    b._received_any = True
    b._delivered = 2 * ACK_BITS


class LossyNet:
    """Two one-way links with seeded loss, duplication and reordering (random delays)."""

    def __init__(self, seed: int, loss: float, dup: float, jitter: float) -> None:
        self.rng = random.Random(seed)
        self.loss, self.dup, self.jitter = loss, dup, jitter
        self.in_air: list[tuple[float, int, str, bytes]] = []
        self.n = 0

    def put(self, dest: str, datagrams: list[bytes], now: float) -> None:
        for d in datagrams:
            copies = 0 if self.rng.random() < self.loss else 1
            if self.rng.random() < self.dup:
                copies += 1
            for _ in range(copies):
                self.n += 1
                self.in_air.append((now + 0.001 + self.rng.random() * self.jitter, self.n, dest, d))

    def due(self, now: float) -> list[tuple[str, bytes]]:
        self.in_air.sort()
        out = []
        while self.in_air and self.in_air[0][0] <= now:
            _, _, dest, d = self.in_air.pop(0)
            out.append((dest, d))
        return out


def _run(seed: int, count: int, *, loss: float, dup: float, jitter: float,
         start_seq: int = 0) -> tuple[NetQ, NetQ]:
    a, b = NetQ(resend_timeout=0.05), NetQ(resend_timeout=0.05)
    if start_seq:
        _set_start(a, b, start_seq)
        _set_start(b, a, start_seq)
    net = LossyNet(seed, loss, dup, jitter)
    sent = {"a": [f"a{i}".encode() for i in range(count)], "b": [f"b{i}".encode() for i in range(count)]}
    got: dict[str, list[bytes]] = {"a": [], "b": []}
    ends = {"a": a, "b": b}
    now = 0.0
    pending = {k: list(v) for k, v in sent.items()}
    while now < 120.0:
        for name, q in ends.items():
            while pending[name] and q.queued < 8:
                q.queue(pending[name].pop(0))
            other = "b" if name == "a" else "a"
            net.put(other, q.flush(now), now)
        for dest, d in net.due(now):
            got[dest] += ends[dest].receive(d, now)
        if len(got["a"]) == count and len(got["b"]) == count and a.idle and b.idle \
                and not net.in_air:
            break
        now += 0.005
    assert got["b"] == sent["a"]  # every message, exactly once, in order
    assert got["a"] == sent["b"]
    return a, b


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_delivery_under_loss_duplication_and_reordering(seed: int) -> None:
    a, b = _run(seed, 400, loss=0.2, dup=0.1, jitter=0.03)
    assert a.stats.resent > 0 and b.stats.duplicates > 0 and b.stats.reordered > 0
    assert a.in_flight == 0 and b.in_flight == 0


def test_delivery_across_the_sequence_wrap() -> None:
    a, b = _run(9, 300, loss=0.15, dup=0.05, jitter=0.02, start_seq=65500)
    assert a._next_seq < 1000 and b._expected < 1000


def test_ordered_delivery_without_loss() -> None:
    _run(4, 200, loss=0.0, dup=0.0, jitter=0.0)


# -- map fragments -------------------------------------------------------------------------


def test_map_reassembly_in_any_order() -> None:
    asset = bytes(random.Random(1).randrange(256) for _ in range(9000))
    frags = MapFragment.fragments(12, asset)
    random.Random(2).shuffle(frags)
    m = MapAssembler()
    results = [m.add(f) for f in frags]
    assert results[-1] == asset and all(r is None for r in results[:-1])
    assert m.pending == []
    assert m.add(MapFragment(3, 0, 0, b"")) == b""


def test_map_reassembly_overlaps_limits_and_restarts() -> None:
    m = MapAssembler(max_maps=2, max_total=100)
    assert m.add(MapFragment(1, 10, 0, b"abcd")) is None
    assert m.add(MapFragment(1, 10, 2, b"cdef")) is None  # overlapping
    assert m.add(MapFragment(2, 5, 0, b"ab")) is None
    assert m.add(MapFragment(3, 5, 0, b"ab")) is None  # map 1 is dropped (oldest)
    assert m.pending == [2, 3]
    assert m.add(MapFragment(2, 6, 0, b"ab")) is None  # a new total restarts map 2
    assert m.add(MapFragment(2, 6, 2, b"cdef")) == b"abcdef"
    with pytest.raises(FormatError):
        m.add(MapFragment(4, 101, 0, b""))
    with pytest.raises(FormatError):
        m.add(MapFragment(4, 10, 8, b"abc"))


def test_map_transfer_over_a_lossy_netq() -> None:
    asset = bytes(random.Random(5).randrange(256) for _ in range(60_000))
    server, client = NetQ(resend_timeout=0.05), NetQ(resend_timeout=0.05)
    net = LossyNet(11, 0.25, 0.1, 0.02)
    for f in MapFragment.fragments(7, asset):
        server.queue(f.encode())
    assembler = MapAssembler()
    result = None
    now = 0.0
    while result is None and now < 60:
        net.put("c", server.flush(now), now)
        net.put("s", client.flush(now), now)
        for dest, d in net.due(now):
            if dest == "c":
                for msg in client.receive(d, now):
                    frag = decode(msg)
                    assert isinstance(frag, MapFragment)
                    result = assembler.add(frag) or result
            else:
                server.receive(d, now)
        now += 0.005
    assert result == asset


def test_text_chat_through_netq_is_at_most_1400_bytes() -> None:
    a = NetQ()
    [d] = a.send(TextChat(0, "x" * (UDP_MAX_MESSAGE - 7)).encode(), 0.0)
    assert len(d) == 1400


def test_the_age_of_what_waits_for_acknowledgement_counts_from_its_first_sending() -> None:
    a, b = NetQ(resend_timeout=0.4), NetQ()
    assert a.oldest_unacked_age(5.0) == 0.0
    [d0] = a.send(b"first", 0.0)
    assert a.flush(0.5)  # resent
    a.send(b"second", 1.0)
    for now in (1.5, 2.5, 3.5, 4.5):  # both resent again and again, never acknowledged
        assert len(a.flush(now)) == 2
    assert a.oldest_unacked_age(5.0) == 5.0  # resends do not make it younger
    b.receive(d0, 5.0)
    a.receive(b.flush(5.0)[0], 5.0)  # "first" acknowledged: "second" is now the oldest
    assert a.oldest_unacked_age(5.0) == 4.0
