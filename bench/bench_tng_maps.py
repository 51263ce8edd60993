"""Decoding TirNanoG map assets, next to a bare inflate of the same bytes, in the same run.

Generates several big maps (default: 4 maps of 512 x 512 tiles x 11 layers)
that look like real ones: a ground layer of regions (grass with its random
variants, water, sand), sparse decoration and object layers, a few NPCs and
spawners, and otherwise empty layers. Each map asset is built and deflated as
a game file stores it. Then, interleaved so machine speed drifts hit both
alike, it times for every map:

* ``zlib.decompress`` of the compressed asset (the floor: any reader must inflate);
* the full decode: ``savecraft.compression.inflate`` then ``parse_map`` (header,
  parallaxes, patrol paths, and every RLE layer into a numpy array).

Prints the best of N for each and the ratio, for the compiled packet walk
(``savecraft._native.rle``, built at install time) and for the numpy fallback
used where it could not be built (the walk from packet header to packet
header is serial by nature: each header says where the next one is). The
goal is a ratio within 3x.

    python3 bench/bench_tng_maps.py [--maps 4] [--size 512] [--layers 11] [--repeat 7]
"""

from __future__ import annotations

import argparse
import zlib

import numpy as np

from savecraft.compression import compress, inflate
from savecraft.formats.tirnanog import rle
from savecraft.formats.tirnanog.game.maps import (

    EMPTY_TILE,
    MapAsset,
    Parallax,
    PatrolPath,
    SpriteRef,
    build_map,
    parse_map,
)

from timing import best




def make_map(size: int, layers: int, seed: int, variants: bool = True) -> MapAsset:
    rng = np.random.default_rng(seed)
    tiles = np.full((layers, size, size), EMPTY_TILE, dtype=np.uint16)
    # Ground: coarse regions (blocks of 32 x 32 cells) of grass, water or sand; grass
    # cells pick one of four variants at random, as map editors do.
    blocks = rng.integers(0, 3, (size // 32 + 1, size // 32 + 1))
    region = np.kron(blocks, np.ones((32, 32), dtype=np.int64))[:size, :size]
    grass = rng.integers(0, 4, (size, size)) if variants else np.zeros((size, size), np.int64)
    tiles[0] = np.where(region == 0, grass, np.where(region == 1, 10, 20))
    # Decoration: flowers and stones on 3 % of the cells; objects on 1 %; a few NPCs.
    n = size * size
    for layer, share, lo, hi in ((1, 0.03, 30, 40), (2, 0.01, 40, 60), (3, 0.005, 60, 64)):
        if layer < layers:
            idx = rng.choice(n, int(n * share), replace=False)
            tiles[layer].flat[idx] = rng.integers(lo, hi, len(idx))
    if layers > 6:
        tiles[5].flat[rng.choice(n, 50, replace=False)] = rng.integers(0, 8, 50)
        tiles[6].flat[rng.choice(n, 20, replace=False)] = rng.integers(0, 4, 20)
    return MapAsset(
        title=1, neighbours=[0, 2, 0, 0, 3, 0], daylight_length=600,
        daylight_sprite=SpriteRef(4, 0), music=5,
        parallaxes=[Parallax(True, 10, 50, 0, 0, 100, SpriteRef(4, 1))],
        patrol_paths=[PatrolPath(k, [(k, k), (k + 10, k), (k + 10, k + 10)]) for k in range(8)],
        layers=tiles,
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--maps", type=int, default=4)
    ap.add_argument("--size", type=int, default=512)
    ap.add_argument("--layers", type=int, default=11)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--plain-grass", action="store_true",
                    help="one grass tile instead of four random variants (far fewer packets)")
    args = ap.parse_args()

    assets = []
    for k in range(args.maps):
        raw = build_map(make_map(args.size, args.layers, k, not args.plain_grass))
        assets.append((raw, compress(raw)))
    total_tiles = args.maps * args.layers * args.size * args.size
    print(f"{args.maps} maps of {args.size} x {args.size} x {args.layers} layers "
          f"({total_tiles:,} tiles); assets {sum(len(r) for r, _ in assets):,} bytes inflated, "
          f"{sum(len(z) for _, z in assets):,} deflated")

    def bare() -> None:
        for _, z in assets:
            zlib.decompress(z)

    def decode() -> None:
        for _, z in assets:
            parse_map(inflate(z).data, layers=args.layers, size=args.size)

    for raw, z in assets:  # the decode is right before it is timed
        m = parse_map(inflate(z).data, layers=args.layers, size=args.size)
        assert build_map(m) == raw

    compiled = rle._speedups

    def decode_numpy() -> None:
        rle._speedups = None  # the fallback used where the C extension could not be built
        try:
            decode()
        finally:
            rle._speedups = compiled

    t_bare = t_decode = t_numpy = float("inf")
    for _ in range(args.repeat):  # interleaved rounds
        t_bare = min(t_bare, best(bare, 1))
        t_decode = min(t_decode, best(decode, 1))
        t_numpy = min(t_numpy, best(decode_numpy, 1))
    which = "compiled walk" if compiled is not None else "numpy path: savecraft._native.rle not built or not used"
    print(f"bare zlib inflate     {t_bare * 1000:9.2f} ms")
    print(f"inflate + parse_map   {t_decode * 1000:9.2f} ms   ratio {t_decode / t_bare:5.2f}x "
          f"(goal: within 3x; {which})")
    print(f"  numpy fallback      {t_numpy * 1000:9.2f} ms   ratio {t_numpy / t_bare:5.2f}x "
          "(the packet walk in Python)")
    print(f"tiles per second      {total_tiles / t_decode / 1e6:9.1f} M")


if __name__ == "__main__":
    main()
