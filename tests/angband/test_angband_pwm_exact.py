"""PWMAngband's layouts are ``exact``: a load of a player, server or players file re-encodes no
block (their readers read only what their writers write back), and the tests re-encode every
file to hold them to it. The build a block is read as (``SAVE_AS_STRINGS`` or indexes) is still
told from the bytes, and a block that only the other build reads, or that neither reads, still
stays raw with the same located problem.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from savecraft import jsonmap
from savecraft.binary import Reader
from savecraft.errors import FormatError, Report
from savecraft.formats.angband import block, decoding
from savecraft.formats.angband.block import BlockSave, RawBlock
from savecraft.formats.angband.layouts import layout_of, layouts_for
from savecraft.formats.angband.layouts import pwmangband as pw
from savecraft.formats.angband.layouts import pwmangband_world as pww
from tests.samples import SAMPLES, real_samples, require

from .support import block_span, replace_block

BUILT = Path(__file__).resolve().parents[1] / "data" / "angband-built"
MORE = SAMPLES / "angband-block-more"
ARCHY = SAMPLES / "angband-block-variants" / "pwmangband-1.3.0b1_Archy.sav"
BRAINIAC = MORE / "pwmangband_1.2.0b2_Brainiac.pwmg"
SERVER = MORE / "pwmangband_1.3.0b1_server.pwmg"
SAVETEST = BUILT / "pwmangband-1.6.2" / "Savetest"
REAL = [ARCHY, BRAINIAC, SERVER, MORE / "pwmangband_1.6.0_Ganja.pwmg", MORE / "pwmangband_1.6.0_players.pwmg"]
GAME_WRITTEN = [BUILT / v / n for v in ("pwmangband-1.5.0", "pwmangband-1.6.2")
                for n in ("players", "server")] + [BUILT / "pwmangband-1.5.0" / "Fivetest", SAVETEST]
FILES = [pytest.param(p, marks=real_samples) for p in REAL] + GAME_WRITTEN


def _id(p: Path) -> str:
    return f"{p.parent.name}/{p.name}"


class _CountingWriter(decoding.Writer):
    """The decoder's Writer, counting its use: a Writer is made only to re-encode a block."""

    made = 0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        type(self).made += 1
        super().__init__(*args, **kwargs)


def test_every_pwmangband_layout_is_exact() -> None:
    names = ["header", "monster memory", "object memory", "player", "ignore", "misc", "artifacts",
             "player hp", "player spells", "gear", "dungeon", "objects", "traps", "history", "wild map",
             "home", "stores", "dungeons", "monsters", "parties", "houses", "arenas", "wilderness",
             "player_names", "misc"]
    found = [lay for n in names for lay in layouts_for("PWMG", n, 1)]
    assert {lay.game for lay in found} == {"PWMAngband", "PWMAngband server", "Tangaria"}
    assert [f"{lay.game} {lay.name}" for lay in found if not lay.exact] == []


@pytest.mark.parametrize("path", FILES, ids=_id)
def test_a_load_re_encodes_no_block(monkeypatch: pytest.MonkeyPatch, path: Path) -> None:
    """The load decodes every block and makes no Writer; a verifying parse (which re-encodes
    every block) gives the same model, and every block writes its bytes back."""
    monkeypatch.setattr(decoding, "Writer", _CountingWriter)
    data = path.read_bytes()
    _CountingWriter.made = 0
    save = block.parse(data, Report(strict=True))
    assert _CountingWriter.made == 0
    assert not [b for b in save.blocks if isinstance(b, RawBlock)]
    checked = block.parse(data, Report(strict=True), verify=True)
    # (the counter counts the re-encodings: one per block a layout decoded)
    assert _CountingWriter.made == sum(layout_of(b) is not None for b in save.blocks) > 0
    assert checked == save and block.build(checked) == data


# What the layouts found in damaged files before they were exact (the same offset, path,
# expected and found): a block only the other build reads, and blocks cut short.
OTHER_BUILD = [
    (ARCHY, "gear", 40284, "blocks[10]", "the PWMAngband 'gear' layout",
     "the PWMAngband layout needs the build the 'misc' block was written by (indexes); this block "
     "reads only as the SAVE_AS_STRINGS (names) build"),
    (SERVER, "objects", 109524, "blocks[6]", "the PWMAngband server 'objects' layout",
     "the PWMAngband server layout needs the build the 'stores' block was written by (indexes); "
     "this block reads only as the SAVE_AS_STRINGS (names) build"),
]


