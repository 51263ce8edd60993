"""The sprite sections (types 7-10): descriptors over deflated sprite maps.

A sprite map holds one animation record per direction; each frame says
which atlas (lower 12 bits) and operation (upper 4 bits) it is cut from.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

from .....binary import Reader, Record, Writer
from .....errors import FormatError
from ..assets import Asset, AssetContext
from .common import BuildContext, ParseContext

FRAME = Record("sprite map frame", [
    ("atlas", "u16"), ("x", "u16"), ("y", "u16"), ("width", "u16"), ("height", "u16"),
    ("left", "u16"), ("top", "u16"),
])
ANIM = Record("animation record", [("width", "u16"), ("height", "u16"), ("type", "u8"), ("frames", "u8")])
MAX_FRAMES = 32
MAX_SIZE = 2048


class Operation(IntEnum):
    COPY = 0
    FLIP_VERTICAL = 1
    FLIP_HORIZONTAL = 2
    ROTATE_CW = 3
    ROTATE_180 = 4
    ROTATE_CCW = 5


class Loop(IntEnum):
    ONCE = 0
    FORTH_AND_BACK = 1
    LOOP = 2


@dataclass(slots=True)
class Frame:
    atlas: int = 0  # index into section 6
    operation: int = 0  # an Operation value
    x: int = 0
    y: int = 0
    width: int = 0
    height: int = 0
    left: int = 0
    top: int = 0


@dataclass(slots=True)
class Animation:
    width: int = 0
    height: int = 0
    direction: int = 0  # bits 0-5 of the type byte
    loop: int = 0  # bits 6-7: a Loop value
    frames: list[Frame] = field(default_factory=list)


@dataclass(slots=True)
class SpriteMap:
    animations: list[Animation] = field(default_factory=list)
    trailing: bytes = b""


def decode_sprite_map(data: bytes, offset: int = 0, path: str = "") -> SpriteMap:
    r = Reader(data, base=offset, path=path, what="the sprite map")
    anims: list[Animation] = []
    while r.remaining >= ANIM.size:
        p = f"animations[{len(anims)}]"
        w, h, t, n = r.record(ANIM, p)
        r.count(n, FRAME.size, p + ".frames", "frame")
        frames = []
        for k in range(n):
            a, x, y, fw, fh, left, top = r.record(FRAME, f"{p}.frames[{k}]")
            frames.append(Frame(a & 0xFFF, a >> 12, x, y, fw, fh, left, top))
        anims.append(Animation(w, h, t & 0x3F, t >> 6, frames))
    return SpriteMap(anims, r.rest())


def encode_sprite_map(m: SpriteMap) -> bytes:
    w = Writer("sprite map")
    for i, a in enumerate(m.animations):
        p = f"animations[{i}]"
        w.check_count(a.frames, 255, p + ".frames", "frames")
        if not 0 <= a.direction < 64 or not 0 <= a.loop < 4:
            w._bad(p, "a direction below 64 and a loop type below 4", f"{a.direction}, {a.loop}")
        w.record(ANIM, (a.width, a.height, a.direction | a.loop << 6, len(a.frames)), p)
        for k, f in enumerate(a.frames):
            if not 0 <= f.atlas < 4096 or not 0 <= f.operation < 16:
                w._bad(f"{p}.frames[{k}]", "an atlas below 4096 and an operation below 16",
                       f"{f.atlas}, {f.operation}")
            w.record(FRAME, (f.atlas | f.operation << 12, f.x, f.y, f.width, f.height, f.left, f.top),
                     f"{p}.frames[{k}]")
    w.bytes(m.trailing)
    return w.getvalue()


class SpriteMapAsset(Asset[SpriteMap]):
    """A sprite map; ``read_count`` is how many animation records it had when read
    (from the file or a dump), so an unchanged count keeps the descriptor's own."""

    WHAT = "sprite map"
    REFS_STRINGS = False
    read_count: int | None = None

    def decode(self, content: bytes, offset: int, ctx: AssetContext) -> SpriteMap:
        try:
            value = decode_sprite_map(content, 0, self.path)
        except FormatError as err:
            raise FormatError(err.offset, err.path,
                              err.expected + f" (offset inside the sprite map inflated from 0x{offset:X})",
                              err.found) from None
        self.read_count = len(value.animations)
        if value.trailing:
            ctx.report.warning(offset, f"{self.path}.trailing",
                               f"the end of the sprite map after {len(value.animations)} whole animation "
                               f"records ({len(content) - len(value.trailing)} bytes inflated)",
                               f"{len(value.trailing)} more bytes (kept)")
        return value

    @classmethod
    def __json_decode__(cls, obj: Any, path: str) -> SpriteMapAsset:
        a = super().__json_decode__(obj, path)
        assert isinstance(a, SpriteMapAsset)
        a.read_count = len(a.value.animations)
        return a

    def encode(self, value: SpriteMap, ctx: Any) -> bytes:
        return encode_sprite_map(value)

    @classmethod
    def empty(cls) -> SpriteMap:
        return SpriteMap()

    @classmethod
    def value_type(cls) -> Any:
        return SpriteMap


@dataclass(slots=True)
class Sprite:
    """A sprite record; ``directions`` is the descriptor's count (d, 1-8) of animation records."""

    reserved: int = 0  # 3 bytes, must be zero
    directions: int = 1
    asset: SpriteMapAsset = field(default_factory=SpriteMapAsset)


def decode_sprites(r: Reader, ctx: ParseContext, path: str) -> tuple[list[Sprite], bytes]:
    if r.remaining % 16:
        ctx.report.error(r.offset, path, "a section length that is a multiple of 16",
                         f"{r.remaining} bytes")
    out = []
    for i in range(r.remaining // 16):
        asset, tail = ctx.descriptor(r, SpriteMapAsset, f"{path}[{i}]")
        d = tail >> 24
        if not 1 <= d <= 8:
            ctx.report.error(r.offset - 1, f"{path}[{i}].directions", "1 to 8 directions", str(d))
        if tail & 0xFFFFFF:
            ctx.report.error(r.offset - 4, f"{path}[{i}].reserved", "zero", f"0x{tail & 0xFFFFFF:06X}")
        out.append(Sprite(tail & 0xFFFFFF, d, asset))
    return out, r.rest()


def encode_sprites(items: list[Sprite], w: Writer, ctx: BuildContext, path: str) -> None:
    for i, s in enumerate(items):
        # The count of animation records, recomputed when the records change; while their
        # number is what was read, the descriptor's count is kept (a file may disagree with
        # itself, and validate says so, but is still rebuilt byte for byte).
        d = s.directions
        if s.asset.loaded:
            n = len(s.asset.value.animations)
            if n != s.asset.read_count:
                d = n
        if not 0 <= d < 256:
            w._bad(f"{path}[{i}].directions", "at most 255 animation records", str(d))
        ctx.descriptor(w, s.asset, (s.reserved & 0xFFFFFF) | d << 24, f"{path}[{i}]")
