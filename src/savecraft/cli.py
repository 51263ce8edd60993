"""The ``savecraft`` command line: a thin shell over the library.

Subcommands live in modules listed in :data:`COMMANDS`; each module has a
``register(subparsers)`` that adds its parsers and sets ``func``. Bad input of
any kind ends in one line on stderr and a non-zero exit, never a traceback:
exit 1 for a file with problems, 2 for usage errors and unreadable files.

Start-up time is most of a small command's time, so only the module of the
command being run is imported (:data:`COMMAND_MODULES` says which one that
is, without importing any); ``--help``, a mistyped command and shell
completion import them all.
"""

from __future__ import annotations

import argparse
import errno
import importlib
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .errors import FormatError, SavecraftError
from . import __version__, console
from .lazy import lazy_module

if TYPE_CHECKING:
    from . import compiled
    import textwrap
else:  # imported on first use (savecraft.lazy): start-up does not need them
    compiled = lazy_module("savecraft.compiled")
    textwrap = lazy_module("textwrap")

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
    "savecraft.commands.shell",
    "savecraft.commands.hexdump",
    "savecraft.commands.studio",
    "savecraft.commands.repair",
    "savecraft.commands.sql",
)

# Which module registers each command (a test keeps this in step with COMMANDS).
# A command missing here still works: its parser is then found by importing them all.
COMMAND_MODULES: dict[str, str] = {
    **dict.fromkeys(("info", "validate", "dump", "build", "extract"), "savecraft.commands.files"),
    **dict.fromkeys(("edit", "diff"), "savecraft.commands.edit"),
    **dict.fromkeys(("sections", "refs"), "savecraft.commands.tng"),
    **dict.fromkeys(("disasm", "asm", "render-map"), "savecraft.commands.script"),
    **dict.fromkeys(("serve", "play", "loadtest", "admin", "operators", "deny"),
                    "savecraft.commands.net"),
    "demo": "savecraft.commands.demo",
    "completion": "savecraft.commands.shell",
    "hexdump": "savecraft.commands.hexdump",
    "studio": "savecraft.commands.studio",
    "repair": "savecraft.commands.repair",
    **dict.fromkeys(("sql", "export"), "savecraft.commands.sql"),
}

