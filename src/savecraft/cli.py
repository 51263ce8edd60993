"""The ``savecraft`` command line: a thin shell over the library.

Subcommands live in modules listed in :data:`COMMANDS`; each module has a
``register(subparsers)`` that adds its parser and sets ``func``. Bad input of
any kind ends in one line on stderr and a non-zero exit, never a traceback:
exit 1 for a file with problems, 2 for usage errors and unreadable files.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from .errors import FormatError, SavecraftError

EXIT_OK = 0
EXIT_PROBLEM = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 70  # EX_SOFTWARE

# Modules that add subcommands, each with a register(subparsers).
COMMANDS = (
    "savecraft.commands.files",
    "savecraft.commands.edit",
    "savecraft.commands.tng",
    "savecraft.commands.script",
    "savecraft.commands.net",
    "savecraft.commands.demo",
    "savecraft.commands.hexdump",
    "savecraft.commands.studio",
)


class UsageError(SavecraftError):
    """Bad arguments or an unreadable file: exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        print(f"savecraft: error: {message}", file=sys.stderr)
        raise SystemExit(EXIT_USAGE)


def make_parser() -> argparse.ArgumentParser:
    from . import __version__

    parser = _Parser(prog="savecraft", description="Open, inspect, validate, edit and rewrite game files, byte for byte.")
    parser.add_argument("--version", action="version", version=f"savecraft {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for name in COMMANDS:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = make_parser()
    args = parser.parse_args(argv)
    try:
        result: int = args.func(args)
        return result
    except UsageError as exc:
        print(f"savecraft: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except FormatError as exc:
        where = getattr(args, "file", None) or getattr(args, "input", None)
        prefix = f"{where}: " if isinstance(where, str) else ""
        print(f"savecraft: error: {prefix}{exc}", file=sys.stderr)
        return EXIT_PROBLEM
    except SavecraftError as exc:
        print(f"savecraft: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("savecraft: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except MemoryError:
        print("savecraft: error: out of memory", file=sys.stderr)
        return EXIT_PROBLEM
    except Exception as exc:  # a bug of ours: still one line, with a way to see more
        if os.environ.get("SAVECRAFT_DEBUG"):
            raise
        print(f"savecraft: internal error: {type(exc).__name__}: {exc} "
              "(this is a bug in savecraft; SAVECRAFT_DEBUG=1 shows the traceback)", file=sys.stderr)
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
