"""Bounded inflate, and deflate that reproduces the original bytes when it can.

Two rules from the project's principles live here:

* never unbounded memory: :func:`inflate` stops at a cap (default 256 MiB,
  changeable with :func:`set_inflate_limit` or ``SAVECRAFT_MAX_INFLATE``; the
  cap lives in :mod:`savecraft.limits` with the others) and reports the
  stream's offset instead of growing without end;
* byte-exact round trips: recompressing rarely reproduces another encoder's
  bytes, so a :class:`Deflated` value remembers the original compressed bytes
  and a digest of what they inflate to. :func:`deflate` reuses them while the
  content is unchanged, and otherwise compresses at the level that was found
  to reproduce the original (or zlib's default).
"""

from __future__ import annotations

import hashlib
import queue
import sys
import threading
import zlib
from contextvars import ContextVar
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from . import limits
from .errors import FormatError
from .fileio import release_pages

DEFAULT_INFLATE_LIMIT = limits.LIMITS["inflate"].default
_CHUNK = 1 << 20
_IN_PIECE = 1 << 20  # compressed bytes given to zlib at a time


def inflate_limit() -> int:
    return limits.inflate_limit()


def set_inflate_limit(limit: int) -> int:
    """Change the cap on inflated sizes; returns the previous one (kept here for callers)."""
    return limits.set_inflate_limit(limit)


class Container(str, Enum):
    """The wrapping around a deflate stream. Writers emit ZLIB (NOTES.md)."""

    ZLIB = "zlib"
    RAW = "raw"
    GZIP = "gzip"

    @property
    def wbits(self) -> int:
        return {"zlib": 15, "raw": -15, "gzip": 31}[self.value]


def detect_container(data: bytes | memoryview) -> Container:
    """Tell zlib (RFC 1950), gzip (RFC 1952) and raw deflate (RFC 1951) apart."""
    if len(data) >= 2:
        b0, b1 = data[0], data[1]
        if b0 == 0x1F and b1 == 0x8B:
            return Container.GZIP
        if b0 & 0x0F == 8 and (b0 << 8 | b1) % 31 == 0 and b0 >> 4 <= 7:
            return Container.ZLIB
    return Container.RAW


@dataclass(slots=True)
class Inflated:
    data: bytes
    container: Container
    consumed: int  # compressed bytes used by the stream
    trailing: bytes  # bytes after the end of the stream


def inflate(
    data: bytes | memoryview,
    *,
    offset: int = 0,
    path: str = "",
    limit: int | None = None,
    container: Container | None = None,
    require_end: bool = True,
) -> Inflated:
    """Inflate one stream, never past ``limit`` bytes; errors carry ``offset``.

    ``offset`` is where ``data`` starts in the file, for messages.
    """
    cap = limits.inflate_limit() if limit is None else limit
    kind = container or detect_container(data)
    d = zlib.decompressobj(kind.wbits)
    # The input is fed in pieces: zlib keeps a copy of whatever input it has not
    # used yet, and for a memory-mapped gigabyte that copy was the whole file.
    view = memoryview(data)
    n = len(view)
    parts: list[bytes] = []
    size = pos = 0
    try:
        while True:
            piece = view[pos : pos + _IN_PIECE]
            pos += len(piece)
            out = d.decompress(piece, cap + 1 - size)
            parts.append(out)
            size += len(out)
            if size > cap or d.unconsumed_tail:
                raise _too_big(offset, path, cap)
            if d.eof or pos >= n:
                break
        if not d.eof:
            tail = d.flush(_CHUNK)
            if size + len(tail) > cap:
                raise _too_big(offset, path, cap)
            parts.append(tail)
    except zlib.error as exc:
        raise FormatError(offset, path, f"a valid {kind.value} deflate stream", str(exc)) from None
    if require_end and not d.eof:
        raise FormatError(offset + n, path, f"the end of the {kind.value} stream",
                          "the end of the data")
    consumed = pos - len(d.unused_data)
    trailing = bytes(d.unused_data) + bytes(view[pos:]) if d.eof else b""
    if n >= _IN_PIECE:  # a big stream read from a mapped file: its pages are not needed now

        release_pages(view)
    return Inflated(parts[0] if len(parts) == 1 else b"".join(parts), kind, consumed, trailing)