# Two or three examples at the end of each command's --help.
EXAMPLES: dict[str, tuple[str, ...]] = {
    "hexdump": ("savecraft hexdump world.sav 'users[name=Brigid].entity'",
                "savecraft hexdump world.sav --at 0x2C", "savecraft hexdump game.tng --space sections --at 0x10"),
    "studio": ("savecraft studio world.sav", "savecraft studio a.sav b.sav --no-browser"),
    "info": ("savecraft info player.sav", "savecraft info world.tng --json",
             "savecraft info big.sav --all"),
    "validate": ("savecraft validate player.sav", "savecraft validate saves/ 'backup/*.sav' --json",
                 "savecraft validate -q --format qfg5-save SAVE001.sav"),
    "dump": ("savecraft dump player.sav -o player.json", "savecraft dump world.tng --compact | jq .data.header"),
    "build": ("savecraft build player.json -o player.sav", "savecraft build world/ -o world.tng",
              "savecraft build player.json -o - > copy.sav"),
    "extract": ("savecraft extract SAVE001.sav -o parts/", "savecraft extract world.tng -o world/"),
    "edit": ("savecraft edit player.sav --set users[0].name=Alice",
             "savecraft edit player.sav   # in $EDITOR"),
    "diff": ("savecraft diff old.sav new.sav --json",
             "savecraft diff day1.sav day2.sav day3.sav day4.sav   # a series",
             "savecraft diff a.tng b.tng --color=always | less -R"),
    "sections": ("savecraft sections world.tng", "savecraft sections world.tng --json"),
    "refs": ("savecraft refs world.tng", "savecraft refs world.tng --json"),
    "disasm": ("savecraft disasm script.bin", "savecraft disasm script.bin --game world.tng -o script.asm"),
    "asm": ("savecraft asm script.asm -o script.bin", "savecraft asm script.asm -o script.bin --game world.tng"),
    "render-map": ("savecraft render-map world.tng 0 -o map.png",
                   "savecraft render-map world.tng 0 -o map.png --tmx map.tmx --scale 0.5",
                   "savecraft render-map Aduial --known -o level.png"),
    "serve": ("savecraft serve world.tng --state server.sav --port 4000",
              "savecraft serve world.tng --state server.sav --port 4000 --admin 127.0.0.1 "
              "--metrics 127.0.0.1:9100 --backups 5"),
    "play": ("savecraft play 127.0.0.1 --port 4000 --name alice --password-file pw.txt",
             "SAVECRAFT_PASSWORD=secret savecraft play 127.0.0.1 --port 4000 --name alice"),
    "loadtest": ("savecraft loadtest 127.0.0.1 --port 4000 --clients 100 --rate 5 --duration 30",
                 "savecraft loadtest 127.0.0.1 --port 4000 --clients 2000 --rate 2 --duration 60 "
                 "--processes 2"),
    "admin": ("SAVECRAFT_ADMIN_TOKEN=sco_... savecraft admin 127.0.0.1:4001 status",
              "savecraft admin 127.0.0.1:4001 kick name=Brigid --token-file ~/.brigid.token"),
    "operators": ("savecraft operators server.sav.operators add brigid --role administrator",
                  "savecraft operators server.sav.operators list",
                  "savecraft operators server.sav.operators remove brigid"),
    "deny": ("savecraft deny world.tng --state server.sav list",
             "savecraft deny world.tng --state server.sav add 203.0.113.7"),
    "repair": ("savecraft repair PLAYER.new --dry-run", "savecraft repair Aralorn -o Aralorn.fixed",
               "savecraft repair Aralorn --in-place"),
    "sql": ("savecraft sql \"SELECT race, class, count(*), median(max_depth) FROM characters GROUP BY ALL "
            "ORDER BY 3 DESC\" saves/",
            "savecraft sql \"SELECT map, count(*) FROM tng_users GROUP BY map\" server.sav --to csv",
            "savecraft sql \"SELECT * FROM problems\" 'saves/**/*.sav' -o problems.parquet"),
    "export": ("savecraft export saves/ -o dataset/",
               "savecraft export saves/ -o dataset/ --table characters --table gear"),
    "demo": ("savecraft demo", "savecraft demo -o samples"),
    "completion": ("savecraft completion bash > ~/.local/share/bash-completion/completions/savecraft",
                   "savecraft completion zsh > ~/.zfunc/_savecraft",
                   "savecraft completion fish > ~/.config/fish/completions/savecraft.fish"),
}


class UsageError(SavecraftError):
    """Bad arguments or an unreadable file: exit status 2."""


def _has_default(action: argparse.Action) -> bool:
    """An option taking a value whose default is worth showing (0 is one: not ``in (None, False)``)."""
    d = action.default
    return action.nargs != 0 and d is not None and d is not False and d is not argparse.SUPPRESS


class _HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Keeps the examples' line breaks and shows every option's default."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        """Wrapped at spaces only: format names (``tirnanog-save``) are never split at their hyphen."""
        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        if text is argparse.SUPPRESS or "default" in text or "%(default)" in text:
            return action.help
        if action.option_strings and _has_default(action):
            text += (" " if text else "") + "(default: %(default)s)"
        return text


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _HelpFormatter)
        super().__init__(*args, **kwargs)

    def add_argument(self, *args: Any, **kwargs: Any) -> argparse.Action:
        action = super().add_argument(*args, **kwargs)
        if action.help is None and action.option_strings and _has_default(action):
            action.help = "(default: %(default)s)"  # an option without help still shows its default
        return action

    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        print(f"savecraft: error: {message}", file=sys.stderr)
        raise SystemExit(EXIT_USAGE)


class _SubParsers(argparse._SubParsersAction):  # type: ignore[type-arg]
    """Gives every command the options all commands share, and its examples."""

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser:
        examples = EXAMPLES.get(name)
        if examples and "epilog" not in kwargs:
            kwargs["epilog"] = "examples:\n" + "\n".join(f"  {e}" for e in examples)
        parser: argparse.ArgumentParser = super().add_parser(name, **kwargs)
        parser.add_argument("--color", choices=("auto", "always", "never"), default=argparse.SUPPRESS,
                            help="colour the output: auto means on a terminal unless NO_COLOR "
                            "is set (default: auto)")
        return parser


class _Version(argparse._VersionAction):
    """``--version``: the version, and which accelerated paths run (asked only then: the C
    extension is not imported to build the parser)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        self.version = f"{self.version}\n{compiled.status()}"
        super().__call__(parser, namespace, values, option_string)


