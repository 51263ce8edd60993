"""The one binary reader and writer every codec uses.

Both work on little-endian data and know where they are: the reader tracks the
byte offset (relative to the start of the file or stream being decoded) and a
field path, so any failure becomes a :class:`~savecraft.errors.FormatError`
that says where and what. Record layouts are declared once with
:mod:`savecraft.layout`, whose generated readers and writers use these two.

Span recording (what :mod:`savecraft.spans` builds on) lives here too, so
every format gets it from the reads it already does: while a
:class:`SpanLog` is active (:func:`recording`), each Reader created becomes a
:class:`SpanReader` that notes, for every value it decodes, the byte space it
lives in, its offset, its length and its field path. When no log is active
nothing changes: the plain Reader's methods are untouched, and the only cost
is one context-variable look-up per Reader created.
"""

from __future__ import annotations

import builtins
import struct
from collections.abc import Iterable, Sequence, Sized
from contextvars import ContextVar, Token
from types import TracebackType
from typing import Any, NoReturn

from .errors import FormatError

Buffer = bytes | bytearray | memoryview

_SCALARS: dict[str, tuple[str, int]] = {
    "u8": ("B", 1),
    "i8": ("b", 1),
    "u16": ("H", 2),
    "i16": ("h", 2),
    "u24": ("3s", 3),
    "u32": ("I", 4),
    "i32": ("i", 4),
    "u64": ("Q", 8),
    "i64": ("q", 8),
}

_U8 = struct.Struct("<B")
_U16 = struct.Struct("<H")
_I16 = struct.Struct("<h")
_U32 = struct.Struct("<I")
_I32 = struct.Struct("<i")
_U64 = struct.Struct("<Q")
_I64 = struct.Struct("<q")
_I8 = struct.Struct("<b")

def join_path(path: str, name: str) -> str:
    """Append a field name (``.name``) or an index (``[3]``) to a field path."""
    if not name:
        return path
    if not path or name.startswith("["):
        return path + name
    return f"{path}.{name}"


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def int_range(kind: str) -> tuple[int, int]:
    """The inclusive range of a scalar type name such as ``u16`` or ``i32``."""
    bits = int(kind[1:])
    if kind[0] == "u":
        return 0, (1 << bits) - 1
    return -(1 << (bits - 1)), (1 << (bits - 1)) - 1


