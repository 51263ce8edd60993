"""NarSil files written by the game itself (tests/data/angband-built/narsil-1.4.0).

NarSil writes the ``USIL`` variant id and version 1 for every block; the
values are held to what the game's character sheet showed (the folder's
README.md), not to savecraft's own output.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from savecraft import api, diff, edit
from savecraft.errors import Report
from savecraft.formats.angband import block
from savecraft.formats.angband.block import RawBlock
from savecraft.formats.angband.layouts import narsil, narsil13

from .support import assert_builds_back, blocks_of

BUILT = Path(__file__).parents[1] / "data" / "angband-built" / "narsil-1.4.0"
ALIVE, RETIRED = BUILT / "Nerdanel.sav", BUILT / "Nerdanel-retired.sav"
BUILT13 = BUILT.parent / "narsil-1.3.1"
ALIVE13, RETIRED13 = BUILT13 / "Telchar.sav", BUILT13 / "Telchar-retired.sav"
BUILT130 = BUILT.parent / "narsil-1.3.0"
ALIVE130, KILLED130 = BUILT130 / "Beleg.sav", BUILT130 / "Beleg-retired.sav"


@pytest.mark.parametrize("path", [ALIVE, RETIRED], ids=["alive", "retired"])
def test_every_block_decoded_valid_and_byte_exact(path: Path) -> None:
    data = path.read_bytes()
    report = Report()
    save = block.parse(data, report, verify=True)  # re-encodes every block and compares
    assert save.variant == "USIL" and save.game == narsil.GAME
    assert save.game_reason.endswith("NarSil 1.4's layouts read 16 of the 16 blocks they have a layout for")
    assert [b for b in save.blocks if isinstance(b, RawBlock)] == []
    assert [name for _, name, _, _, _ in blocks_of(data)] == [block.block_name(b) for b in save.blocks]
    assert block.block_name(save.blocks[-1]) == "monster groups"
    assert api.build(save) == data
    assert api.validate(data).ok
    assert not report.problems


def test_the_character_as_the_game_showed_it() -> None:
    save = api.load(ALIVE)
    p = save.player
    assert isinstance(p, narsil.Player)
    assert (p.full_name, p.sex, p.race, p.house) == ("Nerdanel", "Female", "Noldor", "House of Feanor")
    assert (p.age, p.height, p.weight) == (787, 75, 150)  # 6'3"
    assert p.stat_base == [2, 2, 2, 2] and p.stat_drain == [0, 0, 0, 0]
    assert p.skill_base == [3, 0, 0, 0, 0, 0, 0, 0]  # "Melee 5 = 3 + 2"
    assert (p.new_exp, p.exp, p.turn) == (4400, 5000, 4)  # Exp Pool, Total Exp, Game Turn
    assert (p.chp, p.mhp, p.csp, p.msp) == (28, 28, 28, 28)  # Health, Voice
    assert p.max_depth == 1  # 50 ft
    dungeon = save.dungeon
    assert isinstance(dungeon, narsil.Dungeon) and dungeon.depth == 1
    slots = [b.name for b in p.body]
    assert slots[5] == "light"
    gear = save.gear
    assert isinstance(gear, narsil.Gear)
    assert {slots[g.slot]: g.name for g in gear.items if g.slot < len(slots)} == {"light": "Wooden Torch"}
    assert sorted(g.name for g in gear.items if g.slot >= len(slots)) == ["3 x Fragment of Lembas",
                                                                          "3 x Wooden Torch"]


def test_the_retired_character() -> None:
    save = api.load(RETIRED)
    p = save.player
    assert isinstance(p, narsil.Player) and p.died_from == "Retiring"
    misc = next(b for b in save.blocks if isinstance(b, narsil.Misc))
    assert misc.is_dead == 1
    # the game writes no level, floor objects, monsters or traps for a dead character
    for cls in (narsil.Dungeon, narsil.Objects, narsil.Monsters, narsil.Traps):
        got = next(b for b in save.blocks if isinstance(b, cls))
        assert got.cave is None and got.known_cave is None


def test_edit_experience_and_quantity() -> None:
    data = ALIVE.read_bytes()
    lembas = next(i for i, g in enumerate(api.load(ALIVE).gear.items) if "Lembas" in g.name)
    result = edit.edit_bytes(data, {"player.new_exp": 9000, f"gear.items[{lembas}].quantity": 5})
    new = result.data
    for start, _, _, size, checksum in blocks_of(new):
        assert sum(new[start + 28:start + 28 + size]) % 2**32 == checksum
    assert api.validate(new).ok
    save = api.parse(new)
    assert save.player.new_exp == 9000
    assert save.gear.items[lembas].item.number == save.gear.items[lembas].known.number == 5
    changed = sorted((c.path.split(".")[-1], c.old, c.new) for c in diff.diff_bytes(data, new).changes)
    assert changed == [("new_exp", 4400, 9000), ("number", 3, 5), ("number", 3, 5)]


def test_too_many_stats_is_the_loaders_error() -> None:
    save = api.parse(ALIVE.read_bytes())
    save.player.stat_base.append(1)
    save.player.stat_drain.append(0)
    with pytest.raises(Exception, match="Too many stats"):
        api.build(save)


def test_info_and_validate_from_the_command_line() -> None:
    doc = json.loads(subprocess.run([sys.executable, "-m", "savecraft", "info", "--json", str(ALIVE)],
                                    capture_output=True, text=True, check=True).stdout)
    assert doc["game"] == narsil.GAME and doc["name"] == "Nerdanel" and doc["race"] == "Noldor"
    assert doc["house"] == "House of Feanor" and "level" not in doc and "gold" not in doc
    assert doc["experience"] == {"current": 5000, "unspent": 4400}
    assert doc["hit_points"] == {"current": 28, "max": 28} and doc["depth"] == 1
    assert doc["equipment"] == ["light: Wooden Torch"] and doc["state"] == "alive"
    retired = json.loads(subprocess.run([sys.executable, "-m", "savecraft", "info", "--json", str(RETIRED)],
                                        capture_output=True, text=True, check=True).stdout)
    assert retired["state"] == "retired" and retired["dead"] == "Retiring"  # "You have retired"
    ok = subprocess.run([sys.executable, "-m", "savecraft", "validate", str(ALIVE), str(RETIRED)],
                        capture_output=True, text=True)
    assert ok.returncode == 0, ok.stdout + ok.stderr


# -- NarSil 1.3.1: the same player block, other blocks laid out otherwise -----------------------


@pytest.mark.parametrize("path, blocks", [(ALIVE13, 16), (RETIRED13, 16), (ALIVE130, 15), (KILLED130, 15)],
                         ids=["1.3.1-alive", "1.3.1-retired", "1.3.0-alive", "1.3.0-killed"])
def test_1_3_every_block_decoded_valid_and_byte_exact(path: Path, blocks: int) -> None:
    data = path.read_bytes()
    report = Report()
    save = block.parse(data, report, verify=True)
    assert save.game == narsil13.GAME == "NarSil 1.3"
    assert save.game_reason == ("its player block reads exactly with the NarSil 1.3 layout; NarSil 1.4 "
                                "writes the same block versions, and trial reads of every block settle it: "
                                f"NarSil 1.3's layouts read {blocks} of the {blocks} blocks they "
                                "have a layout for")  # 1.3.0 writes no monster groups block
    assert [b for b in save.blocks if isinstance(b, RawBlock)] == []
    assert api.build(save) == data
    assert api.validate(data).ok
    assert not report.problems


def test_1_3_1_the_character_as_the_game_showed_it() -> None:
    save = api.load(ALIVE13)
    p = save.player
    assert isinstance(p, narsil.Player)  # the player block is 1.4's
    assert (p.full_name, p.sex, p.race, p.house) == ("Telchar", "Male", "Naugrim", "House of Nogrod")
    assert (p.age, p.height, p.weight) == (66, 52, 147)  # 4'4"
    assert p.stat_base == [0, 0, 3, 1]
    assert (p.new_exp, p.exp, p.turn, p.chp, p.mhp, p.csp, p.msp) == (5000, 5000, 2, 34, 34, 24, 24)
    gear = save.gear
    assert isinstance(gear, narsil13.Gear)  # stored once: 1.3 keeps no known copy
    slots = [b.name for b in p.body]
    assert {slots[g.slot]: g.name for g in gear.items if g.slot < len(slots)} == {"light": "Wooden Torch"}
    assert sorted(g.name for g in gear.items if g.slot >= len(slots)) == ["2 x Wooden Torch",
                                                                          "5 x Piece of Dark Bread"]
    dungeon = save.dungeon
    assert isinstance(dungeon, narsil13.Dungeon) and dungeon.depth == 1 and dungeon.cave is not None


def test_1_3_0_the_character_as_the_game_showed_it() -> None:
    save = api.load(ALIVE130)
    p = save.player
    assert isinstance(p, narsil.Player)
    assert (p.full_name, p.sex, p.race, p.house) == ("Beleg", "Male", "Sindar", "Of Doriath")
    assert (p.age, p.height, p.weight, p.stat_base) == (696, 71, 156, [-1, 1, 2, 2])  # 5'11"
    assert (p.new_exp, p.exp, p.turn, p.chp, p.mhp, p.csp, p.msp) == (5000, 5000, 4, 28, 28, 28, 28)
    gear = save.gear
    assert isinstance(gear, narsil13.Gear)
    assert all(g.item.used == 5 for g in gear.items)  # 1.3.0's ITEM_VERSION in that byte
    assert sorted(g.name for g in gear.items) == ["3 x Fragment of Lembas", "3 x Wooden Torch", "Wooden Torch"]
    assert "monster groups" not in [block.block_name(b) for b in save.blocks]
    assert api.load(KILLED130).player.died_from == "Quitting"


@pytest.mark.parametrize("path", [ALIVE, RETIRED], ids=["alive", "retired"])
def test_1_4_files_are_not_read_as_1_3_1(path: Path) -> None:
    # the 1.3.1 layouts of the gear and misc blocks do not read a 1.4 file's
    save = api.load(path)
    assert save.game == narsil.GAME
    assert not any(type(b).__module__.endswith("narsil13") for b in save.blocks)


def test_dump_extract_and_build_from_the_command_line(tmp_path: Path) -> None:
    assert_builds_back(ALIVE, tmp_path)
