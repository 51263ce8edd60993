"""``info``, ``validate``, ``dump``, ``build`` and ``extract``: the same for every format."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import orjson

from .. import api, jsonmap, registry
from ..cli import EXIT_OK, EXIT_PROBLEM, EXIT_USAGE, UsageError
from ..fileio import ReadError, ensure_dir, read_input
from . import output


def read_file(path: str) -> bytes:
    try:
        return read_input(path)
    except ReadError as exc:
        raise UsageError(str(exc)) from None


def load_file(path: str, format: str | None = None) -> tuple[registry.Format, Any]:
    return api.parse_format(read_file(path), format)


def _text(value: Any, indent: str = "  ") -> list[str]:
    lines = []
    if isinstance(value, dict):
        for k, v in value.items():
            if isinstance(v, dict | list) and v:
                if isinstance(v, list) and all(not isinstance(x, dict | list) for x in v):
                    lines.extend(_wrapped(f"{indent}{k}: ", [str(x) for x in v], indent + "  "))
                    continue
                lines.append(f"{indent}{k}:")
                lines.extend(_text(v, indent + "  "))
            else:
                lines.append(f"{indent}{k}: {v if v != [] else '(none)'}")
    elif isinstance(value, list):
        for v in value:
            if isinstance(v, dict | list):
                lines.extend(_text(v, indent + "  "))
            else:
                lines.append(f"{indent}- {v}")
    return lines


def _wrapped(first: str, items: list[str], indent: str, width: int = 96) -> list[str]:
    """Comma-separated items over as many lines as they need."""
    lines, line = [], first
    for i, item in enumerate(items):
        piece = item + ("," if i < len(items) - 1 else "")
        if len(line) + len(piece) > width and line.strip() and line != first:
            lines.append(line.rstrip())
            line = indent
        line += piece + " "
    lines.append(line.rstrip())
    return lines


def cmd_info(args: argparse.Namespace) -> int:
    fmt, model = load_file(args.file, args.format)
    summary = fmt.info(model)
    if args.json:
        doc = {"file": args.file, "format": fmt.name, "description": fmt.description, **summary}
        sys.stdout.buffer.write(orjson.dumps(doc, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE))
    else:
        print(f"{args.file}: {fmt.name} ({fmt.description})")
        print("\n".join(_text(summary)))
    return EXIT_OK


def cmd_validate(args: argparse.Namespace) -> int:
    status = EXIT_OK
    for path in args.files:
        try:
            data = read_file(path)
        except UsageError as exc:
            print(f"{path}: error: {exc}", file=sys.stderr)
            status = EXIT_USAGE
            continue
        result = api.validate(data, args.format)
        for p in result.problems:
            if p.severity == "warning" and args.quiet:
                continue
            tag = "" if p.severity == "error" else "warning: "
            print(f"{path}: {tag}{p}")
        if args.verbose:
            for note in result.notes:
                print(f"{path}: note: {note}")
        if not result.ok:
            status = max(status, EXIT_PROBLEM)  # an unreadable file's 2 stays 2
        elif args.verbose:
            print(f"{path}: ok ({result.format})")
    return status


def cmd_dump(args: argparse.Namespace) -> int:
    _, model = load_file(args.file, args.format)
    text = jsonmap.dumps(model, indent=not args.compact)
    output.write(args, args.output or "-", text)
    return EXIT_OK


def cmd_build(args: argparse.Namespace) -> int:
    model = jsonmap.from_json(jsonmap.parse_text(read_file(args.input)))  # the text goes once parsed
    data = api.build(model)
    name = registry.for_model(model).name
    out = Path(args.output)
    if args.output != "-" and out.is_file() and out.read_bytes() == data:
        print(f"{args.output}: unchanged ({len(data)} bytes, {name})")
        return EXIT_OK
    written = output.write(args, args.output, data, backup=not args.no_backup)
    note = f"; the old file is kept as {written.backup}" if written.backup else ""
    output.status(written, f"{args.output}: {len(data)} bytes ({name}){note}")
    return EXIT_OK


def cmd_extract(args: argparse.Namespace) -> int:
    fmt, model = load_file(args.file, args.format)
    if fmt.extract is None:
        raise UsageError(f"{fmt.name} has nothing to extract beyond 'savecraft dump'")
    written = fmt.extract(model, ensure_dir(args.output))
    print(f"{args.file}: {len(written)} files written to {args.output}")
    return EXIT_OK


def _format_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--format", help="skip detection and read as this format")


def register(sub: Any) -> None:
    p = sub.add_parser("info", help="the format and a summary of a file")
    p.add_argument("file")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    _format_arg(p)
    p.set_defaults(func=cmd_info)

    p = sub.add_parser("validate", help="list every problem in one or more files")
    p.add_argument("files", nargs="+", metavar="FILE")
    p.add_argument("-v", "--verbose", action="store_true", help="also say which files are fine")
    p.add_argument("-q", "--quiet", action="store_true", help="leave out warnings")
    _format_arg(p)
    p.set_defaults(func=cmd_validate)

    p = sub.add_parser("dump", help="the whole file as JSON")
    p.add_argument("file")
    output.add_output(p, help="write here instead of standard output ('-', the default)")
    p.add_argument("--compact", action="store_true", help="no indentation")
    _format_arg(p)
    p.set_defaults(func=cmd_dump)

    p = sub.add_parser("build", help="the binary file from a JSON dump")
    p.add_argument("input", metavar="IN.json")
    output.add_output(p, required=True, metavar="FILE",
                      help="the file to write ('-' for standard output)")
    p.add_argument("--no-backup", action="store_true",
                   help="overwrite FILE without keeping FILE.bak")
    p.set_defaults(func=cmd_build)

    p = sub.add_parser("extract", help="the parts of a file as ordinary files")
    p.add_argument("file")
    p.add_argument("-o", "--output", required=True, metavar="DIR",
                   help="the folder to write into (made if missing; the folders above it must exist)")
    _format_arg(p)
    p.set_defaults(func=cmd_extract)
