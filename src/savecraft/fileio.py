"""Reading inputs and writing outputs: the one writer every command and ``save`` use.

The promise is that a write lands where the user meant, or not at all:

* A regular file is replaced atomically: the bytes go to a temporary file in
  the destination's own folder, are flushed to disk, then renamed over it. A
  crash (or ``kill -9``) at any moment leaves either the old file or the new
  one, never half of one, and the temporary file of a killed run is removed by
  the next write to the same place.
* A symlink is followed: its target is replaced (in the target's folder) and
  the link stays a link. Save folders kept behind links (cloud sync, Steam)
  would otherwise silently keep the old save. As the kernel's
  ``protected_symlinks`` rule has it, a link in a sticky world-writable
  folder (``/tmp``) is followed only when it belongs to the writer or to the
  folder's owner; a link planted there by another user is refused.
* The replacement keeps the old file's owner, group and mode, as editors do
  (root saving a user's file leaves it the user's). A file with other hard
  links is refused, not replaced: a rename would leave the other names with
  the old bytes, and writing into the file in place could tear it.
* A FIFO, a character or block device, a socket, ``/dev/stdout`` or ``-`` is
  a stream, not a file: the bytes are written into it directly, with no
  temporary file, no rename and no backup. Renaming over ``/dev/null`` as
  root would replace the device with a regular file.
* The backup (``NAME.bak``) is made atomically as well: the old file's inode
  is hard-linked (or, where links are not possible, copied and flushed) under
  a temporary name and renamed to ``NAME.bak``, so a kill never leaves a torn
  backup and never destroys the previous good one.
* A read-only file is not replaced unless ``force`` is given: read-only as
  ``access()`` judges it for this process, and for root (whom ``access()``
  always allows) a file with no write bit.
* Savecraft creates the file (or the folder) it is asked to write, never the
  folders above it: a missing folder is an error, the same for every command.
* Every operating-system failure (missing folder, permission, read-only file
  system, disk full) becomes one :class:`WriteError`, whose text reads
  ``PATH: cannot write: REASON``; the old file is left byte-identical.
"""

from __future__ import annotations

import errno
import mmap
import os
import re
import shutil
import stat
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, BinaryIO

from .errors import SavecraftError
from . import limits
from .lazy import lazy_module

if TYPE_CHECKING:
    import socket
else:  # imported on first use (savecraft.lazy): only for writing into a Unix socket
    socket = lazy_module("socket")

PathLike = str | os.PathLike[str]

STDOUT = "-"
"""The name every command takes for standard output (``-o -``)."""

_STALE_AFTER = 60.0
"""Seconds after which a temporary file whose writer cannot be identified is stale."""

_TMP_RE = re.compile(r"^\.(?P<name>.+)\.(?:(?P<pid>\d+)-)?[A-Za-z0-9_]+\.tmp$")


class _Failure(SavecraftError, OSError):
    """An operating-system failure as one line, ``PATH: cannot VERB: REASON``.

    It is an ``OSError`` too (with the ``errno`` and ``strerror`` of the
    failure), so code that already handles operating-system failures (the
    game server's saves) goes on handling it.
    """

    VERB = ""

    def __init__(self, path: PathLike, reason: str, errno_: int | None = None) -> None:
        super().__init__(f"{os.fspath(path)}: cannot {self.VERB}: {reason}")
        self.errno = errno_
        self.strerror = reason
        self.filename = os.fspath(path)
        self.reason = reason

    @property
    def path(self) -> str:
        return str(self.filename)

    def __str__(self) -> str:
        return str(self.args[0])


class WriteError(_Failure):
    """An output could not be written; ``str()`` is ``PATH: cannot write: REASON``."""

    VERB = "write"


class ReadError(_Failure):
    """An input could not be read; ``str()`` is ``PATH: cannot read: REASON``."""

    VERB = "read"


