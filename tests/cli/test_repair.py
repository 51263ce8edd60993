"""``savecraft repair``: on the damaged real files, and on damage made from real files.

Each test runs the installed command as a user would, and checks what matters
to the player: the result validates, and every value before the damage is the
same as in the file the game wrote (the bytes too, where nothing else changed).
Damage is made from real files (cut, flipped, zeroed), never from savecraft's
own writer.
"""

from __future__ import annotations

import struct
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from savecraft import api, registry
from savecraft.errors import Report
from savecraft.formats.angband import block
from savecraft.formats.angband.decoding import Found
from savecraft.formats.angband.sample import modular_save
from tests.samples import SAMPLES, real_samples

ARALORN = SAMPLES / "angband-block-more" / "angband_4.0.2_Aralorn-Copy-truncated131072.sav"
HALF = SAMPLES / "angband-truncated" / "vanilla-4.0.1_half-written.sav"
V42 = SAMPLES / "angband-block-variants" / "vanilla-4.2_Aduial.sav"
V40 = SAMPLES / "angband-block-more" / "angband_4.0.2_Varis-2a7034d.sav"
PWM = SAMPLES / "angband-block-variants" / "pwmangband-1.3.0b1_Archy.sav"
PONY = SAMPLES / "angband-block" / "ponyband_Asira.sav"
SIL = SAMPLES / "angband-block-more" / "sil_1.3.0_Vexxious.sav"
REAL = [V42, V40, PWM, PONY]
real = real_samples


def _repair(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "savecraft", "repair", *args], capture_output=True,
                          text=True, timeout=120)


def _blocks(data: bytes) -> list[Found]:
    return block.walk(data, Report(strict=False))[1]


def _named(data: bytes, name: str) -> Found:
    return next(f for f in _blocks(data) if f.name == name)


def _end(f: Found) -> int:
    return f.data_start + f.size + (-f.size % 4)


def _decoded(data: bytes) -> list[Any]:
    return block.parse(data, Report(strict=False)).blocks


def _mended(tmp_path: Path, damaged: bytes) -> tuple[subprocess.CompletedProcess[str], bytes | None]:
    src, out = tmp_path / "damaged.sav", tmp_path / "mended.sav"
    src.write_bytes(damaged)
    run = _repair(str(src), "-o", str(out))
    return run, out.read_bytes() if out.exists() else None


def _same_blocks_but(original: bytes, mended: bytes, *skip: str) -> None:
    """Every block of the original but ``skip`` is in the mended file, decoded to the same values."""
    want = [b for b in _decoded(original) if block.block_name(b) not in skip]
    got = [b for b in _decoded(mended) if block.block_name(b) not in skip]
    assert [block.block_name(b) for b in got] == [block.block_name(b) for b in want]
    assert got == want


# -- the damaged real files ------------------------------------------------------------------


@real
def test_truncated_real_file_loses_only_its_cut_history(tmp_path: Path) -> None:
    data = ARALORN.read_bytes()
    run, mended = _mended(tmp_path, data)
    assert run.returncode == 0, run.stderr
    assert "block 'history' needs 3131 bytes, the file ends after 2880" in run.stdout
    assert "lost: block 'history'" in run.stdout
    assert mended is not None and api.validate(mended).ok
    sound = _blocks(data)  # the 20 blocks before the cut: kept byte for byte
    assert len(sound) == 20 and mended == data[:_end(sound[-1])]
    assert api.parse(mended).player is not None  # the character is all there


@real
def test_half_written_real_file_is_refused_with_the_reason(tmp_path: Path) -> None:
    run, mended = _mended(tmp_path, HALF.read_bytes())
    assert run.returncode == 1 and mended is None
    assert "cannot repair: the file ends inside block 'artifacts' (offset 0x00000F50)" in run.stderr
    assert "(player, ignore, misc," in run.stderr and "never written" in run.stderr


