"""Game files written from the spec but not by savecraft's builder: validate says what is odd,
and every one that parses is rebuilt byte for byte (load + build, and dump + build).

The variants are made from the sample game by rewriting its section block and
asset area (fuzz/hostile.py ``rewrite_game``); offsets below are those of the
sample game's assets, found once by the fixture.
"""

from __future__ import annotations

import json
import struct
import zlib
from typing import Any

import pytest

import savecraft
from fuzz.hostile import rewrite_game, set_descriptor
from savecraft.formats.tirnanog.game import build, open_game
from savecraft.formats.tirnanog.game.sample import build_sample_game, sample_game
from savecraft.formats.tirnanog.game.sections import (
    MapsSection,
    NpcTypesSection,
    ObjectsSection,
    TileSpritesSection,
)
from savecraft.formats.tirnanog.game.sections.sprites import Animation, Frame

from .support import assets, maps_not_last, section_of, set_directions


@pytest.fixture(scope="module")
def game_bytes() -> bytes:
    return build_sample_game()


def _rebuilds_exactly(data: bytes) -> None:
    assert savecraft.build(savecraft.parse(data)) == data, "load + build changed the bytes"
    doc = json.loads(json.dumps(savecraft.to_json(savecraft.parse(data))))
    assert savecraft.build(savecraft.from_json(doc)) == data, "dump + build changed the bytes"


def _messages(data: bytes) -> list[str]:
    return [str(p) for p in savecraft.validate(data).problems]


def test_maps_that_are_not_the_last_assets_are_reported_and_kept_in_place(game_bytes: bytes) -> None:
    data = maps_not_last(game_bytes)
    found = _messages(data)
    assert any(m.startswith("maps.maps[0].asset: expected map assets after every other asset") and "quests[0]" in m
               for m in found), found
    _rebuilds_exactly(data)


def test_an_edit_that_resizes_an_asset_puts_the_maps_last_again(game_bytes: bytes) -> None:
    g = savecraft.parse(maps_not_last(game_bytes))
    sprites = g.section(TileSpritesSection).sprites  # type: ignore[union-attr]
    sprites[0].asset.value.animations.append(Animation(8, 8, 1, 0, [Frame()]))
    rebuilt = savecraft.build(g)
    assert not any("map assets after every other asset" in m for m in _messages(rebuilt))


def test_overlapping_assets_rebuild_byte_for_byte(game_bytes: bytes) -> None:
    ((bg, lbg),) = assets(game_bytes, section_of(game_bytes, "backgrounds"))
    atlas = assets(game_bytes, section_of(game_bytes, "atlases"))[0]
    inside = rewrite_game(game_bytes, lambda b: set_descriptor(b, (bg, lbg), (atlas[0] + 95, 300)))
    prefix = rewrite_game(game_bytes, lambda b: set_descriptor(b, (bg, lbg), (atlas[0], 300)))
    assert any("starts after the previous one ends" in m for m in _messages(inside))
    for data in (inside, prefix):
        _rebuilds_exactly(data)


def test_a_sprite_whose_direction_count_disagrees_with_its_map_rebuilds_byte_for_byte(
        game_bytes: bytes) -> None:
    first = assets(game_bytes, TileSpritesSection)[0]
    data = set_directions(game_bytes, first, 3)
    assert "sections[9].sprites[0].directions: expected 1 (the animation records in its sprite map), " \
           "found 3" in _messages(data)
    _rebuilds_exactly(data)
    # Changing the animation records still recomputes the count.
    g = savecraft.parse(data)
    sprite = g.section(TileSpritesSection).sprites[0]  # type: ignore[union-attr]
    sprite.asset.value.animations.append(Animation(8, 8, 1, 0, [Frame()]))
    again = savecraft.parse(savecraft.build(g))
    assert again.section(TileSpritesSection).sprites[0].directions == 2  # type: ignore[union-attr]


def test_trailing_bytes_inside_a_sprite_map_are_reported_and_kept(game_bytes: bytes) -> None:
    (first, length), *_ = assets(game_bytes, TileSpritesSection)
    maps = assets(game_bytes, MapsSection)
    n = struct.unpack_from("<I", game_bytes, 64)[0]
    base = 68 + n
    content = zlib.decompress(game_bytes[base + first : base + first + length]) + b"\1\2\3"
    new = zlib.compress(content)
    at = maps[0][0]

    def edit(b: bytearray) -> None:
        set_descriptor(b, (first, length), (at, len(new)))
        for off, ln in reversed(maps):
            set_descriptor(b, (off, ln), (off + len(new), ln))
    data = rewrite_game(game_bytes, edit, lambda a: a[:at] + new + a[at:])
    found = _messages(data)
    assert any("sections[9].sprites[0].asset.trailing: expected the end of the sprite map after 1 whole animation "
               "records" in m and "3 more bytes (kept)" in m for m in found), found
    _rebuilds_exactly(data)


def test_object_event_handlers_refuse_sell_and_buy_which_only_npcs_have() -> None:
    g = sample_game()
    objects = g.section(ObjectsSection)
    npcs = g.section(NpcTypesSection)
    assert objects is not None and npcs is not None
    obj = next(e for e in objects.objects if e.asset.value.handlers)
    npc = next(e for e in npcs.npcs if e.asset.value.handlers)
    obj.asset.value.handlers[0].event = 17
    npc.asset.value.handlers[0].event = 18
    data = build(g)
    found = _messages(data)
    bad = [m for m in found if ".event: expected an event code" in m]
    assert len(bad) == 1 and "expected an event code from 0 to 16, found 17" in bad[0], found
    assert ".objects[" in bad[0]


def _with_header_byte(data: bytes, at: int, value: int) -> bytes:
    out = bytearray(data)
    out[at] = value
    struct.pack_into("<I", out, 56, 0)
    struct.pack_into("<I", out, 56, zlib.crc32(bytes(out)))
    return bytes(out)


def test_header_byte_38_is_shown_as_a_sample_rate_or_as_an_unknown_code(game_bytes: bytes) -> None:
    with open_game(game_bytes) as g:
        assert g.header.summary()["audio sample rate"] == "44100 Hz"
    odd = _with_header_byte(game_bytes, 38, 1)
    with open_game(odd) as g:
        shown: Any = g.header.summary()["audio sample rate"]
        assert g.header.sample_rate is None
    assert shown == "unknown (code 1; only 0 = 44100 Hz is defined)"
    assert any(m.startswith("offset 0x00000026: header.sample_rate_code: expected 0 (44100 Hz")
               for m in _messages(odd))
    assert savecraft.build(savecraft.parse(odd)) == odd
