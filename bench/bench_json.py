"""Dump to JSON and build from JSON of big server saves, as ratios to ``load`` in the same run.

For each size, a TirNanoG server save with that many users (20 attributes
and 30 items each) is timed, interleaved round by round:

* ``load``: ``savecraft.load`` of the file's bytes (the baseline);
* ``dump``: load, then ``jsonmap.dumps`` (what ``savecraft dump`` does); the
  compression level is found from a prefix of the stream;
* ``dump, one orjson call``: the baseline of the two above, the same
  document written by one ``orjson.dumps`` (what dumps did before issue 21,
  when an allocation failing inside that call killed the process);
* ``dump, pieces to a file``: the same written piece by piece as it is made
  (what ``savecraft dump`` does into standard output or a FIFO: the text is
  never whole in memory);
* ``dump, level confirmed``: the same with ``confirm=True`` (the whole stream
  recompressed at the level found, the old behaviour);
* ``dump, no level search``: the same save with nothing to find (its
  compression hint already a level): what the search itself costs;
* ``build``: ``jsonmap.loads`` of that JSON, then ``savecraft.build`` (what
  ``savecraft build`` does: parsed piece by piece while strictly decoded,
  then the binary; the deflate at the save's level is part of it, run in a
  thread beside the decoding since issue 19: on an idle second core build
  costs about the deflate alone, on a busy machine up to the sum of both);
* ``compress``: zlib at that level of the save's inflated chunk data alone,
  the part of ``build`` no decoder can save (the floor of ``build``).

It prints the median ratio to ``load`` of each, the cost per user as a ratio
to the smallest size's (linearity: 1.0 is perfectly linear), and the peak
memory of each step as a ratio to the JSON's size. Peak memory is VmHWM
(the resident high-water mark, so it counts what the C libraries allocate
too) of a fresh child process, minus its VmHWM before the step; the text
read is part of build's peak. Goals (issue 14): dump and build each within
10x of load, linear, peak memory of build within 3x of the JSON's size.

``--maps N`` gives the save N changed maps (one by default): a map is not compressed
beside the decoding (its encoder imports numpy, which would land on build's peak), so
build compresses the maps, written after the players, once the dump is decoded.

    python3 bench/bench_json.py [--users 1000,10000,100000] [--repeat 3] [--maps 1]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import zlib
from pathlib import Path
from typing import Any

import savecraft
from savecraft import jsonmap
from savecraft.compression import Deflated, digest
from savecraft.formats.tirnanog.save import codec, sample

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
else:  # as savecraft build does it: the text read, then jsonmap.loads
    text = open(path, "rb").read()
    model = jsonmap.loads(text)
    del text
    out = savecraft.build(model)
print((hwm() - before) * 1024)
"""


def peak(step: str, path: Path) -> int:
    r = subprocess.run([sys.executable, "-c", _PEAK, step, str(path)], capture_output=True,
                       text=True, check=True)
    return int(r.stdout)


def _one_call(model: Any) -> bytes:
    """The text as dumps made it before issue 21: the whole document in one orjson call
    (the baseline of the walked dump: the same encoders, the same text, one C call)."""
    import orjson
    from savecraft import registry

    state = jsonmap._state
    state.dumping, state.confirm = True, False
    try:
        doc = {"format": registry.for_model(model).name, "savecraft": jsonmap.SCHEMA_VERSION,
               "data": jsonmap._dump_encoder(type(model))(model)}
        return orjson.dumps(doc, default=jsonmap._whole, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE)
    finally:
        state.dumping = False


def _pieces_to(path: Path, model: Any) -> None:
    """What ``savecraft dump -o -`` does since issue 21: each piece written as it is made."""
    with open(path, "wb") as fh:
        for piece in jsonmap.dump_pieces(model):
            fh.write(piece)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--users", default="1000,10000,100000")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--maps", type=int, default=1,
                    help="changed maps in the save (64 x 64 tiles each, after the players)")
    args = ap.parse_args()
    sizes = [int(x) for x in args.users.split(",")]
    steps = ("load", "dump", "dump, one orjson call", "dump, pieces to a file", "dump, level confirmed",
             "dump, no level search", "build", "compress")
    per_user: dict[str, list[float]] = {step: [] for step in steps}
    folder = Path(tempfile.mkdtemp(prefix="bench-json-"))
    for n in sizes:
        data = savecraft.build(sample.server_save(users=n, attributes=20, items=30, maps=args.maps))
        text = jsonmap.dumps(savecraft.load(data))
        assert savecraft.build(jsonmap.loads(text)) == data, "dump + build must give the same bytes"
        assert jsonmap.dumps(savecraft.load(data), confirm=True) == text, "same level either way"
        assert _one_call(savecraft.load(data)) == text, "the walked dump writes one call's text"
        content = codec.payload_bytes(savecraft.load(data))

        def settled() -> Any:
            m = savecraft.load(data)
            m.encoding.deflate = Deflated(level=6, content_digest=digest(content))
            return m

        sink = folder / "sink.json"
        big = n >= 50_000
        times: dict[str, list[float]] = {step: [] for step in steps}
        for _ in range(args.repeat):  # alternate, so a slow minute hits every step
            times["load"].append(best(lambda: savecraft.load(data), 1 if big else 3))
            times["dump"].append(best(lambda: jsonmap.dumps(savecraft.load(data)), 1))
            times["dump, one orjson call"].append(best(lambda: _one_call(savecraft.load(data)), 1))
            times["dump, pieces to a file"].append(best(lambda: _pieces_to(sink, savecraft.load(data)), 1))
            times["dump, level confirmed"].append(
                best(lambda: jsonmap.dumps(savecraft.load(data), confirm=True), 1))
            times["dump, no level search"].append(best(lambda: jsonmap.dumps(settled()), 1))
            times["build"].append(best(lambda: savecraft.build(jsonmap.loads(text)), 1))
            times["compress"].append(best(lambda: zlib.compress(content, 6), 1))
        src = folder / f"{n}.sav"
        src.write_bytes(data)
        dump = folder / f"{n}.json"
        dump.write_bytes(text)
        mem = {"load": peak("load", src), "dump": peak("dump", src), "build": peak("build", dump)}
        print(f"{n:>7,} users, {args.maps} changed maps: file {len(data) / 1e6:6.1f} MB, "
              f"JSON {len(text) / 1e6:6.1f} MB")
        for step in steps:
            t = min(times[step])
            per_user[step].append(t / n)
            ratios = [a / b for a, b in zip(times[step], times["load"])]
            ratio = "" if step == "load" else f"  {statistics.median(ratios):5.1f}x load"
            memory = f"   peak +{mem[step] / 2**20:7.1f} MiB = {mem[step] / len(text):4.2f}x the JSON" \
                if step in mem else ""
            print(f"    {step:>21}: {t * 1000:9.1f} ms{ratio:>14}{memory}")
        for step in ("dump", "dump, pieces to a file"):
            walked = [a / b for a, b in zip(times[step], times["dump, one orjson call"])]
            print(f"    {step} / one orjson call: {statistics.median(walked):.2f}x (median of the rounds; "
                  "goal at most 1.1x)")
        os.unlink(src)
        os.unlink(dump)
        del text
    if len(sizes) > 1:
        print("cost per user, as a ratio to the smallest size's (1.00 = linear):")
        for step, costs in per_user.items():
            print(f"    {step:>21}: " + "  ".join(f"{c / costs[0]:4.2f}" for c in costs))


if __name__ == "__main__":
    main()
