"""What span recording costs: nothing when off, and how much when on.

Two parts, each a ratio measured in the same run:

1. **Off** (the ordinary load path). Each workload is timed next to a bare
   ``zlib.decompress`` of a 10,000-user save's payload (as in
   ``bench_save_load.py``) and printed as a multiple of it: ``load`` of that
   save, ``load`` plus decoding every user, parsing the sample ``.tng``
   (Reader-heavy: every section), an Angband block save and a QfG5 save.
   With ``--before REV`` the same workloads also run on the package as it was
   at git revision REV (extracted to a temporary folder), alternating
   before/after in fresh processes, and the bench prints after/before per
   workload (median of the rounds). The goal: at most 1.05. Then the added
   work is counted: the context-variable look-ups each workload makes, times
   their measured cost, as a share of the workload's time (a bound that does
   not drown in the machine's noise).
2. **On**. ``spans.record`` of the 10,000-user save, lazily (containers
   only) and fully (every field of every user), against ``load``; and on a
   large generated ``.tng`` (memory-mapped): a lazy recording against
   ``open_game``, then the spans of one map asset and one hexdump window.
3. **Linear** (issue 21: naming each chunk once counted over every chunk, so
   recording took 62.8 s at 10,000 users). Saves of 1,000, 10,000 and
   100,000 users (the sample writer, 20 attributes and 30 items per user),
   each timed against a load of the same file in the same run, alternating,
   medians of the rounds: ``spans.record(lazy=True)`` against
   ``savecraft.load`` in this process, and the installed ``savecraft hexdump
   FILE --length 64`` against a fresh process that loads the file
   (``python -c 'savecraft.load(FILE)'``: the same interpreter start-up).
   Linear means the same ratio at every size.

    python3 bench/bench_spans.py [--before REV] [--rounds 5] [--tng-mb 256] [--part 1|2|3|all]
                                 [--users 1000,10000,100000]
"""

from __future__ import annotations

import argparse
import json
import mmap
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path
from typing import Any

from timing import best

ROOT = Path(__file__).resolve().parents[1]


# -- part 1: the ordinary path, in a child process (so the package can be the old one) ------------


def child() -> None:
    import savecraft
    from savecraft import api
    from savecraft.formats.angband import sample as angband_sample
    from savecraft.formats.qfg5 import sample as qfg5_sample
    from savecraft.formats.tirnanog.game import sample as game_sample
    from savecraft.formats.tirnanog.save import sample

    save = savecraft.build(sample.server_save(users=10_000, attributes=20, items=30))
    payload = save[32:-4]
    game = game_sample.build_sample_game()
    block = api.build(angband_sample.block_save())
    qfg5 = api.build(qfg5_sample.qfg5_save())

    def decode_all() -> None:
        for _ in savecraft.load(save).chunks:
            pass

    def many(data: bytes, n: int) -> Any:
        return lambda: [api.parse(data) for _ in range(n)]

    work = {
        "save load": lambda: savecraft.load(save),
        "save load+decode all": decode_all,
        "tng parse x20": many(game, 20),
        "angband block parse x50": many(block, 50),
        "qfg5 parse x50": many(qfg5, 50),
    }
    out: dict[str, float] = {}
    for name, fn in work.items():
        ratios = []
        for _ in range(3):  # the baseline right next to the workload, alternating
            base = best(lambda: zlib.decompress(payload), 3)
            ratios.append(best(fn, 3) / base)
        out[name] = statistics.median(ratios)
    print(json.dumps(out))