def _as_names(it: pww.Item) -> None:
    """An object record as a SAVE_AS_STRINGS build writes it (a name with a letter for every
    kind; the end record's "none" and no kind name; no artifact or ego: "")."""
    it.tval = "none" if it.tval == 0 else f"kind {it.tval}"
    it.sval = f"kind {it.sval}" if it.sval else ""
    it.artifact, it.ego = "", ""


def _named(save: BlockSave, name: str) -> Any:
    return next(b for b in save.blocks if block.block_name(b) == name)


@real_samples
@pytest.mark.parametrize(("path", "name", "offset", "where", "expected", "found"), OTHER_BUILD,
                         ids=lambda v: _id(v) if isinstance(v, Path) else None)
def test_a_block_only_the_other_build_reads_stays_raw_where_it_did(
        path: Path, name: str, offset: int, where: str, expected: str, found: str) -> None:
    save = block.parse(path.read_bytes(), Report(strict=True))
    b = _named(save, name)
    if isinstance(b, pww.Gear):
        for g in b.items:
            _as_names(g.item)
            _as_names(g.known)
    else:
        for lv in b.levels:
            for p in lv.items:
                _as_names(p.item)
                _as_names(p.known)
            _as_names(lv.end)
    b.as_names = True
    report = Report()
    bad = block.parse(block.build(save), report)
    raw = [x for x in bad.blocks if isinstance(x, RawBlock)]
    assert [(x.name, x.failed, x.reason) for x in raw] == [(name, True, found)]
    assert [(p.offset, p.path, p.expected, p.found) for p in report.problems] == [
        (offset, where, expected, found)]


CUT = [
    (ARCHY, "gear", 1, 46940, "blocks[10].items[14].slot", "1 byte", "the end of the 'gear' block"),
    (SERVER, "objects", 1, 109770, "blocks[6].levels[0].items[0].item.bypass_aware", "1 byte",
     "the end of the 'objects' block"),
    (SERVER, "monsters", 3, 137900, "blocks[7].levels[0].monsters[74].held[0]",
     "an object or the end-of-list record", "the end of the 'monsters' block after 234 bytes"),
    (BRAINIAC, "home", 1, 161320, "blocks[16].items[23].known.bypass_aware", "1 byte",
     "the end of the 'home' block"),
    (BRAINIAC, "dungeon", 1, 63224, "blocks[11].level.info[2]", "run-length pairs covering 13068 squares",
     "13005 squares before the end of the block"),
    (BRAINIAC, "history", 1, 142075, "blocks[14].entries[149].event", "a NUL-terminated Latin-1 string",
     "the end of the 'history' block"),
]


@real_samples
@pytest.mark.parametrize(("path", "name", "cut", "offset", "where", "expected", "found"), CUT,
                         ids=lambda v: _id(v) if isinstance(v, Path) else None)
def test_a_block_cut_short_names_where(path: Path, name: str, cut: int, offset: int, where: str,
                                       expected: str, found: str) -> None:
    data = path.read_bytes()
    start, size = block_span(data, name)
    report = Report()
    save = block.parse(replace_block(data, name, data[start + 28:start + 28 + size - cut]), report)
    assert [block.block_name(b) for b in save.blocks if isinstance(b, RawBlock)] == [name]
    assert [(p.offset, p.path, p.expected, p.found) for p in report.problems] == [(offset, where, expected, found)]


