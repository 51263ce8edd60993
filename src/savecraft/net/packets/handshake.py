"""The TCP (TLS) handshake messages: hello, asset bundle, register, login, error, login OK.

Sequence (see :mod:`savecraft.net.session` for the state machine)::

    client                         server
    ClientHello (0, 8 bytes)  -->
                              <--  ServerHello (0, 64 bytes)
    BundleRequest (1)         -->
                              <--  AssetBundle (raw bytes + CRC-32), then close
  or
    Register (2) / Login (3)  -->
                              <--  LoginOk (5) + world state, then close
                              <--  or Error (4) with a reason code

The LAN discovery reply (type 0, 32 bytes) lives here too: it is a
shortened server hello, sent over UDP in answer to a UDP hello with a zero OTP.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass, field
from enum import IntEnum
from typing import ClassVar

from ...binary import Reader, Writer
from ...compression import Deflated, inflate
from ...errors import FormatError, Report
from ...layout import I32, REST, U8, U16, U32, U64, Adapt, Array, Bytes, Const, CStr, Field
from ...layout import Context as Context_
from ...layout import Struct
from ...formats.tirnanog.type_byte import type_byte
from ...formats.tirnanog.save.codec import payload_bytes, scan_chunks
from ...formats.tirnanog.save.model import ChunkList, SaveGame, UserChunk
from .base import (
    FROM_CLIENT,
    FROM_SERVER,
    HEADER,
    PROTOCOL_VERSION,
    Channel,
    Context,
    Message,
    bad,
    describe,
    finish,
    message_type,
)

CLIENT_MAGIC = b"TNGP"
SERVER_MAGIC = b"TNGS"
HASH_SIZE = 32
TOKEN_SIZE = 256
OTP_SIZE = 8


def _game_id_text(raw: bytes) -> str:
    text, _, padding = raw.partition(b"\0")
    if padding.strip(b"\0"):  # what comes after the NUL is padding: anything else would not re-encode
        first = len(text) + 1 + next(i for i, b in enumerate(padding) if b)
        raise ValueError(f"byte 0x{raw[first]:02X} at game_id[{first}]")
    try:
        return text.decode("ascii")
    except UnicodeDecodeError as exc:
        raise ValueError(f"byte 0x{text[exc.start]:02X} at game_id[{exc.start}]") from None


def _game_id_bytes(game_id: str) -> bytes:
    raw = game_id.encode("ascii")  # UnicodeEncodeError is a ValueError: the writer names the field
    if len(raw) > 16 or b"\0" in raw:
        raise ValueError(repr(game_id))
    return raw.ljust(16, b"\0")


# The game id: ASCII, NUL-padded to 16 bytes, as in the game file's header.
GAME_ID = Adapt(Bytes(16), _game_id_text, _game_id_bytes,
                "an ASCII game id of at most 16 bytes, then zero bytes after the game id's NUL")


# -- hello -------------------------------------------------------------------------------

@message_type
@dataclass(slots=True)
class ClientHello(Message):
    """The first message on TCP: the client's protocol version and 'TNGP'."""

    TYPE: ClassVar[int] = 0
    SIZE: ClassVar[int] = 8
    NAME: ClassVar[str] = "client_hello"
    SENDERS = FROM_CLIENT
    CHANNEL = Channel.TCP

    version: int = PROTOCOL_VERSION


describe(ClientHello, [Field("version", U16), Const("magic", Bytes(4), CLIENT_MAGIC, repr(CLIENT_MAGIC))])


