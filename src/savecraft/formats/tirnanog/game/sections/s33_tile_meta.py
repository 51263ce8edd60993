"""Section type 33: tile meta, 2 + 5 x (transportation methods, header byte 42) bytes per tile (NOTES.md)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar
from .....binary import Reader, Writer
from .....layout import U16, Ctx, Field, List, Struct, ToEnd
from .common import SREF, BuildContext, ParseContext, read_section, sref, write_section


TYPE = 33
METHODS = ("walk", "swim", "fly", "drive")


@dataclass(slots=True)
class Movement:
    speed: int = 100  # percent, may exceed 100
    sound: int = sref()


@dataclass(slots=True)
class TileMeta:
    sprite: int = 0  # tile sprite index (category 1)
    movements: list[Movement] = field(default_factory=list)  # one per transportation method


@dataclass(slots=True)
class TileMetaSection:
    KIND: ClassVar[str] = "tile_meta"
    TYPE: ClassVar[int] = 33
    tiles: list[TileMeta] = field(default_factory=list)
    trailing: bytes = b""


MOVEMENT = Struct(Movement, [Field("speed", U16), Field("sound", SREF)], name="movement")
TILE = Struct(TileMeta, [Field("sprite", U16),
                         Field("movements", List(MOVEMENT, Ctx("transport_methods", "header")))], name="tile meta")
_LAYOUTS: dict[int, Struct] = {}


def layout(methods: int) -> Struct:
    """The section for a game with ``methods`` transportation methods (header byte 41)."""
    got = _LAYOUTS.get(methods)
    if got is None:
        got = _LAYOUTS[methods] = Struct(TileMetaSection, [Field("tiles", List(TILE, ToEnd(2 + 5 * methods)))],
                                         name="tile meta")
    return got


def decode(r: Reader, ctx: ParseContext) -> TileMetaSection:
    t = ctx.header.transport_methods
    size = 2 + 5 * t
    if r.remaining % size:
        ctx.report.error(r.offset, r.path, f"a multiple of {size} bytes (2 + 5 x {t} methods)",
                         f"{r.remaining} bytes")
    ctx.set("transport_methods", t, "header")
    return read_section(layout(t), r, ctx)  # type: ignore[no-any-return]


def encode(s: TileMetaSection, w: Writer, ctx: BuildContext) -> None:
    t = ctx.header.transport_methods
    ctx.set("transport_methods", t, "header")
    write_section(layout(t), s, w, ctx)
