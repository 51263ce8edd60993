"""Which bytes every decoded value came from: the map behind ``hexdump`` and the studio.

Recording is done by the one Reader (:mod:`savecraft.binary`): while a parse
runs under :func:`record`, every value a codec reads is noted with its byte
space, offset, length and field path. Paths are the one vocabulary of dumps,
``edit``, ``diff`` and ``validate`` (:mod:`savecraft.paths`): a codec notes an
item by its place in the list it reads (``chunks[5]``, ``sections[1]``), and
:class:`SpanMap` shows it canonically (``users[2]``, ``translations[0]``)::

    from savecraft import spans

    smap = spans.record(data)                    # any registered format, detected by content
    smap.spans_for("users[name=Brigid].entity")  # that field and everything under it
    smap.at("payload", 0x2C)                     # the innermost field covering one byte
    smap.spaces()["payload"].data                # the inflated chunk data, to show as hex
    smap.problems                                # validate's problems, each with its span
    smap.to_json()                               # the same, for a web page

Byte spaces: ``"file"`` is the input itself; an inflated stream is a space of
its own, named by the path of the field that stores it (``"payload"``,
``"sections"``, ``"maps.maps[0].asset"``), with offsets counting from the
start of the inflated bytes.
:attr:`Space.stored` says where its compressed form sits in the enclosing space.

Large inputs: ``record(data, lazy=True)`` records only the containers (the
chunks of a save, the sections and assets of a game) and fills in a unit's
fields when a query first reaches it, so a file of 100,000 records opens in
about the time of a load and a viewer expands what the person looks at.
:meth:`SpanMap.expand` does the same explicitly.

This module names no format: a format plugin that has units to leave for
later, or list items to name, gives its :class:`Adapter` through its
registry entry (:attr:`savecraft.registry.Format.spans`). Every step here is
linear in the number of units and spans (a look-up costs a dictionary or
bisect probe, a query the spans it returns plus one pass over its space's
index), so a map of 100,000 chunks costs 100 times one of 1,000.
"""

from __future__ import annotations

import bisect
import re
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from itertools import accumulate
from operator import itemgetter
from typing import Any

from . import registry
from .binary import Buffer, SpanLog, active_sink, recording
from .errors import FormatError, Problem, Report
from .paths import Attr, Index, PathError, format_path, parse_path, resolve, shown
from .speed import gc_paused
from . import api

FILE = "file"
_Entry = tuple[int, int, int, int, str]
_KEY = itemgetter(0)
_LIST_HEAD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\[[0-9]+\]")


@dataclass(frozen=True, slots=True, order=True)
class Span:
    """The bytes of one decoded value: ``length`` bytes at ``offset`` in byte space ``space``."""

    space: str
    offset: int
    length: int
    path: str

    @property
    def end(self) -> int:
        return self.offset + self.length

    def to_json(self) -> dict[str, Any]:
        return {"space": self.space, "offset": self.offset, "length": self.length, "path": self.path}


@dataclass(frozen=True, slots=True)
class Space:
    """A byte space: the file, or an inflated stream with ``stored`` its compressed form's span."""

    name: str
    data: Buffer
    stored: Span | None = None

    @property
    def length(self) -> int:
        return len(self.data)


@dataclass(slots=True)
class Unit:
    """A part of a file whose fields are recorded on demand (a chunk, an asset).

    ``path`` is the field path its spans use, canonical (as
    :meth:`SpanMap.shown` names it: the adapter knows its own lists, so the
    map does not work it out again per unit); ``alias`` another path naming
    the same value (``chunks[3]`` for ``users[1]``); ``expand`` decodes it with
    recording on (the caller provides the log). ``holds_value``: the unit is
    an object holding one decoded value (a game asset), whose fields the
    codec records directly under its path and the model shows under
    ``.value`` (:func:`savecraft.paths.holds_value`).
    """

    path: str
    space: str
    offset: int
    length: int
    expand: Callable[[], Any]
    alias: str = ""
    done: bool = False
    holds_value: bool = False


