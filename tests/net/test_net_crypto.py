"""Session XOR, the plain UDP hello and discovery reply, OTP and secret comparisons."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from savecraft.errors import FormatError
from savecraft.net import crypto
from savecraft.net.crypto import (
    PLAIN_PREFIX,
    ZERO_OTP,
    SessionCipher,
    is_plain,
    new_otp,
    new_token,
    otp_matches,
    parse_plain,
    password_hash,
    plain_datagram,
    same_secret,
    xor_datagram,
)
from savecraft.net.netq import NetQ
from savecraft.net.packets import LanDiscoveryReply, Move, UdpHello, decode

tokens = st.binary(min_size=256, max_size=256)


@given(tokens, st.binary(max_size=3000))
def test_xor_round_trip_and_layout(token: bytes, data: bytes) -> None:
    compiled = crypto._xor
    # the compiled XOR where it was built, and the big-integer one: the same bytes
    for xor in ((compiled, None) if compiled is not None else (None,)):
        crypto._xor = xor
        try:
            c = SessionCipher(token)
            enc = c.apply(data)
            assert len(enc) == len(data)
            assert enc == bytes(b ^ token[i % 256] for i, b in enumerate(data))
            assert c.apply(memoryview(enc)) == data
            assert xor_datagram(bytearray(enc), token) == data
        finally:
            crypto._xor = compiled


def test_whole_datagram_is_encrypted_netq_header_included() -> None:
    token = bytes(random.Random(3).randrange(256) for _ in range(256))
    c = SessionCipher(token)
    a, b = NetQ(), NetQ()
    [d] = a.send(Move(1, 2, 3).encode(), 0.0)
    wire = c.encrypt(d)
    assert wire[:6] == bytes(x ^ y for x, y in zip(d[:6], token))
    [msg] = b.receive(c.decrypt(wire), 0.0)
    assert decode(msg) == Move(1, 2, 3)
    assert "hidden" in repr(c) and token.hex() not in repr(c)
    with pytest.raises(FormatError):
        SessionCipher(b"short")


def test_wrongly_encrypted_datagrams_are_refused() -> None:
    rng = random.Random(42)
    right = bytes(rng.randrange(256) for _ in range(256))
    sender, receiver = NetQ(), NetQ()
    cipher = SessionCipher(right)
    accepted = 0
    for i in range(300):
        [d] = sender.send(Move(i, 1, 1).encode(), 0.0)
        sender._in_flight.clear()  # keep the sender's window open; acks are not the point here
        wrong = SessionCipher(bytes(rng.randrange(256) for _ in range(256)))
        try:
            for m in receiver.receive(cipher.decrypt(wrong.encrypt(d)), 0.0):
                decode(m)
                accepted += 1
        except FormatError:
            pass
    assert accepted == 0


def test_plain_udp_hello() -> None:
    otp = b"\x11\x22\x33\x44\x55\x66\x77\x88"
    d = plain_datagram(UdpHello(otp))
    assert d == b"Hi\0\0\0\0" + (6 | 10 << 5).to_bytes(2, "little") + otp
    assert len(d) == 16 and is_plain(d)
    assert parse_plain(d) == UdpHello(otp)
    disc = plain_datagram(UdpHello(ZERO_OTP))
    hello = parse_plain(disc)
    assert isinstance(hello, UdpHello) and hello.is_discovery
    reply = plain_datagram(LanDiscoveryReply("demo"))
    assert reply.startswith(PLAIN_PREFIX) and len(reply) == 38
    assert parse_plain(reply) == LanDiscoveryReply("demo")


def test_plain_datagram_errors() -> None:
    with pytest.raises(FormatError) as e:
        parse_plain(b"Hx\0\0\0\0" + UdpHello().encode())
    assert e.value.offset == 0
    with pytest.raises(FormatError) as e:
        parse_plain(PLAIN_PREFIX + Move().encode())
    assert e.value.offset == 6
    with pytest.raises(FormatError) as e:
        parse_plain(PLAIN_PREFIX + UdpHello().encode()[:-1])
    assert e.value.offset == 6
    with pytest.raises(FormatError):
        parse_plain(PLAIN_PREFIX + bytes(2000))
    with pytest.raises(FormatError):
        plain_datagram(Move())  # type: ignore[arg-type]
    assert not is_plain(b"Hi")


@given(st.binary(max_size=64))
def test_parse_plain_random_bytes(data: bytes) -> None:
    for d in (data, PLAIN_PREFIX + data):
        try:
            parse_plain(d)
        except FormatError:
            pass


def test_otp_check() -> None:
    otp = new_otp()
    assert len(otp) == 8 and any(otp)
    assert otp_matches(otp, otp)
    assert not otp_matches(otp, bytes(8))
    assert not otp_matches(otp, otp[:7])
    assert not otp_matches(ZERO_OTP, ZERO_OTP)  # a zero OTP asks for discovery, never logs in
    flipped = bytes([otp[0] ^ 1]) + otp[1:]
    assert not otp_matches(otp, flipped)


def test_random_sources_are_injectable() -> None:
    calls = iter([bytes(8), bytes(8), b"\0" * 7 + b"\1"])
    assert new_otp(lambda n: next(calls)) == b"\0" * 7 + b"\1"  # zero OTPs are drawn again
    assert new_token(lambda n: b"\5" * n) == b"\5" * 256
    assert len(new_token()) == 256 and new_token() != new_token()
    with pytest.raises(ValueError):
        new_token(lambda n: b"x")
    with pytest.raises(ValueError):
        new_otp(lambda n: b"x")


def test_same_secret() -> None:
    assert same_secret(b"a" * 32, b"a" * 32)
    assert not same_secret(b"a" * 32, b"a" * 31 + b"b")
    assert not same_secret(b"a" * 32, b"a" * 31)


def test_password_hash_is_sha256_of_utf8() -> None:
    import hashlib
    assert password_hash("héllo") == hashlib.sha256("héllo".encode()).digest()
    assert len(password_hash("")) == 32
