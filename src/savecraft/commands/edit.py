"""``edit`` and ``diff``: safe changes by field path, and comparison by field path.

Both are generic over the registry (see :mod:`savecraft.edit` and
:mod:`savecraft.diff`): a new format gets them by registering.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import api, console
from ..cli import EXIT_OK, EXIT_PROBLEM, EXIT_USAGE, UsageError
from ..errors import FormatError
from ..paths import PathError, split_assignment
from . import output
from .argtypes import format_option
from .files import read_file
from ..lazy import lazy_module

if TYPE_CHECKING:
    from .. import diff as diffing
    from .. import edit as editing
else:  # imported on first use (savecraft.lazy): the diff brings numpy, and --help imports this module
    diffing = lazy_module("savecraft.diff")
    editing = lazy_module("savecraft.edit")


def _refused(file: str, err: FormatError) -> int:
    print(f"savecraft: error: {file}: edit refused, nothing written:", file=sys.stderr)
    for problem in err.problems:
        print(f"  {problem}", file=sys.stderr)
    return EXIT_PROBLEM


def _finish(args: argparse.Namespace, edited: editing.Edited, what: list[str]) -> int:
    dest = args.output or args.file
    say = sys.stderr if dest == "-" else sys.stdout  # standard output may carry the file itself
    for line in what:
        print(f"{args.file}: {line}", file=say)
    if not edited.changed and not args.output:
        print(f"{args.file}: the file would not change; nothing written", file=say)
        return EXIT_OK
    output.write(args, dest, edited.data, backup=not args.no_backup, detail=edited.format)
    return EXIT_OK


def cmd_edit(args: argparse.Namespace) -> int:
    if args.file == "-":
        raise UsageError("edit needs a file on disk (it is rewritten in place or with -o)")
    data = read_file(args.file)
    if args.set:
        return _edit_set(args, data)
    return _edit_in_editor(args, data)


def _edit_set(args: argparse.Namespace, data: bytes) -> int:
    try:
        pairs = [split_assignment(item) for item in args.set]
    except PathError as exc:
        raise UsageError(f"--set {exc}; nothing written") from None
    try:
        edited = editing.edit_bytes(data, pairs, format=args.format, text=True)
    except PathError as exc:
        raise UsageError(f"{args.file}: {exc}; nothing written") from None
    except FormatError as err:
        return _refused(args.file, err)
    typed = [text for _, text in pairs] if len(pairs) == len(edited.changes) else []
    lines = []
    for k, (path, value) in enumerate(edited.changes):
        shown = diffing.show(value)
        # A value typed as info shows it (a date, a name, hex) is echoed beside the number stored.
        as_typed = typed[k].strip() if typed else ""
        also = f" ({as_typed})" if as_typed and isinstance(value, int) and as_typed != shown \
            and editing.parse_value(as_typed) != value else ""
        lines.append(f"set {path} = {shown}{also}")
    return _finish(args, edited, lines)


def _editor_command() -> list[str]:
    editor = os.environ.get("EDITOR") or os.environ.get("VISUAL") or "vi"
    try:
        cmd = shlex.split(editor)
    except ValueError as exc:
        raise UsageError(f"EDITOR={editor!r} cannot be split into a command: {exc}") from None
    if not cmd:
        raise UsageError("EDITOR is set but empty")
    return cmd


def _edit_in_editor(args: argparse.Namespace, data: bytes) -> int:
    text = editing.dump_for_editing(data, args.format)
    folder = Path(tempfile.mkdtemp(prefix="savecraft-edit-"))
    doc = folder / (Path(args.file).name + ".json")
    doc.write_bytes(text)
    cmd = _editor_command()
    try:
        status = subprocess.call([*cmd, str(doc)])
    except OSError as exc:
        shutil.rmtree(folder, ignore_errors=True)
        raise UsageError(f"cannot run the editor {cmd[0]!r}: {exc.strerror or exc}") from None
    if status != 0:
        shutil.rmtree(folder, ignore_errors=True)
        print(f"savecraft: error: {args.file}: the editor exited with status {status}; "
              "nothing written", file=sys.stderr)
        return EXIT_PROBLEM
    try:
        edited_text = doc.read_bytes()
    except OSError as exc:
        raise UsageError(f"{doc}: cannot read the edited dump: {exc.strerror or exc}") from None
    if edited_text == text:
        shutil.rmtree(folder, ignore_errors=True)
        print(f"{args.file}: no changes; nothing written")
        return EXIT_OK
    try:
        edited = editing.edit_dump(data, edited_text, format=args.format)
    except FormatError as err:
        status = _refused(args.file, err)
        print(f"savecraft: your edited dump is kept in {doc}", file=sys.stderr)
        return status
    shutil.rmtree(folder, ignore_errors=True)
    changes = diffing.diff(api.parse(data, args.format), edited.model).changes
    return _finish(args, edited, [str(c).strip() for c in changes[:50]]
                   + ([f"... and {len(changes) - 50} more changes"] if len(changes) > 50 else []))


def _which_fails(args: argparse.Namespace, blobs: list[tuple[str, bytes]]) -> tuple[str, FormatError] | None:
    for name, blob in blobs:
        try:
            api.parse(blob, args.format)
        except FormatError as err:
            return name, err
    return None


def cmd_diff(args: argparse.Namespace) -> int:
    if args.more:
        return _diff_series(args, [args.a, args.b, *args.more])
    a, b = read_file(args.a), read_file(args.b)
    try:
        with console.busy(f"comparing {args.a} and {args.b}", len(a) + len(b), from_bytes=4 << 20):
            result = diffing.diff_bytes(a, b, format=args.format, name_a=args.a, name_b=args.b)
    except FormatError as err:
        culprit = _which_fails(args, [(args.a, a), (args.b, b)])
        name, shown = culprit if culprit else (f"{args.a} or {args.b}", err)
        print(f"savecraft: error: {name}: {shown}", file=sys.stderr)
        return EXIT_USAGE
    if result.equal and a == b and args.format:
        api.parse(a, args.format)  # the same bytes, but are they that format at all?
    if args.json:
        sys.stdout.buffer.write(result.dumps())
    elif console.use_color() and result.same_format:
        print(console.paint(f"--- {args.a}", "header"))
        print(console.paint(f"+++ {args.b}", "header"))
        for c in result.changes:
            print(_coloured(c))
    else:
        for line in result.lines():
            print(line)
    return EXIT_OK if result.equal else EXIT_PROBLEM


def _diff_series(args: argparse.Namespace, files: list[str]) -> int:
    """``diff A B C ...``: each field that changed along the files, with its value in every one."""
    for f in files:
        read_file(f)  # an unreadable file: the usage error's one line, exit 2
    with console.busy(f"comparing {len(files)} files", 0):
        result = diffing.series_files(files, format=args.format)
    if args.json:
        sys.stdout.buffer.write(result.dumps())
    else:
        print(console.paint(" -> ".join(files), "header"))
        for line in result.lines():
            print(line)
    return EXIT_OK if result.equal else EXIT_PROBLEM


def _coloured(c: diffing.Change) -> str:
    """A change as git colours a diff: removed red, added green, the old value red, the new green."""
    if c.kind == "added":
        return console.paint(str(c), "added")
    if c.kind == "removed":
        return console.paint(str(c), "removed")
    if c.kind in ("changed", "encoding"):
        tag = " (encoding only)" if c.kind == "encoding" else ""
        return (f"  {console.paint(c.path or '(top)', 'hunk')}: {console.paint(diffing.show(c.old), 'removed')}"
                f" -> {console.paint(diffing.show(c.new), 'added')}{tag}")
    return console.paint(str(c), "hunk")


def register(sub: Any) -> None:
    p = sub.add_parser(
        "edit", help="change values by field path; only a valid file is written",
        description="Change values by field path (e.g. users[name=Brigid].entity.x=120), or, "
                    "without --set, edit the JSON dump in $EDITOR. Sizes, counts and checksums "
                    "are recomputed; an edit that leaves an invalid file is refused and nothing "
                    "is written.")
    p.add_argument("file", metavar="FILE")
    p.add_argument("--set", action="append", metavar="PATH=VALUE",
                   help="set one value (JSON when it parses as JSON, else text; an integer also in "
                   "hex, 0x2C); repeatable (default: none, and the JSON dump opens in $EDITOR)")
    output.add_output(p, help="write here instead of over FILE ('-' for standard output; default: "
                      "FILE itself)")
    p.add_argument("--no-backup", action="store_true", help="do not keep the old file as FILE.bak")
    format_option(p)
    p.set_defaults(func=cmd_edit)

    p = sub.add_parser(
        "diff", help="compare two files field by field, or a series of files (exit 0 same, 1 different)",
        description="A structural diff by field path: changed values, added, removed and moved "
                    "records (lists are matched by key: user name, block name, asset name). "
                    "With three files or more, a series: every field path that changed along "
                    "them, with its value in each file. "
                    "Exit status 0 when equal, 1 when different, 2 on trouble.")
    p.add_argument("a", metavar="A")
    p.add_argument("b", metavar="B")
    p.add_argument("more", nargs="*", metavar="C", help="more files: a series A -> B -> C ...")
    p.add_argument("--json", action="store_true", help="print the differences as JSON")
    format_option(p, "skip detection and read both as this format")
    p.set_defaults(func=cmd_diff)
