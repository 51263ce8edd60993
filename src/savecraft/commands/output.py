"""Where commands put what they make: the one writer, ``-o -`` and ``--force`` for all of them.

Every command that writes a file takes ``-o PATH`` (``-`` for standard
output) and ``--force`` (replace a read-only file), and writes through
:func:`savecraft.fileio.write_file`, so a symlink, a FIFO, ``/dev/null`` or a
full disk behave the same whatever the command. Status lines go to standard
output, or to standard error when the data itself went there.

Every write says what it wrote, in one line on standard error (``wrote
FILE (N bytes)``), unless ``-q``: a command that prints nothing on success
leaves a person wondering whether it ran. Data written to standard output
is not announced (it is there to see).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterable
from typing import Any
import stat
from pathlib import Path

from ..fileio import STDOUT, WriteError, Written, is_stream, write_file


def add_output(p: argparse.ArgumentParser, *, required: bool = False, metavar: str = "OUT",
               help: str = "write here ('-' for standard output)") -> None:
    """``-o/--output`` and ``--force``, the same on every command that writes."""
    p.add_argument("-o", "--output", required=required, metavar=metavar, help=help)
    add_force(p)
    add_quiet(p)


def add_quiet(p: argparse.ArgumentParser) -> None:
    p.add_argument("-q", "--quiet", action="store_true",
                   help="do not say what was written (default: one line per file on standard error)")


def add_force(p: argparse.ArgumentParser) -> None:
    p.add_argument("--force", action="store_true",
                   help="replace the output even when it is a read-only file (default: refuse)")


def write(args: argparse.Namespace, path: str, data: bytes, *, backup: bool = False,
          detail: str | None = None) -> Written:
    """Write ``data`` to ``path`` by the command's ``--force``, and say so; see :mod:`savecraft.fileio`."""
    written = write_file(path, data, backup=backup, force=bool(getattr(args, "force", False)))
    wrote(args, path, written, detail)
    return written


def wrote(args: argparse.Namespace, path: str, written: Written, detail: str | None = None) -> None:
    """``wrote FILE (N bytes)`` on standard error, unless ``-q`` or the data went to standard output."""
    if getattr(args, "quiet", False) or written.to_stdout:
        return
    extra = f", {detail}" if detail else ""
    kept = f"; the old file is kept as {written.backup}" if written.backup else ""
    print(f"wrote {path} ({plural(written.size, 'byte')}{extra}){kept}", file=sys.stderr)


def plural(n: int, what: str) -> str:
    return f"{n:,} {what}{'' if n == 1 else 's'}"


def write_pieces(args: argparse.Namespace, path: str, pieces: Iterable[bytes]) -> Written:
    """Write text made in pieces (a dump): into a stream as they come, else whole, by the one writer.

    Standard output, a FIFO or a device never holds the whole text: a dump
    piped into ``jq`` costs the model, not the model and its text. A
    regular file is still replaced atomically by :func:`write_file` (the
    text joined first); a socket goes through it too.
    """
    name = os.fspath(path)
    if not is_stream(name) or (name != STDOUT and _is_socket(name)):
        return write(args, name, b"".join(pieces))
    size = 0
    try:
        if name == STDOUT:
            out = sys.stdout.buffer
            for piece in pieces:
                out.write(piece)
                size += len(piece)
            out.flush()
        else:
            with open(name, "wb") as fh:  # a FIFO blocks here until someone reads it
                for piece in pieces:
                    fh.write(piece)
                    size += len(piece)
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise WriteError(name, exc.strerror or str(exc), exc.errno) from None

    return Written(Path(name), size, stream=True)


def _is_socket(name: str) -> bool:
    try:
        return stat.S_ISSOCK(os.stat(name).st_mode)
    except OSError:
        return False


def status(written: Written | None, text: str, **kwargs: Any) -> None:
    """A status line, kept off standard output when standard output carries the data."""
    to_err = written is not None and written.to_stdout
    print(text, file=sys.stderr if to_err else sys.stdout, **kwargs)


def to_stdout(path: str | None) -> bool:
    return path is None or path == STDOUT
