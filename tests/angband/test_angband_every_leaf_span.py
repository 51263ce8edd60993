"""Every value of an Angband-family save's model has bytes that ``savecraft hexdump FILE PATH`` shows.

The blocks are record descriptions (savecraft.layout): their readers record a span for
every field under the model's own paths. This walks every leaf of one file per game and
version (real samples and files the games wrote, tests/data/angband-built) and holds each
to a span of its own, but for the values that have no bytes of their own, each named
below with why. Anything else without a span is a defect: ``hexdump`` and the studio
would show the whole block for it (as they did for every object's end-of-list record).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import savecraft
from savecraft import spans
from savecraft.commands.hexdump import render
from tests.core.support import model_leaves
from tests.samples import SAMPLES, require

BUILT = Path(__file__).resolve().parents[1] / "data" / "angband-built"

# One file per game and version, the richest (a living character with a level and objects).
FILES = [SAMPLES / "angband-block-variants" / name for name in (
    "vanilla-4.2_Aduial.sav", "vanilla-4.0.1_Mage.sav", "anquestria-3.2_PLAYER.sav",
    "pwmangband-1.3.0b1_Archy.sav")] + [SAMPLES / "angband-block" / "ponyband_PLAYER.sav"] + [
    SAMPLES / "angband-block-more" / name for name in (
        "angband_4.0.2_Varis-2a7034d.sav", "xygos_0.0.3_24580new.sav",
        "pwmangband_1.3.0b1_server.pwmg")] + [BUILT / name for name in (
            "vanilla-3.1.2/vanilla-3.1.2_Keth-dead.sav", "vanilla-3.3.2/vanilla-3.3.2_Mira.sav",
            "vanilla-3.5.1/vanilla-3.5.1_Tarn.sav", "vanilla-4.1.3/Celebrin-alive.sav",
            "vanilla-4.2.5/Persa-persistent-dl1.sav",
            "faangband-2.0.1/FaelinRoot.sav", "narsil-1.3.0/Beleg.sav", "narsil-1.4.0/Nerdanel.sav",
            "beleriand-0.1.0alpha/Hurin-retired.sav", "pwmangband-1.6.2/Savetest",
            "pwmangband-1.6.2/server", "faangband-1.4.5/Tuor.sav", "faangband-1.3.3/Idril.sav",
            "vanilla-4.1.0/Elwing-dead.sav")]

# Values with no bytes of their own: they show the record (or block) that holds them.
NOT_OWN = [
    # parsed out of the description block's text ("NAME the level 12 Dwarf Priest ...")
    r"blocks\[\d+\]\.(level|race|character_class|rest|encoding|text|dead|cause|name)",
    r"blocks\[\d+\]\.present",  # whether a group of fields is stored: the fields say it
    # a dead or retired character's level fields, which the game does not store (defaults)
    r"blocks\[\d+\]\.(depth|daycount|py|px|height|width|chunk_cnt|square_size|unused)",
    r"blocks\[\d+\]\.shape",  # Vanilla 4.1 stores no shape (the model has 4.2's field)
    # Ponyband's older monster record stores neither; the flag says which record it is
    r"blocks\[\d+\]\.root_and_challenge", r"blocks\[\d+\]\.monsters\[\d+\]\.(rooted|challenged)",
    r"blocks\[\d+\]\.delay_u16",  # which form of the movement delay the release stores (4.2.0/4.2.1: u16)
    # a PWMAngband monster's blow with no method stores nothing else (``rd_monster``)
    r"blocks\[\d+\]\.levels\[\d+\]\.monsters\[\d+\]\.blows\[\d+\]\.(effect|dice|sides)",
    # PWMAngband's build (item names or indexes) is told from the bytes, not stored
    r"blocks\[\d+\]\.as_names",
]


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_leaf_has_a_span_hexdump_shows(path: Path) -> None:
    if SAMPLES in path.parents:
        require()  # a real sample: skipped (or failed, when required) without the folder
    data = path.read_bytes()
    model = savecraft.load(path)
    smap = spans.record(data)
    paths = list(model_leaves(model, ""))
    assert len(paths) > 200, len(paths)
    not_own = re.compile("|".join(f"(?:{p})" for p in NOT_OWN))
    missing = [p for p in paths if smap.span_of(p) is None and not not_own.fullmatch(p)]
    assert missing[:20] == [], f"{len(missing)} leaves without a span"
    # what hexdump shows for one leaf of each kind: its own bytes, titled with where they are
    seen: set[str] = set()
    for p in paths:
        kind = re.sub(r"\[\d+\]", "[]", p)
        own = smap.span_of(p)
        if kind in seen or own is None:
            continue
        seen.add(kind)
        shown = list(render(smap, p, length=1 << 16))
        assert shown[0].endswith(f": {own.length} bytes at 0x{own.offset:X} in {own.space}"), (p, shown[0])
        assert len(shown) > 1 or own.length == 0, p
    if path.name == "vanilla-4.2_Aduial.sav":  # objects' fields and their lists' end records
        assert {"blocks[].items[].item.tval", "blocks[].cave.monsters[].held.end.tval",
                "blocks[].cave.objects.end.modifiers[]"} <= {re.sub(r"\[\d+\]", "[]", k) for k in paths}
