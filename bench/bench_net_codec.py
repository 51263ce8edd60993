"""Encode + decode rate of the hot UDP messages, next to a bare struct pack/unpack of the same fields.

Two messages dominate a busy server: the client's movement (type 8) and the
server's update (type 7) batching movement records of the players around.
The baseline packs and unpacks exactly the same fields with one precompiled
struct.Struct and builds a tuple, with no header check, no type dispatch,
no range errors and no dataclass: the floor for Python. The ratio says what
the codec's checks and named fields cost on top of that. Also reported:
NetQ + XOR per datagram (send on one side, receive on the other).
Everything runs in the same process; the best of several repeats is reported.

    python3 bench/bench_net_codec.py
"""

from __future__ import annotations

import struct

from savecraft.net.crypto import SessionCipher
from savecraft.net.netq import SEQ_MOD, NetQ
from savecraft.net.packets import Move, MoveRecord, Update, decode

from timing import best


RECORDS = 40  # movement records per update (a crowded neighbourhood)




def main() -> None:
    move = Move(map_id=3, x=120, y=77, direction=2, altitude=0, actions=[1])
    raw_move = move.encode()
    bare_move = struct.Struct("<HIHHBB")

    def codec_move() -> object:
        return decode(move.encode())

    def bare_move_fn() -> object:
        b = bare_move.pack(8 | 13 << 5, 3, 120, 77, 2, 0) + bytes([1])
        v = bare_move.unpack_from(b)
        return (v, list(b[12:]))

    records = [MoveRecord(i, 3, i % 64, i // 64, i % 4, 0) for i in range(RECORDS)]
    update = Update(records)
    raw_update = update.encode()
    bare_rec = struct.Struct("<BIIHHBB")
    fields = [(0, r.user_id, r.map_id, r.x, r.y, r.direction, r.altitude) for r in records]

    def codec_update() -> object:
        return decode(update.encode())

    def bare_update_fn() -> object:
        b = struct.pack("<H", 7 | (2 + 15 * RECORDS) << 5) + b"".join(bare_rec.pack(*f) for f in fields)
        return [bare_rec.unpack_from(b, 2 + 15 * k) for k in range(RECORDS)]

    assert decode(raw_move) == move and decode(raw_update) == update
    token = bytes(range(256))
    sender, receiver = NetQ(), NetQ()
    ca, cb = SessionCipher(token), SessionCipher(token)

    def netq_xor() -> object:
        nonlocal sender, receiver
        if sender._queued_total >= SEQ_MOD - 1:  # a session sends 65,536 messages at most
            sender, receiver = NetQ(), NetQ()
        sender._in_flight.clear()  # measure the per-datagram work, not the window
        [d] = sender.send(raw_move, 0.0)
        return receiver.receive(cb.decrypt(ca.encrypt(d)), 0.0)

    rows = []
    for name, codec, bare, n in (("move (type 8)", codec_move, bare_move_fn, 20000),
                                 (f"update, {RECORDS} moves (type 7)", codec_update,
                                  bare_update_fn, 2000)):
        tc, tb = best(codec, number=n), best(bare, number=n)
        rows.append((name, 1 / tc, 1 / tb, tc / tb))
    print(f"{'message':32} {'codec/s':>12} {'bare struct/s':>14} {'ratio':>7}")
    for name, rc, rb, ratio in rows:
        print(f"{name:32} {rc:12,.0f} {rb:14,.0f} {ratio:6.2f}x")
    t = best(netq_xor, number=20000)
    print(f"NetQ send + XOR both ways + NetQ receive, per datagram: {t * 1e6:.1f} us "
          f"({1 / t:,.0f}/s)")


if __name__ == "__main__":
    main()
