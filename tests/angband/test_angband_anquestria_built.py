"""Anquestria files written by the game itself (tests/data/angband-built/anquestria-32d7389):
a new character saved in the town, and the same character dead.

The dead character's blocks of the level are empty (the game writes no ghost record
for a dead character): its JSON dump says null for the ghost's name and data, and a
build from that dump gives back the file byte for byte. The live one stands in the town,
whose maps the game writes over the whole 66 x 198 dungeon area.
"""

from __future__ import annotations

import json
from pathlib import Path

from savecraft import api
from savecraft.errors import Report
from savecraft.formats.angband import block
from savecraft.formats.angband.block import RawBlock
from .support import assert_read_whole, run_savecraft as _run

BUILT = next(p / "data" / "angband-built" for p in Path(__file__).resolve().parents
             if (p / "data" / "angband-built").is_dir()) / "anquestria-32d7389"
ALIVE = BUILT / "Lyra.sav"
DEAD = BUILT / "Lyra-dead.sav"


def test_a_dead_characters_dump_builds_back_byte_for_byte(tmp_path: Path) -> None:
    dumped = _run("dump", str(DEAD))
    assert dumped.returncode == 0, dumped.stderr
    doc = json.loads(dumped.stdout)
    ghost = [b for b in doc["data"]["blocks"] if b.get("kind") == "ghost-anquestria"]
    assert ghost == [{"kind": "ghost-anquestria", "ghost_name": None, "data": None}]
    (tmp_path / "dead.json").write_text(dumped.stdout)
    built = _run("build", str(tmp_path / "dead.json"), "-o", str(tmp_path / "dead.sav"))
    assert built.returncode == 0, built.stderr
    assert (tmp_path / "dead.sav").read_bytes() == DEAD.read_bytes()


def test_both_files_decode_whole_validate_and_rebuild() -> None:
    for path in (ALIVE, DEAD):
        assert_read_whole(path, "Anquestria (Angband 3.x)")


def test_the_town_level_is_read_over_the_whole_dungeon_area() -> None:
    """The character stands in the town (22 x 66), and the maps cover 66 x 198 squares."""
    save = block.parse(ALIVE.read_bytes(), Report(strict=True))
    d = save.dungeon
    assert d is not None
    assert (d.depth, getattr(d, "height"), getattr(d, "width")) == (0, 22, 66)
    for runs in (getattr(d, "info"), getattr(d, "info2"), getattr(d, "feat")):
        assert sum(runs[0::2]) == 66 * 198
    dead = block.parse(DEAD.read_bytes(), Report(strict=True))
    assert dead.dungeon is not None and getattr(dead.dungeon, "present") is False


def test_history_text_in_the_games_8_bit_encoding_reads_and_rebuilds() -> None:
    """Anquestria's monster list has "Sméagol" in Latin-1, so a real save's history holds
    "Killed Sm\\xe9agol" (the Anquestria repository's own lib/save/Twilight does): the game
    writes the bytes as they are. The entry is laid out here as ``wr_history`` writes one
    (type, turn, place, level, artifact, text), added to the game-written file's history."""
    import struct

    data = ALIVE.read_bytes()
    pos = 8  # the blocks, walked with struct alone: 16-byte name, version, size, checksum, data
    while data[pos:pos + 16].split(b"\0")[0] != b"history":
        pos += 28 + struct.unpack_from("<I", data, pos + 20)[0]
        pos += -pos % 4
    size = struct.unpack_from("<I", data, pos + 20)[0]
    body = data[pos + 28:pos + 28 + size]
    count = struct.unpack_from("<I", body)[0]
    entry = struct.pack("<HihhB", 32, 540557, 7, 15, 0) + b"Killed Sm\xe9agol\0"
    new = struct.pack("<I", count + 1) + body[4:] + entry
    end = pos + 28 + size + (-size % 4)
    changed = (data[:pos + 20] + struct.pack("<II", len(new), sum(new) % 2**32) + new
               + b"x" * (-len(new) % 4) + data[end:])  # the game pads blocks with 'x'
    save = block.parse(changed, Report(strict=True), verify=True)
    history = next(b for b in save.blocks if block.block_name(b) == "history")
    assert str(getattr(history, "entries")[-1].event) == "Killed Sméagol"
    assert [b.name for b in save.blocks if isinstance(b, RawBlock)] == []
    assert block.build(save) == changed
    assert api.validate(changed).problems == []
