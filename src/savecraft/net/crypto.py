"""Session encryption of UDP datagrams, the plain UDP hello, and constant-time checks.

After login every datagram is XORed, NetQ header included, with the
256-byte session token the login OK carried: byte i with token[i % 256]
(NOTES.md). This hides nothing from someone who saw the TLS handshake's
secrets, but it makes datagrams of other sessions, replays across sessions
and garbage fail NetQ's checks. The one plain datagram is the UDP hello:
'H' 'i' 0 0 0 0 where the NetQ header would be, then the type 6 message.
The project sends the LAN discovery reply the same way (the asker has no
token yet).

Secrets (the OTP, password hashes) are compared with
:func:`hmac.compare_digest` so the time taken says nothing about where two
values first differ.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Callable

from ..compiled import active
from ..errors import FormatError
from .packets.base import NETQ_HEADER_SIZE, UDP_MAX_DATAGRAM
from .packets.game import UdpHello
from .packets.handshake import OTP_SIZE, TOKEN_SIZE, LanDiscoveryReply
from .packets.base import decode

# the compiled XOR (3.5x faster than the big-integer one on a 120-byte datagram), or None
_xor: Callable[[bytes | bytearray | memoryview, bytes], bytes] | None = None
if active("bytewise"):
    from .._native.bytewise import xor_repeat as _xor

PLAIN_PREFIX = b"Hi\0\0\0\0"
assert len(PLAIN_PREFIX) == NETQ_HEADER_SIZE
ZERO_OTP = bytes(OTP_SIZE)
_PAD_SIZE = 2048  # covers any datagram we accept (1400) and then some

RandomBytes = Callable[[int], bytes]


def new_token(randbytes: RandomBytes = secrets.token_bytes) -> bytes:
    """A fresh 256-byte session token (``randbytes`` is injectable for tests)."""
    token = randbytes(TOKEN_SIZE)
    if len(token) != TOKEN_SIZE:
        raise ValueError("randbytes returned the wrong number of bytes")
    return token


def new_otp(randbytes: RandomBytes = secrets.token_bytes) -> bytes:
    """A fresh 8-byte OTP, never all zero (a zero OTP means LAN discovery)."""
    while True:
        otp = randbytes(OTP_SIZE)
        if len(otp) != OTP_SIZE:
            raise ValueError("randbytes returned the wrong number of bytes")
        if any(otp):
            return otp


def password_hash(password: str) -> bytes:
    """The 32-byte hash a client sends: SHA-256 of the UTF-8 password (NOTES.md)."""
    return hashlib.sha256(password.encode("utf-8")).digest()


def same_secret(a: bytes, b: bytes) -> bool:
    """Constant-time equality for secrets of the same length (OTPs, password hashes)."""
    return hmac.compare_digest(a, b)


def otp_matches(expected: bytes, received: bytes) -> bool:
    """The OTP check of a UDP hello: constant time, and a zero OTP never matches."""
    if len(expected) != OTP_SIZE or not any(expected):
        return False
    return hmac.compare_digest(expected, received)


class SessionCipher:
    """XOR with the session token; the same call encrypts and decrypts.

    Without the compiled XOR, the token is expanded once to a 2 KiB pad held
    as one big integer, so a datagram costs two ``int.from_bytes``/``to_bytes``
    conversions and one XOR instead of a Python loop over its bytes.
    """

    __slots__ = ("token", "_pad", "_pad_int")

    def __init__(self, token: bytes) -> None:
        if len(token) != TOKEN_SIZE:
            raise FormatError(None, "session_token", f"{TOKEN_SIZE} bytes", f"{len(token)} bytes")
        self.token = bytes(token)
        self._pad = self.token * (_PAD_SIZE // TOKEN_SIZE)
        self._pad_int = int.from_bytes(self._pad, "little")

    def apply(self, data: bytes | bytearray | memoryview) -> bytes:
        if _xor is not None:
            return _xor(data, self.token)
        n = len(data)
        if n <= _PAD_SIZE:
            key = self._pad_int & ((1 << (8 * n)) - 1)
        else:
            reps = -(-n // TOKEN_SIZE)
            key = int.from_bytes((self.token * reps)[:n], "little")
        return (int.from_bytes(data, "little") ^ key).to_bytes(n, "little")

    encrypt = apply
    decrypt = apply

    def __repr__(self) -> str:
        return "SessionCipher(<token hidden>)"


def xor_datagram(data: bytes | bytearray | memoryview, token: bytes) -> bytes:
    """One-off XOR (a :class:`SessionCipher` is cheaper for many datagrams)."""
    return SessionCipher(token).apply(data)


def is_plain(datagram: bytes | bytearray | memoryview) -> bool:
    """True when the datagram starts with 'H' 'i' 0 0 0 0 (a hello or a discovery reply).

    An encrypted datagram starts so only by a 1 in 2^48 chance; the OTP check
    then still refuses it.
    """
    return bytes(datagram[:NETQ_HEADER_SIZE]) == PLAIN_PREFIX


def plain_datagram(message: UdpHello | LanDiscoveryReply) -> bytes:
    """'H' 'i' 0 0 0 0 and the message: the only datagrams sent without encryption."""
    if not isinstance(message, UdpHello | LanDiscoveryReply):
        raise FormatError(None, "datagram", "a UDP hello or a LAN discovery reply",
                          type(message).__name__)
    return PLAIN_PREFIX + message.encode()


def parse_plain(datagram: bytes | bytearray | memoryview) -> UdpHello | LanDiscoveryReply:
    """Decode a plain datagram; anything else is a FormatError with its offset."""
    if len(datagram) > UDP_MAX_DATAGRAM:
        raise FormatError(UDP_MAX_DATAGRAM, "datagram", f"at most {UDP_MAX_DATAGRAM} bytes",
                          f"{len(datagram)} bytes")
    if not is_plain(datagram):
        raise FormatError(0, "datagram.prefix", repr(PLAIN_PREFIX),
                          repr(bytes(datagram[:NETQ_HEADER_SIZE])))
    msg = decode(datagram[NETQ_HEADER_SIZE:], offset=NETQ_HEADER_SIZE)
    if not isinstance(msg, UdpHello | LanDiscoveryReply):
        raise FormatError(NETQ_HEADER_SIZE, "datagram", "a UDP hello or a LAN discovery reply",
                          f"{type(msg).__name__}")
    return msg


__all__ = [
    "PLAIN_PREFIX", "SessionCipher", "ZERO_OTP", "is_plain", "new_otp", "new_token",
    "otp_matches", "parse_plain", "password_hash", "plain_datagram", "same_secret", "xor_datagram",
]
