"""Section type 30: dialogs (deflated: 14-byte header, then 21-byte answer options).

A portrait index from 0xFFF0 to 0xFFFE is the player's own portrait with an
expression (0xFFF0 normal, 0xFFF1 happy...).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from .....binary import Reader, Writer
from .....layout import I32, U8, U24, Field, List, Struct
from .common import SPRITE, SREF, BuildContext, ParseContext, SpriteRef, prefix, sref, tref
from .media import decode_media, encode_media, media_layout
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


DIALOG_OPTION = Struct(DialogOption, [
    Field("required_attribute", SREF), Field("relation", U8), Field("required_value", I32),
    Field("provided_attribute", SREF), Field("provided_value", I32), Field("speech", SREF), Field("text", U24),
], name="dialog option")
DIALOG = Struct(Dialog, [
    Field("title", U24), Field("description", U24), Field("speech", SREF), Field("portrait", SPRITE),
    Field("portrait_left", U8), Field("options", List(DIALOG_OPTION, prefix(U8, "option_count", "options"))),
], name="dialog")

class DialogAsset(StructAsset[Dialog]):
    WHAT = "dialog"
    VALUE = Dialog
    LAYOUT = DIALOG


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


LAYOUT = media_layout(DialogsSection, DialogEntry, DialogAsset, "dialogs")


def decode(r: Reader, ctx: ParseContext) -> DialogsSection:
    return decode_media(LAYOUT, r, ctx)  # type: ignore[no-any-return]


def encode(s: DialogsSection, w: Writer, ctx: BuildContext) -> None:
    encode_media(LAYOUT, s, w, ctx)
