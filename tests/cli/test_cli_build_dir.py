"""extract, then build DIR: byte for byte when nothing changed, the edit when something did."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import savecraft
from savecraft import registry
from savecraft.cli import main
from savecraft.formats.qfg5 import sample as qfg5_sample


def test_qfg5_extract_then_build_gives_the_same_bytes(tmp_path: Path) -> None:
    for seed in range(3):
        src = tmp_path / f"q{seed}.sav"
        savecraft.save(qfg5_sample.qfg5_save(seed=seed), src)
        parts = tmp_path / f"parts{seed}"
        assert main(["extract", str(src), "-o", str(parts)]) == 0
        assert json.loads((parts / "savecraft-extract.json").read_text())["format"] == "qfg5-save"
        out = tmp_path / f"rebuilt{seed}.sav"
        assert main(["build", str(parts), "-o", str(out)]) == 0
        assert out.read_bytes() == src.read_bytes()


def test_qfg5_build_takes_edits_of_the_parts(tmp_path: Path) -> None:
    src = tmp_path / "q.sav"
    savecraft.save(qfg5_sample.qfg5_save(), src)
    parts = tmp_path / "parts"
    assert main(["extract", str(src), "-o", str(parts)]) == 0
    room = json.loads((parts / "room.json").read_text())
    room["current_room"] = 220
    (parts / "room.json").write_text(json.dumps(room))
    inventory = json.loads((parts / "inventory.json").read_text())
    inventory.pop()
    (parts / "inventory.json").write_text(json.dumps(inventory))
    out = tmp_path / "edited.sav"
    assert main(["build", str(parts), "-o", str(out)]) == 0
    edited = savecraft.load(out)
    assert edited.current_room == 220 and len(edited.inventory) == len(savecraft.load(src).inventory) - 1
    assert savecraft.validate(out).ok


def test_every_format_with_an_extract_builds_back_byte_for_byte(tmp_path: Path) -> None:
    """extract then build DIR, on the demo's sample of every format: the same bytes."""
    from savecraft.commands.demo import _steps

    (tmp_path / "demo").mkdir()
    built: set[str] = set()
    for step in _steps()[:4]:
        for path in step(tmp_path / "demo"):
            fmt = registry.detect(path.read_bytes())
            if fmt.extract is None:
                continue
            assert fmt.rebuild is not None, f"{fmt.name}: extract without build DIR"
            parts = tmp_path / f"parts-{path.name}"
            assert main(["extract", str(path), "-o", str(parts)]) == 0
            assert json.loads((parts / "savecraft-extract.json").read_text())["rebuild"] is True
            out = tmp_path / f"rebuilt-{path.name}"
            assert main(["build", str(parts), "-o", str(out)]) == 0
            assert out.read_bytes() == path.read_bytes(), fmt.name
            built.add(fmt.name)
    with_extract = {name for name in registry.names() if registry.get(name).extract is not None}
    assert built == with_extract == {"tirnanog-save", "tirnanog-game", "angband-modular", "angband-block",
                                     "qfg5-save"}


def test_a_folder_that_is_no_extract_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["build", str(tmp_path), "-o", str(tmp_path / "x.sav")]) == 2
    assert "not a folder written by 'savecraft extract'" in capsys.readouterr().err


def test_tirnanog_save_extract_then_build_gives_the_same_bytes_and_takes_edits(tmp_path: Path) -> None:
    from savecraft.formats.tirnanog.save import sample as tng_sample

    for name, model in (("player.sav", tng_sample.player_save()), ("server.sav", tng_sample.server_save(users=8))):
        src = tmp_path / name
        savecraft.save(model, src)
        parts = tmp_path / f"parts-{name}"
        assert main(["extract", str(src), "-o", str(parts)]) == 0
        out = tmp_path / f"rebuilt-{name}"
        assert main(["build", str(parts), "-o", str(out)]) == 0
        assert out.read_bytes() == src.read_bytes(), name
    parts = tmp_path / "parts-player.sav"
    user_file = next(parts.glob("*-USER-*.json"))
    doc = json.loads(user_file.read_text())
    doc["entity"]["x"] = 77
    user_file.write_text(json.dumps(doc))
    from PIL import Image

    Image.new("RGB", (64, 64), (255, 0, 0)).save(parts / "preview.png")
    out = tmp_path / "edited.sav"
    assert main(["build", str(parts), "-o", str(out)]) == 0
    edited = savecraft.load(out)
    assert edited.users[0].entity.x == 77
    assert edited.preview is not None and edited.preview.image != savecraft.load(tmp_path / "player.sav").preview.image
    assert savecraft.validate(out).ok


def _extracted(tmp_path: Path) -> dict[str, Path]:
    """An extract folder per format with an extract, from the demo's samples."""
    from savecraft.commands.demo import _steps

    (tmp_path / "demo").mkdir()
    out: dict[str, Path] = {}
    for step in _steps()[:4]:
        for path in step(tmp_path / "demo"):
            fmt = registry.detect(path.read_bytes())
            if fmt.extract is not None and fmt.name not in out:
                parts = tmp_path / f"parts-{fmt.name}"
                assert main(["extract", str(path), "-o", str(parts)]) == 0
                out[fmt.name] = parts
    return out


# The part each format cannot build without.
HEADS = {"tirnanog-save": "save.json", "tirnanog-game": "header.json", "angband-modular": "file-header.json",
         "angband-block": "file-header.json", "qfg5-save": "header.json"}


def test_a_broken_or_missing_part_is_named_the_same_way_in_every_format(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """One reader of extract-folder parts (savecraft.parts): the file, then its line and column.
    The save formats said "expected JSON, found <orjson's message>" with no line."""
    folders = _extracted(tmp_path)
    assert set(folders) == set(HEADS)
    for name, parts in folders.items():
        victim = parts / HEADS[name]
        victim.write_text('{\n  "oops": }\n')
        assert main(["build", str(parts), "-o", str(tmp_path / f"{name}.out")]) == 1, name
        err = capsys.readouterr().err
        assert f"{victim.name}: line 2, column" in err and "expected valid JSON" in err, (name, err)
        victim.unlink()
        assert main(["build", str(parts), "-o", str(tmp_path / f"{name}.out")]) == 1, name
        err = capsys.readouterr().err
        assert f"{victim.name}: expected a file of the extract folder" in err, (name, err)
