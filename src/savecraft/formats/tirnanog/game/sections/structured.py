"""Deflated assets with a layout of their own (NPCs, dialogs, quests...): one base class.

A subclass declares its value's layout once (``LAYOUT``, a
:class:`savecraft.layout.Struct`); this class inflates, reads and writes
through it, reports bytes left over (kept in the value's ``trailing`` and
written back), and says in messages that offsets count from the start of
the inflated asset.
"""

from __future__ import annotations

from typing import Any, ClassVar, TypeVar

from .....binary import Reader, Writer
from .....errors import FormatError
from .....layout import Struct
from ..assets import Asset, AssetContext

V = TypeVar("V")


class StructAsset(Asset[V]):
    VALUE: ClassVar[type]
    LAYOUT: ClassVar[Struct]

    def read(self, r: Reader, ctx: AssetContext) -> V:
        return self.LAYOUT.read(r, ctx)  # type: ignore[no-any-return]

    def write(self, w: Writer, value: V, ctx: Any) -> None:
        self.LAYOUT.write(value, w, ctx)

    def decode(self, content: bytes, offset: int, ctx: AssetContext) -> V:
        r = Reader(content, path=self.path, what=f"the {self.WHAT}")
        try:
            value = self.read(r, ctx)
        except FormatError as err:
            raise FormatError(err.offset, err.path,
                              f"{err.expected} (offset in the {self.WHAT} inflated from file offset "
                              f"0x{offset:X})", err.found) from None
        if r.remaining:
            ctx.report.warning(offset, self.path, f"the {self.WHAT} to end after its records",
                               f"{r.remaining} more bytes (kept)")
            value.trailing = r.rest()  # type: ignore[attr-defined]
        return value

    def encode(self, value: V, ctx: Any) -> bytes:
        w = Writer(self.path)
        self.write(w, value, ctx)
        w.bytes(getattr(value, "trailing", b""))
        return w.getvalue()

    @classmethod
    def empty(cls) -> V:
        return cls.VALUE()  # type: ignore[no-any-return]

    @classmethod
    def value_type(cls) -> Any:
        return cls.VALUE
