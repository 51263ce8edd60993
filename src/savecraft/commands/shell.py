"""``completion``: the shell completion script for bash, zsh or fish.

argcomplete writes the script; completing then runs ``savecraft`` itself
(with the ``_ARGCOMPLETE`` environment variable), so the completions always
match the commands and options of the installed version.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

SHELLS = ("bash", "zsh", "fish")


def cmd_completion(args: argparse.Namespace) -> int:
    from argcomplete.shell_integration import shellcode

    sys.stdout.write(shellcode(["savecraft"], shell=args.shell))
    return 0


def register(sub: Any) -> None:
    p = sub.add_parser("completion", help="print the shell completion script (bash, zsh or fish)",
                       description="Print the script that makes SHELL complete savecraft's commands, "
                       "options and file names. Install it where the shell looks (see the examples), "
                       "or load it for this session: eval \"$(savecraft completion bash)\".")
    p.add_argument("shell", choices=SHELLS, help="the shell to complete in")
    p.set_defaults(func=cmd_completion)
