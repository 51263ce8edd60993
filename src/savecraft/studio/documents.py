"""The files a studio has open: their bytes, the model read from them, edits, undo and saving.

A document is a stack of byte strings: the file as opened, then the result of
each accepted edit. Undo drops the top; saving writes the top through
:func:`savecraft.fileio.atomic_write` (with a backup), the same writer the
command line uses. Every edit goes through :func:`savecraft.edit.edit_bytes`,
so the studio refuses exactly what ``savecraft edit`` refuses, and a refused
edit leaves the stack as it was.

The model is read non-strictly (like ``validate``), so a file with a bad
checksum still opens and shows its problems; the full ``validate`` list is
computed only when asked for, since on a large file it decodes everything.
"""

from __future__ import annotations

import itertools
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import api, edit, registry
from ..diff import Diff, diff_bytes
from ..errors import FormatError, Problem, Report, SavecraftError
from ..fileio import atomic_write, read_input


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
        self.history: list[Snapshot] = [Snapshot(data, "opened")]
        self.saved = data
        self.format = registry.detect(data)  # FormatError for a file of no known format
        self._problems: tuple[bytes, list[Problem], list[str]] | None = None

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
        """
        with self.lock:
            top = self.history[-1]
            if top.model is None:
                try:
                    top.model = self.format.parse(top.data, Report(strict=True))
                except FormatError:
                    top.model = self.format.parse(top.data, Report(strict=False))
            return top.model

    def problems(self) -> tuple[list[Problem], list[str]]:
        """Everything ``savecraft validate`` says about the current bytes, and its notes.

        Validation decodes the whole file (seconds for a huge save), so it runs
        without the document's lock: the tree and the bytes stay usable meanwhile.
        """
        with self.lock:
            data = self.data
            if self._problems is not None and self._problems[0] is data:
                return self._problems[1], self._problems[2]
        result = api.validate(data, self.format.name)
        with self.lock:
            self._problems = (data, result.problems, result.notes)
        return result.problems, result.notes

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

    def open_path(self, path: str | Path) -> Document:
        p = Path(path).expanduser()
        data = read_input(p)
        doc = Document(self._next_id(), p.name, data, p.resolve())
        self.documents[doc.id] = doc
        return doc

    def open_bytes(self, name: str, data: bytes) -> Document:
        doc = Document(self._next_id(), name or "dropped file", data, None)
        self.documents[doc.id] = doc
        return doc

    def get(self, doc_id: str) -> Document:
        try:
            return self.documents[doc_id]
        except KeyError:
            raise SavecraftError(f"no open document {doc_id!r}") from None

    def close(self, doc_id: str) -> None:
        self.documents.pop(doc_id, None)
