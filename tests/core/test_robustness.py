"""Every registered format, fed mutated and truncated copies of its own samples.

Whatever the bytes, parse either returns a model or raises FormatError, and
validate returns problems; nothing else escapes (no IndexError, no
struct.error, no hang). The samples come from each format's demo step, so a
format that registers later is covered without a change here.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import savecraft
from savecraft.commands.demo import _steps
from savecraft.errors import FormatError

ROUNDS = 60


@pytest.fixture(scope="module")
def samples(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    folder = tmp_path_factory.mktemp("samples")
    paths: list[Path] = []
    for step in _steps():
        if step.__module__.startswith("savecraft.net"):
            continue  # runs a server; its output is a tirnanog-save, covered already
        paths.extend(step(folder))
    return paths


def _mutations(data: bytes, rng: random.Random) -> list[bytes]:
    out = []
    for _ in range(ROUNDS):
        b = bytearray(data)
        kind = rng.randrange(4)
        if kind == 0:
            for _ in range(rng.randrange(1, 8)):
                b[rng.randrange(len(b))] = rng.randrange(256)
        elif kind == 1:
            del b[rng.randrange(len(b)):]
        elif kind == 2:
            at = rng.randrange(len(b))
            b[at:at] = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 9)))
        else:
            # Make a 32-bit little-endian field huge, wherever it falls.
            at = rng.randrange(max(1, len(b) - 4))
            b[at:at + 4] = rng.choice([b"\xff\xff\xff\x7f", b"\xff\xff\xff\xff", b"\x00\x00\x00\x80"])
        out.append(bytes(b))
    return out


def test_mutated_samples_raise_only_format_errors(samples: list[Path]) -> None:
    assert samples, "no format has a demo step"
    rng = random.Random(2026)
    for path in samples:
        data = path.read_bytes()
        fmt = savecraft.detect(data).name
        for bad in _mutations(data, rng):
            try:
                savecraft.parse(bad, fmt)
            except FormatError:
                pass
            result = savecraft.validate(bad, fmt)
            assert isinstance(result.problems, list), path.name
