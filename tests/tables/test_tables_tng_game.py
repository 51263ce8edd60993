"""The .tng tables (tng_maps, tng_objects, tng_npcs, tng_quests, tng_dialogs) against the game's model.

Each row is checked against what the decoded game holds (names through the strings section,
titles through the first translation, counts of the records), on the sample game and on a
random one, with real DuckDB, and through the installed command in a subprocess.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

import savecraft
from savecraft import tables
from savecraft.formats.tirnanog.game.maps import EMPTY_TILE, NPC_LAYER
from savecraft.formats.tirnanog.game.sample import build_sample_game
from savecraft.formats.tirnanog.game.sections.s28_npc_types import NpcTypesSection
from savecraft.formats.tirnanog.game.sections.s31_objects import ObjectsSection

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    d = tmp_path_factory.mktemp("games")
    out = []
    for i, rng in enumerate((None, random.Random(5))):
        p = d / f"game{i}.tng"
        p.write_bytes(build_sample_game(rng))
        out.append(p)
    return out


def test_maps_npcs_objects_quests_dialogs_are_the_models(games: list[Path]) -> None:
    names = ["tng_maps", "tng_objects", "tng_npcs", "tng_quests", "tng_dialogs"]
    con = tables.open([str(g) for g in games], names, jobs=1).connect()
    for fid, path in enumerate(games):
        g = savecraft.load(path)
        maps = con.sql("SELECT map, name, title, size, layers, npcs_placed, asset_bytes FROM tng_maps "
                       "WHERE file_id = $f ORDER BY map", params={"f": fid}).fetchall()
        assert g.maps is not None and len(maps) == len(g.maps.maps) > 0
        for (i, name, title, size, layers, npcs, stored), entry in zip(maps, g.maps.maps):
            m = entry.asset.value
            assert i == g.maps.maps.index(entry)
            assert name == g.string(entry.name) and title == g.text(m.title)
            assert (size, layers) == (g.header.map_size, g.header.map_layers)
            assert npcs == int((m.layers[NPC_LAYER] != EMPTY_TILE).sum())
            assert stored == entry.asset.length
        npcs_rows = con.sql("SELECT name, title, inventory, inventory_quantity FROM tng_npcs "
                            "WHERE file_id = $f ORDER BY npc", params={"f": fid}).fetchall()
        section = g.section(NpcTypesSection)
        assert section is not None and len(npcs_rows) == len(section.npcs) > 0
        for (name, title, kinds, carried), entry in zip(npcs_rows, section.npcs):
            n = entry.asset.value
            assert (name, title) == (g.string(entry.name), g.text(n.title))
            assert (kinds, carried) == (len(n.inventory), sum(i.quantity for i in n.inventory))
        objects = con.sql("SELECT sprite, title, price FROM tng_objects WHERE file_id = $f ORDER BY object",
                          params={"f": fid}).fetchall()
        osec = g.section(ObjectsSection)
        assert osec is not None
        assert objects == [(o.sprite, g.text(o.asset.value.title), o.asset.value.price) for o in osec.objects]
    assert con.sql("SELECT count(*) FROM tng_quests").fetchall()[0][0] >= 2
    assert con.sql("SELECT count(*) FROM problems").fetchall() == [(0,)]


def test_the_sample_games_rows_read_like_the_game(games: list[Path]) -> None:
    con = tables.open([str(games[0])], ["tng_maps", "tng_quests", "tng_dialogs"], jobs=1).connect()
    assert con.sql("SELECT name, title, neighbours FROM tng_maps ORDER BY map").fetchall()[0][:2] == \
        ("village", "Village")
    assert con.sql("SELECT title, description FROM tng_quests").fetchall() == \
        [("Wolves in the forest", "Drive the wolves away.")]
    assert con.sql("SELECT name, options FROM tng_dialogs").fetchall() == [("dlg_greet", 2)]


def test_the_command_answers_users_per_map_by_name(tmp_path: Path) -> None:
    """A server save and the world it hosts, joined by map, as docs/tables.md shows."""
    from savecraft import api
    from savecraft.formats.tirnanog.save.sample import server_save

    (tmp_path / "server.sav").write_bytes(api.build(server_save(users=200, seed=3)))
    (tmp_path / "world.tng").write_bytes(build_sample_game())
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "NO_COLOR": "1"}
    r = subprocess.run([sys.executable, "-m", "savecraft", "sql", "--to", "csv",
                        "SELECT u.map, m.name, count(*) AS users FROM tng_users u LEFT JOIN tng_maps m "
                        "USING (map) GROUP BY ALL ORDER BY u.map", "server.sav", "world.tng"],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    rows = [line.split(",") for line in r.stdout.strip().splitlines()[1:]]
    assert [row[1] for row in rows[:2]] == ['"village"', '"forest"']
    assert sum(int(row[2]) for row in rows) == 200
