"""A trial read is keyed by the Context entries its layout can look at, found in the layout's
description (savecraft.layout.reads): FAangband 1.x's games differ in one entry (``faan_game``)
that most blocks never look at, and a block read under one of them is not read again under
the other. The sets are held to what the decoders really look at on every real and
game-written file."""

from __future__ import annotations

import collections
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from savecraft.binary import Reader
from savecraft.errors import Report
from savecraft.formats.angband import block, decoding
from savecraft.formats.angband.layouts import Context, Layout, layouts_for
from savecraft.layout import (
    I16, U8, U16, Adapt, Array, Bytes, Check, Ctx, Expr, Field, List, Prefix, SetCtx, Struct, When,
)
from savecraft.layout.reads import context_reads, needed_reads

from tests.samples import SAMPLES, real_samples

BUILT = Path(__file__).resolve().parents[1] / "data" / "angband-built"
# (FAangband 1.2-1.3 files: only their own player layout reads the player block, and no
# other game's layouts are tried)
FAAN_BUILT = sorted(BUILT.glob("faangband-1.4*/*.sav")) + sorted(BUILT.glob("ponyband-*/*.sav"))
PONY = SAMPLES / "angband-block" / "ponyband_Asira.sav"
EVERY = sorted(BUILT.glob("*/*.sav"))
REAL = sorted(p for p in SAMPLES.glob("angband-block*/*") if p.suffix in (".sav", ".pwmg")
              and "truncated" not in p.name and "sil_" not in p.name
              and "server" not in p.name and "players" not in p.name)  # (no game choice there)


@dataclass
class _Model:
    n: int = 0


def test_the_entries_a_description_names() -> None:
    inner = Struct(_Model, [Field("flags", Bytes(Ctx("of_size", "object memory")))], name="inner")
    outer = Struct(_Model, [
        Field("n", U8),
        When("ctx.values.get('faan_game', 0) != 2", [Field("extra", U16)], "FAangband's own"),
        Field("items", List(inner, Prefix(U16))),
        Check("n <= ctx.need('a_max', 'object memory')", "n", "at most a_max", "n"),
        Field("table", Array(I16, Expr("ctx.values['table_size'] + 1"))),
        SetCtx("store_index", "n"),
    ], name="outer")
    assert context_reads(outer) == frozenset({"faan_game", "of_size", "a_max", "table_size"})
    assert context_reads(inner) == frozenset({"of_size"})
    # (looked at only as needs: a Ctx count, ctx.need; not .get with its default, nor values[...])
    assert needed_reads(outer) == frozenset({"of_size", "a_max"})
    assert context_reads(Struct(_Model, [Field("n", U8)], name="plain")) == frozenset()
    # (names taken from a literal list: FAangband 1's random artifact bonuses)
    summed = Expr("sum(ctx.need(n, 'object memory') for n in ('max_p_res', 'a_max'))")
    assert context_reads(Struct(_Model, [Field("x", Bytes(summed))], name="sum")) == frozenset({"max_p_res", "a_max"})


@pytest.mark.parametrize("member", [
    Field("x", Bytes(Expr("sum(ctx.need(n, 'memory') for n in sizes)"))),  # a name in a variable
    Check("f(ctx)", "x", "", "x"),  # the whole Context given to a function
    Field("x", Adapt(U8, lambda v, ctx, where: v, lambda v, ctx, path: v, "a value", ctx=True)),
], ids=["named by a variable", "whole context", "adapt given the context"])
def test_a_description_that_may_look_at_any_entry(member: Any) -> None:
    assert context_reads(Struct(_Model, [Field("n", U8), member], name="any")) is None


class _Recording(dict[str, int]):
    """Context values that note every entry looked at ("*": all of them)."""

    seen: set[str]

    def __getitem__(self, k: str) -> int:
        self.seen.add(k)
        return super().__getitem__(k)

    def get(self, k: str, default: Any = None) -> Any:
        self.seen.add(k)
        return super().get(k, default)

    def __contains__(self, k: object) -> bool:
        self.seen.add(str(k))
        return super().__contains__(k)

    def __iter__(self) -> Any:
        self.seen.add("*")
        return super().__iter__()

    def items(self) -> Any:
        self.seen.add("*")
        return super().items()


