"""The command line over a game file: info, validate, dump/build, extract, sections, refs."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from savecraft import api
from savecraft.cli import main
from savecraft.formats.tirnanog.game.sample import build_sample_game


@pytest.fixture(scope="module")
def game_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    p = tmp_path_factory.mktemp("tng") / "sample.tng"
    p.write_bytes(build_sample_game())
    return p


def test_info_names_every_header_field(game_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["info", "--json", str(game_file)]) == 0
    doc = orjson.loads(capsys.readouterr().out)
    assert doc["format"] == "tirnanog-game"
    for key in ("game_id", "game_type", "tile_width", "tile_height", "map_size", "atlas_size", "unique_id",
                "crc", "map_layers", "transportation_methods", "default_action_handlers",
                "asset_bundle_start", "asset_bundle_end"):
        assert key in doc
    assert doc["title"] == "Sample Quest" and doc["languages"] == ["en", "de"]
    from tests.cli.info_convention import check_info

    check_info(doc)  # docs/info-json.md
    assert doc["sections"][0] == {"type": 0, "name": "strings", "strings": 33}


def test_validate_and_dump_build(game_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "-v", str(game_file)]) == 0
    dump = tmp_path / "g.json"
    assert main(["dump", str(game_file), "-o", str(dump)]) == 0
    text = dump.read_text()
    assert "PUSHSND snd_coin" in text and "FNC1 sound" in text  # scripts as assembly text
    out = tmp_path / "g.tng"
    assert main(["build", str(dump), "-o", str(out)]) == 0
    assert out.read_bytes() == game_file.read_bytes()


def test_extract_writes_real_files(game_file: Path, tmp_path: Path) -> None:
    folder = tmp_path / "x"
    assert main(["extract", str(game_file), "-o", str(folder)]) == 0
    files = [p for p in folder.rglob("*") if p.is_file()]
    suffixes = {p.suffix for p in files}
    assert {".png", ".ogg", ".ogv", ".sfn", ".json", ".asm", ".tmx"} <= suffixes
    for p in files:
        head = p.read_bytes()[:8]
        if p.suffix == ".png":
            assert head.startswith(b"\x89PNG")
        elif p.suffix in (".ogg", ".ogv"):
            assert head.startswith(b"OggS")
        elif p.suffix == ".sfn":
            assert head.startswith(b"SFN2")
    # Folders and files are named by section type as the spec numbers them.
    names = {p.name for p in folder.iterdir()}
    assert {"06-atlases", "28-npc_types.json", "01-translations-en.json",
            "01-translations-de.json", "35-maps"} <= names
    assert (folder / "24-startup" / "scripts-0-asset.asm").is_file()
    npcs = orjson.loads((folder / "28-npc_types.json").read_bytes())
    assert npcs["references"]["npcs[0].name"].endswith("'npc_guard'")
    asm = [p.read_text() for p in folder.rglob("*.asm")]
    assert any("PUSHQST quest_wolves" in t for t in asm)


def test_sections_and_refs(game_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sections", str(game_file)]) == 0
    out = capsys.readouterr().out
    assert "35 maps: 2 maps" in out and "25 attributes" in out
    assert main(["sections", str(game_file), "--json"]) == 0
    table = orjson.loads(capsys.readouterr().out)
    from tests.cli.info_convention import check_info

    check_info({"format": "tirnanog-game", "description": "", **table})
    assert table["sections"][0] == {"index": 0, "offset": 8 * len(table["sections"]),
                                    "size_bytes": table["sections"][1]["offset"] - 8 * len(table["sections"]),
                                    "type": 0, "name": "strings", "strings": 33}
    assert table["sections"][-1]["name"] == "maps" and table["sections"][-1]["maps"] == 2
    assert main(["refs", str(game_file), "dialogs", "--json"]) == 0
    doc = orjson.loads(capsys.readouterr().out)
    refs = {r["path"]: r for r in doc["references"]}
    assert refs["dialogs.dialogs[0].name"]["string"] == "dlg_greet"
    assert isinstance(refs["dialogs.dialogs[0].name"]["offset"], int)
    assert refs["dialogs.dialogs[0].asset.title"]["texts"] == {"en": "Guard", "de": "Wache"}
    assert refs["dialogs.dialogs[0].asset.title"]["description"] == "text 3 (en: 'Guard', de: 'Wache')"
    assert main(["refs", str(game_file), "no_such_section"]) == 2


def test_extract_shows_progress_for_large_games(game_file: Path, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """The bar is the command line's one (rich, on a terminal only, quiet with -q); it was a
    hand-drawn one that wrote to stderr even when piped."""
    from collections.abc import Iterator
    from contextlib import contextmanager

    from savecraft import console

    real = console.progress
    seen: list[tuple[str, int | None, int]] = []

    @contextmanager
    def progress(description: str, total: int | None, unit: str = "files") -> Iterator[console.Advance]:
        done = [0]
        assert unit == "bytes"  # shown as KiB/MiB, not as a raw count
        with real(description, total, unit) as advance:
            def counting(n: int) -> None:
                done[0] += n
                advance(n)
            yield counting
        seen.append((description, total, done[0]))

    monkeypatch.setattr(console, "progress", progress)
    assert main(["extract", str(game_file), "-o", str(tmp_path / "x")]) == 0
    game = api.parse(game_file.read_bytes())
    total = sum(a.length for a in game.assets())
    assert total > 0 and seen == [("extracting", total, total)]  # every asset byte counted
    err = capsys.readouterr().err
    assert err.startswith(f"wrote {tmp_path / 'x'} (") and err.count("\n") == 1  # not a terminal: no bar


def test_encrypted_game_info_shows_the_header(game_file: Path, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    data = bytearray(game_file.read_bytes())
    data[60] = 1
    p = tmp_path / "enc.tng"
    p.write_bytes(bytes(data))
    assert main(["validate", str(p)]) == 1
    out = capsys.readouterr().out
    assert "encrypted" in out and "tile size 32 x 32" in out and "unique id 0x544E4753414D5001" in out
