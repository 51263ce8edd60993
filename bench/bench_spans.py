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

    python3 bench/bench_spans.py [--before REV] [--rounds 5] [--tng-mb 256] [--part 1|2|both]
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
    """The package as it was at ``rev``, with the compiled speedups of the current tree."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "src/savecraft"], capture_output=True,
                             check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    for so in (ROOT / "src" / "savecraft").glob("_speedups*.so"):
        shutil.copy2(so, into / "src" / "savecraft" / so.name)
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--before", metavar="REV", help="also time the package at this git revision")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--tng-mb", type=int, default=256)
    ap.add_argument("--part", choices=("1", "2", "both"), default="both")
    args = ap.parse_args()
    if args.child:
        child()
        return
    if args.part in ("1", "both"):
        part_off(args.before, args.rounds)
        part_count()
    if args.part in ("2", "both"):
        part_on(args.tng_mb)


if __name__ == "__main__":
    main()