class Reader:
    """A bounded cursor over bytes that turns every short read into a FormatError.

    ``base`` is added to positions in messages, so a reader over a slice still
    reports offsets of the whole stream; ``what`` names the container for
    messages such as "found the end of the chunk".
    """

    __slots__ = ("data", "pos", "end", "base", "path", "what", "spans")

    def __init__(
        self,
        data: Buffer,
        pos: int = 0,
        end: int | None = None,
        *,
        base: int = 0,
        path: str = "",
        what: str = "the data",
    ) -> None:
        # bytes, bytearray and mmap all have find(); a memoryview is copied once.
        self.data: Any = bytes(data) if isinstance(data, memoryview) else data
        self.pos = pos
        self.end = len(data) if end is None else end
        self.base = base
        self.path = path
        self.what = what
        sink = _SINK.get()
        self.spans = sink
        if sink is not None:
            self.__class__ = SpanReader

    # -- position -----------------------------------------------------------------
    @property
    def remaining(self) -> int:
        return self.end - self.pos

    @property
    def offset(self) -> int:
        """The absolute offset of the cursor, as messages report it."""
        return self.base + self.pos

    def at_end(self) -> bool:
        return self.pos >= self.end

    def fail(self, name: str, expected: str, found: str = "", *, at: int | None = None) -> NoReturn:
        pos = self.pos if at is None else at
        raise FormatError(self.base + pos, join_path(self.path, name), expected, found)

    def need(self, n: int, name: str, expected: str | None = None) -> None:
        if n > self.end - self.pos:
            have = self.end - self.pos
            self.fail(
                name,
                expected or plural(n, "byte"),
                f"the end of {self.what} after {plural(have, 'byte')}" if have else f"the end of {self.what}",
            )

    def skip(self, n: int, name: str = "") -> None:
        self.need(n, name)
        self.pos += n

    def sub(self, n: int, name: str, what: str | None = None) -> Reader:
        """A reader over the next ``n`` bytes; advances this one past them."""
        self.need(n, name)
        start = self.pos
        self.pos += n
        return Reader(
            self.data, start, start + n, base=self.base, path=join_path(self.path, name),
            what=what or self.what,
        )

    # -- scalars ------------------------------------------------------------------
    def _scalar(self, st: struct.Struct, name: str) -> Any:
        pos = self.pos
        if st.size > self.end - pos:
            self.need(st.size, name)
        self.pos = pos + st.size
        return st.unpack_from(self.data, pos)[0]

    def u8(self, name: str) -> int:
        return int(self._scalar(_U8, name))

    def i8(self, name: str) -> int:
        return int(self._scalar(_I8, name))

    def u16(self, name: str) -> int:
        return int(self._scalar(_U16, name))

    def i16(self, name: str) -> int:
        return int(self._scalar(_I16, name))

    def u24(self, name: str) -> int:
        self.need(3, name)
        v = int.from_bytes(self.data[self.pos : self.pos + 3], "little")
        self.pos += 3
        return v

    def u32(self, name: str) -> int:
        return int(self._scalar(_U32, name))

    def i32(self, name: str) -> int:
        return int(self._scalar(_I32, name))

    def u64(self, name: str) -> int:
        return int(self._scalar(_U64, name))

    def i64(self, name: str) -> int:
        return int(self._scalar(_I64, name))

    def bytes(self, n: int, name: str) -> bytes:
        self.need(n, name)
        v = bytes(self.data[self.pos : self.pos + n])
        self.pos += n
        return v

    def rest(self, name: str = "") -> builtins.bytes:
        v = bytes(self.data[self.pos : self.end])
        self.pos = self.end
        return v

    def peek(self, n: int) -> builtins.bytes:
        return bytes(self.data[self.pos : min(self.pos + n, self.end)])

    # -- strings --------------------------------------------------------------------
    def cstr(self, name: str, encoding: str = "utf-8", max_len: int | None = None) -> str:
        """A NUL-terminated string (the NUL is consumed, not returned)."""
        limit = self.end if max_len is None else min(self.end, self.pos + max_len + 1)
        nul = self.data.find(b"\0", self.pos, limit)
        if nul < 0:
            found = f"the end of {self.what}" if limit == self.end else f"no NUL in {max_len} bytes"
            self.fail(name, f"a NUL-terminated {encoding_label(encoding)} string", found)
        raw = bytes(self.data[self.pos : nul])
        try:
            text = raw.decode(encoding)
        except UnicodeDecodeError as exc:
            self.fail(name, f"a {encoding_label(encoding)} string", f"byte 0x{raw[exc.start]:02X}",
                      at=self.pos + exc.start)
        self.pos = nul + 1
        return text

    def fixed_str(self, n: int, name: str, encoding: str = "utf-8") -> str:
        """A string in ``n`` bytes, NUL-padded (and not necessarily NUL-terminated)."""
        raw = self.bytes(n, name)
        text = raw.split(b"\0", 1)[0]
        try:
            return text.decode(encoding)
        except UnicodeDecodeError as exc:
            self.fail(name, f"a {encoding_label(encoding)} string", f"byte 0x{text[exc.start]:02X}",
                      at=self.pos - n + exc.start)

    # -- records and arrays -------------------------------------------------------
    def array(self, kind: str, count: int, name: str) -> tuple[int, ...]:
        """``count`` scalars of one type (``u16``, ``i32``...) in one unpack."""
        code, size = _SCALARS[kind]
        self.count(count, size, name)
        st = _array_struct(code, count)
        pos = self.pos
        self.pos += size * count
        return st.unpack_from(self.data, pos)

    def count(self, n: int, item_size: int, name: str, what: str = "item") -> int:
        """Check that ``n`` items of ``item_size`` bytes fit in what remains.

        This is the guard against counts that would allocate (or loop) far
        beyond the input: a count is only trusted once the bytes are there.
        """
        if n < 0 or n * item_size > self.end - self.pos:
            fit = (self.end - self.pos) // item_size if item_size else 0
            self.fail(
                name,
                f"at most {plural(fit, what)} ({item_size} bytes each) in the "
                f"{plural(self.end - self.pos, 'byte')} left",
                f"a count of {n}",
            )
        return n