@real
def test_sil_cannot_be_repaired_and_says_what_it_is(tmp_path: Path) -> None:
    run = _repair(str(SIL), "-o", str(tmp_path / "out"))
    assert run.returncode == 1 and "cannot repair: a Sil savefile" in run.stderr
    assert not (tmp_path / "out").exists()


# -- damage made from real files -----------------------------------------------------------


@real
@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name)
def test_cut_inside_the_last_block(tmp_path: Path, path: Path) -> None:
    data = path.read_bytes()
    last = _blocks(data)[-1]
    run, mended = _mended(tmp_path, data[:last.data_start + last.size // 2])
    if last.name == "history":  # Vanilla, FAangband: the game loads the character without it
        assert run.returncode == 0, run.stderr
        assert mended == data[:last.start]
        _same_blocks_but(data, mended, "history")
    else:  # PWMAngband writes its home last: no character without it
        assert run.returncode == 1 and mended is None
        assert f"the file ends inside block {last.name!r}" in run.stderr


@real
@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name)
def test_cut_inside_the_player_block_is_refused(tmp_path: Path, path: Path) -> None:
    data = path.read_bytes()
    player = _named(data, "player")
    run, mended = _mended(tmp_path, data[:player.data_start + 10])
    assert run.returncode == 1 and mended is None
    assert "the file ends inside block 'player'" in run.stderr and "never written" in run.stderr


@real
@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name)
def test_flipped_checksum_field_is_recomputed(tmp_path: Path, path: Path) -> None:
    data = path.read_bytes()
    damaged = bytearray(data)
    damaged[_named(data, "player").start + 24] ^= 0x40
    run, mended = _mended(tmp_path, bytes(damaged))
    assert run.returncode == 0, run.stderr
    assert "block 'player': checksum" in run.stdout and "recompute its checksum" in run.stdout
    assert mended == data


@real
@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name)
@pytest.mark.parametrize("delta", [1, 4, 1000])
def test_size_that_disagrees_with_the_data_is_rebuilt(tmp_path: Path, path: Path, delta: int) -> None:
    data = path.read_bytes()
    misc = _named(data, "misc")
    damaged = bytearray(data)
    struct.pack_into("<I", damaged, misc.start + 20, misc.size + delta)
    run, mended = _mended(tmp_path, bytes(damaged))
    assert run.returncode == 0, run.stderr
    assert f"rebuild its size ({misc.size} bytes)" in run.stdout
    assert mended == data


@real
@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name)
def test_flipped_byte_in_the_history(tmp_path: Path, path: Path) -> None:
    """A changed byte under the checksum: kept (the layout still reads it) or the history dropped;
    either way every other block is what the game wrote."""
    data = path.read_bytes()
    history = _named(data, "history")
    damaged = bytearray(data)
    damaged[history.data_start + history.size // 2] ^= 0x01
    run, mended = _mended(tmp_path, bytes(damaged))
    assert run.returncode == 0, run.stderr
    assert mended is not None and api.validate(mended).ok
    _same_blocks_but(data, mended, "history")


@real
@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name)
def test_zeroed_history_data_is_dropped(tmp_path: Path, path: Path) -> None:
    data = path.read_bytes()
    history = _named(data, "history")
    damaged = data[:history.data_start] + bytes(history.size) + data[history.data_start + history.size:]
    run, mended = _mended(tmp_path, damaged)
    assert run.returncode == 0, run.stderr
    assert "lost: block 'history'" in run.stdout
    assert mended is not None and api.validate(mended).ok
    _same_blocks_but(data, mended, "history")


@real
@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name)
def test_zeroed_player_data_is_refused(tmp_path: Path, path: Path) -> None:
    data = path.read_bytes()
    player = _named(data, "player")
    damaged = data[:player.data_start] + bytes(player.size) + data[player.data_start + player.size:]
    run, mended = _mended(tmp_path, damaged)
    assert run.returncode == 1 and mended is None
    assert "block 'player'" in run.stderr and "cannot load a character without it" in run.stderr


