"""Section type 24: startup scripts; the descriptor's name field is the re-run interval (1/100 s).

The first script runs once at start, the others every ``interval``; records
must be sorted by ascending interval.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from .....binary import Reader, Writer
from .common import BuildContext, ParseContext
from .media import decode_media, encode_media
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


def decode(r: Reader, ctx: ParseContext) -> StartupSection:
    s = decode_media(r, ctx, StartupSection, StartupScript, ScriptAsset, "startup")
    iv = [e.interval for e in s.scripts[1:]]
    if iv != sorted(iv):
        ctx.report.error(None, "startup", "scripts sorted by ascending interval", str(iv))
    return s


def encode(s: StartupSection, w: Writer, ctx: BuildContext) -> None:
    encode_media(s.scripts, "interval", w, ctx, "startup", string_tail=False)
    w.bytes(s.trailing)
