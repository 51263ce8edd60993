"""Reading inputs and writing outputs without ever losing the old file.

Writes go to a temporary file in the destination's folder, are flushed to
disk, then renamed over the destination: a crash (or ``kill -9``) at any
moment leaves either the old file or the new one, never half of one.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from .errors import SavecraftError

PathLike = str | os.PathLike[str]


def read_input(source: PathLike | bytes | bytearray | memoryview) -> bytes:
    if isinstance(source, bytes | bytearray | memoryview):
        return bytes(source)
    try:
        with open(source, "rb") as fh:
            return fh.read()
    except OSError as exc:
        raise SavecraftError(f"{source}: cannot read: {exc.strerror or exc}") from None


def atomic_write(path: PathLike, data: bytes, *, backup: bool = False) -> Path:
    """Write ``data`` to ``path`` atomically; with ``backup``, keep ``path.bak`` first.

    Returns the backup's path when one was made, else ``path``.
    """
    dest = Path(path)
    folder = dest.parent if str(dest.parent) else Path(".")
    result = dest
    if backup and dest.exists():
        bak = dest.with_name(dest.name + ".bak")
        shutil.copy2(dest, bak)
        result = bak
    fd, tmp = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if dest.exists():
            shutil.copymode(dest, tmp)
        else:
            os.chmod(tmp, 0o644)
        os.replace(tmp, dest)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _fsync_dir(folder)
    return result


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def ensure_dir(path: PathLike) -> Path:
    p = Path(path)
    try:
        p.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SavecraftError(f"{p}: cannot create folder: {exc.strerror or exc}") from None
    return p
