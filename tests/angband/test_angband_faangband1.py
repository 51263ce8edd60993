"""FAangband 1.4.5, 1.3.3 and 1.2.1 files, written by the games themselves
(tests/data/angband-built/faangband-1.4.5, faangband-1.3.3, faangband-1.2.1).

FAangband 1.4 writes the same variant id and block versions as Ponyband, its fork, with fewer
fields in the player, misc and monster records; nothing in the file says which of the two wrote
it, so the player block decides, both ways. 1.3.3 writes three blocks at version 1 (options,
player, squelch) and no description: the block versions decide; 1.2.1 writes 1.3.3's blocks
but traps, with the level's older info maps. Values are held against what
the games showed (the character screen, and the game's own character dump kept beside each file).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from savecraft import api, diff, edit
from savecraft.binary import Reader
from savecraft.errors import FormatError, Report
from savecraft.formats.angband import block
from savecraft.formats.angband.block import RawBlock
from savecraft.formats.angband.decoding import file_context
from savecraft.formats.angband.layouts import LayoutError, layouts_for
from savecraft.formats.angband.layouts import (character, faangband, faangband13, faangband14, faangband_character,
                                               faangband_world)

from tests.samples import SAMPLES, real_samples

from .support import assert_builds_back, assert_read_whole, blocks_of, info_json as _info

BUILT = Path(__file__).parents[1] / "data" / "angband-built"
ALIVE, DEAD = (BUILT / "faangband-1.4.5" / n for n in ("Tuor.sav", "Tuor-dead.sav"))
ALIVE13, DEAD13 = (BUILT / "faangband-1.3.3" / n for n in ("Idril.sav", "Idril-dead.sav"))
ALIVE12, DEAD12 = (BUILT / "faangband-1.2.1" / n for n in ("Luthien.sav", "Luthien-dead.sav"))
GAMES = {ALIVE: faangband14.GAME, DEAD: faangband14.GAME, ALIVE13: faangband13.GAME, DEAD13: faangband13.GAME,
         ALIVE12: faangband13.GAME, DEAD12: faangband13.GAME}
PONY_BUILT = [BUILT / "ponyband-59f6ca5" / n for n in ("Mint.sav", "Mint-dead.sav")]
PONY_REAL = [SAMPLES / "angband-block" / n for n in ("ponyband_Asira.sav", "ponyband_Clever_Sparkle.sav",
                                                       "ponyband_PLAYER.sav")]
real = real_samples


def _stats_before_race_and_class(dump: Path) -> list[int]:
    """The "Intrnl" column of the game's own character dump ("Stat Breakdown")."""
    lines = dump.read_text(encoding="latin-1").splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("Stat Intrnl"))
    return [int(line.split()[1]) for line in lines[at + 1:at + 7]]


FILES = [ALIVE, DEAD, ALIVE13, DEAD13, ALIVE12, DEAD12]
IDS = ["1.4.5-alive", "1.4.5-dead", "1.3.3-alive", "1.3.3-dead", "1.2.1-alive", "1.2.1-dead"]


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_every_block_decoded_valid_and_byte_exact(path: Path) -> None:
    save = assert_read_whole(path, GAMES[path])
    assert save.game_reason == f"its player block reads exactly with the {GAMES[path]} layout"


