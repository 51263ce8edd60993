"""Game files written from the spec but not by savecraft's builder (shared by the fidelity and
build-directory tests): the sample game with its section block and asset area rewritten."""

from __future__ import annotations

import struct

import savecraft
from fuzz.hostile import rewrite_game, set_descriptor
from savecraft.formats.tirnanog.game.sections import MapsSection, QuestsSection
from savecraft.formats.tirnanog.game.sections.common import iter_assets


def assets(data: bytes, cls: type) -> list[tuple[int, int]]:
    """The (offset, length) of each asset of one section, in the game file's order."""
    g = savecraft.parse(data)
    out = []
    for a in iter_assets(g.section(cls)):
        assert a.hint is not None, "every asset of a parsed game has its offset"
        out.append((a.hint, a.length))
    return out


def maps_not_last(data: bytes) -> bytes:
    """The last quest asset moved behind the two maps."""
    (m0, l0), (m1, l1) = assets(data, MapsSection)
    ((q, lq),) = assets(data, QuestsSection)
    assert q + lq == m0 and m0 + l0 == m1

    def edit(b: bytearray) -> None:
        set_descriptor(b, (m0, l0), (q, l0))
        set_descriptor(b, (m1, l1), (q + l0, l1))
        set_descriptor(b, (q, lq), (q + l0 + l1, lq))
    return rewrite_game(data, edit, lambda a: a[:q] + a[m0:m1 + l1] + a[q:m0])


def section_of(data: bytes, kind: str) -> type:
    """The section class of one KIND in this game (numbered types vary from game to game)."""
    g = savecraft.parse(data)
    return next(type(s) for s in g.sections if getattr(s, "KIND", "") == kind)


def set_directions(data: bytes, asset: tuple[int, int], d: int) -> bytes:
    """The game with one sprite's direction count set to d (its animations unchanged)."""
    def edit(b: bytearray) -> None:
        at = b.find(struct.pack("<QI", *asset))
        b[at + 15] = d
    return rewrite_game(data, edit)
