"""The Vanilla 4.2 options block by release: 4.2.0 and 4.2.1 store the movement delay as a
u16 (``wr_u16b(player->opts.lazymove_delay)``), 4.2.2 on as a byte followed by the sidebar
mode (load.c/save.c ``rd_options``/``wr_options`` at each tag).

``Tarlo-delay300.sav`` was written by 4.2.0 after its movement delay was set to 300 (the game:
"Current movement delay: 300 (3000 msec)"); read as 4.2.2's layout it showed a delay of 44
and a sidebar mode of 1.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from savecraft import api
from savecraft.errors import Report
from savecraft.formats.angband import block
from savecraft.formats.angband.block import RawBlock
from tests.samples import SAMPLES
from .support import run_savecraft as _run

BUILT = next(p / "data" / "angband-built" for p in Path(__file__).resolve().parents
             if (p / "data" / "angband-built").is_dir())
TARLO = BUILT / "vanilla-movement-delay-4.2.0" / "Tarlo-delay300.sav"
EVERY_42 = sorted([*BUILT.glob("vanilla-4.2*/*.sav"), TARLO,
                   *(SAMPLES / "angband-block-more").glob("angband_4.2*.sav"),
                   *(SAMPLES / "angband-block-variants").glob("vanilla-4.2*.sav")])


def _options(data: bytes) -> object:
    save = block.parse(data, Report(strict=True))
    return next(b for b in save.blocks if block.block_name(b) == "options")


def test_a_4_2_0_movement_delay_over_255_reads_as_the_game_set_it() -> None:
    o = _options(TARLO.read_bytes())
    assert (getattr(o, "delay_u16"), getattr(o, "lazymove_delay"), getattr(o, "sidebar_mode")) == (True, 300, None)
    doc = json.loads(_run("dump", str(TARLO)).stdout)
    opts = next(b for b in doc["data"]["blocks"] if b.get("kind") == "options-4.2")
    assert (opts["lazymove_delay"], opts["sidebar_mode"]) == (300, None)


def test_the_4_2_0_file_validates_and_rebuilds_through_json(tmp_path: Path) -> None:
    assert api.validate(TARLO.read_bytes()).problems == []
    dumped = _run("dump", str(TARLO))
    (tmp_path / "t.json").write_text(dumped.stdout)
    built = _run("build", str(tmp_path / "t.json"), "-o", str(tmp_path / "t.sav"))
    assert built.returncode == 0, built.stderr
    assert (tmp_path / "t.sav").read_bytes() == TARLO.read_bytes()


def test_an_edited_delay_is_written_as_the_release_stores_it(tmp_path: Path) -> None:
    out = tmp_path / "Tarlo"
    done = _run("edit", str(TARLO), "--set", "blocks[2].lazymove_delay=999", "-o", str(out))
    assert done.returncode == 0, done.stderr
    a, b = TARLO.read_bytes(), out.read_bytes()
    assert len(a) == len(b)
    o = _options(b)
    assert (getattr(o, "lazymove_delay"), getattr(o, "sidebar_mode")) == (999, None)
    diff = _run("diff", str(TARLO), str(out))
    assert [line.split(":")[0].strip() for line in diff.stdout.splitlines()] == ["blocks[2].lazymove_delay"]


@pytest.mark.parametrize("path", EVERY_42, ids=lambda p: p.name)
def test_every_4_2_file_reads_its_releases_options_and_rebuilds(path: Path) -> None:
    data = path.read_bytes()
    save = block.parse(data, Report(strict=True), verify=True)
    assert [b.name for b in save.blocks if isinstance(b, RawBlock)] == []
    assert block.build(save) == data
    o = next(b for b in save.blocks if block.block_name(b) == "options")
    if "read as Vanilla 4.2.0:" in save.game_reason:  # 52 timed effects: 4.2.0, which stores a u16 delay
        assert getattr(o, "delay_u16") and getattr(o, "sidebar_mode") is None
    else:
        assert not getattr(o, "delay_u16") and getattr(o, "sidebar_mode") is not None