def test_the_character_as_the_game_showed_it() -> None:
    save = api.load(ALIVE)
    p = save.player
    assert isinstance(p, faangband_character.Player)
    assert (p.full_name, p.lev, p.max_lev, p.exp, p.max_exp, p.au) == ("Tuor", 2, 2, 10, 10, 346)
    assert (p.chp, p.mhp, p.csp, p.msp) == (18, 18, 4, 4)
    assert (p.age, p.height, p.weight, p.sc) == (20, 62, 159, 56)
    # the dump's "Stat Breakdown" column "Intrnl" (before race and class: 13, 18/10, 10, 11, 15, 10)
    assert p.stat_cur == p.stat_max == _stats_before_race_and_class(ALIVE.with_name("Tuor-dump.txt"))
    assert p.stat_cur == [16, 16, 10, 10, 16, 10]
    assert (p.prace, p.pclass, p.psex) == (0, 1, 0)  # Easterling (first race), Mage, female
    # Ponyband's own fields are not in FAangband's record
    assert p.pmark is None and p.previous_action is None and p.alignment is None
    misc = next(b for b in save.blocks if isinstance(b, faangband_character.Misc))
    assert misc.turn == 91 and misc.follow_distance is None and not misc.is_dead  # "Game Turn 91"
    dungeon = save.dungeon
    assert isinstance(dungeon, faangband_world.Dungeon) and dungeon.temp_grids is None
    assert dungeon.stage == 5  # the dump's "Current Location : Eriador Level 0" (the town)
    monsters = next(b for b in save.blocks if isinstance(b, faangband_world.Monsters))
    assert monsters.monsters and not monsters.root_and_challenge  # the townspeople, 45-byte records
    assert all(m.faction is None and m.threat is None for m in monsters.monsters)
    gear = save.gear
    assert isinstance(gear, faangband_world.Inventory)
    # a Magestaff (1d3) (+0,+0) [4,+0] wielded; 4 Rations of Food, 5 Wooden Torches in the pack
    staff = next(g.item for g in gear.items if (g.item.dd, g.item.ds, g.item.ac) == (1, 3, 4))
    assert (staff.to_h, staff.to_d, staff.to_a, staff.number) == (0, 0, 0, 1)
    assert sorted(g.item.number for g in gear.items) == [1, 1, 1, 1, 4, 5]


def test_the_dead_character() -> None:
    save = api.load(DEAD)
    p = save.player
    assert isinstance(p, faangband_character.Player) and p.died_from == "Quitting"
    misc = next(b for b in save.blocks if isinstance(b, faangband_character.Misc))
    assert misc.is_dead == 1 and misc.turn == 91
    # no level, objects or monsters once dead; the ghost block all the same
    assert save.dungeon is not None and not save.dungeon.present
    ghost = next(b for b in save.blocks if isinstance(b, faangband_world.Ghost))
    assert ghost.ghost_name == "Broken Ghost"


def test_info_as_the_game_showed_it() -> None:
    doc = _info(ALIVE)
    assert doc["character"] == "Tuor, L2 Easterling Mage"
    assert (doc["name"], doc["race"], doc["class"], doc["level"]) == ("Tuor", "Easterling", "Mage", 2)
    assert (doc["experience"], doc["gold"], doc["turns"]) == ({"current": 10, "max": 10}, 346, 91)
    assert (doc["hit_points"], doc["spell_points"]) == ({"current": 18, "max": 18}, {"current": 4, "max": 4})
    assert doc["stats"]["int"]["current"] == 16 and doc["stats"]["chr"]["current"] == 10
    assert doc["state"] == "alive" and doc["game"] == "FAangband 1.4"
    dead = _info(DEAD)
    assert dead["character"] == "Tuor, dead (Quitting)"  # "Killed in Eriador town by Quitting"
    assert (dead["state"], dead["dead"], dead["level"], dead["gold"]) == ("dead", "Quitting", 2, 346)
    assert (dead["race"], dead["class"]) == ("Easterling", "Mage")  # the stored 0, 1 by name


def test_the_133_character_as_the_game_showed_it() -> None:
    save = api.load(ALIVE13)
    p = save.player
    assert isinstance(p, faangband_character.Player1)  # player block version 1: no map, no modes
    assert p.map is None and p.game_modes is None and p.pmark is None
    assert (p.full_name, p.lev, p.exp, p.max_exp, p.au) == ("Idril", 1, 0, 0, 224)
    assert (p.chp, p.mhp, p.csp, p.msp) == (14, 14, 0, 0)
    assert (p.age, p.height, p.weight, p.sc) == (24, 34, 50, 44)
    assert (p.prace, p.pclass, p.psex) == (3, 3, 0)  # Hobbit, Rogue (4th of each list), female
    assert p.stat_cur == p.stat_max == _stats_before_race_and_class(ALIVE13.with_name("Idril-dump.txt"))
    assert p.stat_cur == [16, 16, 10, 10, 16, 10]
    options = next(b for b in save.blocks if isinstance(b, faangband.Options1))
    assert len(options.flags) == len(options.masks) == 8 and any(options.masks)
    assert any(isinstance(b, faangband.Squelch1) for b in save.blocks)
    assert save.description is None  # 1.3.3 writes none
    misc = next(b for b in save.blocks if isinstance(b, faangband_character.Misc))
    assert misc.turn == 51 and not misc.is_dead  # "Game Turn 51"
    assert save.dungeon is not None and save.dungeon.stage == 79  # "Gladden Fields Level 0"
    gear = save.gear
    assert isinstance(gear, faangband_world.Inventory)
    # a Dagger (1d4) (+0,+0), Soft Leather Armour [4,+0], a torch; 7 Rations, 5 Wooden Torches
    assert any((g.item.dd, g.item.ds, g.item.to_h, g.item.to_d) == (1, 4, 0, 0) for g in gear.items)
    assert any((g.item.ac, g.item.to_a) == (4, 0) for g in gear.items)
    assert sorted(g.item.number for g in gear.items) == [1, 1, 1, 1, 5, 7]
    doc = _info(ALIVE13)
    assert doc["summary"] == "Idril, L1 Hobbit Rogue, at stage 79"
    assert (doc["gold"], doc["turns"], doc["level"], doc["state"]) == (224, 51, 1, "alive")
    assert (doc["hit_points"], doc["spell_points"]) == ({"current": 14, "max": 14}, {"current": 0, "max": 0})
    dead = _info(DEAD13)
    assert (dead["state"], dead["dead"], dead["not_decoded"]) == ("dead", "Quitting", [])
    assert dead["summary"] == "Idril, L1 Hobbit Rogue, dead (Quitting)"


