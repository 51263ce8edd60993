"""FAangband 2.0 files, written by the game itself (tests/data/angband-built/faangband-2.0.1).

FAangband 2 writes Vanilla's variant id and block versions, so the game is
told from Vanilla 4.2 by content; these tests hold the decoded values to what
the game's own character screen showed (the folder's README.md), and check
the choice both ways on every real Vanilla 4.2 sample.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from savecraft import api, diff, edit
from savecraft.binary import Reader
from savecraft.errors import FormatError, Report
from savecraft.formats.angband import block
from savecraft.formats.angband.block import RawBlock
from savecraft.formats.angband.layouts import Context, LayoutError, character, layouts_for
from savecraft.formats.angband.layouts import faangband2 as fa2

from tests.samples import SAMPLES, real_samples

from .support import assert_builds_back, block_span, blocks_of

BUILT = Path(__file__).parents[1] / "data" / "angband-built" / "faangband-2.0.1"
ALIVE, DEAD, TRAVELLED = (BUILT / n for n in ("FaelinRoot.sav", "FaelinRoot-dead.sav", "Beren.sav"))
VANILLA42 = [SAMPLES / "angband-block-variants" / "vanilla-4.2_Aduial.sav",
             SAMPLES / "angband-block-more" / "angband_4.2.1_Maxwell-ada4e7b-dead.sav",
             SAMPLES / "angband-block-more" / "angband_4.2.2+_Lorenz.sav"]
real = real_samples


@pytest.mark.parametrize("path", [ALIVE, DEAD, TRAVELLED], ids=["alive", "dead", "travelled"])
def test_every_block_decoded_valid_and_byte_exact(path: Path) -> None:
    data = path.read_bytes()
    report = Report()
    save = block.parse(data, report, verify=True)  # re-encodes every block and compares
    assert save.game == fa2.GAME
    assert "FAangband 2 layout" in save.game_reason
    assert [b for b in save.blocks if isinstance(b, RawBlock)] == []
    assert [name for _, name, _, _, _ in blocks_of(data)] == [block.block_name(b) for b in save.blocks]
    assert api.build(save) == data
    assert api.validate(data).ok
    assert not report.problems


def test_the_character_as_the_game_showed_it() -> None:
    save = api.load(ALIVE)
    p = save.player
    assert isinstance(p, fa2.Player)
    assert (p.full_name, p.race, p.character_class, p.lev) == ("FaelinRoot", "Easterling", "Mage", 2)
    assert (p.exp, p.max_exp, p.au) == (10, 10, 39)
    assert (p.chp, p.mhp, p.csp, p.msp) == (16, 16, 4, 4)
    assert p.stat_cur == p.stat_max == [17, 16, 10, 10, 16]  # the screen's "Self" column
    misc = next(b for b in save.blocks if isinstance(b, fa2.Misc))
    assert misc.turn == 61 and misc.map == "Standard Wilderness" and not misc.is_dead
    gear = save.gear
    assert isinstance(gear, fa2.Gear)
    slots = [b.name for b in p.body]  # the equipment screen's rows, "Wielding" to "On feet"
    assert len(slots) == 12 and slots[0] == "weapon" and slots[5] == "light"
    worn = {slots[g.slot]: g.name for g in gear.items if g.slot < len(slots)}
    assert worn == {"weapon": "Magestaff", "light": "Wooden Torch"}
    pack = sorted(g.name for g in gear.items if g.slot >= len(slots))
    assert pack == ["2 x Wooden Torch", "3 x Ration of Food", "Magic Book [First Spells]",
                    "Scroll of Word of Recall"]
    held = next(g for g in gear.items if g.name == "Magestaff")
    staff = held.item
    assert (staff.dd, staff.ds, staff.to_h, staff.to_d, staff.ac, staff.to_a) == (1, 3, 0, 0, 4, 0)
    # FAangband's own record field (Vanilla's record has none): the object and the player's
    # knowledge of it were made together, at the start
    assert staff.origin_place == held.known.origin_place
    quests = next(b for b in save.blocks if isinstance(b, fa2.Quests))
    assert [q.name for q in quests.quests] + [quests.final.name] == ["Sauron", "Ungoliant", "Glaurung",
                                                                     "Mîm", "Morgoth"]
    assert quests.extra == []


def test_the_dead_character() -> None:
    save = api.load(DEAD)
    p = save.player
    assert isinstance(p, fa2.Player) and p.died_from == "Quitting"
    misc = next(b for b in save.blocks if isinstance(b, fa2.Misc))
    assert misc.is_dead == 1
    # the game writes no level for a dead character
    dungeon = save.dungeon
    assert isinstance(dungeon, fa2.Dungeon) and dungeon.cave is None
    chunks = next(b for b in save.blocks if isinstance(b, fa2.Chunks))
    assert chunks.chunks is None


def test_a_character_out_of_town_keeps_the_town_as_a_chunk() -> None:
    save = api.load(TRAVELLED)
    p = save.player
    assert isinstance(p, fa2.Player)
    assert (p.full_name, p.race, p.character_class, p.lev) == ("Beren", "Adan", "Warrior", 4)
    assert (p.exp, p.max_exp, p.au, p.chp, p.mhp, p.csp, p.msp) == (45, 45, 47, 46, 46, 0, 0)
    assert p.stat_cur == [17, 10, 10, 17, 14] and p.max_depth == 20  # Max Depth 1000' (L20)
    assert save.dungeon is not None and save.dungeon.depth == 20  # Talath Dirnen 20
    chunks = next(b for b in save.blocks if isinstance(b, fa2.Chunks))
    assert chunks.chunks is not None and [c.level.name for c in chunks.chunks] == ["Ephel Brandir Town"]


def test_stores_are_every_town_of_the_map() -> None:
    save = api.load(ALIVE)
    stores = next(b for b in save.blocks if isinstance(b, fa2.Stores))
    # more stores than store.txt's kinds (the count the loader skips): one set per town
    assert len(stores.stores) > stores.store_max
    assert sum(1 for s in stores.stores if s.owner == 255) == 1  # the home, in the home town only


def _reads_player(data: bytes, game: str) -> bool:
    """Whether ``game``'s player layout consumes this file's player block exactly."""
    layout = next(lay for lay in layouts_for("VNLA", "player", 1) if lay.game == game)
    start, size = block_span(data, "player")
    r = Reader(data, start + 28, start + 28 + size)
    try:
        layout.decode(r, Context())
    except (FormatError, LayoutError):
        return False
    return r.at_end()


@pytest.mark.parametrize("path", [ALIVE, DEAD, TRAVELLED], ids=["alive", "dead", "travelled"])
def test_vanilla_42_player_layout_does_not_read_faangband2(path: Path) -> None:
    data = path.read_bytes()
    assert _reads_player(data, fa2.GAME)
    assert not _reads_player(data, character.GAME)


@real
@pytest.mark.parametrize("index", range(3), ids=["Aduial", "Maxwell", "Lorenz"])
def test_faangband2_player_layout_does_not_read_vanilla_42(index: int) -> None:
    data = VANILLA42[index].read_bytes()
    assert _reads_player(data, character.GAME)
    assert not _reads_player(data, fa2.GAME)


@real
@pytest.mark.parametrize("index", range(3), ids=["Aduial", "Maxwell", "Lorenz"])
def test_vanilla_42_samples_still_read_as_vanilla_42(index: int) -> None:
    path = VANILLA42[index]
    save = api.load(path)
    assert save.game == character.GAME
    assert not any(isinstance(b, RawBlock) for b in save.blocks)


def test_edit_gold_and_quantity() -> None:
    data = ALIVE.read_bytes()
    result = edit.edit_bytes(data, {"player.au": 123456, "gear.items[4].quantity": 5})  # the rations
    new = result.data
    for start, _, _, size, checksum in blocks_of(new):
        assert sum(new[start + 28:start + 28 + size]) % 2**32 == checksum
    assert api.validate(new).ok
    save = api.parse(new)
    assert save.player.au == 123456
    assert save.gear.items[4].item.number == save.gear.items[4].known.number == 5
    changed = sorted((c.path.split(".")[-1], c.old, c.new) for c in diff.diff_bytes(data, new).changes)
    assert changed == [("au", 39, 123456), ("number", 3, 5), ("number", 3, 5)]  # nothing else moved


def test_a_level_the_loader_refuses_is_an_error() -> None:
    data = ALIVE.read_bytes()
    save = api.parse(data)
    save.player.lev = 51
    with pytest.raises(Exception, match="level"):
        api.build(save)


def test_info_and_validate_from_the_command_line() -> None:
    out = subprocess.run([sys.executable, "-m", "savecraft", "info", "--json", str(ALIVE)],
                         capture_output=True, text=True, check=True).stdout
    doc = json.loads(out)
    assert doc["game"] == fa2.GAME and doc["name"] == "FaelinRoot" and doc["level"] == 2
    assert doc["gold"] == 39 and doc["turns"] == 61 and doc["state"] == "alive"
    assert doc["hit_points"] == {"current": 16, "max": 16}
    assert doc["equipment"] == ["weapon: Magestaff", "light: Wooden Torch"]
    dead = json.loads(subprocess.run([sys.executable, "-m", "savecraft", "info", "--json", str(DEAD)],
                                     capture_output=True, text=True, check=True).stdout)
    assert dead["state"] == "dead" and dead["dead"] == "Quitting"
    ok = subprocess.run([sys.executable, "-m", "savecraft", "validate", str(ALIVE), str(DEAD)],
                        capture_output=True, text=True)
    assert ok.returncode == 0, ok.stdout + ok.stderr


def test_dump_extract_and_build_from_the_command_line(tmp_path: Path) -> None:
    assert_builds_back(ALIVE, tmp_path)
