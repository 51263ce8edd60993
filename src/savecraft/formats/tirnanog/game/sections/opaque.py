"""Reserved (12-15) and unknown section types: kept as opaque bytes, written back unchanged."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .....binary import Reader, Writer
from .common import BuildContext, ParseContext


@dataclass(slots=True)
class OpaqueSection:
    KIND: ClassVar[str] = "opaque"
    type: int = 12
    data: bytes = b""

    @property
    def TYPE(self) -> int:
        return self.type


def decode(r: Reader, ctx: ParseContext, type_: int) -> OpaqueSection:
    return OpaqueSection(type_, r.rest())


def encode(s: OpaqueSection, w: Writer, ctx: BuildContext) -> None:
    w.bytes(s.data)
