"""Section type 26: default action handlers (header byte 40 says how many, 9 by default).

The descriptor's name field is the range attribute (a string index).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from .....binary import Reader, Writer
from .....layout import Field
from .common import SREF32, BuildContext, ParseContext, sref
from .media import decode_media, encode_media, media_layout
from .scripts import ScriptAsset

TYPE = 26


@dataclass(slots=True)
class DefaultAction:
    range_attribute: int = sref()
    asset: ScriptAsset = field(default_factory=ScriptAsset)


@dataclass(slots=True)
class DefaultActionsSection:
    KIND: ClassVar[str] = "default_actions"
    TYPE: ClassVar[int] = 26
    actions: list[DefaultAction] = field(default_factory=list)
    trailing: bytes = b""


LAYOUT = media_layout(DefaultActionsSection, DefaultAction, ScriptAsset, "actions", [Field("range_attribute", SREF32)])


def decode(r: Reader, ctx: ParseContext) -> DefaultActionsSection:
    s: DefaultActionsSection = decode_media(LAYOUT, r, ctx)
    if len(s.actions) != ctx.header.default_actions:
        ctx.report.error(None, "default_actions", f"{ctx.header.default_actions} handlers (header byte 40)",
                         str(len(s.actions)))
    return s


def encode(s: DefaultActionsSection, w: Writer, ctx: BuildContext) -> None:
    encode_media(LAYOUT, s, w, ctx)
