"""The Kaitai Struct parser that bench/bench_angband.py measures against reads what savecraft reads.

A baseline that skipped blocks or misread sizes would make any ratio against
it meaningless; this holds it to savecraft's container walk on every real file.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from savecraft.errors import Report
from savecraft.formats.angband import block
from tests.samples import SAMPLES, real_samples

pytest.importorskip("kaitaistruct")

# The sound block saves: angband-block-more also holds a file cut short and a Sil save
# (another format), which tests/test_repair.py and test_angband_players_files.py cover.
FILES = sorted(p for p in SAMPLES.glob("angband-block*/*.sav")
              if "truncated" not in p.name and not p.name.startswith("sil_"))
GENERATED = Path(__file__).resolve().parents[2] / "bench" / "kaitai" / "angband_block.py"


def _kaitai() -> ModuleType:
    spec = importlib.util.spec_from_file_location("angband_block_kaitai", GENERATED)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@real_samples
@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_the_kaitai_baseline_reads_the_blocks_savecraft_walks(path: Path) -> None:
    data = path.read_bytes()
    parsed = _kaitai().AngbandBlock.from_bytes(data)
    _, found = block.walk(data, Report(strict=True))
    assert [(b.name, b.version, len(b.data), b.checksum) for b in parsed.blocks] == \
        [(f.name, f.version, f.size, sum(data[f.data_start:f.data_start + f.size]) & 0xFFFFFFFF)
         for f in found]
    assert all(sum(b.data) & 0xFFFFFFFF == b.checksum for b in parsed.blocks)
