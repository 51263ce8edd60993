"""edit as people type: a wrong path gets the paths that exist near it, values are typed the way
info prints them (ISO dates, names of numbered kinds, hex), and the game's own rules hold
(a TirNanoG user name may not be empty, in edit and in build)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import savecraft
from savecraft import edit
from savecraft.errors import FormatError
from savecraft.formats.tirnanog.game.sample import build_sample_game
from savecraft.formats.tirnanog.save import sample as tng_sample
from savecraft.paths import PathError, nearby
from tests.samples import SAMPLES, real_samples

LORENZ = SAMPLES / "angband-block-more" / "angband_4.2.2+_Lorenz.sav"


def run(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "savecraft", *argv], cwd=cwd, capture_output=True,
                          text=True, timeout=120, env={**os.environ, "NO_COLOR": "1"})


@pytest.fixture()
def folder(tmp_path: Path) -> Path:
    savecraft.save(tng_sample.player_save(), tmp_path / "player.sav")
    savecraft.save(tng_sample.server_save(users=4), tmp_path / "server.sav")
    (tmp_path / "game.tng").write_bytes(build_sample_game())
    return tmp_path


@real_samples
@pytest.mark.parametrize("path, near", [("itmes", "gear.items"), ("gear.itmes", "gear.items"),
                                        ("au", "player.au"), ("player.exp_fra", "player.exp_frac")])
def test_a_wrong_path_lists_the_paths_near_it(tmp_path: Path, path: str, near: str) -> None:
    save = tmp_path / "l.sav"
    save.write_bytes(LORENZ.read_bytes())
    out = run("edit", str(save), "--set", f"{path}=3", cwd=tmp_path)
    assert out.returncode == 2 and out.stderr.count("\n") == 1, out.stderr
    assert f"no field {path.split('.')[-1]!r}; nearby: {near}" in out.stderr
    assert save.read_bytes() == LORENZ.read_bytes()


def test_suggestions_resolve_and_go_through_lists(folder: Path) -> None:
    model = savecraft.load(folder / "server.sav")
    found = nearby(model, "nmae")
    assert found[0] == "users[0].name"
    for path in found:
        savecraft.paths.resolve(model, path)  # every suggestion is a path that exists
    with pytest.raises(PathError, match=r"no field 'x'; nearby: .*users\[0\]\.entity\.x"):
        edit.edit_model(model, {"x": 1})
    assert nearby(model, "qqqqqq") == []


def test_dates_are_typed_as_info_prints_them(folder: Path) -> None:
    out = run("edit", "player.sav", "--set", "users[0].last_seen=2026-01-02T03:04:05Z", cwd=folder)
    assert out.returncode == 0, out.stderr
    assert "set users[0].last_seen = 1767323045 (2026-01-02T03:04:05Z)" in out.stdout
    doc = json.loads(run("info", "--json", "player.sav", cwd=folder).stdout)
    assert doc["last_seen"] == "2026-01-02T03:04:05Z"  # what info prints, edit takes back
    model = savecraft.load(folder / "player.sav")
    for typed, seconds in (("2026-01-02", 1767312000), ("2026-01-02T05:04:05+02:00", 1767323045),
                           ("1767323045", 1767323045)):
        edit.edit_model(model, [("users[0].created", typed)], text=True)
        assert model.users[0].created == seconds, typed
    with pytest.raises(FormatError, match="ISO 8601"):
        edit.edit_model(model, [("users[0].created", "2026-13-02")], text=True)


def test_numbered_kinds_are_typed_by_name_and_ids_in_hex(folder: Path) -> None:
    out = run("edit", "game.tng", "--set", "header.game_type=hex-vertical", "--set",
              "header.unique_id=0x544E4753414D5002", cwd=folder)
    assert out.returncode == 0, out.stderr
    assert "set header.game_type = 2 (hex-vertical)" in out.stdout
    doc = json.loads(run("info", "--json", "game.tng", cwd=folder).stdout)
    assert doc["game_type"] == "hex-vertical" and doc["unique_id"] == 0x544E4753414D5002
    out = run("edit", "game.tng", "--set", "header.game_type=round", cwd=folder)
    assert out.returncode == 1 and "one of top-down, isometric, hex-vertical" in out.stderr


def test_an_empty_user_name_is_refused_by_edit_and_build(folder: Path) -> None:
    before = (folder / "server.sav").read_bytes()
    out = run("edit", "server.sav", "--set", "users[1].name=", cwd=folder)
    assert out.returncode == 1 and "users[1].name" in out.stderr and "not empty" in out.stderr
    assert (folder / "server.sav").read_bytes() == before
    assert run("dump", "server.sav", "-o", "s.json", "-q", cwd=folder).returncode == 0
    doc = json.loads((folder / "s.json").read_text())
    users = [c for c in doc["data"]["chunks"] if c.get("name") == "Aoife"]
    users[0]["name"] = ""
    (folder / "s.json").write_text(json.dumps(doc))
    out = run("build", "s.json", "-o", "empty.sav", cwd=folder)
    assert out.returncode == 1 and out.stderr.count("\n") == 1, out.stderr
    assert "users[1].name" in out.stderr and "not empty" in out.stderr
    assert not (folder / "empty.sav").exists()


def test_a_file_holding_an_empty_user_name_fails_validation() -> None:
    """The bytes allow one (savecraft's writer does not): a file made by hand is read, and refused
    by validate."""
    import zlib

    from savecraft.formats.tirnanog.save import codec
    from savecraft.formats.tirnanog.save.model import UserChunk

    raw = bytearray(codec.encode_chunk(UserChunk(name="Q")))
    at = raw.index(b"Q\0")
    del raw[at]  # the name's one byte: now an empty, NUL-terminated name
    raw[4:8] = (int.from_bytes(raw[4:8], "little") - 1).to_bytes(4, "little")
    data = codec.MAGIC + b"g".ljust(16, b"\0") + zlib.compress(bytes(raw)) \
        + zlib.crc32(bytes(raw)).to_bytes(4, "little")
    assert savecraft.load(data).users[0].name == ""
    result = savecraft.validate(data)
    assert [(p.path, p.found) for p in result.problems if p.severity == "error"] == [("users[0].name", '""')]
    with pytest.raises(FormatError, match="not empty"):  # and writing it again is refused
        edit.edit_bytes(data, {"users[0].entity.x": 3})
