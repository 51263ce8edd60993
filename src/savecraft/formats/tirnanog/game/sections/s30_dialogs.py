"""Section type 30: dialogs (deflated: 14-byte header, then 21-byte answer options).

A portrait index from 0xFFF0 to 0xFFFE is the player's own portrait with an
expression (0xFFF0 normal, 0xFFF1 happy...).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from .....binary import Reader, Writer
from ..assets import AssetContext
from .common import BuildContext, ParseContext, SpriteRef, read_sprite, sref, tref, write_sprite
from .media import decode_media, encode_media
from .structured import StructAsset

TYPE = 30
PLAYER_PORTRAIT = 0xFFF0


@dataclass(slots=True)
class DialogOption:
    required_attribute: int = sref()
    relation: int = 0
    required_value: int = 0
    provided_attribute: int = sref()
    provided_value: int = 0
    speech: int = sref()
    text: int = tref()


@dataclass(slots=True)
class Dialog:
    title: int = tref()
    description: int = tref()
    speech: int = sref()
    portrait: SpriteRef = field(default_factory=SpriteRef)
    portrait_left: int = 0  # 0: portrait on the right, 1: on the left
    options: list[DialogOption] = field(default_factory=list)
    trailing: bytes = b""


class DialogAsset(StructAsset[Dialog]):
    WHAT = "dialog"
    VALUE = Dialog

    def read(self, r: Reader, ctx: AssetContext) -> Dialog:
        d = Dialog(r.u24("title"), r.u24("description"), r.u24("speech"), read_sprite(r, "portrait"),
                   r.u8("portrait_left"))
        n = r.u8("option_count")
        r.count(n, 21, "options")
        for i in range(n):
            p = f"options[{i}]"
            d.options.append(DialogOption(r.u24(p), r.u8(p), r.i32(p), r.u24(p), r.i32(p), r.u24(p),
                                          r.u24(p + ".text")))
        return d

    def write(self, w: Writer, d: Dialog, ctx: Any) -> None:
        w.u24(d.title, "title")
        w.u24(d.description, "description")
        w.u24(ctx.s(d.speech), "speech")
        write_sprite(w, d.portrait, "portrait")
        w.u8(d.portrait_left, "portrait_left")
        if len(d.options) > 255:
            w._bad("options", "at most 255 options", str(len(d.options)))
        w.u8(len(d.options))
        for i, o in enumerate(d.options):
            p = f"options[{i}]"
            w.u24(ctx.s(o.required_attribute), p)
            w.u8(o.relation, p)
            w.i32(o.required_value, p)
            w.u24(ctx.s(o.provided_attribute), p)
            w.i32(o.provided_value, p)
            w.u24(ctx.s(o.speech), p)
            w.u24(o.text, p)


@dataclass(slots=True)
class DialogEntry:
    name: int = sref()
    asset: DialogAsset = field(default_factory=DialogAsset)


@dataclass(slots=True)
class DialogsSection:
    KIND: ClassVar[str] = "dialogs"
    TYPE: ClassVar[int] = 30
    dialogs: list[DialogEntry] = field(default_factory=list)
    trailing: bytes = b""


def decode(r: Reader, ctx: ParseContext) -> DialogsSection:
    return decode_media(r, ctx, DialogsSection, DialogEntry, DialogAsset, "dialogs")


def encode(s: DialogsSection, w: Writer, ctx: BuildContext) -> None:
    encode_media(s.dialogs, "name", w, ctx, "dialogs")
    w.bytes(s.trailing)