def _too_big(offset: int, path: str, cap: int) -> FormatError:
    return FormatError(offset, path, f"a stream that inflates to at most {cap} bytes "
                       "(the limit; raise it with SAVECRAFT_MAX_INFLATE)", "more")


def compress(data: bytes, container: Container = Container.ZLIB, level: int = 6) -> bytes:
    c = zlib.compressobj(level, zlib.DEFLATED, container.wbits)
    return c.compress(data) + c.flush()


_PIECE = 1 << 16


def reproduces(content: bytes, original: bytes, container: Container, level: int) -> bool:
    """Whether compressing ``content`` at ``level`` gives exactly ``original``.

    Compared as the compressor goes: what zlib has emitted is final, so a
    wrong level is refused at its first differing block (after a few
    kilobytes), instead of after recompressing megabytes. Only the level
    that matches runs to the end, which is what confirms it.
    """
    return _find_level(content, original, container, [level], 0) == level


SETTLE_OUTPUT = 1 << 16
"""Compressed bytes a level must reproduce before :meth:`Deflated.settle` takes it without
compressing the rest (unless asked to confirm): 64 KiB of identical output."""

WHOLE_BELOW = 1 << 20
"""Content up to this size is compressed whole at each candidate level in turn (exact, and
cheaper than the prefix search's fixed cost of about a block at every level)."""

LEVELS = (6, 9, 1, 2, 3, 4, 5, 7, 8, 0)
"""The levels tried, most likely first (zlib's default, then the best). Level 0 (stored
blocks) is compared whole and last: its block boundaries depend on how the input is
fed, so its output for a prefix is not a prefix of its output, and it costs a copy."""


def find_level(content: bytes, original: bytes, container: Container,
               levels: tuple[int, ...] = LEVELS, enough: int = SETTLE_OUTPUT) -> int | None:
    """The level at which zlib compresses ``content`` to ``original``, or None.

    zlib's output for a prefix of the input, before any flush, is a prefix of
    its output for the whole input: what it has emitted is final. So every
    candidate level compresses the content piece by piece, side by side, and
    drops out at its first byte that differs from the original (a wrong level
    usually within its first block, a few kilobytes). Once a single level is
    left and it has matched ``enough`` compressed bytes, it is taken without
    compressing the rest: only an encoder that copies zlib at that level for
    that long and departs from it later would be taken wrongly. Levels that
    stay identical to each other go on side by side until they differ or the
    stream ends, so among zlib's own levels the answer is exact. ``enough=0``
    means no shortcut: the level taken reproduced the whole stream. Content
    of at most :data:`WHOLE_BELOW` bytes is compared whole, level by level.
    """
    nonzero = [lv for lv in levels if lv]
    if len(content) <= WHOLE_BELOW:
        # Small: one whole compression per level, first refused at its first
        # differing block, costs less than the side-by-side start of all nine.
        found = next((lv for lv in nonzero if reproduces(content, original, container, lv)), None)
    else:
        found = _find_level(content, original, container, nonzero, enough)
    if found is None and 0 in levels and compress(content, container, 0) == original:
        return 0
    return found


def _find_level(content: bytes, original: bytes, container: Container, levels: list[int],
                enough: int) -> int | None:
    alive: list[tuple[int, Any, int]] = [
        (level, zlib.compressobj(level, zlib.DEFLATED, container.wbits), 0) for level in levels]
    view = memoryview(content)
    for start in range(0, len(view), _PIECE):
        piece = view[start : start + _PIECE]
        survivors = []
        for level, c, pos in alive:  # each at its own position: they need not emit in step
            out = c.compress(piece)
            if original[pos : pos + len(out)] == out:
                survivors.append((level, c, pos + len(out)))
        if not survivors:
            return None
        alive = survivors
        if enough and len(alive) == 1 and enough <= alive[0][2] < len(original):
            return alive[0][0]
    for level, c, pos in alive:
        out = c.flush()
        if len(original) == pos + len(out) and original[pos:] == out:
            return level
    return None


