"""Edits recompute everything that depends on them: offsets, sizes, counts, both CRCs."""

from __future__ import annotations

import random
import zlib

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from savecraft import api, jsonmap
from savecraft.formats.tirnanog.game import Game, open_game
from savecraft.formats.tirnanog.game.bytecode import iter_scripts
from savecraft.formats.tirnanog.game.header import CRC_OFFSET, file_crc
from savecraft.formats.tirnanog.game.sample import build_sample_game, draw_tile_atlas, sample_game
from savecraft.formats.tirnanog.game.sections import AtlasesSection, NpcTypesSection, ObjectsSection
from savecraft.formats.tirnanog.game.sections.common import EventHandler
from savecraft.formats.tirnanog.game.sections.s28_npc_types import NpcAsset, NpcEntry, NpcType

DATA = build_sample_game()


def crcs_hold(data: bytes) -> None:
    assert int.from_bytes(data[CRC_OFFSET : CRC_OFFSET + 4], "little") == file_crc(data)
    n = int.from_bytes(data[64:68], "little")
    block = zlib.decompress(data[68 : 68 + n - 4])
    assert int.from_bytes(data[64 + n : 68 + n], "little") == zlib.crc32(block)


def rebuilt(game: Game) -> Game:
    out = api.build(game)
    crcs_hold(out)
    v = api.validate(out)
    assert v.ok, [str(p) for p in v.problems]
    return api.load(out)


def test_rename_a_string_moves_every_reference() -> None:
    game = open_game(DATA)
    s = game.strings
    k = s.strings.index("hp")
    s.strings[k] = "hit_points"
    again = rebuilt(game)
    assert again.string(again.attributes.attributes[0].name) == "hit_points"  # type: ignore[union-attr]
    # references after the renamed one moved too, inside never-decoded assets as well
    npc = again.section(NpcTypesSection).npcs[0]  # type: ignore[union-attr]
    assert again.string(npc.name) == "npc_guard"
    assert again.string(npc.asset.value.attributes[0].attribute) == "hit_points"
    scripts = [sc.text for _, sc in iter_scripts(again.sections)]
    assert any("PUSHA hit_points" in t for t in scripts)
    assert not any(" hp\n" in t for t in scripts)
    assert again.string(again.maps.maps[0].asset.value.neighbours[2]) == "forest"  # type: ignore[union-attr]


def test_rename_after_scripts_were_shown() -> None:
    game = open_game(DATA)
    texts = [sc.text for _, sc in iter_scripts(game.sections)]  # decodes scripts with the old name
    assert any("PUSHA gold" in t for t in texts)
    game.strings.strings[game.strings.strings.index("gold")] = "coins"
    again = rebuilt(game)
    assert any("PUSHA coins" in sc.text for _, sc in iter_scripts(again.sections))


def test_replace_an_atlas_png() -> None:
    game = open_game(DATA)
    new = draw_tile_atlas(random.Random(5))  # the same layout, other colours
    assert new != game.require(AtlasesSection).entries[0].asset.value
    game.require(AtlasesSection).entries[0].asset.value = new
    again = rebuilt(game)
    assert again.require(AtlasesSection).entries[0].asset.value == new
    assert again.require(AtlasesSection).entries[1].asset.value == game.require(AtlasesSection).entries[1].asset.value
    assert again.maps.maps[1].asset.value == open_game(DATA).maps.maps[1].asset.value  # type: ignore[union-attr]


def test_change_a_tile() -> None:
    game = open_game(DATA)
    game.maps.maps[0].asset.value.layers[0, 3, 4] = 2  # type: ignore[union-attr]
    again = rebuilt(game)
    layers = again.maps.maps[0].asset.value.layers  # type: ignore[union-attr]
    assert layers[0, 3, 4] == 2
    assert np.array_equal(np.delete(layers.ravel(), 3 * 16 + 4),
                          np.delete(open_game(DATA).maps.maps[0].asset.value.layers.ravel(), 3 * 16 + 4))  # type: ignore[union-attr]


def test_add_an_npc() -> None:
    game = open_game(DATA)
    npcs = game.require(NpcTypesSection)
    before = len(npcs.npcs)
    name = game.strings.add("npc_bard")
    npcs.npcs.append(NpcEntry(name, NpcAsset(NpcType(3, handlers=[EventHandler(0, 0)]))))
    again = rebuilt(game)
    got = again.require(NpcTypesSection).npcs
    assert len(got) == before + 1 and again.string(got[-1].name) == "npc_bard"
    start, end = again.asset_bundle_range()
    assert end < len(again.source)  # type: ignore[arg-type]
    assert again.map_asset_bytes(0) == open_game(DATA).map_asset_bytes(0)
    # maps stay the last assets in the file
    maps = again.maps.maps  # type: ignore[union-attr]
    assert min(m.asset.file_offset for m in maps) >= max(
        a.file_offset + a.length for s in again.sections if s is not again.maps for a in _assets(s))