@dataclass(frozen=True)
class Written:
    """Where a write landed.

    ``path`` is what was written (the link's target when the name was a
    link); ``backup`` the ``.bak`` made first, if any; ``stream`` is true when
    the bytes went straight into a FIFO, device, socket or standard output.
    """

    path: Path
    size: int
    backup: Path | None = None
    stream: bool = False

    @property
    def to_stdout(self) -> bool:
        return self.stream and str(self.path) == STDOUT


def _reason(exc: OSError) -> str:
    if exc.errno in (errno.EFBIG, errno.ENOSPC, errno.EDQUOT):
        return f"{os.strerror(exc.errno)} (the old file is unchanged)"
    return exc.strerror or str(exc)


# -- reading ---------------------------------------------------------------------------


MAP_FROM = 1 << 20
"""The size from which the parsing paths (``load``, ``validate``, the commands) map a file."""

_CHUNK = 1 << 20


def _buffer(source: object) -> memoryview | None:
    """A view of ``source`` when it already holds the bytes (bytes, bytearray, mmap, array...).

    Anything with the buffer protocol is input, not a name: the commands map
    a large file and hand the map on to the library (``validate`` of a map
    used to be taken for a path and fail with a TypeError).
    """
    if isinstance(source, str | os.PathLike):
        return None
    try:
        return memoryview(source)  # type: ignore[arg-type]
    except TypeError:
        return None


def _read_stream(fh: BinaryIO, name: PathLike) -> bytes:
    """Everything a stream (stdin, a FIFO, a device) gives, up to the ``stream`` cap.

    A stream has no size to check first and may never end (``/dev/zero``,
    ``yes | savecraft validate -``): read it a chunk at a time and stop one
    byte past the cap with an error that names the variable raising it,
    instead of reading until memory runs out.
    """
    cap = limits.get("stream")
    chunks: list[bytes] = []
    total = 0
    while True:
        piece = fh.read(min(_CHUNK, cap + 1 - total))
        if not piece:
            break
        chunks.append(piece)
        total += len(piece)
        if total > cap:
            lim = limits.LIMITS["stream"]
            raise ReadError(name, f"it is a stream of more than {cap} bytes (the limit for input that is "
                            f"not a regular file; raise it with {lim.env})")
    return b"".join(chunks)


def read_input(source: PathLike | bytes | bytearray | memoryview | mmap.mmap, *,
               map_from: int | None = None) -> Any:
    """The bytes of a file (or the bytes given); :class:`ReadError` when it cannot be read.

    With ``map_from``, a regular file of that many bytes or more comes
    back as a read-only ``mmap`` (only the pages a codec touches are read:
    a 1 GiB file that fails at offset 0x20 costs what 0x20 bytes cost, not
    three times its size), and bytes-like input (a map included) as it
    is, uncopied. Every codec parses either; callers that compare or keep
    the bytes ask for plain ``bytes`` (the default).

    Input that is not a regular file (``-`` for standard input, a FIFO,
    ``/dev/zero``) is read up to the ``stream`` cap of :mod:`savecraft.limits`
    (``SAVECRAFT_MAX_STREAM``), never without end.
    """
    if not isinstance(source, str | os.PathLike):
        if map_from is not None and _buffer(source) is not None:
            return source
        view = _buffer(source)
        if view is None:
            raise TypeError(f"read_input takes a path or bytes, not {type(source).__name__}")
        return source if type(source) is bytes else view.tobytes()
    if os.fspath(source) == STDOUT:
        try:
            return _read_stream(sys.stdin.buffer, "-")
        except OSError as exc:
            raise ReadError("-", exc.strerror or str(exc), exc.errno) from None
    try:
        with open(source, "rb") as fh:
            st = os.fstat(fh.fileno())
            if not stat.S_ISREG(st.st_mode):
                return _read_stream(fh, source)
            if map_from is not None and st.st_size >= max(map_from, 1):
                return mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
            return fh.read()
    except IsADirectoryError:
        raise ReadError(source, "it is a folder, not a file") from None
    except ReadError:
        raise
    except OSError as exc:
        if exc.errno == errno.ENOMEM:  # the map refused under an address-space limit
            raise MemoryError(f"{os.fspath(source)}: cannot map: {exc.strerror}") from None
        raise ReadError(source, exc.strerror or str(exc), exc.errno) from None


