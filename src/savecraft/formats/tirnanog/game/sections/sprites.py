"""The sprite sections (types 7-10): descriptors over deflated sprite maps.

A sprite map holds one animation record per direction; each frame says
which atlas (lower 12 bits) and operation (upper 4 bits) it is cut from.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import IntEnum
from typing import Any

from .....binary import Reader, Writer, join_path
from .....errors import FormatError
from .....layout import U8, U16, U24, Check, Computed, Context, Field, List, Stored, Struct
from ..assets import Asset, AssetContext
from .common import BuildContext, ParseContext, prefix
from .media import decode_media, encode_media, media_layout

ANIM_SIZE = 9
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


# The frame's first u16 holds the atlas (bits 0-11) and the operation (bits 12-15); the
# animation's type byte the direction (bits 0-5) and the loop (bits 6-7).
FRAME = Struct(Frame, [
    Check("0 <= atlas < 4096 and 0 <= operation < 16", "atlas", "an atlas below 4096 and an operation below 16",
          "str(atlas) + ', ' + str(operation)", on_write=True, on_read=False),
    Stored("atlas_operation", U16, "atlas | operation << 12"),
    Computed("atlas", "atlas_operation & 0xFFF"), Computed("operation", "atlas_operation >> 12"),
    Field("x", U16), Field("y", U16), Field("width", U16), Field("height", U16), Field("left", U16),
    Field("top", U16),
], name="sprite map frame")
ANIMATION = Struct(Animation, [
    Field("width", U16), Field("height", U16),
    Check("0 <= direction < 64 and 0 <= loop < 4", "type", "a direction below 64 and a loop type below 4",
          "str(direction) + ', ' + str(loop)", on_write=True, on_read=False),
    Stored("type", U8, "direction | loop << 6"),
    Computed("direction", "type & 0x3F"), Computed("loop", "type >> 6"),
    Field("frames", List(FRAME, prefix(U8, "frame_count", "frames"))),
], name="animation record")


def decode_sprite_map(data: bytes, offset: int = 0, path: str = "") -> SpriteMap:
    """Animation records while a whole one's header is left; the rest is kept as ``trailing``."""
    r = Reader(data, base=offset, path=path, what="the sprite map")
    ctx = Context()
    anims: list[Animation] = []
    while r.remaining >= ANIM_SIZE:
        at, name = r.pos, f"animations[{len(anims)}]"
        anims.append(ANIMATION.read(r, ctx, name))
        if r.spans is not None:  # the record as a whole: its direction and loop are bits of it
            r.spans.add(r.base + at, r.pos - at, join_path(r.path, name))
    return SpriteMap(anims, r.rest("trailing"))


def encode_sprite_map(m: SpriteMap) -> bytes:
    w = Writer("sprite map")
    ctx = Context()
    for i, a in enumerate(m.animations):
        ANIMATION.write(a, w, ctx, f"animations[{i}]")
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


# A sprite descriptor's u32 after the asset: 3 reserved bytes, then the direction count.
SPRITE_TAIL = [Field("reserved", U24), Field("directions", U8)]


def sprites_layout(section_cls: type) -> Struct:
    return media_layout(section_cls, Sprite, SpriteMapAsset, "sprites", SPRITE_TAIL)


def decode_sprites(layout: Struct, r: Reader, ctx: ParseContext) -> Any:
    start = r.offset
    section = decode_media(layout, r, ctx)
    for i, sp in enumerate(section.sprites):
        at = start + 16 * i
        if not 1 <= sp.directions <= 8:
            ctx.report.error(at + 15, f"{r.path}.sprites[{i}].directions", "1 to 8 directions", str(sp.directions))
        if sp.reserved:
            ctx.report.error(at + 12, f"{r.path}.sprites[{i}].reserved", "zero", f"0x{sp.reserved:06X}")
    return section


def encode_sprites(layout: Struct, section: Any, w: Writer, ctx: BuildContext) -> None:
    # The count of animation records, recomputed when the records change; while their number is
    # what was read, the descriptor's count is kept (a file may disagree with itself, and
    # validate says so, but is still rebuilt byte for byte).
    items = section.sprites
    for i, s in enumerate(items):
        if s.asset.loaded:
            n = len(s.asset.value.animations)
            if n != s.asset.read_count and n != s.directions:
                if items is section.sprites:
                    items = list(items)
                items[i] = Sprite(s.reserved, n, s.asset)
    if items is not section.sprites:
        section = replace(section, sprites=items)
    encode_media(layout, section, w, ctx)
