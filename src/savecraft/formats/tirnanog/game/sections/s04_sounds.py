"""Section type 4: sounds, 16-byte descriptors each naming a Ogg asset by a string index."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from .....binary import Reader, Writer
from ..assets import OggAsset
from .common import BuildContext, ParseContext, sref
from .media import decode_media, encode_media, media_layout

TYPE = 4


@dataclass(slots=True)
class Sound:
    name: int = sref()
    asset: OggAsset = field(default_factory=OggAsset)


@dataclass(slots=True)
class SoundsSection:
    KIND: ClassVar[str] = "sounds"
    TYPE: ClassVar[int] = 4
    entries: list[Sound] = field(default_factory=list)
    trailing: bytes = b""


LAYOUT = media_layout(SoundsSection, Sound, OggAsset, "entries")


def decode(r: Reader, ctx: ParseContext) -> SoundsSection:
    return decode_media(LAYOUT, r, ctx)  # type: ignore[no-any-return]


def encode(s: SoundsSection, w: Writer, ctx: BuildContext) -> None:
    encode_media(LAYOUT, s, w, ctx)
