"""Section type 3: music, 16-byte descriptors each naming a Ogg asset by a string index."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from .....binary import Reader, Writer
from ..assets import OggAsset
from .common import BuildContext, ParseContext, sref
from .media import decode_media, encode_media, media_layout

TYPE = 3


@dataclass(slots=True)
class Music:
    name: int = sref()
    asset: OggAsset = field(default_factory=OggAsset)


@dataclass(slots=True)
class MusicSection:
    KIND: ClassVar[str] = "music"
    TYPE: ClassVar[int] = 3
    entries: list[Music] = field(default_factory=list)
    trailing: bytes = b""


LAYOUT = media_layout(MusicSection, Music, OggAsset, "entries")


def decode(r: Reader, ctx: ParseContext) -> MusicSection:
    return decode_media(LAYOUT, r, ctx)  # type: ignore[no-any-return]


def encode(s: MusicSection, w: Writer, ctx: BuildContext) -> None:
    encode_media(LAYOUT, s, w, ctx)