@dataclass(frozen=True, slots=True)
class Adapter:
    """How to record one format, given by its plugin (:attr:`savecraft.registry.Format.spans`).

    ``parse(data, report, lazy)``: the format's parse, run with recording on
    (``lazy``: a check that reads every byte may wait for a full recording).
    ``units(model, data)``: the parts left for later, with canonical paths.
    ``heads(model)``: the shown name of each list item the codec records by
    its place (``{"chunks[3]": "users[1]"}``), and of each canonical one
    (``{"users[1]": "users[1]"}``), worked out in one pass; an item it leaves
    out is named through the model (:func:`savecraft.paths.shown`), which for
    a lazily counted list costs a pass over the list per item.
    ``outline_units``: a query above several units (a list of thousands of
    chunks) is answered with the units' own spans, not by recording each one.
    """

    parse: Callable[[bytes, Report, bool], Any]
    units: Callable[[Any, bytes], list[Unit]] | None = None
    heads: Callable[[Any], dict[str, str]] | None = None
    outline_units: bool = False


_ADAPTERS: dict[str, Adapter] = {}


def adapter_of(fmt: registry.Format) -> Adapter:
    """The recording adapter of a format: its plugin's hook, or its plain parse."""
    found = _ADAPTERS.get(fmt.name)
    if found is None:
        if fmt.spans is not None:
            found = fmt.spans()
            if not isinstance(found, Adapter):
                raise TypeError(f"the span hook of {fmt.name} gave {type(found).__name__}, not an Adapter")
        else:
            parse = fmt.parse
            found = Adapter(lambda data, report, lazy: parse(data, report))
        _ADAPTERS[fmt.name] = found
    return found


class _SpanReport(Report):
    """A validate-mode report that notes, for each problem, the byte space it was found in.

    A codec reports offsets in the space it is reading (a chunk's problem
    counts in the inflated payload); while recording, that space is the
    active sink's. Every problem (``error``, ``warning``, ``capture``,
    ``ends_early``) reaches the list through :meth:`Report.add`.
    """

    def add(self, problem: Problem) -> None:
        problems = self.problems
        start = len(problems)
        super().add(problem)
        sink = active_sink()
        space = sink.space if sink is not None else FILE
        for i in range(start, len(problems)):
            if problems[i].space is None:
                problems[i] = replace(problems[i], space=space)


def _depth(path: str) -> int:
    return path.count(".") + path.count("[")


def _under(path: str, prefix: str) -> bool:
    """Whether ``path`` is ``prefix`` or a field under it."""
    if not prefix:
        return True
    return path == prefix or (path.startswith(prefix) and path[len(prefix)] in ".[")


