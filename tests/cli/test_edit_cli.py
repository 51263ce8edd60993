"""``savecraft edit`` and ``savecraft diff`` from the command line, $EDITOR included."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import orjson
import pytest

from savecraft import api
from savecraft.cli import main
from savecraft.formats.tirnanog.save.sample import player_save, server_save


@pytest.fixture
def save_file(tmp_path: Path) -> Path:
    p = tmp_path / "player.sav"
    p.write_bytes(api.build(player_save()))
    return p


def files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_set_writes_atomically_with_a_backup(save_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    original = save_file.read_bytes()
    assert main(["edit", str(save_file), "--set", "users[name=Brigid].entity.x=120",
                 "--set", "game_id=new-world"]) == 0
    out, err = capsys.readouterr()
    assert "set users[0].entity.x = 120" in out and 'set game_id = "new-world"' in out
    assert err.startswith(f"wrote {save_file} (") and "player.sav.bak" in err  # the writer's one line
    assert (save_file.parent / "player.sav.bak").read_bytes() == original
    save = api.load(save_file)
    assert (save.game_id, save.users[0].entity.x) == ("new-world", 120)
    assert files(save_file.parent) == ["player.sav", "player.sav.bak"]


def test_set_to_another_file_and_without_backup(save_file: Path, tmp_path: Path) -> None:
    original = save_file.read_bytes()
    out = tmp_path / "out.sav"
    assert main(["edit", str(save_file), "--set", "users[0].name=Aoife", "-o", str(out)]) == 0
    assert save_file.read_bytes() == original
    assert api.load(out).users[0].name == "Aoife"
    assert main(["edit", str(save_file), "--set", "users[0].flags=1", "--no-backup"]) == 0
    assert api.load(save_file).users[0].banned
    assert files(tmp_path) == ["out.sav", "player.sav"]


@pytest.mark.parametrize(("args", "status", "says"), [
    (["--set", "game_id=" + "x" * 17], 1, "game_id: expected a string of at most 16 bytes"),
    (["--set", "users[0].entity.x=4294967296"], 1, "users[0].entity.x: expected an integer from"),
    (["--set", "users[0].entity.x=far"], 1, "expected an integer, found str 'far'"),
    (["--set", "users[0].entity.x=1", "--set", "users[0].language=eng"], 1, "users[0].language"),
    (["--set", "users[name=Nobody].flags=1"], 2, "no item with name = Nobody"),
    (["--set", "users[0].entity"], 2, "expected PATH=VALUE"),
    (["--set", "users[0.x=1"], 2, "never closed"),
])
def test_refused_set_leaves_the_file_byte_identical(save_file: Path, capsys: pytest.CaptureFixture[str],
                                                    args: list[str], status: int, says: str) -> None:
    original = save_file.read_bytes()
    assert main(["edit", str(save_file), *args]) == status
    err = capsys.readouterr().err
    assert says in err and "nothing written" in err
    assert save_file.read_bytes() == original
    assert files(save_file.parent) == ["player.sav"]


def test_edit_of_a_missing_or_corrupt_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["edit", str(tmp_path / "none.sav"), "--set", "game_id=x"]) == 2
    bad = tmp_path / "bad.sav"
    bad.write_bytes(b"TNG Saved Game\n\0" + bytes(20))
    assert main(["edit", str(bad), "--set", "game_id=x"]) == 1
    assert bad.read_bytes() == b"TNG Saved Game\n\0" + bytes(20)


def fake_editor(tmp_path: Path, body: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """An $EDITOR that changes the JSON dump it is given with a few lines of Python."""
    script = tmp_path / "fake_editor.py"
    script.write_text(textwrap.dedent("""\
        import json, sys
        path = sys.argv[1]
        doc = json.load(open(path))
        data = doc["data"]
    """) + textwrap.dedent(body) + "\njson.dump(doc, open(path, 'w'))\n")
    monkeypatch.setenv("EDITOR", f"{sys.executable} {script}")
    monkeypatch.delenv("VISUAL", raising=False)


def test_editor_round_trip(save_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                           capsys: pytest.CaptureFixture[str]) -> None:
    original = save_file.read_bytes()
    fake_editor(tmp_path, """
        user = [c for c in data["chunks"] if c["kind"] == "USER"][0]
        user["entity"]["y"] = 4321
        user["entity"]["inventory"].append({"quantity": 2, "object_id": 9})
    """, monkeypatch)
    assert main(["edit", str(save_file)]) == 0
    out = capsys.readouterr().out
    assert "users[0].entity.y" in out and "entity.inventory[5]" in out
    save = api.load(save_file)
    assert save.users[0].entity.y == 4321
    assert len(save.users[0].entity.inventory) == 6
    assert (tmp_path / "player.sav.bak").read_bytes() == original
    assert api.validate(save_file).ok


def test_editor_result_that_is_invalid_is_refused(save_file: Path, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    original = save_file.read_bytes()
    fake_editor(tmp_path, """
        data["game_id"] = "x" * 40
    """, monkeypatch)
    assert main(["edit", str(save_file)]) == 1
    err = capsys.readouterr().err
    assert "edit refused, nothing written" in err and "game_id" in err
    kept = err.split("kept in ")[1].strip()
    assert orjson.loads(Path(kept).read_bytes())["data"]["game_id"] == "x" * 40
    assert save_file.read_bytes() == original
    assert files(tmp_path) == ["fake_editor.py", "player.sav"]


def test_editor_that_breaks_the_json_or_fails(save_file: Path, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    original = save_file.read_bytes()
    script = tmp_path / "broken.py"
    script.write_text("import sys\nopen(sys.argv[1], 'w').write('{\"format\": ')\n")
    monkeypatch.setenv("EDITOR", f"{sys.executable} {script}")
    assert main(["edit", str(save_file)]) == 1
    assert "valid JSON" in capsys.readouterr().err
    script.write_text("import sys\nsys.exit(3)\n")
    assert main(["edit", str(save_file)]) == 1
    assert "exited with status 3" in capsys.readouterr().err
    monkeypatch.setenv("EDITOR", str(tmp_path / "no-such-editor"))
    assert main(["edit", str(save_file)]) == 2
    assert save_file.read_bytes() == original
    assert files(tmp_path) == ["broken.py", "player.sav"]


def test_editor_closed_without_changes_writes_nothing(save_file: Path, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("EDITOR", "true")
    assert main(["edit", str(save_file)]) == 0
    assert "no changes" in capsys.readouterr().out
    assert files(tmp_path) == ["player.sav"]


def test_diff_exit_status_and_output(save_file: Path, tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    other = tmp_path / "other.sav"
    other.write_bytes(save_file.read_bytes())
    assert main(["diff", str(save_file), str(other)]) == 0
    assert capsys.readouterr().out == ""
    assert main(["edit", str(other), "--set", "users[0].entity.x=5", "--no-backup"]) == 0
    capsys.readouterr()
    assert main(["diff", str(save_file), str(other)]) == 1
    out = capsys.readouterr().out
    assert out.startswith("  users[0].entity.x: ") and out.rstrip().endswith("-> 5  (USER name=Brigid)")
    assert main(["diff", str(save_file), str(other), "--json"]) == 1
    doc = orjson.loads(capsys.readouterr().out)
    assert doc["equal"] is False
    assert [(c["path"], c["new"]) for c in doc["changes"]] == [("users[0].entity.x", 5)]
    assert main(["diff", str(save_file), str(save_file), "--json"]) == 0
    assert orjson.loads(capsys.readouterr().out)["changes"] == []


def test_diff_usage_errors_exit_2(save_file: Path, tmp_path: Path,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diff", str(save_file), str(tmp_path / "missing.sav")]) == 2
    bad = tmp_path / "bad.sav"
    bad.write_bytes(save_file.read_bytes()[:-9])
    assert main(["diff", str(save_file), str(bad)]) == 2
    assert f"{bad}:" in capsys.readouterr().err
    unknown = tmp_path / "unknown.bin"
    unknown.write_bytes(b"nothing known")
    assert main(["diff", str(unknown), str(save_file)]) == 2
    with pytest.raises(SystemExit) as info:
        main(["diff", str(save_file)])
    assert info.value.code == 2


def test_diff_of_different_formats(save_file: Path, tmp_path: Path,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    from savecraft import registry
    others = [f for f in registry.formats() if f.name != "tirnanog-save"]
    if not others:
        pytest.skip("only one format is registered")
    from savecraft.commands.demo import STEPS
    from tests.core.support import demo_samples
    sample = None
    for spec in STEPS:
        for path, _, fmt in demo_samples(spec, tmp_path):
            if fmt.name != "tirnanog-save":
                sample = path
                break
        if sample:
            break
    assert sample is not None
    assert main(["diff", str(save_file), str(sample)]) == 1
    assert "different formats" in capsys.readouterr().out


def test_edit_on_a_large_server_save(tmp_path: Path) -> None:
    p = tmp_path / "server.sav"
    p.write_bytes(api.build(server_save(users=500)))
    assert main(["edit", str(p), "--set", "users[name=Oisin7].entity.altitude=3"]) == 0
    assert api.load(p).user("Oisin7").entity.altitude == 3
    assert main(["diff", str(tmp_path / "server.sav.bak"), str(p)]) == 1
