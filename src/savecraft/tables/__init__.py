"""Thousands of saves as tables: one producer of Arrow record batches, and DuckDB on top.

>>> import savecraft
>>> stream = savecraft.tables(["saves/"], tables=["characters"])   # or savecraft.tables.open
>>> con = stream.connect()                                          # a DuckDB connection
>>> con.sql("SELECT race, count(*) FROM characters GROUP BY ALL").show()

Every format describes the tables it offers (:mod:`.schema`; the formats'
``tables`` modules, found through the registry); docs/tables.md lists them.
:func:`batches` is the one producer: it expands files, folders and globs,
decodes the files in groups in a process pool across every core, and yields
``(table, pyarrow.RecordBatch)`` as groups finish, in file order, with a
bounded number of groups in flight, so memory does not grow with the number
of files. ``savecraft sql``, ``savecraft export``, :mod:`savecraft.dask` and
:mod:`savecraft.spark` all read from it (the last two one group per task).

pyarrow and duckdb are the ``tables`` extra: this package imports them only
when called, so the rest of savecraft starts without them.
"""

from __future__ import annotations

import os
import sys
import types
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any
import glob
import importlib
import multiprocessing
from collections import deque
from concurrent.futures import Future, ProcessPoolExecutor

from ..errors import SavecraftError
from .core import ALWAYS, catalogue, decode_group, groups
from .schema import FILE_ID, Column, Table

if TYPE_CHECKING:
    import duckdb
    import pyarrow as pa

POOL_FROM = 8  # files; fewer are decoded in this process (starting workers costs more)
IN_FLIGHT = 2  # groups per worker submitted ahead of the consumer: enough to keep cores busy
_GLOB = frozenset("*?[")


class TablesError(SavecraftError):
    """An input pattern that matches nothing, an unknown table, a missing extra."""


def need(module: str, extra: str = "tables") -> Any:
    """Import an optional dependency, or say which extra brings it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise TablesError(f"{module} is not installed: pip install 'savecraft[{extra}]'") from None


def expand(inputs: Iterable[str | os.PathLike[str]]) -> list[str]:
    """Files, every file under a folder (recursively, sorted) and a glob's matches, in order.

    A path that does not exist is kept: it becomes a ``problems`` row (cannot
    be read), never a silent gap. A glob that matches nothing and an empty
    folder are errors: the question would be asked of nothing.
    """
    out: list[str] = []
    for item in inputs:
        arg = os.fspath(item)
        if os.path.isdir(arg):
            found = []
            for root, dirs, files in os.walk(arg):
                dirs.sort()
                found += [os.path.join(root, f) for f in sorted(files)]
            if not found:
                raise TablesError(f"{arg}: a folder with no files in it")
            out += found
        elif _GLOB & set(arg) and not os.path.exists(arg):
            matches = sorted(m for m in glob.glob(arg, recursive=True) if not os.path.isdir(m))
            if not matches:
                raise TablesError(f"{arg}: no file matches")
            out += matches
        else:
            out.append(arg)
    return out


_ARROW_TYPES = {"string": "string", "int64": "int64", "double": "float64", "bool": "bool_"}


def schema(table: str | Table) -> pa.Schema:
    """The Arrow schema of a table (file_id first); fixed, whatever files are read."""
    import pyarrow as pa

    t = table if isinstance(table, Table) else table_def(table)
    fields = [pa.field(FILE_ID, pa.int64(), nullable=False)]
    fields += [pa.field(c.name, getattr(pa, _ARROW_TYPES[c.type])()) for c in t.columns]
    return pa.schema(fields, metadata={"savecraft.table": t.name, "savecraft.row": t.row})


def table_def(name: str) -> Table:
    tables = catalogue()
    if name not in tables:
        raise TablesError(f"no table {name!r} (tables: {', '.join(tables)})")
    return tables[name]


def names() -> list[str]:
    return list(catalogue())


def to_batch(table: str, rows: list[tuple[Any, ...]]) -> pa.RecordBatch:
    """Rows (file_id first) as a record batch of the table's schema."""
    import pyarrow as pa

    sch = schema(table)
    if not rows:
        return pa.RecordBatch.from_pylist([], schema=sch)
    cols = list(zip(*rows))
    return pa.RecordBatch.from_arrays([pa.array(c, type=f.type) for c, f in zip(cols, sch)], schema=sch)


def group_batches(first_id: int, paths: Sequence[str], wanted: Sequence[str]
                  ) -> list[tuple[str, pa.RecordBatch]]:
    """One group of files as record batches: what a worker process sends back (files first)."""
    rows = decode_group(first_id, paths, wanted)
    order = list(ALWAYS) + sorted(n for n in rows if n not in ALWAYS)
    return [(name, to_batch(name, rows[name])) for name in order]


def _wanted(tables: Iterable[str] | None) -> list[str]:
    known = catalogue()
    wanted = list(known) if tables is None else list(dict.fromkeys(tables))
    for name in wanted:
        if name not in known:
            raise TablesError(f"no table {name!r} (tables: {', '.join(known)})")
    if tables is None:
        wanted.remove("fields")  # every leaf of every file: only when asked for by name
    return wanted


