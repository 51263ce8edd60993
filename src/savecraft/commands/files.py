"""``info``, ``validate``, ``dump``, ``build`` and ``extract``: the same for every format."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any
import os
from functools import partial

from ..cli import EXIT_OK, EXIT_PROBLEM, EXIT_USAGE, UsageError
from ..errors import FormatError, SavecraftError
from ..fileio import ReadError
from . import output
from .argtypes import whole
from .. import api, console, registry
from ..errors import UnsupportedFormatError
from .. import fileio
from ..fileio import ensure_dir, read_input, write_file
from .argtypes import format_option
from ..lazy import lazy_module

# The JSON mapping is imported on first use: --help imports this module for its parsers only.
if TYPE_CHECKING:
    import concurrent.futures as concurrent_futures
    import glob

    import orjson

    from .. import jsonmap
else:  # imported on first use (savecraft.lazy): start-up does not need them (orjson: only
    # where JSON is written or read, --json and extract/build)
    orjson = lazy_module("orjson")
    concurrent_futures = lazy_module("concurrent.futures")
    glob = lazy_module("glob")
    jsonmap = lazy_module("savecraft.jsonmap")


def read_file(path: str, *, mapped: bool = False) -> Any:
    """A command's input; ``mapped`` (for reading only, never comparing) maps a large file."""
    try:
        return read_input(path, map_from=fileio.MAP_FROM if mapped else None)
    except ReadError as exc:
        raise UsageError(str(exc)) from None


def load_file(path: str, format: str | None = None, *, data: Any = None
              ) -> tuple[registry.Format, Any]:
    """The format and model of a command's input (``data``: its bytes, when already read)."""
    if data is None:
        data = read_file(path, mapped=True)  # parsed, never compared: a large file is mapped
    with console.busy(f"reading {path}", len(data)):
        return api.parse_format(data, format)


LIST_CAP = 20  # items of a list that ``info`` prints before "and N more" (``--all``: every one)


def _label(key: str) -> str:
    return key.removesuffix("_seconds").replace("_", " ")


def _value(key: str, v: Any) -> Any:
    """How a person reads a value of the JSON summary (docs/info-json.md): durations as h:mm:ss."""
    if key.endswith("_seconds") and isinstance(v, int):
        h, rest = divmod(v, 3600)
        return f"{h}:{rest // 60:02d}:{rest % 60:02d}"
    if isinstance(v, int) and not isinstance(v, bool) and (key.endswith("crc") or key == "unique_id"):
        return f"0x{v:X}"  # checksums and ids read as the hex the format's docs use
    if v is None:
        return "(none)"
    if isinstance(v, bool):
        return "yes" if v else "no"
    return v


def _capped(items: list[Any], cap: int | None) -> list[str]:
    shown = [str(x) for x in (items if cap is None else items[:cap])]
    if cap is not None and len(items) > cap:
        shown.append(f"and {len(items) - cap} more")
    return shown


