"""Thousands of saves as tables: the producer, DuckDB, Parquet, and the commands as a user runs them.

Real files (/work/shared/samples), a synthetic corpus made by editing them
(bench/make_corpus.py), real DuckDB and Parquet; the ``savecraft`` command
runs in a subprocess.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import savecraft
from savecraft import tables
from savecraft.tables import core

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
import make_corpus  # noqa: E402
from tests.samples import SAMPLES, real_samples  # noqa: E402

REAL_42 = SAMPLES / "angband-block-more" / "angband_4.2.2+_Lorenz.sav"
REAL_DEAD = SAMPLES / "angband-block-more" / "angband_4.2.1_Maxwell-ada4e7b-dead.sav"


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "NO_COLOR": "1"}
    return subprocess.run([sys.executable, "-m", "savecraft", *args], capture_output=True, text=True,
                          timeout=300, env=env, cwd=cwd)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory, real_samples: Path) -> Path:
    folder = tmp_path_factory.mktemp("corpus")
    make_corpus.make_angband(folder, 120, seed=7, jobs=1)
    return folder


def test_the_catalogue_is_fixed_and_every_column_says_where_it_comes_from() -> None:
    cat = tables.catalogue() if hasattr(tables, "catalogue") else core.catalogue()
    assert {"files", "problems", "fields", "characters", "gear", "history", "tng_saves", "tng_users",
            "tng_user_attributes", "tng_inventory", "tng_games", "tng_sections", "tng_maps",
            "tng_objects", "tng_npcs", "tng_quests", "tng_dialogs", "qfg5_saves",
            "qfg5_inventory"} <= set(cat)
    for t in cat.values():
        names = t.column_names
        assert names[0] == "file_id" and len(set(names)) == len(names), t.name
        assert all(c.source for c in t.columns), t.name
        assert tables.schema(t.name).names == names


@real_samples
def test_characters_agree_with_info_on_real_saves() -> None:
    files = [REAL_42, REAL_DEAD, SAMPLES / "angband-block-more" / "angband_4.0.2_Varis-2a7034d.sav"]
    con = tables.open([str(f) for f in files], ["characters"], jobs=1).connect()
    rows = con.sql("SELECT file_id, name, race, class, level, exp, gold, max_depth, status, killed_by "
                   "FROM characters ORDER BY file_id").fetchall()
    for (fid, name, race, cls, level, exp, gold, max_depth, status, killed), path in zip(rows, files):
        info = savecraft.load(path)
        from savecraft.formats.angband.sheet import character_sheet

        sheet = character_sheet(info)
        assert (name, race, cls, level, gold) == (sheet["name"], sheet["race"], sheet["class"],
                                                  sheet["level"], sheet["gold"])
        assert exp == sheet["experience"]["current"] and max_depth == sheet["max_depth"]
    assert [r[8] for r in rows] == ["alive", "dead", "alive"]
    assert rows[1][9] == "a grey mold" and rows[0][9] is None


@real_samples
def test_nothing_is_skipped_silently(tmp_path: Path) -> None:
    good = tmp_path / "good.sav"
    shutil.copy(REAL_42, good)
    (tmp_path / "junk.sav").write_bytes(b"not a save at all")
    cut = tmp_path / "cut.sav"
    cut.write_bytes(REAL_42.read_bytes()[:5000])
    missing = tmp_path / "gone.sav"
    stream = tables.open([str(tmp_path), str(missing)], ["characters"], jobs=1)
    con = stream.connect()
    assert con.sql("SELECT count(*) FROM files").fetchall() == [(4,)]
    bad = dict(con.sql("SELECT f.file, count(p.file_id) FROM files f LEFT JOIN problems p USING (file_id) "
                       "GROUP BY ALL").fetchall())
    assert bad[str(good)] == 0 and bad[str(tmp_path / "junk.sav")] >= 1
    assert bad[str(cut)] >= 1 and bad[str(missing)] == 1
    assert stream.problem_files == 3
    msg = con.sql("SELECT message FROM problems WHERE file = $f", params={"f": str(missing)}).fetchall()
    assert len(msg) == 1 and "cannot be read" in msg[0][0]


@real_samples
def test_a_table_whose_code_fails_is_a_problem_row_not_a_stop(monkeypatch: pytest.MonkeyPatch) -> None:
    cat = core.catalogue()
    broken = core.Table("characters", "angband-block", "one per file", cat["characters"].columns,
                        lambda model: (_ for _ in ()).throw(RuntimeError("boom")))
    monkeypatch.setitem(cat, "characters", broken)
    rows = core.decode_group(0, [str(REAL_42)], ["characters"])
    assert rows["characters"] == []
    assert any("table characters: RuntimeError: boom" in p[-1] for p in rows["problems"])
    assert rows["files"][0][5] is False


def test_the_pool_gives_the_same_tables_as_one_process(corpus: Path) -> None:
    def collect(jobs: int) -> dict[str, pa.Table]:
        out: dict[str, list[pa.RecordBatch]] = {}
        for name, batch in tables.batches([str(corpus)], ["characters", "gear"], jobs=jobs):
            out.setdefault(name, []).append(batch)
        return {k: pa.Table.from_batches(v) for k, v in out.items()}

    one, two = collect(1), collect(2)
    assert set(one) == set(two) == {"files", "problems", "characters", "gear"}
    for name in one:
        assert one[name].equals(two[name]), name
    assert one["characters"].num_rows == 120 and one["problems"].num_rows == 0


@real_samples
def test_the_fields_table_has_every_leaf_with_its_dump_path() -> None:
    rows = core.decode_group(0, [str(REAL_42)], ["fields"])["fields"]
    by_path = {r[1]: r for r in rows}
    doc = savecraft.to_json(savecraft.load(REAL_42))["data"]
    au = next(f"blocks[{i}].au" for i, b in enumerate(doc["blocks"]) if "au" in b)
    assert by_path[au][2] == "50258" and by_path[au][3] == 50258.0
    assert len(rows) > 1000


def test_library_api_callable_package_and_reader(corpus: Path) -> None:
    stream = savecraft.tables([corpus], ["characters"], jobs=1)
    reader = stream.reader("characters")
    table = reader.read_all()
    assert table.num_rows == 120 and table.schema.field("file_id").type == pa.int64()


def test_sql_on_the_corpus_as_a_user_runs_it(corpus: Path, tmp_path: Path) -> None:
    q = ("SELECT race, class, count(*) AS n, avg((status = 'alive')::int) AS alive_rate, "
         "median(max_depth) AS median_depth FROM characters GROUP BY ALL ORDER BY n DESC, race, class")
    r = run("sql", q, str(corpus), "--to", "json")
    assert r.returncode == 0, r.stderr
    got = [json.loads(line) for line in r.stdout.splitlines()]
    con = tables.open([corpus], ["characters"], jobs=1).connect()
    want = con.sql(q).fetchall()
    assert [(g["race"], g["class"], g["n"]) for g in got] == [(w[0], w[1], w[2]) for w in want]
    assert sum(g["n"] for g in got) == 120
    out = tmp_path / "answer.parquet"
    r = run("sql", q, str(corpus), "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert pq.read_table(out).num_rows == len(want)
    r = run("sql", "SELECT count(*) AS n FROM characters", str(corpus), "--to", "csv")
    assert r.stdout.splitlines() == ["\"n\"", "120"] and r.returncode == 0


@real_samples
def test_sql_exit_status_says_problems_were_found(tmp_path: Path) -> None:
    shutil.copy(REAL_42, tmp_path / "a.sav")
    (tmp_path / "b.sav").write_bytes(REAL_42.read_bytes()[:777])
    r = run("sql", "SELECT count(*) AS n FROM characters", str(tmp_path), "--to", "csv")
    assert r.returncode == 1
    assert "1 of 2 files had problems" in r.stderr and r.stdout.splitlines()[-1] == "2"
    r = run("sql", "SELEKT 1", str(tmp_path))
    assert r.returncode == 2 and "Traceback" not in r.stderr and len(r.stderr.splitlines()) == 1
    r = run("sql", "SELECT 1", str(tmp_path / "nothing-*.sav"))
    assert r.returncode == 2 and "no file matches" in r.stderr


def test_sql_prints_a_table_on_a_terminal_like_screen(corpus: Path) -> None:
    from savecraft.commands import sql

    result = tables.open([corpus], ["characters"], jobs=1).connect().sql(
        "SELECT name, level FROM characters ORDER BY file_id LIMIT 3").to_arrow_table()
    import io
    from contextlib import redirect_stdout

    buf = io.StringIO()
    with redirect_stdout(buf):
        sql._print_table(result)
    assert "name" in buf.getvalue() and result.column("name")[0].as_py() in buf.getvalue()


def test_export_then_read_parquet_gives_the_answers_sql_gives(corpus: Path, tmp_path: Path) -> None:
    demo = tmp_path / "demo"
    r = run("demo", "-o", str(demo))
    assert r.returncode == 0, r.stderr
    out = tmp_path / "dataset"
    (demo / "notes.txt").write_text("not a save\n")  # a file that is no save: a problems row, exit 1
    r = run("export", str(corpus), str(demo), "-o", str(out))
    assert r.returncode == 1, r.stderr
    assert (out / "characters" / "format=angband-block").is_dir()
    assert (out / "tng_users" / "format=tirnanog-save" / "game=sample-world" / "part-0.parquet").is_file()
    con = duckdb.connect()
    ds = str(out / "characters" / "**" / "*.parquet")
    q = "SELECT race, count(*), sum(gold) FROM {} GROUP BY ALL ORDER BY ALL"
    from_parquet = con.sql(q.format(f"read_parquet('{ds}', hive_partitioning = true)")).fetchall()
    r = run("sql", q.format("characters"), str(corpus), str(demo), "--to", "json")
    from_files = [tuple(json.loads(line).values()) for line in r.stdout.splitlines()]
    assert from_parquet == from_files
    users = con.sql(f"SELECT format, game, count(*) FROM read_parquet('{out}/tng_users/**/*.parquet', "
                    "hive_partitioning = true) GROUP BY ALL ORDER BY ALL").fetchall()
    assert ("tirnanog-save", "sample-world", 26) in users
    assert not list(out.rglob("*.tmp"))


def test_tirnanog_users_per_map_matches_the_model(tmp_path: Path) -> None:
    path = make_corpus.make_tirnanog(tmp_path / "server.sav", 2000)
    con = tables.open([path], ["tng_users", "tng_saves"], jobs=1).connect()
    got = dict(con.sql("SELECT map, count(*) FROM tng_users GROUP BY map").fetchall())
    save = savecraft.load(path)
    want: dict[int, int] = {}
    for u in save.users:
        want[u.entity.map] = want.get(u.entity.map, 0) + 1
    assert got == want and sum(got.values()) == 2000
    assert con.sql("SELECT users, kind FROM tng_saves").fetchall() == [(2000, "server")]


def test_tirnanog_user_tables_are_the_same_from_bytes_and_from_edited_objects(tmp_path: Path) -> None:
    """The users, attributes and inventory tables read each undecoded USER chunk by a picker of
    their own columns; a chunk decoded (or edited) in memory gives the same rows from its object."""
    from savecraft.formats.tirnanog.save.model import InventoryItem, QuestState
    from savecraft.formats.tirnanog.save.tables import ATTRIBUTES, INVENTORY, USERS

    path = make_corpus.make_tirnanog(tmp_path / "server.sav", 40)

    def rows(save: object) -> list[list[tuple[object, ...]]]:
        return [list(t.rows(save)) for t in (USERS, ATTRIBUTES, INVENTORY)]  # type: ignore[misc]

    picked = rows(savecraft.load(path))
    save = savecraft.load(path)
    for i in range(len(save.chunks)):
        save.chunks[i]  # decoded and kept: no raw bytes are left to pick from
    assert all(save.chunks.raw_or_none(i) is None for i in range(len(save.chunks)))
    assert rows(save) == picked
    assert len(picked[0]) == 40 and len(picked[1]) == sum(len(u.entity.attributes) for u in save.users)
    user = save.users[3]
    user.entity.inventory.append(InventoryItem(quantity=7, object_id=12))
    user.entity.quests.append(QuestState(quest_id=5, completed=True))
    users, _, inventory = rows(save)
    assert users[3][-3:] == (picked[0][3][-3] + 1, picked[0][3][-2], picked[0][3][-1] + 1)
    assert (3, user.name, len(user.entity.inventory) - 1, 12, 7) in inventory


def test_help_and_validate_do_not_import_arrow_or_duckdb() -> None:
    prog = ("from savecraft.cli import main\nimport sys, contextlib, io\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    try:\n        main(['--help'])\n    except SystemExit:\n        pass\n"
            f"main(['validate', {str(REAL_42)!r}])\n"
            "print([m for m in sys.modules if m.split('.')[0] in ('pyarrow', 'duckdb', 'pyspark', 'dask')])")
    out = subprocess.run([sys.executable, "-c", prog], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    assert out.stdout.strip().splitlines()[-1] == "[]", out.stderr


@real_samples
def test_the_problems_of_every_sample_are_validates(tmp_path: Path) -> None:
    """The producer reads a sound file as load does; its verdict must still be validate's."""
    files = sorted(p for p in SAMPLES.rglob("*") if p.is_file())
    demo = tmp_path / "demo"
    assert run("demo", "-o", str(demo)).returncode == 0
    files += sorted(p for p in demo.iterdir() if p.is_file())
    for path in files:
        fmt, _model, problems = core.validated(str(path))
        result = savecraft.validate(path)
        assert fmt == result.format, path
        assert [str(p) for p in problems] == [str(p) for p in result.problems], path
        assert [p.severity for p in problems] == [p.severity for p in result.problems], path


@real_samples
def test_savecraft_tables_from_a_bare_import() -> None:
    prog = (f"import savecraft\ncon = savecraft.tables([{str(REAL_42)!r}], ['characters'], jobs=1).connect()\n"
            "print(con.sql('SELECT name FROM characters').fetchall())")
    out = subprocess.run([sys.executable, "-c", prog], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    assert out.stdout.strip() == "[('Lorenz',)]", out.stderr
