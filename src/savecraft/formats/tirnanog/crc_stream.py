"""A deflate stream followed by a CRC-32: how TirNanoG stores a save's chunks and a game's sections.

NOTES.md settles the stream's rules once for both: writers emit zlib, readers
also accept raw deflate and gzip; the CRC covers the *inflated* bytes, and a
CRC over the compressed bytes is accepted, noted and kept for the rewrite;
bytes between the end of the stream and the CRC are kept. This module is
the one place those rules live.
"""

from __future__ import annotations

import mmap
import zlib
from dataclasses import dataclass, field
from typing import Literal

from ...compression import Deflated, inflate
from ...errors import Report


@dataclass(slots=True, eq=False)
class StreamEncoding:
    """How a stream was stored, so an unchanged one is written back byte for byte."""

    deflate: Deflated = field(default_factory=Deflated)
    crc_over: Literal["content", "compressed"] = "content"
    after_stream: bytes = b""  # bytes between the end of the deflate stream and the CRC


def read_stream(compressed: bytes | memoryview, stored_crc: int, enc: StreamEncoding, report: Report, *,
                offset: int, crc_offset: int, path: str, crc_path: str, what: str) -> bytes:
    """Inflate ``compressed`` (at ``offset`` in the file), check the CRC, and record in ``enc``
    how it was stored. ``what`` names the inflated bytes in messages ("the chunk data")."""
    inflated = inflate(compressed, offset=offset, path=path)
    content = inflated.data
    # The original stream is kept to be written back unchanged. From a mapped file it is a
    # view of the map, not a copy: the map's pages are already in memory, and a copy of a
    # stored (level 0) save's stream made validate's peak 5x the file (issue 21).
    kept = memoryview(compressed)[: inflated.consumed]
    original = kept if isinstance(kept.obj, mmap.mmap) else bytes(kept)
    enc.deflate = Deflated.from_stream(original, content, inflated.container)  # type: ignore[arg-type]
    enc.after_stream = inflated.trailing
    if inflated.container.value != "zlib":
        report.note(f"{what} is a {inflated.container.value} deflate stream (writers emit zlib)")
    if inflated.trailing:
        report.warning(offset + inflated.consumed, path, "the CRC right after the deflate stream",
                       f"{len(inflated.trailing)} more bytes (kept)")
    crc_content = zlib.crc32(content)
    if crc_content != stored_crc:
        if zlib.crc32(compressed) == stored_crc:
            enc.crc_over = "compressed"
            report.note(f"the CRC after {what} covers the compressed bytes")
        else:
            report.error(crc_offset, crc_path, f"0x{crc_content:08X} (CRC-32 of {what}, inflated)",
                         f"0x{stored_crc:08X}")
    return content


def write_stream(content: bytes, enc: StreamEncoding) -> bytes:
    """The stored form of ``content``: the stream (the original bytes while unchanged), then the CRC."""
    compressed = enc.deflate.compress(content)
    crc = zlib.crc32(compressed) if enc.crc_over == "compressed" else zlib.crc32(content)
    return compressed + enc.after_stream + crc.to_bytes(4, "little")
