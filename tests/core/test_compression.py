"""Bounded inflate and reuse of original compressed bytes."""

from __future__ import annotations

import gzip
import zlib

import pytest

from savecraft.compression import Container, Deflated, compress, detect_container, inflate
from savecraft.errors import FormatError

DATA = b"savecraft " * 5000


def foreign_stream(data: bytes) -> bytes:
    """A zlib stream no level of ours reproduces (small window, small memory)."""
    c = zlib.compressobj(9, zlib.DEFLATED, 9, 1)
    return c.compress(data) + c.flush()


@pytest.mark.parametrize("container", list(Container))
def test_every_container_is_detected_and_inflated(container: Container) -> None:
    stream = compress(DATA, container, 9)
    assert detect_container(stream) == container
    out = inflate(stream)
    assert out.data == DATA and out.container == container and out.trailing == b""


def test_gzip_member_from_the_stdlib() -> None:
    assert inflate(gzip.compress(DATA)).data == DATA


def test_cap_stops_a_bomb_with_the_stream_offset() -> None:
    bomb = zlib.compress(bytes(50_000_000), 9)  # 50 MB of zeros in ~50 kB
    with pytest.raises(FormatError) as exc:
        inflate(bomb, offset=0x40, path="payload", limit=1_000_000)
    assert exc.value.offset == 0x40
    assert "at most 1000000 bytes" in exc.value.expected


def test_truncated_stream_is_an_error_at_its_end() -> None:
    stream = zlib.compress(DATA)
    with pytest.raises(FormatError) as exc:
        inflate(stream[:-10], offset=100)
    assert exc.value.offset == 100 + len(stream) - 10


def test_corrupt_stream() -> None:
    stream = bytearray(zlib.compress(DATA))
    stream[5] ^= 0xFF
    stream[6] ^= 0xFF
    with pytest.raises(FormatError):
        inflate(bytes(stream))


def test_trailing_bytes_are_returned() -> None:
    out = inflate(zlib.compress(DATA) + b"tail")
    assert out.trailing == b"tail"


def test_deflated_reuses_original_bytes_only_while_unchanged() -> None:
    original = foreign_stream(DATA)
    hint = Deflated.from_stream(original, DATA, Container.ZLIB)
    assert hint.compress(DATA) == original
    changed = hint.compress(DATA + b"!")
    assert changed != original and zlib.decompress(changed) == DATA + b"!"


def test_settle_finds_the_level_or_keeps_the_bytes() -> None:
    hint = Deflated.from_stream(zlib.compress(DATA, 9), DATA, Container.ZLIB)
    hint.settle(DATA)
    assert hint.original is None and hint.level is not None
    assert hint.compress(DATA) == zlib.compress(DATA, 9)

    original = foreign_stream(DATA)
    hint = Deflated.from_stream(original, DATA, Container.ZLIB)
    hint.settle(DATA)
    assert hint.original == original and hint.content is None  # digest kept instead
    assert hint.compress(DATA) == original
