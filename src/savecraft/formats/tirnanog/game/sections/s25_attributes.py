"""Section type 25: attributes (19-byte header, then records whose layout depends on their kind)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from typing import ClassVar

from .....binary import Reader, Writer
from ..bytecode import Script
from .common import BuildContext, Layout, ParseContext, read_script, sref, tref

TYPE = 25
ENGINE_ATTRIBUTES = 4


class AttributeKind(IntEnum):
    PRIMARY = 0
    CHARACTER_VARIABLE = 1
    CHARACTER_CALCULATED = 2
    GLOBAL_VARIABLE = 3
    GLOBAL_CALCULATED = 4


ATTRIBUTES_HEAD = Layout("attributes header", [
    ("free_total_points", "u16"), ("free_max_points", "u16"), ("engine_count", "u8"), ("light_radius", "str"),
    ("weight", "str"), ("speed", "str"), ("level_up_points", "str"),
])
VARIABLE = (1, 3)
CALCULATED = (2, 4)


@dataclass(slots=True)
class Attribute:
    """One attribute; ``default`` and ``script`` (on-change handler or expression) by kind."""

    kind: int = 0  # an AttributeKind value
    name: int = sref()
    title: int = tref()
    default: int = 0  # variables only
    script: Script = field(default_factory=Script)  # on change (variables) or expression (calculated)


@dataclass(slots=True)
class AttributesSection:
    KIND: ClassVar[str] = "attributes"
    TYPE: ClassVar[int] = 25
    free_total_points: int = 0
    free_max_points: int = 0
    engine_count: int = ENGINE_ATTRIBUTES
    light_radius: int = sref()
    weight: int = sref()
    speed: int = sref()
    level_up_points: int = sref()
    attributes: list[Attribute] = field(default_factory=list)
    trailing: bytes = b""

    def find(self, name_offset: int) -> Attribute | None:
        for a in self.attributes:
            if a.name == name_offset:
                return a
        return None


def decode(r: Reader, ctx: ParseContext) -> AttributesSection:
    at = r.offset
    s = AttributesSection(**ATTRIBUTES_HEAD.read(r, "attributes"))
    if s.engine_count != ENGINE_ATTRIBUTES:
        ctx.report.warning(at + 4, "attributes.engine_count", f"{ENGINE_ATTRIBUTES} (as documented)",
                           str(s.engine_count))
    n = r.u16("attributes.count")
    r.count(n, 7, "attributes.attributes")
    for i in range(n):
        p = f"attributes.attributes[{i}]"
        at = r.offset
        kind = r.u8(p + ".kind")
        if kind > 4:
            ctx.report.error(at, p + ".kind", "an attribute kind from 0 to 4", str(kind))
            r.pos -= 1
            break
        a = Attribute(kind, r.u24(p + ".name"), r.u24(p + ".title"))
        if kind in VARIABLE:
            a.default = r.i32(p + ".default")
            a.script = read_script(r, r.u24(p + ".script_size"), ctx.actx, p + ".script")
        elif kind in CALCULATED:
            a.script = read_script(r, r.u16(p + ".script_size"), ctx.actx, p + ".script")
        s.attributes.append(a)
    if len(s.attributes) == n and r.remaining:
        ctx.report.error(r.offset, "attributes", "the end of the section after the attributes",
                         f"{r.remaining} more bytes")
    s.trailing = r.rest()
    return s


def encode(s: AttributesSection, w: Writer, ctx: BuildContext) -> None:
    ATTRIBUTES_HEAD.write(w, s, ctx)
    w.check_count(s.attributes, 0xFFFF, "attributes", "attributes")
    w.u16(len(s.attributes), "count")
    for i, a in enumerate(s.attributes):
        p = f"attributes[{i}]"
        w.u8(a.kind, p + ".kind")
        w.u24(ctx.s(a.name), p + ".name")
        w.u24(a.title, p + ".title")
        if a.kind in VARIABLE:
            code = ctx.code(a.script, p + ".script")
            w.i32(a.default, p + ".default")
            w.u24(len(code), p + ".script_size")
            w.bytes(code)
        elif a.kind in CALCULATED:
            code = ctx.code(a.script, p + ".script")
            w.u16(len(code), p + ".script_size")
            w.bytes(code)
    w.bytes(s.trailing)