def release_pages(source: object) -> None:
    """Let go of the resident pages of the mapped file ``source`` is a view of (if it is one).

    A codec that has inflated a mapped file's stream reads only the
    inflated bytes afterwards, but the map's pages stay resident and count
    against memory (a stored save: the file's size again, on top of what it
    decodes to). They are clean pages of a read-only file map: dropping
    them loses nothing, and a later read faults them back from the page cache.
    """
    owner = source.obj if isinstance(source, memoryview) else source
    if isinstance(owner, mmap.mmap) and hasattr(mmap, "MADV_DONTNEED"):
        try:
            owner.madvise(mmap.MADV_DONTNEED)
        except (OSError, ValueError):  # a closed map, or a system that refuses: only memory is at stake
            pass


# -- writing ---------------------------------------------------------------------------


def is_stream(path: PathLike) -> bool:
    """True for ``-`` and for names that are not regular files but take bytes written into them."""
    name = os.fspath(path)
    if name == STDOUT:
        return True
    try:
        mode = os.stat(name).st_mode  # follows links, including /dev/stdout -> /proc/self/fd/1
    except OSError:
        return False
    if stat.S_ISREG(mode):
        # /dev/stdout redirected to a file: write into the open descriptor, do not
        # replace the file the shell holds open under the user's feet.
        return os.path.realpath(name).startswith("/proc/") or name.startswith("/dev/fd/") \
            or name in ("/dev/stdout", "/dev/stderr")
    return not stat.S_ISDIR(mode)


def _write_stream(path: PathLike, data: bytes, out: BinaryIO | None) -> Written:
    name = os.fspath(path)
    try:
        if name == STDOUT:
            target = out if out is not None else sys.stdout.buffer
            target.write(data)
            target.flush()
        elif stat.S_ISSOCK(os.stat(name).st_mode):
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
                sock.connect(name)
                sock.sendall(data)
        else:
            with open(name, "wb") as fh:  # a FIFO blocks here until someone reads it
                fh.write(data)
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise WriteError(name, _reason(exc), exc.errno) from None
    return Written(Path(name), len(data), stream=True)


def _shared_folder(st: os.stat_result) -> bool:
    """A sticky, world-writable folder (``/tmp``): anyone may plant a name in it."""
    return bool(st.st_mode & stat.S_ISVTX) and bool(st.st_mode & stat.S_IWOTH)


def _resolve(dest: Path) -> Path:
    """The real file a name stands for: links followed, even a link whose target does not exist yet.

    Links are followed only where the kernel's ``protected_symlinks`` rule
    would follow them: a link in a sticky world-writable folder (``/tmp``)
    must belong to the writer or to the folder's owner. Otherwise another
    user could plant ``/tmp/out.sav -> /etc/passwd`` and have root's write
    land on it; the kernel refuses that for ``open()``, but a rename over the
    link's resolved target would not be stopped by it, so the rule is
    applied here, to every link on the way.
    """
    name = os.fspath(dest)
    current = "/" if name.startswith("/") else os.getcwd()
    pending = name.split("/")
    pending.reverse()
    euid = os.geteuid()
    hops = 0
    while pending:
        part = pending.pop()
        if part in ("", "."):
            continue
        if part == "..":
            current = os.path.dirname(current)
            continue
        candidate = os.path.join(current, part)
        try:
            st = os.lstat(candidate)
        except OSError:
            current = candidate
            continue
        if not stat.S_ISLNK(st.st_mode):
            current = candidate
            continue
        hops += 1
        if hops > 40:
            raise WriteError(dest, "too many levels of symbolic links")
        try:
            folder = os.stat(current)
        except OSError as exc:
            raise WriteError(dest, _reason(exc), exc.errno) from None
        if _shared_folder(folder) and st.st_uid not in (euid, folder.st_uid):
            raise WriteError(dest, f"{candidate} is a symbolic link owned by another user (uid "
                             f"{st.st_uid}) in the shared folder {current}; the system does not "
                             "follow such links (protected_symlinks), and neither does savecraft")
        try:
            target = os.readlink(candidate)
        except OSError as exc:
            raise WriteError(dest, _reason(exc), exc.errno) from None
        if target.startswith("/"):
            current = "/"
        pending.extend(reversed(target.split("/")))
    return Path(current)


