"""The Angband tables of every game on real files, with real DuckDB (issue 22): ``home``,
``uniques_killed``, ``monster_memory``, and ``characters``' depth and status for the games
other than Vanilla 4.x. Each row is held to the decoded model or to another block the game
writes apart, and the command runs as a user runs it."""

from __future__ import annotations

import csv
import io
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("duckdb")

import savecraft  # noqa: E402
from savecraft import tables  # noqa: E402
from savecraft.formats.angband.block import BlockSave  # noqa: E402
from tests.samples import SAMPLES, real_samples  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
V42 = SAMPLES / "angband-block-variants" / "vanilla-4.2_Aduial.sav"
LORENZ = SAMPLES / "angband-block-more" / "angband_4.2.2+_Lorenz.sav"
V40 = SAMPLES / "angband-block-variants" / "vanilla-4.0.1_Mage.sav"
ANQ = SAMPLES / "angband-block-variants" / "anquestria-3.2_PLAYER.sav"
PONY = SAMPLES / "angband-block" / "ponyband_Asira.sav"
PWM = SAMPLES / "angband-block-variants" / "pwmangband-1.3.0b1_Archy.sav"
XYGOS = SAMPLES / "angband-block-more" / "xygos_0.0.3_24580new.sav"
FILES = [V42, LORENZ, V40, ANQ, PONY, PWM, XYGOS]
pytestmark = real_samples


@pytest.fixture(scope="module")
def con() -> Any:
    names = ["characters", "home", "uniques_killed", "monster_memory", "history"]
    return tables.open([str(f) for f in FILES], names, jobs=1).connect()


def _model(path: Path) -> BlockSave:
    save = savecraft.load(path)
    assert isinstance(save, BlockSave)
    return save


def _rows(con: Any, sql: str) -> list[tuple[Any, ...]]:
    return [tuple(r) for r in con.sql(sql).fetchall()]


def _memory(save: BlockSave) -> Any:
    return next(b for b in save.blocks if b.name == "monster memory")


# -- home -------------------------------------------------------------------------------------


def test_home_is_the_eighth_store_in_vanilla_and_anquestria(con: Any) -> None:
    for fid in (0, 1, 2, 3):
        save = _model(FILES[fid])
        assert save.stores is not None
        stock = save.stores.stores[7].stock
        rows = _rows(con, f"SELECT item, name, quantity, tval, sval, note FROM home WHERE file_id = {fid} "
                          "ORDER BY item")
        assert len(rows) == len(stock)
        for (item, name, quantity, tval, sval, note), entry in zip(rows, stock):
            obj = getattr(entry, "item", entry)  # 4.2: each object beside its known copy
            assert (quantity, tval, sval) == (obj.number, str(obj.tval), str(obj.sval))
            assert note == (obj.inscription or None)
            assert name == (obj.name if fid < 2 else None)  # 4.2 names kinds; the others index them
    # Aduial keeps 23 objects at home, Lorenz 23, Katabra 24; the Anquestria character none
    assert _rows(con, "SELECT file_id, count(*) FROM home GROUP BY ALL ORDER BY 1") == [
        (0, 23), (1, 23), (2, 24)]


def test_faangband_and_pwmangband_homes_are_empty_as_their_files_keep_them(con: Any) -> None:
    """Ponyband's homes (one per town, type_of_store) are empty in the sample, and so is
    PWMAngband's home block; the other stores are not: the rule picks the right ones."""
    pony = _model(PONY)
    assert pony.stores is not None and sum(len(s.stock) for s in pony.stores.stores) > 500
    assert _model(PWM).home is not None
    assert _rows(con, "SELECT count(*) FROM home WHERE file_id IN (4, 5)") == [(0,)]


# -- uniques killed ---------------------------------------------------------------------------


def test_uniques_killed_are_the_historys_slay_unique_entries(con: Any) -> None:
    save = _model(V42)
    assert save.history is not None
    entries = save.history.entries
    rows = _rows(con, "SELECT entry, name, turn, depth, level FROM uniques_killed WHERE file_id = 0 "
                      "ORDER BY entry")
    assert len(rows) == 65
    assert rows[0][1] == "Mughash the Kobold Lord"
    for entry, name, turn, depth, level in rows:
        e = entries[entry]
        assert e.event == f"Killed {name}" and (turn, depth, level) == (e.turn, e.dlev, e.clev)
    # no other entry of the history reads "Killed ...": the mark and the text agree
    assert sum(e.event.startswith("Killed ") for e in entries) == len(rows)


