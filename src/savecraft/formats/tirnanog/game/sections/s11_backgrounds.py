"""Section type 11: backgrounds, 16-byte descriptors each naming a Png asset by a string index."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from .....binary import Reader, Writer
from ..assets import PngAsset
from .common import BuildContext, ParseContext, sref
from .media import decode_media, encode_media, media_layout

TYPE = 11


@dataclass(slots=True)
class Background:
    name: int = sref()
    asset: PngAsset = field(default_factory=PngAsset)


@dataclass(slots=True)
class BackgroundsSection:
    KIND: ClassVar[str] = "backgrounds"
    TYPE: ClassVar[int] = 11
    entries: list[Background] = field(default_factory=list)
    trailing: bytes = b""


LAYOUT = media_layout(BackgroundsSection, Background, PngAsset, "entries")


def decode(r: Reader, ctx: ParseContext) -> BackgroundsSection:
    return decode_media(LAYOUT, r, ctx)  # type: ignore[no-any-return]


def encode(s: BackgroundsSection, w: Writer, ctx: BuildContext) -> None:
    encode_media(LAYOUT, s, w, ctx)