# -- span recording ---------------------------------------------------------------------

SpanEntry = tuple[str, int, int, str]  # (space, offset, length, field path)


class SpanLog:
    """Everything one recording run noted: spans, and the inflated streams they live in.

    ``entries`` holds ``(space, offset, length, path)`` in the order values
    were read (outer before inner). ``streams`` maps a space name to its bytes
    and to where its stored (compressed) form sits: ``(parent space, offset,
    length)``, or None when it has no place of its own (the file).
    """

    __slots__ = ("entries", "streams", "items")

    def __init__(self) -> None:
        self.entries: list[SpanEntry] = []
        # Indexes of records read under an item's own path (``blocks[3]``): the item may go on
        # past the record (its data), so a map widens these to cover their neighbours under them.
        self.items: list[int] = []
        self.streams: dict[str, tuple[Buffer, tuple[str, int, int] | None]] = {}


class SpanSink:
    """A :class:`SpanLog` seen from one byte space: what a recording Reader writes to."""

    __slots__ = ("log", "space", "_append")

    def __init__(self, log: SpanLog, space: str) -> None:
        self.log = log
        self.space = space
        self._append = log.entries.append

    def add(self, offset: int, length: int, path: str) -> None:
        self._append((self.space, offset, length, path))


_SINK: ContextVar[SpanSink | None] = ContextVar("savecraft_span_sink", default=None)


def span_mark(r: Reader) -> int:
    """Where the spans of what ``r`` reads next will start (-1 when it records none)."""
    return -1 if r.spans is None else len(r.spans.log.entries)


def rename_spans(r: Reader, mark: int, old: str, new: str) -> None:
    """Put the spans noted since ``mark`` under ``old`` (paths below the reader's) under
    ``new``: a record read as a list's next element that turns out to be the list's end
    record, which the model keeps apart (``end``)."""
    if mark < 0 or r.spans is None:
        return
    entries = r.spans.log.entries
    old, new = join_path(r.path, old), join_path(r.path, new)
    for i in range(mark, len(entries)):
        space, at, n, path = entries[i]
        if path == old or path.startswith(old) and path[len(old)] in ".[":
            entries[i] = (space, at, n, new + path[len(old):])


def active_sink() -> SpanSink | None:
    """The sink spans go to right now, or None (the usual case: not recording).

    Codecs that walk a container without a Reader (for speed) ask once and
    note the container's parts only when this is not None.
    """
    return _SINK.get()


class _Scope:
    """Sets the active sink for a ``with`` block; a no-op when ``sink`` is None."""

    __slots__ = ("sink", "token")

    def __init__(self, sink: SpanSink | None) -> None:
        self.sink = sink
        self.token: Token[SpanSink | None] | None = None

    def __enter__(self) -> SpanSink | None:
        if self.sink is not None:
            self.token = _SINK.set(self.sink)
        return self.sink

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self.token is not None:
            _SINK.reset(self.token)
            self.token = None


_NOT_RECORDING = _Scope(None)


class _Mute:
    """Inside the block Readers record nothing (see :func:`not_recording`)."""

    __slots__ = ("token",)

    def __init__(self) -> None:
        self.token: Token[SpanSink | None] | None = None

    def __enter__(self) -> None:
        if _SINK.get() is not None:
            self.token = _SINK.set(None)

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self.token is not None:
            _SINK.reset(self.token)
            self.token = None


def not_recording() -> _Mute:
    """A trial read whose result is thrown away (which layout fits?) must leave no spans."""
    return _Mute()


