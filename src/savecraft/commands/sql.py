"""``sql`` and ``export``: thousands of files as tables (see :mod:`savecraft.tables`, docs/tables.md).

``sql`` loads the tables a query names into an in-memory DuckDB and prints
the answer: a table on a terminal (rich), else CSV, JSON or Parquet by
``--to`` (``--format`` names a file format in every other command, so not
here). ``export`` writes a Parquet dataset, one folder per table,
partitioned by format and game (hive style: ``format=angband-block/game=...``).
Both exit 1 when a file had problems (they are rows of ``problems``; a
line on stderr counts them), 2 for a usage error or a query DuckDB refuses.
pyarrow and duckdb are imported only here, inside the handlers.
"""

from __future__ import annotations

import argparse
import re
import sys
from typing import TYPE_CHECKING, Any
import io
import os
from pathlib import Path
import orjson

from ..cli import EXIT_OK, EXIT_PROBLEM, UsageError
from ..errors import SavecraftError
from . import output
from .argtypes import whole
from .. import console
from ..fileio import ensure_dir
from ..lazy import lazy_module

if TYPE_CHECKING:
    import pyarrow as pa

    from ..tables import Stream

if TYPE_CHECKING:
    from .. import tables
    from .. import tables as _tables
    import decimal
    import rich.console as rich_console
    import rich.table as rich_table
else:  # imported on first use (savecraft.lazy): start-up does not need them
    tables = lazy_module("savecraft.tables")
    _tables = lazy_module("savecraft.tables")
    decimal = lazy_module("decimal")
    rich_console = lazy_module("rich.console")
    rich_table = lazy_module("rich.table")

TERMINAL_ROWS = 1000  # rows a terminal table shows before "and N more" (CSV/JSON/Parquet: all)


def _stream(args: argparse.Namespace, wanted: list[str] | None) -> Stream:
    try:
        return tables.open(args.paths, wanted, jobs=args.jobs)
    except tables.TablesError as exc:
        raise UsageError(str(exc)) from None


