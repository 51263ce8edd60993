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
from typing import Any
from xml.sax.saxutils import quoteattr
import base64
import xml.etree.ElementTree as ET
import zlib

import numpy as np
from PIL import Image

from ....errors import FormatError
from .maps import EMPTY_TILE, NPC_LAYER, SPAWNER_LAYER, MapAsset
from .render import HEX_HORIZONTAL, HEX_VERTICAL, ISOMETRIC, to_png
from .maps import PatrolPath

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


# -- reading an edited .tmx back (savecraft build DIR) ----------------------------------------

FLIP_BITS = 0xF0000000  # Tiled's flip and rotation flags: TirNanoG tiles have no such thing


def apply_tmx(m: MapAsset, data: bytes, tile_width: int, tile_height: int, *, name: str) -> None:
    """Put the edits of a ``.tmx`` written by :func:`to_tmx` (then changed in Tiled) into ``m``.

    Tile layers ("layer N") are read as tile ids, which the tileset's ``sprite`` properties turn
    back into sprite indices; only the cells whose id differs from what :func:`to_tmx` would write
    for ``m`` change, so a sprite the export could not draw (id 0 there) survives where nobody
    touched it. The NPC and spawner object groups become those layers again, the patrol path
    polylines the patrol paths. Anything else in the file (the picture, the tileset image) is
    not read. Problems raise FormatError naming ``name`` and the element.
    """
    try:
        root = ET.fromstring(data)
    except ET.ParseError as err:
        raise FormatError(None, name, "a Tiled map (XML)", str(err)) from None
    size = m.size
    if root.tag != "map" or root.get("width") != str(size) or root.get("height") != str(size):
        raise FormatError(None, name, f"a Tiled map of {size} x {size} tiles, as extracted",
                          f"<{root.tag} width={root.get('width')!r} height={root.get('height')!r}>")
    sprite_of = _tileset(root, name)
    gid_of: dict[int, int] = {}
    for gid, sprite in sorted(sprite_of.items()):
        gid_of.setdefault(sprite, gid)
    lookup = np.zeros(0x10000, dtype=np.int64)
    for sprite, gid in gid_of.items():
        lookup[sprite] = gid
    layers = np.array(m.layers, dtype=np.uint16, copy=True)
    for el in root.findall("layer"):
        label = el.get("name", "")
        if not label.startswith("layer ") or not label[6:].isdigit():
            raise FormatError(None, f"{name}: layer {label!r}", "a layer named 'layer N', as extracted",
                              "another name")
        i = int(label[6:])
        if not 0 <= i < m.layer_count or i in LAYER_NAMES:
            raise FormatError(None, f"{name}: layer {label!r}",
                              f"a tile layer of the map (0 to {m.layer_count - 1}, not 5 or 6)", str(i))
        new = _layer_ids(el, size, f"{name}: {label}")
        old = lookup[layers[i]]
        changed = new != old
        if not changed.any():
            continue
        flipped = changed & ((new & FLIP_BITS) != 0)
        if flipped.any():
            y, x = (int(v[0]) for v in np.nonzero(flipped))
            raise FormatError(None, f"{name}: {label}, row {y}, column {x}",
                              "a tile as it is (TirNanoG has no flipped or rotated tiles)",
                              f"tile id 0x{int(new[y, x]):08X}")
        for gid in np.unique(new[changed]).tolist():
            if gid and gid not in sprite_of:
                y, x = (int(v[0]) for v in np.nonzero(changed & (new == gid)))
                raise FormatError(None, f"{name}: {label}, row {y}, column {x}",
                                  "a tile of the extracted tileset (its 'sprite' property names the "
                                  "tile sprite)", f"tile id {gid}")
        to_sprite = np.full(int(new.max()) + 1, EMPTY_TILE, dtype=np.uint16)
        for gid, sprite in sprite_of.items():
            if gid < len(to_sprite):
                to_sprite[gid] = sprite
        layers[i][changed] = to_sprite[new[changed]]
    groups = {g.get("name"): g for g in root.findall("objectgroup")}
    for i, group in LAYER_NAMES.items():
        if group in groups and i < m.layer_count:
            layers[i] = _object_layer(groups[group], size, tile_width, tile_height, f"{name}: {group}")
    m.layers = layers
    if "patrol paths" in groups:
        paths = _patrol_paths(groups["patrol paths"], tile_width, tile_height, f"{name}: patrol paths")
        shown = [(p.id, list(p.points)) for p in m.patrol_paths if p.points]
        if paths != shown:  # changed: the drawn ones are replaced, ones without points are kept
            m.patrol_paths = [PatrolPath(k, pts) for k, pts in paths] + \
                [p for p in m.patrol_paths if not p.points]