def _text(value: Any, indent: str = "  ", cap: int | None = LIST_CAP) -> list[str]:
    lines = []
    if isinstance(value, dict):
        for k, v in value.items():
            if isinstance(v, dict | list) and v:
                if isinstance(v, list) and all(not isinstance(x, dict | list) for x in v):
                    lines.extend(_wrapped(f"{indent}{_label(k)}: ", _capped(v, cap), indent + "  "))
                    continue
                lines.append(f"{indent}{_label(k)}:")
                lines.extend(_text(v, indent + "  ", cap))
            else:
                lines.append(f"{indent}{_label(k)}: {_value(k, v) if v != [] else '(none)'}")
    elif isinstance(value, list):
        for v in (value if cap is None else value[:cap]):
            if isinstance(v, dict) and not any(isinstance(x, dict | list) for x in v.values()):
                lines.append(f"{indent}- " + ", ".join(f"{_label(k)} {_value(k, x)}" for k, x in v.items()))
            elif isinstance(v, dict | list):
                lines.extend(_text(v, indent + "  ", cap))
            else:
                lines.append(f"{indent}- {v}")
        if cap is not None and len(value) > cap:
            lines.append(f"{indent}- and {len(value) - cap} more")
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
    refused: FormatError | None = None
    damaged = False
    data = read_file(args.file, mapped=True)
    try:
        fmt, model = load_file(args.file, args.format, data=data)
    except UnsupportedFormatError as err:
        # A file recognised and refused may still say what it is (angband-legacy: its version):
        # the summary is printed, then the refusal, exit 1.
        model = getattr(err, "model", None)
        if model is None:
            raise
        fmt, refused = registry.for_model(model), err
    except FormatError as err:
        # A damaged file (cut short, a block past its end): what could be read is shown, then
        # where it stopped, exit 1, as the studio shows its readable blocks.
        fmt, model, summary = _salvage(data, args.format, err)
        refused, damaged = err, True
    if not damaged:
        summary = fmt.info(model)
    if args.json:
        doc = {"file": args.file, "format": fmt.name, "description": fmt.description, **summary}
        sys.stdout.buffer.write(orjson.dumps(doc, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE
                                             | orjson.OPT_NON_STR_KEYS))
        if refused is not None:
            sys.stdout.flush()
            raise refused
        return EXIT_OK
    cap = None if args.all else LIST_CAP
    head = f"{args.file}: {fmt.name} ({fmt.description})"
    if damaged:
        head += ", damaged: what could be read, then where it stopped"
    if console.use_color():
        print(console.sheet(head, summary, _label, _value, cap), end="")
    else:
        print(head)
        print("\n".join(_text(summary, cap=cap)))
    if refused is not None:
        sys.stdout.flush()
        raise refused
    return EXIT_OK


def _salvage(data: Any, format: str | None, err: FormatError) -> tuple[Any, Any, dict[str, Any]]:
    """The format, partial model and summary of a file that does not read to its end.

    Validation reads on past what it can (to the next block or chunk) and
    keeps the model it got; a format whose summary needs the parts that are
    missing leaves nothing to show, and the error stands alone.
    """
    result = api.validate(data, format)
    if result.model is None or result.format is None:
        raise err
    fmt = registry.get(result.format)
    try:
        summary = fmt.info(result.model)
    except Exception:  # a summary that needs what is missing: the error is all there is to say
        raise err from None
    return fmt, result.model, summary


# -- validate ---------------------------------------------------------------------------------

POOL_FROM = 8  # files; below this, starting worker processes costs more than it saves
_GLOB_CHARS = frozenset("*?[")


def expand_inputs(args: list[str]) -> list[str]:
    """Files, every file under a folder (recursively, sorted) and the matches of a glob, in order.

    A glob is expanded here too, for shells that do not (and for patterns
    quoted to get past the shell's argument limit: ``'saves/**/*.sav'``).
    """
    out: list[str] = []
    for arg in args:
        if arg != "-" and os.path.isdir(arg):
            found = []
            for root, dirs, files in os.walk(arg):
                dirs.sort()
                found += [os.path.join(root, f) for f in sorted(files)]
            if not found:
                raise UsageError(f"{arg}: a folder with no files in it")
            out += found
        elif _GLOB_CHARS & set(arg) and not os.path.exists(arg):
            matches = sorted(m for m in glob.glob(arg, recursive=True) if not os.path.isdir(m))
            if not matches:
                raise UsageError(f"{arg}: no file matches")
            out += matches
        else:
            out.append(arg)
    return out


def validate_one(path: str, format: str | None) -> dict[str, Any]:
    """One file's validation as plain data (what a worker process sends back)."""
    record: dict[str, Any] = {"file": path, "format": None, "ok": False, "problems": [], "notes": []}
    try:
        data = read_file(path, mapped=True)
    except UsageError as exc:
        record["error"] = str(exc)
        return record
    try:
        result = api.validate(data, format)
    except SavecraftError as exc:  # an unknown --format
        record["error"] = str(exc)
        return record
    record.update(format=result.format, ok=result.ok, notes=list(result.notes), problems=[
        {"severity": p.severity, "offset": p.offset, "path": p.path, "expected": p.expected,
         "found": p.found, "message": str(p)} for p in result.problems])
    return record


