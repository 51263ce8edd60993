"""Small files that claim huge things: the inputs the limits in ``savecraft.limits`` exist for.

Each builder returns the file's bytes (a few kilobytes on disk) and is used by
the tests (``tests/tirnanog/test_tng_limits.py``) and by ``bench/bench_memory.py``. They
are generated, never stored: a change to a format's writer changes them too.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Callable

from savecraft.formats.tirnanog.save import codec as save_codec

RUN_OF_128 = bytes([0xFF, 0x01, 0x00])  # one RLE packet: the value 1, 128 times


def _save(chunks: bytes) -> bytes:
    """A TirNanoG save around an inflated chunk payload (zlib at level 9, CRC of the payload)."""
    return (save_codec.MAGIC + b"hostile".ljust(16, b"\0") + zlib.compress(chunks, 9)
            + zlib.crc32(chunks).to_bytes(4, "little"))


def save_with_huge_map(rle_bytes: int = 4 * 1024 * 1024) -> bytes:
    """A save whose one MAP chunk is ``rle_bytes`` of 128-tile runs (4 MiB: 179 million tiles)."""
    body = RUN_OF_128 * (rle_bytes // 3)
    chunk = b"MAP\0" + struct.pack("<II", 12 + len(body), 1) + body
    return _save(chunk)


def save_with_many_chunks(count: int = 4_200_000) -> bytes:
    """A save of ``count`` empty (8-byte, unknown magic) chunks."""
    return _save(b"ZZZZ\x08\x00\x00\x00" * count)


def game_with_huge_maps(size_log2: int = 13, layers: int = 10, maps: int = 2) -> bytes:
    """A ``.tng`` whose header says 2^size_log2-square maps of ``layers`` layers, and whose
    ``maps`` map assets really hold that many tiles as RLE runs (two 8192 x 8192 x 10 maps
    by default: 671 million tiles each, 15 MiB of RLE, 15 KiB deflated)."""
    from savecraft.formats.tirnanog.game import build
    from savecraft.formats.tirnanog.game.sample import sample_game
    from savecraft.formats.tirnanog.game.sections import MapsSection
    from savecraft.formats.tirnanog.game.sections.s35_maps import LazyMap

    tiles = layers << (2 * size_log2)
    body = RUN_OF_128 * (tiles // 128) + (bytes([0x80 | (tiles % 128 - 1), 1, 0]) if tiles % 128 else b"")
    content = struct.pack("<I", 0)[:3] + bytes(18) + bytes(10) + len(body).to_bytes(3, "little") + body

    class RawMap(LazyMap):
        """A map asset whose content is given as bytes (no 1.3 GB array to encode)."""

        def encode(self, value: object, ctx: object) -> bytes:
            return content

    game = sample_game()
    game.header.map_size_log2 = size_log2
    game.header.map_layers = layers
    section = game.section(MapsSection)
    assert section is not None
    section.maps = section.maps[:maps]
    for entry in section.maps:
        entry.asset = RawMap(entry.asset.value)
    return build(game)


HOSTILE: dict[str, Callable[[], bytes]] = {
    "save-4MiB-map-rle": save_with_huge_map,
    "save-4.2M-empty-chunks": save_with_many_chunks,
    "game-2-maps-8192x8192x10": game_with_huge_maps,
}


# -- game files written differently from savecraft's builder (for round-trip tests) ----------


def rewrite_game(data: bytes, edit: Callable[[bytearray], bytes | bytearray | None] | None = None,
                 assets: Callable[[bytes], bytes] | None = None) -> bytes:
    """A ``.tng`` with its inflated section block changed by ``edit`` (in place or returned)
    and its asset area replaced by ``assets(old area)``; sizes and both CRCs made right again."""
    n = struct.unpack_from("<I", data, 64)[0]
    block = bytearray(zlib.decompress(data[68 : 68 + n - 4]))
    if edit is not None:
        out = edit(block)
        if out is not None:
            block = bytearray(out)
    stored = zlib.compress(bytes(block)) + zlib.crc32(block).to_bytes(4, "little")
    area = data[68 + n :]
    if assets is not None:
        area = assets(area)
    out = bytearray(data[:64]) + len(stored).to_bytes(4, "little") + stored + area
    struct.pack_into("<I", out, 56, 0)
    crc = zlib.crc32(bytes(out[:56]) + b"\0\0\0\0" + bytes(out[60:]))
    struct.pack_into("<I", out, 56, crc)
    return bytes(out)


def set_descriptor(block: bytearray, old: tuple[int, int], new: tuple[int, int]) -> None:
    """Point the one asset descriptor at (offset, length) ``old`` to ``new`` instead."""
    key = struct.pack("<QI", *old)
    at = block.find(key)
    assert at >= 0 and block.find(key, at + 1) < 0, f"descriptor {old} not found once"
    block[at : at + 12] = struct.pack("<QI", *new)
