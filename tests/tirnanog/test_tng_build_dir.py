"""``savecraft extract GAME.tng -o DIR`` then ``savecraft build DIR``: byte for byte when nothing
changed (the sample game, random games, and the odd files the fidelity tests make), and exactly the
edit when a section's JSON, a media file or a script's ``.asm`` file was changed."""

from __future__ import annotations

import base64
import json
import random
import struct
import zlib
from pathlib import Path
from typing import Any

import pytest

import savecraft
from fuzz.hostile import rewrite_game, set_descriptor
from savecraft import diff as diffing
from savecraft.cli import main
from savecraft.errors import FormatError, Report
from savecraft.formats.tirnanog.game import FORMAT, open_game
from savecraft.formats.tirnanog.game.extract import extract_game, rebuild_game
from savecraft.formats.tirnanog.game.sample import build_sample_game
from savecraft.formats.tirnanog.game.sections import (
    BackgroundsSection,
    MapsSection,
    StartupSection,
    TileSpritesSection,
)

from .support import assets, maps_not_last, section_of, set_directions


@pytest.fixture(scope="module")
def game_bytes() -> bytes:
    return build_sample_game()


def _round_trip(data: bytes, tmp_path: Path, name: str) -> Path:
    """Extract ``data`` on the command line, build the folder back, and insist on the same bytes."""
    src = tmp_path / f"{name}.tng"
    src.write_bytes(data)
    parts = tmp_path / f"parts-{name}"
    assert main(["extract", str(src), "-o", str(parts)]) == 0
    out = tmp_path / f"rebuilt-{name}.tng"
    assert main(["build", str(parts), "-o", str(out)]) == 0
    assert out.read_bytes() == data, name
    return parts


def test_the_sample_and_random_games_build_back_byte_for_byte(game_bytes: bytes, tmp_path: Path) -> None:
    parts = _round_trip(game_bytes, tmp_path, "sample")
    layout = json.loads((parts / "game-file.json").read_text())
    assert layout["sections"][0] == "00-strings.json" and layout["sections"][-1] == "35-maps.json"
    atlases = json.loads((parts / "06-atlases.json").read_text())["section"]
    assert atlases["entries"][0]["asset"]["file"] == "06-atlases/0000-atlas.png"  # not the bytes again
    startup = json.loads((parts / "24-startup.json").read_text())["section"]
    assert startup["scripts"][0]["asset"]["value"] == {"asm": "24-startup/scripts-0-asset.asm"}
    for seed in range(1, 4):
        _round_trip(build_sample_game(random.Random(seed)), tmp_path, f"seed{seed}")


def _gap_and_tail(data: bytes) -> bytes:
    """Seven bytes no descriptor covers in front of the maps, and more after the last asset."""
    maps = assets(data, MapsSection)

    def edit(b: bytearray) -> None:
        for off, ln in reversed(maps):
            set_descriptor(b, (off, ln), (off + 7, ln))
    m0 = maps[0][0]
    return rewrite_game(data, edit, lambda a: a[:m0] + b"\xee" * 7 + a[m0:] + b"after the assets")


def test_odd_asset_layouts_build_back_byte_for_byte(game_bytes: bytes, tmp_path: Path) -> None:
    (bg, lbg), = assets(game_bytes, BackgroundsSection)
    atlas = assets(game_bytes, section_of(game_bytes, "atlases"))[0]
    variants = {
        "maps-not-last": maps_not_last(game_bytes),
        "overlap-inside": rewrite_game(game_bytes, lambda b: set_descriptor(b, (bg, lbg), (atlas[0] + 95, 300))),
        "overlap-prefix": rewrite_game(game_bytes, lambda b: set_descriptor(b, (bg, lbg), (atlas[0], 300))),
        "directions": set_directions(game_bytes, assets(game_bytes, TileSpritesSection)[0], 3),
        "gap-and-tail": _gap_and_tail(game_bytes),
    }
    for name, data in variants.items():
        _round_trip(data, tmp_path, name)


