"""Rebuilds are strict: nothing is filled in, every problem is listed, nothing is written."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import orjson
import pytest

import savecraft
from savecraft import jsonmap
from savecraft.cli import main
from savecraft.errors import FormatError
from savecraft.formats.tirnanog.save import sample
from savecraft.formats.tirnanog.save.model import RawChunk


@pytest.fixture(scope="module")
def dump() -> bytes:
    return jsonmap.dumps(sample.server_save(users=3))


def _problems(doc: Any) -> list[str]:
    with pytest.raises(FormatError) as info:
        jsonmap.from_json(doc)
    return [str(p) for p in info.value.problems]


def _build(tmp_path: Path, text: bytes, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    src = tmp_path / "in.json"
    src.write_bytes(text)
    status = main(["build", str(src), "-o", str(tmp_path / "out.sav")])
    return status, capsys.readouterr().err


def test_a_deleted_line_is_refused_not_filled_with_zero(dump: bytes, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    lines = dump.decode().splitlines(keepends=True)
    gone = next(i for i, line in enumerate(lines) if line.strip().startswith('"x":'))
    text = "".join(lines[:gone] + lines[gone + 1:]).encode()
    status, err = _build(tmp_path, text, capsys)
    assert status == 1
    assert re.search(r"users\[0\]\.entity\.x: expected the field 'x' of Entity, found nothing", err), err
    assert not (tmp_path / "out.sav").exists()


def test_a_bare_user_lists_every_missing_field(dump: bytes) -> None:
    doc = orjson.loads(dump)
    users = [i for i, c in enumerate(doc["data"]["chunks"]) if c["kind"] == "USER"]
    doc["data"]["chunks"][users[0]] = {"kind": "USER"}
    problems = _problems(doc)
    assert len(problems) >= 5
    assert all(p.startswith("users[0].") and "found nothing" in p for p in problems)
    assert any(".name: expected the field 'name'" in p for p in problems)


def test_empty_data_is_refused(dump: bytes) -> None:
    doc = orjson.loads(dump)
    doc["data"] = {}
    problems = _problems(doc)
    assert any(p.startswith("game_id: expected the field") for p in problems)
    assert any(p.startswith("chunks: expected the field") for p in problems)


def test_a_newer_dump_version_is_refused(dump: bytes) -> None:
    doc = orjson.loads(dump)
    doc["savecraft"] = 99
    assert _problems(doc) == ["savecraft: expected a dump version this savecraft reads (up to 1), "
                              "found 99: the dump was written by a newer savecraft"]
    del doc["savecraft"]
    assert "savecraft: expected the dump's version" in _problems(doc)[0]


def test_every_problem_is_listed_at_once(dump: bytes) -> None:
    doc = orjson.loads(dump)
    doc["data"]["game_id"] = 5
    doc["data"]["extra"] = True
    user = next(c for c in doc["data"]["chunks"] if c["kind"] == "USER")
    user["entity"]["y"] = "high"
    problems = _problems(doc)
    assert any(p.startswith("game_id: expected a string, found int 5") for p in problems)
    assert any(p.startswith("extra: expected a field of SaveGame") for p in problems)
    assert any(".entity.y: expected an integer, found str 'high'" in p for p in problems)
    assert len(problems) == 3


def test_a_syntax_error_names_line_and_column(dump: bytes, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    text = dump.replace(b'"game_id"', b'game_id', 1)
    at = text.index(b"game_id")
    line = text[:at].count(b"\n") + 1
    column = at - text.rfind(b"\n", 0, at)
    status, err = _build(tmp_path, text, capsys)
    assert status == 1
    assert f"line {line}, column {column}: expected valid JSON" in err


def test_dumps_round_trip_through_both_passes(dump: bytes) -> None:
    model = jsonmap.loads(dump)
    assert model == sample.server_save(users=3)
    # the careful pass, forced, gives the same model as the fast one
    with jsonmap._Collecting() as problems:
        careful = jsonmap._slow(type(model))(orjson.loads(dump)["data"], "")
    assert problems == [] and careful == model


def test_an_unknown_chunk_magic_is_text_in_dumps() -> None:
    save = sample.server_save(users=1)
    save.chunks.append(RawChunk(b"ZZZZ", b"\x01\x02"))
    doc = jsonmap.to_json(savecraft.parse(savecraft.build(save)))
    raw = [c for c in doc["data"]["chunks"] if c["kind"] == "RAW"]
    assert [c["magic"] for c in raw] == ["XTRA", "ZZZZ"]
    raw = raw[1:]
    assert raw == [{"kind": "RAW", "magic": "ZZZZ", "data": "AQI="}]
    assert jsonmap.from_json(doc) == savecraft.parse(savecraft.build(save))
    raw[0]["magic"] = {"base64": "AAEC/w=="}
    assert jsonmap.from_json(doc).chunks[-1].magic == b"\x00\x01\x02\xff"


def test_optional_fields_are_declared_in_one_place() -> None:
    for fmt in savecraft.registry.formats():
        assert isinstance(jsonmap.optional_fields(fmt.model), list)


def test_dumps_writes_what_to_json_says_for_every_format() -> None:
    """``dumps`` leaves plain dataclasses to orjson; the text must not change by it."""
    from savecraft.formats.angband import sample as angband_sample
    from savecraft.formats.qfg5 import sample as qfg5_sample
    from savecraft.formats.tirnanog.game.sample import build_sample_game

    models = [sample.server_save(users=4), sample.player_save(),
              savecraft.parse(build_sample_game()), angband_sample.modular_save(),
              angband_sample.block_save(), qfg5_sample.qfg5_save()]
    for model in models:
        expected = orjson.dumps(jsonmap.to_json(model),
                                option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE)
        assert jsonmap.dumps(model) == expected, type(model).__name__
        assert jsonmap.loads(jsonmap.dumps(model)) == model


def test_a_line_deleted_in_the_editor_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """The $EDITOR flow: deleting ``"x": 937,`` used to write x = 0 without a word."""
    import sys

    target = tmp_path / "player.sav"
    savecraft.save(sample.player_save(), target)
    original = target.read_bytes()
    script = tmp_path / "editor.py"
    script.write_text("import sys\np = sys.argv[1]\nlines = open(p).read().splitlines(True)\n"
                      "i = next(i for i, l in enumerate(lines) if l.strip().startswith('\"x\":'))\n"
                      "open(p, 'w').write(''.join(lines[:i] + lines[i + 1:]))\n")
    monkeypatch.setenv("EDITOR", f"{sys.executable} {script}")
    monkeypatch.delenv("VISUAL", raising=False)
    assert main(["edit", str(target)]) == 1
    err = capsys.readouterr().err
    assert "edit refused, nothing written" in err
    assert "entity.x: expected the field 'x' of Entity, found nothing" in err
    assert target.read_bytes() == original