def _records(files: list[str], format: str | None, jobs: int | None) -> Any:
    """Each file's record, in the order given; across a process pool when there are many."""
    workers = jobs or os.cpu_count() or 1
    if len(files) < POOL_FROM or workers == 1 or "-" in files:
        for path in files:
            yield validate_one(path, format)
        return

    chunk = max(1, min(64, len(files) // (workers * 8)))
    with concurrent_futures.ProcessPoolExecutor(max_workers=workers) as pool:
        yield from pool.map(partial(validate_one, format=format), files, chunksize=chunk)


def cmd_validate(args: argparse.Namespace) -> int:
    files = expand_inputs(args.files)
    many = len(files) > 1
    status = EXIT_OK
    counts = {"ok": 0, "problems": 0, "unreadable": 0}
    out = sys.stdout
    with console.progress("validating", len(files) if many else None) as advance:
        for rec in _records(files, args.format, args.jobs):
            advance(1)
            path = rec["file"]
            if args.json:
                out.flush()
                sys.stdout.buffer.write(orjson.dumps(rec, option=orjson.OPT_APPEND_NEWLINE))
            if "error" in rec:
                if not args.json:
                    print(f"{path}: error: {rec['error']}", file=sys.stderr)
                status = EXIT_USAGE
                counts["unreadable"] += 1
                continue
            if not args.json:
                for p in rec["problems"]:
                    if p["severity"] == "warning" and args.quiet:
                        continue
                    if p["severity"] == "error":
                        print(f"{path}: {console.paint(p['message'], 'error')}")
                    else:
                        print(f"{path}: {console.paint('warning: ' + p['message'], 'warning')}")
                if args.verbose:
                    for note in rec["notes"]:
                        print(f"{path}: {console.paint('note: ' + note, 'note')}")
            if not rec["ok"]:
                status = max(status, EXIT_PROBLEM)  # an unreadable file's 2 stays 2
                counts["problems"] += 1
            else:
                counts["ok"] += 1
                if not args.json and (args.verbose or many):
                    print(f"{path}: {console.paint('ok', 'ok')} ({rec['format']})")
    if many and not args.json:
        summary = f"{len(files)} files: {counts['ok']} ok, {counts['problems']} with problems"
        if counts["unreadable"]:
            summary += f", {counts['unreadable']} unreadable"
        print(summary)
    return status


def cmd_dump(args: argparse.Namespace) -> int:
    fmt, model = load_file(args.file, args.format)
    size = Path(args.file).stat().st_size if args.file != "-" else 0
    with console.busy(f"dumping {args.file}", size, from_bytes=1 << 20):  # JSON: ~1 s per MiB saved
        output.write_pieces(args, args.output or "-",
                            jsonmap.dump_pieces(model, indent=not args.compact, confirm=args.confirm))
    return EXIT_OK


def cmd_build(args: argparse.Namespace) -> int:
    if args.input != "-" and Path(args.input).is_dir():
        model = _rebuild(Path(args.input))
    else:
        text = read_file(args.input)
        with console.busy(f"building from {args.input}", len(text), from_bytes=8 << 20):
            model = jsonmap.loads(text)  # a big dump is parsed piece by piece as it is decoded
            del text
    data = api.build(model)
    name = registry.for_model(model).name
    out = Path(args.output)
    if args.output != "-" and out.is_file() and out.read_bytes() == data:
        print(f"{args.output}: unchanged ({len(data)} bytes, {name})")
        return EXIT_OK
    output.write(args, args.output, data, backup=not args.no_backup, detail=name)
    return EXIT_OK


MANIFEST = "savecraft-extract.json"  # which format an extract folder holds, for 'build DIR'


def _rebuild(folder: Path) -> Any:
    """The model an extract folder describes (``savecraft build DIR``)."""
    try:
        manifest = orjson.loads((folder / MANIFEST).read_bytes())
        name = str(manifest["format"])
    except (OSError, orjson.JSONDecodeError, KeyError, TypeError):
        raise UsageError(f"{folder}: not a folder written by 'savecraft extract' (no readable "
                         f"{MANIFEST})") from None
    fmt = registry.get(name)
    if fmt.rebuild is None:
        raise UsageError(f"{folder}: {name} folders cannot be built back yet; "
                         "use 'savecraft dump' and 'savecraft build IN.json'")

    size = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
    with console.busy(f"building from {folder}", size, from_bytes=BUILD_DIR_BUSY_FROM):
        return fmt.rebuild(folder)


# build DIR reads one file per part: from this size it takes a second or more.
BUILD_DIR_BUSY_FROM = 8 << 20


def cmd_extract(args: argparse.Namespace) -> int:
    fmt, model = load_file(args.file, args.format)
    if fmt.extract is None:
        raise UsageError(f"{fmt.name} has nothing to extract beyond 'savecraft dump'")

    # No spinner here: a format whose extract takes long draws its own bar (a game's assets),
    # and rich allows one live display at a time.
    written = fmt.extract(model, ensure_dir(args.output))
    manifest = write_file(str(Path(args.output) / MANIFEST), orjson.dumps(
        {"format": fmt.name, "source": Path(args.file).name, "rebuild": fmt.rebuild is not None},
        option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE))
    if not args.quiet:
        size = manifest.size + sum(p.stat().st_size for p in written if p.is_file())
        print(f"wrote {args.output} ({output.plural(len(written) + 1, 'file')}, "
              f"{output.plural(size, 'byte')})", file=sys.stderr)
    return EXIT_OK


def _format_arg(p: argparse.ArgumentParser) -> None:
    format_option(p)


def register(sub: Any) -> None:
    p = sub.add_parser("info", help="the format and a summary of a file")
    p.add_argument("file")
    p.add_argument("--json", action="store_true", help="print the summary as JSON (docs/info-json.md)")
    p.add_argument("--all", action="store_true",
                   help=f"print every item of long lists (default: the first {LIST_CAP}, then 'and N more')")
    _format_arg(p)
    p.set_defaults(func=cmd_info)

    p = sub.add_parser("validate", help="list every problem in one or more files",
                       description="Validate files, every file under a folder, or the files a glob "
                       "matches. With more than one file, each gets a line (its problems, or ok) and a "
                       "summary follows; many files are validated in parallel, on every core.")
    p.add_argument("files", nargs="+", metavar="FILE", help="files, folders or globs ('-' for stdin)")
    p.add_argument("-v", "--verbose", action="store_true", help="also print notes, and ok for a single file")
    p.add_argument("-q", "--quiet", action="store_true", help="leave out warnings and the progress bar")
    p.add_argument("--json", action="store_true",
                   help="one JSON record per file and line: file, format, ok, problems, notes (and error)")
    p.add_argument("-j", "--jobs", type=whole(1, what="the number of worker processes"), default=None, metavar="N",
                   help="worker processes for many files (default: one per core)")
    _format_arg(p)
    p.set_defaults(func=cmd_validate)

    p = sub.add_parser("dump", help="the whole file as JSON")
    p.add_argument("file")
    output.add_output(p, help="write here instead of standard output ('-', the default)")
    p.add_argument("--compact", action="store_true", help="no indentation")
    p.add_argument("--confirm", action="store_true",
                   help="check the compression level the dump records against the whole compressed "
                   "stream (default: the first 64 KiB of matching output decides, which is all a "
                   "zlib-written file needs)")
    _format_arg(p)
    p.set_defaults(func=cmd_dump)

    p = sub.add_parser("build", help="the binary file from a JSON dump or an extract folder",
                       description="Build the file a JSON dump (savecraft dump) or an extract folder "
                       "(savecraft extract) describes, after any edits to them; byte for byte the "
                       "original when nothing was changed.")
    p.add_argument("input", metavar="IN.json|DIR", help="a JSON dump ('-' for stdin) or an extract folder")
    output.add_output(p, required=True, metavar="FILE",
                      help="the file to write ('-' for standard output)")
    p.add_argument("--no-backup", action="store_true",
                   help="overwrite FILE without keeping FILE.bak")
    p.set_defaults(func=cmd_build)

    p = sub.add_parser("extract", help="the parts of a file as ordinary files")
    p.add_argument("file")
    p.add_argument("-o", "--output", required=True, metavar="DIR",
                   help="the folder to write into (made if missing; the folders above it must exist)")
    output.add_quiet(p)
    _format_arg(p)
    p.set_defaults(func=cmd_extract)