def _assets(s: object) -> list:  # type: ignore[type-arg]
    from savecraft.formats.tirnanog.game.sections.common import iter_assets
    return [a for a in iter_assets(s) if a.length]


def test_removed_object_shrinks_the_file() -> None:
    game = open_game(DATA)
    objs = game.require(ObjectsSection)
    del objs.objects[0]
    out = api.build(game)
    crcs_hold(out)
    assert len(out) < len(DATA)


def test_open_is_lazy(tmp_path: object) -> None:
    from pathlib import Path
    p = Path(str(tmp_path)) / "g.tng"
    p.write_bytes(DATA)
    with open_game(p) as game:
        assert all(not a.loaded for a in game.assets())
        assert game.header.unique_id and game.asset_bundle_range()[0] == 64
        game.map_asset_bytes(1)
        assert sum(a.loaded for a in game.assets()) == 0  # raw bytes read, nothing decoded
        assert api.build(game) == DATA


@given(st.integers(0, 2**32 - 1))
def test_random_games_round_trip(seed: int) -> None:
    game = sample_game(random.Random(seed))
    data = api.build(game)
    crcs_hold(data)
    again = open_game(data)
    assert again == game
    assert api.build(again) == data
    doc = jsonmap.dumps(api.load(data))
    assert api.build(jsonmap.loads(doc)) == data
    v = api.validate(data)
    assert v.ok, [str(p) for p in v.problems]


def test_removing_a_string_is_refused_unless_asked() -> None:
    import pytest

    from savecraft.errors import FormatError
    game = open_game(DATA)
    del game.strings.strings[-1]
    with pytest.raises(FormatError) as info:
        api.build(game)
    assert "not removed" in str(info.value)
    game.strings.layout = game.strings.offsets()
    assert api.build(game)


@given(st.lists(st.tuples(st.sampled_from(["media", "drop", "rename", "tile", "npc"]), st.integers(0, 2**16)),
                min_size=1, max_size=6))
def test_random_edits_keep_the_file_consistent(ops: list[tuple[str, int]]) -> None:
    from savecraft.formats.tirnanog.game.assets import MediaAsset
    from savecraft.formats.tirnanog.game.sections import SoundsSection
    game = open_game(DATA)
    for op, x in ops:
        if op == "media":
            media = [a for a in game.assets() if isinstance(a, MediaAsset) and a.MAGICS]
            a = media[x % len(media)]
            a.value = a.MAGICS[0] + bytes(range(256))[: x % 200]
        elif op == "drop":
            sounds = game.require(SoundsSection)
            if len(sounds.entries) > 1:
                del sounds.entries[x % len(sounds.entries)]
        elif op == "rename":
            k = 1 + x % (len(game.strings.strings) - 1)
            game.strings.strings[k] = game.strings.strings[k] + "_" * (x % 5)
        elif op == "tile":
            layers = game.maps.maps[x % 2].asset.value.layers  # type: ignore[union-attr]
            layers[0, x % 16, (x // 16) % 16] = x % 8
        elif op == "npc":
            game.require(NpcTypesSection).npcs.append(
                NpcEntry(game.strings.add(f"npc{x}"), NpcAsset(NpcType(3, speed=x % 300))))
    expected = {id(a): a.value for a in game.assets() if isinstance(a, MediaAsset)}
    names = list(game.strings.strings)
    again = rebuilt(game)
    assert again.strings.strings == names
    got = [a.value for a in again.assets() if isinstance(a, MediaAsset)]
    assert got == [expected[id(a)] for a in game.assets() if isinstance(a, MediaAsset)]
    assert api.build(again) == api.build(game)


def test_lookups_before_the_build_follow_renames() -> None:
    from savecraft.errors import Report
    from savecraft.formats.tirnanog.game.checks import check_game
    game = open_game(DATA)
    attr = game.attributes.attributes[0]  # type: ignore[union-attr]
    game.strings.strings[game.strings.strings.index("hp")] = "hit_points_longer"
    assert game.string(attr.name) == "hit_points_longer"  # the reference still holds the offset it was read with
    assert game.strings.find("hit_points_longer") == attr.name
    late = game.strings.add("added_after_a_rename")
    game.require(NpcTypesSection).npcs[0].name = late
    report = Report(strict=False)
    check_game(game, report)
    assert report.ok, [str(p) for p in report.problems]
    again = rebuilt(game)
    assert again.string(again.require(NpcTypesSection).npcs[0].name) == "added_after_a_rename"
    assert again.string(again.attributes.attributes[0].name) == "hit_points_longer"  # type: ignore[union-attr]


def test_assets_of_a_closed_game_fail_clearly(tmp_path: object) -> None:
    import pytest

    from savecraft.errors import FormatError
    from pathlib import Path
    p = Path(str(tmp_path)) / "g.tng"
    p.write_bytes(DATA)
    game = open_game(p)
    asset = game.maps.maps[0].asset  # type: ignore[union-attr]
    game.close()
    with pytest.raises(FormatError, match="closed"):
        asset.value
