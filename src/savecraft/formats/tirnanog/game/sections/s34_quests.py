"""Section type 34: quests (deflated: 10-byte header, then the on-complete script)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from .....binary import Reader, Writer
from .....layout import U8, U24, Field, Struct
from ..bytecode import Script
from .common import BuildContext, ParseContext, Script, script, sref, tref
from .media import decode_media, encode_media, media_layout
from .structured import StructAsset

TYPE = 34


@dataclass(slots=True)
class Quest:
    global_quest: int = 0  # 1: only one player can complete it
    title: int = tref()
    description: int = tref()
    script: Script = field(default_factory=Script)
    trailing: bytes = b""


QUEST = Struct(Quest, [Field("global_quest", U8), Field("title", U24), Field("description", U24),
                       Field("script", script(U24, "script_size"))], name="quest")

class QuestAsset(StructAsset[Quest]):
    WHAT = "quest"
    VALUE = Quest
    LAYOUT = QUEST


@dataclass(slots=True)
class QuestEntry:
    name: int = sref()
    asset: QuestAsset = field(default_factory=QuestAsset)


@dataclass(slots=True)
class QuestsSection:
    KIND: ClassVar[str] = "quests"
    TYPE: ClassVar[int] = 34
    quests: list[QuestEntry] = field(default_factory=list)
    trailing: bytes = b""


LAYOUT = media_layout(QuestsSection, QuestEntry, QuestAsset, "quests")


def decode(r: Reader, ctx: ParseContext) -> QuestsSection:
    return decode_media(LAYOUT, r, ctx)  # type: ignore[no-any-return]


def encode(s: QuestsSection, w: Writer, ctx: BuildContext) -> None:
    encode_media(LAYOUT, s, w, ctx)
