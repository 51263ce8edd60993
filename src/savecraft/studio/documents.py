"""The files a studio has open: their bytes, the model read from them, edits, undo and saving.

A document is a stack of byte strings: the file as opened, then the result of
each accepted edit. Undo drops the top; saving writes the top through
:func:`savecraft.fileio.atomic_write` (with a backup), the same writer the
command line uses. Every edit goes through :func:`savecraft.edit.edit_bytes`,
so the studio refuses exactly what ``savecraft edit`` refuses, and a refused
edit leaves the stack as it was.

The model is read non-strictly (like ``validate``), so a file with a bad
checksum still opens and shows its problems.

A huge file is usable at once because nothing the page asks for first waits
behind something it does not need yet. Opening a document starts reading its
model in the background. The spans have their own lock
(:attr:`Document.span_lock`): the tree, which reads the model under the
document's lock, never queues behind a recording; a big file is parsed once
for both (:attr:`Document.model`). The ``validate`` list, which reads the
whole file, runs without either lock, and for a big file, when a core is
spare, in a process of its own (:func:`run_elsewhere`) started as the file
opens, away from this process's interpreter lock, so the tree and the bytes
answer meanwhile; without a spare core, in this process after the parse.
"""

from __future__ import annotations

import itertools
import os
import pickle
import subprocess
import sys
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import api, edit, registry, spans
from ..diff import Diff, diff_bytes
from ..errors import FormatError, Problem, Report, SavecraftError
from ..fileio import atomic_write, read_input

SEPARATE_VALIDATION = 4 << 20
"""Files from this size on are validated (and their ranges probed) by a process of their own
(:func:`run_elsewhere`)."""
SHARED_PARSE = 4 << 20
"""Files from this size on are parsed once for the model and the spans (:attr:`Document.model`)."""
_CHILDREN = threading.BoundedSemaphore(2)  # processes of their own running at once
SPAN_MAPS_KEPT = 3  # span maps kept per document: the current bytes, and those an edit compares


def validate_data(data: bytes, format: str) -> tuple[list[Problem], list[str]]:
    """``savecraft validate``'s problems and notes for ``data`` (in a process of its own when big)."""
    problems, notes = run_elsewhere("validate", data, format)
    if not isinstance(problems, list) or not all(isinstance(p, Problem) for p in problems):
        raise SavecraftError("the validating process answered something else")
    return problems, list(notes)


def _validate_here(data: bytes, format: str) -> tuple[list[Problem], list[str]]:
    result = api.validate(data, format)
    return result.problems, result.notes


def _probe_range_here(data: bytes, format: str, path: str) -> str | None:
    from .hexview import probe_range

    return probe_range(data, format, path)


_JOBS: dict[str, Callable[..., Any]] = {"validate": _validate_here, "range": _probe_range_here}


def run_elsewhere(job: str, data: bytes, format: str, *args: Any) -> Any:
    """Run a job that reads the whole file (``validate``, ``range``) on ``data``: here for a
    small file, by a fresh ``python`` of its own from :data:`SEPARATE_VALIDATION` bytes on
    when a core is spare (:func:`_spare_core`).

    Validation decodes every record and a range probe parses and builds the
    file: seconds of pure Python on a 50,000-player save, and in the studio's
    process they would hold the interpreter lock the tree, the bytes and the
    spans need. Another process runs on the other core. The bytes go through
    a pipe (never a file or the command line); if that process cannot run,
    the job runs here.
    """
    if runs_elsewhere(data):
        try:
            return _in_child(job, data, format, args)
        except (OSError, subprocess.SubprocessError, pickle.UnpicklingError, EOFError, ValueError):
            pass
    return _JOBS[job](data, format, *args)


def runs_elsewhere(data: bytes) -> bool:
    """Whether :func:`run_elsewhere` would run a job on ``data`` in a process of its own now."""
    return len(data) >= SEPARATE_VALIDATION and _spare_core()


def _spare_core() -> bool:
    """Whether a process of its own would get a core of its own (the load is under the cores).

    On a machine already busier than its cores (measured: load 16 on 2 cores),
    a fresh ``python`` only adds its start-up and the copy of the file to a
    queue of runnable processes: the validation of a 50,000-player save came
    2.6 s later than in this process. There the job runs here.
    """
    try:
        return os.getloadavg()[0] < (os.cpu_count() or 1) - 0.5
    except OSError:
        return True


def _in_child(job: str, data: bytes, format: str, args: tuple[Any, ...]) -> Any:
    root = str(Path(__file__).resolve().parents[2])  # the savecraft this process runs
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([root, *filter(None, [env.get("PYTHONPATH")])])
    with _CHILDREN:  # a folder of 20 big saves opened at once: two at a time, not 20
        done = subprocess.run(
            [sys.executable, "-c", "from savecraft.studio.documents import _child; _child()"],
            input=pickle.dumps((job, format, args, data)), capture_output=True, env=env, check=False)
    if done.returncode != 0:
        raise subprocess.SubprocessError(done.stderr.decode(errors="replace")[-500:])
    return pickle.loads(done.stdout)  # written by our own child, below


