"""Opening a ~1 GB game (header and section table) next to a bare zlib inflate of its section block.

A generated game grows to the requested size with large movie assets (the
assets a real game is big with), plus a few big maps, and is written to a
temporary folder (removed afterwards; free space is checked first). In the
same run the bench times:

* ``open_game(path)``: mmap, header, inflate the section block, decode every
  section (assets are not read), against ``zlib.decompress`` of the very same
  compressed block - the least any reader must do to see the section table;
* the same open of the small sample game, to show the cost does not grow with
  the file;
* reading and inflating every map asset through the game (``map_asset_bytes``)
  against ``zlib.decompress`` of the same stored bytes.

The goal is an open under 50 ms whatever the file's size. Best of several
repeats; ratios are printed.

    python3 bench/bench_tng_open.py [SIZE_MB]   (default 1024)
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
import zlib
from pathlib import Path

import numpy as np

from savecraft import api
from savecraft.formats.tirnanog.game import open_game
from savecraft.formats.tirnanog.game.assets import TheoraAsset
from savecraft.formats.tirnanog.game.sample import build_sample_game, sample_game, theora
from savecraft.formats.tirnanog.game.sections import MapsSection, MoviesSection
from savecraft.formats.tirnanog.game.sections.s05_movies import Movie
from savecraft.formats.tirnanog.game.sections.s35_maps import LazyMap, MapEntry

from timing import best


CHUNK_MB = 64




def child_rss(code: str) -> int:
    """Peak resident memory (MiB) of a fresh Python running ``code``."""
    import subprocess
    # VmHWM, not ru_maxrss: the latter carries the parent's peak over fork and exec
    probe = code + ("\nprint([l.split()[1] for l in open('/proc/self/status') "
                    "if l.startswith('VmHWM')][0])")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return int(out.stdout.split()[-1]) // 1024


def make_game(size_mb: int) -> bytes:
    game = sample_game()
    movies = game.require(MoviesSection)
    rng = np.random.default_rng(1)
    for k in range(max(1, size_mb // CHUNK_MB)):
        name = game.strings.add(f"movie{k}")
        body = rng.integers(0, 256, CHUNK_MB << 20, dtype=np.uint8).tobytes()
        movies.entries.append(Movie(name, TheoraAsset(theora(100 + k) + body)))
    maps = game.require(MapsSection)
    template = maps.maps[0].asset.value
    game.header.map_size_log2 = 9  # 512 x 512 maps
    for m in maps.maps:  # the sample's own maps grow to the new size too, their tiles repeated
        small = m.asset.value.layers  # (so the studio's first map shows its picture, not an empty one)
        reps = (1, -(-512 // small.shape[1]), -(-512 // small.shape[2]))
        m.asset.value.layers = np.ascontiguousarray(np.tile(small, reps)[:, :512, :512])
        m.asset.value.rle_stream = None
    for k in range(4):
        layers = np.full((11, 512, 512), 0xFFFF, dtype=np.uint16)
        layers[0] = rng.integers(0, 4, (512, 512), dtype=np.uint16)
        layers[3][rng.random((512, 512)) < 0.05] = 4
        m = type(template)(title=template.title, neighbours=list(template.neighbours), music=template.music,
                           layers=layers)
        maps.maps.append(MapEntry(game.strings.add(f"bigmap{k}"), LazyMap(m)))
    return api.build(game)


def main() -> int:
    size_mb = int(sys.argv[1]) if len(sys.argv) > 1 else 1024
    folder = Path(tempfile.mkdtemp(prefix="bench-tng-"))
    try:
        free = shutil.disk_usage(folder).free
        if free < (size_mb + 512) << 20:
            print(f"not enough free space in {folder} ({free >> 20} MiB) for a {size_mb} MiB game")
            return 1
        t = time.perf_counter()
        data = make_game(size_mb)
        path = folder / "big.tng"
        path.write_bytes(data)
        made = time.perf_counter() - t
        size = len(data)
        n = int.from_bytes(data[64:68], "little")
        block = data[68 : 68 + n - 4]
        del data
        print(f"generated {size / 2**20:.0f} MiB game in {made:.1f} s "
              f"(section block {n} bytes compressed)")

        def opened() -> None:
            with open_game(path):
                pass

        t_open = best(opened)
        t_inflate = best(lambda: zlib.decompress(block))
        small = build_sample_game()
        small_n = int.from_bytes(small[64:68], "little")
        small_block = small[68 : 68 + small_n - 4]
        t_small = best(lambda: open_game(small))
        t_small_inflate = best(lambda: zlib.decompress(small_block))
        print(f"open {size / 2**20:.0f} MiB game: {t_open * 1e3:8.2f} ms   "
              f"inflate its section block: {t_inflate * 1e3:8.3f} ms   ratio {t_open / t_inflate:6.1f}x")
        print(f"open {len(small) / 1024:.0f} KiB sample:  {t_small * 1e3:8.2f} ms   "
              f"inflate its section block: {t_small_inflate * 1e3:8.3f} ms   ratio {t_small / t_small_inflate:6.1f}x")
        print(f"big / small open time: {t_open / t_small:.2f}x for a {size / len(small):.0f}x bigger file")
        print(f"goal: open under 50 ms: {'met' if t_open < 0.050 else 'NOT met'}")

        rss_open = child_rss(f"from savecraft.formats.tirnanog.game import open_game\ng = open_game({str(path)!r})")
        rss_read = child_rss(f"data = open({str(path)!r}, 'rb').read()")
        rss_none = child_rss("import savecraft.formats.tirnanog.game")
        print(f"peak memory of a fresh process: import only {rss_none} MiB, open_game {rss_open} MiB, "
              f"reading the file {rss_read} MiB")

        with open_game(path) as game:
            entries = game.require(MapsSection).maps
            stored = [e.asset.stored() for e in entries]
            t_maps = best(lambda: [game.map_asset_bytes(i) for i in range(len(entries))], 3)
            t_zmaps = best(lambda: [zlib.decompress(s) for s in stored], 3)
            print(f"read + inflate {len(entries)} map assets: {t_maps * 1e3:8.2f} ms   "
                  f"bare inflate: {t_zmaps * 1e3:8.2f} ms   ratio {t_maps / t_zmaps:6.2f}x")

            def decode_all() -> None:
                for e in entries:
                    fresh = LazyMap.lazy(game.source, e.asset._ctx, e.asset.hint or 0,  # type: ignore[arg-type]
                                         e.asset.file_offset, e.asset.length, e.asset.path)
                    fresh.value

            t_decode = best(decode_all, 3)
            print(f"decode {len(entries)} maps to numpy layers: {t_decode * 1e3:8.2f} ms   "
                  f"bare inflate: {t_zmaps * 1e3:8.2f} ms   ratio {t_decode / t_zmaps:6.2f}x")
        return 0
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    raise SystemExit(main())
