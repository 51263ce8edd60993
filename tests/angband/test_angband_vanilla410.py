"""Vanilla 4.1.0 files, written by the game itself (tests/data/angband-built/vanilla-4.1.0).

4.1.0 writes the chunks block for a dead character too (``wr_chunks`` has its "is dead" test
commented out), each chunk only its level's map; 4.1.1-4.1.3 write it empty. Values are held
against the game's character screen (the folder's README.md).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from savecraft import api
from savecraft.formats.angband.layouts import vanilla41

from .support import assert_builds_back, assert_read_whole, info_json as _info

BUILT = Path(__file__).parents[1] / "data" / "angband-built"
ALIVE, DEAD = (BUILT / "vanilla-4.1.0" / n for n in ("Elwing.sav", "Elwing-dead.sav"))
DEAD_413 = BUILT / "vanilla-4.1.3" / "Celebrin-dead.sav"


def _chunks(path: Path) -> vanilla41.Chunks:
    return next(b for b in api.load(path).blocks if isinstance(b, vanilla41.Chunks))


@pytest.mark.parametrize("path", [ALIVE, DEAD], ids=["alive", "dead"])
def test_every_block_decoded_valid_and_byte_exact(path: Path) -> None:
    assert_read_whole(path, vanilla41.GAME)


def test_a_dead_characters_chunks_are_the_levels_maps() -> None:
    dead = _chunks(DEAD)
    assert dead.chunks is None  # no objects, monsters or traps: the game writes none for the dead
    assert dead.dead_levels is not None
    assert [(lv.name, lv.height, lv.width) for lv in dead.dead_levels] == [("Town", 22, 66)]
    # the same town the living character's chunks kept
    alive = _chunks(ALIVE)
    assert alive.dead_levels is None and alive.chunks is not None
    assert [(c.level.name, c.level.height, c.level.width) for c in alive.chunks] == [("Town", 22, 66)]
    # 4.1.3 writes nothing there for the dead
    later = _chunks(DEAD_413)
    assert later.chunks is None and later.dead_levels is None


@pytest.mark.parametrize("path", [ALIVE, DEAD], ids=["alive", "dead"])
def test_dump_and_extract_build_back_byte_for_byte(path: Path, tmp_path: Path) -> None:
    assert_builds_back(path, tmp_path)


def test_info_as_the_game_showed_it() -> None:
    doc = _info(ALIVE)
    assert doc["character"] == "ElwingElwing, L1 Dwarf Priest, at DL0"
    assert (doc["race"], doc["class"], doc["level"], doc["gold"]) == ("Dwarf", "Priest", 1, 91)
    assert doc["experience"] == {"current": 0, "max": 0}
    assert (doc["hit_points"], doc["spell_points"]) == ({"current": 13, "max": 13}, {"current": 2, "max": 2})
    # the screen's "Self" column
    assert [doc["stats"][s]["current"] for s in ("str", "int", "wis", "dex", "con")] == [17, 10, 16, 16, 10]
    assert (doc["turns"], doc["depth"], doc["state"]) == (51, 0, "alive")  # "Game 51"
    assert doc["equipment"] == ["weapon: Mace", "light: Wooden Torch"]
    assert sorted(doc["inventory"]) == ["2 x Potion of Cure Serious Wounds", "Prayer Book [Beginners Handbook]",
                                        "Ration of Food", "Scroll of Word of Recall", "Wooden Torch"]
    assert "read as Vanilla 4.1.0-4.1.3" in doc["game_reason"]
    dead = _info(DEAD)
    assert dead["character"] == "ElwingElwing, dead (Quitting)"  # "Killed on Level 0 by Quitting"
    assert (dead["state"], dead["dead"], dead["not_decoded"]) == ("dead", "Quitting", [])