def _tileset(root: Any, name: str) -> dict[int, int]:
    """Tile id -> sprite index, from the embedded tilesets' ``sprite`` properties."""
    out: dict[int, int] = {}
    for ts in root.findall("tileset"):
        if ts.get("source"):
            raise FormatError(None, f"{name}: tileset", "the tileset embedded in the map, as extracted",
                              f"an external one ({ts.get('source')})")
        first = _int(ts.get("firstgid"), f"{name}: tileset firstgid")
        for tile in ts.findall("tile"):
            tid = _int(tile.get("id"), f"{name}: tileset tile id")
            for prop in tile.iter("property"):
                if prop.get("name") == "sprite":
                    out[first + tid] = _int(prop.get("value"), f"{name}: tile {tid} sprite")
    return out


def _int(text: str | None, where: str) -> int:
    try:
        return int(text or "")
    except ValueError:
        raise FormatError(None, where, "a whole number", repr(text)) from None


def _layer_ids(el: Any, size: int, where: str) -> Any:
    """A tile layer's ids as a size x size array (CSV, or base64 with or without zlib/gzip)."""
    data = el.find("data")
    if data is None or data.find("chunk") is not None:
        raise FormatError(None, where, "a <data> element of the whole map (not chunks)", "none")
    enc, comp = data.get("encoding"), data.get("compression")
    text = data.text or ""
    if enc == "csv":
        try:
            ids = np.array([int(v) for v in text.replace("\n", "").split(",") if v.strip()], dtype=np.int64)
        except ValueError:
            raise FormatError(None, where, "comma-separated tile ids", text[:40]) from None
    elif enc == "base64" and comp in (None, "zlib", "gzip"):
        try:
            raw = base64.b64decode(text.strip(), validate=True)
            if comp is not None:  # at most the ids of the whole map: a stream that inflates further is refused
                raw = zlib.decompressobj(47 if comp == "gzip" else 15).decompress(raw, 4 * size * size + 4)
        except (ValueError, zlib.error) as err:
            raise FormatError(None, where, f"base64 tile ids ({comp or 'uncompressed'})", str(err)) from None
        if len(raw) % 4:
            raise FormatError(None, where, "4 bytes per tile id", f"{len(raw)} bytes")
        ids = np.frombuffer(raw, dtype="<u4").astype(np.int64)
    else:
        raise FormatError(None, where, "tile ids as CSV or base64 (zlib, gzip or none)",
                          f"encoding {enc!r}, compression {comp!r}")
    if ids.size != size * size:
        raise FormatError(None, where, f"{size * size} tile ids ({size} x {size})", str(ids.size))
    return ids.reshape(size, size)


def _cell(obj: Any, tile_width: int, tile_height: int, size: int, where: str) -> tuple[int, int]:
    try:
        x, y = float(obj.get("x", "")), float(obj.get("y", ""))
    except ValueError:
        raise FormatError(None, where, "an object with x and y", f"x={obj.get('x')!r}, y={obj.get('y')!r}") \
            from None
    col, row = round(x / tile_width), round(y / tile_height)
    if not (0 <= col < size and 0 <= row < size):
        raise FormatError(None, where, f"an object on the map ({size} x {size} tiles)",
                          f"one at column {col}, row {row}")
    return row, col


def _object_layer(el: Any, size: int, tile_width: int, tile_height: int, where: str) -> Any:
    """An NPC or spawner layer from its object group: each object's ``index`` at its cell."""
    layer = np.full((size, size), EMPTY_TILE, dtype=np.uint16)
    for k, obj in enumerate(el.findall("object")):
        here = f"{where} object {obj.get('id', k)}"
        row, col = _cell(obj, tile_width, tile_height, size, here)
        index = next((p.get("value") for p in obj.iter("property") if p.get("name") == "index"), None)
        value = _int(index, f"{here} index")
        if not 0 <= value < EMPTY_TILE:
            raise FormatError(None, f"{here} index", f"an index from 0 to {EMPTY_TILE - 1}", str(value))
        layer[row, col] = value
    return layer


def _patrol_paths(el: Any, tile_width: int, tile_height: int, where: str) -> list[tuple[int, list[tuple[int, int]]]]:
    out: list[tuple[int, list[tuple[int, int]]]] = []
    for k, obj in enumerate(el.findall("object")):
        here = f"{where} object {obj.get('id', k)}"
        label = obj.get("name", "")
        if not label.startswith("patrol ") or not label[7:].isdigit():
            raise FormatError(None, here, "an object named 'patrol ID'", repr(label))
        line = obj.find("polyline")
        if line is None:
            raise FormatError(None, here, "a polyline", "another shape")
        try:
            x0, y0 = float(obj.get("x", "")), float(obj.get("y", ""))
            pts = [tuple(float(c) for c in pair.split(",")) for pair in (line.get("points") or "").split()]
        except ValueError:
            raise FormatError(None, here, "x, y and polyline points", repr(line.get("points"))) from None
        cells = []
        for pt in pts:
            if len(pt) != 2:
                raise FormatError(None, here, "points as x,y pairs", repr(line.get("points")))
            cx, cy = round((x0 + pt[0]) / tile_width), round((y0 + pt[1]) / tile_height)
            if not (0 <= cx <= 0xFFFF and 0 <= cy <= 0xFFFF):
                raise FormatError(None, here, "points on the map", f"({cx}, {cy})")
            cells.append((cx, cy))
        out.append((int(label[7:]), cells))
    return out
