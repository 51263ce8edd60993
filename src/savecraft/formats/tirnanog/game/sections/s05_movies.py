"""Section type 5: movies, 16-byte descriptors each naming a Theora asset by a string index."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from .....binary import Reader, Writer
from ..assets import TheoraAsset
from .common import BuildContext, ParseContext, sref
from .media import decode_media, encode_media, media_layout

TYPE = 5


@dataclass(slots=True)
class Movie:
    name: int = sref()
    asset: TheoraAsset = field(default_factory=TheoraAsset)


@dataclass(slots=True)
class MoviesSection:
    KIND: ClassVar[str] = "movies"
    TYPE: ClassVar[int] = 5
    entries: list[Movie] = field(default_factory=list)
    trailing: bytes = b""


LAYOUT = media_layout(MoviesSection, Movie, TheoraAsset, "entries")


def decode(r: Reader, ctx: ParseContext) -> MoviesSection:
    return decode_media(LAYOUT, r, ctx)  # type: ignore[no-any-return]


def encode(s: MoviesSection, w: Writer, ctx: BuildContext) -> None:
    encode_media(LAYOUT, s, w, ctx)