def test_a_names_build_history_of_1_6_without_artifacts_reads_back() -> None:
    """From 1.6.0 the history's artifact is a u16 index or a name, so an entry naming no
    artifact differs between the builds (two 0 bytes, or one): such a block read as names says
    so, and writes the same bytes back (it stayed raw: written back in the index form)."""
    save = block.parse(SAVETEST.read_bytes(), Report(strict=True))
    names = jsonmap.loads(jsonmap.dumps(save))
    misc = _named(names, "misc")
    misc.as_names, misc.quest_race, misc.poly_race = True, "", ""
    gear, objects = _named(names, "gear"), _named(names, "objects")
    for it in [x for g in gear.items for x in (g.item, g.known)] + [
            x for p in objects.items for x in (p.item, p.known)] + [objects.end]:
        _as_names(it)
    gear.as_names = objects.as_names = True
    history = _named(names, "history")
    assert isinstance(history, pw.History) and history.entries and history.artifacts_as_names is None
    for e in history.entries:
        e.artifact = ""
    history.artifacts_as_names = True
    data = block.build(names)
    again = block.parse(data, Report(strict=True), verify=True)
    assert not [b.name for b in again.blocks if isinstance(b, RawBlock)]
    history2 = _named(again, "history")
    assert history2.artifacts_as_names is True and [e.artifact for e in history2.entries] == [""] * len(
        history.entries)
    assert again == names and block.build(again) == data


# Terrain runs cut short (the level head, then fewer runs than cover the level): the runs'
# counts are added up at once now, and the problem is the one the run-by-run walk found.
FEAT_CUT = [
    (ARCHY, "dungeon", 14 + 11, 46986, "blocks[11].level.feat", "3-byte runs covering 13068 squares",
     "205 squares before the end of the block"),
    (ARCHY, "dungeon", 14, 46986, "blocks[11].level.feat", "3-byte runs covering 13068 squares",
     "0 squares before the end of the block"),
    (BRAINIAC, "dungeon", 14 + 7, 59722, "blocks[11].level.feat", "2-byte runs covering 13068 squares",
     "359 squares before the end of the block"),
    (SERVER, "dungeons", 5 + 27 + 9, 95707, "blocks[5].levels[0].feat", "3-byte runs covering 13068 squares",
     "205 squares before the end of the block"),
]


@real_samples
@pytest.mark.parametrize(("path", "name", "keep", "offset", "where", "expected", "found"), FEAT_CUT,
                         ids=lambda v: _id(v) if isinstance(v, Path) else None)
def test_terrain_runs_cut_short_name_where(path: Path, name: str, keep: int, offset: int, where: str,
                                          expected: str, found: str) -> None:
    data = path.read_bytes()
    start, _ = block_span(data, name)
    report = Report()
    save = block.parse(replace_block(data, name, data[start + 28:start + 28 + keep]), report)
    assert [block.block_name(b) for b in save.blocks if isinstance(b, RawBlock)] == [name]
    assert [(p.offset, p.path, p.expected, p.found) for p in report.problems] == [(offset, where, expected, found)]


