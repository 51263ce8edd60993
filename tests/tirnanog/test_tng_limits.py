"""The caps of savecraft.limits against files that claim far more than they hold.

The hostile files are generated (fuzz/hostile.py: a few kilobytes each). The
ones that used to take gigabytes run in a child process under an address-space
limit, so a regression fails the test instead of the machine.
"""

from __future__ import annotations

import os
import resource
import struct
import subprocess
import sys
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest

import savecraft
from fuzz import hostile
from savecraft import compression, limits
from savecraft.errors import FormatError, Report
from savecraft.formats.tirnanog import rle
from savecraft.formats.tirnanog.save import codec
from savecraft.formats.tirnanog.save.model import MapChunk

MEMORY = 1 << 30  # the child's address space: far below what the old code took


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def _validate_in_child(tmp_path: Path, data: bytes, env: dict[str, str] | None = None
                       ) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "hostile.bin"
    path.write_bytes(data)
    return subprocess.run([sys.executable, "-m", "savecraft", "validate", str(path)],
                          capture_output=True, text=True, timeout=120, preexec_fn=_limited,
                          env={**os.environ, **(env or {})})


@pytest.fixture
def limit() -> Iterator[object]:
    """Set caps for one test and put every one back afterwards."""
    saved = {name: limits.get(name) for name in limits.LIMITS}

    def set_(name: str, value: int) -> None:
        limits.set_limit(name, value)
    yield set_
    for name, value in saved.items():
        limits.set_limit(name, value)


def _save(content: bytes) -> bytes:
    return hostile._save(content)


def _map_chunk(map_id: int, body: bytes) -> bytes:
    return b"MAP\0" + struct.pack("<II", 12 + len(body), map_id) + body


# -- saves ------------------------------------------------------------------------------------


def test_a_4_kib_save_with_4_mib_of_map_runs_is_refused_in_bounded_memory(tmp_path: Path) -> None:
    data = hostile.save_with_huge_map()
    assert len(data) < 5000
    done = _validate_in_child(tmp_path, data)
    assert done.returncode == 1, done.stderr
    assert "offset 0x0000000C: maps[0].tiles" in done.stdout
    assert "SAVECRAFT_MAX_MAP_TILES" in done.stdout and "178956928" in done.stdout
    small = savecraft.parse(hostile.save_with_huge_map(3 * 1000))  # within the caps: loads
    assert small.chunks[0].tiles == [1] * 128_000


def test_loading_a_save_checks_map_runs_without_decoding_them(monkeypatch: pytest.MonkeyPatch) -> None:
    body = rle.encode([1, 2, 2, 2, 3] * 10)
    data = _save(_map_chunk(7, body))

    def no_decode(*args: object, **kwargs: object) -> object:
        raise AssertionError("a map was decoded while loading")
    monkeypatch.setattr(rle, "decode", no_decode)
    save = savecraft.parse(data)
    monkeypatch.undo()
    chunk = save.chunks[0]
    assert isinstance(chunk, MapChunk) and chunk.tiles == [1, 2, 2, 2, 3] * 10
    assert savecraft.build(save) == data


def test_a_map_cut_short_is_still_found_by_the_arithmetic_check() -> None:
    body = rle.encode([5] * 40)[:-1]
    with pytest.raises(FormatError) as exc:
        savecraft.parse(_save(_map_chunk(1, body)))
    assert exc.value.offset == 12 and exc.value.path == "maps[0].tiles"
    assert "run packet of 3 bytes" in exc.value.expected


def test_map_tiles_per_save_are_capped_across_maps(limit: object) -> None:
    body = rle.encode([3] * 1000)
    data = _save(_map_chunk(1, body) + _map_chunk(2, body))
    limit("file_tiles", 1500)  # type: ignore[operator]
    with pytest.raises(FormatError) as exc:
        savecraft.parse(data)
    assert exc.value.offset == 12 + len(body) and exc.value.path == "maps[1].tiles"
    assert "SAVECRAFT_MAX_FILE_TILES" in exc.value.expected
    limit("file_tiles", 2000)  # type: ignore[operator]
    assert len(savecraft.parse(data).chunks) == 2


def test_four_million_empty_chunks_stop_at_the_chunk_cap(tmp_path: Path) -> None:
    data = hostile.save_with_many_chunks()
    assert len(data) < 60_000
    done = _validate_in_child(tmp_path, data, {"SAVECRAFT_MAX_CHUNKS": "1000"})
    assert done.returncode == 1, done.stderr
    assert "offset 0x00001F40: chunks[1000]: expected at most 1000 chunks in one saved game" in done.stdout
    assert "SAVECRAFT_MAX_CHUNKS" in done.stdout


