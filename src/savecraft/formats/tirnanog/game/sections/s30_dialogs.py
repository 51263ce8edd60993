"""Section type 30: dialogs (deflated: 14-byte header, then 21-byte answer options).

A portrait index from 0xFFF0 to 0xFFFE is the player's own portrait with an
expression (0xFFF0 normal, 0xFFF1 happy...).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from .....binary import Reader, Record, Writer
from ..assets import AssetContext
from .common import BuildContext, ParseContext, SpriteRef, sref, tref
from .media import decode_media, encode_media
from .structured import StructAsset

TYPE = 30
PLAYER_PORTRAIT = 0xFFF0
DIALOG_HEAD = Record("dialog header", [
    ("title", "u24"), ("description", "u24"), ("speech", "u24"), ("portrait_category", "u8"),
    ("portrait_index", "u16"), ("portrait_left", "u8"), ("option_count", "u8"),
])
OPTION = Record("dialog option", [
    ("required_attribute", "u24"), ("relation", "u8"), ("required_value", "i32"), ("provided_attribute", "u24"),
    ("provided_value", "i32"), ("speech", "u24"), ("text", "u24"),
])


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
        title, desc, speech, pc, pi, left, n = r.record(DIALOG_HEAD, "header")
        d = Dialog(title, desc, speech, SpriteRef(pc, pi), left)
        r.count(n, OPTION.size, "options")
        d.options = [DialogOption(*r.record(OPTION, f"options[{i}]")) for i in range(n)]
        return d

    def write(self, w: Writer, d: Dialog, ctx: Any) -> None:
        w.check_count(d.options, 255, "options", "options")
        w.record(DIALOG_HEAD, (d.title, d.description, ctx.s(d.speech), d.portrait.category, d.portrait.index,
                               d.portrait_left, len(d.options)), "header")
        for i, o in enumerate(d.options):
            w.record(OPTION, (ctx.s(o.required_attribute), o.relation, o.required_value,
                              ctx.s(o.provided_attribute), o.provided_value, ctx.s(o.speech), o.text),
                     f"options[{i}]")


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
