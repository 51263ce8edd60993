"""Parse, full decode and validation of the Vanilla 4.2 sample, next to a bare struct walk.

The baseline is the least any reader must do: walk the block headers with
``struct`` and check each block's checksum with a hand loop over numpy
(``np.frombuffer(...).sum()``, the fast way to add up bytes in Python).
The contenders, timed in the same process on the same bytes, alternating
with the baseline round by round, are reported as the median ratio:

* walk: savecraft's container walk (headers, names, checksums, padding), no block decoded;
* parse: ``angband-block`` parse, which decodes every block of the 4.2 file into the
  model the rest of savecraft uses (every field, eagerly: there are no lazy views to
  materialise later). The 4.2 layouts are ``exact`` (they read only canonical encodings,
  so they write the same bytes back by construction) and a load does not re-encode them;
  the time includes freeing the previous result and the garbage collector's share;
* validate: ``api.validate`` (parse collecting every problem, then the consistency check;
  exact layouts are trusted as in a load: ``block.parse(..., verify=True)`` would
  re-encode them, which only the tests ask for);
* build: writing the decoded model back to bytes;
* Kaitai: the parser Kaitai Struct 0.11 generates from ``bench/kaitai/angband_block.ksy``
  (the container: header, block headers, data, padding; ``compile.sh`` regenerates it),
  alone, and followed by the numpy checksums Kaitai cannot express, which is what
  savecraft's walk does. Needs ``kaitaistruct`` (the ``bench`` extra); skipped without it.

Goals: parse within 10x of the bare walk (issue 13), validate within 1.3x of parse,
parsing at or below Kaitai on the same file (issue 14). The object records and the other repeated records are read and written by
the optional C extension (``savecraft._native.records``); ``SAVECRAFT_PURE=1`` times the pure
Python paths instead.

    python3 bench/bench_angband.py [FILE] [ROUNDS]
    python3 bench/bench_angband.py --each-game [ROUNDS]

``--each-game``: the largest file of each game and version (as ``info`` names it) among the
real samples and the game-written files in ``tests/data/angband-built``, each one's full
decode as the median ratio to the bare walk of the same bytes, alternating round by round
(issue 20's goal: within 10x for every game).
"""

from __future__ import annotations

import gc
import statistics
import struct
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from savecraft import api
from savecraft.errors import Report
from savecraft.formats.angband import block
from savecraft.formats.angband.demo import samples_folder

_HEADER = struct.Struct("<16sIII")


def bare_walk(data: bytes) -> int:
    """Walk the blocks with struct and check each checksum with numpy: the floor."""
    pos, bad = 8, 0
    while pos < len(data):
        _, _, size, checksum = _HEADER.unpack_from(data, pos)
        total = int(np.frombuffer(data, np.uint8, size, pos + 28).sum(dtype=np.uint64)) & 0xFFFFFFFF
        bad += total != checksum
        pos += 28 + size + (-size % 4)
    return bad


def sample() -> Path | None:
    folder = samples_folder()
    if folder is None:
        return None
    path = folder / "angband-block-variants" / "vanilla-4.2_Aduial.sav"
    return path if path.exists() else None


def _time(fn: Callable[[], object], number: int) -> float:
    gc.collect()
    t0 = time.perf_counter()
    for _ in range(number):
        fn()
    return (time.perf_counter() - t0) / number


def kaitai_parser() -> Callable[[bytes], Any] | None:
    """``AngbandBlock.from_bytes`` of the generated Kaitai parser, or None without the runtime."""
    try:
        import kaitaistruct  # noqa: F401
    except ImportError:
        return None
    import importlib.util

    here = Path(__file__).resolve().parent / "kaitai" / "angband_block.py"
    spec = importlib.util.spec_from_file_location("angband_block_kaitai", here)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    parse: Callable[[bytes], Any] = module.AngbandBlock.from_bytes
    return parse


def kaitai_with_checksums(parse: Callable[[bytes], Any], data: bytes) -> int:
    """Kaitai's parse, then each block's checksum added up with numpy: savecraft's walk's work."""
    bad = 0
    for b in parse(data).blocks:
        bad += (int(np.frombuffer(b.data, np.uint8).sum(dtype=np.uint64)) & 0xFFFFFFFF) != b.checksum
    return bad