@message_type
@dataclass(slots=True)
class ServerHello(Message):
    """The server's answer: the game's header fields and the asset bundle's id and size.

    Bytes 16-56 are the game file's header bytes 16-56 (see
    :meth:`from_file_header`); tile sizes are 10-bit, their bits 8-9 packed
    into the game type byte (NOTES.md). ``bundle_size`` is the number of
    asset bundle bytes a bundle request returns (the CRC's 4 not counted).
    """

    TYPE: ClassVar[int] = 0
    SIZE: ClassVar[int] = 64
    NAME: ClassVar[str] = "server_hello"
    SENDERS = FROM_SERVER
    CHANNEL = Channel.TCP

    game_id: str = ""
    version: int = PROTOCOL_VERSION
    features: int = 0
    revision: int = 0
    game_type: int = 0
    tile_width: int = 32
    tile_height: int = 32
    map_size: int = 6
    atlas_size: int = 10
    audio_rate: int = 0
    fps: int = 30
    default_actions: int = 9
    map_layers: int = 11
    transports: int = 3
    highest_command: int = 0
    sprite_delta_y: int = 0
    sprites_per_layer: int = 20
    reserved: int = 0
    bundle_id: int = 0
    bundle_size: int = 0

    @classmethod
    def from_file_header(cls, head: bytes, bundle_size: int) -> ServerHello:
        """The hello for a game file: ``head`` is the file's first 64 bytes (bytes 16-56 copied)."""
        if len(head) < 56:
            raise FormatError(len(head), "header", "the game file's 64-byte header",
                              f"{len(head)} bytes")
        raw = HEADER.pack(cls.SIZE << 5) + PROTOCOL_VERSION.to_bytes(2, "little") + SERVER_MAGIC \
            + bytes(8) + bytes(head[16:56]) + bundle_size.to_bytes(8, "little")
        hello = cls.decode_body(Reader(raw, 2, path=cls.NAME), Context())
        return hello

    def nonzero_reserved(self) -> list[str]:
        """The must-be-zero fields that are not zero, as ``name=0x...``: empty when all are.

        Decoding keeps them as they came (a dump shows them, a rebuild is
        byte-exact); a client refuses such a hello (:mod:`savecraft.net.client`),
        since non-zero feature flags announce a protocol it does not speak.
        """
        return [f"{name}=0x{v:X}" for name, v in (("features", self.features),
                                                  ("reserved", self.reserved)) if v]

    def file_header_fields(self) -> bytes:
        """Bytes 16-56 as in the game file, to compare with a cached bundle's header."""
        return self.encode()[16:56]

    def discovery_reply(self) -> LanDiscoveryReply:
        return LanDiscoveryReply(game_id=self.game_id, version=self.version, features=self.features)


_TILE = "a 10-bit tile size (0 to 1023)"
describe(ServerHello, [
    Field("version", U16), Const("magic", Bytes(4), SERVER_MAGIC, repr(SERVER_MAGIC)),
    Field("features", U64), Field("game_id", GAME_ID), Field("revision", U8),
    # The game type byte holds the type (bits 0-3) and bits 8-9 of both tile sizes (NOTES.md).
    *type_byte(_TILE, "a game type from 0 to 15", "repr({})"),
    *[Field(name, U8) for name in ("map_size", "atlas_size", "audio_rate", "fps", "default_actions",
                                   "map_layers", "transports", "highest_command", "sprite_delta_y",
                                   "sprites_per_layer")],
    Field("reserved", U16), Field("bundle_id", U64), Field("bundle_size", U64),
])


@message_type
@dataclass(slots=True)
class LanDiscoveryReply(Message):
    """The shortened hello (type 0, 32 bytes) a server sends to a zero-OTP UDP hello.

    Sent as a plain datagram, 'H' 'i' 0 0 0 0 in place of the NetQ header,
    like the UDP hello it answers (see :mod:`savecraft.net.crypto`).
    """

    TYPE: ClassVar[int] = 0
    SIZE: ClassVar[int] = 32
    NAME: ClassVar[str] = "lan_discovery_reply"
    SENDERS = FROM_SERVER
    CHANNEL = Channel.UDP

    game_id: str = ""
    version: int = PROTOCOL_VERSION
    features: int = 0


describe(LanDiscoveryReply, [Field("version", U16),
                             Const("magic", Bytes(4), SERVER_MAGIC, repr(SERVER_MAGIC)),
                             Field("features", U64), Field("game_id", GAME_ID)])


# -- asset bundle --------------------------------------------------------------------------


@message_type
@dataclass(slots=True)
class BundleRequest(Message):
    """Type 1: the client asks for the asset bundle (its cache is missing or stale)."""

    TYPE: ClassVar[int] = 1
    SIZE: ClassVar[int] = 2
    NAME: ClassVar[str] = "bundle_request"
    SENDERS = FROM_CLIENT
    CHANNEL = Channel.TCP


