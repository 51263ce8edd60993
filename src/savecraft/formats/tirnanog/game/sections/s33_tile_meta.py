"""Section type 33: tile meta, 2 + 5 x (transportation methods, header byte 42) bytes per tile (NOTES.md)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from .....binary import Reader, Writer
from .common import BuildContext, ParseContext, sref

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


def decode(r: Reader, ctx: ParseContext) -> TileMetaSection:
    t = ctx.header.transport_methods
    size = 2 + 5 * t
    if r.remaining % size:
        ctx.report.error(r.offset, "tile_meta", f"a multiple of {size} bytes (2 + 5 x {t} methods)",
                         f"{r.remaining} bytes")
    s = TileMetaSection()
    for i in range(r.remaining // size):
        p = f"tile_meta[{i}]"
        tm = TileMeta(r.u16(p + ".sprite"))
        for k in range(t):
            tm.movements.append(Movement(r.u16(f"{p}.movements[{k}].speed"), r.u24(f"{p}.movements[{k}].sound")))
        s.tiles.append(tm)
    s.trailing = r.rest()
    return s


def encode(s: TileMetaSection, w: Writer, ctx: BuildContext) -> None:
    t = ctx.header.transport_methods
    for i, tm in enumerate(s.tiles):
        if len(tm.movements) != t:
            w._bad(f"tiles[{i}].movements", f"{t} movements (header: transportation methods)",
                   str(len(tm.movements)))
        w.u16(tm.sprite, f"tiles[{i}].sprite")
        for k, m in enumerate(tm.movements):
            w.u16(m.speed, f"tiles[{i}].movements[{k}].speed")
            w.u24(ctx.s(m.sound), f"tiles[{i}].movements[{k}].sound")
    w.bytes(s.trailing)
