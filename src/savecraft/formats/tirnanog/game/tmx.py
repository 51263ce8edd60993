"""A map as a Tiled ``.tmx`` file, with its tileset as one PNG picture.

The tileset holds every tile sprite the map uses, in increasing sprite index
order, each in a cell as big as the biggest of them (Tiled draws tiles that
are bigger than the map's grid standing on the bottom-left of their cell,
so sprites are placed at the bottom, centred). Each tile carries a
``sprite`` property with its index in section 8, so a reader can map the
ids back. Tile layers become ``<layer>`` elements in CSV; the NPC layer (5)
and the spawner layer (6), which index NPC types and spawners rather than
sprites, become object groups with an ``index`` property on each object.
Patrol paths become polyline objects.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from xml.sax.saxutils import quoteattr

import numpy as np
from PIL import Image

from .maps import EMPTY_TILE, NPC_LAYER, SPAWNER_LAYER, MapAsset
from .render import HEX_HORIZONTAL, HEX_VERTICAL, ISOMETRIC, to_png

ORIENTATION = {ISOMETRIC: "isometric", HEX_VERTICAL: "hexagonal", HEX_HORIZONTAL: "hexagonal"}
LAYER_NAMES = {NPC_LAYER: "npcs", SPAWNER_LAYER: "spawners"}


@dataclass(slots=True)
class TmxExport:
    tmx: str
    tileset_png: bytes
    sprites: list[int]  # tileset tile id -> sprite index


def to_tmx(m: MapAsset, tiles: Callable[[int], Image.Image | None], tile_width: int,
           tile_height: int, game_type: int = 0, *, tileset_name: str = "tileset.png",
           title: str = "") -> TmxExport:
    used = sorted({int(v) for i in range(m.layer_count) if i not in LAYER_NAMES
                   for v in np.unique(m.layers[i]).tolist()} - {EMPTY_TILE})
    images = {v: tiles(v) for v in used}
    drawn = [v for v in used if images[v] is not None]
    cw = max([tile_width] + [images[v].width for v in drawn])  # type: ignore[union-attr]
    ch = max([tile_height] + [images[v].height for v in drawn])  # type: ignore[union-attr]
    columns = max(1, min(len(drawn), 16))
    rows = max(1, math.ceil(len(drawn) / columns))
    sheet = Image.new("RGBA", (columns * cw, rows * ch), (0, 0, 0, 0))
    gid: dict[int, int] = {}
    for k, v in enumerate(drawn):
        img = images[v]
        assert img is not None
        sheet.alpha_composite(img, ((k % columns) * cw + (cw - img.width) // 2,
                                    (k // columns) * ch + ch - img.height))
        gid[v] = k + 1
    size = m.size
    orientation = ORIENTATION.get(game_type, "orthogonal")
    attrs = [f'version="1.10" orientation="{orientation}" renderorder="right-down"',
             f'width="{size}" height="{size}" tilewidth="{tile_width}" tileheight="{tile_height}"',
             'infinite="0"']
    if game_type in (HEX_VERTICAL, HEX_HORIZONTAL):
        side = tile_height // 2 if game_type == HEX_VERTICAL else tile_width // 2
        axis = "y" if game_type == HEX_VERTICAL else "x"
        attrs.append(f'hexsidelength="{side}" staggeraxis="{axis}" staggerindex="odd"')
    out = ['<?xml version="1.0" encoding="UTF-8"?>', f'<map {" ".join(attrs)}>']
    if title:
        out.append(f' <properties><property name="title" value={quoteattr(title)}/></properties>')
    out.append(f' <tileset firstgid="1" name="tiles" tilewidth="{cw}" tileheight="{ch}" '
               f'tilecount="{len(drawn)}" columns="{columns}">')
    out.append(f'  <image source={quoteattr(tileset_name)} width="{sheet.width}" '
               f'height="{sheet.height}"/>')
    for k, v in enumerate(drawn):
        out.append(f'  <tile id="{k}"><properties><property name="sprite" type="int" '
                   f'value="{v}"/></properties></tile>')
    out.append(" </tileset>")
    lookup = np.zeros(0x10000, dtype=np.int64)
    for v, g in gid.items():
        lookup[v] = g
    next_id = 1
    for i in range(m.layer_count):
        layer = m.layers[i]
        if i in LAYER_NAMES:
            out.append(f' <objectgroup id="{i + 1}" name="{LAYER_NAMES[i]}">')
            ys, xs = np.nonzero(layer != EMPTY_TILE)
            for y, x in zip(ys.tolist(), xs.tolist()):
                out.append(f'  <object id="{next_id}" type="{LAYER_NAMES[i][:-1]}" '
                           f'x="{x * tile_width}" y="{y * tile_height}" width="{tile_width}" '
                           f'height="{tile_height}"><properties><property name="index" '
                           f'type="int" value="{int(layer[y, x])}"/></properties></object>')
                next_id += 1
            out.append(" </objectgroup>")
            continue
        ids = lookup[layer]
        rows_csv = ",\n".join(",".join(map(str, row)) for row in ids.tolist())
        out.append(f' <layer id="{i + 1}" name="layer {i}" width="{size}" height="{size}">')
        out.append(f'  <data encoding="csv">\n{rows_csv}\n</data>')
        out.append(" </layer>")
    if m.patrol_paths:
        out.append(f' <objectgroup id="{m.layer_count + 1}" name="patrol paths">')
        for p in m.patrol_paths:
            if not p.points:
                continue
            x0, y0 = p.points[0]
            pts = " ".join(f"{(x - x0) * tile_width},{(y - y0) * tile_height}" for x, y in p.points)
            out.append(f'  <object id="{next_id}" name="patrol {p.id}" x="{x0 * tile_width}" '
                       f'y="{y0 * tile_height}"><polyline points="{pts}"/></object>')
            next_id += 1
        out.append(" </objectgroup>")
    out.append("</map>")
    return TmxExport("\n".join(out) + "\n", to_png(sheet), drawn)