def recording(log: SpanLog, space: str = "file", data: Buffer | None = None) -> _Scope:
    """Record spans into ``log`` for Readers created inside the ``with`` block.

    ``data`` (the bytes of ``space``) is kept in the log so a viewer can show them.
    """
    if data is not None and space not in log.streams:
        log.streams[space] = (data, None)
    return _Scope(SpanSink(log, space))


def stream_space(name: str, data: Buffer, at: tuple[int, int] | None = None) -> _Scope:
    """Inside the block, spans belong to the inflated stream ``name`` (while recording).

    A codec wraps the decoding of an inflated stream (a save's chunk data, a
    ``.tng`` section, an asset) in this, so offsets read there count from the
    start of that stream. ``at`` is ``(offset, length)`` of the stored form in
    the enclosing space. Costs one context-variable look-up when not recording.
    """
    sink = _SINK.get()
    if sink is None:
        return _NOT_RECORDING
    log = sink.log
    log.streams[name] = (data, None if at is None else (sink.space, at[0], at[1]))
    return _Scope(SpanSink(log, name))


class SpanReader(Reader):
    """A Reader that notes the span of every value it decodes (see :func:`recording`).

    Readers become this class on creation while a log is active; each method
    notes its span and then reads exactly as the plain Reader does.
    """

    __slots__ = ()
    spans: SpanSink

    def _note(self, pos: int, length: int, name: str) -> None:
        if name:
            self.spans.add(self.base + pos, length, join_path(self.path, name))

    def skip(self, n: int, name: str = "") -> None:
        self.need(n, name)
        self._note(self.pos, n, name)
        self.pos += n

    def sub(self, n: int, name: str, what: str | None = None) -> Reader:
        self.need(n, name)
        self._note(self.pos, n, name)
        return super().sub(n, name, what)

    def _scalar(self, st: struct.Struct, name: str) -> Any:
        if st.size <= self.end - self.pos:
            self._note(self.pos, st.size, name)
        return super()._scalar(st, name)

    def u24(self, name: str) -> int:
        self.need(3, name)
        self._note(self.pos, 3, name)
        return super().u24(name)

    def bytes(self, n: int, name: str) -> builtins.bytes:
        self.need(n, name)
        self._note(self.pos, n, name)
        return super().bytes(n, name)

    def rest(self, name: str = "") -> builtins.bytes:
        self._note(self.pos, self.end - self.pos, name)
        return super().rest(name)

    def cstr(self, name: str, encoding: str = "utf-8", max_len: int | None = None) -> str:
        start = self.pos
        text = super().cstr(name, encoding, max_len)
        self._note(start, self.pos - start, name)
        return text

    def fixed_str(self, n: int, name: str, encoding: str = "utf-8") -> str:
        self.need(n, name)
        self._note(self.pos, n, name)
        return Reader.fixed_str(self, n, name, encoding)

    def array(self, kind: str, count: int, name: str) -> tuple[int, ...]:
        pos = self.pos
        values = super().array(kind, count, name)
        size = _SCALARS[kind][1]
        self._note(pos, size * count, name)
        if name:
            space = self.spans.space
            where = join_path(self.path, name)
            at = self.base + pos
            self.spans.log.entries.extend((space, at + k * size, size, f"{where}[{k}]") for k in range(count))
        return values


_STRUCT_CACHE: dict[str, struct.Struct] = {}


def cached_struct(fmt: str) -> struct.Struct:
    """A compiled Struct for a layout known only at run time (``<20i60I``), kept for reuse.

    The cache is bounded: past 4096 layouts new ones are compiled and not kept.
    """
    st = _STRUCT_CACHE.get(fmt)
    if st is None:
        st = struct.Struct(fmt)
        if len(_STRUCT_CACHE) < 4096:
            _STRUCT_CACHE[fmt] = st
    return st


def _array_struct(code: str, count: int) -> struct.Struct:
    return cached_struct(f"<{count}{code}")


def encoding_label(encoding: str) -> str:
    return {"utf-8": "UTF-8", "ascii": "ASCII", "latin-1": "Latin-1"}.get(encoding.lower(), encoding)


