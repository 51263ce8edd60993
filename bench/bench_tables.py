"""Thousands of saves as tables (issue 22): ratios to baselines measured in the same run.

1. The ``characters`` table of N Angband saves (default 10,000, made by
   bench/make_corpus.py from real saves) against ``savecraft validate`` over
   the same files, both as commands on every core. Goal: within 1.5x.
2. Peak memory of the producer (this process and its largest worker) over
   1,000 and over N files. Goal: within 1.2x (flat in the number of files).
3. The ``tng_users`` table of a 100,000-user TirNanoG server save against
   loading it (``savecraft.load``), in one process. Goal: within 3x.
4. ``savecraft export`` once, then questions with DuckDB's ``read_parquet``,
   against ``savecraft sql`` straight from the files, per question.

Rounds alternate between the contenders and the medians are compared, so both
see the same machine. The corpus is synthetic (see bench/make_corpus.py) and
kept in --corpus (default: a folder under the system's temporary folder).

    PYTHONPATH=src python3 bench/bench_tables.py [--files 10000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import make_corpus  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "NO_COLOR": "1"}
Q = ("SELECT race, class, count(*) AS n, avg((status = 'alive')::int) AS alive, median(max_depth) "
     "AS depth FROM characters GROUP BY ALL ORDER BY n DESC")


def command(*args: str) -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "savecraft", *args], env=ENV, check=False,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0


def alternate(a: object, b: object, rounds: int) -> tuple[float, float]:
    """Medians of ``rounds`` alternating runs of two callables."""
    ta, tb = [], []
    for _ in range(rounds):
        ta.append(a())  # type: ignore[operator]
        tb.append(b())  # type: ignore[operator]
    return statistics.median(ta), statistics.median(tb)


# The consumer's peak with the pool (what streaming bounds: groups in flight), and the whole
# pipeline's peak in one process (jobs=1: decoding, Arrow, the consumer).
PEAK = r"""
import json, resource, sys
import savecraft.tables as T
rows = 0
for name, batch in T.batches([sys.argv[1]], ["characters"], jobs=int(sys.argv[2])):
    rows += batch.num_rows if name == "characters" else 0
print(json.dumps({"rows": rows, "kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
"""


def peak(folder: Path, jobs: int) -> dict[str, int]:
    out = subprocess.run([sys.executable, "-c", PEAK, str(folder), str(jobs)], env=ENV,
                         capture_output=True, text=True, check=True)
    return dict(json.loads(out.stdout))


def corpus(base: Path, n: int) -> Path:
    folder = base / f"angband-{n}"
    if not folder.is_dir() or len(list(folder.glob("*.sav"))) != n:
        t0 = time.perf_counter()
        make_corpus.make_angband(folder, n)
        print(f"made {n} synthetic Angband saves in {time.perf_counter() - t0:.0f} s")
    return folder


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=10_000)
    ap.add_argument("--small", type=int, default=1_000)
    ap.add_argument("--users", type=int, default=100_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--corpus", type=Path, default=Path(tempfile.gettempdir()) / "savecraft-tables-corpus")
    args = ap.parse_args()
    args.corpus.mkdir(parents=True, exist_ok=True)
    big = corpus(args.corpus, args.files)
    small = corpus(args.corpus, args.small)
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")

    # 1. the summary table against validate, as commands on every core
    q = "SELECT count(*), sum(gold) FROM characters"
    t_sql, t_val = alternate(lambda: command("sql", q, str(big), "--to", "csv"),
                             lambda: command("validate", "-q", str(big)), args.rounds)
    print(f"1. characters of {args.files} saves: sql {t_sql:.1f} s, validate {t_val:.1f} s: "
          f"ratio {t_sql / t_val:.2f} (goal within 1.5)")

    # 2. peak memory, 1,000 against N files
    for jobs, what in ((os.cpu_count() or 1, "the consumer, with the pool"), (1, "one process, jobs=1")):
        p_small, p_big = peak(small, jobs), peak(big, jobs)
        print(f"2. peak memory of {what}: {p_small['kib'] / 1024:.0f} MiB for {p_small['rows']} files, "
              f"{p_big['kib'] / 1024:.0f} MiB for {p_big['rows']} files: ratio "
              f"{p_big['kib'] / p_small['kib']:.2f} (goal within 1.2)")

    # 3. users table of a 100,000-user save against loading it, in this process
    import savecraft
    import savecraft.tables as T

    server = args.corpus / f"tirnanog-{args.users}.sav"
    if not server.is_file():
        make_corpus.make_tirnanog(server, args.users)
    list(T.batches([str(server)], ["tng_users"], jobs=1))  # imports and caches warm

    def load() -> float:
        t0 = time.perf_counter()
        savecraft.load(server)
        return time.perf_counter() - t0

    def users() -> float:
        t0 = time.perf_counter()
        n = sum(b.num_rows for name, b in T.batches([str(server)], ["tng_users"], jobs=1)
                if name == "tng_users")
        assert n == args.users
        return time.perf_counter() - t0

    t_users, t_load = alternate(users, load, args.rounds)
    print(f"3. tng_users of {args.users} users: {t_users:.2f} s, load {t_load:.2f} s: ratio "
          f"{t_users / t_load:.2f} (goal within 3)")

    # 4. export once, then read_parquet, against sql from the files, per question
    import duckdb

    dataset = args.corpus / f"dataset-{args.files}"
    t_export = command("export", str(big), "-o", str(dataset), "--table", "characters")
    glob = str(dataset / "characters" / "**" / "*.parquet")

    def parquet() -> float:
        t0 = time.perf_counter()
        duckdb.connect().sql(Q.replace("FROM characters", f"FROM read_parquet('{glob}')")).fetchall()
        return time.perf_counter() - t0

    t_parquet, t_files = alternate(parquet, lambda: command("sql", Q, str(big), "--to", "csv"),
                                   args.rounds)
    print(f"4. one question: read_parquet {t_parquet:.3f} s, sql from the files {t_files:.1f} s "
          f"({t_files / t_parquet:.0f}x); the export took {t_export:.1f} s, so from question "
          f"{int(t_export // max(t_files - t_parquet, 1e-9)) + 1} on, export then read_parquet is faster")
    return 0


if __name__ == "__main__":
    sys.exit(main())