def test_every_unique_killed_is_in_the_monster_memory_with_a_kill(con: Any) -> None:
    """Two blocks the game writes apart (history, monster memory) agree in the 4.x files."""
    rows = _rows(con, "SELECT u.file_id, count(*), count(m.race), min(m.kills) FROM uniques_killed u "
                      "LEFT JOIN monster_memory m ON m.file_id = u.file_id AND lower(m.race) = lower(u.name) "
                      "WHERE u.file_id IN (0, 1, 2) GROUP BY ALL ORDER BY 1")
    assert [r[0] for r in rows] == [0, 1, 2]
    for _, uniques, remembered, least in rows:
        assert uniques == remembered and least >= 1


def test_pwmangband_uniques(con: Any) -> None:
    """PWMAngband marks a unique slain as 4.2 does (HIST_SLAY_UNIQUE), and names it so."""
    history = _model(PWM).history
    assert history is not None
    rows = _rows(con, "SELECT entry, name, depth, level FROM uniques_killed WHERE file_id = 5 ORDER BY entry")
    assert rows == [(1, "Fang, Farmer Maggot's Dog", 2, 4), (3, "Wolf, Farmer Maggot's Dog", 2, 5)]
    for entry, name, depth, level in rows:
        e = history.entries[entry]
        assert (e.event, e.dlev, e.clev) == (f"Killed {name}", depth, level)


# -- monster memory ---------------------------------------------------------------------------


def test_monster_memory_by_name_in_4x(con: Any) -> None:
    for fid, path in ((0, V42), (1, LORENZ), (2, V40)):
        block = _memory(_model(path))
        records = getattr(block, "races", None) or block.kills
        rows = _rows(con, f"SELECT race_index, race, kills, total_kills, deaths, sights, thefts "
                          f"FROM monster_memory WHERE file_id = {fid} ORDER BY race")
        assert len(rows) == len(records)
        want = sorted((None, r.race, r.pkills, None, None, None, getattr(r, "thefts", None))
                      for r in records)
        assert sorted(rows, key=lambda r: (r[1], r[2])) == sorted(want, key=lambda r: (r[1], r[2]))
    assert ("filthy street urchin", 4) in _rows(
        con, "SELECT race, kills FROM monster_memory WHERE file_id = 1")


def test_monster_memory_by_index_leaves_out_races_of_which_nothing_is_counted(con: Any) -> None:
    for fid, path in ((3, ANQ), (4, PONY), (5, PWM)):
        races = _memory(_model(path)).races
        rows = _rows(con, f"SELECT race_index, race, kills, total_kills, deaths, sights FROM monster_memory "
                          f"WHERE file_id = {fid} ORDER BY race_index")
        assert rows and all(r[1] is None for r in rows)
        for index, _, kills, total, deaths, sights in rows:
            r = races[index]
            assert (kills, total) == (r.pkills, r.tkills)
            assert deaths == getattr(r, "deaths", getattr(r, "pdeaths", None))
            assert sights == getattr(r, "sights", None)
        listed = {r[0] for r in rows}
        for i, r in enumerate(races):  # a race left out counts nothing
            if i not in listed:
                assert not (r.pkills or r.tkills or getattr(r, "deaths", 0) or getattr(r, "sights", 0)
                            or getattr(r, "pdeaths", 0) or getattr(r, "pseen", 0))
    # Asira has killed 23 monsters of the races it met; the Anquestria character none
    assert _rows(con, "SELECT file_id, sum(kills) FROM monster_memory WHERE file_id IN (3, 4) "
                      "GROUP BY ALL ORDER BY 1") == [(3, 0), (4, 23)]


# -- characters of the other games ------------------------------------------------------------


def test_depth_and_status_where_the_file_has_them(con: Any) -> None:
    rows = dict((r[0], r[1:]) for r in _rows(
        con, "SELECT file_id, game, depth, status FROM characters ORDER BY file_id"))
    assert rows[0] == ("Vanilla 4.2", 81, "alive")
    assert rows[4] == ("FAangband 1 (Ponyband)", None, "alive")  # a stage, not a depth
    pwm = _model(PWM)
    level = next(b for b in pwm.blocks if b.name == "dungeon").level
    assert rows[5] == ("PWMAngband", level.wpos_depth, "alive")  # one game over every magic
    # Xygos: every block decoded (its test harness's character, in the town: "at DL0")
    assert rows[6] == ("Xygos 0.0.3", 0, "alive")
    assert _model(XYGOS).description is not None


def test_through_the_command() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "NO_COLOR": "1"}
    r = subprocess.run([sys.executable, "-m", "savecraft", "sql",
                        "SELECT file_id, count(*) AS n FROM uniques_killed GROUP BY ALL ORDER BY 1",
                        str(V42), str(PWM)], capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    assert list(csv.reader(io.StringIO(r.stdout))) == [["file_id", "n"], ["0", "65"], ["1", "2"]]