class SpanMap:
    """Every recorded span of one input, by byte space; queries expand lazy units as needed."""

    def __init__(self, data: bytes, format: str, model: Any, log: SpanLog, report: Report,
                 units: Sequence[Unit] = (), heads: Callable[[], dict[str, str]] | None = None,
                 outline_units: bool = False) -> None:
        self.data = data
        self.format = format
        self.model = model
        self.report = report
        self.outline_units = outline_units
        self._log = log
        self._units = list(units)  # each with its canonical path (the adapter's word: Unit)
        # Recorded list item -> shown name: the adapter's (one pass, on the first query that
        # names spans), then each other one worked out once.
        self._heads: dict[str, str] = {}
        self._adapter_heads = heads
        # The byte spaces of objects holding one value: their fields are ``.value``'s in the model.
        self._holders = {u.path for u in self._units if u.holds_value}
        self._by_path = {u.path: u for u in self._units}
        # Per space: the units by offset, their offsets, and the furthest end reached so far
        # (units may nest or overlap: a window's walk back stops where nothing reaches it).
        self._unit_index: dict[str, tuple[list[int], list[Unit], list[int]]] = {}
        for u in sorted(self._units, key=lambda u: (u.space, u.offset)):
            starts, items, reach = self._unit_index.setdefault(u.space, ([], [], []))
            starts.append(u.offset)
            items.append(u)
            reach.append(max(reach[-1] if reach else 0, u.offset + u.length))
        # Per space: (sort key, recording order, offset, length, path), sorted; the sort key puts
        # a span before the spans inside it (by offset, then longest first).
        # Each list comes with its reach: the furthest end of the spans up to each one, so a
        # walk back from a window stops where no earlier span can overlap it.
        self._lists: dict[str, tuple[list[_Entry], list[int]]] = {}
        # Log entries taken for indexing, in batches: (recording order of the first, the entries
        # widened, their spaces). A space is named and sorted when a query first needs it (a
        # hexdump of the file's header does not name the payload's 300,000 chunk spans);
        # _taken says, per space, how many batches are in its list.
        self._batches: list[tuple[int, list[tuple[str, int, int, str]], set[str]]] = []
        self._taken: dict[str, int] = {}
        self._indexed = 0  # how many log entries are in _batches
        # Each indexed span by its own path (span_of, locate: a look-up, not a pass over them
        # all), filled from _unpathed when span_of first needs it.
        self._by_span_path: dict[str, list[tuple[str, _Entry]]] = {}
        self._unpathed: list[tuple[str, list[_Entry]]] = []
        self._spaces_seen: tuple[int, dict[tuple[Any, ...], str]] = (-1, {})  # problems' spaces (locate)
        # Per expanded unit, the log entries its expansion noted (start, end): a field inside a
        # unit is answered from those alone (unit_spans). The units holding no other unit: only
        # there is that range every span under a field of the unit.
        self._unit_entries: dict[str, tuple[int, int]] = {}
        self._innermost: frozenset[str] | None = None
        self._lock = threading.RLock()

    # -- building ---------------------------------------------------------------------------
    def expand(self, path: str = "") -> int:
        """Record the lazy units at or under ``path`` (all of them for ""); returns how many."""
        path = self._names(path)[-1]
        todo = self._units_at(path)
        if todo is None:
            todo = [u for u in self._units if not u.done and (_under(u.path, path) or _under(path, u.path))]
        for u in todo:
            self._expand(u)
        return len(todo)

    def _units_at(self, path: str) -> list[Unit] | None:
        """The unit ``path`` is in (found by its prefixes), or None when it is above every unit."""
        steps = parse_path(path) if path else []
        for n in range(len(steps), 0, -1):
            unit = self._by_path.get(format_path(steps[:n]))
            if unit is not None:
                return [] if unit.done else [unit]
        return None

    def _expand(self, unit: Unit) -> None:
        with self._lock:  # a web server may query one map from several threads
            if unit.done:
                return
            unit.done = True
            data = self._log.streams.get(unit.space, (self.data, None))[0]
            start = len(self._log.entries)
            self._log.entries.append((unit.space, unit.offset, unit.length, unit.path))
            with recording(self._log, unit.space, data):
                try:
                    unit.expand()
                except FormatError as err:
                    self.report.capture(err)
            self._unit_entries[unit.path] = (start, len(self._log.entries))

    def _ensure_at(self, space: str, offset: int) -> None:
        index = self._unit_index.get(space)
        if index is None:
            return
        starts, items, _ = index
        k = bisect.bisect_right(starts, offset) - 1
        if k >= 0 and not items[k].done and offset < items[k].offset + items[k].length:
            self._expand(items[k])

    def _units_over(self, space: str, offset: int, length: int) -> list[Unit]:
        """The units of ``space`` that overlap ``length`` bytes at ``offset`` (by bisection)."""
        index = self._unit_index.get(space)
        if index is None:
            return []
        starts, items, reach = index
        out = []
        j = bisect.bisect_left(starts, offset + length) - 1
        while j >= 0 and reach[j] > offset:
            u = items[j]
            if u.offset + u.length > offset:
                out.append(u)
            j -= 1
        out.reverse()
        return out

    def _unit_of(self, path: str) -> Unit | None:
        """The unit ``path`` is in (its own path or a field under it), found by its prefixes."""
        try:
            steps = parse_path(path) if path else []
        except PathError:
            return None
        for n in range(len(steps), 0, -1):
            unit = self._by_path.get(format_path(steps[:n]))
            if unit is not None:
                return unit
        return None

    def _index(self, space: str | None = None) -> dict[str, tuple[list[_Entry], list[int]]]:
        """Spans by space, sorted by offset, longest first, recording order breaking ties;
        each list with its reach (the furthest end so far, for walks back).

        Built incrementally and per space (``space``; None: every space): the
        entries a unit expansion added are sorted into the lists (a merge of
        two sorted runs). A field's span is widened to cover the spans under
        it (a block whose header record is named after the block, with its
        data read next, covers both).
        """
        if self._indexed != len(self._log.entries):
            with self._lock:
                start = self._indexed
                if start != len(self._log.entries):
                    widened = self._widened(start)
                    self._batches.append((start, widened, {e[0] for e in widened}))
                    self._indexed = start + len(widened)
        batches = self._batches
        names = [space] if space is not None else list({n for b in batches for n in b[2]} | set(self._lists))
        if any(self._taken.get(name, 0) < len(batches) for name in names):
            with self._lock, gc_paused(keep=True):
                # New lists, not sorted in place: a query still walking the old ones is not disturbed.
                # The counts of what is in them are published after the lists: a query that reads
                # the new counts (above, without the lock) then finds the lists they count.
                lists = dict(self._lists)
                counts = dict(self._taken)
                recorded = self._recorded
                for name in names:
                    taken = counts.get(name, 0)
                    counts[name] = len(batches)
                    items = [((e[1] << 40) - e[2], seq, e[1], e[2], recorded(name, e[3]))
                             for start, entries, spaces in batches[taken:] if name in spaces
                             for seq, e in enumerate(entries, start) if e[0] == name]
                    if not items:
                        continue
                    self._unpathed.append((name, items))
                    old = lists.get(name)
                    merged = sorted(old[0] + items if old else items, key=_KEY)  # stable: seq order on ties
                    lists[name] = (merged, list(accumulate([e[2] + e[3] for e in merged], max)))
                self._lists = lists
                self._taken = counts
        return self._lists

    def _widened(self, start: int, end: int | None = None) -> list[tuple[str, int, int, str]]:
        """Entries from ``start`` on (to ``end``), each record read under an item's path widened
        over the item.

        An item's fields are noted next to each other, so the walk from the
        record goes only as far as the entries under its path reach.
        """
        entries = self._log.entries
        out = entries[start:end]
        items = self._log.items  # ascending: the ones from ``start`` on are found by bisection
        for i in items[bisect.bisect_left(items, start):bisect.bisect_left(items, end) if end is not None else None]:
            space, lo, length, path = entries[i]
            hi = lo + length
            n = len(path)
            for step in (-1, 1):
                j = i + step
                while 0 <= j < len(entries):
                    e = entries[j]
                    p = e[3]
                    if e[0] != space or not (p.startswith(path) and len(p) > n and p[n] in ".["):
                        break
                    lo = min(lo, e[1])
                    hi = max(hi, e[1] + e[2])
                    j += step
            if lo != entries[i][1] or hi != entries[i][1] + length:
                out[i - start] = (space, lo, hi - lo, path)
        return out

    # -- queries ----------------------------------------------------------------------------
    def _recorded(self, space: str, path: str) -> str:
        """A path as a codec recorded it, as every other message prints it (cheaply, per span).

        Codecs note a list item by its place in the list they read
        (``sections[1]``, ``blocks[0]``) and an asset's fields directly under
        the asset; the one vocabulary (:mod:`savecraft.paths`) shows an item
        through the model's view of its kind (``translations[0]``,
        ``description``) and an asset's fields under its ``value``.
        """
        path = self._head(path)
        if space in self._holders and path != space and path.startswith(space):
            rest = path[len(space):]
            if rest[0] in ".[" and not (rest.startswith(".value") and rest[6:7] in ("", ".", "[")):
                path = space + ".value" + rest
        return path

    def _head(self, path: str) -> str:
        """``path`` with its first list item named through the model's view (``chunks[3]`` -> ``users[1]``)."""
        m = _LIST_HEAD.match(path)
        if m is None or self.model is None:
            return path
        head = m.group()
        if self._adapter_heads is not None:
            with self._lock:
                if self._adapter_heads is not None:
                    self._heads = {**self._adapter_heads(), **self._heads}
                    self._adapter_heads = None
        new = self._heads.get(head)
        if new is None:
            try:
                name, _, index = head[:-1].partition("[")
                new = format_path(shown(self.model, [Attr(name), Index(int(index))]))
            except (FormatError, PathError, ValueError, LookupError, TypeError, AttributeError):
                new = head  # not a list of the model (a count, an item past the end): as recorded
            self._heads[head] = new
        return new + path[len(head):] if new != head else path

    def shown(self, path: str) -> str:
        """``path`` as spans name it: canonical (:func:`savecraft.paths.canonical`) as far as the
        model goes, whichever accepted form it was given in (``users[name=Brigid]``,
        ``chunks[3]``, ``sections[1].texts``, an asset's fields without ``.value``)."""
        if not path:
            return ""
        try:
            steps = parse_path(path)
        except PathError:
            return path
        if any(not isinstance(s, Attr | Index) or (isinstance(s, Index) and s.index < 0) for s in steps):
            try:
                with gc_paused():  # a key selection may decode a whole list of lazy chunks
                    steps = resolve(self.model, steps).canonical
            except (PathError, FormatError):
                pass
        text = self._head(format_path(steps))
        if self._holders:
            for cut in [i for i, c in enumerate(text) if c in ".[" and i > 0]:
                if text[:cut] in self._holders:
                    return self._recorded(text[:cut], text)
        return text

    def _names(self, path: str) -> tuple[str, ...]:
        return (self.shown(path),)

    def spans(self, space: str | None = None) -> list[Span]:
        """Every span recorded so far (of one space), sorted by offset, outer before inner."""
        index = self._index(space)
        names = [space] if space is not None else sorted(index)
        return [Span(s, e[2], e[3], e[4]) for s in names for e in index.get(s, ([], []))[0]]

    def spans_for(self, path: str) -> list[Span]:
        """The spans of ``path`` and of everything under it, sorted by space and offset.

        A path that was not recorded by itself (a bit field inside a word, a
        value the codec computes) gets the span of its nearest recorded parent.
        """
        names = self._names(path)
        self.expand(names[-1])
        index = self._index()
        found = [Span(s, e[2], e[3], e[4]) for s, (items, _) in index.items()
                 for e in items if e[4].startswith(names) and any(_under(e[4], n) for n in names)]
        if not found and names[0]:
            for name in names:
                steps = parse_path(name)
                while steps and not found:
                    steps = steps[:-1]
                    parent = format_path(steps)
                    found = [Span(s, e[2], e[3], e[4]) for s, (items, _) in index.items()
                             for e in items if e[4] == parent]
                if found:
                    break
        found.sort(key=lambda sp: (sp.space, sp.offset, -sp.length))
        return found

    def unit_spans(self, path: str) -> list[Span] | None:
        """:meth:`spans_for` of a field inside a unit, answered from that unit alone, each span once.

        The unit is recorded if it was not, and only its own entries are read:
        no sorted index of the whole file (100,000 chunk spans) and no pass
        over it, so a field of a huge save is answered as soon as the
        containers are recorded. The answer is :meth:`spans_for`'s without
        repeats (the container notes a chunk's magic and size, which the chunk
        notes again). None when this cannot answer: ``path`` is not strictly
        inside a unit, its unit holds other units, or nothing in it is
        recorded under ``path`` or a parent of it below the unit.
        """
        name = self._names(path)[-1]
        unit = self._unit_of(name)
        if unit is None or name == unit.path or unit.path not in self._innermost_units():
            return None
        self._expand(unit)
        start, end = self._unit_entries.get(unit.path, (0, 0))
        if end <= start:
            return None
        entries = [(e[0], e[1], e[2], self._recorded(e[0], e[3])) for e in self._widened(start, end)]
        found = {Span(*e) for e in entries if _under(e[3], name)}
        steps = parse_path(name)
        while not found and len(steps) > 1:
            steps = steps[:-1]
            parent = format_path(steps)
            if not _under(parent, unit.path) or parent == unit.path:
                break
            found = {Span(*e) for e in entries if e[3] == parent}
        if not found:
            return None
        return sorted(found, key=lambda sp: (sp.space, sp.offset, -sp.length, sp.path))

    def _innermost_units(self) -> frozenset[str]:
        """The paths of the units that hold no other unit (worked out once: each unit's parents)."""
        if self._innermost is None:
            units = self._by_path
            holders = {path[:i] for path in units for i, c in enumerate(path) if c in ".[" and path[:i] in units}
            self._innermost = frozenset(units.keys() - holders)
        return self._innermost

    def span_of(self, path: str) -> Span | None:
        """The one span of ``path`` itself (the outermost when it was noted twice), or None."""
        names = self._names(path)
        self.expand(names[-1])
        self._index()
        if self._unpathed:
            with self._lock, gc_paused(keep=True):
                by_path = self._by_span_path
                for space, items in self._unpathed:
                    for e in items:
                        found = by_path.get(e[4])
                        if found is None:
                            by_path[e[4]] = [(space, e)]
                        else:
                            found.append((space, e))
                self._unpathed = []
        best: tuple[str, _Entry] | None = None
        for name in names:
            for space, e in self._by_span_path.get(name, ()):
                # spans_for's order: by space, offset, longest first, then recording order
                if best is None or (space, e[2], -e[3], e[1]) < (best[0], best[1][2], -best[1][3], best[1][1]):
                    best = (space, e)
        return None if best is None else Span(best[0], best[1][2], best[1][3], best[1][4])

    def at(self, space: str, offset: int) -> Span | None:
        """The innermost recorded field covering byte ``offset`` of ``space``, or None."""
        self._ensure_at(space, offset)
        items, reach = self._index(space).get(space, ([], []))
        # Outer before inner: walking back, the first span that still covers
        # the byte is the one that starts last and is smallest.
        j = bisect.bisect_right(items, offset << 40, key=_KEY) - 1
        while j >= 0 and reach[j] > offset:
            e = items[j]
            if e[2] + e[3] > offset:
                return Span(space, e[2], e[3], e[4])
            j -= 1
        return None

    def covering(self, space: str, offset: int, length: int) -> Iterator[Span]:
        """Spans that overlap ``length`` bytes at ``offset``, outer before inner (for a hex view)."""
        for u in self._units_over(space, offset, length):
            if not u.done:
                self._expand(u)
        items, reach = self._index(space).get(space, ([], []))
        found = []
        j = bisect.bisect_right(items, (offset + length - 1) << 40, key=_KEY) - 1
        while j >= 0 and reach[j] > offset:  # back from the window's end, as far as a span reaches into it
            e = items[j]
            if e[2] + e[3] > offset:
                found.append(e)
            j -= 1
        for e in reversed(found):
            yield Span(space, e[2], e[3], e[4])

    def spaces(self) -> dict[str, Space]:
        """The file and every inflated stream met so far, with their bytes."""
        out = {FILE: Space(FILE, self.data)}
        for name, (data, stored) in self._log.streams.items():
            if name == FILE:
                continue
            out[name] = Space(name, data, None if stored is None else Span(stored[0], stored[1], stored[2], name))
        return out

    def units(self) -> list[Unit]:
        """The parts recorded on demand, expanded or not."""
        return list(self._units)

    @property
    def problems(self) -> list[Problem]:
        """What validate-mode parsing found, each with the span it points at."""
        return [self.locate(replace(p, path=self.shown(p.path)) if p.path else p)
                for p in self.report.problems]

    def locate(self, problem: Problem) -> Problem:
        """``problem`` with its space and length filled in from the recorded spans.

        The field's own span when it was recorded; otherwise, from the
        problem's offset to the end of the innermost field covering it (a
        record cut short shows the bytes that were there).
        """
        if problem.length is not None:
            return problem
        space = problem.space
        if space is None:  # a problem found elsewhere (api.validate): the space this parse saw it in
            counted, seen = self._spaces_seen
            if counted != len(self.report.problems):  # (a unit's expansion may add problems)
                seen = {}
                for p in reversed(self.report.problems):  # the first one wins, as a search would find
                    if p.space is not None:
                        seen[(p.offset, p.path, p.expected, p.found)] = p.space
                self._spaces_seen = (len(self.report.problems), seen)
            space = seen.get((problem.offset, problem.path, problem.expected, problem.found))
        if space is None:
            unit = self._unit_of(self._names(problem.path)[-1]) if problem.path else None
            space = unit.space if unit is not None else FILE
        if problem.path:
            own = self.span_of(problem.path)
            if own is not None and (problem.offset is None or own.offset <= problem.offset < max(own.end, own.offset + 1)):
                return replace(problem, space=own.space, offset=own.offset if problem.offset is None else problem.offset,
                               length=own.end - (own.offset if problem.offset is None else problem.offset) or own.length)
        if problem.offset is None:
            return problem
        outer = self.at(space, problem.offset)
        if outer is None:
            size = len(self.spaces().get(space, Space(space, self.data)).data)
            return replace(problem, space=space, length=max(size - problem.offset, 0))
        return replace(problem, space=space, length=outer.end - problem.offset)

    def to_json(self) -> dict[str, Any]:
        """Spaces (name, length, stored span), spans and problems as plain JSON values."""
        spaces = self.spaces()
        return {
            "format": self.format,
            "spaces": [{"name": s.name, "length": s.length,
                        "stored": None if s.stored is None else s.stored.to_json()} for s in spaces.values()],
            "spans": [sp.to_json() for sp in self.spans()],
            "units": [{"path": u.path, "alias": u.alias, "space": u.space, "offset": u.offset,
                       "length": u.length, "expanded": u.done} for u in self._units],
            "problems": [problem_json(p) for p in self.problems],
        }


