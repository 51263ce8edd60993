"""What every TirNanoG message shares: the 2-byte header, limits, roles, dispatch.

The header is one little-endian u16: the type in bits 0-4 and the length of
the whole message (header included) in bits 5-15 (NOTES.md). A message class
declares its type, who may send it and on which channel, and its body (what
follows the header) once, as a record description (``BODY``, see
:mod:`savecraft.layout`): its encoder, its checked decoder (located errors,
byte spans) and the fast decoder :func:`decode` tries first are all derived
from that one declaration. :func:`decode` picks the class from the type and
checks the length before the class reads a byte.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from collections.abc import Callable
from enum import Enum, IntEnum
from typing import Any, ClassVar, NoReturn, TypeVar

from ...binary import Reader, Writer
from ...errors import FormatError
from ...layout import FAST_READ_ERRORS, U16, Adapt, Array, Bytes, Check, Computed, Const, Field, Int, Rest
from ...layout import Stored, Struct
from ...layout import Context as LayoutContext

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


_CONTEXTS: dict[int | None, LayoutContext] = {}


def layout_context(ctx: Context) -> LayoutContext:
    """The values a message's description may need from the world (``numchar``), one
    :class:`~savecraft.layout.Context` per distinct world (the descriptions only read it)."""
    got = _CONTEXTS.get(ctx.numchar)
    if got is None:
        got = _CONTEXTS[ctx.numchar] = LayoutContext({} if ctx.numchar is None else {"numchar": ctx.numchar})
    return got


class Message:
    """Base of every message class: ``encode()`` and a body decoder, from ``BODY``.

    Subclasses are slotted dataclasses with named fields and a ``BODY``: the
    description of the bytes after the header. ``SIZE``, where a message has one,
    is the whole message's fixed length (header included), checked before the
    body is read. ``decode_body`` gets a reader positioned after the header and
    bounded by the header's length; it must consume exactly that many bytes. A
    message whose bytes are not all a layout (the login OK's world state, the
    opaque packets' type) overrides ``encode``/``decode_body``.
    """

    __slots__ = ()
    TYPE: ClassVar[int]
    NAME: ClassVar[str]
    BODY: ClassVar[Struct]
    WHOLE: ClassVar[Struct | None] = None  # header and body, where the size follows from the fields
    SENDERS: ClassVar[frozenset[Role]] = BOTH
    CHANNEL: ClassVar[Channel] = Channel.UDP
    # The fast decoder of a whole, header-checked message without a Reader, or None to take
    # the checked path (which then reports the error): derived from ``BODY`` by
    # :func:`message_type`.
    decode_fast: ClassVar[Callable[[bytes | bytearray], Message | None] | None] = None

    def encode(self) -> bytes:
        # The first message of a class replaces this method by the class's generated encoder.
        return _encoder(type(self))(self)

    @classmethod
    def decode_body(cls: type[M], r: Reader, ctx: Context) -> M:
        size: int | None = getattr(cls, "SIZE", None)
        if size is not None:
            check_length(r, cls, size)
        msg: M = cls.BODY.read(r, layout_context(ctx))
        end_check(r, cls)
        return msg


_NO_WORLD = LayoutContext()


def _encoder(cls: type[Message]) -> Callable[[Message], bytes]:
    """The class's encoder, generated on its first message (start-up) and made its ``encode``:
    the whole message's packer, or the body's and then the header; for a value the packer
    gives up on, the checked writer, which names the field and what it needs."""
    whole = cls.WHOLE
    if whole is not None:
        def checked(msg: Message) -> bytes:
            return whole.pack_checked(msg, _NO_WORLD, cls.NAME)
        encoder = whole.encoder(_NO_WORLD, checked)
    else:
        body = cls.BODY

        def slow(msg: Message) -> bytes:
            return finish(cls, body.pack_checked(msg, _NO_WORLD, cls.NAME))
        fast = body.encoder(_NO_WORLD, slow)

        def encoder(msg: Message) -> bytes:
            return finish(cls, fast(msg))
    cls.encode = encoder  # type: ignore[method-assign, assignment]
    return encoder


def _fast_decoder(cls: type[Message]) -> Callable[[bytes | bytearray], Message | None]:
    """The generated fast reader of ``cls.BODY`` over a whole message (None: take the checked
    path). It runs without the world's values: a body that needs them goes the checked way."""
    body = cls.BODY
    size: int | None = getattr(cls, "SIZE", None)
    read: Callable[..., tuple[Message, int]] | None = None  # generated on first use (start-up)

    def fast(data: bytes | bytearray) -> Message | None:
        nonlocal read
        n = len(data)
        if size is not None and n != size:
            return None
        if read is None:
            read = body.fast_read_fn
        try:
            msg, pos = read(data, HEADER_SIZE, n, _NO_WORLD)
        except FAST_READ_ERRORS:
            return None
        return msg if pos == n else None

    return fast


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


def describe(cls: type[Message], members: list[Any], **kw: Any) -> Struct:
    """Declare ``cls``'s body (the members after the header) and derive its fast decoder, and,
    where the body's size follows from its fields, the description of the whole message."""
    cls.BODY = Struct(cls, members, name=cls.NAME, **kw)
    cls.WHOLE = _whole(cls, members, kw)
    cls.decode_fast = _fast_decoder(cls)
    return cls.BODY


def _whole(cls: type[Message], members: list[Any], kw: dict[str, Any]) -> Struct | None:
    """The message with its header as one description (the header a ``Stored`` value of the
    body's size), so a hot message is one ``pack``: only where the size follows from the
    fields (fixed values, then at most one last field of bytes taking the rest)."""
    fixed, tail = 0, None
    for k, m in enumerate(members):
        kind = m.kind if isinstance(m, Stored) else getattr(m, "type", None)
        if isinstance(m, Check | Computed):
            continue
        if isinstance(m, Field | Const | Stored) and kind is not None and kind.code is not None:
            fixed += kind.min_size
        elif (k == len(members) - 1 and isinstance(m, Field) and isinstance(m.type, Array | Bytes)
              and isinstance(getattr(m.type, "count", getattr(m.type, "size", None)), Rest)
              and (isinstance(m.type, Bytes) or m.type.kind.code == "B")):
            tail = m.name
        else:
            return None
    size = f"{HEADER_SIZE + fixed}" + (f" + len({tail})" if tail else "")
    limit = UDP_MAX_MESSAGE if cls.CHANNEL is Channel.UDP else MAX_LENGTH
    where = "a UDP datagram (1400 bytes with NetQ's 6)" if cls.CHANNEL is Channel.UDP \
        else "the 11-bit length field"
    head: list[Any] = [Stored("header", U16, f"{cls.TYPE} | ({size}) << 5")]
    if tail:
        head.insert(0, Check(f"{size} <= {limit}", tail, f"a message of at most {limit} bytes to fit {where}",
                             f"str({size}) + ' bytes'", on_write=True, on_read=False))
    return Struct(cls, [*head, *members], name=cls.NAME, **kw)


def enum_byte(kind: Int, enum: type[IntEnum], expected: str) -> Adapt:
    """A stored number seen as one of ``enum``'s members: any other is refused both ways."""
    def decode(v: int) -> IntEnum:
        try:
            return enum(v)
        except ValueError:
            raise ValueError(str(v)) from None

    def encode(v: Any) -> int:
        if v not in enum._value2member_map_:
            raise ValueError(repr(v))
        return int(v)

    return Adapt(kind, decode, encode, expected)


def message_type(cls: type[M]) -> type[M]:
    """Class decorator: enter a message class in the type table, with the fast decoder of its
    body's description."""
    if "BODY" in cls.__dict__ and "decode_body" not in cls.__dict__:
        cls.decode_fast = _fast_decoder(cls)
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

