"""PWMAngband and Tangaria records read and written by their C record programs.

The server file's monster record (its race Check, its blows whose absent fields hold
defaults), the gear entry and the object lists up to their end record have programs derived
from their one description (layout/native.py). The generated Python reads and writes the same
files; these tests hold the two paths to each other on every PWMAngband and Tangaria file, and
on files damaged where the programs give up: a race the loader refuses, a known copy of no kind.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from savecraft import compiled
from savecraft.errors import FormatError, Report
from savecraft.formats.angband import block
from savecraft.formats.angband.block import BlockSave
from savecraft.layout import Context, native
from tests.angband.support import run_savecraft
from tests.samples import SAMPLES, real_samples

BUILT = Path(__file__).resolve().parent.parent / "data" / "angband-built"
MORE = SAMPLES / "angband-block-more"
SERVER = MORE / "pwmangband_1.3.0b1_server.pwmg"
BRAINIAC = MORE / "pwmangband_1.2.0b2_Brainiac.pwmg"
REAL_PWM = [*sorted(MORE.glob("pwmangband_*.pwmg")),
            SAMPLES / "angband-block-variants" / "pwmangband-1.3.0b1_Archy.sav"]
BUILT_PWM = sorted(p for p in BUILT.glob("pwmangband-*/*") if p.name != "README.md")

needs_records = pytest.mark.skipif(not compiled.active("records"),
                                   reason="the C extension is not built or is turned off")


def _named(save: BlockSave, name: str) -> Any:
    return next(b for b in save.blocks if block.block_name(b) == name)


def _both(data: bytes) -> tuple[BlockSave | str, BlockSave | str]:
    """The file read through the programs and through the generated Python alone: each
    path's model, or its error's text."""
    out: list[BlockSave | str] = []
    for pure in (False, True):
        try:
            if pure:
                with native.suspended():
                    out.append(block.parse(data, Report(strict=True)))
            else:
                out.append(block.parse(data, Report(strict=True)))
        except FormatError as err:
            out.append(str(err))
    return out[0], out[1]


def _same_both_ways(data: bytes) -> BlockSave:
    fast, pure = _both(data)
    assert isinstance(fast, BlockSave) and isinstance(pure, BlockSave)
    assert fast == pure and fast.game == pure.game
    built = block.build(fast)
    with native.suspended():
        assert block.build(pure) == built
    return fast


@needs_records
def test_the_records_of_the_profile_have_programs() -> None:
    from savecraft.formats.angband.layouts import pwmangband_server as pws
    from savecraft.formats.angband.layouts import pwmangband_world as pww

    head, groups = pws._MONSTERS[False]
    assert native.program_of(head) is not None and native.program_of(groups) is not None
    blow = native.program_of(pws._BLOW)
    assert blow is not None and [c for _, c, _ in blow.specs] == ["B", "~", "B", "B", "B"]
    head_prog = native.program_of(head)
    assert head_prog is not None and len(head_prog.tests) == 1  # the race the loader refuses
    for key in ((False, False, False), (True, False, False), (True, True, False)):
        assert native.program_of(pww._GEAR[key]) is not None


@needs_records
def test_a_blow_without_a_method_holds_the_defaults_and_writes_one_byte() -> None:
    from savecraft.binary import Reader, Writer
    from savecraft.formats.angband.layouts.pwmangband_server import _BLOW, Blow

    prog = native.program_of(_BLOW)
    assert prog is not None
    ctx = Context()
    data = b"\0\3\1\2\3\4"
    got = prog.read(data, 0, len(data), ctx, 3)
    assert got == ([Blow(0, 0, 0, 0), Blow(3, 1, 2, 3), Blow(4, 0, 0, 0)], 6) or got is None
    # (the third is cut short: no program answer, and the generated reader says where)
    got = prog.read(data, 0, 5, ctx, 2)
    assert got == ([Blow(0, 0, 0, 0), Blow(3, 1, 2, 3)], 5)
    with native.suspended():
        r = Reader(data[:5])
        pure = [_BLOW.read(r, ctx, "b"), _BLOW.read(r, ctx, "b")]
    assert pure == got[0]
    # a model whose absent fields hold values: written as the generated writer writes it (the
    # method alone), and read back with the defaults
    odd = [Blow(0, 5, 6, 7), Blow(2, 0, 0, 0)]
    raw = prog.write(odd, ctx)
    with native.suspended():
        w = Writer()
        for b in odd:
            _BLOW.write(b, w, ctx, "b")
    assert raw == w.getvalue() == b"\0\2\0\0\0"
    # a method with its fields None: not the program's to write; the generated writer says so
    assert prog.write([Blow(1, None, 0, 0)], ctx) is None  # type: ignore[arg-type]


@needs_records
def test_read_records_minus_two_needs_an_attribute_name() -> None:
    from savecraft._native import records

    prog = native.program_of(__import__(
        "savecraft.formats.angband.layouts.pwmangband_server", fromlist=["_BLOW"])._BLOW)
    assert prog is not None
    capsule = prog.compiled(Context())
    with pytest.raises(ValueError, match="-2"):
        records.read_records(capsule, b"\0\0", 0, 2, -2, 0)
    # up to the first record whose attribute is true, that one included
    got = records.read_records(capsule, b"\0\1\2\3\4\0\5", 0, 7, -2, "method")
    assert got is not None and [b.method for b in got[0]] == [0, 1] and got[1] == 5


@real_samples
@needs_records
@pytest.mark.parametrize("path", [*REAL_PWM, *BUILT_PWM], ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_pwm_file_reads_and_builds_alike_both_ways(path: Path) -> None:
    data = path.read_bytes()
    save = _same_both_ways(data)
    assert block.build(save) == data


@real_samples
@needs_records
def test_a_monster_of_a_race_the_loader_refuses_is_named_as_before() -> None:
    save = block.parse(SERVER.read_bytes(), Report(strict=True))
    monsters = _named(save, "monsters")
    victim = monsters.levels[0].monsters[3]
    victim.race = 0  # (the writer writes it: the loader is the one that refuses it)
    data = block.build(save)
    fast, pure = _both(data)
    assert isinstance(fast, BlockSave) and isinstance(pure, BlockSave)
    raw, raw_pure = _named(fast, "monsters"), _named(pure, "monsters")
    assert isinstance(raw, block.RawBlock) and raw.failed and raw.reason == raw_pure.reason
    assert "monsters[3].race: expected a monster race (rd_monster: 'Monster race no longer exists!'), found 0" \
        in raw.reason
    path = Path(__file__).parent / "_race0.pwmg"
    try:  # as a user meets it
        path.write_bytes(data)
        done = run_savecraft("validate", str(path))
    finally:
        path.unlink()
    assert done.returncode == 1 and "Monster race no longer exists" in done.stdout + done.stderr


@real_samples
@needs_records
def test_an_object_list_whose_known_copy_has_no_kind() -> None:
    """The end of an object list is the first record of no kind in the place of an object: one
    in the place of a known copy is the pair's (the program's one-call read gives it up, and
    the pairs are read one by one)."""
    save = block.parse(BRAINIAC.read_bytes(), Report(strict=True))
    objects = _named(save, "objects")
    n = len(objects.items)
    objects.items[5].known.tval = objects.items[5].known.sval = 0
    data = block.build(save)
    back = _same_both_ways(data)
    again = _named(back, "objects")
    assert len(again.items) == n and again.items[5].known.tval == 0 and again.items[5].item.tval != 0
    assert block.build(back) == data


@real_samples
@needs_records
def test_gear_and_monsters_written_by_programs_are_the_generated_writers_bytes() -> None:
    """Edits go through the same writers: a gear object's quantity and a held object's
    inscription, built through the programs and through the generated Python alone."""
    for path, edit in ((BRAINIAC, lambda s: setattr(_named(s, "gear").items[0], "quantity", 3)),
                       (SERVER, lambda s: setattr(
                           next(m for m in _named(s, "monsters").levels[0].monsters if m.held).held[0],
                           "note", "mine"))):
        save = block.parse(path.read_bytes(), Report(strict=True))
        edit(save)
        built = block.build(save)
        with native.suspended():
            assert block.build(save) == built
        assert block.build(block.parse(built, Report(strict=True))) == built


@needs_records
def test_the_player_and_misc_records_have_programs() -> None:
    """The player record (Latin-1 history lines: code A; stat arrays counted by the fork: a
    count over the Context decided when compiled) and the misc record (its rune knowledge
    stored when ``not is_dead``: a number's truth, code !) are read by programs."""
    from savecraft.formats.angband.layouts import pwmangband as pwm
    from savecraft.formats.angband.layouts import pwmangband_world as pww

    player, misc = native.program_of(pwm.PLAYER), native.program_of(pww.MISC)
    assert player is not None and "A" in [c for _, c, _ in player.specs]
    assert misc is not None and "!" in [c for _, c, _ in misc.specs]
    # one program per stat count: PWMAngband's five stats, Tangaria's six
    five, six = Context(), Context()
    for ctx, fork in ((five, 0), (six, pwm.TANGARIA)):
        ctx.values.update({pwm.MAGIC: pwm.V1_6, pwm.FORK: fork})
    assert player.compiled(five) is not None and player.compiled(six) is not None
    assert player.compiled(five) is not player.compiled(six)


def _build_errors_both_ways(save: Any) -> list[str]:
    """The error building ``save`` gives through the programs, then through the generated
    writer alone (``native.suspended``): the two must name the same problem."""
    errors = []
    for pure in (False, True):
        try:
            if pure:
                with native.suspended():
                    block.build(save)
            else:
                block.build(save)
        except FormatError as err:
            errors.append(str(err))
    return errors


@real_samples
@needs_records
def test_latin1_history_lines_through_the_program() -> None:
    save = block.parse(BRAINIAC.read_bytes(), Report(strict=True))
    player = _named(save, "player")
    player.history[0] = "Un caf\u00e9 na\u00eff"
    data = block.build(save)
    assert "Un caf\u00e9 na\u00eff".encode("latin-1") in data
    back = _same_both_ways(data)
    assert _named(back, "player").history[0] == "Un caf\u00e9 na\u00eff"
    player.history[0] = "\u20ac"  # no Latin-1 byte: the program leaves it to the generated writer
    errors = _build_errors_both_ways(save)
    assert len(errors) == 2 and errors[0] == errors[1] and "history[0]" in errors[0]


@real_samples
@needs_records
def test_monsters_holding_nothing_are_read_in_runs_around_those_that_hold() -> None:
    """A level's monsters that hold nothing are read (and written) as runs of records in one
    call: monsters holding objects first, last and in the middle break the runs where they
    are, and the file reads back the same both ways; a held list whose end record has a kind
    is the checked writer's error either way."""
    save = block.parse(SERVER.read_bytes(), Report(strict=True))
    mons = _named(save, "monsters").levels[0].monsters
    holder = next(m for m in mons if m.held)
    for j in (0, 40, len(mons) - 1):
        mons[j].held = [holder.held[0]]
    data = block.build(save)
    back = _same_both_ways(data)
    again = _named(back, "monsters").levels[0].monsters
    assert [bool(m.held) for m in again] == [bool(m.held) for m in mons]
    assert block.build(back) == data
    mons[10].held_end = holder.held[0].item  # an object where the end record goes
    errors = _build_errors_both_ways(save)
    assert len(errors) == 2 and errors[0] == errors[1] and "monsters[10].held.end" in errors[0]