def largest_of_each_game() -> dict[str, Path]:
    """The largest real or game-written block save of each game and version, by ``game``."""
    folders = [Path(__file__).resolve().parents[1] / "tests" / "data" / "angband-built"]
    samples = samples_folder()
    if samples is not None:
        folders.append(samples)
    best: dict[str, tuple[int, Path]] = {}
    for folder in folders:
        for path in sorted(folder.rglob("*")):
            if not path.is_file() or path.suffix == ".md":
                continue
            data = path.read_bytes()
            try:
                save = block.parse(data, Report(strict=True))
            except Exception:  # another format, or a damaged file: not a decode to time
                continue
            if any(isinstance(b, block.RawBlock) for b in save.blocks):
                continue
            game = save.game or "?"
            if game not in best or len(data) > best[game][0]:
                best[game] = (len(data), path)
    return {game: path for game, (_, path) in sorted(best.items())}


def each_game(rounds: int) -> None:
    print("full decode of the largest file of each game, median ratio to the bare struct walk:")
    for game, path in largest_of_each_game().items():
        data = path.read_bytes()
        ratios = []
        for _ in range(rounds):
            base = _time(lambda: bare_walk(data), 100)
            ratios.append(_time(lambda: block.parse(data, Report(strict=True)), 5) / base)
        print(f"  {game:34s} {path.name:42s} {len(data):8d} bytes {statistics.median(ratios):7.1f}x")


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--each-game":
        each_game(int(sys.argv[2]) if len(sys.argv) > 2 else 5)
        return
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else sample()
    if path is None:
        sys.exit("no 4.2 sample found: give a file, or set SAVECRAFT_SAMPLES")
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 9
    data = path.read_bytes()
    save = block.parse(data, Report(strict=True))
    assert block.build(save) == data and api.validate(data).ok and bare_walk(data) == 0
    raw = sum(isinstance(b, block.RawBlock) for b in save.blocks)
    contenders: dict[str, Callable[[], object]] = {
        "walk": lambda: block.walk(data, Report(strict=True)),
        "parse (full decode)": lambda: block.parse(data, Report(strict=True)),
        "validate": lambda: api.validate(data),
        "build": lambda: block.build(save),
    }
    kaitai = kaitai_parser()
    if kaitai is not None:
        assert kaitai_with_checksums(kaitai, data) == 0
        contenders["Kaitai (container only)"] = lambda: kaitai(data)
        contenders["Kaitai + numpy checksums"] = lambda: kaitai_with_checksums(kaitai, data)
    else:
        print("kaitaistruct is not installed (pip install -e '.[bench]'): no Kaitai figures")
    ratios: dict[str, list[float]] = {k: [] for k in contenders}
    parse_vs_validate: list[float] = []
    base_times = []
    for _ in range(rounds):
        base = _time(lambda: bare_walk(data), 200)
        base_times.append(base)
        got = {}
        for name, fn in contenders.items():
            got[name] = _time(fn, 3)
            ratios[name].append(got[name] / base)
        parse_vs_validate.append(got["validate"] / got["parse (full decode)"])
    print(f"{path.name}: {len(data)} bytes, {len(save.blocks)} blocks, {raw} left raw")
    print(f"  bare struct walk + numpy checksums  {statistics.median(base_times) * 1e6:9.1f} us  (baseline)")
    for name, rs in ratios.items():
        print(f"  {name:35s} median ratio {statistics.median(rs):8.1f}x")
    print(f"  validate / parse                    median ratio {statistics.median(parse_vs_validate):8.2f}x")
    if kaitai is not None:
        for name in ("walk", "parse (full decode)"):
            vs = [a / b for a, b in zip(ratios[name], ratios["Kaitai + numpy checksums"])]
            label = f"{name} / Kaitai + checksums"
            print(f"  {label:35s} median ratio {statistics.median(vs):8.2f}x")


if __name__ == "__main__":
    main()
