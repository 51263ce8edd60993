"""``savecraft repair``: say what is damaged, what mending it does and loses, and write it only when safe.

Each format mends what it knows (its registry ``repair`` hook: the Angband
block savefile's cut, overrunning, unreadable or mis-sized blocks and wrong
checksums). A format without one gets :func:`rebuild_repair`: read past what
its reader can (wrong checksums, sizes, counts), build again with its writer,
which recomputes them, and keep the result only when every value read
survives it. Either way the result is validated before anything is written,
and it is written only through :func:`savecraft.fileio.write_file`, to ``-o``
or over the file with ``--in-place`` (the old file kept as FILE.bak).
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from ..cli import EXIT_OK, EXIT_PROBLEM, UsageError
from . import output
from .argtypes import format_option
from .files import read_file
from .. import api, registry
from ..errors import FormatError, Report, UnsupportedFormatError
from ..registry import Repair

if TYPE_CHECKING:
    from ..registry import Format


def rebuild_repair(fmt: Format, data: bytes) -> Repair:
    """The generic repair: the format's own writer recomputes checksums, sizes and counts."""
    report = Report(strict=False)
    try:
        model = fmt.parse(data, report)
    except UnsupportedFormatError as err:
        return Repair(damage=[], refused=str(err))
    except FormatError as err:
        report.capture(err)
        model = None
    problems = [p for p in report.problems if p.severity == "error"]
    if not problems:
        return Repair()
    damage = [str(p) for p in problems]
    if model is None:
        return Repair(damage=damage, refused=f"the {fmt.name} reader cannot read past this damage, "
                      "and the format has no repair of its own")
    try:
        rebuilt = fmt.build(model)
        same = fmt.parse(rebuilt, Report(strict=True)) == model  # (a lazy part decodes here)
    except FormatError as err:
        return Repair(damage=damage, refused=f"building the file again from what was read fails: {err}")
    if not same:
        return Repair(damage=damage, refused="building the file again from what was read would not "
                      "keep every value read: there is no safe repair")
    return Repair(damage=damage, actions=[
        f"rebuild the file with the {fmt.name} writer, which recomputes every checksum, size and "
        "count from the values read (a byte changed under a checksum may have changed a value, "
        "which stays as it is)"], data=rebuilt)


def cmd_repair(args: argparse.Namespace) -> int:
    if args.file == "-" and args.in_place:
        raise UsageError("--in-place needs a file on disk")
    if not (args.output or args.in_place or args.dry_run):
        raise UsageError("say where the repaired file goes: -o OUT, --in-place, or --dry-run to "
                         "only see what would be done")
    if args.output and args.in_place:
        raise UsageError("-o and --in-place: choose one")
    data = bytes(read_file(args.file))
    fmt = registry.find(data, args.format)
    plan = fmt.repair(data) if fmt.repair is not None else rebuild_repair(fmt, data)
    name = args.file
    for line in plan.damage:
        print(f"{name}: damaged: {line}")
    if plan.refused:
        print(f"savecraft: error: {name}: cannot repair: {plan.refused}", file=sys.stderr)
        return EXIT_PROBLEM
    if plan.data is None:
        result = api.validate(data, fmt.name)
        if result.ok:
            print(f"{name}: nothing to repair ({fmt.name}: no damage found, the file validates)")
            return EXIT_OK
        first = next(p for p in result.problems if p.severity == "error")
        print(f"savecraft: error: {name}: cannot repair: savecraft finds damage it cannot mend: {first}",
              file=sys.stderr)
        return EXIT_PROBLEM
    for line in plan.actions:
        print(f"{name}: will: {line}")
    for line in plan.lost or ["nothing: every value savecraft read is kept"]:
        print(f"{name}: lost: {line}")
    check = api.validate(plan.data, fmt.name)
    if not check.ok:
        first = next(p for p in check.problems if p.severity == "error")
        print(f"savecraft: error: {name}: cannot repair: the mended file would still not validate: "
              f"{first}", file=sys.stderr)
        return EXIT_PROBLEM
    if args.dry_run:
        print(f"{name}: dry run, nothing written ({len(plan.data)} bytes would be, and they validate)")
        return EXIT_OK
    dest = args.output or args.file
    written = output.write(args, dest, plan.data, backup=bool(args.in_place))
    kept = f" (the damaged file is kept as {written.backup})" if written.backup else ""
    output.status(written, f"{dest}: {len(plan.data)} bytes written, repaired ({fmt.name}){kept}")
    return EXIT_OK


def register(sub: Any) -> None:
    p = sub.add_parser(
        "repair", help="mend a damaged file: say what is damaged, what is done and lost",
        description="Find the damage a format can mend (a block or part cut short or running past "
                    "the end, a wrong checksum, a size that disagrees with the data, a half-written "
                    "temporary file), say what mending does and what is lost, and write the result "
                    "only when it validates. Exit 1 when the file cannot be repaired safely, and why.")
    p.add_argument("file", metavar="FILE")
    output.add_output(p, help="write the repaired file here ('-' for standard output; default: none, "
                      "so --in-place or --dry-run is needed)")
    p.add_argument("--in-place", action="store_true",
                   help="replace FILE, keeping the damaged one as FILE.bak")
    p.add_argument("--dry-run", action="store_true", help="say what would be done; write nothing")
    format_option(p)
    p.set_defaults(func=cmd_repair)
