"""Section type 20: alerts (font, timing in 1/100 s, then at least 3 alert records)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from .....binary import Reader, Writer
from .common import BuildContext, FontRef, Layout, ParseContext, sref, tref

TYPE = 20
MIN_ALERTS = 3
ALERTS_HEAD = Layout("alerts header", [("font", "font"), ("display_time", "u16"), ("fade_in_end", "u16"),
                                       ("fade_out_start", "u16")])
ALERT = Layout("alert", [("color", "u32"), ("sound", "str"), ("text", "u24")])


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


def decode(r: Reader, ctx: ParseContext) -> AlertsSection:
    s = AlertsSection(**ALERTS_HEAD.read(r, "alerts"))
    n = r.u8("alerts.count")
    r.count(n, ALERT.size, "alerts.alerts")
    s.alerts = [Alert(**ALERT.read(r, f"alerts.alerts[{i}]")) for i in range(n)]
    if n < MIN_ALERTS:
        ctx.report.error(None, "alerts.count", f"at least {MIN_ALERTS} alerts", str(n))
    s.trailing = r.rest()
    return s


def encode(s: AlertsSection, w: Writer, ctx: BuildContext) -> None:
    ALERTS_HEAD.write(w, s, ctx)
    w.check_count(s.alerts, 255, "alerts", "alerts")
    w.u8(len(s.alerts), "count")
    for i, a in enumerate(s.alerts):
        ALERT.write(w, a, ctx, f"alerts[{i}]")
    w.bytes(s.trailing)
