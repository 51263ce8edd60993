"""Section type 24: startup scripts; the descriptor's name field is the re-run interval (1/100 s).

The first script runs once at start, the others every ``interval``; records
must be sorted by ascending interval.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from .....binary import Reader, Writer
from .....layout import U32, Field
from .common import BuildContext, ParseContext
from .media import decode_media, encode_media, media_layout
from .scripts import ScriptAsset

TYPE = 24


@dataclass(slots=True)
class StartupScript:
    interval: int = 0
    asset: ScriptAsset = field(default_factory=ScriptAsset)


@dataclass(slots=True)
class StartupSection:
    KIND: ClassVar[str] = "startup"
    TYPE: ClassVar[int] = 24
    scripts: list[StartupScript] = field(default_factory=list)
    trailing: bytes = b""


LAYOUT = media_layout(StartupSection, StartupScript, ScriptAsset, "scripts", [Field("interval", U32)])


def decode(r: Reader, ctx: ParseContext) -> StartupSection:
    s: StartupSection = decode_media(LAYOUT, r, ctx)
    iv = [e.interval for e in s.scripts[1:]]
    if iv != sorted(iv):
        ctx.report.error(None, "startup", "scripts sorted by ascending interval", str(iv))
    return s


def encode(s: StartupSection, w: Writer, ctx: BuildContext) -> None:
    encode_media(LAYOUT, s, w, ctx)
