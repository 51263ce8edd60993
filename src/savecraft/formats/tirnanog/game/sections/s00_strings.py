"""Section type 0: the internal names of entities, NUL-terminated, addressed by byte offset.

Every "string index" in the file is a byte offset into this section, so
renaming a string moves the ones after it. References in the model keep
the offsets they were read with until the game is built: ``layout`` holds,
for each string, the offset references use for it (as read; a string added
later gets the offset it would have had, appended to the strings as read),
and ``original`` the names at that time. Lookups (:meth:`get`, :meth:`find`,
:meth:`add`) work in those reference offsets; the builder maps each one to
the string's offset in the file it writes and rewrites every reference
(one function: :meth:`remap`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import ClassVar

from .....binary import Reader, Writer
from .....errors import FormatError
from .....layout import REST, CStr, Field, List, Struct
from .common import BuildContext, ParseContext, write_section

TYPE = 0
_NUL = re.compile(b"\\0")


@dataclass(slots=True)
class StringsSection:
    KIND: ClassVar[str] = "strings"
    TYPE: ClassVar[int] = 0
    strings: list[str] = field(default_factory=lambda: [""])
    trailing: bytes = b""  # bytes after the last NUL (a string cut short)
    layout: list[int] = field(default_factory=list, compare=False)  # offsets when read
    original: list[str] = field(default_factory=list, compare=False)  # the strings when read

    def offsets(self) -> list[int]:
        """Where each string starts in the section as it will be written."""
        out: list[int] = []
        pos = 0
        for s in self.strings:
            out.append(pos)
            pos += len(s.encode("utf-8")) + 1
        return out

    def size(self) -> int:
        return sum(len(s.encode("utf-8")) + 1 for s in self.strings) + len(self.trailing)

    def _track(self) -> None:
        if len(self.layout) != len(self.strings) or len(self.original) != len(self.strings):
            self.layout = self.offsets()
            self.original = list(self.strings)

    def ref_offsets(self) -> list[int]:
        """The offset references in the model use for each string (see the module's notes)."""
        return self.layout if len(self.layout) == len(self.strings) else self.offsets()

    def ref_size(self) -> int:
        """The end of the strings in reference offsets (string indices below it are inside)."""
        refs = self.ref_offsets()
        if not refs:
            return len(self.trailing)
        last = self.original[-1] if len(self.original) == len(refs) else self.strings[-1]
        return refs[-1] + len(last.encode("utf-8")) + 1 + len(self.trailing)

    def by_offset(self) -> dict[int, str]:
        return dict(zip(self.ref_offsets(), self.strings))

    def get(self, offset: int) -> str | None:
        """The string a reference with this offset points to, or None."""
        return self.by_offset().get(offset)

    def find(self, name: str) -> int:
        """The reference offset of a string (its first occurrence), or -1."""
        for off, s in zip(self.ref_offsets(), self.strings):
            if s == name:
                return off
        return -1

    def add(self, name: str) -> int:
        """The reference offset of ``name``, appending it when it is not there yet."""
        off = self.find(name)
        if off >= 0:
            return off
        self._track()
        off = self.ref_size() - len(self.trailing)
        self.strings.append(name)
        self.layout.append(off)
        self.original.append(name)
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
        return dict(zip(self.layout, now))


# NUL-terminated UTF-8 strings to the end of the section (what follows the last NUL is
# reported and kept in ``trailing``).
STRINGS = Struct(StringsSection, [Field("strings", List(CStr(), REST))], name="strings")


def decode(r: Reader, ctx: ParseContext) -> StringsSection:
    data = r.data
    start = r.pos
    cut = data.rfind(b"\0", start, r.end) + 1 or start
    end, r.end = r.end, cut
    s: StringsSection = STRINGS.read(r, ctx)
    r.end = end
    if r.remaining:
        ctx.report.error(r.offset, f"strings[{len(s.strings)}]", "a NUL-terminated string", "the end of the section")
        s.trailing = r.rest("trailing")
    # Where each string starts: the offsets references in the model hold (see the module's notes).
    s.layout = [0, *(m.end() - start for m in _NUL.finditer(data, start, cut - 1))] if s.strings else []
    s.original = list(s.strings)
    if not s.strings or s.strings[0] != "":
        ctx.report.error(r.base + start, "strings[0]", "an empty first string (string index 0 means none)",
                         repr(s.strings[0]) if s.strings else "no strings")
    return s


def encode(s: StringsSection, w: Writer, ctx: BuildContext) -> None:
    write_section(STRINGS, s, w, ctx)