def test_the_default_chunk_cap_bounds_the_many_chunks_save(tmp_path: Path) -> None:
    done = _validate_in_child(tmp_path, hostile.save_with_many_chunks())
    assert done.returncode == 1, done.stderr
    cap = limits.LIMITS["chunks"].default
    assert f"chunks[{cap}]: expected at most {cap} chunks" in done.stdout


# -- game files -------------------------------------------------------------------------------


def test_a_game_claiming_two_8192_square_maps_validates_in_bounded_memory(tmp_path: Path) -> None:
    data = hostile.game_with_huge_maps()
    assert len(data) < 40_000
    done = _validate_in_child(tmp_path, data)
    assert done.returncode == 1, done.stderr
    assert "maps.maps[0].asset.layers: expected at most 67108864 decoded tiles in one map" in done.stdout
    assert "maps.maps[1].asset.layers" in done.stdout and "SAVECRAFT_MAX_MAP_TILES" in done.stdout


def test_map_tiles_per_game_are_capped_across_maps(limit: object) -> None:
    data = hostile.game_with_huge_maps(size_log2=6, layers=10)  # 40,960 tiles a map
    game = savecraft.parse(data)
    from savecraft.formats.tirnanog.game.sections import MapsSection
    maps = game.section(MapsSection)
    assert maps is not None
    limit("file_tiles", 60_000)  # type: ignore[operator]
    assert maps.maps[0].asset.value.layers.shape == (10, 64, 64)
    with pytest.raises(FormatError) as exc:
        maps.maps[1].asset.value  # noqa: B018
    assert exc.value.path == "maps.maps[1].asset.layers" and "SAVECRAFT_MAX_FILE_TILES" in exc.value.expected
    assert "40960 + 40960" in exc.value.found


def test_a_failed_map_decode_gives_its_tiles_back(limit: object) -> None:
    data = hostile.game_with_huge_maps(size_log2=6, layers=10)
    game = savecraft.parse(data)
    from savecraft.formats.tirnanog.game.sections import MapsSection
    maps = game.section(MapsSection)
    assert maps is not None
    limit("decoded", 1000)  # type: ignore[operator]
    for _ in range(3):
        with pytest.raises(FormatError):
            maps.maps[0].asset.value  # noqa: B018
    limit("decoded", 1 << 30)  # type: ignore[operator]
    limit("file_tiles", 2 * 40960)  # type: ignore[operator]
    assert maps.maps[0].asset.value.size == 64 and maps.maps[1].asset.value.size == 64


# -- the caps themselves ----------------------------------------------------------------------


def test_problems_kept_per_file_are_capped_with_a_count_of_the_rest(limit: object) -> None:
    limit("problems", 5)  # type: ignore[operator]
    report = Report(strict=False)
    for k in range(20):
        report.warning(k, f"x[{k}]", "nothing")
    assert len(report.problems) == 6 and report.ok
    assert report.problems[-1].expected.startswith("and 15 more problems")
    report.capture(FormatError(99, "y", "an error"))
    assert len(report.problems) == 6 and not report.ok
    assert report.problems[-1].expected.startswith("and 16 more problems")
    assert report.problems[-1].severity == "error"


def test_inflate_cap_is_one_of_the_limits_and_the_old_setter_still_works() -> None:
    old = compression.set_inflate_limit(12345)
    try:
        assert limits.get("inflate") == 12345 == compression.inflate_limit()
        with pytest.raises(FormatError) as exc:
            compression.inflate(zlib.compress(bytes(20000)))
        assert "SAVECRAFT_MAX_INFLATE" in exc.value.expected
    finally:
        compression.set_inflate_limit(old)
    assert limits.get("inflate") == old


def test_limits_come_from_the_environment(tmp_path: Path) -> None:
    code = "from savecraft import limits; print(limits.get('map_tiles'), limits.get('problems'))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "SAVECRAFT_MAX_MAP_TILES": "4096",
                               "SAVECRAFT_MAX_PROBLEMS": "0x10"})
    assert done.stdout.split() == ["4096", "16"], done.stderr


def test_set_limit_refuses_unknown_names_and_negative_values() -> None:
    with pytest.raises(KeyError):
        limits.set_limit("nonsense", 1)
    with pytest.raises(ValueError):
        limits.set_limit("chunks", -1)


def test_a_map_past_the_cap_is_reported_once_per_map(tmp_path: Path) -> None:
    done = _validate_in_child(tmp_path, hostile.game_with_huge_maps())
    lines = done.stdout.splitlines()
    assert len([ln for ln in lines if "maps.maps[0].asset.layers" in ln]) == 1, done.stdout
    assert len([ln for ln in lines if "maps.maps[1].asset.layers" in ln]) == 1, done.stdout