def _tmp_name(dest: Path, tag: str = "") -> Path:
    return dest.with_name(f".{dest.name}{tag}.{os.getpid()}-{os.urandom(4).hex()}.tmp")


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists but is not ours
        return True
    return True


def clean_stale(dest: PathLike) -> list[Path]:
    """Remove the temporary files a killed write to ``dest`` left behind; returns them.

    A temporary file names its writer's process id; it is stale when that
    process is gone. Names without one (older savecraft) are stale after a minute.
    """
    dest = Path(dest)
    return _clean_stale_in(dest.parent, {dest.name})


def _clean_stale_in(folder: Path, names: set[str]) -> list[Path]:
    """:func:`clean_stale` for every file of ``names`` in ``folder``, in one look at the folder
    (a look per file made writing 9,000 files quadratic)."""
    removed: list[Path] = []
    wanted = names | {n + ".bak" for n in names}
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    now = time.time()
    for entry in entries:
        if not entry.name.endswith(".tmp") or not entry.name.startswith("."):
            continue
        m = _TMP_RE.match(entry.name)
        if m is None or m.group("name") not in wanted:
            continue
        pid = m.group("pid")
        try:
            if pid is not None:
                if _alive(int(pid)):
                    continue
            elif now - entry.stat(follow_symlinks=False).st_mtime < _STALE_AFTER:
                continue
            os.unlink(entry.path)
            removed.append(Path(entry.path))
        except OSError:
            continue
    return removed


def _unlink_quietly(path: Path) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


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


def _write_new(tmp: Path, data: bytes, mode: int, owner: tuple[int, int] | None = None,
               *, flush: bool = True) -> None:
    """The new bytes in a file of their own, flushed, with the old file's owner, group and mode.

    The file is made 0600 and only widened once it holds its owner: a key
    or a save is never readable by others for a moment, even if killed here.
    ``chown`` comes before ``chmod`` because it clears set-id bits.
    """
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "wb") as fh:
        os.fchmod(fh.fileno(), 0o600)  # whatever the umask left
        fh.write(data)
        fh.flush()
        if flush:  # write_files flushes its many files together
            os.fsync(fh.fileno())
        if owner is not None and owner != (-1, -1):
            os.fchown(fh.fileno(), *owner)
        os.fchmod(fh.fileno(), mode)


def _owner_to_keep(st: os.stat_result) -> tuple[int, int] | None:
    """The ``fchown`` arguments that give the new file the old one's owner and group.

    ``None`` when this writer may not: another user's file is refused rather
    than silently made the writer's. A group the writer is not in is left to
    the folder (a setgid folder gives it back by itself).
    """
    euid = os.geteuid()
    if euid == 0:
        return st.st_uid, st.st_gid
    if st.st_uid != euid:
        return None
    return -1, st.st_gid if st.st_gid in (os.getegid(), *os.getgroups()) else -1


def _other_links(real: Path, st: os.stat_result) -> int:
    """The file's hard links other than its own name and savecraft's own backup links.

    A write with a backup links the old file as ``NAME.bak`` before the
    rename: a kill in between leaves ``NAME`` and ``NAME.bak`` one file, which
    is savecraft's doing and no one else's link.
    """
    try:
        st = os.stat(real)  # again: clean_stale may just have removed a killed write's backup link
    except OSError:
        return 0
    ours = 0
    try:
        with os.scandir(real.parent) as entries:
            for entry in entries:
                if entry.name == f"{real.name}.bak" or (
                        entry.name.startswith(f".{real.name}.bak.") and entry.name.endswith(".tmp")):
                    try:
                        if entry.inode() == st.st_ino:
                            ours += 1
                    except OSError:
                        continue
    except OSError:
        pass
    return max(0, st.st_nlink - 1 - ours)