describe(BundleRequest, [])


@dataclass(slots=True)
class AssetBundle:
    """The answer to a bundle request: the bytes the hello announced, then their CRC-32.

    Not a framed message (no header): its size comes from the server hello.
    The bundle is the game file's bytes from 64 up to the first map asset.
    """

    NAME: ClassVar[str] = "asset_bundle"
    data: bytes = b""

    @property
    def crc(self) -> int:
        return zlib.crc32(self.data)

    def encode(self) -> bytes:
        return bytes(self.data) + self.crc.to_bytes(4, "little")

    @classmethod
    def decode(cls, raw: bytes | bytearray | memoryview, size: int, offset: int = 0) -> AssetBundle:
        """Check ``raw`` is ``size`` bytes plus a matching CRC; a mismatch says to fetch again."""
        r = Reader(raw, base=offset, path=cls.NAME, what="the asset bundle")
        if len(raw) != size + 4:
            r.fail("size", f"{size} bytes of bundle (as the hello said) and a 4-byte CRC",
                   f"{len(raw)} bytes", at=0)
        data = r.bytes(size, "data")
        stored = r.u32("crc")
        crc = zlib.crc32(data)
        if crc != stored:
            r.fail("crc", f"0x{crc:08X} (CRC-32 of the bundle; fetch it again)",
                   f"0x{stored:08X}", at=size)
        return cls(data)


def bundle_size(file_size: int, first_map_offset: int | None) -> int:
    """The bundle size a hello announces: up to the first map asset or the end, minus 64."""
    end = file_size if first_map_offset is None else min(file_size, first_map_offset)
    return max(0, end - 64)


# -- register / login --------------------------------------------------------------------------

@dataclass(slots=True)
class CharacterOption:
    """One chosen character option: its value and the palette index (value << 8 | palette)."""

    value: int
    palette: int = 0

    def packed(self) -> int:
        return self.value << 8 | self.palette


@dataclass(slots=True)
class CharacterSpec:
    """The registration's character specification, split by the world's option count.

    The wire holds one list of int32 values: first one per character option
    (value << 8 | palette index), then the values of the non-global
    attributes. Where the split falls depends on the world (the number of
    character options in the asset bundle), so :class:`Register` keeps the
    plain list and this class gives it names.
    """

    options: list[CharacterOption] = field(default_factory=list)
    attributes: list[int] = field(default_factory=list)

    def values(self) -> list[int]:
        return [o.packed() for o in self.options] + list(self.attributes)

    @classmethod
    def from_values(cls, values: list[int], numchar: int) -> CharacterSpec:
        if not 0 <= numchar <= len(values):
            raise FormatError(None, "register.spec", f"at least {numchar} values (one per "
                              "character option)", f"{len(values)} values")
        opts = [CharacterOption(v >> 8, v & 0xFF) for v in values[:numchar]]
        return cls(opts, list(values[numchar:]))


def _language_text(raw: bytes) -> str:
    if raw[:1] == b"\0" and raw[1:] != b"\0":  # "\0n": no code this side would write
        raise ValueError(repr(raw))
    return raw.rstrip(b"\0").decode("latin-1")


def _language_bytes(language: str) -> bytes:
    raw = language.encode("latin-1", "replace")
    if len(raw) > 2 or b"\0" in raw:
        raise ValueError(repr(language))
    return raw.ljust(2, b"\0")


class _Credentials(Message):
    __slots__ = ()
    SENDERS = FROM_CLIENT
    CHANNEL = Channel.TCP


# What a registration and a login start with, declared once for both.
CREDENTIALS = [
    Field("language", Adapt(Bytes(2), _language_text, _language_bytes,
                            "a language code of at most 2 characters (ISO 639-1), padded with NUL at "
                            "its end")),
    Field("password_hash", Bytes(HASH_SIZE)),
    Field("name", CStr()),
]


@message_type
@dataclass(slots=True)
class Register(_Credentials):
    """Type 2: create a character. ``spec`` is the int32 list (see :class:`CharacterSpec`)."""

    TYPE: ClassVar[int] = 2
    NAME: ClassVar[str] = "register"

    name: str = ""
    password_hash: bytes = bytes(HASH_SIZE)
    language: str = "en"
    spec: list[int] = field(default_factory=list)

    def character(self, numchar: int) -> CharacterSpec:
        return CharacterSpec.from_values(self.spec, numchar)


