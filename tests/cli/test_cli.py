"""The command line contract: output shapes, exit statuses, and never a traceback."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import savecraft
from savecraft.cli import main
from savecraft.formats.tirnanog.save import sample


@pytest.fixture()
def saves(tmp_path: Path) -> dict[str, Path]:
    player = tmp_path / "player.sav"
    server = tmp_path / "server.sav"
    savecraft.save(sample.player_save(), player)
    savecraft.save(sample.server_save(users=5), server)
    return {"player": player, "server": server}


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "savecraft", *args], capture_output=True, text=True,
                          timeout=120)


def test_info_text_and_json(saves: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["info", str(saves["player"])]) == 0
    out = capsys.readouterr().out
    assert "tirnanog-save" in out and "game id: sample-world" in out
    assert "users: Brigid" in out and "play time: 5:17:09" in out
    assert main(["info", "--json", str(saves["server"])]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["format"] == "tirnanog-save"
    assert doc["chunks"]["USER"] == 5 and doc["kind"] == "server"
    assert doc["users"][:2] == ["Brigid", "Aoife"] and doc["user_count"] == 5


def test_validate_ok_and_problem_lines(saves: dict[str, Path], tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(saves["player"])]) == 0
    assert capsys.readouterr().out == ""  # one good file: silence
    assert main(["validate", str(saves["player"]), str(saves["server"])]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"{saves['player']}: ok (tirnanog-save)", f"{saves['server']}: ok (tirnanog-save)",
        "2 files: 2 ok, 0 with problems"]
    bad = tmp_path / "bad.sav"
    bad.write_bytes(saves["server"].read_bytes()[:-4] + b"\0\0\0\0")
    assert main(["validate", str(bad)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(f"{bad}: offset 0x")
    assert ": crc: expected 0x" in lines[0]


def test_validate_usage_and_unreadable(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(tmp_path / "missing.sav")]) == 2
    assert "cannot read" in capsys.readouterr().err
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["validate", str(empty)]) == 2
    assert "no files" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main(["validate"])
    assert exc.value.code == 2


def test_dump_then_build_gives_the_original_bytes(saves: dict[str, Path], tmp_path: Path) -> None:
    for path in saves.values():
        out = tmp_path / (path.stem + ".json")
        rebuilt = tmp_path / (path.stem + ".rebuilt")
        assert main(["dump", str(path), "-o", str(out)]) == 0
        doc = json.loads(out.read_text())
        assert doc["format"] == "tirnanog-save"
        assert main(["build", str(out), "-o", str(rebuilt)]) == 0
        assert rebuilt.read_bytes() == path.read_bytes()


def test_dump_to_stdout(saves: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dump", str(saves["player"])]) == 0
    assert json.loads(capsys.readouterr().out)["data"]["game_id"] == "sample-world"


def test_build_from_bad_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "tirnanog-save", "savecraft": 1, "data": {"game_id": 5}}')
    assert main(["build", str(bad), "-o", str(tmp_path / "x.sav")]) == 1
    err = capsys.readouterr().err
    assert "game_id: expected a string" in err and "data.game_id" not in err
    assert not (tmp_path / "x.sav").exists()
    bad.write_text("{not json")
    assert main(["build", str(bad), "-o", str(tmp_path / "x.sav")]) == 1
    assert "valid JSON" in capsys.readouterr().err


def test_extract_writes_preview_png_and_a_json_per_chunk(saves: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "x"
    assert main(["extract", str(saves["player"]), "-o", str(out)]) == 0
    names = sorted(p.name for p in out.iterdir())
    assert "preview.png" in names
    assert [n for n in names if n.endswith(".json") and n[0].isdigit()] == [
        "00000-GLBL.json", "00001-QSTS.json", "00002-USER-Brigid.json"]
    assert (out / "preview.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    user = json.loads((out / "00002-USER-Brigid.json").read_text())
    assert user["kind"] == "USER" and user["name"] == "Brigid"


def test_bad_input_is_one_line_never_a_traceback(tmp_path: Path) -> None:
    cases = {
        "empty.sav": b"",
        "garbage.sav": b"\x00\x01garbage" * 10,
        "truncated.sav": savecraft.build(sample.server_save(users=2))[:60],
    }
    for name, data in cases.items():
        p = tmp_path / name
        p.write_bytes(data)
        for cmd in (["info"], ["dump"], ["extract", "-o", str(tmp_path / "out")]):
            r = run(*cmd[:1], str(p), *cmd[1:])
            assert r.returncode == 1, (name, cmd, r.stderr)
            assert "Traceback" not in r.stderr
            assert len(r.stderr.strip().splitlines()) == 1, r.stderr
            assert r.stderr.startswith("savecraft: error: ")


def test_demo(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "-o", str(tmp_path / "demo")]) == 0
    out = capsys.readouterr().out
    assert "player.sav: tirnanog-save" in out and "server.sav: tirnanog-save" in out
    assert "rebuilt byte for byte: NO" not in out


def test_a_bug_is_still_one_line(monkeypatch: pytest.MonkeyPatch, saves: dict[str, Path],
                                 capsys: pytest.CaptureFixture[str]) -> None:
    from savecraft import api

    def broken(*args: object, **kwargs: object) -> None:
        raise IndexError("list index out of range")

    monkeypatch.setattr(api, "parse_format", broken)
    monkeypatch.delenv("SAVECRAFT_DEBUG", raising=False)
    assert main(["info", str(saves["player"])]) == 70
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("savecraft: internal error: IndexError")
    monkeypatch.setenv("SAVECRAFT_DEBUG", "1")
    with pytest.raises(IndexError):
        main(["info", str(saves["player"])])


def test_build_over_an_existing_file_keeps_a_backup(saves: dict[str, Path], tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    dump = tmp_path / "p.json"
    assert main(["dump", str(saves["player"]), "-o", str(dump)]) == 0
    target = tmp_path / "target.sav"
    target.write_bytes(b"precious")
    assert main(["build", str(dump), "-o", str(target)]) == 0
    assert (tmp_path / "target.sav.bak").read_bytes() == b"precious"
    assert target.read_bytes() == saves["player"].read_bytes()
    assert main(["build", str(dump), "-o", str(target)]) == 0  # same bytes: nothing written
    assert "unchanged" in capsys.readouterr().out
    (tmp_path / "target.sav.bak").unlink()
    target.write_bytes(b"scratch")
    assert main(["build", str(dump), "-o", str(target), "--no-backup"]) == 0
    assert not (tmp_path / "target.sav.bak").exists()
