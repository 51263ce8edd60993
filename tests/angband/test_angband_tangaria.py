"""Tangaria, the PWMAngband fork that writes PWMAngband's savefile magic 1.6.0.0: the real player
file ``pwmangband_1.6.0_Ganja.pwmg`` (a Tangaria client's folder), read with Tangaria's own
fields (igroglaz/Tangaria load.c/save.c at 99e0114f: six stats, the account in the misc block,
each object's ``soulbound``), declared as conditions in the PWMAngband layouts.

Held by the file's own values: the game's description line ("Sebastian, L1 Elf Warrior, at
DL1"), the header block's name, race and class, and the account name the game wrote in the
misc block (the header's character name).
"""

from __future__ import annotations

import json
from pathlib import Path

from savecraft import api
from savecraft.errors import Report
from savecraft.formats.angband import block
from savecraft.formats.angband.block import RawBlock
from savecraft.formats.angband.layouts import pwmangband_world as pww
from tests.samples import SAMPLES, real_samples
from .support import run_savecraft as _run

GANJA = SAMPLES / "angband-block-more" / "pwmangband_1.6.0_Ganja.pwmg"
BRAINIAC = SAMPLES / "angband-block-more" / "pwmangband_1.2.0b2_Brainiac.pwmg"
real = real_samples


def _block(save: block.BlockSave, name: str) -> object:
    return next(b for b in save.blocks if block.block_name(b) == name)


@real
def test_the_file_is_read_whole_as_tangaria_and_rebuilt() -> None:
    data = GANJA.read_bytes()
    save = block.parse(data, Report(strict=True), verify=True)
    assert save.game == "Tangaria"
    assert "a fork writing PWMAngband's savefile magic 1.6.0.0" in save.game_reason
    assert [b.name for b in save.blocks if isinstance(b, RawBlock)] == []
    assert block.build(save) == data
    assert api.validate(data).problems == []
    done = _run("validate", str(GANJA))
    assert done.returncode == 0, done.stdout + done.stderr


@real
def test_tangarias_own_fields_hold_the_values_the_game_wrote() -> None:
    save = block.parse(GANJA.read_bytes(), Report(strict=True))
    header = _block(save, "header")
    misc = _block(save, "misc")
    assert isinstance(misc, pww.Misc)
    # the account is the header's character (Tangaria: one account per character name)
    assert (misc.account_name, misc.account_id) == (getattr(header, "full_name"), 3) == ("Ganja", 3)
    assert (misc.account_score, misc.supporter) == (0, 0)
    p = save.player
    assert p is not None and len(p.stat_cur) == 6 and len(p.stat_max) == 6  # STR..CHR
    gear = _block(save, "gear")
    assert all(g.item.soulbound is not None for g in getattr(gear, "items"))


@real
def test_info_reads_like_the_games_own_line(tmp_path: Path) -> None:
    doc = json.loads(_run("info", "--json", str(GANJA)).stdout)
    line = doc["character"]  # the description block: what the game wrote
    assert line == "Sebastian, L1 Elf Warrior, at DL1"
    assert (doc["race"], doc["class"], doc["level"], doc["depth"]) == ("Elf", "Warrior", 1, 1)
    assert list(doc["stats"]) == ["str", "int", "wis", "dex", "con", "chr"]
    assert doc["game"] == "Tangaria" and doc["not_decoded"] == []
    # a gold edit is that field and nothing else
    out = tmp_path / "Ganja"
    done = _run("edit", str(GANJA), "--set", "player.au=1000", "-o", str(out))
    assert done.returncode == 0, done.stderr
    diff = _run("diff", str(GANJA), str(out))
    assert [line.split(":")[0].strip() for line in diff.stdout.splitlines()] == ["player.au"]
    assert _run("dump", str(out)).returncode == 0


@real
def test_pwmangband_files_are_still_read_as_pwmangband() -> None:
    save = block.parse(BRAINIAC.read_bytes(), Report(strict=True))
    assert save.game == "PWMAngband"
    misc = _block(save, "misc")
    assert isinstance(misc, pww.Misc) and misc.account_name is None  # no Tangaria fields
    assert save.player is not None and len(save.player.stat_cur) == 5
