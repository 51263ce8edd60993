"""The tables every file has, the catalogue of all tables, and the decoding of one group of files.

The core names no format: it asks the registry's plugin table which module
describes each format's tables (:attr:`savecraft.registry.Plugin.tables`).
:func:`decode_group` is what a worker process (or a Dask or Spark task)
runs: it reads and validates each file once, and turns the result into rows
of the tables asked for. Nothing is skipped silently: a file that cannot be
read, or whose rows could not be made, is a row of ``problems``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Sequence
from typing import Any
import os

from .. import registry
from .schema import Table, col
from .. import api, paths
from ..errors import FormatError, Report
from ..fileio import MAP_FROM, read_input
from ..jsonmap import to_json
from ..speed import gc_paused

FILES = Table("files", None, "one per file given", (
    col("file", "string", "(input)", "the path as given or found under a folder or glob"),
    col("format", "string", "(detection)", "the format's registry name; null when not recognised"),
    col("game", "string", "(format)", "the game, variant or game id the file says it belongs to"),
    col("size", "int64", "(file)", "bytes; null when the file could not be read"),
    col("ok", "bool", "(validate)", "no problem of severity error"),
    col("errors", "int64", "(validate)"),
    col("warnings", "int64", "(validate)"),
))

PROBLEMS = Table("problems", None, "one per problem validate finds, or per file that cannot be read", (
    col("file", "string", "(input)"),
    col("offset", "int64", "(validate)", "byte offset in the file; null when it has none"),
    col("path", "string", "(validate)", "the field path of the problem, as dump and edit name it"),
    col("severity", "string", "(validate)", "error or warning"),
    col("expected", "string", "(validate)"),
    col("found", "string", "(validate)"),
    col("message", "string", "(validate)", "the whole line validate prints"),
))

FIELDS = Table("fields", None, "one per leaf value of the file's dump", (
    col("path", "string", "(dump)", "the leaf's path in `savecraft dump`'s data (blocks[3].au)"),
    col("value", "string", "(dump)", "the value as the dump writes it (text; null for null)"),
    col("number", "double", "(dump)", "the value when it is a number, else null"),
))

CORE = (FILES, PROBLEMS, FIELDS)
ALWAYS = ("files", "problems")  # made on every run: the exit status depends on them


_CATALOGUE: dict[str, Table] = {}
_GAMES: dict[str, Callable[[Any], str | None]] = {}


def catalogue() -> dict[str, Table]:
    """Every table by name: the core ones, then each format's, in the registry's order.

    A format's ``tables`` module has ``TABLES`` and ``game(model)``, the game a
    file belongs to (the partition below the format in ``savecraft export``).
    """
    if _CATALOGUE:
        return _CATALOGUE
    out = {t.name: t for t in CORE}
    for plugin in registry.plugins():
        if plugin.tables is None:
            continue
        module = importlib.import_module(plugin.tables)
        _GAMES[plugin.name] = module.game
        for t in module.TABLES:
            if t.name in out:
                raise ValueError(f"table {t.name!r} is offered twice ({plugin.name})")
            out[t.name] = t
    _CATALOGUE.update(out)
    return _CATALOGUE


def game_of(model: Any, fmt: str) -> str | None:
    """The game a decoded file belongs to, as its format's tables module says."""
    catalogue()
    find = _GAMES.get(fmt)
    try:
        return find(model) if find is not None else None
    except Exception:  # a partial model: the files row still comes, without its game
        return None


def _leaves(value: Any, path: str, out: list[tuple[Any, ...]]) -> None:
    if isinstance(value, dict):
        for k, v in value.items():
            key = str(k)
            step = f".{key}" if key.isidentifier() else "[" + repr(key).replace("'", '"') + "]"
            _leaves(v, f"{path}{step}" if path else (key if key.isidentifier() else step), out)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _leaves(v, f"{path}[{i}]", out)
    elif value is None:
        out.append((path, None, None))
    elif isinstance(value, bool):
        out.append((path, "true" if value else "false", None))
    elif isinstance(value, int | float):
        out.append((path, str(value), float(value)))
    else:
        out.append((path, str(value), None))


def field_rows(model: Any) -> list[tuple[Any, ...]]:
    """Every leaf of the model's dump (its ``data``), with the dump's path."""
    rows: list[tuple[Any, ...]] = []
    _leaves(to_json(model).get("data"), "", rows)
    return rows


