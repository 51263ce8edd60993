"""Section type 22: choosers, descriptors over deflated chooser assets (10-byte header, 31-byte options)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from .....binary import Reader, Writer
from ..assets import AssetContext
from .common import BuildContext, Condition, ParseContext, sref
from .media import decode_media, encode_media
from .structured import StructAsset

TYPE = 22
RECT = 13  # an option at position 13 is a rectangle in percent, not sprites
KEEP_RUNNING = 0x80


@dataclass(slots=True)
class ChooserOption:
    position: int = 0  # 0-13; bit 7: keep the chooser running
    sprites: list[int] = field(default_factory=lambda: [0xFFFF] * 3)  # UI sprite indices (position < 13)
    rect: list[int] = field(default_factory=list)  # x1, y1, x2, y2 in percent (position 13)
    rect_padding: int = 0
    required1: Condition = field(default_factory=Condition)  # relation = type (>1: local variable)
    required2: Condition = field(default_factory=Condition)
    provided: Condition = field(default_factory=Condition)


@dataclass(slots=True)
class Chooser:
    left: int = 0
    top: int = 0
    horizontal_padding: int = 0
    vertical_padding: int = 0
    options: list[ChooserOption] = field(default_factory=list)
    trailing: bytes = b""


def _cond(r: Reader, p: str) -> Condition:
    t = r.u8(p + ".type")
    a = r.u24(p + ".attribute")
    return Condition(t, a, r.i32(p + ".value"))


class ChooserAsset(StructAsset[Chooser]):
    WHAT = "chooser"
    VALUE = Chooser

    def read(self, r: Reader, ctx: AssetContext) -> Chooser:
        c = Chooser(r.u16("left"), r.u16("top"), r.u16("horizontal_padding"), r.u16("vertical_padding"))
        n = r.u16("option_count")
        r.count(n, 31, "options")
        for i in range(n):
            p = f"options[{i}]"
            pos = r.u8(p + ".position")
            o = ChooserOption(pos)
            if pos & 0x7F == RECT:
                o.sprites = []
                o.rect = list(r.bytes(4, p + ".rect"))
                o.rect_padding = r.u16(p + ".rect_padding")
            else:
                o.sprites = list(r.array("u16", 3, p + ".sprites"))
            o.required1, o.required2, o.provided = (_cond(r, p + ".required1"), _cond(r, p + ".required2"),
                                                   _cond(r, p + ".provided"))
            c.options.append(o)
        return c

    def write(self, w: Writer, c: Chooser, ctx: Any) -> None:
        for v in (c.left, c.top, c.horizontal_padding, c.vertical_padding, len(c.options)):
            w.u16(v, "header")
        for i, o in enumerate(c.options):
            p = f"options[{i}]"
            w.u8(o.position, p + ".position")
            if o.position & 0x7F == RECT:
                if len(o.rect) != 4:
                    w._bad(p + ".rect", "4 percentages", str(o.rect))
                for v in o.rect:
                    w.u8(v, p + ".rect")
                w.u16(o.rect_padding, p + ".rect_padding")
            else:
                if len(o.sprites) != 3:
                    w._bad(p + ".sprites", "3 sprite indices", str(o.sprites))
                w.array("u16", o.sprites, p + ".sprites")
            for name in ("required1", "required2", "provided"):
                cd: Condition = getattr(o, name)
                w.u8(cd.relation, f"{p}.{name}.type")
                w.u24(ctx.s(cd.attribute), f"{p}.{name}.attribute")
                w.i32(cd.value, f"{p}.{name}.value")


@dataclass(slots=True)
class ChooserEntry:
    name: int = sref()
    asset: ChooserAsset = field(default_factory=ChooserAsset)


@dataclass(slots=True)
class ChoosersSection:
    KIND: ClassVar[str] = "choosers"
    TYPE: ClassVar[int] = 22
    entries: list[ChooserEntry] = field(default_factory=list)
    trailing: bytes = b""


def decode(r: Reader, ctx: ParseContext) -> ChoosersSection:
    return decode_media(r, ctx, ChoosersSection, ChooserEntry, ChooserAsset, "choosers")


def encode(s: ChoosersSection, w: Writer, ctx: BuildContext) -> None:
    encode_media(s.entries, "name", w, ctx, "choosers")
    w.bytes(s.trailing)
