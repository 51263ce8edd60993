"""Mutations of a file and of the deflated payload inside it.

Byte-level mutations (flips, interesting values, cuts, insertions, splices)
find most of what a format's outer layers do wrong; but a TirNanoG save or
game hides nearly everything behind a deflate stream and a CRC, so a random
byte there only ever tests the CRC check. :class:`Payload` opens such a file,
lets the same mutations work on the inflated bytes, and closes it again
(re-deflated, sizes and CRCs fixed), so the chunk and section decoders see
the mutated data. An Angband block file gets its block checksums fixed after
the mutation, for the same reason.
"""

from __future__ import annotations

import random
import struct
import zlib
from collections.abc import Callable
from dataclasses import dataclass

INTERESTING_32 = (b"\xff\xff\xff\x7f", b"\xff\xff\xff\xff", b"\x00\x00\x00\x80", b"\x00\x00\x00\x00",
                  b"\x01\x00\x00\x00", b"\x00\x01\x00\x00", b"\x00\x00\x01\x00", b"\x08\x00\x00\x00")
INTERESTING_8 = (0, 1, 0x7F, 0x80, 0xFF, 0xFE, 0x10, 0x20)


def mutate_bytes(data: bytes, rng: random.Random, others: list[bytes] | None = None,
                 max_size: int = 1 << 20) -> bytes:
    """One to four random edits of ``data``; ``others`` are other inputs to splice from."""
    b = bytearray(data)
    for _ in range(rng.choice((1, 1, 1, 2, 3, 4))):
        kind = rng.randrange(9)
        n = len(b)
        if n == 0:
            b += bytes(rng.randrange(256) for _ in range(rng.randrange(1, 16)))
            continue
        at = rng.randrange(n)
        if kind == 0:
            b[at] ^= 1 << rng.randrange(8)
        elif kind == 1:
            b[at] = rng.randrange(256)
        elif kind == 2:
            b[at] = rng.choice(INTERESTING_8)
        elif kind == 3:
            v = rng.choice(INTERESTING_32)
            b[at : at + 4] = v[: max(0, min(4, n - at))]
        elif kind == 4:
            del b[at:]
        elif kind == 5:
            del b[at : at + rng.randrange(1, 64)]
        elif kind == 6:
            b[at:at] = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 16)))
        elif kind == 7:  # repeat a piece of the input somewhere else
            start = rng.randrange(n)
            piece = b[start : start + rng.randrange(1, 256)]
            b[at:at] = piece * rng.randrange(1, 4)
        elif others:  # splice: our head, another input's tail
            other = rng.choice(others)
            if other:
                b[at:] = other[rng.randrange(len(other)) :]
        if len(b) > max_size:
            del b[max_size:]
    return bytes(b)


@dataclass(frozen=True)
class Payload:
    """How to open a file's deflated payload (``split``) and close it again (``join``)."""

    split: Callable[[bytes], tuple[bytes, bytes] | None]  # (the file around it, inflated payload)
    join: Callable[[bytes, bytes], bytes]


def _save_split(data: bytes) -> tuple[bytes, bytes] | None:
    start = 32
    if data[32:36] == b"PRVW" and len(data) >= 40:
        start = 32 + struct.unpack_from("<I", data, 36)[0]
    try:
        return data[:start], zlib.decompress(data[start:-4])
    except zlib.error:
        return None


def _save_join(head: bytes, content: bytes) -> bytes:
    return head + zlib.compress(content) + zlib.crc32(content).to_bytes(4, "little")


def _game_split(data: bytes) -> tuple[bytes, bytes] | None:
    if len(data) < 68:
        return None
    n = struct.unpack_from("<I", data, 64)[0]
    try:
        block = zlib.decompress(data[68 : 68 + n - 4])
    except zlib.error:
        return None
    # The file around the block: the header, then a marker, then the asset area.
    return data[:64] + b"\0" * 4 + data[68 + n :], block


def _game_join(around: bytes, block: bytes) -> bytes:
    stored = zlib.compress(block) + zlib.crc32(block).to_bytes(4, "little")
    out = bytearray(around[:64]) + len(stored).to_bytes(4, "little") + stored + around[68:]
    struct.pack_into("<I", out, 56, 0)
    struct.pack_into("<I", out, 56, zlib.crc32(bytes(out)))
    return bytes(out)


def _whole(data: bytes) -> tuple[bytes, bytes] | None:
    return b"", data


def _angband_checksums(_: bytes, content: bytes) -> bytes:
    """The mutant with every block's checksum that the walk reaches made right again.

    An Angband block file sums each block's data: any mutated byte there only
    ever tested the checksum check, and never a decoder or the round trip.
    """
    out = bytearray(content)
    pos = 8
    while pos + 28 <= len(out):
        size = struct.unpack_from("<I", out, pos + 20)[0]
        end = pos + 28 + size
        if end > len(out):
            break
        struct.pack_into("<I", out, pos + 24, sum(out[pos + 28:end]) & 0xFFFFFFFF)
        pos = end + (-size % 4)
    return bytes(out)


PAYLOADS: dict[str, Payload] = {
    "tirnanog-save": Payload(_save_split, _save_join),
    "tirnanog-game": Payload(_game_split, _game_join),
    "angband-block": Payload(_whole, _angband_checksums),
}


def mutate(data: bytes, rng: random.Random, payload: Payload | None, others: list[bytes],
           max_size: int = 1 << 20) -> bytes:
    """A mutant of ``data``: its inflated payload (when it has one and it opens), else its bytes."""
    if payload is not None and rng.random() < 0.7:
        opened = payload.split(data)
        if opened is not None:
            around, content = opened
            return payload.join(around, mutate_bytes(content, rng, None, max_size))
    return mutate_bytes(data, rng, others, max_size)