@real
@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name)
def test_zeroed_block_with_its_header_is_refused(tmp_path: Path, path: Path) -> None:
    data = path.read_bytes()
    gear = _blocks(data)[5]
    damaged = data[:gear.start] + bytes(_end(gear) - gear.start) + data[_end(gear):]
    run, mended = _mended(tmp_path, damaged)
    assert run.returncode == 1 and mended is None
    assert f"offset 0x{gear.start:08X}" in run.stderr and "cannot be named" in run.stderr


# -- the command -----------------------------------------------------------------------------


@real
def test_in_place_keeps_the_damaged_file(tmp_path: Path) -> None:
    data = ARALORN.read_bytes()
    f = tmp_path / "Aralorn"
    f.write_bytes(data)
    run = _repair(str(f), "--in-place")
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "Aralorn.bak").read_bytes() == data
    assert api.validate(f.read_bytes()).ok


@real
def test_dry_run_writes_nothing(tmp_path: Path) -> None:
    f = tmp_path / "Aralorn"
    f.write_bytes(ARALORN.read_bytes())
    run = _repair(str(f), "--dry-run")
    assert run.returncode == 0 and "dry run, nothing written" in run.stdout
    assert sorted(p.name for p in tmp_path.iterdir()) == ["Aralorn"]
    assert f.read_bytes() == ARALORN.read_bytes()


@real
def test_a_sound_file_has_nothing_to_repair(tmp_path: Path) -> None:
    run = _repair(str(V42), "-o", str(tmp_path / "out"))
    assert run.returncode == 0 and "nothing to repair" in run.stdout
    assert not (tmp_path / "out").exists()


def test_repair_needs_to_be_told_where_to_write(tmp_path: Path) -> None:
    f = tmp_path / "x.sav"
    f.write_bytes(api.build(modular_save()))
    run = _repair(str(f))
    assert run.returncode == 2 and "-o OUT, --in-place, or --dry-run" in run.stderr


def test_other_formats_rebuild_their_checksums(tmp_path: Path) -> None:
    """A format without a repair of its own: its writer recomputes the checksum it keeps."""
    good = api.build(modular_save())
    bad = bytearray(good)
    bad[len(bad) // 2] ^= 0x10  # inside a block's data: its checksum no longer holds
    run, mended = _mended(tmp_path, bytes(bad))
    assert run.returncode == 0, run.stderr
    assert "checksum" in run.stdout and mended is not None and api.validate(mended).ok
    fmt = registry.detect(bytes(bad))
    assert api.parse(mended) == fmt.parse(bytes(bad), Report(strict=False))  # every value read


@real
@pytest.mark.parametrize("path", [V42, V40, PWM], ids=lambda p: p.name)
def test_cut_at_a_block_boundary_before_the_character_is_refused(tmp_path: Path, path: Path) -> None:
    """The loader reads such a file without complaint, but the blocks after the cut were never
    written: the game's save order (its savers table) says which."""
    data = path.read_bytes()
    found = _blocks(data)
    cut = found[10]
    run, mended = _mended(tmp_path, data[:cut.start])
    assert run.returncode == 1 and mended is None
    assert f"the file ends after block {found[9].name!r}" in run.stderr
    assert f"({cut.name}, " in run.stderr and "never written" in run.stderr
    run, mended = _mended(tmp_path, data[:cut.start + 10])  # inside the next block's header
    assert run.returncode == 1 and mended is None
    assert f"offset 0x{cut.start:08X}: the file ends 10 bytes into a block header" in run.stdout


@real
@pytest.mark.parametrize("path", [V42, V40], ids=lambda p: p.name)
def test_a_file_without_its_history_has_nothing_to_repair(tmp_path: Path, path: Path) -> None:
    data = path.read_bytes()
    run, mended = _mended(tmp_path, data[:_named(data, "history").start])
    assert run.returncode == 0 and "nothing to repair" in run.stdout and mended is None