def _run_child(src: Path) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=f"{src}{os.pathsep}{Path(__file__).parent}")
    res = subprocess.run([sys.executable, __file__, "--child"], env=env, capture_output=True, text=True,
                         check=True, timeout=600)
    return json.loads(res.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def _checkout(rev: str, into: Path) -> Path:
    """The package as it was at ``rev``, with the compiled modules of the current tree (used only
    where that revision has the same ones, of the same interface version)."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "src/savecraft"], capture_output=True,
                             check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    package = ROOT / "src" / "savecraft"
    for so in [*package.glob("_speedups*.so"), *package.glob("_native/*.so")]:
        if (into / "src" / "savecraft" / so.relative_to(package)).parent.is_dir():
            shutil.copy2(so, into / "src" / "savecraft" / so.relative_to(package))
    return into / "src"


def part_off(before: str | None, rounds: int) -> None:
    print("1. recording off: each workload as a multiple of a bare zlib.decompress of the payload")
    now_src = ROOT / "src"
    with tempfile.TemporaryDirectory() as tmp:
        old_src = _checkout(before, Path(tmp)) if before else None
        after: dict[str, list[float]] = {}
        prior: dict[str, list[float]] = {}
        for _ in range(rounds):
            if old_src is not None:
                for k, v in _run_child(old_src).items():
                    prior.setdefault(k, []).append(v)
            for k, v in _run_child(now_src).items():
                after.setdefault(k, []).append(v)
    for name, vals in after.items():
        line = f"  {name:>26}: {statistics.median(vals):7.2f}x inflate"
        if prior:
            b = statistics.median(prior[name])
            ratios = [a / p for a, p in zip(vals, prior[name])]
            line += (f"   before ({before}): {b:7.2f}x   after/before: median {statistics.median(ratios):.3f}"
                     f" (rounds: {', '.join(f'{r:.3f}' for r in ratios)})")
        print(line)


def part_count() -> None:
    """The added work, counted: what recording-off adds is one context-variable look-up per Reader
    created (and per chunk decoded); timing noise on a shared machine is far larger than that, so
    this bound is the sharper answer."""
    import timeit

    import savecraft
    from savecraft import api, binary
    from savecraft.formats.angband import sample as angband_sample
    from savecraft.formats.qfg5 import sample as qfg5_sample
    from savecraft.formats.tirnanog.game import sample as game_sample
    from savecraft.formats.tirnanog.save import sample

    t_get = min(timeit.repeat("g()", setup="from savecraft.binary import _SINK; g = _SINK.get",
                              number=200_000, repeat=5)) / 200_000
    print(f"  counted: a context-variable look-up costs {t_get * 1e9:.0f} ns; per workload, the look-ups "
          "it adds against its own time:")
    save = savecraft.build(sample.server_save(users=10_000, attributes=20, items=30))
    datas = {"save load+decode all": save, "tng parse": game_sample.build_sample_game(),
             "angband block parse": api.build(angband_sample.block_save()),
             "qfg5 parse": api.build(qfg5_sample.qfg5_save())}
    created = [0]
    plain_init = binary.Reader.__init__

    def counting(self: Any, *a: Any, **k: Any) -> None:
        created[0] += 1
        plain_init(self, *a, **k)

    for name, data in datas.items():
        def work(data: bytes = data) -> Any:
            model = api.parse(data)
            if name.startswith("save"):
                model.chunks.decode_all()
            return model
        t = best(work, 5)
        binary.Reader.__init__ = counting  # type: ignore[method-assign]
        created[0] = 0
        model = work()
        binary.Reader.__init__ = plain_init  # type: ignore[method-assign]
        lookups = created[0] + (len(model.chunks) if name.startswith("save") else 0)
        print(f"  {name:>26}: {lookups:6,} look-ups = {100 * lookups * t_get / t:.3f}% of {t * 1000:.2f} ms")


# -- part 2: the cost of recording ---------------------------------------------------------------------


def part_on(tng_mb: int) -> None:
    import savecraft
    from savecraft import spans
    from savecraft.commands.hexdump import render
    from savecraft.formats.tirnanog.game import open_game
    from savecraft.formats.tirnanog.save import sample

    print("2. recording on")
    save = savecraft.build(sample.server_save(users=10_000, attributes=20, items=30))
    loads, lazies, fulls, firsts, seconds = [], [], [], [], []
    for _ in range(3):  # rounds alternate the contenders, so a slow minute hits them alike
        load = best(lambda: savecraft.load(save), 3)
        loads.append(load)
        lazies.append(best(lambda: spans.record(save, lazy=True), 3) / load)
        smap = spans.record(save, lazy=True)
        t0 = time.perf_counter()
        smap.spans_for("users[5000]")
        firsts.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        smap.spans_for("users[6000]")
        seconds.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        full = spans.record(save)
        fulls.append((time.perf_counter() - t0) / load)
    t0 = time.perf_counter()
    full.at("payload", len(full.spaces()["payload"].data) // 2)
    t_index = time.perf_counter() - t0
    med = statistics.median
    print(f"  10,000-user save ({len(save):,} bytes): load {med(loads) * 1000:.1f} ms (median of the rounds)")
    print(f"    record lazy (chunks only):      {med(lazies):6.2f}x load")
    print(f"    + the first user's fields:      {min(firsts) * 1000:6.1f} ms (this query also indexes the chunks)")
    print(f"    + another user's fields:        {min(seconds) * 1000:6.1f} ms")
    print(f"    record every field:             {med(fulls):6.2f}x load ({len(full.spans()):,} spans; "
          f"the first query then indexes them in {t_index * 1000:.0f} ms)")
    del full, smap

    sys.path.insert(0, str(Path(__file__).parent))
    from bench_tng_open import make_game

    with tempfile.TemporaryDirectory() as tmp:
        if shutil.disk_usage(tmp).free < (tng_mb + 256) << 20:
            print(f"  (skipped the {tng_mb} MB game: not enough free space in {tmp})")
            return
        path = Path(tmp) / "big.tng"
        path.write_bytes(make_game(tng_mb))
        size = path.stat().st_size

        def opened() -> None:
            with open_game(path):
                pass

        def recorded() -> spans.SpanMap:
            with open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mm:
                smap = spans.record(mm, lazy=True)  # type: ignore[arg-type]
                smap.spans_for("maps[0]")
                lines = list(render(smap, None, offset=size // 2, length=4096))
                assert len(lines) > 100
                return smap

        opens, recs = [], []
        for _ in range(3):
            opens.append(best(opened, 3))
            recs.append(best(recorded, 3))
        print(f"  {size / 2**20:,.0f} MiB .tng (memory-mapped): open_game {min(opens) * 1000:.1f} ms")
        print(f"    record lazy + one 512 x 512 map's fields + a 4 KiB hexdump window in the middle: "
              f"{min(recs) * 1000:.1f} ms (best of the rounds)")


# -- part 3: linear in the number of users ------------------------------------------------------------


def _command() -> list[str]:
    """The installed ``savecraft`` console script (running this tree: PYTHONPATH), else ``-m``."""
    found = shutil.which("savecraft")
    return [found] if found else [sys.executable, "-m", "savecraft"]


def part_linear(sizes: list[int], rounds: int) -> None:
    import savecraft
    from savecraft import spans
    from savecraft.formats.tirnanog.save import sample
    from savecraft.speed import gc_paused

    print("3. linear: lazy recording and `savecraft hexdump FILE --length 64`, each against a load of "
          "the same file (medians of alternating rounds)")
    env = dict(os.environ, PYTHONPATH=f"{ROOT / 'src'}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    hexdump = _command() + ["hexdump"]
    loader = [sys.executable, "-c", "import sys, savecraft; savecraft.load(sys.argv[1])"]

    def run(argv: list[str]) -> float:
        t0 = time.perf_counter()
        subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL, timeout=3600)
        return time.perf_counter() - t0

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for users in sizes:
            t0 = time.perf_counter()
            with gc_paused():
                data = savecraft.build(sample.server_save(users=users, attributes=20, items=30))
            made = time.perf_counter() - t0
            path = Path(tmp) / f"users{users}.sav"
            path.write_bytes(data)
            loads, records, cmd_loads, cmd_hexdumps = [], [], [], []
            rounds_here = rounds if users <= 10_000 else max(3, rounds // 2)
            for _ in range(rounds_here):
                loads.append(best(lambda: savecraft.load(data), 2 if users > 10_000 else 3))
                records.append(best(lambda: spans.record(data, lazy=True), 2 if users > 10_000 else 3))
                cmd_loads.append(run(loader + [str(path)]))
                cmd_hexdumps.append(run(hexdump + [str(path), "--length", "64"]))
            med = statistics.median
            row = (users, len(data), med(loads), med(records) / med(loads),
                   statistics.median(r / ld for r, ld in zip(records, loads)),
                   med(cmd_loads), med(cmd_hexdumps), statistics.median(h / ld for h, ld in zip(cmd_hexdumps, cmd_loads)))
            rows.append(row)
            print(f"  {users:>7,} users ({len(data) / 2**20:6.1f} MiB, made in {made:.0f} s, {rounds_here} rounds): "
                  f"load {row[2] * 1000:8.1f} ms, record lazy {row[4]:5.2f}x load; "
                  f"load command {row[5]:6.2f} s, hexdump {row[6]:6.2f} s = {row[7]:5.2f}x", flush=True)
            del data
    if len(rows) > 1:
        base = rows[0]
        for row in rows[1:]:
            grow = row[0] / base[0]
            print(f"  {row[0]:,} users against {base[0]:,}, the cost per user: load {row[2] / base[2] / grow:.2f}x, "
                  f"record lazy {row[2] * row[3] / (base[2] * base[3]) / grow:.2f}x, hexdump command "
                  f"{row[6] / base[6] / grow:.2f}x, load command {row[5] / base[5] / grow:.2f}x (1.00 = linear; "
                  "less: fixed costs shared)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--before", metavar="REV", help="also time the package at this git revision")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--tng-mb", type=int, default=256)
    ap.add_argument("--part", choices=("1", "2", "3", "both", "all"), default="all",
                    help="both: parts 1 and 2 (as before part 3 existed); all: 1, 2 and 3")
    ap.add_argument("--users", default="1000,10000,100000",
                    help="part 3's save sizes, in users (default 1000,10000,100000)")
    args = ap.parse_args()
    if args.child:
        child()
        return
    if args.part in ("1", "both", "all"):
        part_off(args.before, args.rounds)
        part_count()
    if args.part in ("2", "both", "all"):
        part_on(args.tng_mb)
    if args.part in ("3", "all"):
        part_linear([int(n) for n in args.users.split(",")], args.rounds)


if __name__ == "__main__":
    main()