describe(Register, [*CREDENTIALS, Field("spec", Array(I32, REST))])


@message_type
@dataclass(slots=True)
class Login(_Credentials):
    """Type 3: log in with a user name and the 32-byte password hash."""

    TYPE: ClassVar[int] = 3
    NAME: ClassVar[str] = "login"

    name: str = ""
    password_hash: bytes = bytes(HASH_SIZE)
    language: str = "en"


describe(Login, CREDENTIALS)


# -- answers ---------------------------------------------------------------------------------


class ErrorReason(IntEnum):
    """Reason codes of the error message (type 4). The spec leaves them open; these are ours."""

    UNSPECIFIED = 0
    REGISTRATION_DISABLED = 1  # registration is (temporarily) closed
    NAME_TAKEN = 2  # another user already has that name
    BAD_CREDENTIALS = 3  # unknown user name or wrong password
    BANNED = 4  # the user is banned (USER flags bit 0)
    ADDRESS_DENIED = 5  # the client's address is in DENY
    TOO_MANY_ATTEMPTS = 6  # login attempts from this address are limited; try later
    SERVER_FULL = 7  # no room for another player
    BAD_NAME = 8  # the user name is empty, too long or not allowed
    BAD_CHARACTER = 9  # the character specification does not fit the world
    UNSUPPORTED_VERSION = 10  # the client's protocol version is not supported
    ALREADY_LOGGED_IN = 11  # that user is in the game already
    PROTOCOL_ERROR = 12  # a malformed or out-of-order message
    SERVER_ERROR = 13  # the server failed (e.g. could not save the new user)
    TOO_MANY_REGISTRATIONS = 14  # registrations per address or per minute are limited; try later


@message_type
@dataclass(slots=True)
class Error(Message):
    """Type 4: registration or login refused. Unknown reason codes are kept as numbers."""

    TYPE: ClassVar[int] = 4
    SIZE: ClassVar[int] = 4
    NAME: ClassVar[str] = "error"
    SENDERS = FROM_SERVER
    CHANNEL = Channel.TCP

    reason: int = ErrorReason.UNSPECIFIED  # an ErrorReason when the code is known

    @property
    def known_reason(self) -> ErrorReason | None:
        """The reason as an :class:`ErrorReason`, or None for a code this version does not know."""
        try:
            return ErrorReason(self.reason)
        except ValueError:
            return None



def _reason(code: int) -> int:
    try:
        return ErrorReason(code)
    except ValueError:
        return code  # a code this version does not know: kept as the number


describe(Error, [Field("reason", Adapt(U16, _reason, int, "a reason code"))])


_CRC = struct.Struct("<I")


@dataclass(slots=True)
class _LoginOkHead:
    """What a login OK's 270 counted bytes hold after the header: the state follows them."""

    token: bytes = bytes(TOKEN_SIZE)
    otp: bytes = bytes(OTP_SIZE)
    state_size: int = 0


_LOGIN_OK_HEAD = Struct(_LoginOkHead, [Field("token", Bytes(TOKEN_SIZE)), Field("otp", Bytes(OTP_SIZE)),
                                       Field("state_size", U32)], name="login_ok")


