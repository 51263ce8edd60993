"""Where a command gets a password from, so that it need not be on the command line.

An argument is visible to every user of the machine (``ps``), so the command
line offers, in this order: ``--password-file FILE`` (its first line), the
environment variable ``SAVECRAFT_PASSWORD``, ``--password`` (still accepted,
for tests and throw-away servers), then a prompt when standard input is a
terminal; otherwise the command's default, if it has one.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

from .errors import SavecraftError
from .lazy import lazy_module

if TYPE_CHECKING:
    import getpass
else:  # imported on first use (savecraft.lazy): start-up does not need them
    getpass = lazy_module("getpass")

ENV = "SAVECRAFT_PASSWORD"


def add_arguments(parser: argparse.ArgumentParser, default: str | None) -> None:
    """``--password``, ``--password-file``, and help that says where else a password comes from."""
    parser.add_argument("--password-file", metavar="FILE", default=None,
                        help=f"read the password from the first line of FILE ('-' for stdin); "
                        f"or set ${ENV} (default: ${ENV}, else --password)")
    shown = f"default: {default!r} when neither is given and there is no terminal to ask on" \
        if default is not None else "default: asked for on the terminal"
    parser.add_argument("--password", default=None,
                        help=f"the password itself (visible to other users in 'ps'; prefer "
                        f"--password-file or ${ENV}) ({shown})")


def resolve(args: argparse.Namespace, default: str | None, prompt: str = "password: ") -> str:
    """The password the options, the environment or the person give; SavecraftError when none."""
    path = getattr(args, "password_file", None)
    if path is not None:
        try:
            if path == "-":
                text = sys.stdin.readline()
            else:
                with open(path, encoding="utf-8") as fh:
                    text = fh.readline()
        except (OSError, UnicodeDecodeError) as exc:
            raise SavecraftError(f"{path}: cannot read the password: "
                                 f"{getattr(exc, 'strerror', None) or exc}") from None
        password = text.rstrip("\r\n")
        if not password:
            raise SavecraftError(f"{path}: the first line is empty, not a password")
        return password
    env = os.environ.get(ENV)
    if env:
        return env
    given: str | None = getattr(args, "password", None)
    if given is not None:
        return given
    if sys.stdin.isatty():
        return getpass.getpass(prompt)
    if default is None:
        raise SavecraftError(f"no password: give --password-file FILE or set ${ENV}")
    return default
