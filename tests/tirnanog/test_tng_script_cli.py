"""disasm, asm and render-map over the sample game."""

from __future__ import annotations

import dataclasses
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from savecraft import api, cli
from savecraft.formats.tirnanog.game.bytecode import Script
from savecraft.formats.tirnanog.game.sample import build_sample_game
from savecraft.formats.tirnanog.game.script import assemble


def _scripts(obj: Any, out: list[Script]) -> list[Script]:
    if isinstance(obj, Script):
        if obj.text:
            out.append(obj)
    elif isinstance(obj, list):
        for x in obj:
            _scripts(x, out)
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for f in dataclasses.fields(obj):
            _scripts(getattr(obj, f.name), out)
    return out


@pytest.fixture(scope="module")
def game_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    p = tmp_path_factory.mktemp("game") / "game.tng"
    p.write_bytes(build_sample_game())
    return p


def test_disasm_with_the_games_names(game_file: Path, tmp_path: Path) -> None:
    game = api.parse(game_file.read_bytes())
    scripts = _scripts(game.sections, [])
    assert scripts
    names = game.script_names()
    for k, s in enumerate(scripts[:8]):
        code = assemble(s.text, names)
        src = tmp_path / f"s{k}.bin"
        src.write_bytes(code)
        out = tmp_path / f"s{k}.asm"
        assert cli.main(["disasm", str(src), "--game", str(game_file), "-o", str(out)]) == 0
        assert out.read_text() == s.text
        assert cli.main(["asm", str(out), "--game", str(game_file), "-o",
                         str(tmp_path / f"t{k}.bin")]) == 0
        assert (tmp_path / f"t{k}.bin").read_bytes() == code
    # references are shown by name (the sample's first script reads the "gold" attribute)
    assert any("PUSHA gold\n" in s.text for s in scripts)
    plain = tmp_path / "plain.asm"
    assert cli.main(["disasm", str(tmp_path / "s0.bin"), "-o", str(plain)]) == 0
    assert "PUSHA gold" not in plain.read_text() and "PUSHA " in plain.read_text()


def test_disasm_offset_and_length(game_file: Path, tmp_path: Path) -> None:
    blob = tmp_path / "blob.bin"
    blob.write_bytes(b"junk" + bytes([37, 5, 0]) + b"more")
    out = tmp_path / "x.asm"
    assert cli.main(["disasm", str(blob), "--offset", "4", "--length", "3", "-o", str(out)]) == 0
    assert out.read_text() == "    PUSH8 5\n    END\n"
    assert cli.main(["disasm", str(blob), "--offset", "9", "--length", "9"]) == 2


def test_render_map_and_tmx(game_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    png = tmp_path / "m.png"
    tmx = tmp_path / "m.tmx"
    assert cli.main(["render-map", str(game_file), "0", "-o", str(png), "--tmx", str(tmx)]) == 0
    game = api.parse(game_file.read_bytes())
    h = game.header
    with Image.open(png) as im:
        assert im.size == (h.map_size * h.tile_width, h.map_size * h.tile_height)
        assert im.getextrema()[3] == (255, 255)  # the ground layer covers every cell
    root = ET.parse(tmx).getroot()
    image = root.find("tileset/image")
    assert image is not None and (tmp_path / str(image.get("source"))).exists()
    name = game.string(game.maps.maps[1].name)
    assert cli.main(["render-map", str(game_file), name, "-o", str(tmp_path / "n.png"),
                     "--layers", "0"]) == 0
    assert cli.main(["render-map", str(game_file), "nosuch", "-o", str(png)]) == 1
    assert "a map number or name" in capsys.readouterr().err
    assert cli.main(["render-map", str(game_file), "0", "-o", str(png), "--layers", "x"]) == 2
