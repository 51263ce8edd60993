"""Xygos 0.0.3 (``XyGs``): the real file its test suite left (xygos_0.0.3_24580new.sav,
backwardsEric/angband 44798ed), every block decoded as Xygos's own load.c reads it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from savecraft import api, jsonmap
from savecraft.errors import Report
from savecraft.formats.angband import block
from savecraft.formats.angband.block import RawBlock
from savecraft.formats.angband.layouts import layouts, xygos

from tests.samples import SAMPLES, real_samples

from .support import block_span, replace_block

XYGOS = SAMPLES / "angband-block-more" / "xygos_0.0.3_24580new.sav"
pytestmark = real_samples


@pytest.fixture(scope="module")
def data() -> bytes:
    return XYGOS.read_bytes()


@pytest.fixture(scope="module")
def save(data: bytes) -> block.BlockSave:
    return block.parse(data, Report(strict=True), verify=True)


def test_every_block_is_decoded_and_rebuilds_byte_for_byte(data: bytes, save: block.BlockSave) -> None:
    assert save.game == "Xygos 0.0.3"
    assert save.game_reason == "its player block reads exactly with the Xygos 0.0.3 layout"
    assert not [b for b in save.blocks if isinstance(b, RawBlock)]
    assert [block.block_name(b) for b in save.blocks][6] == "world"  # Xygos's own block
    assert block.build(save) == data
    assert block.build(jsonmap.loads(jsonmap.dumps(save))) == data
    assert api.validate(data).ok


def test_the_player_matches_the_line_the_game_wrote(save: block.BlockSave) -> None:
    # The description block is the game's own "Tester, L1 Time-Lord Soldier, at DL0".
    d = save.description
    assert d is not None and (d.name, d.level, d.race, d.character_class) == \
        ("Tester", 1, "Time-Lord", "Soldier")
    p = save.player
    assert isinstance(p, xygos.Player)
    assert (p.full_name, p.lev, p.race, p.character_class) == ("Tester", 1, "Time-Lord", "Soldier")
    assert (p.extension, p.personality, p.shape) == ("None", "Ordinary", "normal")
    assert len(p.stat_max) == 7  # Xygos's seven stats: charisma and speed too
    assert len(p.talent_gain) == 50 * xygos.N_CLASSES and len(p.lev_class) == 51
    assert len(p.cooldown) == xygos.TOTAL_SPELLS
    assert p.soldier.storename == "General Eringorth (Time-Lord)"  # the Soldier hook's bytes
    assert p.regenerations == 0 and p.extension_state == b""  # Time-Lord hook; none for "None"
    assert p.mhp == p.chp == 24


def test_the_game_s_constants_agree_with_its_later_blocks(save: block.BlockSave) -> None:
    hp = next(b for b in save.blocks if isinstance(b, xygos.PlayerHp))
    assert len(hp.player_hp) == 50 * xygos.N_CLASSES  # wr_player_hp: PY_MAX_LEVEL * classes
    spells = next(b for b in save.blocks if block.block_name(b) == "player spells")
    assert len(spells.spell_flags) == xygos.TOTAL_SPELLS
    stores = next(b for b in save.blocks if isinstance(b, xygos.Stores))
    world = next(b for b in save.blocks if isinstance(b, xygos.World))
    assert stores.store_count == xygos.MAX_STORES == len(stores.first_town)
    assert 1 + len(stores.other_towns) == len(world.towns) == 6
    assert all(s.owners for s in stores.first_town)
    assert all(s.owners is None for t in stores.other_towns for s in t.stores)
    assert world.towns[0].name == "Muddy Gully" and world.towns[0].connect == [1, 2, 3, 4, 5]


def test_info_shows_the_character_sheet(tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, "-m", "savecraft", "info", "--json", str(XYGOS)],
                         capture_output=True, text=True, check=True)
    doc = json.loads(out.stdout)
    assert (doc["name"], doc["race"], doc["class"], doc["level"]) == ("Tester", "Time-Lord", "Soldier", 1)
    assert doc["game"] == "Xygos 0.0.3" and doc["not_decoded"] == []
    assert doc["spell_points"] is None  # Xygos has none
    assert set(doc["stats"]) == {"str", "int", "wis", "dex", "con", "chr", "spd"}
    assert doc["equipment"] == ["weapon: survival knife"]
    assert "3 x survival ration" in doc["inventory"]
    for args in (["dump", str(XYGOS), "-o", str(tmp_path / "d.json")],
                 ["build", str(tmp_path / "d.json"), "-o", str(tmp_path / "d.sav")]):
        subprocess.run([sys.executable, "-m", "savecraft", *args], check=True, capture_output=True)
    assert (tmp_path / "d.sav").read_bytes() == XYGOS.read_bytes()


def test_the_studio_sheet_has_no_spell_points(save: block.BlockSave) -> None:
    from savecraft.formats.angband.summary import summary

    sheet = summary(save)
    assert sheet["title"] == "Tester" and sheet["subtitle"] == "Time-Lord Soldier, level 1"
    facts = {f["label"]: f["value"] for f in sheet["sections"][0]["items"]}
    assert facts["Hit points"] == "24 / 24" and "Spell points" not in facts
    assert [r["cells"][0] for r in sheet["sections"][1]["rows"]] == \
        ["STR", "INT", "WIS", "DEX", "CON", "CHR", "SPD"]


def test_a_player_block_of_another_race_hook_size_stays_raw(data: bytes) -> None:
    """The race's hook decides how many bytes follow: a Mutant writes 50 where a Time-Lord
    writes 4, so the same bytes under another race name do not fit (and are not guessed)."""
    start, size = block_span(data, "player")
    body = data[start + 28:start + 28 + size]
    changed = replace_block(data, "player", body.replace(b"Time-Lord\0", b"Mutant\0", 1))
    save = block.parse(changed, Report(strict=False))
    assert isinstance(save.blocks[8], RawBlock)
    assert block.build(save) == changed


def test_xygos_layouts_are_registered_for_xygos_only() -> None:
    mine = [lay for lay in layouts() if lay.game == "Xygos 0.0.3"]
    assert len(mine) == 21 and all(lay.variants == frozenset({"XyGs"}) for lay in mine)


def test_repair_names_the_blocks_a_cut_xygos_file_never_had(data: bytes, tmp_path: Path) -> None:
    start, _ = block_span(data, "ignore")
    (tmp_path / "cut.sav").write_bytes(data[:start + 100])
    out = subprocess.run([sys.executable, "-m", "savecraft", "repair", str(tmp_path / "cut.sav"),
                          "--dry-run"], capture_output=True, text=True)
    assert out.returncode != 0
    assert "the blocks the game writes after it (misc, artifacts, player hp" in out.stderr


BUILT = Path(__file__).parents[1] / "data" / "angband-built" / "xygos-0.0.3"


@pytest.mark.parametrize("name", ["Zoe-alive.sav", "Zoe-dead.sav"])
def test_files_the_game_wrote_decode_as_it_showed(name: str, tmp_path: Path) -> None:
    """A Human Mutant Geeky Engineer (see the README): the Mutant extension's hook writes 50
    bytes, the Soldier class's hook is written although the character is no Soldier."""
    data = (BUILT / name).read_bytes()
    save = block.parse(data, Report(strict=True), verify=True)
    assert save.game == "Xygos 0.0.3" and not [b for b in save.blocks if isinstance(b, RawBlock)]
    assert block.build(save) == data and block.build(jsonmap.loads(jsonmap.dumps(save))) == data
    p = save.player
    assert isinstance(p, xygos.Player)
    assert (p.full_name, p.race, p.extension, p.personality, p.character_class) == \
        ("Zoe", "Human", "Mutant", "Geeky", "Engineer")
    assert len(p.extension_state) == 50 and p.race_state == b""
    assert p.soldier.storename  # every class's hook runs, the Soldier's writes
    assert p.stat_max == [17, 17, 10, 11, 16, 12, 11]  # the screen's "Self" column
    assert (p.au, p.chp, p.mhp, p.lev) == (518, 10, 10, 1)
    doc = json.loads(subprocess.run([sys.executable, "-m", "savecraft", "info", "--json", str(BUILT / name)],
                                    capture_output=True, text=True, check=True).stdout)
    assert doc["turns"] == 38 and doc["equipment"] == ["weapon: pocket knife"] and doc["inventory"] == []
    assert doc["state"] == ("dead" if "dead" in name else "alive")
    if "dead" in name:
        assert doc["dead"] == "Quitting" and doc["character"] == "Zoe, dead (Quitting)"
    else:
        assert doc["character"] == "Zoe, L1 Human Engineer, at DL0"
    run = [sys.executable, "-m", "savecraft"]
    subprocess.run(run + ["extract", str(BUILT / name), "-o", str(tmp_path / "x")], check=True,
                   capture_output=True)
    subprocess.run(run + ["build", str(tmp_path / "x"), "-o", str(tmp_path / "x.sav")], check=True,
                   capture_output=True)
    assert (tmp_path / "x.sav").read_bytes() == data


def test_the_common_edit_paths_change_only_their_bytes(tmp_path: Path) -> None:
    out = tmp_path / "rich.sav"
    subprocess.run([sys.executable, "-m", "savecraft", "edit", str(XYGOS), "--set", "player.au=5000",
                    "--set", "player.experience=90", "--set", "gear.items[3].quantity=7", "-o", str(out)],
                   check=True, capture_output=True)
    old, new = block.parse(XYGOS.read_bytes(), Report()), block.parse(out.read_bytes(), Report())
    assert new.player is not None and (new.player.au, new.player.exp, new.player.max_exp) == (5000, 90, 90)
    assert new.gear is not None and new.gear.items[3].quantity == 7 and new.gear.items[3].known.number == 7
    assert old.gear is not None and old.gear.items[3].quantity == 3
    assert api.validate(out.read_bytes()).ok
    assert len(out.read_bytes()) == len(XYGOS.read_bytes())  # fixed-size fields: sizes unchanged
