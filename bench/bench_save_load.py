"""Loading a big server save, next to a bare inflate of its payload, in the same run.

Builds a TirNanoG server save with 10,000 users (20 attributes and 30
inventory items each), then times, interleaved so machine speed drifts hit
both alike:

* ``zlib.decompress`` of the save's compressed payload (the floor: any
  loader must at least inflate);
* ``savecraft.load`` of the whole file (magic, inflate, CRC, every chunk's
  size and every entity block's counts checked; chunks decoded on first use);
* a full decode of every user (what touching every player costs);
* ``savecraft.build`` of the unchanged model (original compressed bytes reused).

Prints the best of N for each and the ratios to the bare inflate. The goal
for ``load`` is within 4x.

    python3 bench/bench_save_load.py [--users 10000] [--repeat 7]
"""

from __future__ import annotations

import argparse
import zlib

import savecraft
from savecraft.formats.tirnanog.save import codec, sample

from timing import best





def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--users", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()

    model = sample.server_save(users=args.users, attributes=20, items=30)
    data = savecraft.build(model)
    payload = data[32:-4]  # no PRVW in a server save
    inflated = zlib.decompress(payload)
    print(f"save: {len(data):,} bytes, payload inflates to {len(inflated):,} bytes, "
          f"{args.users:,} users x (20 attributes, 30 items)")

    def full_decode() -> None:
        m = savecraft.load(data)
        for c in m.chunks:
            pass

    loaded = savecraft.load(data)
    results: dict[str, list[float]] = {"inflate": [], "load": [], "load+decode all": [], "build": []}
    for _ in range(3):  # interleave rounds so a slow minute hits every contender
        results["inflate"].append(best(lambda: zlib.decompress(payload), args.repeat))
        results["load"].append(best(lambda: savecraft.load(data), args.repeat))
        results["load+decode all"].append(best(full_decode, max(2, args.repeat // 3)))
        results["build"].append(best(lambda: savecraft.build(loaded), args.repeat))
    base = min(results["inflate"])
    for name, ts in results.items():
        t = min(ts)
        print(f"{name:>16}: {t * 1000:8.1f} ms   {t / base:5.2f}x bare inflate")
    assert savecraft.build(loaded) == data, "unchanged save must rebuild byte for byte"
    assert codec.payload_bytes(loaded) == inflated


if __name__ == "__main__":
    main()
