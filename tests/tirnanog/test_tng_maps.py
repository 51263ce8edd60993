"""The TirNanoG map asset: header, parallaxes, patrol paths and RLE layers."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from savecraft.errors import FormatError, Report
from savecraft.formats.tirnanog import rle
from savecraft.formats.tirnanog.game.maps import (
    HEADER_SIZE,
    MapAsset,
    Parallax,
    PatrolPath,
    SpriteRef,
    build_map,
    parse_map,
)
from savecraft.jsonmap import decoder, encoder


def sample_map(size: int = 16, layers: int = 11, seed: int = 1) -> MapAsset:
    rng = np.random.default_rng(seed)
    tiles = np.full((layers, size, size), 0xFFFF, dtype=np.uint16)
    tiles[0] = rng.integers(0, 4, (size, size))
    tiles[0, :, : size // 3] = 7
    tiles[-1].flat[rng.integers(0, size * size, size)] = rng.integers(10, 50, size)
    return MapAsset(
        title=3, neighbours=[0, 5, 0xFFFFFF, 0, 9, 0], daylight_length=120,
        daylight_sprite=SpriteRef(1, 4), music=17,
        parallaxes=[Parallax(True, -20, 50, 100, 0, 250, SpriteRef(4, 2)),
                    Parallax(False, 0, 0, 0, 0, 0, SpriteRef(1, 0))],
        patrol_paths=[PatrolPath(0, [(1, 2), (3, 4)]), PatrolPath(98, [])],
        layers=tiles,
    )


def test_round_trip_and_fields() -> None:
    m = sample_map()
    data = build_map(m)
    back = parse_map(data)
    assert back == m
    assert back.layers.shape == (11, 16, 16) and back.layers.dtype == np.uint16
    assert back.parallaxes[0].speed_x == -20 and back.parallaxes[0].background
    assert back.patrol_paths[0].points == [(1, 2), (3, 4)]
    assert back.neighbours[2] == 0xFFFFFF
    assert build_map(back) == data
    # header fields where the spec puts them
    assert int.from_bytes(data[0:3], "little") == 3
    assert int.from_bytes(data[21:23], "little") == 120
    assert data[23] == 1 and int.from_bytes(data[24:26], "little") == 4
    assert int.from_bytes(data[26:29], "little") == 17
    assert data[29] == 2 and data[30] == 2
    rle_size = int.from_bytes(data[31:34], "little")
    assert HEADER_SIZE + 20 + 3 + 8 + 3 + rle_size == len(data)


def test_non_canonical_rle_is_kept_while_unchanged() -> None:
    m = sample_map(size=4, layers=1)
    flat = m.layers.ravel()
    # every value as its own literal packet: valid, but not what encode() writes
    stream = b"".join(b"\x00" + int(v).to_bytes(2, "little") for v in flat)
    data = build_map(m)
    head = bytearray(data[: len(data) - int.from_bytes(data[31:34], "little")])
    head[31:34] = len(stream).to_bytes(3, "little")
    original = bytes(head) + stream
    back = parse_map(original)
    assert build_map(back) == original
    # JSON keeps the hint, so dump then build is byte exact
    again = decoder(MapAsset)(encoder(MapAsset)(back), "data")
    assert again == back and build_map(again) == original
    # an edit drops the old stream and writes a canonical one with the right size
    back.layers[0, 0, 0] = 1234
    edited = build_map(back)
    assert edited != original
    assert parse_map(edited).layers[0, 0, 0] == 1234
    assert int.from_bytes(edited[31:34], "little") == len(rle.encode(back.layers))


def test_json_round_trip() -> None:
    m = parse_map(build_map(sample_map()))
    obj = encoder(MapAsset)(m)
    assert obj["layers"]["dtype"] == "uint16" and obj["layers"]["shape"] == [11, 16, 16]
    assert obj["rle_stream"] is None  # canonical: the layers say it all
    back = decoder(MapAsset)(obj, "data")
    assert back == m and build_map(back) == build_map(m)


def test_shape_from_game_header() -> None:
    m = sample_map(size=8, layers=4)
    data = build_map(m)
    assert parse_map(data, layers=4, size=8).layers.shape == (4, 8, 8)
    assert parse_map(data, layers=1).layers.shape == (1, 16, 16)
    with pytest.raises(FormatError) as err:
        parse_map(data, layers=11, size=8)
    assert err.value.path == "layers" and "704" in str(err.value)


def _with_rle(data: bytes, stream: bytes) -> bytes:
    rle_size = int.from_bytes(data[31:34], "little")
    head = bytearray(data[: len(data) - rle_size])
    head[31:34] = len(stream).to_bytes(3, "little")
    return bytes(head) + stream


def test_rle_overfill_and_underfill_report_offsets() -> None:
    m = sample_map(size=2, layers=1)  # 4 tiles
    data = build_map(m)
    rle_at = len(data) - int.from_bytes(data[31:34], "little")
    over = _with_rle(data, b"\x81\x01\x00\x82\x02\x00")  # 2 + 3 = 5 tiles
    with pytest.raises(FormatError) as err:
        parse_map(over, layers=1, size=2, offset=0x100, path="maps[0]")
    assert err.value.offset == 0x100 + rle_at + 3
    assert err.value.path == "maps[0].layers"
    under = _with_rle(data, b"\x82\x01\x00")
    with pytest.raises(FormatError) as err:
        parse_map(under, layers=1, size=2)
    assert err.value.offset == rle_at + 3 and "after 3" in str(err.value)


def test_truncations_are_format_errors() -> None:
    data = build_map(sample_map(size=8, layers=2))
    for cut in range(len(data)):
        with pytest.raises(FormatError):
            parse_map(data[:cut], layers=2, size=8)


def test_truncated_packet_offset() -> None:
    data = build_map(sample_map(size=2, layers=1))
    rle_at = len(data) - int.from_bytes(data[31:34], "little")
    bad = _with_rle(data, b"\x81\x01\x00\x05\x01\x00")
    with pytest.raises(FormatError) as err:
        parse_map(bad)
    assert err.value.offset == rle_at + 3 and "literal packet of 13 bytes" in str(err.value)


def test_rle_size_past_the_end() -> None:
    data = bytearray(build_map(sample_map(size=2, layers=1)))
    data[31:34] = (len(data)).to_bytes(3, "little")
    with pytest.raises(FormatError) as err:
        parse_map(bytes(data), offset=64)
    assert err.value.offset == 64 + 31 and "rle_size" in err.value.path


def test_out_of_range_values_are_reported_in_validate_mode() -> None:
    m = sample_map(size=2, layers=1)
    m.parallaxes[0].speed_x = -120
    m.patrol_paths[0].id = 120
    report = Report(strict=False)
    back = parse_map(build_map(m) + b"xx", report=report)
    found = {p.path for p in report.problems}
    assert {"parallaxes[0].speed_x", "patrol_paths[0].id", "trailing"} <= found
    assert back.trailing == b"xx"
    assert build_map(back) == build_map(m) + b"xx"


@st.composite
def maps(draw: st.DrawFn) -> MapAsset:
    size = draw(st.sampled_from([1, 2, 4, 8]))
    layers = draw(st.integers(1, 4))
    n = layers * size * size
    values = draw(st.lists(st.sampled_from([0, 1, 2, 0xFFFF, 300]), min_size=n, max_size=n))
    sprite = st.builds(SpriteRef, st.integers(0, 4), st.integers(0, 0xFFFF))
    return MapAsset(
        title=draw(st.integers(0, 0xFFFFFF)),
        neighbours=draw(st.lists(st.integers(0, 0xFFFFFF), min_size=6, max_size=6)),
        daylight_length=draw(st.integers(0, 0xFFFF)),
        daylight_sprite=draw(sprite),
        music=draw(st.integers(0, 0xFFFFFF)),
        parallaxes=draw(st.lists(st.builds(
            Parallax, st.booleans(), st.integers(-100, 100), st.integers(0, 100),
            st.integers(-100, 100), st.integers(0, 100), st.integers(0, 0xFFFF), sprite),
            max_size=3)),
        patrol_paths=draw(st.lists(st.builds(
            PatrolPath, st.integers(0, 98),
            st.lists(st.tuples(st.integers(0, 0xFFFF), st.integers(0, 0xFFFF)), max_size=4)),
            max_size=3)),
        layers=np.array(values, dtype=np.uint16).reshape(layers, size, size),
    )


@given(maps())
def test_property_round_trip(m: MapAsset) -> None:
    data = build_map(m)
    back = parse_map(data, layers=m.layer_count, size=m.size)
    assert back == m
    assert build_map(back) == data
    assert decoder(MapAsset)(encoder(MapAsset)(back), "data") == back


@given(st.binary(max_size=80))
def test_property_garbage_never_crashes(blob: bytes) -> None:
    try:
        parse_map(blob, report=Report(strict=False))
    except FormatError:
        pass


def _reference_decode(data: bytes) -> list[int]:
    """The spec's RLE, one packet at a time, as plainly as it can be written."""
    out: list[int] = []
    pos = 0
    while pos < len(data):
        h = data[pos]
        if h & 0x80:
            if pos + 3 > len(data):
                raise FormatError(pos, "", "cut")
            out += [int.from_bytes(data[pos + 1:pos + 3], "little")] * ((h & 0x7F) + 1)
            pos += 3
        else:
            size = 1 + 2 * (h + 1)
            if pos + size > len(data):
                raise FormatError(pos, "", "cut")
            out += [int.from_bytes(data[pos + 1 + 2 * k:pos + 3 + 2 * k], "little")
                    for k in range(h + 1)]
            pos += size
    return out


