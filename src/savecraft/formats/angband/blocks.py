"""The block-codec registry of the modular savefile, and the one example codec.

A modular savefile names each block by (vendor, type, version). Code that
knows a block's layout registers a :class:`BlockCodec` for that triple; the
parser then decodes such blocks into the codec's model (a dataclass, so the
one JSON mapping dumps it as named fields) and the builder encodes them
back. Every other block stays opaque bytes, written back unchanged.

A codec must reproduce the block's bytes exactly: when ``encode(decode(x))``
is not ``x`` (say, extra bytes after the fields), the parser reports it and
keeps that block opaque, so a rewrite never loses data.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ...binary import Reader, Writer
from ...errors import SavecraftError

Key = tuple[int, int, int]


@dataclass(frozen=True)
class BlockCodec:
    """How to read and write one kind of block; ``decode`` must consume all of its reader."""

    name: str
    vendor: int
    type: int
    version: int
    model: builtins.type[Any]
    decode: Callable[[Reader], Any]
    encode: Callable[[Any, Writer], None]

    @property
    def key(self) -> Key:
        return (self.vendor, self.type, self.version)


_BY_KEY: dict[Key, BlockCodec] = {}
_BY_NAME: dict[str, BlockCodec] = {}
_BY_MODEL: dict[type, BlockCodec] = {}


def register_block(codec: BlockCodec) -> BlockCodec:
    """Make the modular format decode blocks with ``codec.key`` into ``codec.model``."""
    clash = (
        _BY_KEY.get(codec.key, codec) is not codec
        or _BY_NAME.get(codec.name, codec) is not codec
        or _BY_MODEL.get(codec.model, codec) is not codec
    )
    if clash:
        raise SavecraftError(f"block codec {codec.name!r} {codec.key}: that key, name or model "
                             "is already registered")
    _BY_KEY[codec.key] = codec
    _BY_NAME[codec.name] = codec
    _BY_MODEL[codec.model] = codec
    return codec


def codec_for(vendor: int, type_: int, version: int) -> BlockCodec | None:
    return _BY_KEY.get((vendor, type_, version))


def codec_named(name: str) -> BlockCodec | None:
    return _BY_NAME.get(name)


def codec_of(value: object) -> BlockCodec:
    try:
        return _BY_MODEL[type(value)]
    except KeyError:
        raise SavecraftError(f"{type(value).__name__} is not the model of a registered block codec") from None


def codecs() -> list[BlockCodec]:
    return list(_BY_KEY.values())


# -- the example codec: vendor 0, type 1, version 1, "header" (NOTES.md) ---------------


@dataclass(slots=True)
class VariantHeader:
    """Which game wrote the save: the variant's name and its four version bytes."""

    variant: str = ""
    major: int = 0
    minor: int = 0
    patch: int = 0
    extra: int = 0

    @property
    def version_text(self) -> str:
        text = f"{self.major}.{self.minor}.{self.patch}"
        return text if not self.extra else f"{text}.{self.extra}"


def _decode_header(r: Reader) -> VariantHeader:
    variant = r.cstr("variant")
    major, minor, patch, extra = (r.u8(n) for n in ("major", "minor", "patch", "extra"))
    if not r.at_end():
        r.fail("", "the end of the header block after the 4 version bytes",
               f"{r.remaining} more bytes")
    return VariantHeader(variant, major, minor, patch, extra)


def _encode_header(h: VariantHeader, w: Writer) -> None:
    w.cstr(h.variant, "variant")
    w.u8(h.major, "major")
    w.u8(h.minor, "minor")
    w.u8(h.patch, "patch")
    w.u8(h.extra, "extra")


HEADER_CODEC = register_block(BlockCodec(
    name="header", vendor=0, type=1, version=1, model=VariantHeader,
    decode=_decode_header, encode=_encode_header,
))