def named_tables(query: str, known: list[str]) -> list[str]:
    """The tables a query names (as words), so that only those are made."""
    words = {w.lower() for w in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", query)}
    return [t for t in known if t in words]


def _report(stream: Stream) -> int:
    if stream.problem_files:
        n = len(stream.files)
        print(f"savecraft: {stream.problem_files} of {n} files had problems "
              "(SELECT * FROM problems lists them)", file=sys.stderr)
        return EXIT_PROBLEM
    return EXIT_OK


def _encode(result: pa.Table, fmt: str) -> bytes:
    if fmt == "csv":
        import pyarrow.csv as pacsv

        buf = io.BytesIO()
        pacsv.write_csv(result, buf)
        return buf.getvalue()
    if fmt == "json":
        return b"".join(orjson.dumps(row, default=_json_value, option=orjson.OPT_APPEND_NEWLINE)
                        for row in result.to_pylist())
    import pyarrow.parquet as pq

    buf = io.BytesIO()
    pq.write_table(result, buf)
    return buf.getvalue()


def _json_value(value: Any) -> Any:
    """What orjson does not know: DuckDB's sums are decimals (whole ones as integers)."""
    if isinstance(value, decimal.Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, bytes):
        return value.hex()
    return str(value)


def _print_table(result: pa.Table) -> None:
    t = rich_table.Table(show_lines=False, header_style="bold")
    for name in result.column_names:
        t.add_column(name, overflow="fold")
    rows = result.slice(0, TERMINAL_ROWS).to_pylist()
    for row in rows:
        t.add_row(*("" if v is None else str(v) for v in row.values()))
    rich_console.Console(highlight=False).print(t)
    if result.num_rows > len(rows):
        print(f"and {result.num_rows - len(rows)} more rows (--to csv or -o FILE for all)")


def cmd_sql(args: argparse.Namespace) -> int:
    try:
        duckdb = tables.need("duckdb")
        tables.need("pyarrow")
    except SavecraftError as exc:
        raise UsageError(str(exc)) from None
    wanted = named_tables(args.query, list(tables.catalogue()))
    stream = _stream(args, wanted)

    con = duckdb.connect()

    for name in tables.catalogue():
        tables.create_table(con, name)
    with console.progress("reading", len(stream.files)) as advance:
        for name, batch in stream:
            if name == "files":
                advance(batch.num_rows)
            tables.insert(con, name, batch)
    try:
        result = con.sql(args.query)
        table = None if result is None else (
            result.to_arrow_table() if hasattr(result, "to_arrow_table") else result.arrow())
    except duckdb.Error as exc:
        raise UsageError(f"the query: {str(exc).splitlines()[0]}") from None
    if table is not None:
        fmt = args.to or _format_of(args.output)
        if fmt == "table":
            _print_table(table)
        else:
            output.write(args, args.output or "-", _encode(table, fmt))
        sys.stdout.flush()
    return _report(stream)


def _format_of(path: str | None) -> str:
    if path and path != "-":
        for suffix, fmt in ((".csv", "csv"), (".json", "json"), (".jsonl", "json"), (".parquet", "parquet")):
            if path.endswith(suffix):
                return fmt
        return "csv"
    return "table" if sys.stdout.isatty() else "csv"


def _partition_value(value: Any) -> str:
    text = "unknown" if value is None or value == "" else str(value)
    return "".join(ch if ch.isalnum() or ch in "-_.+ " else "_" for ch in text)


def cmd_export(args: argparse.Namespace) -> int:
    """Every table of the files as Parquet: DIR/TABLE/format=F/game=G/part-0.parquet."""
    try:
        _tables.need("pyarrow")
    except SavecraftError as exc:
        raise UsageError(str(exc)) from None
    import pyarrow as pa
    import pyarrow.parquet as pq

    stream = _stream(args, args.table or None)
    root = ensure_dir(args.output)
    where: dict[int, tuple[str, str]] = {}  # file id -> (format, game) partition
    writers: dict[tuple[str, str, str], pq.ParquetWriter] = {}
    temps: dict[tuple[str, str, str], tuple[Path, Path]] = {}
    try:
        with console.progress("exporting", len(stream.files)) as advance:
            for name, batch in stream:
                if name == "files":
                    advance(batch.num_rows)
                    for fid, fmt, game in zip(batch.column("file_id").to_pylist(),
                                              batch.column("format").to_pylist(),
                                              batch.column("game").to_pylist()):
                        where[fid] = (_partition_value(fmt), _partition_value(game))
                if not batch.num_rows:
                    continue
                keys = [where[f] for f in batch.column("file_id").to_pylist()]
                for key in dict.fromkeys(keys):
                    part = batch if len(set(keys)) == 1 else batch.filter(
                        pa.array([k == key for k in keys]))
                    wkey = (name, *key)
                    if wkey not in writers:
                        folder = root / name / f"format={key[0]}" / f"game={key[1]}"
                        folder.mkdir(parents=True, exist_ok=True)
                        final = folder / "part-0.parquet"
                        tmp = folder / f".part-0.parquet.{os.getpid()}.tmp"
                        temps[wkey] = (tmp, final)
                        writers[wkey] = pq.ParquetWriter(tmp, _tables.schema(name))
                    writers[wkey].write_batch(part)
        for w in writers.values():
            w.close()
        for tmp, final in temps.values():  # every file complete before any replaces an old one
            os.replace(tmp, final)
    finally:
        for wkey, (tmp, _final) in temps.items():
            if tmp.exists():
                writers[wkey].close()
                tmp.unlink()
    tables = sorted({k[0] for k in writers})
    print(f"{len(stream.files)} files: {sum(stream.rows.values())} rows in {len(tables)} tables "
          f"({', '.join(tables)}) written to {args.output}")
    return _report(stream)


def register(sub: Any) -> None:
    p = sub.add_parser(
        "sql", help="ask SQL questions of many files at once (DuckDB; docs/tables.md)",
        description="Decode every file (folders and globs expanded, on every core) into tables and "
        "run one SQL query over them with DuckDB. The tables a query names are made: characters, "
        "gear, history (Angband), tng_saves, tng_users, ... (docs/tables.md), and for every file "
        "files, problems and fields. A file that cannot be read is a row of problems; the exit "
        "status is 1 when any file had problems.")
    p.add_argument("query", metavar="QUERY", help="one SQL statement (DuckDB's dialect)")
    p.add_argument("paths", nargs="+", metavar="PATH", help="files, folders or globs")
    p.add_argument("--to", choices=("table", "csv", "json", "parquet"), default=None,
                   help="the answer's form (JSON: one object per line; default: a table on a "
                   "terminal, else CSV, and with -o FILE the form of its suffix)")
    output.add_output(p, help="write the result here (default: standard output)")
    p.add_argument("-j", "--jobs", type=whole(1, what="the number of worker processes"), default=None,
                   metavar="N", help="worker processes (default: one per core)")
    p.set_defaults(func=cmd_sql)

    p = sub.add_parser(
        "export", help="many files as a Parquet dataset (DuckDB, pandas, Polars, Spark, Dask read it)",
        description="Decode every file into tables and write each table as Parquet under DIR, "
        "partitioned by format and game: DIR/TABLE/format=F/game=G/part-0.parquet. "
        "The exit status is 1 when any file had problems (see the problems table).")
    p.add_argument("paths", nargs="+", metavar="PATH", help="files, folders or globs")
    p.add_argument("-o", "--output", required=True, metavar="DIR", help="the dataset's folder")
    p.add_argument("--table", action="append", metavar="NAME",
                   help="only this table (repeat for more; default: every table but fields)")
    p.add_argument("-j", "--jobs", type=whole(1, what="the number of worker processes"), default=None,
                   metavar="N", help="worker processes (default: one per core)")
    p.set_defaults(func=cmd_export)
