"""The description block follows the character in every game whose player block names it.

Only 4.2's line was rebuilt from its player; in a 4.0, FAangband or
Ponyband file a name or level edit left the savefile menu showing the old
character until the game saved again.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from savecraft import diff, edit
from savecraft.errors import Report
from savecraft.formats.angband import block
from tests.samples import SAMPLES, real_samples

VARIANTS = SAMPLES / "angband-block-variants"
real = real_samples


def _line(data: bytes) -> str:
    d = block.parse(data, Report(strict=True)).description
    assert d is not None
    return d.line


@real
@pytest.mark.parametrize(("path", "before", "after"), [
    (VARIANTS / "vanilla-4.2_Aduial.sav", "Aduial, L50 High-Elf Paladin, at DL81",
     "Zed, L9 High-Elf Paladin, at DL81"),
    (VARIANTS / "vanilla-4.0.1_Mage.sav", "Katabra, L47 High-Elf Mage, at DL77",
     "Zed, L9 High-Elf Mage, at DL77"),
    (SAMPLES / "angband-block" / "ponyband_Asira.sav", "Asira, L7 Zebra Priest", "Zed, L9 Zebra Priest"),
])
def test_name_and_level_edits_show_in_the_menu_line(path: Path, before: str, after: str) -> None:
    data = path.read_bytes()
    assert _line(data) == before and block.build(block.parse(data, Report(strict=True))) == data
    edited = edit.edit_bytes(data, {"player.full_name": "Zed", "player.lev": 9})
    assert _line(edited.data) == after
    changed = {c.path for c in diff.diff_bytes(data, edited.data).changes}
    # the experience (and its maximum, the highest level) follow the level, as the game keeps them
    assert {"player.full_name", "player.lev", "player.exp"} <= changed and changed <= {
        "player.full_name", "player.lev", "description.name", "description.level", "player.exp",
        "player.max_exp", "player.max_lev"}


@real
def test_a_line_that_does_not_name_the_player_is_kept() -> None:
    """PWMAngband's line names the account ("Builder"), not the character (Archy): left as written."""
    data = (VARIANTS / "pwmangband-1.3.0b1_Archy.sav").read_bytes()
    save = block.parse(data, Report(strict=True))
    assert save.description is not None and not save.description.from_player
    assert block.build(save) == data