def decode_group(first_id: int, paths: Sequence[str], wanted: Sequence[str]
                 ) -> dict[str, list[tuple[Any, ...]]]:
    """Rows of the tables ``wanted`` for files ``paths``, numbered from ``first_id``.

    Each row starts with its file id. The garbage collector is off for the
    whole group: decoding allocates many small objects and frees them by
    reference count; the one collection at the end finds what cycles are left.
    """
    tables = catalogue()
    want = set(wanted) | set(ALWAYS)
    out: dict[str, list[tuple[Any, ...]]] = {name: [] for name in want}
    with gc_paused():
        for k, path in enumerate(paths):
            _decode_one(first_id + k, path, tables, want, out)
    return out


def _problem(fid: int, path: str, message: str, field: str = "", offset: int | None = None,
             expected: str = "", found: str = "") -> tuple[Any, ...]:
    return (fid, path, offset, field, "error", expected or None, found or None, message)


def validated(path: str) -> tuple[str | None, Any, list[Any]]:
    """``savecraft validate``'s verdict on a file: its format, model and problems.

    A sound file is read the way ``load`` reads it (strictly: a server save's
    users stay undecoded bytes until a table asks for them), then the format's
    build and consistency checks run as validate runs them; only when one of
    them finds an error is the file read again by :func:`savecraft.api.validate`,
    which collects every problem. A sound file costs a load, not a validation
    (a third of the time for a 100,000-user TirNanoG save), with the same
    result: tests/tables/test_tables.py compares the two on every sample.
    """
    try:
        data = read_input(path, map_from=MAP_FROM)
        fmt = registry.detect(data)
        report = Report(strict=True)  # errors raise; warnings are kept
        model = fmt.parse(data, report)
        if fmt.validate_by_building:
            fmt.build(model)
        if fmt.check is not None:
            fmt.check(model, report)
    except FormatError:
        result = api.validate(path)  # by path: validate maps a large file itself
        return result.format, result.model, result.problems
    found = [paths.renamed_problem(p, lambda where: paths.canonical_prefix(model, where))
             for p in report.problems]
    return fmt.name, model, found


def _decode_one(fid: int, path: str, tables: dict[str, Table], want: set[str],
                out: dict[str, list[tuple[Any, ...]]]) -> None:
    try:
        size = os.stat(path).st_size
        if not os.path.isfile(path):
            raise IsADirectoryError(f"{path}: not a regular file")
        with open(path, "rb"):
            pass
    except OSError as exc:
        out["files"].append((fid, path, None, None, None, False, 1, 0))
        reason = exc.strerror or str(exc)
        out["problems"].append(_problem(fid, path, f"cannot be read: {reason}"))
        return
    fmt, model, found = validated(path)
    problems = [(fid, path, p.offset, p.path, p.severity, p.expected or None, p.found or None, str(p))
                for p in found]
    if model is not None and fmt is not None:
        for name in want:
            t = tables[name]
            if t.format != fmt or t.rows is None:
                continue
            try:
                rows = [(fid, *row) for row in t.rows(model)]
                width = len(t.columns) + 1
                bad = next((r for r in rows if len(r) != width), None)
                if bad is not None:
                    raise ValueError(f"a row of {len(bad)} values for {width} columns")
                out[name].extend(rows)
            except Exception as exc:  # a model the table's code did not foresee: a row, not a stop
                problems.append(_problem(fid, path, f"table {name}: {type(exc).__name__}: {exc}"))
        if "fields" in want:
            try:
                out["fields"].extend((fid, *row) for row in field_rows(model))
            except Exception as exc:
                problems.append(_problem(fid, path, f"table fields: {type(exc).__name__}: {exc}"))
    errors = sum(1 for p in problems if p[4] == "error")
    game = game_of(model, fmt) if model is not None and fmt is not None else None
    out["files"].append((fid, path, fmt, game, size, errors == 0, errors, len(problems) - errors))
    out["problems"].extend(problems)


def groups(paths: Sequence[str], size: int) -> Iterator[tuple[int, list[str]]]:
    """The files in groups of ``size``, each with the id of its first file."""
    for start in range(0, len(paths), size):
        yield start, list(paths[start:start + size])
