"""Section type 34: quests (deflated: 10-byte header, then the on-complete script)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from .....binary import Reader, Record, Writer
from ..assets import AssetContext
from ..bytecode import Script
from .common import BuildContext, ParseContext, read_script, sref, tref
from .media import decode_media, encode_media
from .structured import StructAsset

TYPE = 34
QUEST_HEAD = Record("quest header", [("global_quest", "u8"), ("title", "u24"), ("description", "u24"),
                                     ("script_size", "u24")])


@dataclass(slots=True)
class Quest:
    global_quest: int = 0  # 1: only one player can complete it
    title: int = tref()
    description: int = tref()
    script: Script = field(default_factory=Script)
    trailing: bytes = b""


class QuestAsset(StructAsset[Quest]):
    WHAT = "quest"
    VALUE = Quest

    def read(self, r: Reader, ctx: AssetContext) -> Quest:
        scope, title, desc, size = r.record(QUEST_HEAD, "header")
        return Quest(scope, title, desc, read_script(r, size, ctx, "script"))

    def write(self, w: Writer, q: Quest, ctx: Any) -> None:
        code = ctx.code(q.script, "script")
        w.record(QUEST_HEAD, (q.global_quest, q.title, q.description, len(code)), "header")
        w.bytes(code)


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


def decode(r: Reader, ctx: ParseContext) -> QuestsSection:
    return decode_media(r, ctx, QuestsSection, QuestEntry, QuestAsset, "quests")


def encode(s: QuestsSection, w: Writer, ctx: BuildContext) -> None:
    encode_media(s.quests, "name", w, ctx, "quests")
    w.bytes(s.trailing)