def _odd_container(data: bytes) -> bytes:
    """The section block as raw deflate, its CRC over the compressed bytes, padding after the last
    section (a layout savecraft's builder does not write), and a section type from the future."""
    n = struct.unpack_from("<I", data, 64)[0]
    block = zlib.decompress(data[68 : 68 + n - 4])
    first = struct.unpack_from("<I", block, 0)[0]
    entries = [struct.unpack_from("<I3sB", block, k) for k in range(0, first, 8)]
    future = b"from a future editor"
    table = b"".join(struct.pack("<I3sB", off + 8, ln, t) for off, ln, t in entries)
    end = len(block) + 8
    table += struct.pack("<I3sB", end, len(future).to_bytes(3, "little"), 77)
    new = table + block[first:] + future + b"\0\0\0\0"
    c = zlib.compressobj(6, zlib.DEFLATED, -15)
    raw = c.compress(new) + c.flush()
    stored = raw + zlib.crc32(raw).to_bytes(4, "little")
    # Asset offsets count from the end of the block: the asset area moves along unchanged.
    out = bytearray(data[:64]) + len(stored).to_bytes(4, "little") + stored + data[68 + n :]
    struct.pack_into("<I", out, 56, 0)
    struct.pack_into("<I", out, 56, zlib.crc32(bytes(out)))
    return bytes(out)


def test_an_odd_section_block_builds_back_byte_for_byte(game_bytes: bytes, tmp_path: Path) -> None:
    data = _odd_container(game_bytes)
    notes = savecraft.validate(data).notes
    assert any("raw deflate" in m for m in notes) and any("table order" in m for m in notes), notes
    parts = _round_trip(data, tmp_path, "odd-block")
    layout = json.loads((parts / "game-file.json").read_text())
    assert layout["encoding"]["crc_over"] == "compressed" and layout["encoding"]["section_buffer"]
    assert "77-" in " ".join(layout["sections"])


def test_a_stream_no_level_reproduces_and_bytecode_that_does_not_disassemble(game_bytes: bytes,
                                                                              tmp_path: Path) -> None:
    from savecraft import api
    from savecraft.compression import Container, Deflated
    from savecraft.formats.tirnanog.game.bytecode import Script
    from savecraft.formats.tirnanog.game.sections import NpcTypesSection

    game = open_game(game_bytes)
    asset = game.require(NpcTypesSection).npcs[0].asset
    asset.value.handlers[1].script = Script(code=bytes([2, 0x40, 0, 0, 0]))  # does not disassemble
    content = asset.encode(asset.value, asset._ctx)
    c = zlib.compressobj(9, zlib.DEFLATED, 15, 1)  # memLevel 1: no standard level makes these bytes
    odd = c.compress(content) + c.flush()
    asset.deflate = Deflated.from_stream(odd, content, Container.ZLIB)
    built = api.build(game)
    # 'savecraft extract' reads strictly (the bad script is an error); the library extracts what
    # validate read, and the folder keeps the script as bytecode.
    model = FORMAT.parse(built, Report(strict=False))
    parts = tmp_path / "parts"
    extract_game(model, parts)
    npcs = json.loads((parts / "28-npc_types.json").read_text())["section"]
    assert "bytecode" in npcs["npcs"][0]["asset"]["value"]["handlers"][1]["script"]
    assert "not read back" in (parts / "28-npc_types" / "npcs-0-asset-handlers-1-script.asm").read_text()
    assert savecraft.build(rebuild_game(parts)) == built


def _changes(a: Path, b: Path) -> list[str]:
    return [c.path for c in diffing.diff_bytes(a.read_bytes(), b.read_bytes()).changes]


def test_edits_to_a_text_a_picture_and_a_script_are_exactly_what_changes(game_bytes: bytes,
                                                                        tmp_path: Path) -> None:
    from PIL import Image

    parts = _round_trip(game_bytes, tmp_path, "sample")
    src = tmp_path / "sample.tng"
    tr = parts / "01-translations-en.json"
    doc = json.loads(tr.read_text())
    texts = doc["section"]["texts"]["value"]["texts"]
    texts[texts.index("Welcome to the village!")] = "Welcome to Tir na nOg, traveller from afar!"
    tr.write_text(json.dumps(doc))
    picture = parts / "11-backgrounds" / "0000-bg_title.png"
    old_size = len(picture.read_bytes())
    Image.new("RGB", (96, 40), (200, 30, 30)).save(picture)  # another size, another byte count
    assert len(picture.read_bytes()) != old_size
    asm = parts / "24-startup" / "scripts-1-asset.asm"
    asm.write_text(asm.read_text().replace("PUSH8 1", "PUSH8 5"))
    out = tmp_path / "edited.tng"
    assert main(["build", str(parts), "-o", str(out)]) == 0

    result = savecraft.validate(out)
    assert result.ok, result.problems  # the whole-file CRC, the block's CRC, every descriptor
    assert sorted(_changes(src, out)) == ["sections[12].entries[0].asset.value", "sections[22].scripts[1].asset"
                                          ".value.text", "translations[0].texts.value.texts[2]"]
    game = savecraft.load(out)
    assert game.text(2, "en") == "Welcome to Tir na nOg, traveller from afar!"
    assert game.require(BackgroundsSection).entries[0].asset.value == picture.read_bytes()
    # Offsets were laid out again: the maps are still the last assets, and the folder of the
    # edited game builds back byte for byte too.
    maps = [a.file_offset for a in (e.asset for e in game.require(MapsSection).maps)]
    others = [a.file_offset + a.length for a in game.assets() if a.length and a.file_offset not in maps]
    assert min(maps) >= max(others)
    _round_trip(out.read_bytes(), tmp_path, "edited")


