"""The argparse types of numbers, the same for every command.

A whole number is read in decimal or, as the tool prints offsets, in hex
(``0x100``); its bounds are part of the type, so every command says the same
thing about a bad value.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any
from ..registry import names


def whole(low: int = 0, high: int | None = None, what: str = "the value") -> Callable[[str], int]:
    """An argparse type: a whole number from ``low`` (to ``high``), decimal or hex."""

    def parse(text: str) -> int:
        try:
            value = int(text, 0)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"not a whole number (decimal, or hex as 0x100): {text!r}") from None
        if value < low or (high is not None and value > high):
            bounds = f"{low} to {high}" if high is not None else f"{low} or more"
            raise argparse.ArgumentTypeError(f"{what} is {bounds}, not {value}")
        return value

    return parse


def format_option(parser: Any, what: str = "skip detection and read as this format") -> None:
    """``--format NAME``, the same for every command: its choices are the registry's format names."""
    parser.add_argument("--format", choices=names(), metavar="NAME",
                        help=f"{what}: {', '.join(names())} (default: detected from the content)")
