"""Section type 25: attributes (19-byte header, then records whose layout depends on their kind)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from typing import ClassVar

from .....binary import Reader, Writer
from .....layout import I32, U8, U16, U24, Adapt, Bytes, Field, Range, Struct, Switch, When
from ..bytecode import Script
from .common import SREF, BuildContext, ParseContext, Script, script, sref, tref

TYPE = 25
ENGINE_ATTRIBUTES = 4


class AttributeKind(IntEnum):
    PRIMARY = 0
    CHARACTER_VARIABLE = 1
    CHARACTER_CALCULATED = 2
    GLOBAL_VARIABLE = 3
    GLOBAL_CALCULATED = 4


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


def _no_script(raw: bytes) -> Script:
    return Script()


def _nothing(script: Script) -> bytes:
    return b""


# Variables keep a default and an on-change handler (its size in 3 bytes), calculated attributes an
# expression (its size in 2 bytes), primary ones neither.
ATTRIBUTE = Struct(Attribute, [
    Field("kind", U8, check=Range(0, 4, "an attribute kind from 0 to 4")), Field("name", SREF), Field("title", U24),
    When("kind in (1, 3)", [Field("default", I32)], "a variable's default", defaults=True),
    Field("script", Switch("kind", {1: script(U24, "script_size"), 3: script(U24, "script_size"),
                                    2: script(U16, "script_size"), 4: script(U16, "script_size")},
                           default=Adapt(Bytes(0), _no_script, _nothing, "no script"))),
], name="attribute")
ATTRIBUTES_HEAD = Struct(AttributesSection, [
    Field("free_total_points", U16), Field("free_max_points", U16), Field("engine_count", U8),
    Field("light_radius", SREF), Field("weight", SREF), Field("speed", SREF), Field("level_up_points", SREF),
], name="attributes header")


def decode(r: Reader, ctx: ParseContext) -> AttributesSection:
    at = r.offset
    s: AttributesSection = ATTRIBUTES_HEAD.read(r, ctx)
    if s.engine_count != ENGINE_ATTRIBUTES:
        ctx.report.warning(at + 4, f"{r.path}.engine_count", f"{ENGINE_ATTRIBUTES} (as documented)",
                           str(s.engine_count))
    n = r.u16("count")
    r.count(n, 7, "attributes")
    for i in range(n):
        if r.remaining and r.data[r.pos] > 4:  # an unknown kind: the rest is kept as it is
            ctx.report.error(r.offset, f"{r.path}.attributes[{i}].kind", "an attribute kind from 0 to 4",
                             str(r.data[r.pos]))
            break
        s.attributes.append(ATTRIBUTE.read(r, ctx, f"attributes[{i}]"))
    if len(s.attributes) == n and r.remaining:
        ctx.report.error(r.offset, r.path, "the end of the section after the attributes", f"{r.remaining} more bytes")
    if r.remaining:
        s.trailing = r.rest("trailing")
    return s


def encode(s: AttributesSection, w: Writer, ctx: BuildContext) -> None:
    ATTRIBUTES_HEAD.write(s, w, ctx)
    w.u16(len(s.attributes), "count")
    for i, a in enumerate(s.attributes):
        ATTRIBUTE.write(a, w, ctx, f"attributes[{i}]")
    w.bytes(s.trailing, "trailing")
