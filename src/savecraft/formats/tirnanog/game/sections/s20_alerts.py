"""Section type 20: alerts (font, timing in 1/100 s, then at least 3 alert records)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar
from .....binary import Reader, Writer
from .....layout import U8, U16, U24, U32, Field, List, Struct
from .common import (
    FONT,
    SREF,
    BuildContext,
    FontRef,
    ParseContext,
    prefix,
    read_section,
    sref,
    tref,
    write_section,
)


TYPE = 20
MIN_ALERTS = 3


@dataclass(slots=True)
class Alert:
    color: int = 0xFFFFFFFF
    sound: int = sref()
    text: int = tref()


@dataclass(slots=True)
class AlertsSection:
    KIND: ClassVar[str] = "alerts"
    TYPE: ClassVar[int] = 20
    font: FontRef = field(default_factory=FontRef)
    display_time: int = 300
    fade_in_end: int = 50
    fade_out_start: int = 250
    alerts: list[Alert] = field(default_factory=list)
    trailing: bytes = b""


ALERT = Struct(Alert, [Field("color", U32), Field("sound", SREF), Field("text", U24)], name="alert")
ALERTS = Struct(AlertsSection, [
    Field("font", FONT), Field("display_time", U16), Field("fade_in_end", U16), Field("fade_out_start", U16),
    Field("alerts", List(ALERT, prefix(U8, "count", "alerts"))),
], name="alerts")


def decode(r: Reader, ctx: ParseContext) -> AlertsSection:
    s: AlertsSection = read_section(ALERTS, r, ctx)
    if len(s.alerts) < MIN_ALERTS:
        ctx.report.error(None, f"{r.path}.count", f"at least {MIN_ALERTS} alerts", str(len(s.alerts)))
    return s


def encode(s: AlertsSection, w: Writer, ctx: BuildContext) -> None:
    write_section(ALERTS, s, w, ctx)
