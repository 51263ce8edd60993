"""The sections that are plain lists of 16-byte asset descriptors over media files."""

from __future__ import annotations

from typing import Any, TypeVar

from .....binary import Reader, Writer
from ..assets import Asset
from .common import BuildContext, ParseContext

S = TypeVar("S")


def decode_media(r: Reader, ctx: ParseContext, section_cls: type[S], entry_cls: type[Any],
                 asset_cls: type[Asset[Any]], path: str) -> S:
    if r.remaining % 16:
        ctx.report.error(r.offset, path, "a section length that is a multiple of 16",
                         f"{r.remaining} bytes ({r.remaining % 16} left over)")
    entries = []
    for i in range(r.remaining // 16):
        asset, tail = ctx.descriptor(r, asset_cls, f"{path}[{i}]")
        entries.append(entry_cls(tail, asset))
    section = section_cls(entries)  # type: ignore[call-arg]
    section.trailing = r.rest()  # type: ignore[attr-defined]
    return section


def encode_media(entries: list[Any], tail_field: str, w: Writer, ctx: BuildContext, path: str,
                 string_tail: bool = True) -> None:
    for i, e in enumerate(entries):
        tail = getattr(e, tail_field)
        ctx.descriptor(w, e.asset, ctx.s(tail) if string_tail else tail, f"{path}[{i}]")
