"""FAangband 1's artifacts block (Ponyband, FAangband 1.2 to 1.4): each random artifact is the
record ``rd_artifacts`` reads, field by field (the activation's time and charge dice, then a
byte per resist, stat, other bonus, slay and brand, each run sized by the object memory
block), and that description compiles to a C record program, so a file's random artifacts
are read in one call. The C and the generated Python readers give the same model, or fail
alike, on the game-written files and on damaged copies of their artifacts block.
"""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path
from typing import Any

import pytest

from savecraft import api
from savecraft.binary import Reader
from savecraft.errors import FormatError, Report
from savecraft.formats.angband import block
from savecraft.formats.angband.decoding import file_context
from savecraft.formats.angband.layouts import faangband, layouts_for
from savecraft.layout import Field, List, native
from savecraft.layout.context import LayoutError

BUILT = next(p / "data" / "angband-built" for p in Path(__file__).resolve().parents
             if (p / "data" / "angband-built").is_dir())
FILES = [BUILT / "faangband-1.4.5" / "Tuor.sav", BUILT / "faangband-1.3.3" / "Idril.sav",
         BUILT / "faangband-1.2.1" / "Luthien.sav", BUILT / "ponyband-59f6ca5" / "Mint.sav"]
needs_c = pytest.mark.skipif(not native._AVAILABLE, reason="the C extension is not built")
_SIZES = ("max_p_res", "a_max", "max_p_bonus", "max_p_slay", "max_p_brand")
_RUNS = ("percent_res", "bonus_stat", "bonus_other", "multiple_slay", "multiple_brand")


def _random_artifact() -> Any:
    field = next(m for m in faangband.ARTIFACTS.members if isinstance(m, Field) and m.name == "random")
    assert isinstance(field.type, List)
    return field.type.elem


@needs_c
def test_the_random_artifact_record_has_a_program_that_fills_every_field() -> None:
    program = native.program_of(_random_artifact())
    assert program is not None and program.complete
    assert {s for s, _, _ in program.specs if s} == {f.name for f in dataclasses.fields(faangband.RandomArtifact)}


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_each_run_of_bonus_bytes_has_the_size_the_object_memory_block_gives(path: Path) -> None:
    save = api.load(path)
    memory = next(b for b in save.blocks if isinstance(b, faangband.ObjectMemory))
    arts = next(b for b in save.blocks if isinstance(b, faangband.Artifacts))
    assert arts.random  # every new character has its random artifacts
    for art in arts.random:
        assert [len(getattr(art, run)) for run in _RUNS] == [getattr(memory, n) for n in _SIZES]
        assert len(art.flags_obj) == memory.of_size and len(art.flags_curse) == memory.cf_size
    assert any(art.name for art in arts.random)


def _read(data: bytes, path: Path, start: int, end: int) -> object:
    """The artifacts block as its game's layout reads it from ``data``: the model or the error."""
    save = api.load(path)
    memory = next(b for b in save.blocks if isinstance(b, faangband.ObjectMemory))
    found = next(f for f in block.walk(path.read_bytes(), Report())[1] if f.name == "artifacts")
    layout = next(lay for lay in layouts_for("FAAN", "artifacts", found.version) if lay.game == save.game)
    ctx = file_context("FAAN", data[:4], save.game)
    for name in ("of_size", "cf_size", *_SIZES):
        ctx.set(name, getattr(memory, name), "object memory")
    r = Reader(data, start, end)
    try:
        model = layout.decode(r, ctx)
    except (FormatError, LayoutError) as err:
        return str(err)
    return (model, r.pos)


@needs_c
@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_c_and_pure_read_the_same_artifacts_whole_and_damaged(path: Path) -> None:
    data = path.read_bytes()
    found = next(f for f in block.walk(data, Report())[1] if f.name == "artifacts")
    start, end = found.data_start, found.data_start + found.size
    rng = random.Random(path.name)
    cases = [(data, end)] + [(data, end - rng.randrange(1, 200)) for _ in range(10)]  # cut short
    for _ in range(40):  # a byte changed among the random artifacts (after the 7-byte records)
        at = rng.randrange(end - 400, end)
        bad = bytearray(data)
        bad[at] = rng.choice([0, 1, 0x80, 0xC3, 0xFF, rng.randrange(256)])
        cases.append((bytes(bad), end))
    for bytes_, stop in cases:
        fast = _read(bytes_, path, start, stop)
        with native.suspended():
            slow = _read(bytes_, path, start, stop)
        assert fast == slow