def test_the_121_character_as_the_game_showed_it() -> None:
    save = api.load(ALIVE12)
    p = save.player
    assert isinstance(p, faangband_character.Player1) and p.map is None
    assert (p.full_name, p.lev, p.exp, p.max_exp, p.au) == ("Luthien", 4, 45, 45, 0)
    assert (p.chp, p.mhp, p.csp, p.msp) == (26, 26, 7, 7)
    assert (p.age, p.height, p.weight, p.sc, p.prace, p.pclass) == (316, 53, 81, 63, 2, 2)  # Grey-Elf Priest
    assert p.stat_cur == _stats_before_race_and_class(ALIVE12.with_name("Luthien-dump.txt"))
    names = [block.block_name(b) for b in save.blocks]
    assert "traps" not in names and "description" not in names  # 1.2.1 writes neither
    dungeon = save.dungeon
    assert isinstance(dungeon, faangband_world.Dungeon)
    # the older level: a square size of 0, then two info maps (cave_info, cave_info2)
    assert dungeon.square_size == 0 and dungeon.info is not None and len(dungeon.info) == 2
    assert dungeon.stage == 153  # "Menegroth Level 0"
    misc = next(b for b in save.blocks if isinstance(b, faangband_character.Misc))
    assert misc.turn == 31
    gear = save.gear
    assert isinstance(gear, faangband_world.Inventory)
    # a Mace of Doriath (2d4) (+2,+2) [+4] (an ego item); 4 Rations of Food, 4 Wooden Torches
    mace = next(g.item for g in gear.items if (g.item.dd, g.item.ds) == (2, 4))
    assert (mace.to_h, mace.to_d, mace.to_a) == (2, 2, 4) and mace.name2 != 0
    assert sorted(g.item.number for g in gear.items) == [1, 1, 1, 1, 4, 4]
    dead = _info(DEAD12)
    assert (dead["state"], dead["dead"], dead["not_decoded"]) == ("dead", "Quitting", [])
    assert dead["summary"] == "Luthien, L4 Grey-Elf Priest, dead (Quitting)"


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_dump_and_extract_build_back_byte_for_byte(path: Path, tmp_path: Path) -> None:
    assert_builds_back(path, tmp_path)


def test_a_gold_edit_changes_that_field_alone() -> None:
    data = ALIVE.read_bytes()
    new = edit.edit_bytes(data, {"player.au": 5000}).data
    for start, _, _, size, checksum in blocks_of(new):
        assert sum(new[start + 28:start + 28 + size]) % 2**32 == checksum
    assert api.validate(new).ok
    changed = [(c.path.split(".")[-1], c.old, c.new) for c in diff.diff_bytes(data, new).changes]
    assert changed == [("au", 346, 5000)]


def _reads_player(data: bytes, game: str) -> bool:
    """Whether ``game``'s player layout consumes this file's player block exactly, in the context
    the game gives (FAangband 1.4's fields are conditions over it) and the blocks before it set
    (the stat count is the object memory block's)."""
    ctx = file_context("FAAN", data[:4], game)
    for start, name, version, size, _ in blocks_of(data):
        layout = next((lay for lay in layouts_for("FAAN", name, version) if lay.game == game), None)
        if layout is None:  # the description: read apart
            continue
        r = Reader(data, start + 28, start + 28 + size)
        try:
            layout.decode(r, ctx)
        except (FormatError, LayoutError):
            return False
        if name == "player":
            return r.at_end()
    return False