def _child() -> None:
    """The other process: a pickled (job, format, arguments, file) on stdin, the answer on stdout."""
    job, format, args, data = pickle.loads(sys.stdin.buffer.read())
    sys.stdout.buffer.write(pickle.dumps(_JOBS[job](data, format, *args)))
    sys.stdout.buffer.flush()


@dataclass(slots=True)
class Snapshot:
    """One state of a document's bytes and what led to it."""

    data: bytes
    note: str
    model: Any = None  # the model read from ``data``, when one was already at hand


@dataclass(slots=True)
class EditOutcome:
    """What the page shows after an edit: accepted (with what it changed) or refused (and why)."""

    accepted: bool
    changes: list[tuple[str, Any]] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    message: str = ""
    diff: Diff | None = None
    recomputed: list[dict[str, Any]] = field(default_factory=list)  # fields the rebuild changed too


class Document:
    """One open file. Methods take the document's lock: the server runs them in worker threads."""

    def __init__(self, doc_id: str, name: str, data: bytes, path: Path | None = None) -> None:
        self.id = doc_id
        self.name = name
        self.path = path
        self.lock = threading.RLock()
        # Span recording: its own lock, so the tree (the model, under ``lock``) never waits behind it.
        self.span_lock = threading.RLock()
        self.history: list[Snapshot] = [Snapshot(data, "opened")]
        self.saved = data
        self.format = registry.detect(data)  # FormatError for a file of no known format
        self._validation: tuple[bytes, Future[tuple[list[Problem], list[str]]]] | None = None
        # Guards only ``_validation``: starting a validation that runs in a process of its own
        # must not wait for the model's parse (under ``lock``).
        self._validation_lock = threading.Lock()
        self._span_maps: list[tuple[bytes, spans.SpanMap]] = []

    # -- state ------------------------------------------------------------------------
    @property
    def data(self) -> bytes:
        return self.history[-1].data

    @property
    def dirty(self) -> bool:
        return self.data is not self.saved and self.data != self.saved

    @property
    def model(self) -> Any:
        """The model of the current bytes, read on first use.

        Read strictly first: that is the lazy path (a server save's chunks are
        checked but decoded only when looked at), so a 50,000-player save opens
        in the time ``savecraft.load`` takes. Only a file with problems is read
        again in validate mode, which decodes everything it can to get past them.

        A big file (from :data:`SHARED_PARSE` bytes) is read once for both the
        tree and the bytes: its lazy span recording is that same lazy parse
        with spans noted, so its model is the model when the recording met no
        problem (the strict read would have read the same). The spans are then
        there as soon as the tree is, instead of a second whole-file parse
        after it (4.5 s on a loaded machine for 50,000 players, which every
        field selection waited for).
        """
        with self.lock:
            top = self.history[-1]
            if top.model is None:
                if len(top.data) >= SHARED_PARSE:
                    smap = self.span_map(top.data)
                    if smap.model is not None and not smap.report.problems:
                        top.model = smap.model
                        return top.model
                try:
                    top.model = self.format.parse(top.data, Report(strict=True))
                except FormatError:
                    top.model = self.format.parse(top.data, Report(strict=False))
            return top.model

    def problems(self) -> tuple[list[Problem], list[str]]:
        """Everything ``savecraft validate`` says about the current bytes, and its notes.

        Validation decodes the whole file (seconds for a huge save), so it runs
        without the document's lock (in a process of its own for a big file:
        :func:`validate_data`); the tree and the bytes stay usable meanwhile.
        Requests that come while it runs wait for the same run.
        """
        return self._validate(self.data).result()

    def _validate(self, data: bytes) -> Future[tuple[list[Problem], list[str]]]:
        """The validation of ``data``: the one under way or done, else a new one started.

        One that runs in a process of its own starts at once, beside the model's parse (on
        the other core: :meth:`warm` starts it so). One that runs in this process waits for
        the parse when the model is not read yet: both are pure Python under one interpreter
        lock, so side by side they would both end when the second would have, and the tree,
        which needs only the model, would come later. Once the model is read it does not
        take the document's lock at all (waiting for it behind the tree and reveal requests
        of a person's clicks put the problems of a 128 MiB ``.tng`` 2x later, measured).
        """
        with self._validation_lock:
            if self._validation is not None and self._validation[0] is data:
                return self._validation[1]
            future: Future[tuple[list[Problem], list[str]]] = Future()
            self._validation = (data, future)

        def run() -> None:
            try:
                if not runs_elsewhere(data) and self._unread(data):
                    with self.lock:  # the model's parse first (warm), then this
                        pass
                future.set_result(validate_data(data, self.format.name))
            except BaseException as err:  # the request waiting for it reports it
                future.set_exception(err)

        threading.Thread(target=run, name=f"validate {self.id}", daemon=True).start()
        return future

    def _unread(self, data: bytes) -> bool:
        """Whether ``data`` is the current bytes and their model is not read yet (a parse runs)."""
        top = self.history[-1]
        return top.data is data and top.model is None

    def span_map(self, data: bytes | None = None) -> spans.SpanMap:
        """The (lazy) span map of the current bytes, or of ``data``; the last few are kept.

        Recorded under :attr:`span_lock` only: a query of a recorded map runs
        under the map's own lock, and the tree never waits for either.
        """
        data = self.data if data is None else data
        with self.span_lock:
            for held, smap in self._span_maps:
                if held is data:
                    return smap
            smap = spans.record(data, self.format.name, lazy=True)
            self._span_maps.append((data, smap))
            del self._span_maps[:-SPAN_MAPS_KEPT]
            return smap

    def warm(self, validate: bool = True) -> None:
        """Start reading the model in the background: the page's first questions need it.

        A request that comes first waits for the same parse under the same
        lock, never doing it twice. A big file's validation starts here too
        when it would run in a process of its own (a core is spare): there it
        takes nothing from the parse, and the problems are ready about when
        the tree is instead of a validation after it (``validate=False``: a
        folder of files opened for the timeline, whose problems nobody asked
        for). Nothing else starts here: the spans recorded beside the first
        tree and overview requests, or a validation in this process, would
        share this process's interpreter lock with them.
        """
        if validate and runs_elsewhere(self.data):
            self._validate(self.data)

        def run() -> None:
            try:
                self.model  # noqa: B018 (read for its side effect: parsed once, kept)
            except Exception:  # noqa: BLE001 (the request that needs it reports it)
                pass

        threading.Thread(target=run, name=f"warm {self.id}", daemon=True).start()

    def summary(self) -> dict[str, Any]:
        return {
            "id": self.id, "name": self.name, "path": str(self.path) if self.path else None,
            "format": self.format.name, "description": self.format.description,
            "size": len(self.data), "dirty": self.dirty, "undo": len(self.history) - 1,
            "history": [s.note for s in self.history],
        }

    # -- editing ----------------------------------------------------------------------
    def edit(self, path: str, text: str) -> EditOutcome:
        """Set one field from the text a person typed; refused edits change nothing."""
        with self.lock:
            before = self.data
            try:
                edited = edit.edit_bytes(before, {path: text}, format=self.format.name, text=True)
            except FormatError as err:
                return EditOutcome(False, problems=list(err.problems), message=str(err))
            except SavecraftError as err:  # a path that names nothing: PathError
                return EditOutcome(False, problems=[Problem(None, path, str(err), "")],
                                   message=str(err))
            if not edited.changed:
                return EditOutcome(True, edited.changes, message="the file is unchanged")
            shown = ", ".join(f"{p} = {v!r}" for p, v in edited.changes)
            self.history.append(Snapshot(edited.data, f"set {shown}", edited.model))
            changes = diff_bytes(before, edited.data, format=self.format.name, name_a="before",
                                 name_b="after")
            return EditOutcome(True, edited.changes, message=f"set {shown}", diff=changes)

    def undo(self) -> bool:
        with self.lock:
            if len(self.history) == 1:
                return False
            self.history.pop()
            return True

    def save(self, *, backup: bool = True) -> Path | None:
        """Write the current bytes over the file (keeping ``FILE.bak``); returns the backup's path."""
        with self.lock:
            if self.path is None:
                raise SavecraftError(f"{self.name} was dropped on the page: it has no path to save "
                                     "to (download it instead)")
            made = atomic_write(self.path, self.data, backup=backup)
            self.saved = self.data
            return made if made != self.path else None


class Workspace:
    """Every document the studio has open, by id."""

    def __init__(self) -> None:
        self.documents: dict[str, Document] = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    def _next_id(self) -> str:
        with self._lock:
            return f"d{next(self._ids)}"

    def open_path(self, path: str | Path, *, validate: bool = True) -> Document:
        """Open a file; ``validate``: start its validation early where that costs the page
        nothing (:meth:`Document.warm`)."""
        p = Path(path).expanduser()
        data = read_input(p)
        doc = Document(self._next_id(), p.name, data, p.resolve())
        self.documents[doc.id] = doc
        doc.warm(validate)
        return doc

    def open_bytes(self, name: str, data: bytes) -> Document:
        doc = Document(self._next_id(), name or "dropped file", data, None)
        self.documents[doc.id] = doc
        doc.warm()
        return doc

    def get(self, doc_id: str) -> Document:
        try:
            return self.documents[doc_id]
        except KeyError:
            raise SavecraftError(f"no open document {doc_id!r}") from None

    def close(self, doc_id: str) -> None:
        self.documents.pop(doc_id, None)
