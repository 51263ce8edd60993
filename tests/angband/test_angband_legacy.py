"""Pre-3.1 Angband savefiles: recognised by their checksums and refused with a clear message."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from savecraft import api, registry
from savecraft.cli import main
from savecraft.errors import FormatError, Report, UnsupportedFormatError
from savecraft.formats.angband import legacy
from tests.samples import SAMPLES, real_samples

SAMPLE = SAMPLES / "angband-legacy" / "minimal_PLAYER.sav"
real = real_samples
MESSAGE = "a pre-3.1 Angband savefile (version 1.0.0), which savecraft does not decode"


def encode_legacy(version: bytes, values: bytes) -> bytes:
    """What the old game's sf_put() wrote: XOR chain plus the two checksums (written from the spec)."""
    out = bytearray(version)
    xor = version[3]
    v_stamp = x_stamp = 0

    def put(v: int) -> None:
        nonlocal xor, v_stamp, x_stamp
        xor ^= v
        out.append(xor)
        v_stamp += v
        x_stamp += xor

    for v in values:
        put(v)
    for v in struct.pack("<I", v_stamp % 2**32):
        put(v)
    for v in struct.pack("<I", x_stamp % 2**32):
        put(v)
    return bytes(out)


@real
def test_real_legacy_file_is_refused_by_name(capsys: pytest.CaptureFixture[str]) -> None:
    data = SAMPLE.read_bytes()
    assert registry.detect(data).name == "angband-legacy"
    header = legacy.identify(data)
    assert header is not None and header.version == "1.0.0"
    assert header.times_saved == 24 and header.saved_at == 0x4F58A551
    with pytest.raises(UnsupportedFormatError) as err:
        api.load(data)
    assert str(err.value) == MESSAGE
    result = api.validate(data)
    assert result.format == "angband-legacy" and not result.ok
    assert [str(p) for p in result.problems] == [MESSAGE]
    assert main(["info", str(SAMPLE)]) == 1
    assert MESSAGE in capsys.readouterr().err


def test_generated_legacy_file_names_its_version() -> None:
    data = encode_legacy(bytes([3, 0, 6, 0x5A]), bytes(range(200)))
    header = legacy.identify(data)
    assert header is not None and header.version == "3.0.6"
    with pytest.raises(UnsupportedFormatError, match=r"version 3\.0\.6\)"):
        api.parse(data)


def test_broken_checksum_is_not_claimed() -> None:
    data = bytearray(encode_legacy(bytes([3, 0, 6, 1]), bytes(100)))
    data[50] ^= 1
    assert legacy.identify(bytes(data)) is None
    with pytest.raises(FormatError, match="the magic of a known format"):
        api.parse(bytes(data))
    with pytest.raises(UnsupportedFormatError) as err:
        legacy.parse(bytes(data), Report())
    assert "checksums that do not match" in str(err.value)


@given(st.binary(min_size=0, max_size=400))
def test_property_random_bytes_are_not_legacy(data: bytes) -> None:
    assert legacy.identify(data) is None


@given(st.binary(min_size=4, max_size=4), st.binary(max_size=300))
def test_property_every_encoded_file_is_recognised(version: bytes, values: bytes) -> None:
    if version.startswith(b"Save"):
        return
    header = legacy.identify(encode_legacy(version, values + b"\x01" + bytes(8)))
    assert header is not None and (header.major, header.minor, header.patch) == tuple(version[:3])


def test_zero_filled_file_is_not_legacy() -> None:
    assert legacy.identify(bytes(64)) is None
    assert legacy.identify(b"\x03\x00\x06\x00" + bytes(60)) is None


def test_numpy_and_python_checksums_agree() -> None:
    rng = np.random.default_rng(1)
    values = rng.integers(0, 256, 5000, dtype=np.uint8).tobytes()
    assert legacy.identify(encode_legacy(b"\x02\x09\x03\x07", values)) is not None


def test_info_shows_what_the_file_is_then_refuses_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from tests.cli.info_convention import check_info

    when = 1_700_000_000  # 2023-11-14T22:13:20Z
    values = bytearray(range(200))
    values[4:8] = when.to_bytes(4, "little")  # decoded bytes 8-11: sf_when
    values[10:12] = (7).to_bytes(2, "little")  # decoded bytes 14-15: sf_saves
    p = tmp_path / "old.sav"
    p.write_bytes(encode_legacy(bytes([2, 9, 3, 0x5A]), bytes(values)))
    assert main(["info", "--json", str(p)]) == 1  # a file savecraft refuses: exit 1, after the summary
    captured = capsys.readouterr()
    doc = json.loads(captured.out)
    check_info(doc)  # docs/info-json.md
    assert doc == {"file": str(p), "format": "angband-legacy", "description": legacy.FORMAT.description,
                   "decoded": False, "game": "Angband", "version": "2.9.3", "version_major": 2, "version_minor": 9,
                   "version_patch": 3, "xor_seed": 0x5A, "saved_at": "2023-11-14T22:13:20Z", "save_count": 7,
                   "file_bytes": len(p.read_bytes())}
    assert "version 2.9.3), which savecraft does not decode" in captured.err
    assert main(["info", str(p)]) == 1
    out = capsys.readouterr().out
    assert "version: 2.9.3" in out and "saved at: 2023-11-14T22:13:20Z" in out and "save count: 7" in out


def test_info_of_a_model_whose_checksums_do_not_hold_is_all_null() -> None:
    doc = legacy.info(legacy.LegacySave(b"not a savefile"))
    assert doc["file_bytes"] == 14 and doc["version"] is None and doc["saved_at"] is None


@real
def test_real_legacy_file_info_json(capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from tests.cli.info_convention import check_info

    assert main(["info", "--json", str(SAMPLE)]) == 1
    doc = json.loads(capsys.readouterr().out)
    check_info(doc)
    assert doc["version"] == "1.0.0" and doc["save_count"] == 24 and doc["saved_at"] == "2012-03-08T12:25:53Z"
