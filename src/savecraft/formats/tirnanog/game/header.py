"""The 64-byte header of a TirNanoG game file, every field named.

The game type byte packs three things (NOTES.md): the game type in bits 0-3,
and bits 8-9 of the tile width and height in bits 4-5 and 6-7, so tiles can
be up to 1023 pixels wide while the header keeps one byte per dimension.
"""

from __future__ import annotations

import dataclasses
import zlib
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

from ....binary import Reader
from ....errors import FormatError, UnsupportedFormatError
from ....layout import U8, U16, U32, U64, Bytes, Check, Computed, Const, Context, Field, Stored, Struct
from ..type_byte import type_byte

MAGIC = b"#!/usr/bin/tngp\n"
HEADER_SIZE = 64
CRC_OFFSET = 56
ENCRYPTION_OFFSET = 60

GAME_ID_SIZE = 16


class GameType(IntEnum):
    TOP_DOWN = 0
    ISOMETRIC = 1
    HEX_VERTICAL = 2
    HEX_HORIZONTAL = 3
    THREE_D = 4


def game_type_name(value: int) -> str:
    try:
        return GameType(value).name.lower().replace("_", "-")
    except ValueError:
        return f"unknown ({value})"


@dataclass(slots=True)
class Header:
    """The header's fields; ``crc`` and ``encryption`` are what the file said.

    The builder always recomputes the CRC, so ``crc`` is informational and not
    part of the value (two games are equal whatever CRC they were read with).
    """

    game_id: str = "sample"
    revision: int = 0
    # A GameType value, kept as an int so unknown ones survive (edit takes its name too).
    game_type: int = field(default=0, metadata={"enum": GameType})
    tile_width: int = 32  # 10 bits
    tile_height: int = 32  # 10 bits
    map_size_log2: int = 6
    atlas_size_log2: int = 9
    sample_rate_code: int = 0  # 0 = 44100 Hz
    fps: int = 30
    default_actions: int = 9
    map_layers: int = 11
    transport_methods: int = 3
    highest_command: int = 43
    char_delta_y: int = 0
    char_sprites_per_layer: int = 20
    reserved: int = 0
    unique_id: int = 0
    game_id_padding: bytes = field(default=b"", compare=False)  # bytes after the id's NUL, when not zero
    crc: int = field(default=0, compare=False)
    encryption: int = 0

    @property
    def map_size(self) -> int:
        return 1 << self.map_size_log2 if self.map_size_log2 < 32 else 0

    @property
    def atlas_size(self) -> int:
        return 1 << self.atlas_size_log2 if self.atlas_size_log2 < 32 else 0

    @property
    def sample_rate(self) -> int | None:
        """In Hz; None for a code the spec does not define (it defines 0 = 44100 Hz only, and
        one byte cannot hold a frequency in Hz, so any other byte is not a rate)."""
        return 44100 if self.sample_rate_code == 0 else None

    @property
    def encrypted(self) -> bool:
        return self.encryption != 0

    @property
    def type_byte(self) -> int:
        return (self.game_type & 0x0F) | ((self.tile_width >> 8) & 3) << 4 | ((self.tile_height >> 8) & 3) << 6

    def summary(self) -> dict[str, Any]:
        """Every field, named, for ``info`` and for the encrypted-file message."""
        return {
            "game id": self.game_id,
            "revision": self.revision,
            "game type": game_type_name(self.game_type),
            "tile size": f"{self.tile_width} x {self.tile_height}",
            "map size": f"{self.map_size} x {self.map_size} (2^{self.map_size_log2})",
            "atlas size": f"{self.atlas_size} x {self.atlas_size} (2^{self.atlas_size_log2})",
            "audio sample rate": (f"{self.sample_rate} Hz" if self.sample_rate is not None else
                                  f"unknown (code {self.sample_rate_code}; only 0 = 44100 Hz is defined)"),
            "frames per second": self.fps,
            "default action handlers": self.default_actions,
            "map layers": self.map_layers,
            "transportation methods": self.transport_methods,
            "highest bytecode command": self.highest_command,
            "character sprite delta y": self.char_delta_y,
            "character sprites per layer": self.char_sprites_per_layer,
            "unique id": f"0x{self.unique_id:016X}",
            "crc": f"0x{self.crc:08X}",
            "encrypted": self.encrypted,
        }


