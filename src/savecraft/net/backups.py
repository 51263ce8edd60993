"""Backups of the server's state: ``--backups N``, ``--backup-every``, ``--restore``.

* ``--backups N``: after each timer save, the file just written becomes
  ``STATE.1`` and the older ones move up (``STATE.2`` ... ``STATE.N``; the
  oldest is dropped). Each move is one atomic rename and the new ``STATE.1``
  is written atomically, so a kill at any moment leaves every backup whole:
  at worst one generation is missing or appears twice.
* ``--backup-every SECONDS``: a snapshot of the state at most this often,
  kept apart in ``STATE.snapshots/`` as ``STATE-YYYYmmddTHHMMSSZ``, the newest
  ``--snapshots K`` kept (the daily backup that survives a day of rotations).
* ``--restore BACKUP``: before the server starts, the backup is checked (a
  state of this world) and written over the state; the state it replaces is
  kept as ``STATE.before-restore``.

Backups are copies written with :func:`savecraft.fileio.atomic_write`. A backup that fails (disk full) is logged and counted; it never stops the
server nor touches the state.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from ..fileio import atomic_write, ensure_dir
from .world import World
from .state import PlayerStore


class Backups:
    """Rotation and snapshots for one state file; every method runs off the event loop."""

    def __init__(self, state: str | Path, keep: int = 0, every: float = 0.0,
                 snapshots: int = 7) -> None:
        self.state = Path(state)
        self.keep = keep
        self.every = every
        self.snapshots = snapshots
        self.folder = self.state.parent / f"{self.state.name}.snapshots"
        self._last_snapshot = 0.0

    def generation(self, k: int) -> Path:
        return self.state.with_name(f"{self.state.name}.{k}")

    def after_timer_save(self, now: float | None = None) -> list[Path]:
        """Rotate, and snapshot when one is due; the files made."""
        made: list[Path] = []
        if self.keep > 0:
            made.append(self.rotate())
        now = time.time() if now is None else now
        if self.every > 0 and now - self._last_snapshot >= self.every:
            made.append(self.snapshot(now))
            self._last_snapshot = now
        return made

    def rotate(self) -> Path:
        """STATE.N-1 -> STATE.N, ..., STATE.1 -> STATE.2, then STATE -> STATE.1."""
        for k in range(self.keep - 1, 0, -1):
            older = self.generation(k)
            if older.exists():
                os.replace(older, self.generation(k + 1))
        first = self.generation(1)
        _copy(self.state, first)
        return first

    def snapshot(self, now: float) -> Path:
        ensure_dir(self.folder)
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(now))
        target = self.folder / f"{self.state.name}-{stamp}"
        _copy(self.state, target)
        kept = sorted(p for p in self.folder.iterdir()
                      if p.name.startswith(f"{self.state.name}-") and not p.name.endswith(".tmp"))
        for old in kept[:max(len(kept) - self.snapshots, 0)]:
            old.unlink(missing_ok=True)
        return target

    def existing(self) -> list[Path]:
        """Every backup and snapshot on disk, newest generation first."""
        found = [self.generation(k) for k in range(1, self.keep + 1)
                 if self.generation(k).exists()]
        if self.folder.is_dir():
            found += sorted(self.folder.iterdir(), reverse=True)
        return found


def _copy(source: Path, target: Path) -> None:
    """``target`` becomes a copy of ``source``, written atomically (never torn).

    A copy, not a hard link: a link would share the state's bytes until the
    next save, and anything that ever writes the state in place (rather than
    by renaming a new file over it) would change the backups with it.
    """
    atomic_write(target, source.read_bytes())


def restore(state: str | Path, backup: str | Path, world: World) -> Path | None:
    """Put ``backup`` in place of ``state`` (checked first); where the replaced state was kept.

    Raises :class:`~savecraft.net.state.StateError` when the backup is not a
    state of this world; nothing is changed then.
    """
    state, backup = Path(state), Path(backup)
    PlayerStore(backup, world)  # a usable state of this world, or StateError
    data = backup.read_bytes()
    kept = None
    if state.exists():
        kept = state.with_name(f"{state.name}.before-restore")
        atomic_write(kept, state.read_bytes())
    atomic_write(state, data)
    return kept


__all__ = ["Backups", "restore"]