def digest(data: bytes | memoryview) -> bytes:
    """A short content fingerprint: the test for "unchanged since it was read"."""
    return hashlib.blake2b(data, digest_size=16).digest()


@dataclass(slots=True, eq=False)
class Deflated:
    """How a compressed stream was stored, so an unchanged stream is written back as it was.

    Not part of a model's value (models compare equal whatever this holds);
    it is carried into JSON dumps so that ``dump`` then ``build`` gives the
    original bytes: as a compression level when one reproduces the original
    stream, otherwise as the original compressed bytes themselves.
    """

    container: Container = Container.ZLIB
    level: int | None = None
    original: bytes | None = None
    content_digest: bytes | None = None
    # The inflated bytes themselves while they are at hand (right after loading):
    # comparing them is a memcmp, cheaper than hashing on every load. Never dumped.
    content: bytes | None = field(default=None, metadata={"json": False}, repr=False)
    # A stream compressed beside the decoding of a dump (:class:`DeflateWorker`), taken by
    # :meth:`compress` when the content it compressed is the content asked for. Never dumped.
    streamed: DeflateWorker | None = field(default=None, metadata={"json": False}, repr=False)

    @classmethod
    def from_stream(cls, compressed: bytes, content: bytes, container: Container) -> Deflated:
        return cls(container, None, compressed, None, content)

    def _unchanged(self, content: bytes) -> bool:
        if self.content is not None:
            return self.content == content
        return self.content_digest is not None and self.content_digest == digest(content)

    def settle(self, content: bytes, *, confirm: bool = False) -> None:
        """Replace the original bytes by a level when recompressing reproduces them.

        Done when dumping, not when loading: loading must stay as cheap as inflating.
        Afterwards the hint holds a digest, not the content, so a dump stays small.
        A level is taken once it alone has reproduced the first :data:`SETTLE_OUTPUT`
        compressed bytes (see :func:`find_level`); ``confirm`` compresses everything and
        takes a level only when the whole stream matches.
        """
        if self.original is None or self.level is not None:
            return
        if not self._unchanged(content):
            return
        self.content_digest = digest(content)
        self.content = None
        level = find_level(content, self.original, self.container,
                           enough=0 if confirm else SETTLE_OUTPUT)
        if level is not None:
            self.level = level
            self.original = None

    def compress(self, content: bytes) -> bytes:
        if self.original is not None and self._unchanged(content):
            return self.original
        level = 6 if self.level is None else self.level
        worker = self.streamed
        if worker is not None and worker.level == level and worker.container is self.container:
            self.streamed = None  # taken once: its thread's stream is finished by this call
            compressed = worker.finish(content)
            if compressed is not None:
                return compressed
        return compress(content, self.container, level)


STREAM_BATCH = 1 << 18
"""Bytes a :class:`DeflateWorker` gathers before handing them to its thread: few hand-overs
(each costs the thread a wait for the interpreter lock), a short tail after the last one.
Below that a batch is a sixteenth of what was fed before it, and at least :data:`STREAM_FIRST`
bytes: the thread starts early, and what is left for it after the last piece (the tail the
caller waits for) stays a small part of the whole for a small save too."""

STREAM_FIRST = 1 << 14

STREAM_SWITCH = 0.0005
"""The interpreter's switch interval (seconds) while a worker is being fed. The thread needs
the lock back after each batch it deflated, and the producer, running Python all along, only
lets it go when the interval ends: at the default 5 ms that wait was a quarter of the thread's
time. Set by the first running worker, restored by the last."""

_switch_lock = threading.Lock()
_switch_users = 0
_switch_before = 0.0


