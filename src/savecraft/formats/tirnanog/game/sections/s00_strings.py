"""Section type 0: the internal names of entities, NUL-terminated, addressed by byte offset.

Every "string index" in the file is a byte offset into this section, so
renaming a string moves the ones after it. ``layout`` remembers the offsets
the strings had when read; the builder maps each old offset to the string's
new one and rewrites every reference (NOTES.md: one function, here).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from .....binary import Reader, Writer
from .....errors import FormatError
from .common import BuildContext, ParseContext

TYPE = 0


@dataclass(slots=True)
class StringsSection:
    KIND: ClassVar[str] = "strings"
    TYPE: ClassVar[int] = 0
    strings: list[str] = field(default_factory=lambda: [""])
    trailing: bytes = b""  # bytes after the last NUL (a string cut short)
    layout: list[int] = field(default_factory=list, compare=False)  # offsets when read
    original: list[str] = field(default_factory=list, compare=False)  # the strings when read

    def offsets(self) -> list[int]:
        out: list[int] = []
        pos = 0
        for s in self.strings:
            out.append(pos)
            pos += len(s.encode("utf-8")) + 1
        return out

    def size(self) -> int:
        return sum(len(s.encode("utf-8")) + 1 for s in self.strings) + len(self.trailing)

    def by_offset(self) -> dict[int, str]:
        return dict(zip(self.offsets(), self.strings))

    def get(self, offset: int) -> str | None:
        """The string that starts at ``offset``, or None."""
        return self.by_offset().get(offset)

    def find(self, name: str) -> int:
        """The offset of a string (its first occurrence), or -1."""
        for off, s in zip(self.offsets(), self.strings):
            if s == name:
                return off
        return -1

    def add(self, name: str) -> int:
        """The offset of ``name``, appending it when it is not there yet."""
        off = self.find(name)
        if off >= 0:
            return off
        if self.layout and len(self.layout) == len(self.strings):
            self.layout.append(-1)
            self.original.append(name)
        off = self.size() - len(self.trailing)
        self.strings.append(name)
        return off

    def remap(self) -> dict[int, int] | None:
        """Old offset -> new offset, or None while no string moved.

        Strings are matched by position, so only renames and appends can be
        followed; with fewer strings than were read this is an error (set
        ``layout = offsets()`` to keep every reference as it is instead).
        """
        now = self.offsets()
        if not self.layout or self.layout == now:
            return None
        if len(self.strings) < len(self.layout):
            raise FormatError(None, "strings", "strings renamed or appended, not removed (references "
                              "follow strings by position; set strings.layout = strings.offsets() to "
                              "leave every reference as it is)",
                              f"{len(self.layout) - len(self.strings)} fewer strings than were read")
        return {old: new for old, new in zip(self.layout, now) if old >= 0}


def decode(r: Reader, ctx: ParseContext) -> StringsSection:
    out: list[str] = []
    layout = []
    data = r.data
    start = r.pos
    while r.pos < r.end:
        nul = data.find(b"\0", r.pos, r.end)
        if nul < 0:
            ctx.report.error(r.offset, f"strings[{len(out)}]", "a NUL-terminated string",
                             "the end of the section")
            break
        layout.append(r.pos - start)
        out.append(r.cstr(f"strings[{len(out)}]"))
    s = StringsSection(out, r.rest(), layout, list(out))
    if not out or out[0] != "":
        ctx.report.error(r.base + start, "strings[0]", "an empty first string (string index 0 means none)",
                         repr(out[0]) if out else "no strings")
    return s


def encode(s: StringsSection, w: Writer, ctx: BuildContext) -> None:
    for i, text in enumerate(s.strings):
        w.cstr(text, f"strings[{i}]")
    w.bytes(s.trailing)
