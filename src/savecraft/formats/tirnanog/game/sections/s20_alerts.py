"""Section type 20: alerts (font, timing in 1/100 s, then at least 3 alert records)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from .....binary import Reader, Writer
from .common import BuildContext, FontRef, ParseContext, read_font, sref, tref, write_font

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


def decode(r: Reader, ctx: ParseContext) -> AlertsSection:
    font = read_font(r, "alerts.font")
    s = AlertsSection(font, r.u16("alerts.display_time"), r.u16("alerts.fade_in_end"),
                      r.u16("alerts.fade_out_start"))
    n = r.u8("alerts.count")
    r.count(n, 10, "alerts.alerts")
    for i in range(n):
        p = f"alerts.alerts[{i}]"
        s.alerts.append(Alert(r.u32(p + ".color"), r.u24(p + ".sound"), r.u24(p + ".text")))
    if n < MIN_ALERTS:
        ctx.report.error(None, "alerts.count", f"at least {MIN_ALERTS} alerts", str(n))
    s.trailing = r.rest()
    return s


def encode(s: AlertsSection, w: Writer, ctx: BuildContext) -> None:
    write_font(w, s.font, ctx, "font")
    w.u16(s.display_time, "display_time")
    w.u16(s.fade_in_end, "fade_in_end")
    w.u16(s.fade_out_start, "fade_out_start")
    if len(s.alerts) > 255:
        w._bad("alerts", "at most 255 alerts", str(len(s.alerts)))
    w.u8(len(s.alerts))
    for i, a in enumerate(s.alerts):
        w.u32(a.color, f"alerts[{i}].color")
        w.u24(ctx.s(a.sound), f"alerts[{i}].sound")
        w.u24(a.text, f"alerts[{i}].text")
    w.bytes(s.trailing)
