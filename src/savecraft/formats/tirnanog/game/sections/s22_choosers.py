"""Section type 22: choosers, descriptors over deflated chooser assets (10-byte header, 31-byte options)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from .....binary import Reader, Writer
from .....layout import U8, U16, Array, Field, List, Struct, When
from .common import CONDITION, BuildContext, Condition, ParseContext, prefix, sref
from .media import decode_media, encode_media, media_layout
from .structured import StructAsset

TYPE = 22
RECT = 13  # an option at position 13 is a rectangle in percent, not sprites
KEEP_RUNNING = 0x80
@dataclass(slots=True)
class ChooserOption:
    position: int = 0  # 0-13; bit 7: keep the chooser running
    sprites: list[int] = field(default_factory=list)  # 3 UI sprite indices (position < 13), else none
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


# An option's 6-byte area: three UI sprite indices, or (position 13) a rectangle in percent.
_RECT = "position & 0x7F == 13"
OPTION = Struct(ChooserOption, [
    Field("position", U8),
    When(f"not ({_RECT})", [Field("sprites", Array(U16, 3))], "three sprites", defaults=True),
    When(_RECT, [Field("rect", Array(U8, 4)), Field("rect_padding", U16)], "a rectangle", defaults=True),
    Field("required1", CONDITION), Field("required2", CONDITION), Field("provided", CONDITION),
], name="chooser option")
CHOOSER = Struct(Chooser, [
    Field("left", U16), Field("top", U16), Field("horizontal_padding", U16), Field("vertical_padding", U16),
    Field("options", List(OPTION, prefix(U16, "option_count", "options"))),
], name="chooser")


class ChooserAsset(StructAsset[Chooser]):
    WHAT = "chooser"
    VALUE = Chooser
    LAYOUT = CHOOSER


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


LAYOUT = media_layout(ChoosersSection, ChooserEntry, ChooserAsset, "entries")


def decode(r: Reader, ctx: ParseContext) -> ChoosersSection:
    return decode_media(LAYOUT, r, ctx)  # type: ignore[no-any-return]


def encode(s: ChoosersSection, w: Writer, ctx: BuildContext) -> None:
    encode_media(LAYOUT, s, w, ctx)