@pytest.mark.parametrize("path", [ALIVE, DEAD], ids=["alive", "dead"])
def test_ponybands_player_layout_does_not_read_faangband_14(path: Path) -> None:
    data = path.read_bytes()
    assert _reads_player(data, faangband14.GAME)
    assert not _reads_player(data, character.FAANGBAND)


@pytest.mark.parametrize("path", [ALIVE13, DEAD13, ALIVE12, DEAD12], ids=IDS[2:])
def test_only_133s_layouts_read_its_version_1_blocks(path: Path) -> None:
    data = path.read_bytes()
    versions = {(name, version) for _, name, version, _, _ in blocks_of(data)}
    assert {("options", 1), ("player", 1), ("squelch", 1)} <= versions and "description" not in {
        name for name, _ in versions}
    for name in ("options", "player", "squelch"):
        assert {lay.game for lay in layouts_for("FAAN", name, 1)} == {faangband13.GAME}
    assert _reads_player(data, faangband13.GAME)


@pytest.mark.parametrize("path", PONY_BUILT, ids=["alive", "dead"])
def test_ponyband_files_still_read_as_ponyband(path: Path) -> None:
    data = path.read_bytes()
    assert _reads_player(data, character.FAANGBAND)
    assert not _reads_player(data, faangband14.GAME)
    save = api.load(path)
    assert save.game == character.FAANGBAND
    assert not any(isinstance(b, RawBlock) for b in save.blocks)


@real
@pytest.mark.parametrize("index", range(3), ids=["Asira", "Clever_Sparkle", "PLAYER"])
def test_ponyband_samples_still_read_as_ponyband(index: int) -> None:
    data = PONY_REAL[index].read_bytes()
    assert not _reads_player(data, faangband14.GAME)
    save = block.parse(data, Report(), verify=True)
    assert save.game == character.FAANGBAND
    assert not any(isinstance(b, RawBlock) for b in save.blocks)
    assert block.build(save) == data


def _patched(data: bytes, block_name: str, at: int, new: bytes) -> bytes:
    """``data`` with ``new`` at byte ``at`` of the named block's data, its checksum made right
    again (a hand edit the game's loader then judges by its own checks alone)."""
    out = bytearray(data)
    for start, name, _, size, _ in blocks_of(data):
        if name == block_name:
            out[start + 28 + at:start + 28 + at + len(new)] = new
            out[start + 24:start + 28] = (sum(out[start + 28:start + 28 + size]) % 2**32).to_bytes(4, "little")
            return bytes(out)
    raise AssertionError(f"no {block_name!r} block")


@pytest.mark.parametrize("path, limit", [(PONY_BUILT[0], 48), (ALIVE, 47), (ALIVE13, 47)],
                         ids=["ponyband", "1.4.5", "1.3.3"])
def test_the_inventory_is_judged_by_rd_inventorys_checks(path: Path, limit: int) -> None:
    """rd_inventory refuses a stored count above ALL_INVEN_TOTAL (47 in FAangband, 48 in
    Ponyband), and a slot at or past it for an object with a kind; an entry of kind 0 it skips
    before its slot is looked at. The layout checked the slot against the stored count
    instead, for every entry, and never the count."""
    data = path.read_bytes()
    assert data[[s for s, n, *_ in blocks_of(data) if n == "inventory"][0] + 28] == limit
    assert api.validate(_patched(data, "inventory", 0, bytes([limit]))).ok
    too_many = api.validate(_patched(data, "inventory", 0, bytes([limit + 1])))
    assert not too_many.ok
    assert any("Too many inventory objects" in p.expected for p in too_many.problems)
    # the first entry: its slot (u16), then its object, which starts with its kind (i16)
    past = (limit + 5).to_bytes(2, "little")
    skipped = _patched(data, "inventory", 1, past + (0).to_bytes(2, "little"))
    assert api.validate(skipped).ok
    assert block.build(block.parse(skipped, Report(strict=True))) == skipped
    refused = api.validate(_patched(data, "inventory", 1, past))
    assert not refused.ok
    assert any("ALL_INVEN_TOTAL for an object with a kind" in p.expected for p in refused.problems)
