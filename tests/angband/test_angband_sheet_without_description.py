"""``info`` on the files that have no description block (the game's own menu line): Vanilla
3.1 to 3.4 and Anquestria. The top of the sheet is built from the decoded blocks: a
``summary`` line in the menu's form, name, race and class (by the names the game's data
files give the stored indexes), level, experience, gold, depth, turns, alive or dead and what
killed the character. FAangband 1 keeps a stage of its map, not a depth: ``stage``.

Each value is held against what the game showed (the READMEs of tests/data/angband-built/).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.samples import SAMPLES, real_samples
from .support import info_json as _info

BUILT = next(p / "data" / "angband-built" for p in Path(__file__).resolve().parents
             if (p / "data" / "angband-built").is_dir())
ASIRA = SAMPLES / "angband-block" / "ponyband_Asira.sav"


# (file, the line the sheet gives)
VANILLA_3 = [
    ("vanilla-3.1.2/vanilla-3.1.2_Keth.sav", "Keth, L1 Hobbit Ranger, in the town"),
    ("vanilla-3.1.2/vanilla-3.1.2_Keth-dead.sav", "Keth, L1 Hobbit Ranger, dead (Quitting)"),
    ("vanilla-3.2.0/vanilla-3.2.0_Brin.sav", "Brin, L1 High-Elf Mage, in the town"),
    ("vanilla-3.2.0/vanilla-3.2.0_Brin-dead.sav", "Brin, L1 High-Elf Mage, dead (Quitting)"),
    ("vanilla-3.3.2/vanilla-3.3.2_Mira.sav", "Mira, L1 Half-Troll Ranger, in the town"),
    ("vanilla-3.3.2/vanilla-3.3.2_Mira-dead.sav", "Mira, L1 Half-Troll Ranger, dead (Quitting)"),
    ("vanilla-3.4.1/vanilla-3.4.1_Olwen.sav", "Olwen, L1 Half-Troll Rogue, in the town"),
    ("vanilla-3.4.1/vanilla-3.4.1_Olwen-dead.sav", "Olwen, L1 Half-Troll Rogue, dead (Quitting)"),
]


@pytest.mark.parametrize(("name", "line"), VANILLA_3, ids=[n for n, _ in VANILLA_3])
def test_a_vanilla_3_file_without_a_menu_line_gets_one_from_its_blocks(name: str, line: str) -> None:
    doc = _info(BUILT / name)
    assert "character" not in doc  # the file has no description block: no line is the game's
    assert doc["summary"] == line
    keys = list(doc)
    assert keys.index("summary") < keys.index("name")  # the top of the sheet
    dead = name.endswith("-dead.sav")
    assert doc["state"] == ("dead" if dead else "alive")
    assert ("depth" in doc) == (not dead) and doc.get("depth", 0) == 0  # the town; no level once dead


def test_anquestria_names_the_stored_race_and_class_indexes_and_the_screens_values() -> None:
    # The game's screen: a female Alicorn Paladin named Lyra (the birth menu's sixth race and
    # sixth class: indexes 5 and 5), level 1, Cur Exp 0, Gold 160, HP 17/17, SP 2/2,
    # Game Turns 51, MaxDepth Town. Race 5 became the Griffon in later commits, with the same
    # savefile code: the sheet names both.
    doc = _info(BUILT / "anquestria-32d7389" / "Lyra.sav")
    assert doc["summary"] == "Lyra, L1 Alicorn or Griffon Paladin, in the town"
    assert (doc["name"], doc["race"], doc["class"], doc["level"]) == ("Lyra", "Alicorn or Griffon", "Paladin", 1)
    assert "race_index" not in doc and "class_index" not in doc  # (every index has its name)
    assert doc["experience"] == {"current": 0, "max": 0}
    assert (doc["gold"], doc["hit_points"], doc["spell_points"]) == (
        160, {"current": 17, "max": 17}, {"current": 2, "max": 2})
    assert (doc["depth"], doc["max_depth"], doc["turns"], doc["state"]) == (0, 0, 51, "alive")
    stats = {k: v["current"] for k, v in doc["stats"].items()}
    assert stats == {"str": 17, "int": 10, "wis": 16, "dex": 14, "con": 16, "chr": 10}  # "Self"
    dead = _info(BUILT / "anquestria-32d7389" / "Lyra-dead.sav")
    assert dead["summary"] == "Lyra, L1 Alicorn or Griffon Paladin, dead (Quitting)"  # "by Quitting."
    assert (dead["state"], dead["dead"]) == ("dead", "Quitting") and "depth" not in dead


@real_samples
def test_faangband_1_says_the_stage_it_stores_not_a_depth() -> None:
    doc = _info(ASIRA)
    assert doc["character"] == "Asira, L7 Zebra Priest"  # the game's line (no depth in it)
    assert doc["stage"] == 4 and "depth" not in doc and "summary" not in doc
