"""Each C domain against the pure Python path it replaces: does it still earn its place?

Issue 19's rule: native code stays only where the Python path cannot come within
1.5x of it. For each domain of ``savecraft._native`` a workload that exercises it
is timed in child processes, alternating ``SAVECRAFT_PURE=1`` and the compiled
path round by round (so a change of the machine's speed hits both alike); each
child reports the best of a few repeats, and the bench prints the median of the
per-round ratios pure / compiled:

* records: a full decode (``block.parse``) and a build of the Vanilla 4.2 sample, and of the
  game-written Xygos, FAangband 2 and NarSil 1.4 files (tests/data/angband-built);
* rle: ``parse_map`` of a generated 512 x 512 x 11 map (bench_tng_maps.py's), and
  the 4.2 parse with only Angband's level runs in numpy (toggled in the compiled
  child: a share of the whole parse, which must not lose more than 1.1x);
* bytewise: the Angband container walk (block checksums) and the session XOR of
  10,000 datagrams of 120 bytes.

The whole parse also runs Angband's level runs (rle) and block sums (bytewise), a
small share of its time. Needs the real samples (``SAVECRAFT_SAMPLES``) for the
Angband workloads; they are left out without them.

    PYTHONPATH=src python3 bench/bench_native.py [ROUNDS]
"""

from __future__ import annotations

import gc
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path


def _best(fn: Callable[[], object], number: int, repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        gc.collect()
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - t0) / number)
    return min(times)


def child() -> None:
    """Time every workload in this process (pure or compiled, as the environment says).

    The Angband workloads first, with only what they import (as bench_angband.py runs
    them): every module and object alive makes the collector's passes in a parse longer.
    """
    from savecraft.errors import Report
    from savecraft.formats.angband import block
    from savecraft.formats.angband.demo import samples_folder

    out: dict[str, float] = {}
    folder = samples_folder()
    v42 = folder / "angband-block-variants" / "vanilla-4.2_Aduial.sav" if folder else None
    if v42 is not None and v42.exists():
        data = v42.read_bytes()
        save = block.parse(data, Report(strict=True))
        out["records: 4.2 parse"] = _best(lambda: block.parse(data, Report(strict=True)), 3)
        out["records: 4.2 build"] = _best(lambda: block.build(save), 3)
        out["bytewise: 4.2 walk"] = _best(lambda: block.walk(data, Report(strict=True)), 20)
        from savecraft.formats.angband.layouts import levels

        cover = levels.rle_cover  # the level runs alone: the rest compiled either way
        levels.rle_cover = None
        out["cover off: 4.2 parse"] = _best(lambda: block.parse(data, Report(strict=True)), 3)
        levels.rle_cover = cover
    built = Path(__file__).resolve().parents[1] / "tests" / "data" / "angband-built"
    for game, path in (("Xygos", "xygos-0.0.3/Zoe-alive.sav"), ("FAangband 2", "faangband-2.0.1/Beren.sav"),
                       ("NarSil 1.4", "narsil-1.4.0/Nerdanel.sav")):
        other = (built / path).read_bytes()  # object records of their own, derived programs
        kept = block.parse(other, Report(strict=True))
        out[f"records: {game} parse"] = _best(lambda: block.parse(other, Report(strict=True)), 3)
        out[f"records: {game} build"] = _best(lambda: block.build(kept), 3)
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_tng_maps import make_map

    from savecraft.formats.tirnanog.game.maps import build_map, parse_map
    from savecraft.net.crypto import SessionCipher

    raw = build_map(make_map(512, 11, 0))
    out["rle: parse_map 512x512x11"] = _best(lambda: parse_map(raw, layers=11, size=512), 2)
    cipher, datagram = SessionCipher(bytes(range(256))), bytes(120)
    out["bytewise: XOR 10,000 datagrams"] = _best(lambda: [cipher.apply(datagram) for _ in range(10_000)], 1)
    print(json.dumps(out))


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    runs: dict[str, list[dict[str, float]]] = {"compiled": [], "pure": []}
    for k in range(rounds):
        for mode in (("compiled", "pure") if k % 2 == 0 else ("pure", "compiled")):
            env = {key: v for key, v in os.environ.items() if key != "SAVECRAFT_PURE"}
            if mode == "pure":
                env["SAVECRAFT_PURE"] = "1"
            res = subprocess.run([sys.executable, __file__, "--child"], env=env, capture_output=True,
                                 text=True, check=True, timeout=600)
            runs[mode].append(json.loads(res.stdout.strip().splitlines()[-1]))
    from savecraft import compiled

    print(f"pure / compiled, median of {rounds} alternating rounds (compiled: "
          f"{', '.join(f'{d} {s}' for d, s in compiled.states().items())})")
    for name in runs["compiled"][0]:
        if name.startswith("cover off"):
            continue
        ratios = [p[name] / c[name] for c, p in zip(runs["compiled"], runs["pure"])]
        c_ms = statistics.median(r[name] for r in runs["compiled"]) * 1e3
        verdict = "keeps its place" if statistics.median(ratios) >= 1.5 else "within 1.5x: the C code may go"
        print(f"  {name:32s} compiled {c_ms:8.3f} ms  pure/compiled {statistics.median(ratios):5.2f}x  "
              f"({verdict})")
    if "cover off: 4.2 parse" in runs["compiled"][0]:
        ratios = [c["cover off: 4.2 parse"] / c["records: 4.2 parse"] for c in runs["compiled"]]
        print(f"  {'rle: 4.2 parse, level runs alone':32s} (numpy's cumsum for rle_cover, all else compiled) "
              f"{statistics.median(ratios):5.2f}x of the parse")


if __name__ == "__main__":
    if sys.argv[1:] == ["--child"]:
        child()
    else:
        main()
