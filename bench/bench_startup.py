"""Start-up: ``savecraft validate`` of one small file, next to a bare ``python -c pass``.

Both are fresh processes, run alternately (pass, validate, pass, validate...)
so that a change of the machine's speed hits both alike; the ratio quoted is
the median of the per-pair ratios. One small file of each format family is
tried (written by the samples, so the bench runs anywhere). The goal of
issue 14: within 4x of ``python -c pass``.

The processes may keep compiled bytecode (``.pyc``), as an installed package
does (pip compiles it at install time): a ``PYTHONDONTWRITEBYTECODE`` in the
environment would make every run compile each imported module from source,
which measures the compiler, not savecraft: it is removed for the runs (the
warm-up run writes the bytecode).

    PYTHONPATH=src python3 bench/bench_startup.py [ROUNDS]
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import savecraft
from savecraft.formats.angband import sample as angband_sample
from savecraft.formats.qfg5 import sample as qfg5_sample
from savecraft.formats.tirnanog.save import sample as tng_sample


ENV = dict(os.environ)


def run_once(argv: list[str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(argv, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
    return time.perf_counter() - t0


def samples(folder: Path) -> dict[str, Path]:
    files = {
        "tirnanog-save (player)": (folder / "player.sav", tng_sample.player_save()),
        "qfg5-save": (folder / "SAVE001.sav", qfg5_sample.qfg5_save()),
        "angband-modular": (folder / "modular.sav", angband_sample.modular_save()),
    }
    out = {}
    for name, (path, model) in files.items():
        savecraft.save(model, path)
        out[f"{name}, {path.stat().st_size} bytes"] = path
    here = Path(__file__).resolve()
    for real in [Path(os.environ.get("SAVECRAFT_SAMPLES", "/nonexistent"))] + \
            [d / "shared" / "samples" for d in here.parents]:
        found = [real / "angband-block" / "ponyband_PLAYER.sav",
                 real / "angband-block-variants" / "vanilla-4.2_Aduial.sav",
                 real / "angband-block-variants" / "pwmangband-1.3.0b1_Archy.sav"]
        for block in found:  # one real file of each variant id: FAAN, VNLA, PWMG
            if block.is_file():
                out[f"angband-block (real {block.stem}), {block.stat().st_size} bytes"] = block
        if any(b.is_file() for b in found):
            break
    return out


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 15
    ENV.pop("PYTHONDONTWRITEBYTECODE", None)
    base = [sys.executable, "-c", "pass"]
    with tempfile.TemporaryDirectory() as tmp:
        files = samples(Path(tmp))
        print(f"savecraft validate FILE vs python -c pass, {rounds} alternating pairs, median ratio")
        for name, path in files.items():
            cmd = [sys.executable, "-m", "savecraft", "validate", str(path)]
            run_once(cmd)  # warm the page cache and the .pyc files
            ratios, bare, ours = [], [], []
            for _ in range(rounds):
                b = run_once(base)
                o = run_once(cmd)
                bare.append(b)
                ours.append(o)
                ratios.append(o / b)
            print(f"  {name:42s} {statistics.median(ours) * 1e3:6.1f} ms vs "
                  f"{statistics.median(bare) * 1e3:5.1f} ms: {statistics.median(ratios):.2f}x")


if __name__ == "__main__":
    main()
