"""Dump and validate of a game file as its number of maps grows: is the cost per map constant?

Builds the sample game with 10, 100 and 1,000 maps (64 x 64 tiles x 11 layers
each, a ground layer of a few tile kinds, sparse decoration, an NPC), then,
interleaving the sizes round by round so machine speed drifts hit all alike,
times ``savecraft.to_json(savecraft.parse(data))`` (dump) and
``savecraft.validate(data)`` (validate). The marginal cost per map is
(T(100) - T(10)) / 90 and (T(1000) - T(100)) / 900; the goal (issue 14) is a
ratio of the two within 1.2 (linear in maps). Also prints, for one map, the
RLE encoder's time next to the run-by-run reference it replaced.

    PYTHONPATH=src python3 bench/bench_tng_game_scaling.py [--rounds 3] [--side-log2 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

import savecraft  # noqa: E402
from savecraft.formats.tirnanog import rle  # noqa: E402
from savecraft.formats.tirnanog.game import build  # noqa: E402
from savecraft.formats.tirnanog.game.maps import MapAsset  # noqa: E402
from savecraft.formats.tirnanog.game.sample import sample_game  # noqa: E402
from savecraft.formats.tirnanog.game.sections import MapsSection, StringsSection  # noqa: E402
from savecraft.formats.tirnanog.game.sections.s35_maps import LazyMap, MapEntry  # noqa: E402

SIZES = (10, 100, 1000)


def layers(rng: np.random.Generator, side: int, k: int) -> np.ndarray:
    out = np.full((11, side, side), 0xFFFF, dtype=np.uint16)
    out[0] = rng.integers(0, 3, (side, side)) // 2 * 2  # grass (0) and sand (2) patches
    out[0, side // 2, :] = 3
    out[3] = np.where(rng.random((side, side)) < 0.03, 4, 0xFFFF)
    out[5, 4, 4] = k % 3
    return out


def game_with_maps(count: int, side_log2: int) -> bytes:
    game = sample_game()
    game.header.map_size_log2 = side_log2
    strings = game.section(StringsSection)
    maps = game.section(MapsSection)
    assert strings is not None and maps is not None
    template = maps.maps[0].asset.value
    rng = np.random.default_rng(count)
    names = [strings.add(f"map{k}") for k in range(count)]
    entries = []
    for k in range(count):
        neighbours = [0] * 6
        neighbours[2] = names[(k + 1) % count]
        m = MapAsset(title=template.title, neighbours=neighbours, daylight_length=20,
                     daylight_sprite=template.daylight_sprite, music=template.music,
                     layers=layers(rng, 1 << side_log2, k))
        entries.append(MapEntry(names[k], LazyMap(m)))
    maps.maps = entries
    return build(game)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--side-log2", type=int, default=6)
    args = ap.parse_args()
    files = {n: game_with_maps(n, args.side_log2) for n in SIZES}
    def dump(data: bytes) -> object:
        return savecraft.to_json(savecraft.parse(data))

    ops: dict[str, Callable[[bytes], object]] = {"dump": dump, "validate": savecraft.validate}
    times: dict[tuple[str, int], list[float]] = {}
    for _ in range(args.rounds):
        for op, fn in ops.items():
            for n in SIZES:
                t0 = time.perf_counter()
                fn(files[n])
                times.setdefault((op, n), []).append(time.perf_counter() - t0)
    for op in ops:
        t = {n: min(times[(op, n)]) for n in SIZES}
        small = (t[100] - t[10]) / 90
        large = (t[1000] - t[100]) / 900
        print(f"{op:9} 10 maps {t[10]:6.2f} s, 100 maps {t[100]:6.2f} s, 1000 maps {t[1000]:6.2f} s; "
              f"per map {small * 1e3:6.2f} ms (10-100) vs {large * 1e3:6.2f} ms (100-1000): "
              f"ratio {large / small:.2f}")
    one = layers(np.random.default_rng(0), 1 << args.side_log2, 0)
    ratios = []
    for _ in range(9):
        t0 = time.perf_counter()
        rle._encode_loop(one)
        t1 = time.perf_counter()
        rle.encode(one)
        t2 = time.perf_counter()
        ratios.append((t2 - t1) / (t1 - t0))
    print(f"RLE encode of one map: whole-array / run-by-run = {statistics.median(ratios):.2f} (median)")
    # The dump of the 1,000-map game with each encoder, alternating.
    new, old = [], []
    for _ in range(args.rounds):
        t0 = time.perf_counter()
        dump(files[1000])
        new.append(time.perf_counter() - t0)
        saved, rle.encode = rle.encode, rle._encode_loop
        try:
            t0 = time.perf_counter()
            dump(files[1000])
            old.append(time.perf_counter() - t0)
        finally:
            rle.encode = saved
    print(f"dump of 1000 maps: whole-array encoder / run-by-run = {min(new) / min(old):.2f}")


if __name__ == "__main__":
    main()
