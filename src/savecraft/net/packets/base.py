"""What every TirNanoG message shares: the 2-byte header, limits, roles, dispatch.

The header is one little-endian u16: the type in bits 0-4 and the length of
the whole message (header included) in bits 5-15 (NOTES.md). A message class
declares its type, who may send it and on which channel; :func:`decode` picks
the class from the type and checks the length before the class reads a byte.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from enum import Enum
from collections.abc import Callable
from typing import ClassVar, NoReturn, TypeVar

from ...binary import Reader
from ...errors import FormatError

HEADER = struct.Struct("<H")
HEADER_SIZE = 2
MAX_LENGTH = 0x7FF  # 11 bits of length
NETQ_HEADER_SIZE = 6
UDP_MAX_DATAGRAM = 1400  # NetQ's 6 bytes included (NOTES.md)
UDP_MAX_MESSAGE = UDP_MAX_DATAGRAM - NETQ_HEADER_SIZE  # 1394
PROTOCOL_VERSION = 0


class Role(str, Enum):
    """Which end of the connection sends a message."""

    CLIENT = "client"
    SERVER = "server"


class Channel(str, Enum):
    """TCP (the TLS handshake) or UDP (everything after login OK)."""

    TCP = "tcp"
    UDP = "udp"


BOTH = frozenset({Role.CLIENT, Role.SERVER})
FROM_CLIENT = frozenset({Role.CLIENT})
FROM_SERVER = frozenset({Role.SERVER})


def header(msg_type: int, length: int) -> int:
    return msg_type | length << 5


def split_header(word: int) -> tuple[int, int]:
    """(type, length) of a header word."""
    return word & 0x1F, word >> 5


@dataclass(frozen=True, slots=True)
class Context:
    """What a decoder needs to know about the world and not from the bytes.

    ``numchar`` (the number of character options, from the asset bundle)
    sizes the options of a player sprites update record (type 7, record 2);
    without it such a record cannot be delimited, so decoding one fails with
    a message that says so. ``max_world_state`` caps the compressed world
    state of a login OK before anything is buffered or inflated.
    """

    numchar: int | None = None
    max_world_state: int = 64 * 1024 * 1024


DEFAULT_CONTEXT = Context()

M = TypeVar("M", bound="Message")


class Message:
    """Base of every message class: ``encode()`` and a body decoder.

    Subclasses are slotted dataclasses with named fields. ``decode_body``
    gets a reader positioned after the header and bounded by the header's
    length; it must consume exactly that many bytes.
    """

    __slots__ = ()
    TYPE: ClassVar[int]
    NAME: ClassVar[str]
    SENDERS: ClassVar[frozenset[Role]] = BOTH
    CHANNEL: ClassVar[Channel] = Channel.UDP
    # Optional shortcut for hot messages: decode a whole, header-checked message without
    # a Reader, or return None to take the checked path (which then reports the error).
    decode_fast: ClassVar[Callable[[bytes | bytearray], Message | None] | None] = None

    def encode(self) -> bytes:
        raise NotImplementedError

    @classmethod
    def decode_body(cls: type[M], r: Reader, ctx: Context) -> M:
        raise NotImplementedError


def bad(path: str, expected: str, found: str) -> NoReturn:
    """An encoding error: a model value that cannot be put on the wire."""
    raise FormatError(None, path, expected, found)


def finish(cls: type[Message], body: bytes | bytearray) -> bytes:
    """Prefix ``body`` with the header, checking the length fits the channel."""
    length = len(body) + HEADER_SIZE
    limit = UDP_MAX_MESSAGE if cls.CHANNEL is Channel.UDP else MAX_LENGTH
    if length > limit:
        where = "a UDP datagram (1400 bytes with NetQ's 6)" if cls.CHANNEL is Channel.UDP \
            else "the 11-bit length field"
        bad(cls.NAME, f"a message of at most {limit} bytes to fit {where}", f"{length} bytes")
    return HEADER.pack(cls.TYPE | length << 5) + body


def check_length(r: Reader, cls: type[Message], expected: int, exact: bool = True) -> None:
    """Fail unless the message (header included) is ``expected`` bytes (or more)."""
    length = r.end - r.pos + HEADER_SIZE
    if length == expected or (not exact and length > expected):
        return
    what = f"{expected} bytes" if exact else f"more than {expected} bytes"
    r.fail("length", f"a {cls.NAME} message of {what}", f"{length} bytes", at=r.pos - HEADER_SIZE)


def end_check(r: Reader, cls: type[Message]) -> None:
    if r.pos != r.end:
        r.fail("", f"the end of the {cls.NAME} message", f"{r.end - r.pos} more bytes")


# -- the type table and the dispatcher ---------------------------------------------

_TYPES: dict[int, type[Message]] = {}
_HELLOS: dict[int, type[Message]] = {}  # type 0 is three messages, told apart by length


def message_type(cls: type[M]) -> type[M]:
    """Class decorator: enter a message class in the type table."""
    if cls.TYPE == 0:
        _HELLOS[cls.SIZE] = cls  # type: ignore[attr-defined]
    else:
        assert cls.TYPE not in _TYPES, cls
        _TYPES[cls.TYPE] = cls
    return cls


def message_class(msg_type: int, length: int) -> type[Message] | None:
    if msg_type == 0:
        return _HELLOS.get(length)
    return _TYPES.get(msg_type)


def decode(data: bytes | bytearray | memoryview, *, sender: Role | None = None,
           ctx: Context = DEFAULT_CONTEXT, offset: int = 0) -> Message:
    """Decode one whole message: ``data`` holds exactly one (a datagram's payload).

    ``sender`` (who sent it) rejects messages that side never sends;
    ``offset`` is where ``data`` starts in a larger stream, for messages.
    A login OK (type 5) is followed by its world state, so its ``data`` is
    270 bytes plus the state; every other message fills ``data`` exactly.
    """
    if isinstance(data, memoryview):
        data = bytes(data)
    n = len(data)
    if n < HEADER_SIZE:
        Reader(data, base=offset, path="message", what="the message").u16("header")
    word = data[0] | data[1] << 8
    msg_type, length = word & 0x1F, word >> 5
    cls = _HELLOS.get(length) if msg_type == 0 else _TYPES.get(msg_type)
    if cls is None or length != n or (sender is not None and sender not in cls.SENDERS):
        cls = _check_header(data, msg_type, length, cls, sender, offset)
    elif cls.decode_fast is not None:  # a known type, the right length, a sender it allows
        msg = cls.decode_fast(data)
        if msg is not None:
            return msg
    r = Reader(data, HEADER_SIZE, n, base=offset, path=cls.NAME, what="the message")
    return cls.decode_body(r, ctx)


def _check_header(data: bytes | bytearray, msg_type: int, length: int,
                  cls: type[Message] | None, sender: Role | None, offset: int) -> type[Message]:
    """The slow path of :func:`decode`: unknown types, odd lengths, the sender check."""
    r = Reader(data, base=offset, path="message", what="the message")
    if length < HEADER_SIZE:
        r.fail("length", "a length of at least 2 (the header)", str(length), at=0)
    if cls is None:
        if msg_type == 0:
            r.fail("length", "a hello of 8, 32 or 64 bytes (type 0)", f"{length} bytes", at=0)
        from .game import OpaquePacket  # types 17-31; 0-16 are all known
        cls = OpaquePacket
    if sender is not None and sender not in cls.SENDERS:
        r.fail("type", f"a message a {sender.value} sends",
               f"{cls.NAME} (type {msg_type}), sent only by the "
               f"{next(iter(cls.SENDERS)).value}", at=0)
    n = len(data)
    if length != n and not (cls.TYPE == 5 and length < n):
        r.fail("length", f"a length equal to the {n} bytes of the message", str(length), at=0)
    return cls


def peek(data: bytes | bytearray, pos: int = 0) -> tuple[int, int] | None:
    """(type, length) of the message starting at ``pos``, or None if fewer than 2 bytes."""
    if len(data) - pos < HEADER_SIZE:
        return None
    return split_header(HEADER.unpack_from(data, pos)[0])

