"""The game choice's trial reads are made once: a block read with one decoder in one context is
not read again (by another game sharing the description, by the next step of the choice, by
the decode), and a game that cannot win is read only up to the block that tells it apart."""

from __future__ import annotations

import collections
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from savecraft.binary import Reader
from savecraft.errors import Report
from savecraft.formats.angband import block, decoding
from savecraft.formats.angband.layouts import Context, layouts
from savecraft.formats.angband.layouts.faangband_character import FAAN_GAME, FAANGBAND_14

from tests.samples import SAMPLES, real_samples

BUILT = Path(__file__).resolve().parents[1] / "data" / "angband-built"
NARSIL = [BUILT / "narsil-1.3.1" / "Telchar.sav", BUILT / "narsil-1.4.0" / "Nerdanel.sav"]
BELERIAND = sorted((BUILT / "beleriand-0.1.0alpha").glob("*.sav"))
FAAN_BUILT = sorted(BUILT.glob("faangband-1.*/*.sav"))
PONY = SAMPLES / "angband-block" / "ponyband_Asira.sav"

Read = tuple[int, Any, frozenset[tuple[str, int]]]


@pytest.fixture
def reads() -> Iterator[collections.Counter[Read]]:
    """Every decode of a block by a layout, counted by (where the block starts, the decoder,
    the context values it was read in). One wrapper per decoder, so layouts that share a
    description (as games do) still share it; put back afterwards."""
    count: collections.Counter[Read] = collections.Counter()
    wrappers: dict[Any, Callable[[Reader, Context], Any]] = {}
    saved = []
    for lay in layouts():
        inner = lay.decode

        def counted(r: Reader, ctx: Context, _inner: Any = inner) -> Any:
            count[r.pos, _inner, frozenset(ctx.values.items())] += 1
            return _inner(r, ctx)

        counted.__wrapped__ = inner  # type: ignore[attr-defined]
        saved.append((lay, inner))
        object.__setattr__(lay, "decode", wrappers.setdefault(inner, counted))
    try:
        yield count
    finally:
        for lay, inner in saved:
            object.__setattr__(lay, "decode", inner)


def _games_by_decoder() -> dict[Any, set[str]]:
    games: dict[Any, set[str]] = collections.defaultdict(set)
    for lay in layouts():
        games[getattr(lay.decode, "__wrapped__", lay.decode)].add(lay.game)
    return games


@pytest.mark.parametrize("path", NARSIL + BELERIAND + FAAN_BUILT, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_no_block_is_read_twice_with_one_decoder_and_context(path: Path,
                                                              reads: collections.Counter[Read]) -> None:
    """NarSil 1.3 and 1.4 share the player layout and most others: the choice between them read
    every block under both, and the decode read the chosen game's blocks a third time."""
    data = path.read_bytes()
    save = block.parse(data, Report(strict=True))
    assert save.game and not any(isinstance(b, block.RawBlock) for b in save.blocks)
    again = {k: n for k, n in reads.items() if n > 1}
    assert not again, again


@pytest.mark.parametrize("path", NARSIL, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_decode_reads_no_block_the_choice_read(path: Path, reads: collections.Counter[Read],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """After choose_game (which reads every block of the chosen game, to choose between games
    writing the same versions), the decode takes its reads up again and reads nothing."""
    data = path.read_bytes()
    chosen: list[str] = []
    real = decoding.choose_game

    def choose(*args: Any, **kwargs: Any) -> str | None:
        game = real(*args, **kwargs)
        chosen.append(str(game))
        reads.clear()  # what the decode reads from here on
        return game

    monkeypatch.setattr(block, "choose_game", choose)
    save = block.parse(data, Report(strict=True))
    assert chosen == [save.game] and "trial reads of every block settle it" in save.game_reason
    assert sum(reads.values()) == 0, reads


@real_samples
def test_ponyband_and_faangband_14_each_read_a_block_at_most_once(reads: collections.Counter[Read]) -> None:
    """FAangband 1.4's player layout is tried on every FAAN file (it needs what the blocks before
    it store, so they are read as FAangband 1.4's too): each block is read at most once per
    game, the decode taking up the trial reads of the game chosen (it read Ponyband's
    blocks before the player block a second time)."""
    data = PONY.read_bytes()
    save = block.parse(data, Report(strict=True))
    assert save.game == "FAangband 1 (Ponyband)"
    games = _games_by_decoder()
    per_block: collections.Counter[tuple[int, str]] = collections.Counter()
    for (at, decoder, ctx), n in reads.items():
        game = "FAangband 1.4" if (FAAN_GAME, FAANGBAND_14) in ctx else "FAangband 1 (Ponyband)"
        assert game in games[decoder]
        per_block[at, game] += n
    # (the player block twice: first in the file's context alone, where both games' player
    # layouts stop at the first value an earlier block stores, then after those blocks)
    player = next(b for b in block.walk(data, Report(strict=True))[1] if b.name == "player")
    assert per_block.pop((player.data_start, "FAangband 1.4")) == 2
    assert per_block.pop((player.data_start, "FAangband 1 (Ponyband)")) == 2
    assert per_block and max(per_block.values()) == 1, per_block


def test_info_of_a_narsil_file_names_the_game_and_why_as_before() -> None:
    """As a user sees it: the reason still counts the blocks of the chosen game, read whole."""
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "savecraft", "info", str(NARSIL[0])],
                         capture_output=True, text=True, check=True).stdout
    assert "game: NarSil 1.3\n" in out
    assert ("game reason: its player block reads exactly with the NarSil 1.3 layout; NarSil 1.4 writes "
            "the same block versions, and trial reads of every block settle it: NarSil 1.3's layouts "
            "read 16 of the 16 blocks they have a layout for\n") in out


def test_a_trap_list_is_read_with_its_own_flag_size_after_another() -> None:
    """A trap list stores the size of its traps' flags (``trf_size``) before them, and puts it
    in the Context. The C record program of a record is compiled with the Context from before
    the record, so it read a second list's traps with the first list's size: two levels whose
    lists store different sizes read the second wrong (a 2-byte flag read as 1, and the end
    trap taken from the flag's second byte). Such a record has no program now."""
    from savecraft.formats.angband.layouts.vanilla40 import TRAP_LIST as trap_list

    ctx = Context()
    first = bytes([1, 5, 1, 1, 0, 7, 0, 0, 0, 0, 0])
    second = bytes([2, 5, 1, 1, 0, 7, 8, 0, 0, 0, 0, 0, 0])
    got = []
    for data in (first, second):
        r = Reader(data)
        got.append(trap_list.read(r, ctx))
        assert r.at_end()
    assert got[0].trf_size == 1 and [t.flags for t in got[0].traps] == [b"\x07"]
    assert got[1].trf_size == 2 and [t.flags for t in got[1].traps] == [b"\x07\x08"]
    assert got[1].end.flags == b"\x00\x00" and ctx.values["trf_size"] == 2
