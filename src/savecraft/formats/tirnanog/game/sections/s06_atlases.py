"""Section type 6: sprite atlases, PNG images (the descriptor's name field must be zero)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from .....binary import Reader, Writer
from .....layout import U32, Field
from ..assets import PngAsset
from .common import BuildContext, ParseContext
from .media import decode_media, encode_media, media_layout

TYPE = 6
MAX_ATLASES = 4096


@dataclass(slots=True)
class Atlas:
    reserved: int = 0  # must be zero
    asset: PngAsset = field(default_factory=PngAsset)


@dataclass(slots=True)
class AtlasesSection:
    KIND: ClassVar[str] = "atlases"
    TYPE: ClassVar[int] = 6
    entries: list[Atlas] = field(default_factory=list)
    trailing: bytes = b""


LAYOUT = media_layout(AtlasesSection, Atlas, PngAsset, "entries", [Field("reserved", U32)])


def decode(r: Reader, ctx: ParseContext) -> AtlasesSection:
    s: AtlasesSection = decode_media(LAYOUT, r, ctx)
    for i, a in enumerate(s.entries):
        if a.reserved:
            ctx.report.error(None, f"atlases[{i}].reserved", "zero", f"0x{a.reserved:08X}")
    if len(s.entries) > MAX_ATLASES:
        ctx.report.error(None, "atlases", f"at most {MAX_ATLASES} atlases", str(len(s.entries)))
    return s


def encode(s: AtlasesSection, w: Writer, ctx: BuildContext) -> None:
    encode_media(LAYOUT, s, w, ctx)
