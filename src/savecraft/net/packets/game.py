"""The UDP messages (types 6-16) and the opaque packets of types 17-31.

After login every message travels in a NetQ datagram (see
:mod:`savecraft.net.netq`), so none may exceed 1394 bytes (1400 with NetQ's
6-byte header): :func:`~savecraft.net.packets.base.finish` refuses to build
a longer one.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import IntEnum
from typing import ClassVar, NoReturn

from ...binary import Reader
from ...compression import Container, compress, inflate
from .base import (
    BOTH,
    FROM_CLIENT,
    FROM_SERVER,
    HEADER,
    UDP_MAX_MESSAGE,
    Context,
    Message,
    bad,
    check_length,
    end_check,
    finish,
    message_type,
)
from .handshake import OTP_SIZE
from .updates import RECORD_TYPES, UpdateRecord, decode_records

OWN_INVENTORY = 0xFFFFFFFF  # the user id of an inventory query for one's own inventory
_U32 = struct.Struct("<HI")


def _range(path: str, fields: tuple[tuple[str, object, int], ...]) -> NoReturn:
    for name, v, bits in fields:
        if not isinstance(v, int) or not 0 <= v < 1 << bits:
            bad(f"{path}.{name}", f"an integer from 0 to {(1 << bits) - 1} (u{bits})", repr(v))
    bad(path, "values that fit the message", "a value that does not")


def _cstr_bytes(text: str, path: str) -> bytes:
    try:
        raw = text.encode("utf-8")
    except UnicodeEncodeError:
        bad(path, "text in valid UTF-8", repr(text)[:40])
    if b"\0" in raw:
        bad(path, "text without NUL characters", repr(text)[:40])
    return raw + b"\0"


@message_type
@dataclass(slots=True)
class UdpHello(Message):
    """Type 6: the one plain datagram; registers the client's UDP address (zero OTP: discovery).

    ``encode()`` gives the 10-byte message; :func:`savecraft.net.crypto.plain_datagram`
    puts 'H' 'i' 0 0 0 0 before it, where the NetQ header would be.
    """

    TYPE: ClassVar[int] = 6
    SIZE: ClassVar[int] = 10
    NAME: ClassVar[str] = "udp_hello"
    SENDERS = BOTH

    otp: bytes = bytes(OTP_SIZE)

    @property
    def is_discovery(self) -> bool:
        return not any(self.otp)

    def encode(self) -> bytes:
        if not isinstance(self.otp, bytes | bytearray) or len(self.otp) != OTP_SIZE:
            bad(f"{self.NAME}.otp", f"{OTP_SIZE} bytes", repr(self.otp)[:40])
        return HEADER.pack(self.TYPE | self.SIZE << 5) + bytes(self.otp)

    @classmethod
    def decode_body(cls, r: Reader, ctx: Context) -> UdpHello:
        check_length(r, cls, cls.SIZE)
        return cls(r.bytes(OTP_SIZE, "otp"))


@message_type
@dataclass(slots=True)
class Update(Message):
    """Type 7: records about the players around; an empty one checks the client is there."""

    TYPE: ClassVar[int] = 7
    NAME: ClassVar[str] = "update"
    SENDERS = FROM_SERVER

    records: list[UpdateRecord] = field(default_factory=list)

    def encode(self) -> bytes:
        parts = []
        for k, rec in enumerate(self.records):
            if not isinstance(rec, RECORD_TYPES):
                bad(f"{self.NAME}.records[{k}]", "an update record", type(rec).__name__)
            parts.append(rec.encode())
        return finish(Update, b"".join(parts))

    @classmethod
    def decode_body(cls, r: Reader, ctx: Context) -> Update:
        return cls(decode_records(r, ctx))

    @staticmethod
    def pack_encoded(encoded_records: Iterable[bytes]) -> list[bytes]:
        """Whole update messages from records encoded once (``rec.encode()``), in order.

        For a server relaying one move to many players: encode the record
        once, then pack each recipient's records without encoding them again.
        Each message is as full as a datagram allows.
        """
        out: list[bytes] = []
        cur: list[bytes] = []
        size = 2
        for raw in encoded_records:
            n = len(raw)
            if n + 2 > UDP_MAX_MESSAGE or n == 0:
                bad("update.records", f"an encoded record of 1 to {UDP_MAX_MESSAGE - 2} bytes",
                    f"{n} bytes")
            if size + n > UDP_MAX_MESSAGE:
                out.append(HEADER.pack(7 | size << 5) + b"".join(cur))
                cur, size = [], 2
            cur.append(raw)
            size += n
        if cur:
            out.append(HEADER.pack(7 | size << 5) + b"".join(cur))
        return out

    @staticmethod
    def batch(records: list[UpdateRecord]) -> list[Update]:
        """Pack records into as few updates as fit a datagram each (in order)."""
        out: list[Update] = []
        cur: list[UpdateRecord] = []
        size = 2
        for rec in records:
            n = len(rec.encode())
            if n + 2 > UDP_MAX_MESSAGE:
                bad("update.records", f"a record of at most {UDP_MAX_MESSAGE - 2} bytes",
                    f"{n} bytes")
            if size + n > UDP_MAX_MESSAGE:
                out.append(Update(cur))
                cur, size = [], 2
            cur.append(rec)
            size += n
        if cur:
            out.append(Update(cur))
        return out


_MOVE = struct.Struct("<HIHHBB")


@message_type
@dataclass(slots=True)
class Move(Message):
    """Type 8: where the client's player is now, and its actions since the last move.

    The action list is not documented; the project sends one byte per
    action, the number of a default action handler (section 26, header
    byte 40). An empty list only tells the server the client is alive.
    """

    TYPE: ClassVar[int] = 8
    NAME: ClassVar[str] = "move"
    SENDERS = FROM_CLIENT

    map_id: int = 0
    x: int = 0
    y: int = 0
    direction: int = 0
    altitude: int = 0
    actions: list[int] = field(default_factory=list)

    def encode(self) -> bytes:
        n = len(self.actions)
        if n > UDP_MAX_MESSAGE - 12:
            bad(f"{self.NAME}.actions", f"at most {UDP_MAX_MESSAGE - 12} actions", str(n))
        try:
            return _MOVE.pack(8 | (12 + n) << 5, self.map_id, self.x, self.y, self.direction,
                              self.altitude) + bytes(self.actions)
        except (struct.error, TypeError, ValueError):
            for k, a in enumerate(self.actions):
                if not isinstance(a, int) or not 0 <= a < 256:
                    bad(f"{self.NAME}.actions[{k}]", "an action number from 0 to 255", repr(a))
            _range(self.NAME, (("map_id", self.map_id, 32), ("x", self.x, 16), ("y", self.y, 16),
                               ("direction", self.direction, 8), ("altitude", self.altitude, 8)))
            raise

    @staticmethod
    def _fast(data: bytes | bytearray) -> Move | None:
        if len(data) < 12:
            return None
        _, m, x, y, d, a = _MOVE.unpack_from(data, 0)
        return Move(m, x, y, d, a, list(data[12:]))

    @classmethod
    def decode_body(cls, r: Reader, ctx: Context) -> Move:
        pos = r.pos - 2
        if r.end - pos < 12:
            check_length(r, cls, 12, exact=False)
        _, m, x, y, d, a = _MOVE.unpack_from(r.data, pos)
        actions = list(r.data[pos + 12:r.end])
        r.pos = r.end
        return cls(m, x, y, d, a, actions)


Move.decode_fast = Move._fast


@message_type
@dataclass(slots=True)
class Logout(Message):
    """Type 9: the player quits (the server also acts as if it came after 5 silent seconds)."""

    TYPE: ClassVar[int] = 9
    SIZE: ClassVar[int] = 2
    NAME: ClassVar[str] = "logout"
    SENDERS = FROM_CLIENT

    def encode(self) -> bytes:
        return HEADER.pack(self.TYPE | self.SIZE << 5)

    @classmethod
    def decode_body(cls, r: Reader, ctx: Context) -> Logout:
        check_length(r, cls, cls.SIZE)
        return cls()


class _IdMessage(Message):
    """A header and one u32 id (map request, whois, inventory query)."""

    __slots__ = ()
    SIZE: ClassVar[int] = 6
    FIELD: ClassVar[str]

    def encode(self) -> bytes:
        v = getattr(self, self.FIELD)
        try:
            return _U32.pack(self.TYPE | 6 << 5, v)
        except (struct.error, TypeError):
            _range(self.NAME, ((self.FIELD, v, 32),))
            raise

    @classmethod
    def decode_body(cls, r: Reader, ctx: Context) -> _IdMessage:
        check_length(r, cls, cls.SIZE)
        return cls(r.u32(cls.FIELD))  # type: ignore[call-arg]


@message_type
@dataclass(slots=True)
class MapRequest(_IdMessage):
    """Type 10: send me this map (a section 35 map asset number)."""

    TYPE: ClassVar[int] = 10
    NAME: ClassVar[str] = "map_request"
    FIELD: ClassVar[str] = "map_id"
    SENDERS = FROM_CLIENT

    map_id: int = 0


_FRAGMENT = struct.Struct("<HI")


@message_type
@dataclass(slots=True)
class MapFragment(Message):
    """Type 11: bytes ``offset``... of a map asset (compressed, as in the game file) of ``total`` bytes.

    :func:`fragments` cuts an asset into datagram-sized pieces;
    :class:`savecraft.net.netq.MapAssembler` puts them back together.
    """

    TYPE: ClassVar[int] = 11
    NAME: ClassVar[str] = "map_fragment"
    SENDERS = FROM_SERVER
    MAX_DATA: ClassVar[int] = UDP_MAX_MESSAGE - 12

    map_id: int = 0
    total: int = 0
    offset: int = 0
    data: bytes = b""

    def encode(self) -> bytes:
        for name, v in (("total", self.total), ("offset", self.offset)):
            if not isinstance(v, int) or not 0 <= v < 1 << 24:
                bad(f"{self.NAME}.{name}", "an integer from 0 to 16777215 (u24)", repr(v))
        if self.offset + len(self.data) > self.total:
            bad(f"{self.NAME}.data", f"a fragment inside the {self.total} bytes of the map",
                f"{len(self.data)} bytes at offset {self.offset}")
        try:
            head = _FRAGMENT.pack(0, self.map_id)
        except (struct.error, TypeError):
            _range(self.NAME, (("map_id", self.map_id, 32),))
        body = head[2:] + self.total.to_bytes(3, "little") + self.offset.to_bytes(3, "little")
        return finish(MapFragment, body + bytes(self.data))

    @classmethod
    def decode_body(cls, r: Reader, ctx: Context) -> MapFragment:
        map_id = r.u32("map_id")
        total = r.u24("total")
        offset = r.u24("offset")
        data = r.rest()
        if offset + len(data) > total:
            r.fail("offset", f"a fragment inside the {total} bytes of the map",
                   f"{len(data)} bytes at offset {offset}", at=r.end - len(data) - 3)
        return cls(map_id, total, offset, data)

    @classmethod
    def fragments(cls, map_id: int, asset: bytes) -> list[MapFragment]:
        """The fragments of one map asset, in order, each filling a datagram."""
        if len(asset) >= 1 << 24:
            bad(f"{cls.NAME}.total", "a map asset of less than 16 MiB (u24)", f"{len(asset)} bytes")
        step = cls.MAX_DATA
        return [cls(map_id, len(asset), off, bytes(asset[off:off + step]))
                for off in range(0, max(len(asset), 1), step)]


@message_type
@dataclass(slots=True)
class TextChat(Message):
    """Type 12: a chat line; the client sends user id 0, the server fills in the speaker."""

    TYPE: ClassVar[int] = 12
    NAME: ClassVar[str] = "text_chat"

    user_id: int = 0
    text: str = ""

    def encode(self) -> bytes:
        raw = _cstr_bytes(self.text, f"{self.NAME}.text")
        try:
            head = _U32.pack(0, self.user_id)
        except (struct.error, TypeError):
            _range(self.NAME, (("user_id", self.user_id, 32),))
        return finish(TextChat, head[2:] + raw)

    @classmethod
    def decode_body(cls, r: Reader, ctx: Context) -> TextChat:
        user = r.u32("user_id")
        text = r.cstr("text")
        end_check(r, cls)
        return cls(user, text)


class SampleRate(IntEnum):
    HZ_22050 = 0
    HZ_44100 = 1


class Precision(IntEnum):
    PCM8 = 0
    PCM16 = 1
    PCM16_BE = 2


class VoiceCompression(IntEnum):
    NONE = 0
    DEFLATE = 1


_VOICE = struct.Struct("<HIBB")
MAX_VOICE_PCM = 1 << 16  # inflated PCM cap of one voice packet


@message_type
@dataclass(slots=True)
class VoiceChat(Message):
    """Type 13: mono PCM, 22050 or 44100 Hz, 8 or 16 bit, optionally deflated."""

    TYPE: ClassVar[int] = 13
    NAME: ClassVar[str] = "voice_chat"

    speaker_id: int = 0
    rate: SampleRate = SampleRate.HZ_22050
    precision: Precision = Precision.PCM8
    compression: VoiceCompression = VoiceCompression.NONE
    data: bytes = b""

    def encode(self) -> bytes:
        try:
            head = _VOICE.pack(0, self.speaker_id, int(self.rate),
                               int(self.precision) | int(self.compression) << 4)
        except (struct.error, TypeError, ValueError):
            _range(self.NAME, (("speaker_id", self.speaker_id, 32), ("rate", self.rate, 8),
                               ("precision", self.precision, 4),
                               ("compression", self.compression, 4)))
        for name, v, enum in (("rate", self.rate, SampleRate), ("precision", self.precision, Precision),
                              ("compression", self.compression, VoiceCompression)):
            if v not in enum._value2member_map_:
                bad(f"{self.NAME}.{name}", f"one of {[int(e) for e in enum]}", repr(v))
        return finish(VoiceChat, head[2:] + bytes(self.data))

    @classmethod
    def decode_body(cls, r: Reader, ctx: Context) -> VoiceChat:
        speaker = r.u32("speaker_id")
        rate = r.u8("rate")
        packed = r.u8("format")
        if rate not in SampleRate._value2member_map_:
            r.fail("rate", "0 (22050 Hz) or 1 (44100 Hz)", str(rate), at=r.pos - 2)
        if packed & 0x0F not in Precision._value2member_map_:
            r.fail("format.precision", "0 (8 bit), 1 (16 bit) or 2 (16 bit big endian)",
                   str(packed & 0x0F), at=r.pos - 1)
        if packed >> 4 not in VoiceCompression._value2member_map_:
            r.fail("format.compression", "0 (none) or 1 (deflate)", str(packed >> 4), at=r.pos - 1)
        return cls(speaker, SampleRate(rate), Precision(packed & 0x0F),
                   VoiceCompression(packed >> 4), r.rest())

    def pcm(self, offset: int = 0) -> bytes:
        """The PCM samples, inflated when the packet is compressed (capped)."""
        if self.compression == VoiceCompression.NONE:
            return bytes(self.data)
        return inflate(self.data, offset=offset + 8, path=f"{self.NAME}.data",
                       limit=MAX_VOICE_PCM).data

    @classmethod
    def from_pcm(cls, pcm: bytes, rate: SampleRate = SampleRate.HZ_22050,
                 precision: Precision = Precision.PCM8, speaker_id: int = 0) -> VoiceChat:
        """A packet for ``pcm``, deflated when the raw samples would not fit a datagram."""
        if len(pcm) + 8 <= UDP_MAX_MESSAGE:
            return cls(speaker_id, rate, precision, VoiceCompression.NONE, bytes(pcm))
        return cls(speaker_id, rate, precision, VoiceCompression.DEFLATE,
                   compress(pcm, Container.ZLIB, 9))

    @property
    def sample_rate(self) -> int:
        return 22050 if self.rate == SampleRate.HZ_22050 else 44100


class QuestAction(IntEnum):
    ACCEPTED = 0
    COMPLETED = 1
    CANCELLED = 2


_QUEST = struct.Struct("<HIB")


@message_type
@dataclass(slots=True)
class Quest(Message):
    """Type 14: a quest was accepted, completed or cancelled."""

    TYPE: ClassVar[int] = 14
    SIZE: ClassVar[int] = 7
    NAME: ClassVar[str] = "quest"

    quest_id: int = 0
    action: QuestAction = QuestAction.ACCEPTED

    def encode(self) -> bytes:
        if self.action not in QuestAction._value2member_map_:
            bad(f"{self.NAME}.action", "0 (accepted), 1 (completed) or 2 (cancelled)",
                repr(self.action))
        try:
            return _QUEST.pack(self.TYPE | self.SIZE << 5, self.quest_id, int(self.action))
        except (struct.error, TypeError):
            _range(self.NAME, (("quest_id", self.quest_id, 32),))
            raise

    @classmethod
    def decode_body(cls, r: Reader, ctx: Context) -> Quest:
        check_length(r, cls, cls.SIZE)
        qid = r.u32("quest_id")
        action = r.u8("action")
        if action not in QuestAction._value2member_map_:
            r.fail("action", "0 (accepted), 1 (completed) or 2 (cancelled)", str(action),
                   at=r.pos - 1)
        return cls(qid, QuestAction(action))


@message_type
@dataclass(slots=True)
class Whois(_IdMessage):
    """Type 15: tell me about this player (answered with a sprites update record)."""

    TYPE: ClassVar[int] = 15
    NAME: ClassVar[str] = "whois"
    FIELD: ClassVar[str] = "user_id"
    SENDERS = FROM_CLIENT

    user_id: int = 0


@message_type
@dataclass(slots=True)
class InventoryQuery(_IdMessage):
    """Type 16: show me this player's inventory (``OWN_INVENTORY`` for one's own)."""

    TYPE: ClassVar[int] = 16
    NAME: ClassVar[str] = "inventory_query"
    FIELD: ClassVar[str] = "user_id"
    SENDERS = FROM_CLIENT

    user_id: int = OWN_INVENTORY

    @property
    def own(self) -> bool:
        return self.user_id == OWN_INVENTORY


@dataclass(slots=True)
class OpaquePacket(Message):
    """Types 17-31: not documented, so kept as the type and the bytes after the header."""

    TYPE: ClassVar[int] = -1
    NAME: ClassVar[str] = "opaque"
    packet_type: int = 17
    payload: bytes = b""

    def encode(self) -> bytes:
        if not isinstance(self.packet_type, int) or not 17 <= self.packet_type <= 31:
            bad(f"{self.NAME}.packet_type", "an undocumented type from 17 to 31",
                repr(self.packet_type))
        length = len(self.payload) + 2
        if length > UDP_MAX_MESSAGE:
            bad(self.NAME, f"a message of at most {UDP_MAX_MESSAGE} bytes to fit a UDP datagram "
                "(1400 bytes with NetQ's 6)", f"{length} bytes")
        return HEADER.pack(self.packet_type | length << 5) + bytes(self.payload)

    @classmethod
    def decode_body(cls, r: Reader, ctx: Context) -> OpaquePacket:
        return cls(r.data[r.pos - 2] & 0x1F, r.rest())


__all__ = [
    "InventoryQuery", "Logout", "MapFragment", "MapRequest", "Move", "OWN_INVENTORY",
    "OpaquePacket", "Precision", "Quest", "QuestAction", "SampleRate", "TextChat", "UdpHello",
    "Update", "VoiceChat", "VoiceCompression", "Whois",
]