def _read_only(real: Path, st: os.stat_result) -> bool:
    """Read-only as the system judges it for this process (``access``), and, for root, whom
    ``access`` always allows, a file with no write bit at all, as editors warn."""
    kwargs: dict[str, bool] = {"effective_ids": True} if os.access in os.supports_effective_ids else {}
    if not os.access(real, os.W_OK, **kwargs):
        return True
    return not st.st_mode & 0o222


def _backup(real: Path) -> Path:
    """Keep the current ``real`` as ``real.bak``, atomically: the old good backup survives a kill."""
    bak = real.with_name(real.name + ".bak")
    tmp = _tmp_name(real, ".bak")
    try:
        try:
            os.link(real, tmp)  # the old inode itself: no copy, nothing to tear
        except OSError:
            shutil.copy2(real, tmp)
            with open(tmp, "rb+") as fh:
                os.fsync(fh.fileno())
        os.replace(tmp, bak)
    except BaseException:
        _unlink_quietly(tmp)
        raise
    return bak


def _umask_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


@dataclass
class _Plan:
    """Where one write goes, checked by the rules above before a byte is written."""

    dest: Path
    real: Path
    folder: Path
    existed: bool
    owner: tuple[int, int] | None
    mode: int
    tmp: Path


def _plan(name: str, force: bool, mode: int | None, *, clean: bool = True) -> _Plan:
    dest = Path(name)
    real = _resolve(dest)  # refuses a planted link before anything is opened through it
    folder = real.parent
    try:
        st: os.stat_result | None = os.stat(real)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise WriteError(dest, _reason(exc), exc.errno) from None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise WriteError(dest, "it is a folder")
    if not folder.is_dir():
        raise WriteError(dest, f"the folder {folder} does not exist" if not folder.exists()
                         else f"{folder} is not a folder")
    if st is not None and not force and _read_only(real, st):
        raise WriteError(dest, "the file is read-only (use --force to replace it)")
    if clean:
        clean_stale(real)
    owner: tuple[int, int] | None = None
    if st is not None:
        links = _other_links(real, st)
        if links:
            raise WriteError(dest, f"the file has {links} other hard link(s); replacing it would "
                             "leave them with the old bytes and writing into it could tear it "
                             "(write to a new name, or remove the other links)")
        owner = _owner_to_keep(st)
        if owner is None:
            raise WriteError(dest, f"the file belongs to another user (uid {st.st_uid}); a "
                             "replacement written by this user could not keep that owner")
    if mode is None:
        mode = stat.S_IMODE(st.st_mode) if st is not None else _umask_mode()
    return _Plan(dest, real, folder, st is not None, owner, mode, _tmp_name(real))


def write_file(path: PathLike, data: bytes, *, backup: bool = False, force: bool = False,
               stdout: BinaryIO | None = None, mode: int | None = None) -> Written:
    """Write ``data`` where ``path`` says, by the rules in this module's docstring.

    ``stdout`` replaces ``sys.stdout.buffer`` for ``-`` (tests, embedding).
    ``mode`` is the new file's mode whatever the old one's or the umask
    (``0o600`` for a private key: it is never wider, not even for a moment).
    Raises :class:`WriteError` for every operating-system failure.
    """
    if not isinstance(data, bytes | bytearray | memoryview):
        raise TypeError(f"write_file takes bytes, not {type(data).__name__}")
    name = os.fspath(path)
    if name == "":
        raise WriteError(name, "an empty file name")
    if name == STDOUT or is_stream(name):
        if name != STDOUT:
            _resolve(Path(name))  # a planted link to a device is refused all the same
        return _write_stream(name, bytes(data), stdout)
    plan = _plan(name, force, mode)
    made_backup: Path | None = None
    try:
        _write_new(plan.tmp, bytes(data), plan.mode, plan.owner)
        if backup and plan.existed:
            made_backup = _backup(plan.real)
        os.replace(plan.tmp, plan.real)
    except OSError as exc:
        _unlink_quietly(plan.tmp)
        raise WriteError(plan.dest, _reason(exc), exc.errno) from None
    except BaseException:
        _unlink_quietly(plan.tmp)
        raise
    _fsync_dir(plan.folder)
    return Written(plan.real, len(data), made_backup)