@pytest.fixture(params=["C walk", "numpy"])
def walk(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Both ways of adding the runs' counts up: the C extension's, and numpy's without it."""
    if request.param == "numpy":
        monkeypatch.setattr(pww, "rle_cover", None)
    elif pww.rle_cover is None:
        pytest.skip("the C extension is not built")
    return str(request.param)


@pytest.mark.parametrize(("data", "cells", "run", "read"), [
    (b"\x02A\x03B\x05C", 5, 2, 4),  # 2 + 3: the runs that reach the squares, no more
    (b"\x02A\x03B\x05C", 6, 2, 6),  # 2 + 3 + 5 passes 6: the last run may go past
    (b"\x00A\x05B\x01C", 5, 2, 4),  # a run of no squares is still a run
    (b"\x02A\x00\x03B\x00\x09", 5, 3, 6),  # 1.3.0 on: a u16 feature after each count
    (b"\x02A", 0, 2, 0),  # a level of no squares has no runs
])
def test_the_terrain_runs_read_are_those_that_cover_the_level(data: bytes, cells: int, run: int,
                                                              read: int, walk: str) -> None:
    r = Reader(data)
    assert pww.read_feat_runs(r, cells, "feat", run) == data[:read] and r.pos == read
    pww.check_feat_runs(data[:read], cells, "feat", run)


def test_terrain_runs_that_do_not_just_cover_the_level_are_refused(walk: str) -> None:
    with pytest.raises(FormatError, match="10 squares before the end of the block"):
        pww.read_feat_runs(Reader(b"\x02A\x03B\x05C\x07"), 11, "feat", 2)  # (a half run at the end)
    with pytest.raises(FormatError, match="6 bytes covering 5"):
        pww.check_feat_runs(b"\x02A\x03B\x01C", 5, "feat", 2)  # a run too many
    with pytest.raises(FormatError, match="3 bytes covering 2"):
        pww.check_feat_runs(b"\x02A\x03", 5, "feat", 2)  # a half run


def test_a_1_6_history_that_reads_only_as_names_in_an_indexes_file_stays_raw() -> None:
    """The first entry's name (its NUL at byte 19, after the u16 artifact 0) made 0xFF: read
    as indexes the entry's strings run on past the block; read as names the artifact is "" and
    the name "" (the two 0 bytes), and it fits. Misc settled the indexes build, and from 1.6.0
    an entry differs between the builds even without an artifact: the block stays raw, saying
    so (it was read as names and claimed to be of that build, or failed to write back)."""
    data = SAVETEST.read_bytes()
    start, size = block_span(data, "history")
    body = bytearray(data[start + 28:start + 28 + size])
    assert body[17:20] == b"\0\0\0"  # the artifact (u16 0) and the empty name
    body[19] = 0xFF
    report = Report()
    save = block.parse(replace_block(data, "history", bytes(body)), report)
    raw = [b for b in save.blocks if isinstance(b, RawBlock)]
    assert [(b.name, b.failed) for b in raw] == [("history", True)]
    assert raw[0].reason == ("the PWMAngband layout needs the build the 'misc' block was written by (indexes); "
                             "this block reads only as the SAVE_AS_STRINGS (names) build")


@pytest.mark.parametrize("path", GAME_WRITTEN, ids=_id)
def test_mutated_blocks_that_decode_write_back_the_same_bytes(path: Path) -> None:
    """The exactness a load relies on, held on damaged input: bytes of each block changed
    (seeded), and every file whose changed block still decodes (no re-encoding in the load)
    rebuilds byte for byte. (The description block is the container's, not a layout's.)"""
    import random

    from .support import blocks_of

    rng = random.Random(19)
    data = path.read_bytes()
    decoded = 0
    for _, name, _, size, _ in blocks_of(data):
        if size == 0 or name == "description":
            continue
        start, _ = block_span(data, name)
        for _ in range(12):
            body = bytearray(data[start + 28:start + 28 + size])
            for _ in range(rng.choice((1, 2, 3))):
                i = rng.randrange(size)
                body[i] = rng.choice((0, 1, 2, 0xFF, rng.randrange(256), body[i] ^ (1 << rng.randrange(8))))
            mutated = replace_block(data, name, bytes(body))
            save = block.parse(mutated, Report())
            if any(isinstance(b, RawBlock) for b in save.blocks):
                continue
            decoded += 1
            assert block.build(save) == mutated, name
    assert decoded >= 8, decoded


@pytest.mark.parametrize(("path", "thefts", "expected"), [
    (BUILT / "pwmangband-1.5.0" / "Fivetest", None, "expected an integer from -32768 to 32767 (i16), found None"),
    (SAVETEST, None, "expected an integer from -32768 to 32767 (i16), found None"),
    pytest.param(ARCHY, 5, "expected thefts from 1.4.0 on, found True", marks=real_samples),
], ids=lambda v: _id(v) if isinstance(v, Path) else None)
def test_the_lore_writer_refuses_thefts_the_magic_does_not_store(path: Path, thefts: int | None,
                                                                 expected: str) -> None:
    """Thefts are stored from 1.4.0 on (a plain field of the lore record, which the record
    program reads): a race without them is refused there, and one with them before."""
    save = block.parse(path.read_bytes(), Report(strict=True))
    _named(save, "monster memory").races[3].thefts = thefts
    with pytest.raises(FormatError) as err:
        block.build(save)
    assert str(err.value) == f"blocks[2].races[3].thefts: {expected}"


def test_a_player_file_is_validated_without_importing_numpy() -> None:
    """numpy's import is 40-60 ms, more than the rest of a small file's start-up: the terrain runs
    are added up by the C walk (the C extension built), as the other games' level layers are."""
    if pww.rle_cover is None:
        pytest.skip("the C extension is not built")
    require()
    path = SAMPLES / "angband-block-variants" / "pwmangband-1.3.0b1_Archy.sav"
    done = subprocess.run([sys.executable, "-c", "import sys\nfrom savecraft import api\n"
                           f"assert api.validate(open({str(path)!r}, 'rb').read()).ok\n"
                           "print('numpy' in sys.modules)"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"