def _id_text(raw: bytes) -> str:
    return raw.partition(b"\0")[0].decode("ascii")


def _id_padding(raw: bytes) -> bytes:
    """The bytes after the id's NUL, kept when they are not all zero (written back as read)."""
    pad = raw.partition(b"\0")[2]
    return pad if any(pad) else b""


def _id_bytes(game_id: str, padding: bytes) -> bytes:
    raw = game_id.encode("ascii")
    if padding and len(raw) + 1 + len(padding) == GAME_ID_SIZE:
        raw += b"\0" + padding
    return raw.ljust(GAME_ID_SIZE, b"\0")


HEADER = Struct(Header, [
    # What the builder refuses: a model the header has no room for.
    Check(f"type(game_id) is str and game_id.isascii() and len(game_id) <= {GAME_ID_SIZE}", "game_id",
          f"at most {GAME_ID_SIZE} ASCII characters", "repr(game_id)", on_write=True, on_read=False),
    Const("magic", Bytes(len(MAGIC)), MAGIC, repr(MAGIC)),
    # The id's 16 bytes are read under its name (their span is the id's), then seen as the id
    # and the bytes after its NUL (kept when not zero).
    Stored("game_id", Bytes(GAME_ID_SIZE), "_id_bytes(game_id, game_id_padding)"),
    Check("game_id.partition(b'\\0')[0].isascii()", "game_id", "an ASCII game id", "repr(game_id)",
          back=GAME_ID_SIZE),
    Computed("game_id_padding", "_id_padding(game_id)"),
    Computed("game_id", "_id_text(game_id)"),
    Field("revision", U8),
    *type_byte("a tile size from 0 to 1023 (10 bits)", "a game type from 0 to 15 (4 bits)", "{}"),
    *[Field(name, U8) for name in ("map_size_log2", "atlas_size_log2", "sample_rate_code", "fps",
                                   "default_actions", "map_layers", "transport_methods", "highest_command",
                                   "char_delta_y", "char_sprites_per_layer")],
    Field("reserved", U16), Field("unique_id", U64), Field("crc", U32), Field("encryption", U32),
], name="header", env={"_id_text": _id_text, "_id_padding": _id_padding, "_id_bytes": _id_bytes})
_NO_CONTEXT = Context()  # the header needs no values from elsewhere


class EncryptedGameError(UnsupportedFormatError):
    """An encrypted (proprietary) game file: recognised, shown, never decrypted."""

    def __init__(self, header: Header) -> None:
        shown = ", ".join(f"{k} {v}" for k, v in header.summary().items() if k != "encrypted")
        super().__init__(ENCRYPTION_OFFSET, "header.encryption",
                         "an unencrypted game file (decrypting is forbidden by the format's licence)",
                         f"an encrypted game (key 0x{header.encryption:08X}; {shown})")
        self.header = header


def sniff(data: bytes) -> bool:
    return bytes(data[:16]) == MAGIC


def parse_header(data: Any) -> Header:
    """Decode the first 64 bytes (``data`` may be bytes or an mmap); no CRC check here."""
    if len(data) < HEADER_SIZE:
        raise FormatError(0, "header", f"a {HEADER_SIZE}-byte header", f"{len(data)} bytes")
    # While spans are recorded: the header's, and each stored field's (header.type_byte...).
    header: Header = HEADER.read_item(Reader(data, 0, HEADER_SIZE, what="the file"), _NO_CONTEXT, "header")
    return header


def build_header(h: Header, crc: int = 0) -> bytes:
    """The 64 bytes, with ``crc`` in place of the CRC the model was read with."""
    return HEADER.pack(h if h.crc == crc else dataclasses.replace(h, crc=crc), _NO_CONTEXT, "header")


def file_crc(data: Any, chunk: int = 1 << 24) -> int:
    """CRC-32 of the whole file with bytes 56-59 counted as zero (NOTES.md)."""
    crc = zlib.crc32(bytes(data[:CRC_OFFSET]))
    crc = zlib.crc32(b"\0\0\0\0", crc)
    mv = memoryview(data)
    try:
        for pos in range(ENCRYPTION_OFFSET, len(data), chunk):
            crc = zlib.crc32(mv[pos : pos + chunk], crc)
    finally:
        mv.release()
    return crc
