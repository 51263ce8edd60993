"""``savecraft hexdump``: offsets, bytes, text and field paths, paged, for the file, a field, a stream or an offset."""

from __future__ import annotations

import contextlib
import io
import re
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from savecraft import spans
from savecraft.cli import main
from savecraft.commands import hexdump
from savecraft.formats.tirnanog.game import sample as game_sample
from savecraft.formats.tirnanog.save import codec
from savecraft.formats.tirnanog.save import sample

ROW = re.compile(r"^[0-9a-f]{8}  $")


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    p = tmp_path_factory.mktemp("hex") / "world.sav"
    p.write_bytes(codec.build(sample.server_save(5)))
    return p


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> Path:
    p = tmp_path_factory.mktemp("hex") / "game.tng"
    p.write_bytes(game_sample.build_sample_game())
    return p


def run(*args: str) -> subprocess.CompletedProcess[str]:
    """The command in this process (fast); one test below runs it as a real subprocess."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(["hexdump", *args])
        except SystemExit as exc:
            code = int(exc.code or 0)
    return subprocess.CompletedProcess(args, code, out.getvalue(), err.getvalue())


def test_as_a_subprocess(world: Path) -> None:
    res = subprocess.run([sys.executable, "-m", "savecraft", "hexdump", str(world), "--at", "0"],
                         capture_output=True, text=True, timeout=60)
    assert res.returncode == 0 and res.stdout.splitlines()[0] == "magic: 16 bytes at 0x0 in file"


def parse_rows(text: str) -> list[tuple[int, bytes, str]]:
    """(offset, bytes, field) of each row, checking each row's bytes sit in their columns."""
    out = []
    for line in text.splitlines():
        if not ROW.match(line[:10]):
            continue
        offset = int(line[:8], 16)
        cells = [line[10 + 3 * i : 12 + 3 * i] for i in range(16)]
        first = next(i for i, c in enumerate(cells) if c.strip())
        assert first == offset % 16, line
        raw = bytes(int(c, 16) for c in cells[first:] if c.strip())
        assert line[59 + first : 59 + first + len(raw)] == "".join(
            chr(b) if 0x20 <= b < 0x7F else "." for b in raw), line
        out.append((offset, raw, line[77:]))
    return out


def test_whole_file_rows_name_each_field(world: Path) -> None:
    res = run(str(world), "--length", "64")
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert lines[0] == f"file: {world.stat().st_size} bytes (tirnanog-save)"
    rows = parse_rows(res.stdout)
    data = world.read_bytes()
    assert rows[0] == (0, data[:16], "magic")
    assert rows[1] == (16, data[16:32], "game_id")
    assert rows[2][2].startswith("payload (compressed;")
    assert b"".join(r[1] for r in rows) == data[:64]
    assert lines[-1].startswith(f"-- {len(data) - 64} more bytes: --offset 0x40")


def test_one_fields_bytes_by_a_key_path(world: Path) -> None:
    smap = spans.record(world.read_bytes())
    entity = smap.span_of("users[name=Brigid].entity")
    assert entity is not None
    res = run(str(world), "users[name=Brigid].entity")
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines()[0] == f"{entity.path}: {entity.length} bytes at 0x{entity.offset:X} in payload"
    rows = parse_rows(res.stdout)
    payload = smap.spaces()["payload"].data
    assert rows[0][0] == entity.offset
    assert b"".join(r[1] for r in rows) == payload[entity.offset : entity.end]
    fields = [r[2] for r in rows]
    assert f"{entity.path}.x" in fields and f"{entity.path}.inventory[0].object_id" in fields
    # A field split across a row boundary keeps its name on both rows.
    assert all(f.startswith(entity.path) for f in fields)


def test_at_an_offset_hex_or_decimal(world: Path) -> None:
    data = world.read_bytes()
    hexed = run(str(world), "--at", "0x14")
    dec = run(str(world), "--at", "20")
    assert hexed.returncode == 0 and hexed.stdout == dec.stdout
    assert hexed.stdout.splitlines()[0] == "game_id: 16 bytes at 0x10 in file"
    assert parse_rows(hexed.stdout) == [(16, data[16:32], "game_id")]
    crc = run(str(world), "--at", str(len(data) - 1))
    assert crc.stdout.splitlines()[0] == f"crc: 4 bytes at 0x{len(data) - 4:X} in file"


def test_streams_are_shown_inflated_with_their_own_offsets(world: Path) -> None:
    data = world.read_bytes()
    res = run(str(world), "payload", "--length", "32")
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines()[0] == (f"payload: {len(zlib.decompress(data[32:-4]))} bytes, inflated from "
                                          f"the {len(data) - 36} bytes at 0x20 in file")
    rows = parse_rows(res.stdout)
    assert rows[0] == (0, b"DENY", "deny.magic")
    at = run(str(world), "--space", "payload", "--at", "0x4")
    assert at.stdout.splitlines()[0] == "deny.size: 4 bytes at 0x4 in payload"


def test_paging_with_offset_and_length(world: Path) -> None:
    data = world.read_bytes()
    res = run(str(world), "--offset", "0x30", "--length", "8")
    rows = parse_rows(res.stdout)
    assert rows[0][0] == 0x30 and b"".join(r[1] for r in rows) == data[0x30:0x38]


def test_game_assets_and_section_block(game: Path) -> None:
    where = "maps.maps[0].asset"
    res = run(str(game), where, "--length", "16")
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines()[0].startswith(f"{where}: ") and "inflated from" in res.stdout
    assert parse_rows(res.stdout)[0][2] == f"{where}.value.header.title"
    inner = run(str(game), "--space", where, "--at", "1")
    assert inner.stdout.splitlines()[0] == f"{where}.value.header.title: 3 bytes at 0x0 in {where}"
    head = run(str(game), "--at", "56")
    assert head.stdout.splitlines()[0] == "header.crc: 4 bytes at 0x38 in file"


def test_large_files_are_mapped_and_read_only_where_shown(game: Path, monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    import mmap

    from savecraft import fileio
    from savecraft.commands.files import read_file

    monkeypatch.setattr(fileio, "MAP_FROM", 1)  # the one reader maps from this size
    assert isinstance(read_file(str(game), mapped=True), mmap.mmap)
    assert main(["hexdump", str(game), "--at", "0x40"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "sections.size: 4 bytes at 0x40 in file"


def test_usage_errors_exit_2(world: Path, tmp_path: Path) -> None:
    for args in (["users[99]"], ["nothing.here"], ["--at", "0x999999"], ["--at", "zz"],
                 ["--space", "nope", "--at", "1"], ["magic", "--at", "1"]):
        res = run(str(world), *args)
        assert res.returncode == 2, (args, res.stdout, res.stderr)
        assert res.stderr.startswith(("savecraft: error:", "usage:")) and "Traceback" not in res.stderr
    missing = run(str(tmp_path / "missing.sav"))
    assert missing.returncode == 2


def test_not_a_known_format_exits_1(tmp_path: Path) -> None:
    p = tmp_path / "junk.bin"
    p.write_bytes(b"nothing we know" * 4)
    res = run(str(p))
    assert res.returncode == 1 and "savecraft: error:" in res.stderr


def test_problems_in_the_window_are_listed(world: Path, tmp_path: Path) -> None:
    data = world.read_bytes()
    bad = tmp_path / "bad.sav"
    bad.write_bytes(data[:-4] + bytes(4))
    res = run(str(bad), "crc")
    assert res.returncode == 0
    assert res.stdout.splitlines()[-1].startswith(f"!! offset 0x{len(data) - 4:08X}: crc: expected")