def _fast_switch(on: bool) -> None:
    global _switch_users, _switch_before
    with _switch_lock:
        if on:
            if _switch_users == 0:
                _switch_before = sys.getswitchinterval()
                sys.setswitchinterval(min(_switch_before, STREAM_SWITCH))
            _switch_users += 1
        else:
            _switch_users -= 1
            if _switch_users == 0:
                sys.setswitchinterval(_switch_before)

STREAM_DEPTH = 64
"""Batches waiting for the worker at most: the producer waits beyond that (bounded memory:
at most 16 MiB of references to pieces, which a saved game's model holds anyway; the thread
copies one batch at a time to deflate it). Deep enough that a small save's small batches do
not make the decoder wait on the thread at every hand-over (at 4 it did)."""

_END: list[bytes] = []  # the queue's last item: compress what is left, end the stream, stop
_PAUSE: list[bytes] = []  # the queue's last item: compress what is left and stop (no flush)
_DROP: list[bytes] = []  # the queue's last item: stop, nothing more is wanted


class DeflateWorker:
    """Deflate a stream in a thread while its content is still being produced.

    zlib releases the interpreter lock while it deflates, so on a second core
    the compression runs beside whatever makes the content (``savecraft build``
    decoding a dump's players). At levels 1 to 9 zlib's output does not depend
    on how its input is split (what it emits before a flush is final), so the
    result is the bytes :func:`compress` gives for the whole content, which the
    tests check on many splits. Level 0 (stored blocks) does depend on it and is
    refused here: it is compressed whole, and costs only a copy anyway.

    :meth:`feed` gathers pieces into batches of :data:`STREAM_BATCH` bytes and
    hands them over through a queue of at most :data:`STREAM_DEPTH` batches
    (the producer waits when the worker is behind). :meth:`close` ends the
    input; :meth:`pause` ends what the producer feeds without ending the stream
    (the rest of the content is not at hand yet: :meth:`finish` compresses it
    later, in the caller's thread). Either way the thread then finishes on its
    own, so none is left waiting even when the result is never asked for.
    :meth:`finish` (or :meth:`result`) waits for it and gives the compressed
    bytes; an error in the thread is raised there, as the caller's own
    :class:`FormatError` (zlib's errors) or as it was. The pieces fed are kept
    as they were given (no copy of the content: a saved game's chunks are held
    by its model anyway), for :meth:`fed` and :meth:`finish` to compare.

    Memory: the compressed pieces are kept in a list and joined only by the
    caller (:meth:`finish`), not by the thread when the input ends: that end
    comes while a dump's text and the model made of it are both still held
    (the peak of ``savecraft build``), and a join there held the compressed
    stream twice at that peak.
    """

    def __init__(self, level: int, container: Container = Container.ZLIB) -> None:
        if not 1 <= level <= 9:
            raise ValueError(f"a level from 1 to 9 is streamed, not {level}")
        self.level = level
        self.container = container
        self._compressor = zlib.compressobj(level, zlib.DEFLATED, container.wbits)
        self._queue: queue.Queue[list[bytes]] = queue.Queue(STREAM_DEPTH)
        self._batch: list[bytes] = []
        self._size = 0
        self._total = 0
        self._limit = STREAM_FIRST
        self._pieces: list[list[bytes] | list[memoryview]] = []  # the batches handed over, in order
        self._out: list[bytes] = []
        self._made: bytes | None = None
        self._error: BaseException | None = None
        self.closed = False
        self.paused = False
        self.dropped = False
        self._thread = threading.Thread(target=self._run, name="savecraft-deflate", daemon=True)
        self._thread.start()
        _fast_switch(True)

    def feed(self, piece: bytes) -> None:
        """Add ``piece`` to the content (waits while the worker is :data:`STREAM_DEPTH` behind)."""
        self._batch.append(piece)
        self._size += len(piece)
        if self._size >= self._limit:
            self._hand_over()
            self._total += self._size
            self._size = 0
            self._limit = min(max(self._total >> 4, STREAM_FIRST), STREAM_BATCH)

    def _hand_over(self) -> None:
        self._pieces.append(self._batch)
        self._queue.put(self._batch)
        self._batch = []

    def close(self) -> None:
        """No more content: the thread compresses the rest, ends the stream and stops."""
        self._stop(_END)

    def pause(self) -> None:
        """No more content from the producer, though the stream goes on: the thread compresses
        what it was given and stops; :meth:`finish` compresses the rest of the content."""
        self._stop(_PAUSE)

    def _stop(self, last: list[bytes]) -> None:
        if self.closed:
            return
        self.closed = True
        self.paused = last is _PAUSE
        _fast_switch(False)
        if self._batch:
            self._hand_over()
        self._queue.put(last)

    def drop(self) -> None:
        """Nothing of this stream is wanted: the thread stops, and is waited for."""
        if not self.closed:
            self.closed = self.dropped = True
            _fast_switch(False)
            self._batch = []
            self._queue.put(_DROP)
        self._thread.join()
        self._pieces = []
        self._out = []

    def _fed_prefix(self, content: bytes) -> int:
        """How many bytes of ``content`` the pieces fed are, one after the other (compared in
        place, each piece at its offset: no copy); -1 when they are not its start."""
        pos = 0
        startswith = content.startswith
        for batch in (*self._pieces, self._batch):
            for piece in batch:
                if not startswith(piece, pos):
                    return -1
                pos += len(piece)
        return pos

    def fed(self, content: bytes) -> bool:
        """Whether ``content`` is exactly the pieces fed, one after the other."""
        return not self.dropped and self._fed_prefix(content) == len(content)

    def _joined(self) -> None:
        """Wait for the thread; raise its error as the caller's."""
        if not self.closed:
            self.close()
        self._thread.join()
        if self._error is not None:
            raise self._failure(self._error)

    def _failure(self, exc: BaseException) -> BaseException:
        if isinstance(exc, zlib.error):
            return FormatError(None, "", f"a {self.container.value} stream at level {self.level}",
                               f"zlib failed: {exc}")
        return exc

    def result(self) -> bytes:
        """The compressed stream of everything fed, once the thread has made it (the input
        closed by :meth:`close`, or by this call)."""
        self._joined()
        if self._made is None:
            if self.dropped or self.paused:
                raise FormatError(None, "", "a compressed stream",
                                  "none (the stream was " + ("dropped)" if self.dropped else "paused)"))
            self._made = b"".join(self._out)
            self._out = []
        return self._made

    def finish(self, content: bytes) -> bytes | None:
        """The compressed stream of ``content`` when the pieces fed are its start (all of it,
        unless the worker was paused: then the rest is compressed here, once the thread is
        done); None when they are not, or the worker was dropped. Finishing a paused stream
        makes it an ended one: a later call compares against the content given now."""
        self._joined()
        if self.dropped:
            return None
        pos = self._fed_prefix(content)
        if pos < 0:
            return None
        if self.paused:
            c = self._compressor
            try:
                self._out.append(c.compress(memoryview(content)[pos:]))
                self._out.append(c.flush())
            except zlib.error as exc:
                raise self._failure(exc) from None
            self._pieces.append([memoryview(content)[pos:]])
            self.paused = False
        elif pos != len(content):
            return None
        return self.result()

    def _run(self) -> None:
        """The thread: compress each batch as it comes; after an error, only drain the queue
        (the producer never waits on a thread that stopped taking)."""
        get = self._queue.get
        c = self._compressor
        while True:
            item = get()
            if item is _END or item is _PAUSE or item is _DROP:
                break
            if self._error is not None:
                continue
            try:
                self._out.append(c.compress(item[0] if len(item) == 1 else b"".join(item)))
            except BaseException as exc:  # raised in the caller by result()
                self._error = exc
        if item is _END and self._error is None:
            try:
                self._out.append(c.flush())
            except BaseException as exc:
                self._error = exc
        if item is _DROP or self._error is not None:
            self._out = []


FEEDING: ContextVar[DeflateWorker | None] = ContextVar("savecraft_feeding", default=None)
"""The worker that the content being made right now goes to, if any: set by a model's decoder
(a TirNanoG save's, around its fields) and fed by the parts that make the content (its chunks)."""
