"""Byte spans of a real Angband file name its fields, with or without the C record readers.

The C readers (``Records.read``) decode whole record lists without a Reader,
so while spans were recorded the 4.2 player block showed as one 556-byte span:
``hexdump FILE player.au`` and the studio highlighted the block, not the gold.
"""

from __future__ import annotations

import pytest

from savecraft import spans
from tests.samples import SAMPLES, real_samples

FOLDER = SAMPLES
V42 = FOLDER / "angband-block-variants" / "vanilla-4.2_Aduial.sav"


@real_samples
@pytest.mark.parametrize(("path", "length"), [
    ("player.au", 4), ("player.exp", 4), ("player.full_name", 7), ("misc.seed_randart", 4),
])
def test_fields_read_by_the_c_records_have_their_own_span(path: str, length: int) -> None:
    data = V42.read_bytes()
    found = spans.record(data).spans_for(path)
    assert [(sp.path, sp.length) for sp in found] == [(path, length)]


@real_samples
def test_every_field_of_a_4_2_object_has_its_own_span() -> None:
    """Objects are read from their record description while spans are recorded, so each field
    of each object (and its known copy) is its own few bytes, under the model's paths; before,
    every object field showed as the whole 15 KB gear block."""
    import dataclasses

    from savecraft import api
    from savecraft.formats.angband.layouts.items import Item

    data = V42.read_bytes()
    smap = spans.record(data)
    gear = api.load(data).gear
    item = gear.items[0].item
    for f in dataclasses.fields(Item):
        for which in ("item", "known"):
            path = f"gear.items[0].{which}.{f.name}"
            value = getattr(getattr(gear.items[0], which), f.name)
            if value is None:
                continue
            sp = smap.span_of(path)
            assert sp is not None and sp.path == path, path
            assert sp.length < 200, (path, sp.length)
    tval = smap.span_of("gear.items[0].item.tval")
    assert tval is not None and data[tval.offset:tval.offset + tval.length] == item.tval.encode() + b"\0"
    whole = smap.span_of("gear.items[0].item")
    assert whole is not None and whole.offset < tval.offset < whole.offset + whole.length
