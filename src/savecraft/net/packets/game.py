"""The UDP messages (types 6-16) and the opaque packets of types 17-31.

After login every message travels in a NetQ datagram (see
:mod:`savecraft.net.netq`), so none may exceed 1394 bytes (1400 with NetQ's
6-byte header): :func:`~savecraft.net.packets.base.finish` refuses to build
a longer one.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import IntEnum
from typing import ClassVar

from ...binary import Reader
from ...compression import Container, compress, inflate
from ...layout import REST, U8, U16, U24, U32, Array, Bytes, Check, Computed, CStr, Field, Stored, Struct
from .base import (
    BOTH,
    FROM_CLIENT,
    FROM_SERVER,
    HEADER,
    UDP_MAX_MESSAGE,
    Context,
    Message,
    bad,
    describe,
    enum_byte,
    message_type,
)
from .handshake import OTP_SIZE
from .updates import RECORDS, RECORD_TYPES, UpdateRecord

OWN_INVENTORY = 0xFFFFFFFF  # the user id of an inventory query for one's own inventory


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



describe(UdpHello, [Field("otp", Bytes(OTP_SIZE))])


@message_type
@dataclass(slots=True)
class Update(Message):
    """Type 7: records about the players around; an empty one checks the client is there."""

    TYPE: ClassVar[int] = 7
    NAME: ClassVar[str] = "update"
    SENDERS = FROM_SERVER

    records: list[UpdateRecord] = field(default_factory=list)

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


describe(Update, [Field("records", RECORDS)])


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



describe(Move, [Field("map_id", U32), Field("x", U16), Field("y", U16), Field("direction", U8),
                          Field("altitude", U8), Field("actions", Array(U8, REST))])


@message_type
@dataclass(slots=True)
class Logout(Message):
    """Type 9: the player quits (the server also acts as if it came after 5 silent seconds)."""

    TYPE: ClassVar[int] = 9
    SIZE: ClassVar[int] = 2
    NAME: ClassVar[str] = "logout"
    SENDERS = FROM_CLIENT



describe(Logout, [])


class _IdMessage(Message):
    """A header and one u32 id (map request, whois, inventory query)."""

    __slots__ = ()
    SIZE: ClassVar[int] = 6
    FIELD: ClassVar[str]


@message_type
@dataclass(slots=True)
class MapRequest(_IdMessage):
    """Type 10: send me this map (a section 35 map asset number)."""

    TYPE: ClassVar[int] = 10
    NAME: ClassVar[str] = "map_request"
    FIELD: ClassVar[str] = "map_id"
    SENDERS = FROM_CLIENT

    map_id: int = 0


describe(MapRequest, [Field("map_id", U32)])
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

    @classmethod
    def fragments(cls, map_id: int, asset: bytes) -> list[MapFragment]:
        """The fragments of one map asset, in order, each filling a datagram."""
        if len(asset) >= 1 << 24:
            bad(f"{cls.NAME}.total", "a map asset of less than 16 MiB (u24)", f"{len(asset)} bytes")
        step = cls.MAX_DATA
        return [cls(map_id, len(asset), off, bytes(asset[off:off + step]))
                for off in range(0, max(len(asset), 1), step)]


describe(MapFragment, [
    Field("map_id", U32), Field("total", U24), Field("offset", U24), Field("data", Bytes(REST)),
    Check("offset + len(data) <= total", "offset", "a fragment inside the map's total bytes",
          "str(len(data)) + ' bytes at offset ' + str(offset) + ' of a ' + str(total) + '-byte map'",
          on_write=True),
])


@message_type
@dataclass(slots=True)
class TextChat(Message):
    """Type 12: a chat line; the client sends user id 0, the server fills in the speaker."""

    TYPE: ClassVar[int] = 12
    NAME: ClassVar[str] = "text_chat"

    user_id: int = 0
    text: str = ""



describe(TextChat, [Field("user_id", U32), Field("text", CStr())])


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


_PRECISIONS = "0 (8 bit), 1 (16 bit) or 2 (16 bit big endian)"
_COMPRESSIONS = "0 (none) or 1 (deflate)"
describe(VoiceChat, [
    Field("speaker_id", U32),
    Field("rate", enum_byte(U8, SampleRate, "0 (22050 Hz) or 1 (44100 Hz)")),
    # One byte: the precision in its low four bits, the compression in its high four.
    Check("precision in Precision._value2member_map_", "precision", _PRECISIONS, "repr(precision)",
          on_write=True, on_read=False),
    Check("compression in VoiceCompression._value2member_map_", "compression", _COMPRESSIONS,
          "repr(compression)", on_write=True, on_read=False),
    Stored("format", U8, "int(precision) | int(compression) << 4"),
    Check("format & 15 in Precision._value2member_map_", "format.precision", _PRECISIONS, "format & 15"),
    Check("format >> 4 in VoiceCompression._value2member_map_", "format.compression", _COMPRESSIONS,
          "format >> 4"),
    Computed("precision", "Precision(format & 15)"),
    Computed("compression", "VoiceCompression(format >> 4)"),
    Field("data", Bytes(REST)),
], env={"Precision": Precision, "VoiceCompression": VoiceCompression})


class QuestAction(IntEnum):
    ACCEPTED = 0
    COMPLETED = 1
    CANCELLED = 2


@message_type
@dataclass(slots=True)
class Quest(Message):
    """Type 14: a quest was accepted, completed or cancelled."""

    TYPE: ClassVar[int] = 14
    SIZE: ClassVar[int] = 7
    NAME: ClassVar[str] = "quest"

    quest_id: int = 0
    action: QuestAction = QuestAction.ACCEPTED



describe(Quest, [Field("quest_id", U32),
                            Field("action", enum_byte(U8, QuestAction,
                                                      "0 (accepted), 1 (completed) or 2 (cancelled)"))])


@message_type
@dataclass(slots=True)
class Whois(_IdMessage):
    """Type 15: tell me about this player (answered with a sprites update record)."""

    TYPE: ClassVar[int] = 15
    NAME: ClassVar[str] = "whois"
    FIELD: ClassVar[str] = "user_id"
    SENDERS = FROM_CLIENT

    user_id: int = 0


describe(Whois, [Field("user_id", U32)])


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


describe(InventoryQuery, [Field("user_id", U32)])


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
