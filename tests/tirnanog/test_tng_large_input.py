"""A large input costs what the codec reads of it, not several times its size.

The file is sparse (a hole after the header), so the test writes almost
nothing to disk; tracemalloc measures what Python allocates while parsing.
"""

from __future__ import annotations

import mmap
import tracemalloc
import zlib
from pathlib import Path

import pytest

from savecraft import compression, registry
from savecraft.fileio import MAP_FROM, read_input
from savecraft.errors import FormatError, Report, SavecraftError
from savecraft.formats.tirnanog.save import codec

SIZE = 64 << 20


def _sparse(path: Path, head: bytes) -> Path:
    with open(path, "wb") as fh:
        fh.write(head)
        fh.truncate(SIZE)
    return path


def _peak(fn: object) -> int:
    tracemalloc.start()
    try:
        fn()  # type: ignore[operator]
    except FormatError:
        pass
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def test_a_large_save_that_breaks_at_0x20_costs_kilobytes_when_mapped(tmp_path: Path) -> None:
    path = _sparse(tmp_path / "big.sav", codec.MAGIC + b"g".ljust(16, b"\0"))
    data = read_input(path, map_from=MAP_FROM)
    assert isinstance(data, mmap.mmap)
    fmt = registry.find(data)  # type: ignore[arg-type]
    assert fmt.name == "tirnanog-save"
    with pytest.raises(FormatError) as exc:
        fmt.parse(data, Report(strict=False))  # type: ignore[arg-type]
    assert exc.value.offset == 0x20 and exc.value.path == "payload"
    assert _peak(lambda: fmt.parse(data, Report(strict=False))) < SIZE // 16  # type: ignore[arg-type]
    del data  # views of it may outlive the parse: the map goes with the last of them


def test_parsing_a_large_save_in_memory_does_not_copy_it(tmp_path: Path) -> None:
    data = codec.MAGIC + bytes(SIZE)
    assert _peak(lambda: registry.find(data).parse(data, Report(strict=False))) < SIZE // 16


def test_inflate_does_not_copy_its_input() -> None:
    good = zlib.compress(b"hello" * 1000)
    data = good + bytes(SIZE)  # a stream, then a lot of bytes that are not part of it
    out = compression.inflate(memoryview(data)[: len(good)])
    assert out.data == b"hello" * 1000 and out.consumed == len(good) and out.trailing == b""
    assert _peak(lambda: compression.inflate(memoryview(data)[len(good):])) < SIZE // 16


def test_inflate_in_pieces_gives_the_same_results_as_one_call() -> None:
    payload = bytes(range(256)) * 80_000  # 20 MiB: several input pieces' worth once compressed
    stream = compression.compress(payload, level=0)
    assert len(stream) > 3 * compression._IN_PIECE
    out = compression.inflate(stream + b"tail")
    assert out.data == payload and out.consumed == len(stream) and out.trailing == b"tail"
    with pytest.raises(FormatError) as exc:
        compression.inflate(stream[:-10], offset=100)
    assert exc.value.offset == 100 + len(stream) - 10
    with pytest.raises(FormatError) as exc:
        compression.inflate(stream, limit=len(payload) - 1)
    assert "at most" in exc.value.expected


def test_the_reader_maps_only_large_regular_files(tmp_path: Path) -> None:
    small = tmp_path / "small"
    small.write_bytes(b"abc")
    assert read_input(small, map_from=MAP_FROM) == b"abc"
    blob = b"xyz"
    assert read_input(blob, map_from=MAP_FROM) is blob
    big = _sparse(tmp_path / "big", b"head")
    data = read_input(big, map_from=MAP_FROM)
    assert isinstance(data, mmap.mmap) and data[:4] == b"head" and len(data) == SIZE
    data.close()
    with pytest.raises(SavecraftError, match="cannot read"):
        read_input(tmp_path / "missing", map_from=MAP_FROM)
