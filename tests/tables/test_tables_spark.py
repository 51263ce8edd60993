"""spark.read.format("savecraft") on a real Spark, local[2] (Java from scripts/install-deps.sh):
the same answers as DuckDB over the same files. One Spark session for the module (it takes a while)."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from savecraft import tables

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
import make_corpus  # noqa: E402


@pytest.fixture(scope="module")
def spark():  # type: ignore[no-untyped-def]
    assert shutil.which("java"), "Spark needs Java: bash scripts/install-deps.sh installs it"
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])
    session = (SparkSession.builder.master("local[2]").appName("savecraft-tests")
               .config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
               .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "2")
               .getOrCreate())
    from savecraft.spark import register

    register(session)
    yield session
    session.stop()


def test_spark_answers_what_duckdb_answers(spark, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    make_corpus.make_angband(tmp_path / "saves", 60, seed=5, jobs=1)
    (tmp_path / "saves" / "zz-cut.sav").write_bytes(
        (tmp_path / "saves").joinpath(sorted(os.listdir(tmp_path / "saves"))[0]).read_bytes()[:3000])
    server = make_corpus.make_tirnanog(tmp_path / "server.sav", 300)
    paths = [str(tmp_path / "saves"), str(server)]
    con = tables.open(paths, ["characters", "tng_users"], jobs=1).connect()

    chars = (spark.read.format("savecraft").option("table", "characters")
             .option("files_per_partition", 16).load(",".join(paths)))
    assert chars.rdd.getNumPartitions() == 4
    chars.createOrReplaceTempView("characters")
    q = ("SELECT race, class, count(*) AS n, sum(gold) AS gold, max(max_depth) AS deepest "
         "FROM characters GROUP BY race, class ORDER BY race NULLS LAST, class NULLS LAST")
    got = [tuple(r) for r in spark.sql(q).collect()]
    assert got == [tuple(w) for w in con.sql(q).fetchall()]

    users = spark.read.format("savecraft").option("table", "tng_users").load(",".join(paths))
    got_maps = sorted((r["map"], r["count"]) for r in users.groupBy("map").count().collect())
    assert got_maps == con.sql("SELECT map, count(*) FROM tng_users GROUP BY map ORDER BY map").fetchall()

    problems = spark.read.format("savecraft").option("table", "problems").load(",".join(paths))
    assert [r.file for r in problems.select("file").distinct().collect()] == [str(tmp_path / "saves" / "zz-cut.sav")]