def group_size(files: int, workers: int) -> int:
    return max(1, min(64, files // (workers * 8)))


def batches(inputs: Iterable[str | os.PathLike[str]], tables: Iterable[str] | None = None, *,
            jobs: int | None = None, files: list[str] | None = None
            ) -> Iterator[tuple[str, pa.RecordBatch]]:
    """``(table, batch)`` for every group of files, in file order, ``files`` and ``problems`` always.

    ``tables``: the names wanted (default: all but ``fields``). ``jobs``: worker
    processes (default: one per core; 1 decodes in this process). ``files``:
    already expanded inputs (then ``inputs`` is ignored).
    """
    need("pyarrow")
    paths = files if files is not None else expand(inputs)
    wanted = _wanted(tables)
    workers = jobs or os.cpu_count() or 1
    size = group_size(len(paths), workers)
    if len(paths) < POOL_FROM or workers == 1:
        for first, group in groups(paths, size):
            yield from group_batches(first, group, wanted)
        return

    # forkserver: the workers come from a clean process, never a fork of one running DuckDB's
    # or Spark's threads; each imports savecraft once.
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["savecraft.tables", "savecraft.api"])
    pending: deque[Future[list[tuple[str, pa.RecordBatch]]]] = deque()
    todo = groups(paths, size)
    with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
        try:
            for first, group in todo:
                pending.append(pool.submit(group_batches, first, group, wanted))
                if len(pending) >= workers * IN_FLIGHT:
                    yield from pending.popleft().result()
            while pending:
                yield from pending.popleft().result()
        finally:
            for f in pending:
                f.cancel()


class Stream:
    """The tables of a set of files: iterate for ``(table, batch)``, or :meth:`connect` for DuckDB.

    After a full pass, ``problem_files`` counts the files with at least one
    problem of severity error (unreadable ones included).
    """

    def __init__(self, inputs: Iterable[str | os.PathLike[str]], tables: Iterable[str] | None = None,
                 *, jobs: int | None = None) -> None:
        self.files = expand(inputs)
        self.tables = _wanted(tables)
        self.jobs = jobs
        self.problem_files = 0
        self.rows: dict[str, int] = {}

    def __iter__(self) -> Iterator[tuple[str, pa.RecordBatch]]:
        self.problem_files = 0
        self.rows = {}
        for name, batch in batches((), self.tables, jobs=self.jobs, files=self.files):
            self.rows[name] = self.rows.get(name, 0) + batch.num_rows
            if name == "files" and batch.num_rows:
                import pyarrow.compute as pc

                self.problem_files += batch.num_rows - int(pc.sum(batch.column("ok")).as_py() or 0)
            yield name, batch

    def reader(self, table: str) -> pa.RecordBatchReader:
        """One table as an Arrow stream (the other tables' batches are dropped)."""
        import pyarrow as pa

        if table not in self.tables:
            raise TablesError(f"table {table!r} was not asked for (asked: {', '.join(self.tables)})")
        return pa.RecordBatchReader.from_batches(
            schema(table), (b for name, b in self if name == table))

    def connect(self, con: duckdb.DuckDBPyConnection | None = None) -> duckdb.DuckDBPyConnection:
        """A DuckDB connection (in memory unless given) with every table of the catalogue in it.

        The tables asked for are filled; the others exist with their columns and no rows,
        so a query naming them still runs.
        """
        duck = need("duckdb")
        con = con if con is not None else duck.connect()
        for name in catalogue():
            create_table(con, name)
        for name, batch in self:
            insert(con, name, batch)
        return con


def create_table(con: duckdb.DuckDBPyConnection, name: str) -> None:
    import pyarrow as pa

    empty = pa.Table.from_batches([], schema=schema(name))
    con.register("_savecraft_empty", empty)
    try:
        con.execute(f'CREATE OR REPLACE TABLE "{name}" AS SELECT * FROM _savecraft_empty')
    finally:
        con.unregister("_savecraft_empty")


def insert(con: duckdb.DuckDBPyConnection, name: str, batch: pa.RecordBatch) -> None:
    if not batch.num_rows:
        return
    import pyarrow as pa

    con.register("_savecraft_batch", pa.Table.from_batches([batch]))
    try:
        con.execute(f'INSERT INTO "{name}" SELECT * FROM _savecraft_batch')
    finally:
        con.unregister("_savecraft_batch")


def open(inputs: Iterable[str | os.PathLike[str]] | str, tables: Iterable[str] | None = None, *,
         jobs: int | None = None) -> Stream:
    """The tables of files, folders and globs (a single path may be given as a string)."""
    if isinstance(inputs, str | os.PathLike):
        inputs = [inputs]
    return Stream(inputs, tables, jobs=jobs)


class _CallableModule(types.ModuleType):
    """``savecraft.tables(...)`` is :func:`open`: the package can be called as the front door."""

    def __call__(self, inputs: Iterable[str | os.PathLike[str]] | str,
                 tables: Iterable[str] | None = None, *, jobs: int | None = None) -> Stream:
        return open(inputs, tables, jobs=jobs)


sys.modules[__name__].__class__ = _CallableModule

__all__ = ["Column", "Stream", "Table", "TablesError", "batches", "catalogue", "create_table", "expand",
           "group_batches", "groups", "insert", "names", "open", "schema", "table_def", "to_batch"]
