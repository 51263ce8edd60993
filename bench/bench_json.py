"""Dump to JSON and build from JSON of big server saves, as ratios to ``load`` in the same run.

For each size, a TirNanoG server save with that many users (20 attributes
and 30 items each) is timed, interleaved round by round:

* ``load``: ``savecraft.load`` of the file's bytes (the baseline);
* ``dump``: load, then ``jsonmap.dumps`` (what ``savecraft dump`` does);
* ``build``: ``jsonmap.loads`` of that JSON, then ``savecraft.build``
  (what ``savecraft build`` does: the strict two-pass decoder, then the binary).

It prints each as a ratio to ``load``, the cost per user as a ratio to the
smallest size's (linearity: 1.0 is perfectly linear), and the peak memory
of each step, measured in a child process, as a ratio to the JSON's size.
Goals (issue 14): dump and build each within 10x of load, linear, peak memory
of build within 3x of the JSON's size.

    python3 bench/bench_json.py [--users 1000,10000,50000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import savecraft
from savecraft import jsonmap
from savecraft.formats.tirnanog.save import sample

from timing import best

# VmHWM, not ru_maxrss: a child started from a big parent inherits the parent's ru_maxrss.
_PEAK = """
import sys
import savecraft
from savecraft import jsonmap

def hwm():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1])

step, path = sys.argv[1], sys.argv[2]
from savecraft import registry
registry.get("tirnanog-save")  # the plugin's imports are not the step's memory
before = hwm()
if step == "load":
    m = savecraft.load(open(path, "rb").read())
elif step == "dump":
    text = jsonmap.dumps(savecraft.load(open(path, "rb").read()))
else:  # as savecraft build does it: the text is let go once parsed
    out = savecraft.build(jsonmap.from_json(jsonmap.parse_text(open(path, "rb").read())))
print((hwm() - before) * 1024)
"""


def peak(step: str, path: Path) -> int:
    r = subprocess.run([sys.executable, "-c", _PEAK, step, str(path)], capture_output=True,
                       text=True, check=True)
    return int(r.stdout)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--users", default="1000,10000,50000")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    sizes = [int(x) for x in args.users.split(",")]
    per_user: dict[str, list[float]] = {"load": [], "dump": [], "build": []}
    folder = Path(tempfile.mkdtemp(prefix="bench-json-"))
    for n in sizes:
        data = savecraft.build(sample.server_save(users=n, attributes=20, items=30))
        text = jsonmap.dumps(savecraft.load(data))
        assert savecraft.build(jsonmap.loads(text)) == data, "dump + build must give the same bytes"
        ratios: dict[str, list[float]] = {"dump": [], "build": []}
        times: dict[str, list[float]] = {"load": [], "dump": [], "build": []}
        for _ in range(args.repeat):  # alternate, so a slow minute hits every step
            t_load = best(lambda: savecraft.load(data), 3)
            t_dump = best(lambda: jsonmap.dumps(savecraft.load(data)), 1)
            t_build = best(lambda: savecraft.build(jsonmap.loads(text)), 1)
            times["load"].append(t_load)
            times["dump"].append(t_dump)
            times["build"].append(t_build)
            ratios["dump"].append(t_dump / t_load)
            ratios["build"].append(t_build / t_load)
        src = folder / f"{n}.sav"
        src.write_bytes(data)
        dump = folder / f"{n}.json"
        dump.write_bytes(text)
        mem = {"load": peak("load", src), "dump": peak("dump", src), "build": peak("build", dump)}
        print(f"{n:>7,} users: file {len(data) / 1e6:6.1f} MB, JSON {len(text) / 1e6:6.1f} MB")
        for step in ("load", "dump", "build"):
            t = min(times[step])
            per_user[step].append(t / n)
            ratio = "" if step == "load" else f"  {statistics.median(ratios[step]):5.1f}x load"
            print(f"    {step:>5}: {t * 1000:9.1f} ms{ratio:>14}   peak +{mem[step] / 2**20:7.1f} MiB"
                  f" = {mem[step] / len(text):4.2f}x the JSON")
        os.unlink(src)
        os.unlink(dump)
    if len(sizes) > 1:
        print("cost per user, as a ratio to the smallest size's (1.00 = linear):")
        for step, costs in per_user.items():
            print(f"    {step:>5}: " + "  ".join(f"{c / costs[0]:4.2f}" for c in costs))


if __name__ == "__main__":
    main()
