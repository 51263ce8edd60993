"""Start-up: ``savecraft validate`` of one small file, next to a bare ``python -c pass``.

Both are fresh processes, run alternately (pass, validate, pass, validate...)
so that a change of the machine's speed hits both alike; the ratio quoted is
the median of the per-pair ratios. One small file of each format family is
tried (written by the samples, so the bench runs anywhere), and ``--help``
(which imports every command module). The goal of issues 14 and 19: within
4x of ``python -c pass``.

With ``--old SRC`` (another checkout's ``src``, e.g. the main branch's), each
round runs pass, the old tree's command and this one's, so that both are
measured in one run under the same load, and both ratios are printed.

The processes may keep compiled bytecode (``.pyc``), as an installed package
does (pip compiles it at install time): a ``PYTHONDONTWRITEBYTECODE`` in the
environment would make every run compile each imported module from source,
which measures the compiler, not savecraft: it is removed for the runs (the
warm-up run writes the bytecode).

    PYTHONPATH=src python3 bench/bench_startup.py [ROUNDS] [--old ../main/src]
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


def run_once(argv: list[str], src: str | None = None) -> float:
    env = ENV if src is None else {**ENV, "PYTHONPATH": src}
    t0 = time.perf_counter()
    subprocess.run(argv, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
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
    args = sys.argv[1:]
    old = None
    if "--old" in args:
        i = args.index("--old")
        old = str(Path(args[i + 1]).resolve())
        del args[i:i + 2]
    rounds = int(args[0]) if args else 15
    ENV.pop("PYTHONDONTWRITEBYTECODE", None)
    new = str(Path(savecraft.__file__).resolve().parents[1])
    base = [sys.executable, "-c", "pass"]
    with tempfile.TemporaryDirectory() as tmp:
        files = samples(Path(tmp))
        print(f"savecraft validate FILE vs python -c pass, {rounds} alternating rounds, median ratio"
              + (f" (old: {old})" if old else ""))
        commands = {name: ["validate", str(path)] for name, path in files.items()}
        commands["--help"] = ["--help"]
        for name, argv in commands.items():
            cmd = [sys.executable, "-m", "savecraft", *argv]
            trees = ([("old", old)] if old else []) + [("new" if old else "", new)]
            for _, src in trees:
                run_once(cmd, src)  # warm the page cache and the .pyc files
            bare: list[float] = []
            ours: dict[str, list[float]] = {label: [] for label, _ in trees}
            ratios: dict[str, list[float]] = {label: [] for label, _ in trees}
            for _ in range(rounds):
                b = run_once(base)
                bare.append(b)
                for label, src in trees:
                    o = run_once(cmd, src)
                    ours[label].append(o)
                    ratios[label].append(o / b)
            shown = "; ".join(f"{label + ' ' if label else ''}{statistics.median(ours[label]) * 1e3:6.1f} ms "
                              f"{statistics.median(ratios[label]):.2f}x" for label, _ in trees)
            print(f"  {name:42s} {shown} (pass {statistics.median(bare) * 1e3:5.1f} ms)")


if __name__ == "__main__":
    main()
