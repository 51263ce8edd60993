"""Each section codec and each structured asset codec: decode then encode gives the same bytes.

The inputs are the sample game's own section and asset bytes, then the same
bytes with random bytes changed: whatever decodes must encode back exactly
(bytes the layout does not account for are kept), and whatever does not
decode fails with a FormatError, never another exception.
"""

from __future__ import annotations

import zlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from savecraft.binary import Reader, Writer
from savecraft.errors import FormatError, Report
from savecraft.formats.tirnanog.game import open_game
from savecraft.formats.tirnanog.game.assets import Asset, AssetContext, MediaAsset, Source
from savecraft.formats.tirnanog.game.header import Header
from savecraft.formats.tirnanog.game.refs import script_names
from savecraft.formats.tirnanog.game.sample import build_sample_game
from savecraft.formats.tirnanog.game.sections import CODECS, opaque
from savecraft.formats.tirnanog.game.sections.common import BuildContext, ParseContext, iter_assets

DATA = build_sample_game()
GAME = open_game(DATA)
N = int.from_bytes(DATA[64:68], "little")
BLOCK = zlib.decompress(DATA[68 : 68 + N - 4])
TABLE = [(int.from_bytes(BLOCK[8 * i : 8 * i + 4], "little"), int.from_bytes(BLOCK[8 * i + 4 : 8 * i + 7], "little"),
          BLOCK[8 * i + 7]) for i in range(int.from_bytes(BLOCK[:4], "little") // 8)]
SECTIONS = [(t, BLOCK[off : off + ln]) for off, ln, t in TABLE]
STRUCTURED = [(type(a), a.stored()) for s in GAME.sections for a in iter_assets(s)
              if not isinstance(a, MediaAsset) and a.length]


def roundtrip_section(t: int, raw: bytes) -> None:
    report = Report(strict=False)
    src = Source(DATA)
    names = GAME.script_names
    ctx = ParseContext(src, 68 + N, GAME.header, report, AssetContext(report, names, GAME.header))
    r = Reader(raw, path="s")
    mod = CODECS.get(t)
    try:
        section = mod.decode(r, ctx) if mod is not None else opaque.decode(r, ctx, t)
    except FormatError:
        return
    bctx = BuildContext(GAME.header, None, script_names(GAME, for_build=True))
    for a in iter_assets(section):
        bctx.places[id(a)] = (a.hint or 0, a.length)
    w = Writer()
    (mod or opaque).encode(section, w, bctx)
    assert w.getvalue() == raw


@pytest.mark.parametrize("t,raw", SECTIONS, ids=[f"type{t}" for t, _ in SECTIONS])
def test_every_section_round_trips(t: int, raw: bytes) -> None:
    roundtrip_section(t, raw)


@given(st.data())
def test_mutated_sections_round_trip(data: st.DataObject) -> None:
    t, raw = data.draw(st.sampled_from(SECTIONS))
    b = bytearray(raw)
    for _ in range(data.draw(st.integers(1, 4))):
        if b:
            b[data.draw(st.integers(0, len(b) - 1))] = data.draw(st.integers(0, 255))
    cut = data.draw(st.integers(0, len(b)))
    roundtrip_section(t, bytes(b[:cut]) if data.draw(st.booleans()) else bytes(b))


def roundtrip_asset(cls: type[Asset[object]], content: bytes) -> None:
    a = cls()
    a.path = "asset"
    ctx = AssetContext(Report(strict=False), GAME.script_names, GAME.header)
    try:
        value = a.decode(content, 0, ctx)
    except FormatError:
        return
    assert a.encode(value, ctx) == content


@pytest.mark.parametrize("cls,stored", STRUCTURED, ids=[c.__name__ for c, _ in STRUCTURED])
def test_every_structured_asset_round_trips(cls: type[Asset[object]], stored: bytes) -> None:
    roundtrip_asset(cls, zlib.decompress(stored))


@given(st.data())
def test_mutated_assets_round_trip(data: st.DataObject) -> None:
    cls, stored = data.draw(st.sampled_from([x for x in STRUCTURED if x[0].__name__ != "LazyMap"]))
    b = bytearray(zlib.decompress(stored))
    for _ in range(data.draw(st.integers(1, 4))):
        b[data.draw(st.integers(0, len(b) - 1))] = data.draw(st.integers(0, 255))
    roundtrip_asset(cls, bytes(b))


def test_header_round_trips_every_tile_size() -> None:
    from savecraft.formats.tirnanog.game.header import build_header, parse_header
    for w, h in ((1, 1), (255, 256), (512, 1023), (1023, 7)):
        hd = Header(tile_width=w, tile_height=h, game_type=3)
        again = parse_header(build_header(hd))
        assert (again.tile_width, again.tile_height, again.game_type) == (w, h, 3)
    with pytest.raises(FormatError):
        build_header(Header(tile_width=1024))
