"""info: a summary (lists capped), JSON that is data (docs/info-json.md), fast on large saves."""

from __future__ import annotations

import gc
import json
from pathlib import Path

import pytest

import savecraft
from savecraft.cli import main
from savecraft.compression import Container, Deflated, compress, reproduces
from savecraft.formats.qfg5 import sample as qfg5_sample
from savecraft.formats.tirnanog.save import codec
from savecraft.formats.tirnanog.save import sample as tng_sample

from tests.samples import SAMPLES, real_samples

from .info_convention import check_info

TNG_SAVE_KEYS = {"file", "format", "description", "game_id", "kind", "chunks", "user_count", "users",
                 "banned_users"}
QFG5_KEYS = {"file", "format", "description", "player_type", "inventory_items", "dialogue_rooms",
             "object_count", "object_slots", "rooms", "rooms_with_objects", "equipment", "belt",
             "current_room", "noise_bytes"}


def info_json(path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    assert main(["info", "--json", str(path)]) == 0
    doc: dict[str, object] = json.loads(capsys.readouterr().out)
    return doc


def test_tirnanog_save_info_follows_the_convention(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    server = tng_sample.server_save(users=5)
    server.users[1].flags |= 1
    savecraft.save(server, tmp_path / "server.sav")
    savecraft.save(tng_sample.player_save(), tmp_path / "player.sav")
    doc = info_json(tmp_path / "server.sav", capsys)
    check_info(doc, data_keys={"chunks"})
    assert set(doc) == TNG_SAVE_KEYS
    assert doc["kind"] == "server" and doc["user_count"] == 5 and doc["banned_users"] == ["Aoife"]
    doc = info_json(tmp_path / "player.sav", capsys)
    check_info(doc, data_keys={"chunks"})
    assert set(doc) == TNG_SAVE_KEYS | {"play_time_seconds", "last_seen"}
    assert doc["play_time_seconds"] == 5 * 3600 + 17 * 60 + 9
    assert isinstance(doc["last_seen"], str) and doc["last_seen"].endswith("Z")


def test_qfg5_info_follows_the_convention(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    save = qfg5_sample.qfg5_save()
    savecraft.save(save, tmp_path / "q.sav")
    doc = info_json(tmp_path / "q.sav", capsys)
    check_info(doc)
    assert set(doc) == QFG5_KEYS
    assert doc["object_count"] == save.object_count and doc["rooms"] == len(save.rooms)


def test_the_checker_refuses_prose(tmp_path: Path) -> None:
    base = {"file": "f", "format": "x", "description": "d"}
    for bad in ({"tile size": 1}, {"tile_size": "32 x 32"}, {"crc": "0x115A548C"},
                {"objects": "74 in 25 of 133 rooms (91 slots)"}, {"status": "alive (1)"},
                {"user_count": "5"}, {"mixed": [1, "a"]}):
        with pytest.raises(AssertionError):
            check_info({**base, **bad})


def test_text_lists_are_capped_unless_all(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    savecraft.save(tng_sample.server_save(users=30), tmp_path / "s.sav")
    assert main(["info", str(tmp_path / "s.sav")]) == 0
    out = capsys.readouterr().out
    assert "and 10 more" in out and "user count: 30" in out
    assert main(["info", "--all", str(tmp_path / "s.sav")]) == 0
    out = capsys.readouterr().out
    assert "more" not in out


def test_info_reads_user_names_without_decoding_the_users() -> None:
    data = savecraft.build(tng_sample.server_save(users=20))
    save = savecraft.load(data)
    from savecraft.formats.tirnanog.save import FORMAT

    summary = FORMAT.info(save)
    assert summary["user_count"] == 20
    assert all(save.chunks.raw_or_none(i) is not None for i in range(len(save.chunks)))


def test_validate_decodes_with_the_collector_paused(monkeypatch: pytest.MonkeyPatch) -> None:
    data = savecraft.build(tng_sample.server_save(users=5))
    states: list[bool] = []
    real = codec.decode_chunk

    def spy(raw: bytes, offset: int, path: str = "") -> object:
        states.append(gc.isenabled())
        return real(raw, offset, path)

    monkeypatch.setattr(codec, "decode_chunk", spy)
    assert gc.isenabled()
    assert savecraft.validate(data).ok
    assert states and not any(states)
    assert gc.isenabled()


def test_the_level_search_refuses_wrong_levels_early_and_confirms_the_right_one() -> None:
    content = bytes(range(256)) * 4000 + b"tail" * 5000
    nine = compress(content, Container.ZLIB, 9)
    assert reproduces(content, nine, Container.ZLIB, 9)
    assert not reproduces(content, nine[:-1] + bytes([nine[-1] ^ 1]), Container.ZLIB, 9)
    assert not reproduces(content, nine + b"x", Container.ZLIB, 9)
    d = Deflated.from_stream(nine, content, Container.ZLIB)
    d.settle(content)
    assert d.level in (9, 7, 8) and d.original is None and d.compress(content) == nine
    other = __import__("zlib").compressobj(6, 8, 15, 8, 1)  # Z_FILTERED: no level reproduces it
    odd = other.compress(content) + other.flush()
    d = Deflated.from_stream(odd, content, Container.ZLIB)
    d.settle(content)
    if d.level is None:
        assert d.original == odd and d.compress(content) == odd


# -- how info reads on a terminal, piped, and on a damaged file -------------------------------------

LORENZ = SAMPLES / "angband-block-more" / "angband_4.2.2+_Lorenz.sav"
HALF_WRITTEN = SAMPLES / "angband-truncated" / "vanilla-4.0.1_half-written.sav"
ARALORN = SAMPLES / "angband-block-more" / "angband_4.0.2_Aralorn-Copy-truncated131072.sav"


def _run(*argv: str, columns: int = 100) -> "subprocess.CompletedProcess[str]":
    import os
    import subprocess
    import sys

    env = {**os.environ, "COLUMNS": str(columns)}
    env.pop("NO_COLOR", None)
    return subprocess.run([sys.executable, "-m", "savecraft", *argv], capture_output=True, text=True,
                          env=env, timeout=120)


def _plain(text: str) -> list[str]:
    import re

    return [re.sub(r"\x1b\[[0-9;]*m", "", line).rstrip() for line in text.splitlines()]


@real_samples
def test_terminal_sheet_keeps_every_value_beside_its_key() -> None:
    out = _run("info", "--color=always", str(LORENZ))
    assert out.returncode == 0, out.stderr
    lines = _plain(out.stdout)
    import re

    assert all(not re.sub(r"\x1b\[[0-9;]*m", "", line).endswith(" ") for line in out.stdout.splitlines())
    # No nested record is pushed into the value column under an empty key.
    assert not any(line.startswith(" ") and line.strip().endswith(":") for line in lines), lines
    assert any(line.startswith("experience") and "current 186768, max 186768" in line for line in lines)
    # The five stats are one table: a header row, then one row a stat.
    header = next(i for i, line in enumerate(lines) if line.startswith("stats"))
    assert lines[header].split()[1:] == ["current", "max", "shown"]
    assert [lines[header + k].split()[0] for k in range(1, 6)] == ["str", "int", "wis", "dex", "con"]
    piped = _run("info", "--color=never", str(LORENZ)).stdout.splitlines()
    assert len(lines) <= len(piped) - 15  # stats: 6 lines, not 21; experience and points: 3, not 9


@real_samples
def test_terminal_lists_wrap_between_items_never_inside_one() -> None:
    plain = _run("info", "--color=never", str(LORENZ)).stdout
    items = [x.strip() for x in plain.split("inventory: ", 1)[1].split("\n  variant")[0]
             .replace("\n", " ").split(", ")]
    for columns in (60, 80, 120):
        lines = _plain(_run("info", "--color=always", str(LORENZ), columns=columns).stdout)
        assert all(len(line) <= columns for line in lines[1:]), columns  # the head: as long as the path
        start = next(i for i, line in enumerate(lines) if line.startswith("inventory"))
        key_width = len(lines[start]) - len(lines[start][len("inventory"):].lstrip())
        shown: list[str] = []
        for line in lines[start:]:
            if line[:key_width].strip() and line is not lines[start]:
                break
            shown += [x.strip() for x in line[key_width:].split(",") if x.strip()]
        assert shown == [x.rstrip(",") for x in items], columns


def test_piped_info_is_plain_indented_text(tmp_path: Path) -> None:
    savecraft.save(tng_sample.server_save(users=3), tmp_path / "s.sav")
    out = _run("info", str(tmp_path / "s.sav"))
    assert out.returncode == 0 and "\x1b[" not in out.stdout
    assert "  user count: 3" in out.stdout.splitlines()


@real_samples
@pytest.mark.parametrize("path, shown", [(HALF_WRITTEN, ["name: Alkis", "- name quests, version 1"]),
                                         (ARALORN, ["name: Aralorn", "gold: 207589"])])
@pytest.mark.parametrize("color", ["never", "always"])
def test_a_damaged_file_shows_what_could_be_read_then_where_it_stopped(
        path: Path, shown: list[str], color: str) -> None:
    out = _run("info", f"--color={color}", str(path))
    assert out.returncode == 1
    text = "\n".join(_plain(out.stdout))
    assert "damaged" in text.splitlines()[0]
    if color == "never":
        assert all(s in text for s in shown), text
    else:
        assert shown[0].replace(": ", " ").split()[-1] in text
    err = out.stderr.strip().splitlines()
    assert len(err) == 1 and "offset 0x" in err[0] and "blocks[" in err[0], out.stderr
    assert "Traceback" not in out.stderr


@real_samples
def test_json_of_a_damaged_file_is_the_readable_part_and_exit_1() -> None:
    out = _run("info", "--json", str(HALF_WRITTEN))
    assert out.returncode == 1 and json.loads(out.stdout)["name"] == "Alkis"
    assert out.stderr.count("\n") == 1 and "offset 0x00000F6C" in out.stderr
