"""``hexdump``: offsets, bytes, text and the field path of every byte range.

Rows break where fields break, and each row's bytes stay in their column
(offset modulo 16), so the grid reads like any hex dump while every row names
exactly one field: the innermost one covering its bytes. The map comes from
:mod:`savecraft.spans` in lazy mode, so only the chunks or assets inside the
window shown are decoded; a large file is memory-mapped, so a 1 GiB ``.tng``
is read only where it is shown.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from typing import Any

from .. import spans
from ..cli import EXIT_OK, EXIT_USAGE, UsageError
from ..errors import FormatError
from ..paths import PathError
from .argtypes import format_option, whole
from .files import read_file

ROW = 16
DEFAULT_LENGTH = 4096


_offset = whole(0, what="a byte offset")
_length = whole(1, what="the length")


def register(sub: Any) -> None:
    p = sub.add_parser("hexdump", help="bytes with the field path of each range",
                       description="Offsets, bytes, text and field paths: the whole file, one field's "
                                   "bytes (PATH), or the field covering one offset (--at). Inflated "
                                   "streams (a save's chunk data, a .tng section block or asset) are "
                                   "shown with their own offsets, reached by their path.")
    p.add_argument("file")
    p.add_argument("path", nargs="?", metavar="PATH",
                   help="a field (users[name=Brigid].entity) or a stream (payload, sections, maps[0])")
    p.add_argument("--at", type=_offset, metavar="OFFSET",
                   help="show the field covering this offset (hex 0x2C or decimal; default: none)")
    p.add_argument("--space", default=None, metavar="STREAM",
                   help="the byte space --at and --offset count in (default: the file)")
    p.add_argument("--offset", type=_offset, default=0,
                   help="where the window starts, counted from the start of what is shown (hex 0x100 "
                   "or decimal; default: 0)")
    p.add_argument("--length", type=_length, default=DEFAULT_LENGTH,
                   help=f"how many bytes to show (hex or decimal; default {DEFAULT_LENGTH})")
    format_option(p, "the format, when detection should be skipped")
    p.set_defaults(func=cmd_hexdump)


def cmd_hexdump(args: argparse.Namespace) -> int:
    data = read_file(args.file, mapped=True)  # the one reader: a large file is mapped, not read
    smap = spans.record(data, args.format, lazy=True)
    for line in render(smap, args.path, at=args.at, space=args.space, offset=args.offset,
                       length=args.length):
        sys.stdout.write(line + "\n")
    return EXIT_OK


def render(smap: spans.SpanMap, path: str | None = None, *, at: int | None = None,
           space: str | None = None, offset: int = 0, length: int = DEFAULT_LENGTH) -> Iterator[str]:
    """The lines of the dump: a title, the rows, then any problems inside the window."""
    if path and at is not None:
        raise UsageError("give a PATH or --at, not both")
    space = space or spans.FILE
    spaces = smap.spaces()
    start = 0
    if space not in spaces:  # a stream recorded on demand (an asset): decode that one
        try:
            smap.expand(space)
        except (PathError, FormatError):
            pass
        spaces = smap.spaces()
    if at is not None:
        if space not in spaces:
            raise UsageError(f"no byte space {space!r} (there are: {', '.join(spaces)})")
        if at >= len(spaces[space].data):
            raise UsageError(f"offset 0x{at:X} is past the end of {space} ({len(spaces[space].data)} bytes)")
        field = smap.at(space, at)
        if field is None:
            yield f"{space} 0x{at:08X}: no field covers this byte"
            start, end = at, at + 1
        else:
            yield f"{field.path}: {_where(field)}"
            start, end = field.offset, field.end
    elif path:
        target = _target(smap, path)
        if isinstance(target, spans.Space):
            space, end = target.name, target.length
            yield _space_title(target, smap)
        else:
            space, start, end = target.space, target.offset, target.end
            yield f"{target.path}: {_where(target)}"
        spaces = smap.spaces()
    else:
        if space not in spaces:
            raise UsageError(f"no byte space {space!r} (there are: {', '.join(spaces)})")
        end = spaces[space].length
        yield _space_title(spaces[space], smap)
    lo = start + offset
    if lo >= end and end > start:
        raise UsageError(f"--offset {offset} is past the end of what is shown ({end - start} bytes)")
    hi = min(end, lo + length)
    yield from rows(smap, space, lo, hi)
    if hi < end:
        yield f"-- {end - hi} more bytes: --offset 0x{hi - start:X} shows the next ones"
    for p in smap.problems:
        if p.space in (space, None) and p.offset is not None and lo <= p.offset < hi:
            yield f"!! {p}"


def _where(sp: spans.Span) -> str:
    return f"{sp.length} bytes at 0x{sp.offset:X} in {sp.space}"


def _space_title(space: spans.Space, smap: spans.SpanMap) -> str:
    if space.stored is None:
        return f"{space.name}: {space.length} bytes ({smap.format})"
    st = space.stored
    return (f"{space.name}: {space.length} bytes, inflated from the {st.length} bytes at "
            f"0x{st.offset:X} in {st.space}")


def _target(smap: spans.SpanMap, path: str) -> spans.Span | spans.Space:
    """What PATH shows: a byte space (an inflated stream) by its name, else the field's bytes."""
    try:
        found = smap.spans_for(path)
    except (PathError, FormatError) as exc:
        raise UsageError(f"{path}: {exc}") from None
    spaces = smap.spaces()
    canon = found[0].path if found else path
    for name in (path, canon):
        if name in spaces and name != spans.FILE:
            return spaces[name]
    if not found:
        raise UsageError(f"{path}: no bytes recorded for this path in the {smap.format} file")
    own = smap.span_of(path)
    if own is not None:
        return own
    # A value made of several parts (or named by a parent): from the first byte to the last.
    first = found[0]
    same = [sp for sp in found if sp.space == first.space]
    return spans.Span(first.space, first.offset, max(sp.end for sp in same) - first.offset, path)


def rows(smap: spans.SpanMap, space: str, lo: int, hi: int) -> Iterator[str]:
    """One row per run of bytes with the same innermost field, at most 16 and never across a row."""
    if hi <= lo:
        return
    owner: list[spans.Span | None] = [None] * (hi - lo)
    for sp in smap.covering(space, lo, hi - lo):  # outer first, so inner ones overwrite them
        a, b = max(sp.offset, lo) - lo, min(sp.end, hi) - lo
        owner[a:b] = [sp] * (b - a)
    streams = smap.spaces()
    data = streams[space].data
    pos = lo
    while pos < hi:
        field = owner[pos - lo]
        run_end = min(hi, (pos // ROW + 1) * ROW)
        nxt = pos + 1
        while nxt < run_end and owner[nxt - lo] is field:
            nxt += 1
        chunk = bytes(data[pos:nxt])
        col = pos % ROW
        hexes = "   " * col + " ".join(f"{b:02x}" for b in chunk)
        text = " " * col + "".join(chr(b) if 0x20 <= b < 0x7F else "." for b in chunk)
        yield f"{pos:08x}  {hexes:<{ROW * 3 - 1}}  {text:<{ROW}}  {_label(field, streams)}"
        pos = nxt


def _label(sp: spans.Span | None, streams: dict[str, spans.Space]) -> str:
    if sp is None:
        return "-"
    stream = streams.get(sp.path)
    if stream is not None and stream.stored is not None and stream.stored.space == sp.space:
        return f"{sp.path} (compressed; {stream.length} bytes inflated)"
    return sp.path


__all__ = ["cmd_hexdump", "register", "render", "rows"]
