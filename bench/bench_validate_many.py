"""Many files: one ``savecraft validate DIR`` over 1,000 files, next to one invocation per file.

The 1,000 files are small saves of two formats (QfG5 and TirNanoG player
saves, each a little different). Running the command 1,000 times would take
minutes, so the per-invocation time is the median of ``SAMPLE`` single-file
runs taken right before and ``SAMPLE`` right after the folder run (so that
both see the same machine), times 1,000. The goal of issue 14: the folder
run under one tenth of the 1,000 invocations.

    PYTHONPATH=src python3 bench/bench_validate_many.py [FILES] [SAMPLE]
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import savecraft
from savecraft.formats.qfg5 import sample as qfg5_sample
from savecraft.formats.tirnanog.save import sample as tng_sample


def timed(argv: list[str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(argv, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0


def write_files(folder: Path, n: int) -> list[Path]:
    models = [savecraft.build(qfg5_sample.qfg5_save(seed=s)) for s in range(5)]
    models += [savecraft.build(tng_sample.player_save(seed=s)) for s in range(5)]
    paths = []
    for i in range(n):
        p = folder / f"save{i:05d}.sav"
        p.write_bytes(models[i % len(models)])
        paths.append(p)
    return paths


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    sample = int(sys.argv[2]) if len(sys.argv) > 2 else 15
    cmd = [sys.executable, "-m", "savecraft", "validate"]
    with tempfile.TemporaryDirectory() as tmp:
        paths = write_files(Path(tmp), n)
        timed(cmd + [str(paths[0])])  # warm up
        singles = [timed(cmd + [str(paths[i % n])]) for i in range(sample)]
        folder = timed(cmd + [tmp])
        singles += [timed(cmd + [str(paths[(i * 7) % n])]) for i in range(sample)]
        per = statistics.median(singles)
        print(f"validate of {n} files in one run: {folder:.2f} s; one run per file: "
              f"{per * 1e3:.0f} ms x {n} = {per * n:.1f} s (median of {2 * sample} runs)")
        print(f"  ratio: {folder / (per * n):.3f} (goal: below 0.1)")


if __name__ == "__main__":
    main()
