"""Byte spans of a real Angband file name its fields, with or without the C record readers.

The C readers (``Records.read``) decode whole record lists without a Reader,
so while spans were recorded the 4.2 player block showed as one 556-byte span:
``hexdump FILE player.au`` and the studio highlighted the block, not the gold.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from savecraft import spans
from savecraft.formats.angband.demo import samples_folder

FOLDER = samples_folder() or Path(__file__).resolve().parents[2] / "shared" / "samples"
V42 = FOLDER / "angband-block-variants" / "vanilla-4.2_Aduial.sav"


@pytest.mark.skipif(not V42.is_file(), reason=f"the 4.2 sample is not at {V42}")
@pytest.mark.parametrize(("path", "length"), [
    ("player.au", 4), ("player.exp", 4), ("player.full_name", 7), ("misc.seed_randart", 4),
])
def test_fields_read_by_the_c_records_have_their_own_span(path: str, length: int) -> None:
    data = V42.read_bytes()
    found = spans.record(data).spans_for(path)
    assert [(sp.path, sp.length) for sp in found] == [(path, length)]