def test_a_renamed_string_moves_every_reference(game_bytes: bytes, tmp_path: Path) -> None:
    parts = _round_trip(game_bytes, tmp_path, "sample")
    strings = parts / "00-strings.json"
    doc = json.loads(strings.read_text())
    names = doc["section"]["strings"]
    names[names.index("gold")] = "coins"
    strings.write_text(json.dumps(doc))
    out = tmp_path / "renamed.tng"
    assert main(["build", str(parts), "-o", str(out)]) == 0  # the .asm files still say 'gold'
    assert savecraft.validate(out).ok
    game = savecraft.load(out)
    assert "coins" in game.strings.strings and "gold" not in game.strings.strings
    assert any("PUSHA coins" in sc.asset.value.text for sc in game.require(StartupSection).scripts)


def _one_error(parts: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    assert main(["build", str(parts), "-o", str(tmp_path / "never.tng")]) == 1
    assert not (tmp_path / "never.tng").exists()
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    return err


def test_mistakes_in_the_folder_are_named_by_file_and_path(game_bytes: bytes, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    parts = _round_trip(game_bytes, tmp_path, "sample")

    def fresh() -> Path:
        import shutil
        target = tmp_path / "broken"
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(parts, target)
        return target

    broken = fresh()
    (broken / "06-atlases" / "0001-atlas.png").unlink()
    assert "06-atlases/0001-atlas.png: expected a file of the extract folder (named by 06-atlases.json: " \
           "section.entries[1].asset.file)" in _one_error(broken, tmp_path, capsys)

    broken = fresh()
    p = broken / "30-dialogs.json"
    p.write_text(p.read_text().replace('"kind"', '"kind" x', 1))
    assert "30-dialogs.json: line 3, column" in _one_error(broken, tmp_path, capsys)

    broken = fresh()
    p.write_text(p.read_text().replace('"name"', '"nom"', 1))
    assert "30-dialogs.json: section.dialogs[0].name: expected the field 'name'" in _one_error(broken, tmp_path,
                                                                                                 capsys)

    broken = fresh()
    asm = broken / "24-startup" / "scripts-1-asset.asm"
    asm.write_text(asm.read_text().replace("PUSH8 1", "PUSHX 1"))
    assert "24-startup/scripts-1-asset.asm: line 2: expected a mnemonic" in _one_error(broken, tmp_path, capsys)

    broken = fresh()
    with (broken / "35-maps" / "0000-village.png").open("ab") as fh:
        fh.write(b"painted over")
    assert "35-maps/0000-village.png: expected the picture as extracted: map pictures are views" \
        in _one_error(broken, tmp_path, capsys)
    for view in (broken / "35-maps").iterdir():  # views may go: nothing is built from them
        view.unlink()
    assert main(["build", str(broken), "-o", str(tmp_path / "ok.tng")]) == 0
    assert (tmp_path / "ok.tng").read_bytes() == game_bytes

    broken = fresh()
    p = broken / "06-atlases.json"
    p.write_text(p.read_text().replace('"06-atlases/0000-atlas.png"', '"../sample.tng"'))
    assert "06-atlases.json: section.entries[0].asset.file: expected a file inside the extract folder" \
        in _one_error(broken, tmp_path, capsys)


def test_rebuild_reads_only_what_extract_wrote(game_bytes: bytes, tmp_path: Path) -> None:
    parts = tmp_path / "parts"
    extract_game(open_game(game_bytes), parts)
    (parts / "game-file.json").write_text(json.dumps({"sections": []}))
    with pytest.raises(FormatError, match="game-file.json: expected an object with sections, encoding"):
        rebuild_game(parts)


def _tmx_layer(root: Any, n: int) -> Any:
    return next(el for el in root.findall("layer") if el.get("name") == f"layer {n}").find("data")


def _rows(data: Any) -> list[list[int]]:
    return [[int(v) for v in row.rstrip(",").split(",")] for row in data.text.strip().split("\n")]


def _set_rows(data: Any, rows: list[list[int]]) -> None:
    data.text = "\n" + ",\n".join(",".join(map(str, r)) for r in rows) + "\n"


def test_a_map_edited_in_tiled_builds_with_exactly_that_change(game_bytes: bytes, tmp_path: Path) -> None:
    import xml.etree.ElementTree as ET

    parts = _round_trip(game_bytes, tmp_path, "sample")
    tmx = parts / "35-maps" / "0000-village.tmx"
    tree = ET.parse(tmx)
    root = tree.getroot()
    # Saved again by another program (other formatting, layer 1 as zlib-compressed base64): the same game.
    data = _tmx_layer(root, 1)
    ids = struct.pack(f"<{16 * 16}I", *(v for row in _rows(data) for v in row))
    data.set("encoding", "base64")
    data.set("compression", "zlib")
    data.text = base64.b64encode(zlib.compress(ids)).decode()
    tree.write(tmx, encoding="UTF-8", xml_declaration=True)
    out = tmp_path / "same.tng"
    assert main(["build", str(parts), "-o", str(out)]) == 0
    assert out.read_bytes() == game_bytes

    # A tile painted, an NPC moved one tile right, a patrol path one point longer.
    tiles = {int(t.get("id", "")) + 1: int(t.find("properties/property").get("value", ""))  # type: ignore[union-attr]
             for t in root.iter("tile")}
    data = _tmx_layer(root, 0)
    rows = _rows(data)
    other = next(gid for gid in tiles if gid != rows[3][4])
    rows[3][4] = other
    _set_rows(data, rows)
    npc = next(g for g in root.findall("objectgroup") if g.get("name") == "npcs").find("object")
    assert npc is not None
    npc.set("x", str(int(npc.get("x", "")) + 32))
    line = next(g for g in root.findall("objectgroup") if g.get("name") == "patrol paths").find("object/polyline")
    assert line is not None
    line.set("points", line.get("points", "") + " 0,32")
    tree.write(tmx, encoding="UTF-8", xml_declaration=True)
    out = tmp_path / "painted.tng"
    assert main(["build", str(parts), "-o", str(out)]) == 0
    assert savecraft.validate(out).ok
    before = savecraft.load(game_bytes).require(MapsSection).maps[0].asset.value
    after = savecraft.load(out).require(MapsSection).maps[0].asset.value
    x, y = int(npc.get("x", "")) // 32, int(npc.get("y", "")) // 32
    assert after.layers[0][3][4] == tiles[other] and after.layers[5][y][x] == before.layers[5][y][x - 1]
    assert after.patrol_paths[0].points == [*before.patrol_paths[0].points, (2, 3)]
    changed = sorted(_changes(tmp_path / "sample.tng", out))
    assert changed == ["maps.maps[0].asset.value.layers[0][3][4]", f"maps.maps[0].asset.value.layers[5][{y}][{x - 1}]",
                       f"maps.maps[0].asset.value.layers[5][{y}][{x}]",
                       "maps.maps[0].asset.value.patrol_paths[0].points[4]"], changed


def test_tiles_tirnanog_cannot_hold_are_refused_by_cell(game_bytes: bytes, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    import xml.etree.ElementTree as ET

    parts = _round_trip(game_bytes, tmp_path, "sample")
    tmx = parts / "35-maps" / "0001-forest.tmx"
    original = tmx.read_bytes()
    for value, expected in ((999, "expected a tile of the extracted tileset"),
                            (0x80000001, "expected a tile as it is (TirNanoG has no flipped or rotated tiles)")):
        tree = ET.ElementTree(ET.fromstring(original))
        data = _tmx_layer(tree.getroot(), 0)
        rows = _rows(data)
        rows[2][7] = value
        _set_rows(data, rows)
        tree.write(tmx, encoding="UTF-8", xml_declaration=True)
        err = _one_error(parts, tmp_path, capsys)
        assert f"35-maps/0001-forest.tmx: layer 0, row 2, column 7: {expected}" in err, err
    tmx.write_bytes(original.replace(b'width="16" height="16" tilewidth', b'width="17" height="16" tilewidth'))
    assert "expected a Tiled map of 16 x 16 tiles, as extracted" in _one_error(parts, tmp_path, capsys)
    tmx.write_bytes(b"<map")
    assert "35-maps/0001-forest.tmx: expected a Tiled map (XML)" in _one_error(parts, tmp_path, capsys)
