"""A large TirNanoG server save: validate, info and the dump's level search, as ratios.

For a small and a large number of users (1,000 and ``--users``, default
30,000), in the same run, rounds interleaved:

* ``load`` (``savecraft.load``: inflate, CRC, every chunk's structure);
* ``full decode`` (load, then every chunk decoded: the floor of validate);
* ``validate`` (``savecraft.validate``): goal within 2x of the full decode,
  and linear: its per-user cost at the large size within 1.2x of the small;
* ``info`` (the format's summary of a loaded save, plus the load): goal
  within 2x of load.

Then the dump's search for the compression level (``Deflated.settle``) on
a stream written at level 9, next to the search it replaced (recompress the
whole payload at 6, then at 9, comparing at the end) and to the one
compression at level 9 that confirming the level needs anyway.

    PYTHONPATH=src python3 bench/bench_info.py [--users 30000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import zlib

import savecraft
from savecraft.compression import Container, Deflated, compress
from savecraft.formats.tirnanog.save import FORMAT, sample

from timing import best


def measure(users: int, repeat: int) -> dict[str, float]:
    data = savecraft.build(sample.server_save(users=users, attributes=20, items=30))

    def full_decode() -> None:
        for _ in savecraft.load(data).chunks:
            pass

    def info() -> None:
        FORMAT.info(savecraft.load(data))

    times: dict[str, list[float]] = {"load": [], "full decode": [], "validate": [], "info": []}
    for _ in range(repeat):
        times["load"].append(best(lambda: savecraft.load(data), 3))
        times["full decode"].append(best(full_decode, 2))
        times["validate"].append(best(lambda: savecraft.validate(data), 2))
        times["info"].append(best(info, 3))
    return {k: min(v) for k, v in times.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--users", type=int, default=30_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    small, large = 1_000, args.users
    res = {n: measure(n, args.repeat) for n in (small, large)}
    for n, r in res.items():
        print(f"{n:>7,} users: load {r['load'] * 1e3:7.1f} ms, full decode {r['full decode'] * 1e3:7.1f} ms, "
              f"validate {r['validate'] * 1e3:7.1f} ms, info {r['info'] * 1e3:7.1f} ms")
        print(f"{'':15}validate / full decode {r['validate'] / r['full decode']:.2f}x (goal 2x), "
              f"info / load {r['info'] / r['load']:.2f}x (goal 2x)")
    per = {n: r["validate"] / n for n, r in res.items()}
    print(f"validate per user, {large:,} vs {small:,} users: {per[large] / per[small]:.2f}x (goal 1.2x)")

    payload = savecraft.build(sample.server_save(users=5_000, attributes=20, items=30))
    content = zlib.decompress(payload[32:-4])
    other = zlib.compressobj(6, zlib.DEFLATED, 15, 8, zlib.Z_FILTERED)  # another encoder's choices
    streams = {"level 6": compress(content, Container.ZLIB, 6), "level 9": compress(content, Container.ZLIB, 9),
               "another encoder": other.compress(content) + other.flush()}
    print(f"dump's search for the compression level, {len(content) / 1e6:.1f} MB inflated:")
    for name, original in streams.items():
        def settle(original: bytes = original) -> None:
            Deflated.from_stream(original, content, Container.ZLIB).settle(content)

        def old_search(original: bytes = original) -> None:  # the search it replaced
            for level in (6, 9, 1, 2, 3, 4, 5, 7, 8, 0):
                if compress(content, Container.ZLIB, level) == original:
                    return

        t_new, t_old = [], []
        for _ in range(args.repeat):
            t_new.append(best(settle, 1))
            t_old.append(best(old_search, 1))
        print(f"  {name:16s} {min(t_new) * 1e3:7.0f} ms, {min(t_new) / min(t_old):.2f}x the old search "
              f"({min(t_old) * 1e3:.0f} ms)")

if __name__ == "__main__":
    main()
