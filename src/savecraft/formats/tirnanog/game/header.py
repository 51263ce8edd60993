"""The 64-byte header of a TirNanoG game file, every field named.

The game type byte packs three things (NOTES.md): the game type in bits 0-3,
and bits 8-9 of the tile width and height in bits 4-5 and 6-7, so tiles can
be up to 1023 pixels wide while the header keeps one byte per dimension.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

from ....binary import Record
from ....errors import FormatError, UnsupportedFormatError

MAGIC = b"#!/usr/bin/tngp\n"
HEADER_SIZE = 64
CRC_OFFSET = 56
ENCRYPTION_OFFSET = 60

HEADER = Record("header", [
    ("magic", "bytes[16]"), ("game_id", "bytes[16]"), ("revision", "u8"), ("type_byte", "u8"),
    ("tile_width_low", "u8"), ("tile_height_low", "u8"), ("map_size_log2", "u8"),
    ("atlas_size_log2", "u8"), ("sample_rate_code", "u8"), ("fps", "u8"),
    ("default_actions", "u8"), ("map_layers", "u8"), ("transport_methods", "u8"),
    ("highest_command", "u8"), ("char_delta_y", "u8"), ("char_sprites_per_layer", "u8"),
    ("reserved", "u16"), ("unique_id", "u64"), ("crc", "u32"), ("encryption", "u32"),
])
assert HEADER.size == HEADER_SIZE


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
    v = HEADER.unpack_from(data, 0)
    if v[0] != MAGIC:
        raise FormatError(0, "header.magic", repr(MAGIC), repr(v[0]))
    raw_id: bytes = v[1]
    name, _, pad = raw_id.partition(b"\0")
    try:
        game_id = name.decode("ascii")
    except UnicodeDecodeError:
        raise FormatError(16, "header.game_id", "an ASCII game id", repr(raw_id)) from None
    tb = v[3]
    return Header(
        game_id=game_id, revision=v[2], game_type=tb & 0x0F,
        tile_width=v[4] | ((tb >> 4) & 3) << 8, tile_height=v[5] | ((tb >> 6) & 3) << 8,
        map_size_log2=v[6], atlas_size_log2=v[7], sample_rate_code=v[8], fps=v[9],
        default_actions=v[10], map_layers=v[11], transport_methods=v[12], highest_command=v[13],
        char_delta_y=v[14], char_sprites_per_layer=v[15], reserved=v[16], unique_id=v[17],
        game_id_padding=pad if any(pad) else b"", crc=v[18], encryption=v[19],
    )


def build_header(h: Header, crc: int = 0) -> bytes:
    raw_id = h.game_id.encode("ascii", "strict") if h.game_id.isascii() else b""
    if not h.game_id.isascii() or len(raw_id) > 16:
        raise FormatError(None, "header.game_id", "at most 16 ASCII characters", repr(h.game_id))
    if h.game_id_padding and len(raw_id) + 1 + len(h.game_id_padding) == 16:
        raw_id = raw_id + b"\0" + h.game_id_padding
    for name, value in (("tile_width", h.tile_width), ("tile_height", h.tile_height)):
        if not 0 <= value < 1024:
            raise FormatError(None, f"header.{name}", "a tile size from 0 to 1023 (10 bits)", str(value))
    if not 0 <= h.game_type < 16:
        raise FormatError(None, "header.game_type", "a game type from 0 to 15 (4 bits)", str(h.game_type))
    return HEADER.pack(
        MAGIC, raw_id.ljust(16, b"\0"), h.revision, h.type_byte, h.tile_width & 0xFF,
        h.tile_height & 0xFF, h.map_size_log2, h.atlas_size_log2, h.sample_rate_code, h.fps,
        h.default_actions, h.map_layers, h.transport_methods, h.highest_command, h.char_delta_y,
        h.char_sprites_per_layer, h.reserved, h.unique_id, crc, h.encryption,
    )


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
