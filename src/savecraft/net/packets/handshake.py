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

from ...binary import Reader, Record, Writer
from ...compression import Deflated, inflate
from ...errors import FormatError, Report
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
    check_length,
    end_check,
    finish,
    message_type,
)

CLIENT_MAGIC = b"TNGP"
SERVER_MAGIC = b"TNGS"
HASH_SIZE = 32
TOKEN_SIZE = 256
OTP_SIZE = 8


def _game_id_bytes(game_id: str, path: str) -> bytes:
    try:
        raw = game_id.encode("ascii")
    except UnicodeEncodeError:
        bad(path, "an ASCII game id", repr(game_id))
    if len(raw) > 16 or b"\0" in raw:
        bad(path, "an ASCII game id of at most 16 bytes without NUL", repr(game_id))
    return raw.ljust(16, b"\0")


def _game_id_text(r: Reader, raw: bytes, at: int) -> str:
    text, _, padding = raw.partition(b"\0")
    if padding.strip(b"\0"):  # what comes after the NUL is padding: anything else would not re-encode
        first = len(text) + 1 + next(i for i, b in enumerate(padding) if b)
        r.fail("game_id", "zero bytes after the game id's NUL", f"byte 0x{raw[first]:02X}",
               at=at + first)
    try:
        return text.decode("ascii")
    except UnicodeDecodeError as exc:
        r.fail("game_id", "an ASCII game id", f"byte 0x{text[exc.start]:02X}", at=at + exc.start)


def _magic(r: Reader, raw: bytes, expected: bytes, at: int) -> None:
    if raw != expected:
        r.fail("magic", repr(expected), repr(raw), at=at)


# -- hello -------------------------------------------------------------------------------

_CLIENT_HELLO = Record("client hello", [("header", "u16"), ("version", "u16"), ("magic", "bytes[4]")])


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

    def encode(self) -> bytes:
        return _CLIENT_HELLO.pack(self.SIZE << 5, self.version, CLIENT_MAGIC)

    @classmethod
    def decode_body(cls, r: Reader, ctx: Context) -> ClientHello:
        check_length(r, cls, cls.SIZE)
        r.pos -= 2
        _, version, magic = r.record(_CLIENT_HELLO)
        _magic(r, magic, CLIENT_MAGIC, r.pos - 4)
        return cls(version)


_SERVER_HELLO = Record("server hello", [
    ("header", "u16"), ("version", "u16"), ("magic", "bytes[4]"), ("features", "u64"),
    ("game_id", "bytes[16]"), ("revision", "u8"), ("game_type", "u8"), ("tile_width", "u8"),
    ("tile_height", "u8"), ("map_size", "u8"), ("atlas_size", "u8"), ("audio_rate", "u8"),
    ("fps", "u8"), ("default_actions", "u8"), ("map_layers", "u8"), ("transports", "u8"),
    ("highest_command", "u8"), ("sprite_delta_y", "u8"), ("sprites_per_layer", "u8"),
    ("reserved", "u16"), ("bundle_id", "u64"), ("bundle_size", "u64"),
])
assert _SERVER_HELLO.size == 64


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

    def _type_byte(self) -> tuple[int, int, int]:
        for name, v in (("tile_width", self.tile_width), ("tile_height", self.tile_height)):
            if not isinstance(v, int) or not 0 <= v < 1024:
                bad(f"{self.NAME}.{name}", "a 10-bit tile size (0 to 1023)", repr(v))
        if not isinstance(self.game_type, int) or not 0 <= self.game_type < 16:
            bad(f"{self.NAME}.game_type", "a game type from 0 to 15", repr(self.game_type))
        packed = self.game_type | (self.tile_width >> 8) << 4 | (self.tile_height >> 8) << 6
        return packed, self.tile_width & 0xFF, self.tile_height & 0xFF

    def encode(self) -> bytes:
        gt, tw, th = self._type_byte()
        gid = _game_id_bytes(self.game_id, f"{self.NAME}.game_id")
        try:
            return _SERVER_HELLO.pack(
                self.SIZE << 5, self.version, SERVER_MAGIC, self.features, gid, self.revision, gt,
                tw, th, self.map_size, self.atlas_size, self.audio_rate, self.fps,
                self.default_actions, self.map_layers, self.transports, self.highest_command,
                self.sprite_delta_y, self.sprites_per_layer, self.reserved, self.bundle_id,
                self.bundle_size)
        except FormatError as err:
            bad(f"{self.NAME}.{err.path}", err.expected, err.found)

    @classmethod
    def decode_body(cls, r: Reader, ctx: Context) -> ServerHello:
        check_length(r, cls, cls.SIZE)
        start = r.pos - 2
        r.pos = start
        v = r.record(_SERVER_HELLO)
        _magic(r, v[2], SERVER_MAGIC, start + 4)
        gt = v[6]
        return cls(
            game_id=_game_id_text(r, v[4], start + 16), version=v[1], features=v[3],
            revision=v[5], game_type=gt & 0x0F, tile_width=v[7] | (gt >> 4 & 3) << 8,
            tile_height=v[8] | (gt >> 6 & 3) << 8, map_size=v[9], atlas_size=v[10],
            audio_rate=v[11], fps=v[12], default_actions=v[13], map_layers=v[14],
            transports=v[15], highest_command=v[16], sprite_delta_y=v[17],
            sprites_per_layer=v[18], reserved=v[19], bundle_id=v[20], bundle_size=v[21])

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


