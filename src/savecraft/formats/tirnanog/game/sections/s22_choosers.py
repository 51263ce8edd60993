"""Section type 22: choosers, descriptors over deflated chooser assets (10-byte header, 31-byte options)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from .....binary import Reader, Record, Writer
from ..assets import AssetContext
from .common import BuildContext, Condition, ParseContext, sref
from .media import decode_media, encode_media
from .structured import StructAsset

TYPE = 22
RECT = 13  # an option at position 13 is a rectangle in percent, not sprites
KEEP_RUNNING = 0x80
CHOOSER_HEAD = Record("chooser header", [
    ("left", "u16"), ("top", "u16"), ("horizontal_padding", "u16"), ("vertical_padding", "u16"),
    ("option_count", "u16"),
])
OPTION = Record("chooser option", [
    ("position", "u8"), ("area", "bytes[6]"),
    ("required1_type", "u8"), ("required1_attribute", "u24"), ("required1_value", "i32"),
    ("required2_type", "u8"), ("required2_attribute", "u24"), ("required2_value", "i32"),
    ("provided_type", "u8"), ("provided_attribute", "u24"), ("provided_value", "i32"),
])


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


class ChooserAsset(StructAsset[Chooser]):
    WHAT = "chooser"
    VALUE = Chooser

    def read(self, r: Reader, ctx: AssetContext) -> Chooser:
        left, top, hpad, vpad, n = r.record(CHOOSER_HEAD, "header")
        c = Chooser(left, top, hpad, vpad)
        r.count(n, OPTION.size, "options")
        for i in range(n):
            pos, area, t1, a1, v1, t2, a2, v2, tp, ap, vp = r.record(OPTION, f"options[{i}]")
            o = ChooserOption(pos, required1=Condition(t1, a1, v1), required2=Condition(t2, a2, v2),
                              provided=Condition(tp, ap, vp))
            if pos & 0x7F == RECT:
                o.sprites = []
                o.rect = list(area[:4])
                o.rect_padding = int.from_bytes(area[4:], "little")
            else:
                o.sprites = [int.from_bytes(area[k : k + 2], "little") for k in (0, 2, 4)]
            c.options.append(o)
        return c

    def write(self, w: Writer, c: Chooser, ctx: Any) -> None:
        w.record(CHOOSER_HEAD, (c.left, c.top, c.horizontal_padding, c.vertical_padding, len(c.options)), "header")
        for i, o in enumerate(c.options):
            p = f"options[{i}]"
            area = Writer(p)
            if o.position & 0x7F == RECT:
                if len(o.rect) != 4:
                    w._bad(p + ".rect", "4 percentages", str(o.rect))
                for v in o.rect:
                    area.u8(v, "rect")
                area.u16(o.rect_padding, "rect_padding")
            else:
                if len(o.sprites) != 3:
                    w._bad(p + ".sprites", "3 sprite indices", str(o.sprites))
                area.array("u16", o.sprites, "sprites")
            r1, r2, pr = o.required1, o.required2, o.provided
            w.record(OPTION, (o.position, area.getvalue(), r1.relation, ctx.s(r1.attribute), r1.value, r2.relation,
                              ctx.s(r2.attribute), r2.value, pr.relation, ctx.s(pr.attribute), pr.value), p)


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