@pytest.mark.parametrize("path", EVERY + REAL, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_decoder_looks_only_at_the_entries_its_description_names(path: Path) -> None:
    """Every block of the file, read with its game's layouts in a Context that notes what is
    looked at: nothing outside the set the trial key is made of."""
    data = path.read_bytes()
    save, found = block.walk(data, Report(strict=False))
    facts: dict[str, int] = {}
    game = decoding.choose_game(data, save.variant, found, {}, [], facts)
    assert game is not None
    ctx = decoding.file_context(save.variant, data[:4], game)
    values = _Recording(ctx.values)
    values.seen = set()
    ctx.values = values
    for name, value in facts.items():
        ctx.set(name, value, "player")
    checked = 0
    for f in found:
        for lay in layouts_for(save.variant, f.name, f.version):
            if lay.game != game:
                continue
            names = decoding._looks_at(lay)
            values.seen = set()
            r = Reader(data, f.data_start, f.data_start + f.size)
            try:
                lay.decode(r, ctx)
            except Exception:  # (a block this game's layout does not read: what it looked at still counts)
                pass
            if names is not None:
                assert values.seen <= set(names), (f.name, values.seen - set(names))
                checked += 1
            break
    assert checked or save.variant == "PWMG"


def _trial_reads(data: bytes, monkeypatch: pytest.MonkeyPatch) -> collections.Counter[int]:
    """How many times the game choice read each block (by where its data starts)."""
    count: collections.Counter[int] = collections.Counter()

    class Counted(Reader):
        def __init__(self, data: Any, start: int = 0, end: int | None = None, **kw: Any) -> None:
            super().__init__(data, start, end, **kw)
            if not kw:  # a trial read (the decode's reads name their path)
                count[start] += 1

    monkeypatch.setattr(decoding, "Reader", Counted)
    save = block.parse(data, Report(strict=True))
    assert save.game and not any(isinstance(b, block.RawBlock) for b in save.blocks)
    return count


def _faan_shared_blocks(data: bytes) -> tuple[list[int], int]:
    """The blocks before the player block whose one layout both FAAN games read it with looks
    at no ``faan_game`` (where they start), and where the player block starts."""
    _, found = block.walk(data, Report(strict=True))
    shared: list[int] = []
    for f in found:
        if f.name == "player":
            return shared, f.data_start
        lays = layouts_for("FAAN", f.name, f.version)
        decoders = {lay.decode for lay in lays}
        names = decoding._looks_at(lays[0]) if lays else None
        if len(decoders) == 1 and names is not None and "faan_game" not in names:
            shared.append(f.data_start)
    raise AssertionError("no player block")


def _assert_read_once(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = path.read_bytes()
    shared, player = _faan_shared_blocks(data)
    assert len(shared) >= 4  # rng, options, messages, monster and object memory...
    count = _trial_reads(data, monkeypatch)
    assert {at: count[at] for at in shared} == {at: 1 for at in shared}
    assert count[player] <= 4  # each game's player layout: in the file's context, then after


@real_samples
def test_ponyband_blocks_before_the_player_are_read_once_not_once_per_game(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Ponyband and FAangband 1.4 both try their player layouts (which need what the blocks
    before it store): those blocks were read once per game, the two contexts differing only
    in ``faan_game``, which their layouts never look at."""
    _assert_read_once(PONY, monkeypatch)


@pytest.mark.parametrize("path", FAAN_BUILT, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_faan_built_blocks_before_the_player_are_read_once(path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    _assert_read_once(path, monkeypatch)


def test_a_read_under_another_context_gives_what_it_changed_there() -> None:
    """A kept trial gives back what the read changed (set, or took out), not the context it
    was read in: a later read under another context keeps its own other entries."""
    found = decoding.Found(0, 0, "x", 1, 0, 1)
    lay = Layout("x", 1, frozenset({"TEST"}), _Model, _SETS.read, _SETS.write, "test")
    cache: decoding.Trials = {}
    first = Context()
    first.set("faan_game", 1, "the game")
    assert decoding._attempt(b"\x07", lay, found, first, cache)[0] == decoding.TRIAL_OK
    second = Context()
    second.set("faan_game", 2, "the game")
    assert decoding._attempt(b"\x07", lay, found, second, cache)[0] == decoding.TRIAL_OK
    assert len(cache) == 1  # one read: the layout does not look at faan_game
    assert second.values == {"faan_game": 2, "seven": 7}


_SETS = Struct(_Model, [Field("n", U8), SetCtx("seven", "n")], name="x")


@pytest.mark.parametrize("path", [BUILT / "narsil-1.3.1" / "Telchar.sav", BUILT / "narsil-1.4.0" / "Nerdanel.sav",
                                  *sorted((BUILT / "beleriand-0.1.0alpha").glob("*.sav"))],
                         ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_player_layout_that_needs_an_earlier_blocks_size_is_read_once(
        path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Beleriand's player layout needs the language size its monster memory block stores (and
    looks at nothing else): in the file's context alone it can only stop for want of it (or
    fail before, as it would after), so it is read once, after the blocks before it, not first
    in that context too (a 36 us read of the whole block on a NarSil file). NarSil 1.3 and 1.4
    share their player layout, which needs nothing: one read."""
    data = path.read_bytes()
    _, found = block.walk(data, Report(strict=True))
    player = next(f for f in found if f.name == "player")
    assert decoding._needs(layouts_for("USIL", "player", 1, "Beleriand 0.1")[0]) == {"language_size"}
    count = _trial_reads(data, monkeypatch)
    assert count[player.data_start] == 2
