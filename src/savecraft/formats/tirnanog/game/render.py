"""Pictures of maps: tile sprites cut from their atlases and laid out by the game type.

A sprite's first frame is cut from its atlas (``x, y, width, height``), turned
by the frame's atlas operation (0 copy, 1 flip vertically, 2 flip
horizontally, 3 rotate clockwise, 4 rotate 180 degrees, 5 rotate counter
clockwise) and placed at ``left, top`` on a canvas of the animation's size.
A map draws its tile layers in order (layer 5 holds NPC types and layer 6
spawners: those are not tiles and are left out), each sprite standing on the
bottom of its cell, so tall sprites (trees, walls) rise into the cells above.

Top-down maps are drawn with numpy, one tile kind at a time, so a 512 x 512
map does not cost a Python call per cell; other layouts (isometric, hex)
place sprites one by one.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt
from PIL import Image

from ....errors import FormatError
from .maps import EMPTY_TILE, NPC_LAYER, SPAWNER_LAYER, MapAsset
from .maps import parse_map

TOP_DOWN, ISOMETRIC, HEX_VERTICAL, HEX_HORIZONTAL, THREE_D = range(5)


class FrameLike(Protocol):
    atlas: int
    operation: int
    x: int
    y: int
    width: int
    height: int
    left: int
    top: int


class AnimationLike(Protocol):
    width: int
    height: int

    @property
    def frames(self) -> Sequence[FrameLike]: ...


_OPERATIONS: dict[int, Any] = {
    0: None,
    1: Image.Transpose.FLIP_TOP_BOTTOM,
    2: Image.Transpose.FLIP_LEFT_RIGHT,
    3: Image.Transpose.ROTATE_270,  # PIL turns counter-clockwise
    4: Image.Transpose.ROTATE_180,
    5: Image.Transpose.ROTATE_90,
}


def load_png(data: bytes, path: str = "") -> Image.Image:
    """An atlas PNG as RGBA; a broken PNG is a FormatError, not a PIL exception."""
    try:
        with Image.open(io.BytesIO(data)) as im:
            im.load()
            return im.convert("RGBA")
    except (OSError, ValueError, Image.DecompressionBombError) as exc:
        raise FormatError(None, path, "a PNG image", str(exc)[:80]) from None


def apply_operation(image: Image.Image, operation: int) -> Image.Image:
    if operation not in _OPERATIONS:
        raise FormatError(None, "operation", "an atlas operation from 0 to 5", str(operation))
    t = _OPERATIONS[operation]
    return image if t is None else image.transpose(t)


def sprite_image(anim: AnimationLike, atlas: Callable[[int], Image.Image], frame: int = 0,
                 path: str = "") -> Image.Image:
    """One frame of an animation as an RGBA picture of the animation's size."""
    canvas = Image.new("RGBA", (max(anim.width, 1), max(anim.height, 1)), (0, 0, 0, 0))
    if not anim.frames:
        return canvas
    f = anim.frames[frame % len(anim.frames)]
    src = atlas(f.atlas)
    if f.x + f.width > src.width or f.y + f.height > src.height:
        raise FormatError(None, path, f"a frame inside atlas {f.atlas} ({src.width} x {src.height})",
                          f"{f.width} x {f.height} at {f.x}, {f.y}")
    piece = apply_operation(src.crop((f.x, f.y, f.x + f.width, f.y + f.height)), f.operation)
    canvas.alpha_composite(piece, (f.left, f.top))
    return canvas


class TileImages:
    """Tile sprite pictures by index, made once each (``None``: nothing to draw)."""

    def __init__(self, make: Callable[[int], Image.Image | None]) -> None:
        self._make = make
        self._cache: dict[int, Image.Image | None] = {}

    def __call__(self, index: int) -> Image.Image | None:
        if index not in self._cache:
            self._cache[index] = self._make(index)
        return self._cache[index]