@message_type
@dataclass(slots=True)
class LoginOk(Message):
    """Type 5: the session token and OTP, then the compressed world state.

    The header's length is always 270; the state (a zlib stream of
    saved-game chunks with exactly one USER and no DENY, then the CRC-32 of
    the chunk data, as a save stores its payload: NOTES.md) follows
    uncounted, its size (CRC included) at offset 266. A state without the
    CRC is accepted too, and ``state_crc`` says which was seen; the CRC is
    always written. ``state`` is a :class:`ChunkList` as the
    saved-game codec makes; offsets in errors inside it count from the start
    of the inflated state. ``encoding`` remembers the original compressed
    bytes so an unchanged state is re-sent as it came.
    """

    TYPE: ClassVar[int] = 5
    SIZE: ClassVar[int] = 270
    NAME: ClassVar[str] = "login_ok"
    SENDERS = FROM_SERVER
    CHANNEL = Channel.TCP

    token: bytes = bytes(TOKEN_SIZE)
    otp: bytes = bytes(OTP_SIZE)
    state: ChunkList = field(default_factory=ChunkList)
    encoding: Deflated = field(default_factory=Deflated, compare=False, repr=False)
    state_crc: bool = field(default=True, compare=False)  # decoded: the CRC was there

    def __post_init__(self) -> None:
        if not isinstance(self.state, ChunkList):
            self.state = ChunkList(self.state)

    @property
    def user(self) -> UserChunk:
        user: UserChunk = self.state.of_kind(UserChunk)[0]
        return user

    def check_state(self) -> None:
        """Exactly one USER and no DENY, as the spec requires of a client's world state."""
        _check_state(self.state, None)

    def encode(self) -> bytes:
        _check_state(self.state, None)
        content = payload_bytes(SaveGame(chunks=self.state))
        state = self.encoding.compress(content) + _CRC.pack(zlib.crc32(content))
        w = Writer(self.NAME)
        _LOGIN_OK_HEAD.write(_LoginOkHead(self.token, self.otp, len(state)), w, Context_())
        return HEADER.pack(self.TYPE | self.SIZE << 5) + bytes(w.buf) + state

    @classmethod
    def decode_body(cls, r: Reader, ctx: Context) -> LoginOk:
        start = r.pos - 2
        word = r.data[start] | r.data[start + 1] << 8
        if word >> 5 != cls.SIZE:
            r.fail("length", f"a login OK message of {cls.SIZE} bytes (the state not counted)",
                   f"{word >> 5} bytes", at=start)
        head = _LOGIN_OK_HEAD.read(r, Context_())
        token, otp, n = head.token, head.otp, head.state_size
        if n > ctx.max_world_state:
            r.fail("state_size", f"a world state of at most {ctx.max_world_state} bytes",
                   str(n), at=start + 266)
        if n != r.remaining:
            r.fail("state_size", f"{r.remaining} (the bytes after the login OK message)",
                   str(n), at=start + 266)
        compressed = r.bytes(n, "state")
        inflated = inflate(compressed, offset=r.offset - n, path=f"{cls.NAME}.state")
        content = inflated.data
        trailing = inflated.trailing
        if trailing and len(trailing) != _CRC.size:
            r.fail("state", "the end of the zlib stream, then its 4-byte CRC, at the end of "
                   "the state", f"{len(trailing)} more bytes", at=r.pos - len(trailing))
        if trailing:
            (crc,) = _CRC.unpack(trailing)
            if crc != zlib.crc32(content):
                r.fail("state_crc", f"0x{zlib.crc32(content):08X} (CRC-32 of the chunk data)",
                       f"0x{crc:08X}", at=r.pos - _CRC.size)
        chunks = scan_chunks(content, Report())
        _check_state(chunks, f"{cls.NAME}.state")
        return cls(token, otp, chunks,
                   Deflated.from_stream(compressed[:n - len(trailing)], content,
                                        inflated.container), bool(trailing))


def _check_state(chunks: ChunkList, path: str | None) -> None:
    users = 0
    for i in range(len(chunks)):
        magic = chunks.magic(i)
        if magic == b"DENY":
            raise FormatError(None, f"{path or 'login_ok.state'}[{i}]",
                              "no DENY chunk in a client's world state", "a DENY chunk")
        if magic == b"USER":
            users += 1
    if users != 1:
        raise FormatError(None, path or "login_ok.state", "exactly one USER chunk",
                          f"{users} USER chunks")
    for i in range(len(chunks)):  # decode now, so a bad chunk fails here and not on first use
        chunks[i]


__all__ = [
    "AssetBundle", "BundleRequest", "CharacterOption", "CharacterSpec", "ClientHello", "Error",
    "ErrorReason", "LanDiscoveryReply", "Login", "LoginOk", "Register", "ServerHello",
    "bundle_size", "CLIENT_MAGIC", "SERVER_MAGIC", "HASH_SIZE", "TOKEN_SIZE", "OTP_SIZE",
]
