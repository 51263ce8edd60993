"""The sections that are lists of 16-byte asset descriptors to their end: one description each.

A descriptor is the asset's offset (u64) and length (u32), then a u32 whose
meaning is the section's (a string index naming the asset, the object's
tile sprite, a sprite map's direction count). :func:`media_layout` declares
the section as that list; what is left after the last whole descriptor is
reported and kept in ``trailing``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .....binary import Reader, Writer
from .....layout import Field, List, Member, Struct, ToEnd
from ..assets import Asset
from .common import SREF32, BuildContext, ParseContext, descriptor, read_section, write_section

DESCRIPTOR_SIZE = 16


def media_layout(section_cls: type, entry_cls: type, asset_cls: type[Asset[Any]], items: str,
                 tail: Sequence[Member] | None = None) -> Struct:
    """The section ``section_cls`` as a list ``items`` of ``entry_cls`` descriptors: the asset,
    then ``tail`` (default: the u32 string index ``name``)."""
    entry = Struct(entry_cls, [Field("asset", descriptor(asset_cls)),
                               *(tail if tail is not None else [Field("name", SREF32)])],
                   name=f"{section_cls.KIND} descriptor")  # type: ignore[attr-defined]
    return Struct(section_cls, [Field(items, List(entry, ToEnd(DESCRIPTOR_SIZE)))],
                  name=f"{section_cls.KIND} section")  # type: ignore[attr-defined]


def decode_media(layout: Struct, r: Reader, ctx: ParseContext) -> Any:
    if r.remaining % DESCRIPTOR_SIZE:
        ctx.report.error(r.offset, r.path, "a section length that is a multiple of 16",
                         f"{r.remaining} bytes ({r.remaining % DESCRIPTOR_SIZE} left over)")
    return read_section(layout, r, ctx)


def encode_media(layout: Struct, section: Any, w: Writer, ctx: BuildContext) -> None:
    write_section(layout, section, w, ctx)
