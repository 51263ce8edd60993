"""Ponyband files written by the game itself (tests/data/angband-built/ponyband-59f6ca5): a new
character saved in the town, and the same character dead.

Ponyband writes no level, objects or monsters for a dead character, but writes its ghost
block all the same (``wr_ghost`` has no check; the loader reads the block with ``rd_null``).
A dead character's dump says null for what the game did not write, and builds back byte for
byte. Values are held against the game's character screen (the folder's README).
"""

from __future__ import annotations

import json
from pathlib import Path

from .support import assert_read_whole, info_json as _info, run_savecraft as _run

BUILT = next(p / "data" / "angband-built" for p in Path(__file__).resolve().parents
             if (p / "data" / "angband-built").is_dir()) / "ponyband-59f6ca5"
ALIVE = BUILT / "Mint.sav"
DEAD = BUILT / "Mint-dead.sav"


def test_both_files_decode_whole_validate_and_rebuild() -> None:
    for path in (ALIVE, DEAD):
        assert_read_whole(path, "FAangband 1 (Ponyband)")


def test_a_dead_characters_dump_builds_back_byte_for_byte(tmp_path: Path) -> None:
    dumped = _run("dump", str(DEAD))
    assert dumped.returncode == 0, dumped.stderr
    blocks = json.loads(dumped.stdout)["data"]["blocks"]
    by_kind = {b["kind"]: b for b in blocks}
    assert by_kind["ghost-faan"]["ghost_name"] == "Broken Ghost"  # written for the dead too
    assert by_kind["objects-faan"]["objects"] is None and by_kind["objects-faan"]["expansion"] is None
    assert by_kind["monsters-faan"]["monsters"] is None
    (tmp_path / "dead.json").write_text(dumped.stdout)
    built = _run("build", str(tmp_path / "dead.json"), "-o", str(tmp_path / "dead.sav"))
    assert built.returncode == 0, built.stderr
    assert (tmp_path / "dead.sav").read_bytes() == DEAD.read_bytes()


def test_info_reads_what_the_game_showed() -> None:
    doc = _info(ALIVE)
    assert doc["character"] == "Mint, L1 Earth Pony Warrior"
    assert (doc["name"], doc["race"], doc["class"], doc["level"]) == ("Mint", "Earth Pony", "Warrior", 1)
    assert (doc["experience"], doc["gold"]) == ({"current": 0, "max": 0}, 100)
    assert (doc["hit_points"], doc["spell_points"]) == ({"current": 24, "max": 24}, {"current": 0, "max": 0})
    assert doc["state"] == "alive" and "stage" in doc and "depth" not in doc
    dead = _info(DEAD)
    assert dead["character"] == "Mint, dead (Quitting)"  # "Killed in Angband town by Quitting"
    assert (dead["state"], dead["dead"]) == ("dead", "Quitting")
    assert "stage" not in dead and "depth" not in dead  # no level once dead
