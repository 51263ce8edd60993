"""Section type 35: maps, descriptors over deflated map assets (which come last in the file).

The map asset itself (header, parallaxes, patrol paths, RLE layers) is the
business of :mod:`..maps`; :func:`map_from_bytes` / :func:`map_to_bytes` add
what the game knows (layer count and map size from the header, string
offsets moved by renamed strings).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from .....binary import Reader, Writer
from .....errors import FormatError
from ..assets import Asset, AssetContext
from ..maps import MapAsset as Map
from ..maps import build_map, parse_map
from .common import BuildContext, ParseContext, sref
from .media import decode_media, encode_media, media_layout

TYPE = 35


def map_from_bytes(content: bytes, path: str, ctx: AssetContext) -> Map:
    h = ctx.header
    shape = {} if h is None else {"layers": h.map_layers, "size": h.map_size}
    return parse_map(content, path=path, report=ctx.report, reserve=ctx.reserve_tiles, **shape)


def map_to_bytes(value: Map, ctx: Any) -> bytes:
    if getattr(ctx, "strings_map", None):
        value = replace(value, neighbours=[ctx.s(v) for v in value.neighbours], music=ctx.s(value.music))
    return build_map(value)


class LazyMap(Asset[Map]):
    """A map asset; its value is a :class:`..maps.MapAsset` (layers as a numpy array)."""

    WHAT = "map"

    def decode(self, content: bytes, offset: int, ctx: AssetContext) -> Map:
        try:
            return map_from_bytes(content, self.path, ctx)
        except FormatError as err:
            raise FormatError(err.offset, err.path,
                              f"{err.expected} (offset in the map inflated from file offset 0x{offset:X})",
                              err.found) from None

    def encode(self, value: Map, ctx: Any) -> bytes:
        return map_to_bytes(value, ctx)

    @classmethod
    def empty(cls) -> Map:
        return Map()

    @classmethod
    def value_type(cls) -> Any:
        return Map


@dataclass(slots=True)
class MapEntry:
    name: int = sref()
    asset: LazyMap = field(default_factory=LazyMap)


@dataclass(slots=True)
class MapsSection:
    KIND: ClassVar[str] = "maps"
    TYPE: ClassVar[int] = 35
    maps: list[MapEntry] = field(default_factory=list)
    trailing: bytes = b""


LAYOUT = media_layout(MapsSection, MapEntry, LazyMap, "maps")


def decode(r: Reader, ctx: ParseContext) -> MapsSection:
    return decode_media(LAYOUT, r, ctx)  # type: ignore[no-any-return]


def encode(s: MapsSection, w: Writer, ctx: BuildContext) -> None:
    encode_media(LAYOUT, s, w, ctx)