_DISCOVERY = Record("LAN discovery reply", [
    ("header", "u16"), ("version", "u16"), ("magic", "bytes[4]"), ("features", "u64"),
    ("game_id", "bytes[16]"),
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

    def encode(self) -> bytes:
        gid = _game_id_bytes(self.game_id, f"{self.NAME}.game_id")
        try:
            return _DISCOVERY.pack(self.SIZE << 5, self.version, SERVER_MAGIC, self.features, gid)
        except FormatError as err:
            bad(f"{self.NAME}.{err.path}", err.expected, err.found)

    @classmethod
    def decode_body(cls, r: Reader, ctx: Context) -> LanDiscoveryReply:
        check_length(r, cls, cls.SIZE)
        start = r.pos - 2
        r.pos = start
        v = r.record(_DISCOVERY)
        _magic(r, v[2], SERVER_MAGIC, start + 4)
        return cls(game_id=_game_id_text(r, v[4], start + 16), version=v[1], features=v[3])


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

    def encode(self) -> bytes:
        return HEADER.pack(self.TYPE | self.SIZE << 5)

    @classmethod
    def decode_body(cls, r: Reader, ctx: Context) -> BundleRequest:
        check_length(r, cls, cls.SIZE)
        return cls()


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

_CREDENTIALS = Record("credentials", [("header", "u16"), ("language", "bytes[2]"),
                                      ("password_hash", "bytes[32]")])


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


def _language_bytes(language: str, path: str) -> bytes:
    raw = language.encode("latin-1", "replace")
    if len(raw) > 2 or b"\0" in raw:
        bad(path, "a language code of at most 2 characters (ISO 639-1)", repr(language))
    return raw.ljust(2, b"\0")


def _name_bytes(name: str, path: str) -> bytes:
    raw = name.encode("utf-8", "surrogatepass")
    if b"\0" in raw:
        bad(path, "a user name without NUL characters", repr(name))
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        bad(path, "a user name in valid UTF-8", repr(name))
    return raw + b"\0"


class _Credentials(Message):
    __slots__ = ()
    SENDERS = FROM_CLIENT
    CHANNEL = Channel.TCP

    def _head(self) -> bytes:
        lang = _language_bytes(self.language, f"{self.NAME}.language")  # type: ignore[attr-defined]
        ph = self.password_hash  # type: ignore[attr-defined]
        if not isinstance(ph, bytes | bytearray) or len(ph) != HASH_SIZE:
            bad(f"{self.NAME}.password_hash", "32 bytes", f"{len(ph)} bytes")
        return lang + bytes(ph) + _name_bytes(self.name, f"{self.NAME}.name")  # type: ignore[attr-defined]

    @staticmethod
    def _read_head(r: Reader) -> tuple[str, bytes, str]:
        at = r.pos
        lang = r.bytes(2, "language")
        if lang[:1] == b"\0" and lang[1:] != b"\0":  # "\0n": no code this side would write
            r.fail("language", "a language code padded with NUL at its end", repr(lang), at=at)
        ph = r.bytes(HASH_SIZE, "password_hash")
        name = r.cstr("name")
        return lang.rstrip(b"\0").decode("latin-1"), ph, name


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

    def encode(self) -> bytes:
        w = Writer(self.NAME)
        w.bytes(self._head())
        w.array("i32", self.spec, "spec")  # a bad value is named as register.spec[k]
        return finish(type(self), w.buf)

    @classmethod
    def decode_body(cls, r: Reader, ctx: Context) -> Register:
        lang, ph, name = cls._read_head(r)
        if r.remaining % 4:
            r.fail("spec", "a whole number of int32 values", f"{r.remaining} bytes")
        spec = list(r.array("i32", r.remaining // 4, "spec"))
        return cls(name, ph, lang, spec)

    def character(self, numchar: int) -> CharacterSpec:
        return CharacterSpec.from_values(self.spec, numchar)


@message_type
@dataclass(slots=True)
class Login(_Credentials):
    """Type 3: log in with a user name and the 32-byte password hash."""

    TYPE: ClassVar[int] = 3
    NAME: ClassVar[str] = "login"

    name: str = ""
    password_hash: bytes = bytes(HASH_SIZE)
    language: str = "en"

    def encode(self) -> bytes:
        return finish(type(self), self._head())

    @classmethod
    def decode_body(cls, r: Reader, ctx: Context) -> Login:
        lang, ph, name = cls._read_head(r)
        end_check(r, cls)
        return cls(name, ph, lang)


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


_ERROR = Record("error", [("header", "u16"), ("reason", "u16")])


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

    def encode(self) -> bytes:
        try:
            return _ERROR.pack(self.TYPE | self.SIZE << 5, int(self.reason))
        except FormatError as err:
            bad(f"{self.NAME}.reason", err.expected, err.found)

    @classmethod
    def decode_body(cls, r: Reader, ctx: Context) -> Error:
        check_length(r, cls, cls.SIZE)
        code = r.u16("reason")
        try:
            return cls(ErrorReason(code))
        except ValueError:
            return cls(code)


_CRC = struct.Struct("<I")
_LOGIN_OK = Record("login OK", [("header", "u16"), ("token", "bytes[256]"), ("otp", "bytes[8]"),
                                ("state_size", "u32")])


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
        for name, v, n in (("token", self.token, TOKEN_SIZE), ("otp", self.otp, OTP_SIZE)):
            if not isinstance(v, bytes | bytearray) or len(v) != n:
                bad(f"{self.NAME}.{name}", f"{n} bytes", f"{len(v)} bytes")
        _check_state(self.state, None)
        content = payload_bytes(SaveGame(chunks=self.state))
        state = self.encoding.compress(content) + _CRC.pack(zlib.crc32(content))
        return _LOGIN_OK.pack(self.TYPE | self.SIZE << 5, bytes(self.token), bytes(self.otp),
                              len(state)) + state

    @classmethod
    def decode_body(cls, r: Reader, ctx: Context) -> LoginOk:
        start = r.pos - 2
        r.pos = start
        word, token, otp, n = r.record(_LOGIN_OK)
        if word >> 5 != cls.SIZE:
            r.fail("length", f"a login OK message of {cls.SIZE} bytes (the state not counted)",
                   f"{word >> 5} bytes", at=start)
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
