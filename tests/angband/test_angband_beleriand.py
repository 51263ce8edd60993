"""Beleriand files written by the game itself (tests/data/angband-built/beleriand-0.1.0alpha).

Beleriand writes NarSil's variant id (``USIL``) and version 1 for every
block, so it is told from NarSil by its player block; the values are held to
what the game's character sheet showed (the folder's README.md).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from savecraft import api
from savecraft.binary import Reader
from savecraft.errors import FormatError, Report
from savecraft.formats.angband import block
from savecraft.formats.angband.block import RawBlock
from savecraft.formats.angband.layouts import Context, LayoutError, beleriand, layouts_for, narsil

from .support import assert_builds_back, block_span, blocks_of

BUILT = Path(__file__).parents[1] / "data" / "angband-built"
ALIVE, RETIRED, WANDERER = (BUILT / "beleriand-0.1.0alpha" / n
                            for n in ("Hurin.sav", "Hurin-retired.sav", "Wanderer.sav"))
NARSIL = [BUILT / "narsil-1.4.0" / n for n in ("Nerdanel.sav", "Nerdanel-retired.sav")]


@pytest.mark.parametrize("path", [ALIVE, RETIRED, WANDERER], ids=["alive", "retired", "wanderer"])
def test_every_block_decoded_valid_and_byte_exact(path: Path) -> None:
    data = path.read_bytes()
    report = Report()
    save = block.parse(data, report, verify=True)  # re-encodes every block and compares
    assert save.variant == "USIL" and save.game == beleriand.GAME
    assert save.game_reason == "its player block reads exactly with the Beleriand 0.1 layout"
    assert [b for b in save.blocks if isinstance(b, RawBlock)] == []
    assert [name for _, name, _, _, _ in blocks_of(data)] == [block.block_name(b) for b in save.blocks]
    assert api.build(save) == data
    assert api.validate(data).ok
    assert not report.problems


def test_the_character_as_the_game_showed_it() -> None:
    save = api.load(ALIVE)
    p = save.player
    assert isinstance(p, beleriand.Player)
    assert (p.full_name, p.sex, p.race, p.house) == ("Hurin", "Male", "Edain", "House of Hador")
    assert (p.age, p.height, p.weight) == (37, 72, 178)  # 6'0"
    assert p.stat_base == [3, 0, 0, 0] and p.stat_drain == [0, 0, 0, 0]
    assert p.skill_base == [0] * 10  # ten skills, none bought
    assert (p.new_exp, p.exp, p.turn) == (5000, 5000, 4)  # Exp Pool, Total Exp, Game Turn
    assert (p.chp, p.mhp, p.csp, p.msp) == (20, 20, 20, 20)  # Health, Voice
    assert len(p.region_visit) == beleriand.REGION_MAX and any(p.region_visit)  # Dor-Lómin
    slots = [b.name for b in p.body]
    gear = save.gear
    assert isinstance(gear, beleriand.Gear)
    assert {slots[g.slot]: g.name for g in gear.items if g.slot < len(slots)} == {"light": "Wooden Torch"}
    assert sorted(g.name for g in gear.items if g.slot >= len(slots)) == ["2 x Wooden Torch",
                                                                          "5 x Piece of Dark Bread"]
    locations = next(b for b in save.blocks if isinstance(b, beleriand.Locations))
    assert locations.locations  # the surface location the character stands on
    chunks = next(b for b in save.blocks if isinstance(b, beleriand.Chunks))
    assert chunks.chunks is not None


def test_chunks_kept_in_memory() -> None:
    save = api.load(WANDERER)
    p = save.player
    assert isinstance(p, beleriand.Player)
    assert (p.full_name, p.race, p.house, p.sex, p.age, p.height, p.weight) == \
        ("Wanderer", "Avari", "Houseless", "Male", 2213, 71, 156)  # 5'11"
    assert p.stat_base == [-1, 1, 1, 1] and (p.new_exp, p.exp, p.turn, p.chp, p.mhp) == (5000, 5000, 97, 24, 24)
    chunks = next(b for b in save.blocks if isinstance(b, beleriand.Chunks))
    assert chunks.chunks is not None and len(chunks.chunks) == 12
    kept = [r.chunk for r in chunks.chunks if r.chunk is not None]
    assert len(kept) == 3
    for c in kept:  # each kept level is stored with the player's map of it, the same size
        assert (c.height, c.width) == (c.cave.height, c.cave.width) == (c.known_cave.height, c.known_cave.width)
        assert len(c.feat_count) == beleriand.FEAT_MAX + 1


def test_the_retired_character() -> None:
    save = api.load(RETIRED)
    p = save.player
    assert isinstance(p, beleriand.Player) and p.died_from == "Retiring"
    for cls in (beleriand.Chunks, beleriand.Locations):
        got = next(b for b in save.blocks if isinstance(b, cls))
        assert got == cls()  # the game writes none of these for a dead character
    monsters = next(b for b in save.blocks if isinstance(b, beleriand.Monsters))
    assert monsters.monsters is None


def _reads_player(data: bytes, game: str) -> bool:
    """Whether ``game``'s player layout consumes this file's player block exactly, given what
    the file's monster memory block says (Beleriand's player block needs its language size)."""
    ctx = Context()
    start, size = block_span(data, "monster memory")
    for lay in layouts_for("USIL", "monster memory", 1):
        try:
            lay.decode(Reader(data, start + 28, start + 28 + size), ctx)
            break
        except (FormatError, LayoutError):
            continue
    layout = next(lay for lay in layouts_for("USIL", "player", 1) if lay.game == game)
    start, size = block_span(data, "player")
    r = Reader(data, start + 28, start + 28 + size)
    try:
        layout.decode(r, ctx)
    except (FormatError, LayoutError):
        return False
    return r.at_end()


@pytest.mark.parametrize("path", [ALIVE, RETIRED], ids=["alive", "retired"])
def test_narsil_player_layout_does_not_read_beleriand(path: Path) -> None:
    data = path.read_bytes()
    assert _reads_player(data, beleriand.GAME) and not _reads_player(data, narsil.GAME)


@pytest.mark.parametrize("path", NARSIL, ids=["alive", "retired"])
def test_beleriand_player_layout_does_not_read_narsil(path: Path) -> None:
    data = path.read_bytes()
    assert _reads_player(data, narsil.GAME) and not _reads_player(data, beleriand.GAME)
    assert api.load(path).game == narsil.GAME


def test_info_and_validate_from_the_command_line() -> None:
    doc = json.loads(subprocess.run([sys.executable, "-m", "savecraft", "info", "--json", str(ALIVE)],
                                    capture_output=True, text=True, check=True).stdout)
    assert doc["game"] == beleriand.GAME and doc["name"] == "Hurin" and doc["race"] == "Edain"
    assert doc["house"] == "House of Hador" and "level" not in doc
    assert doc["experience"] == {"current": 5000, "unspent": 5000}
    assert doc["hit_points"] == {"current": 20, "max": 20} and doc["state"] == "alive"
    assert doc["equipment"] == ["light: Wooden Torch"]
    ok = subprocess.run([sys.executable, "-m", "savecraft", "validate", str(ALIVE), str(RETIRED)],
                        capture_output=True, text=True)
    assert ok.returncode == 0, ok.stdout + ok.stderr


def test_dump_extract_and_build_from_the_command_line(tmp_path: Path) -> None:
    assert_builds_back(WANDERER, tmp_path)
