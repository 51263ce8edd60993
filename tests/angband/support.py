"""Real Angband block files taken apart with struct alone, for tests that splice blocks.

Independent of savecraft's reader on purpose: a test that builds its input
with the code under test proves less. Also the real block saves that several files read, and
the command run as a user runs it (``run_savecraft``, ``info_json``, ``assert_builds_back``).
"""

from __future__ import annotations

import json
import struct
import subprocess
import sys
from pathlib import Path
from typing import Any

from savecraft import api
from savecraft.errors import Report
from savecraft.formats.angband import block
from tests.samples import SAMPLES

# The real block saves of the vanilla-compatible games, and the 4.2 one most tests read.
ALL_REAL = sorted(p for p in SAMPLES.glob("*/*.sav")
                  if p.parent.name in ("angband-block", "angband-block-variants"))
V42 = SAMPLES / "angband-block-variants" / "vanilla-4.2_Aduial.sav"


def blocks_of(data: bytes) -> list[tuple[int, str, int, int, int]]:
    """(start, name, version, size, checksum) of each block, read with struct alone."""
    pos, out = 8, []
    while pos < len(data):
        name = data[pos:pos + 16].split(b"\0")[0].decode()
        version, size, checksum = struct.unpack_from("<III", data, pos + 16)
        out.append((pos, name, version, size, checksum))
        pos += 28 + size + (-size % 4)
    return out


def block_span(data: bytes, name: str) -> tuple[int, int]:
    """(start of the block header, data size) of the named block."""
    for start, found, _, size, _ in blocks_of(data):
        if found == name:
            return start, size
    raise KeyError(name)


def replace_block(data: bytes, name: str, body: bytes) -> bytes:
    """The file with one block's data replaced, its size and checksum recomputed.

    The padding is written as ``x`` bytes, not zeros: a reader must not care.
    """
    start, size = block_span(data, name)
    header = data[start:start + 20] + struct.pack("<II", len(body), sum(body) % 2**32)
    old_end = start + 28 + size + (-size % 4)
    return data[:start] + header + body + b"x" * (-len(body) % 4) + data[old_end:]


def run_savecraft(*args: str) -> subprocess.CompletedProcess[str]:
    """The ``savecraft`` command in a subprocess, as a user runs it (with this tree's code)."""
    return subprocess.run([sys.executable, "-m", "savecraft", *args], capture_output=True, text=True,
                          timeout=120)


def info_json(path: Path) -> dict[str, Any]:
    """``savecraft info --json PATH``, which must succeed."""
    done = run_savecraft("info", "--json", str(path))
    assert done.returncode == 0, done.stderr
    doc: dict[str, Any] = json.loads(done.stdout)
    return doc


def assert_builds_back(path: Path, tmp_path: Path) -> None:
    """``dump`` then ``build``, and ``extract`` then ``build``, each give the file's bytes back,
    and ``extract`` leaves no block raw (a ``.bin`` part)."""
    dumped = run_savecraft("dump", str(path), "-o", str(tmp_path / "save.json"))
    assert dumped.returncode == 0, dumped.stderr
    built = run_savecraft("build", str(tmp_path / "save.json"), "-o", str(tmp_path / "dumped.sav"))
    assert built.returncode == 0, built.stderr
    assert (tmp_path / "dumped.sav").read_bytes() == path.read_bytes()
    folder = tmp_path / "parts"
    extracted = run_savecraft("extract", str(path), "-o", str(folder))
    assert extracted.returncode == 0, extracted.stderr
    assert not list(folder.glob("*.bin"))  # no block left raw
    rebuilt = run_savecraft("build", str(folder), "-o", str(tmp_path / "extracted.sav"))
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert (tmp_path / "extracted.sav").read_bytes() == path.read_bytes()


def assert_read_whole(path: Path, game: str) -> Any:
    """The game-written file reads as ``game`` with every block decoded (each re-encoded and
    compared: ``verify``), in the file's order, with no problem; it builds back byte for byte and
    validates, in the library and from the command line. Returns the decoded save."""
    data = path.read_bytes()
    report = Report()
    save = block.parse(data, report, verify=True)
    assert save.game == game, path
    assert [b for b in save.blocks if isinstance(b, block.RawBlock)] == [], path
    assert [name for _, name, _, _, _ in blocks_of(data)] == [block.block_name(b) for b in save.blocks]
    assert not report.problems, report.problems
    assert api.build(save) == data, path
    assert api.validate(data).problems == [], path
    checked = run_savecraft("validate", str(path))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    return save
