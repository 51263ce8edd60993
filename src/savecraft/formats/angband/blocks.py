"""The block-codec registry of the modular savefile, and the one example codec.

A modular savefile names each block by (vendor, type, version). Code that
knows a block's layout declares it once, as a :class:`savecraft.layout.Struct`
(docs/layouts.md), and registers a :class:`BlockCodec` with it for that
triple; the parser then decodes such blocks into the layout's model (a
dataclass, so the one JSON mapping dumps it as named fields) and the builder
encodes them back, both derived from the one description. Every other block
stays opaque bytes, written back unchanged.

A codec must reproduce the block's bytes exactly: when ``encode(decode(x))``
is not ``x`` (say, extra bytes after the fields), the parser reports it and
keeps that block opaque, so a rewrite never loses data.
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass
from typing import Any

from ...binary import Reader, Writer
from ...errors import SavecraftError
from ...layout import U8, Context, CStr, Field, Struct

Key = tuple[int, int, int]


@dataclass(frozen=True)
class BlockCodec:
    """One kind of block: its name, its (vendor, type, version) and its layout, whose model
    class is the block's model. The layout must describe every byte of the block."""

    name: str
    vendor: int
    type: int
    version: int
    layout: Struct

    @property
    def key(self) -> Key:
        return (self.vendor, self.type, self.version)

    @property
    def model(self) -> builtins.type[Any]:
        return self.layout.cls

    def decode(self, r: Reader) -> Any:
        """The block's value; bytes left after the layout are an error of the block."""
        value = self.layout.read(r, Context())
        if not r.at_end():
            r.fail("", f"the end of the {self.name} block after its fields", f"{r.remaining} more bytes")
        return value

    def encode(self, value: Any, w: Writer) -> None:
        self.layout.write(value, w, Context())


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


VARIANT_HEADER = Struct(VariantHeader, [
    Field("variant", CStr()), Field("major", U8), Field("minor", U8), Field("patch", U8),
    Field("extra", U8),
], name="header block")

HEADER_CODEC = register_block(BlockCodec(name="header", vendor=0, type=1, version=1, layout=VARIANT_HEADER))
