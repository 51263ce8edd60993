"""``savecraft demo``: make sample files of every format and show what savecraft sees in them.

Each format contributes a step to :data:`STEPS` (a function that writes its
samples into the folder and returns their paths); the demo then runs
``info`` and ``validate`` on each one, as a user would.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Any
from .. import api
from ..fileio import ensure_dir
from .files import cmd_info
from ..cli import main


# "module:function" of each demo step, in the order they run.
STEPS = (
    "savecraft.formats.tirnanog.save.demo:write_samples",
    "savecraft.formats.tirnanog.game.demo:write_samples",
    "savecraft.formats.angband.demo:write_samples",
    "savecraft.formats.qfg5.demo:write_samples",
    "savecraft.net.demo:write_samples",
)


def load_step(spec: str) -> Callable[[Path], list[Path]]:
    """The function a ``module:function`` entry of :data:`STEPS` names."""
    name, _, fn = spec.partition(":")
    step: Callable[[Path], list[Path]] = getattr(importlib.import_module(name), fn)
    return step


def _steps() -> list[Callable[[Path], list[Path]]]:
    return [load_step(spec) for spec in STEPS]


def cmd_demo(args: argparse.Namespace) -> int:
    folder = ensure_dir(args.output)
    print(f"savecraft demo: writing samples to {folder}/")
    status = 0
    shown: list[Path] = []
    for step in _steps():
        for path in step(folder):
            shown.append(path)
            print()
            cmd_info(argparse.Namespace(file=str(path), json=False, format=None, all=False))
            data = path.read_bytes()
            result = api.validate(data)
            print(f"  validate: {'ok' if result.ok else f'{len(result.problems)} problems'}")
            for p in result.problems:
                print(f"    {p}")
            # The model validate read is the one to rebuild: a file with problems fails anyway.
            roundtrip = result.ok and api.build(result.model) == data
            print(f"  rebuilt byte for byte: {'yes' if roundtrip else 'NO'}")
            if not (result.ok and roundtrip):
                status = 1
    print("\nSee every field and byte of these files in the browser (the studio):")
    print("  savecraft studio " + " ".join(shlex.quote(str(p)) for p in shown))
    command = f"savecraft sql {shlex.quote(SQL_QUESTION)} {shlex.quote(str(folder))}/"
    print("\nAsk all of them a question at once:\n  " + command)
    if importlib.util.find_spec("duckdb") and importlib.util.find_spec("pyarrow"):
        main(["sql", SQL_QUESTION, f"{folder}/"])
    else:  # the tables engines are an extra: the demo says how to get them
        print("  (needs the tables extra: python3 -m pip install -e '.[tables]')")
    if status == 0:
        print(f"\nEvery file in {folder}/ validates: savecraft validate {shlex.quote(str(folder))}/")
    return status


# The first question the demo suggests asking of its files with `savecraft sql`.
SQL_QUESTION = "SELECT name, race, class, level, gold FROM characters"




def register(sub: Any) -> None:
    p = sub.add_parser("demo", help="write sample files of every format and show them")
    p.add_argument("-o", "--output", default="demo-out", help="folder for the samples (default demo-out)")
    p.set_defaults(func=cmd_demo)