packets = st.one_of(
    st.tuples(st.integers(0x80, 0xFF), st.sampled_from([0, 1, 0xFFFF, 0x8080, 0x00FF])).map(
        lambda t: bytes([t[0]]) + t[1].to_bytes(2, "little")),
    st.integers(0, 5).flatmap(lambda c: st.binary(min_size=2 * (c + 1), max_size=2 * (c + 1)).map(
        lambda b, c=c: bytes([c]) + b)),
)


@given(st.lists(packets, max_size=40))
def test_rle_decode_matches_the_spec_on_any_packets(parts: list[bytes]) -> None:
    stream = b"".join(parts)
    want = _reference_decode(stream)
    assert rle.decode(stream).tolist() == want
    assert rle.decode(stream, len(want)).tolist() == want
    assert rle.decode(rle.encode(want), len(want)).tolist() == want


@given(st.binary(max_size=60))
def test_rle_decode_garbage_offsets(blob: bytes) -> None:
    try:
        want = _reference_decode(blob)
    except FormatError as ref:
        with pytest.raises(FormatError) as err:
            rle.decode(blob, offset=100)
        assert err.value.offset == 100 + (ref.offset or 0)
    else:
        assert rle.decode(blob).tolist() == want
        if want:
            with pytest.raises(FormatError):
                rle.decode(blob, len(want) - 1)
        with pytest.raises(FormatError):
            rle.decode(blob, len(want) + 1)


def test_parallax_kind_other_than_0_or_1_is_kept() -> None:
    data = bytearray(build_map(sample_map(size=2, layers=1)))
    data[HEADER_SIZE] = 7  # the first parallax's kind byte
    report = Report(strict=False)
    m = parse_map(bytes(data), report=report)
    assert m.parallaxes[0].kind_byte == 7 and not m.parallaxes[0].background
    assert any(p.path == "parallaxes[0].kind" for p in report.problems)
    assert build_map(m) == bytes(data)
    assert m != parse_map(build_map(sample_map(size=2, layers=1)))