def write_files(items: Iterable[tuple[PathLike, bytes]], *, force: bool = False) -> list[Written]:
    """Write many files (an extract folder's thousands of parts) by the same rules as
    :func:`write_file`, each atomic, but flushed to disk together: every new file is written
    under its temporary name, the file system is flushed once (``syncfs``; where there is none,
    each file), and only then is each renamed into place and each folder flushed once.
    A failure before the renames leaves every old file as it was; the files are named in the
    order given. (One flush per file, as :func:`write_file` does, took 3 minutes for the
    9,000 users of a server's save.)"""
    plans: list[_Plan] = []
    sizes: list[int] = []
    done = 0
    todo = list(items)
    try:
        for path, data in todo:
            name = os.fspath(path)
            if name == "" or name == STDOUT or is_stream(name):
                raise WriteError(name, "not a file of a folder (write_files writes files)")
            plans.append(_plan(name, force, None, clean=False))
            sizes.append(len(data))
        by_folder: dict[Path, set[str]] = {}
        for plan in plans:
            by_folder.setdefault(plan.folder, set()).add(plan.real.name)
        for folder, names in by_folder.items():
            _clean_stale_in(folder, names)
        for plan, (_, data) in zip(plans, todo):
            _write_new(plan.tmp, bytes(data), plan.mode, plan.owner, flush=False)
        _flush_all([p.tmp for p in plans])
        for plan in plans:
            os.replace(plan.tmp, plan.real)
            done += 1
    except OSError as exc:
        for plan in plans[done:]:
            _unlink_quietly(plan.tmp)
        failed = plans[min(done, len(plans) - 1)].dest if plans else Path(".")
        raise WriteError(failed, _reason(exc), exc.errno) from None
    except BaseException:
        for plan in plans[done:]:
            _unlink_quietly(plan.tmp)
        raise
    for folder in dict.fromkeys(p.folder for p in plans):
        _fsync_dir(folder)
    return [Written(p.real, n, None) for p, n in zip(plans, sizes)]


def _flush_all(paths: list[Path]) -> None:
    """Every file's bytes on disk: one ``syncfs`` per file system, else an fsync per file."""
    if not paths:
        return
    syncfs = _syncfs()
    if syncfs is not None:
        seen: set[int] = set()
        for path in paths:
            dev = os.stat(path).st_dev
            if dev in seen:
                continue
            fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
            try:
                if syncfs(fd) != 0:
                    break  # fall back to one fsync per file
            finally:
                os.close(fd)
            seen.add(dev)
        else:
            return
    for path in paths:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _syncfs() -> Any:
    """The C library's ``syncfs`` (Linux), or None."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).syncfs
    except (OSError, AttributeError):
        return None


def atomic_write(path: PathLike, data: bytes, *, backup: bool = False) -> Path:
    """:func:`write_file` for callers that want one path back: the backup's if made, else the file's."""
    written = write_file(path, data, backup=backup)
    return written.backup if written.backup is not None else Path(path)


def ensure_dir(path: PathLike, *, parents: bool = False) -> Path:
    """Create the folder ``path`` (not the folders above it, by the one rule); fine if it exists.

    ``parents`` is for savecraft's own places, never a path a person named: the
    default cache under ``~/.cache`` is made whole, as every tool makes its own.
    """
    p = Path(path)
    try:
        p.mkdir(parents=parents, exist_ok=True)
    except FileNotFoundError:
        raise WriteError(p, f"the folder {p.parent} does not exist") from None
    except FileExistsError:
        raise WriteError(p, "it exists and is not a folder") from None
    except OSError as exc:
        raise WriteError(p, exc.strerror or str(exc)) from None
    return p