def problem_json(p: Problem) -> dict[str, Any]:
    return {"severity": p.severity, "offset": p.offset, "path": p.path, "expected": p.expected,
            "found": p.found, "message": p.message, "space": p.space, "length": p.length}


def record(data: bytes, format: str | None = None, *, lazy: bool = False) -> SpanMap:
    """Parse ``data`` with span recording on; the format is detected unless named.

    Problems do not stop recording: parsing runs in validate mode, the
    problems are kept (:attr:`SpanMap.problems`) and the spans read before
    and after them are there. ``lazy`` leaves the fields of each chunk or
    asset to be recorded when a query first reaches them.
    """
    fmt = registry.find(data, format)
    ad = adapter_of(fmt)
    log = SpanLog()
    report = _SpanReport(strict=False)
    model = None
    try:
        with recording(log, FILE, data):
            model = ad.parse(data, report, lazy)
    except FormatError as err:
        report.capture(err)
    heads = ad.heads
    # A unit per chunk is 100,000 objects that outlive the call: the collector's passes over
    # them (and over the model) would make this step grow faster than the number of chunks.
    with gc_paused(keep=True):
        units = ad.units(model, data) if ad.units is not None and model is not None else []
        smap = SpanMap(data, fmt.name, model, log, report, units,
                       (lambda: heads(model)) if heads is not None and model is not None else None,
                       ad.outline_units)
    if not lazy:
        smap.expand()
    return smap


def validate(data: bytes, format: str | None = None) -> Any:
    """:func:`savecraft.api.validate`, each problem with its byte space and length.

    The problems are exactly validate's (the format's checks included); a
    lazy recording of the same bytes then points each one at its bytes.
    """
    result = api.validate(data, format)
    if result.format is None or not result.problems:
        return result
    smap = record(data, result.format, lazy=True)
    result.problems = [smap.locate(p) for p in result.problems]
    return result