class Writer:
    """The mirror of :class:`Reader`: appends little-endian fields to a bytearray.

    Values are range-checked, so a model holding a number too big for its
    field fails with the field's path instead of writing a wrapped value.
    """

    __slots__ = ("buf", "path")

    def __init__(self, path: str = "") -> None:
        self.buf = bytearray()
        self.path = path

    def __len__(self) -> int:
        return len(self.buf)

    def getvalue(self) -> bytes:
        return bytes(self.buf)

    def _bad(self, name: str, expected: str, found: str) -> NoReturn:
        raise FormatError(None, join_path(self.path, name), expected, found)

    def _int(self, kind: str, st: struct.Struct, value: int, name: str) -> None:
        try:
            self.buf += st.pack(value)
        except (struct.error, TypeError):
            lo, hi = int_range(kind)
            self._bad(name, f"an integer from {lo} to {hi} ({kind})", repr(value))

    def u8(self, value: int, name: str = "") -> None:
        self._int("u8", _U8, value, name)

    def i8(self, value: int, name: str = "") -> None:
        self._int("i8", _I8, value, name)

    def u16(self, value: int, name: str = "") -> None:
        self._int("u16", _U16, value, name)

    def i16(self, value: int, name: str = "") -> None:
        self._int("i16", _I16, value, name)

    def u24(self, value: int, name: str = "") -> None:
        if not isinstance(value, int) or not 0 <= value < 1 << 24:
            self._bad(name, "an integer from 0 to 16777215 (u24)", repr(value))
        self.buf += value.to_bytes(3, "little")

    def u32(self, value: int, name: str = "") -> None:
        self._int("u32", _U32, value, name)

    def i32(self, value: int, name: str = "") -> None:
        self._int("i32", _I32, value, name)

    def u64(self, value: int, name: str = "") -> None:
        self._int("u64", _U64, value, name)

    def i64(self, value: int, name: str = "") -> None:
        self._int("i64", _I64, value, name)

    def bytes(self, value: Buffer, name: str = "", size: int | None = None) -> None:
        """Raw bytes; with ``size``, exactly that many (shorter is an error, not padding)."""
        if size is not None and len(value) != size:
            self._bad(name, plural(size, "byte"), plural(len(value), "byte"))
        self.buf += value

    def cstr(self, value: str, name: str = "", encoding: str = "utf-8") -> None:
        raw = value.encode(encoding)
        if b"\0" in raw:
            self._bad(name, "a string without NUL characters", repr(value))
        self.buf += raw
        self.buf += b"\0"

    def fixed_str(self, value: str, size: int, name: str = "", encoding: str = "utf-8",
                  pad: builtins.bytes = b"\0") -> None:
        raw = value.encode(encoding)
        if len(raw) > size:
            self._bad(name, f"a string of at most {size} bytes", f"{len(raw)} bytes ({value!r})")
        self.buf += raw
        self.buf += pad * (size - len(raw))

    def array(self, kind: str, values: Sequence[int], name: str = "") -> None:
        code, _ = _SCALARS[kind]
        try:
            self.buf += _array_struct(code, len(values)).pack(*values)
        except (struct.error, TypeError):
            lo, hi = int_range(kind)
            for i, v in enumerate(values):
                if not isinstance(v, int) or not lo <= v <= hi:
                    self._bad(f"{name}[{i}]", f"an integer from {lo} to {hi} ({kind})", repr(v))
            raise

    def check_count(self, items: Sized, limit: int, name: str, noun: str = "entries") -> int:
        """The number of ``items``, refused (naming the list) when it exceeds its count field."""
        n = len(items)
        if n > limit:
            self._bad(name, f"at most {limit} {noun}", str(n))
        return n

    def reserve(self, size: int) -> int:
        """Leave ``size`` zero bytes to patch later (a size or a checksum); returns the position."""
        pos = len(self.buf)
        self.buf += bytes(size)
        return pos

    def patch_u32(self, pos: int, value: int) -> None:
        _U32.pack_into(self.buf, pos, value)


def concat(parts: Iterable[Buffer]) -> bytes:
    return b"".join(parts)
