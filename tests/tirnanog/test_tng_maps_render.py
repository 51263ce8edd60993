"""Maps drawn from their tiles (atlas operations applied) and exported to Tiled."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from savecraft import cli
from savecraft.errors import FormatError
from savecraft.formats.tirnanog.game.maps import MapAsset, PatrolPath
from savecraft.formats.tirnanog.game.render import (
    ISOMETRIC,
    apply_operation,
    render_map,
    sprite_image,
)
from savecraft.formats.tirnanog.game.tmx import to_tmx

RED, GREEN, BLUE = (255, 0, 0, 255), (0, 255, 0, 255), (0, 0, 255, 255)


@dataclass
class Frame:
    atlas: int = 0
    operation: int = 0
    x: int = 0
    y: int = 0
    width: int = 0
    height: int = 0
    left: int = 0
    top: int = 0


@dataclass
class Anim:
    width: int
    height: int
    frames: list[Frame] = field(default_factory=list)


def atlas_image() -> Image.Image:
    """8 x 8 cells: red, green, a half-transparent blue, and a red/green split."""
    im = Image.new("RGBA", (32, 16), (0, 0, 0, 0))
    im.paste(RED, (0, 0, 8, 8))
    im.paste(GREEN, (8, 0, 16, 8))
    im.paste((0, 0, 255, 128), (16, 0, 24, 8))
    im.paste(RED, (24, 0, 28, 8))
    im.paste(GREEN, (28, 0, 32, 8))
    im.paste(BLUE, (0, 8, 8, 16))  # with the cell above: a tall 8 x 16 sprite
    return im


ANIMS = {
    0: Anim(8, 8, [Frame(0, 0, 0, 0, 8, 8)]),
    1: Anim(8, 8, [Frame(0, 0, 8, 0, 8, 8)]),
    2: Anim(8, 8, [Frame(0, 0, 16, 0, 8, 8)]),
    3: Anim(8, 8, [Frame(0, 2, 24, 0, 8, 8)]),  # flipped horizontally: green left, red right
    4: Anim(8, 16, [Frame(0, 0, 0, 0, 8, 16)]),  # tall: stands on its cell, rises above
    5: Anim(8, 8, [Frame(0, 0, 4, 4, 4, 4, 2, 2)]),  # cropped and offset by its margins
}


def tiles(index: int) -> Image.Image | None:
    anim = ANIMS.get(index)
    return None if anim is None else sprite_image(anim, lambda i: atlas_image())


def sample() -> MapAsset:
    layers = np.full((11, 4, 4), 0xFFFF, dtype=np.uint16)
    layers[0] = 0  # red floor
    layers[0, 0, 1] = 1
    layers[1, 0, 2] = 2  # blue at half alpha over red
    layers[1, 1, 0] = 3
    layers[1, 3, 3] = 4
    layers[2, 2, 2] = 5
    layers[5, 1, 1] = 7  # an NPC: not drawn
    return MapAsset(layers=layers, patrol_paths=[PatrolPath(1, [(0, 0), (3, 0), (3, 3)])])


def px(im: Image.Image, x: int, y: int) -> tuple[int, ...]:
    return tuple(im.getpixel((x, y)))  # type: ignore[arg-type]


def test_operations() -> None:
    im = Image.new("RGBA", (2, 1))
    im.putpixel((0, 0), RED)
    im.putpixel((1, 0), GREEN)
    assert px(apply_operation(im, 2), 0, 0) == GREEN
    assert apply_operation(im, 3).size == (1, 2) and px(apply_operation(im, 3), 0, 0) == RED
    assert px(apply_operation(im, 5), 0, 0) == GREEN
    assert px(apply_operation(im, 4), 0, 0) == GREEN
    col = Image.new("RGBA", (1, 2))
    col.putpixel((0, 0), RED)
    col.putpixel((0, 1), GREEN)
    assert px(apply_operation(col, 1), 0, 0) == GREEN
    with pytest.raises(FormatError):
        apply_operation(im, 6)


def test_top_down_render() -> None:
    pic = render_map(sample(), tiles, 8, 8)
    assert pic.size == (32, 32)
    assert px(pic, 4, 4) == RED and px(pic, 12, 4) == GREEN
    r, g, b, a = px(pic, 20, 4)
    assert a == 255 and 120 <= b <= 135 and 120 <= r <= 135  # blue over red at half alpha
    assert px(pic, 1, 12) == GREEN and px(pic, 7, 12) == RED  # operation applied
    assert px(pic, 28, 28) == BLUE and px(pic, 28, 20) == RED  # tall sprite: bottom half
    assert px(pic, 28, 19) == RED
    assert px(pic, 16 + 3, 16 + 3) == RED and px(pic, 16 + 1, 16 + 1) == RED  # margins
    assert px(pic, 12, 12) == RED  # the NPC layer is not drawn


def test_tall_sprite_rises_into_the_cell_above() -> None:
    m = sample()
    m.layers[1, 3, 3] = 0xFFFF
    m.layers[1, 2, 1] = 4
    pic = render_map(m, tiles, 8, 8)
    assert px(pic, 12, 20) == BLUE and px(pic, 12, 12) == RED  # atlas rows 0-7 are red


def test_isometric_and_layers() -> None:
    pic = render_map(sample(), tiles, 16, 8, ISOMETRIC)
    assert pic.size == (64, 20)
    only = render_map(sample(), tiles, 8, 8, layers=[1])
    assert px(only, 4, 4)[3] == 0 and px(only, 28, 28) == BLUE
    with pytest.raises(FormatError):
        render_map(sample(), tiles, 8, 8, layers=[11])


def test_tmx_export() -> None:
    out = to_tmx(sample(), tiles, 8, 8, title="Forest")
    root = ET.fromstring(out.tmx)
    assert root.get("orientation") == "orthogonal" and root.get("width") == "4"
    ts = root.find("tileset")
    assert ts is not None and ts.get("tilecount") == "6" and ts.get("tileheight") == "16"
    assert out.sprites == [0, 1, 2, 3, 4, 5]
    layers = root.findall("layer")
    assert len(layers) == 9
    data = layers[0].find("data")
    assert data is not None and data.text is not None
    rows = [[int(v) for v in row.split(",") if v] for row in data.text.strip().split("\n")]
    assert rows[0] == [1, 2, 1, 1] and len(rows) == 4
    groups = {g.get("name"): g for g in root.findall("objectgroup")}
    npcs = groups["npcs"].findall("object")
    assert len(npcs) == 1 and npcs[0].get("x") == "8"
    prop = npcs[0].find("properties/property")
    assert prop is not None and prop.get("value") == "7"
    line = groups["patrol paths"].find("object/polyline")
    assert line is not None and line.get("points") == "0,0 24,0 24,24"
    sheet = Image.open(__import__("io").BytesIO(out.tileset_png))
    assert sheet.size == (48, 16)


def test_disasm_and_asm_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = bytes([37, 5, 44, 4, 0, 0, 5, 8, 3, 0, 0, 0, 0])
    src = tmp_path / "s.bin"
    src.write_bytes(code)
    assert cli.main(["disasm", str(src), "-o", str(tmp_path / "s.asm")]) == 0
    text = (tmp_path / "s.asm").read_text()
    assert "FNC1 sound" in text and "JZ L0000" in text
    assert cli.main(["asm", str(tmp_path / "s.asm"), "-o", str(tmp_path / "t.bin")]) == 0
    assert (tmp_path / "t.bin").read_bytes() == code
    src.write_bytes(bytes([17, 99]))
    assert cli.main(["disasm", str(src)]) == 1
    assert "offset 0x00000001" in capsys.readouterr().err
    (tmp_path / "bad.asm").write_text("END\nNOPE\n")
    assert cli.main(["asm", str(tmp_path / "bad.asm"), "-o", str(tmp_path / "x.bin")]) == 1
    assert "line 2" in capsys.readouterr().err


def test_scale_and_size_limit() -> None:
    pic = render_map(sample(), tiles, 8, 8, scale=0.5)
    assert pic.size == (16, 16) and px(pic, 2, 2) == RED and px(pic, 6, 2) == GREEN
    big = MapAsset(layers=np.zeros((1, 4096, 4096), dtype=np.uint16))
    with pytest.raises(FormatError) as err:
        render_map(big, tiles, 8, 8)
    assert "scale below 1" in str(err.value)
    with pytest.raises(FormatError):
        render_map(sample(), tiles, 8, 8, scale=0)
