"""savecraft.dask.read on a real dask.distributed LocalCluster (two worker processes, loopback only):
the same answers as DuckDB over the same files."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from savecraft import tables

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
import make_corpus  # noqa: E402

distributed = pytest.importorskip("distributed")  # the test extra installs it: this never skips in CI


@pytest.fixture(scope="module")
def client():  # type: ignore[no-untyped-def]
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as c:
        yield c


def test_dask_answers_what_duckdb_answers(client, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    import savecraft.dask as sdask

    make_corpus.make_angband(tmp_path / "saves", 90, seed=3, jobs=1)
    (tmp_path / "saves" / "zz-junk.sav").write_bytes(b"junk")
    server = make_corpus.make_tirnanog(tmp_path / "server.sav", 500)
    paths = [str(tmp_path / "saves"), str(server)]

    con = tables.open(paths, ["characters", "tng_users"], jobs=1).connect()
    want = con.sql("SELECT race, class, count(*), sum(gold), max(max_depth) FROM characters "
                   "GROUP BY ALL ORDER BY ALL").fetchall()
    ddf = sdask.read(paths, "characters", files_per_partition=20)
    assert ddf.npartitions == 5
    got = (ddf.groupby(["race", "class"]).agg({"file_id": "count", "gold": "sum", "max_depth": "max"})
           .compute().reset_index().sort_values(["race", "class"]))
    assert [(r.race, r["class"], int(r.file_id), int(r.gold), int(r.max_depth)) for _, r in got.iterrows()] \
        == [tuple(w) for w in want]

    users = sdask.read(paths, "tng_users", files_per_partition=20)
    by_map = users.groupby("map").size().compute().sort_index()
    assert [(int(k), int(v)) for k, v in by_map.items()] == \
        con.sql("SELECT map, count(*) FROM tng_users GROUP BY map ORDER BY map").fetchall()

    problems = sdask.read(paths, "problems", files_per_partition=20).compute()
    assert list(problems.file) == [str(tmp_path / "saves" / "zz-junk.sav")]
    ids = sdask.read(paths, "files", files_per_partition=20).compute()
    assert sorted(ids.file_id) == list(range(92))  # the same file ids as DuckDB's
    assert con.sql("SELECT max(file_id) FROM files").fetchall() == [(91,)]