def cell_origin(game_type: int, x: int, y: int, tw: int, th: int, size: int) -> tuple[int, int]:
    """Top-left corner of cell (x, y) on the canvas, for each layout."""
    if game_type == ISOMETRIC:
        return (x - y + size - 1) * tw // 2, (x + y) * th // 2
    if game_type == HEX_VERTICAL:  # pointy-top rows, odd rows shifted right
        return x * tw + (tw // 2 if y & 1 else 0), y * (th * 3 // 4)
    if game_type == HEX_HORIZONTAL:  # flat-top columns, odd columns shifted down
        return x * (tw * 3 // 4), y * th + (th // 2 if x & 1 else 0)
    return x * tw, y * th


def canvas_size(game_type: int, size: int, tw: int, th: int) -> tuple[int, int]:
    if game_type == ISOMETRIC:
        return size * tw, size * th // 2 + th // 2
    if game_type == HEX_VERTICAL:
        return size * tw + tw // 2, (size - 1) * (th * 3 // 4) + th
    if game_type == HEX_HORIZONTAL:
        return (size - 1) * (tw * 3 // 4) + tw, size * th + th // 2
    return size * tw, size * th


def tile_layers(m: MapAsset) -> list[int]:
    return [i for i in range(m.layer_count) if i not in (NPC_LAYER, SPAWNER_LAYER)]


MAX_PIXELS = 1 << 26  # 64 megapixels: a 256 MiB RGBA canvas


def fit_scale(size: int, tile_width: int, tile_height: int, game_type: int = TOP_DOWN,
              max_pixels: int = MAX_PIXELS) -> float:
    """The largest scale, at most 1, at which a map's picture stays within ``max_pixels``."""
    w, h = canvas_size(game_type, size, tile_width, tile_height)
    if w * h <= max_pixels:
        return 1.0
    scale = float((max_pixels / (w * h)) ** 0.5)
    # Tile sizes round to whole pixels, so step down until the rounded canvas fits.
    while scale > 1e-3:
        sw, sh = max(1, round(tile_width * scale)), max(1, round(tile_height * scale))
        cw, ch = canvas_size(game_type, size, sw, sh)
        if cw * ch <= max_pixels:
            return scale
        scale *= 0.97
    return scale


def render_map(m: MapAsset, tiles: Callable[[int], Image.Image | None], tile_width: int,
               tile_height: int, game_type: int = TOP_DOWN,
               layers: Iterable[int] | None = None, scale: float = 1.0) -> Image.Image:
    """The map as one RGBA picture (``layers``: which to draw, tile layers by default).

    ``scale`` shrinks (or grows) every tile first, for a picture of a big map
    that fits in memory: a 512 x 512 map of 32-pixel tiles is 16384 pixels
    square at scale 1, 4096 at scale 0.25.
    """
    if tile_width <= 0 or tile_height <= 0:
        raise FormatError(None, "header", "a tile size above zero", f"{tile_width} x {tile_height}")
    if not 0 < scale <= 16:
        raise FormatError(None, "scale", "a scale above 0 and at most 16", str(scale))
    if scale != 1.0:
        sw, sh = max(1, round(tile_width * scale)), max(1, round(tile_height * scale))
        fx, fy = sw / tile_width, sh / tile_height
        tiles = TileImages(_scaled(tiles, fx, fy))
        tile_width, tile_height = sw, sh
    size = m.size
    wanted = tile_layers(m) if layers is None else list(layers)
    for i in wanted:
        if not 0 <= i < m.layer_count:
            raise FormatError(None, "layers", f"a layer from 0 to {m.layer_count - 1}", str(i))
    w, h = canvas_size(game_type, size, tile_width, tile_height)
    if w * h > MAX_PIXELS:
        raise FormatError(None, "map", f"a picture of at most {MAX_PIXELS >> 20} megapixels "
                          "(draw it smaller with a scale below 1)",
                          f"{w} x {h} ({size} x {size} tiles of {tile_width} x {tile_height})")
    images = tiles if isinstance(tiles, TileImages) else TileImages(tiles)
    if game_type in (TOP_DOWN, THREE_D):
        canvas = np.zeros((h, w, 4), dtype=np.uint8)
        for i in wanted:
            _draw_top_down(canvas, m.layers[i], images, tile_width, tile_height)
        return Image.fromarray(canvas, "RGBA")
    picture = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    for i in wanted:
        layer = m.layers[i]
        ys, xs = np.nonzero(layer != EMPTY_TILE)
        order = np.lexsort((xs, ys)) if game_type != ISOMETRIC else np.lexsort((xs, xs + ys))
        for y, x in zip(ys[order].tolist(), xs[order].tolist()):
            img = images(int(layer[y, x]))
            if img is None:
                continue
            ox, oy = cell_origin(game_type, x, y, tile_width, tile_height, size)
            _paste(picture, img, ox + (tile_width - img.width) // 2, oy + tile_height - img.height)
    return picture


def _scaled(tiles: Callable[[int], Image.Image | None], fx: float,
            fy: float) -> Callable[[int], Image.Image | None]:
    def make(index: int) -> Image.Image | None:
        img = tiles(index)
        if img is None:
            return None
        size = (max(1, round(img.width * fx)), max(1, round(img.height * fy)))
        return img.resize(size, Image.Resampling.BOX if fx < 1 else Image.Resampling.NEAREST)
    return make


def _paste(picture: Image.Image, img: Image.Image, x: int, y: int) -> None:
    """alpha_composite that clips at the canvas edges (PIL refuses negative corners)."""
    left, top = max(0, -x), max(0, -y)
    if left or top:
        if left >= img.width or top >= img.height:
            return
        img = img.crop((left, top, img.width, img.height))
        x, y = x + left, y + top
    if x >= picture.width or y >= picture.height:
        return
    picture.alpha_composite(img, (x, y))


def _blend(dst: npt.NDArray[np.uint8], src: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
    """Source-over compositing of ``src`` onto ``dst`` (straight alpha), broadcasting."""
    sa = src[..., 3:4].astype(np.float32) / 255.0
    da = dst[..., 3:4].astype(np.float32) / 255.0
    out_a = sa + da * (1.0 - sa)
    rgb = (src[..., :3] * sa + dst[..., :3] * da * (1.0 - sa)) / np.maximum(out_a, 1e-6)
    out = np.empty(np.broadcast_shapes(dst.shape, src.shape), dtype=np.uint8)
    out[..., :3] = np.clip(rgb + 0.5, 0, 255).astype(np.uint8)
    out[..., 3:4] = np.clip(out_a * 255.0 + 0.5, 0, 255).astype(np.uint8)
    return out


def _draw_top_down(canvas: npt.NDArray[np.uint8], layer: npt.NDArray[np.uint16],
                   images: TileImages, tw: int, th: int) -> None:
    size = layer.shape[0]
    cells = canvas.reshape(size, th, size, tw, 4)
    values, inverse = np.unique(layer, return_inverse=True)
    inverse = inverse.reshape(layer.shape)
    for k, v in enumerate(values.tolist()):
        if v == EMPTY_TILE:
            continue
        img = images(v)
        if img is None:
            continue
        ys, xs = np.nonzero(inverse == k)
        if img.size == (tw, th):
            src = np.asarray(img, dtype=np.uint8)
            if src[..., 3].min() == 255:
                cells[ys, :, xs, :, :] = src
            else:
                cells[ys, :, xs, :, :] = _blend(cells[ys, :, xs, :, :], src)
            continue
        # Bigger or smaller than a cell: stands on the bottom of its cell, centred.
        for y, x in zip(ys.tolist(), xs.tolist()):
            _paste_array(canvas, img, x * tw + (tw - img.width) // 2, (y + 1) * th - img.height)


def _paste_array(canvas: npt.NDArray[np.uint8], img: Image.Image, x: int, y: int) -> None:
    src = np.asarray(img, dtype=np.uint8)
    h, w = canvas.shape[:2]
    x0, y0 = max(x, 0), max(y, 0)
    x1, y1 = min(x + src.shape[1], w), min(y + src.shape[0], h)
    if x0 >= x1 or y0 >= y1:
        return
    part = src[y0 - y:y1 - y, x0 - x:x1 - x]
    canvas[y0:y1, x0:x1] = _blend(canvas[y0:y1, x0:x1], part)


def to_png(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, "PNG", optimize=False)
    return out.getvalue()


# -- over a whole game ---------------------------------------------------------------------
# The game model is another module's business; these helpers only follow its sections by
# KIND (atlases, tile_sprites, maps), so they need nothing but the model's shape.


def _section(game: Any, kind: str) -> Any:
    for s in getattr(game, "sections", ()):
        if getattr(s, "KIND", None) == kind:
            return s
    return None


def game_map(game: Any, which: str | int) -> tuple[int, MapAsset]:
    """A map of the game by its place in section 35 or by its name (a string of section 0)."""
    sec = _section(game, "maps")
    entries = list(getattr(sec, "maps", ())) if sec is not None else []
    index: int | None = None
    if isinstance(which, int) or str(which).isdigit():
        index = int(which)
    else:
        for k, e in enumerate(entries):
            if game.string(e.name) == which:
                index = k
                break
        if index is None:
            names = ", ".join(str(game.string(e.name)) for e in entries) or "none"
            raise FormatError(None, "maps", f"a map number or name ({names})", repr(which))
    if not 0 <= index < len(entries):
        raise FormatError(None, "maps", f"a map number below {len(entries)}", str(index))
    asset = entries[index].asset
    value = asset.value
    if isinstance(value, MapAsset):
        return index, value
    head = game.header
    return index, parse_map(asset.content(), path=f"maps[{index}]", layers=head.map_layers,
                            size=head.map_size)


def game_tiles(game: Any) -> TileImages:
    """Tile sprite pictures (section 8, first frame of the first animation) from the atlases."""
    atlases = _section(game, "atlases")
    sprites = _section(game, "tile_sprites")
    atlas_entries = list(getattr(atlases, "entries", ())) if atlases is not None else []
    sprite_entries = list(getattr(sprites, "sprites", ())) if sprites is not None else []
    pictures: dict[int, Image.Image] = {}

    def atlas(i: int) -> Image.Image:
        if i not in pictures:
            if not 0 <= i < len(atlas_entries):
                raise FormatError(None, "atlases", f"an atlas index below {len(atlas_entries)}",
                                  str(i))
            pictures[i] = load_png(atlas_entries[i].asset.value, f"atlases[{i}]")
        return pictures[i]

    def make(index: int) -> Image.Image | None:
        if not 0 <= index < len(sprite_entries):
            return None  # a tile past section 8: validation reports it; nothing to draw
        anims = sprite_entries[index].asset.value.animations
        if not anims:
            return None
        return sprite_image(anims[0], atlas, path=f"tile_sprites[{index}]")

    return TileImages(make)


def render_game_map(game: Any, which: str | int, layers: Iterable[int] | None = None,
                    scale: float = 1.0) -> Image.Image:
    _, m = game_map(game, which)
    h = game.header
    return render_map(m, game_tiles(game), h.tile_width, h.tile_height, h.game_type, layers,
                      scale)
