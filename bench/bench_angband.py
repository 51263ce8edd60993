"""Parse and full validation of the largest Angband sample save, next to a bare pass over its bytes.

The baseline is the least any reader must do: walk the blocks and sum() each
block's data bytes (the checksum) in plain Python. The ratio says what the
rest of the work (headers, names, padding, the description, a model, and for
validation the consistency check that rebuilds the file) costs on top of that.
Both run in the same process on the same bytes; the best of several repeats
is reported.

    python3 bench/bench_angband.py [FILE]
"""

from __future__ import annotations

import struct
import sys
from pathlib import Path

from savecraft import api
from savecraft.errors import Report
from savecraft.formats.angband import block, modular, sample
from savecraft.formats.angband.demo import samples_folder

from timing import best



def bare_pass(data: bytes) -> int:
    """Walk the blocks of a block save and sum() each block's data: the floor."""
    pos, total = 8, 0
    while pos < len(data):
        size = struct.unpack_from("<I", data, pos + 20)[0]
        total += sum(data[pos + 28:pos + 28 + size])
        pos += 28 + size + (-size % 4)
    return total


def largest() -> Path | None:
    folder = samples_folder()
    if folder is None:
        return None
    files = sorted((folder / "angband-block").glob("*.sav"), key=lambda p: p.stat().st_size)
    return files[-1] if files else None




def main() -> None:
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else largest()
    data = path.read_bytes() if path else block.build(sample.block_save())
    name = path.name if path else "generated block save"
    assert api.build(api.parse(data)) == data
    assert api.validate(data).ok

    n = 50
    t_bare = best(lambda: bare_pass(data), number=n)
    t_parse = best(lambda: block.parse(data, Report(strict=True)), number=n)
    t_validate = best(lambda: api.validate(data), number=n)
    t_build = best(lambda: block.build(block.parse(data, Report(strict=True))), number=n)

    mod = modular.build(sample.modular_save())
    t_mod = best(lambda: modular.parse(mod, Report(strict=True)), number=n)

    print(f"{name}: {len(data)} bytes, {len(block.parse(data, Report()).blocks)} blocks")
    print(f"  bare pass (sum() of each block) {t_bare * 1e3:8.3f} ms")
    print(f"  parse                           {t_parse * 1e3:8.3f} ms  ratio {t_parse / t_bare:5.2f}")
    print(f"  full validation                 {t_validate * 1e3:8.3f} ms  ratio {t_validate / t_bare:5.2f}")
    print(f"  parse + rebuild                 {t_build * 1e3:8.3f} ms  ratio {t_build / t_bare:5.2f}")
    print(f"generated modular v2 save: {len(mod)} bytes, parse {t_mod * 1e3:.3f} ms")


if __name__ == "__main__":
    main()