def make_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser; with ``command``, only that command's module is imported."""
    parser = _Parser(prog="savecraft",
                     description="Open, inspect, validate, edit and rewrite game files, byte for byte.",
                     epilog="exit status: 0 ok, 1 a file with problems or files that differ, "
                     "2 usage errors and unreadable input")
    parser.add_argument("--version", action=_Version, version=f"savecraft {__version__}")
    parser.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                        help="colour the output: auto means on a terminal unless NO_COLOR is set")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser,
                                action=_SubParsers)
    sub.required = True
    modules = [COMMAND_MODULES[command]] if command in COMMAND_MODULES else COMMANDS
    for name in modules:
        importlib.import_module(name).register(sub)
    return parser


def _command_of(argv: Sequence[str]) -> str | None:
    """The command word of ``argv`` (the first word that is not an option), if any."""
    skip = False
    for word in argv:
        if skip:
            skip = False
            continue
        if word in ("-h", "--help"):
            return None
        if word == "--color":
            skip = True
            continue
        if not word.startswith("-"):
            return word
    return None


def main(argv: Sequence[str] | None = None) -> int:
    if argv is None and "_ARGCOMPLETE" in os.environ:  # a shell asking for completions
        import argcomplete

        argcomplete.autocomplete(make_parser())  # prints them and exits
    # numpy's OpenBLAS reserves a buffer per core when it loads, and under an address-space
    # limit it prints its own error and exits when it cannot: savecraft does no linear
    # algebra, so one thread (set before numpy is imported; a user's setting wins).
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = make_parser(_command_of(argv))
    args = parser.parse_args(argv)
    console.configure(color=getattr(args, "color", "auto"), quiet=bool(getattr(args, "quiet", False)))
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
    except MemoryError as exc:
        return _out_of_memory(str(exc))
    except OSError as exc:  # an operating-system failure outside the one writer: still one line
        if exc.errno == errno.ENOMEM:  # mmap, fork or a read refused for want of memory
            return _out_of_memory(exc.strerror or "")
        name = f"{exc.filename}: " if exc.filename else ""
        print(f"savecraft: error: {name}{exc.strerror or exc}", file=sys.stderr)
        return EXIT_USAGE
    except ImportError as exc:
        # A compiled module (numpy's) that cannot be mapped under an address-space limit.
        if "failed to map segment" in str(exc) or "Cannot allocate memory" in str(exc):
            return _out_of_memory(f"cannot load {exc.name or 'a compiled module'}")
        return _internal(exc)
    except Exception as exc:  # a bug of ours: still one line, with a way to see more
        return _internal(exc)


def _out_of_memory(detail: str) -> int:
    """Memory ran out anywhere in a command: one line and exit 1, as for a file too big to handle.

    It says what the limit was when there is one (``ulimit -v``), since
    that is what a person can raise.
    """
    said = [detail] if detail else []
    try:
        import resource  # (its own .so: loading it may fail too, with memory gone)

        soft = resource.getrlimit(resource.RLIMIT_AS)[0]
        if soft != resource.RLIM_INFINITY:
            said.append(f"the address-space limit (ulimit -v) is {soft >> 20} MiB")
    except (ImportError, MemoryError):
        pass
    print("savecraft: error: out of memory" + (f" ({'; '.join(said)})" if said else ""), file=sys.stderr)
    return EXIT_PROBLEM


def _internal(exc: BaseException) -> int:
    if os.environ.get("SAVECRAFT_DEBUG"):
        raise exc
    print(f"savecraft: internal error: {type(exc).__name__}: {exc} "
          "(this is a bug in savecraft; SAVECRAFT_DEBUG=1 shows the traceback)", file=sys.stderr)
    return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
