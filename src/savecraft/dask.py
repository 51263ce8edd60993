"""Dask reads savecraft's tables: ``savecraft.dask.read(paths, table=...)``.

One partition per group of files (``files_per_partition``), built with
:func:`dask.dataframe.from_map`, each decoded where Dask runs it (a local
process pool, or the workers of a ``dask.distributed`` cluster) by the same
code every other consumer uses (:func:`savecraft.tables.group_batches`).
The schema is known before anything is read (the table's fixed columns),
so Dask needs no sample partition. File ids are the files' places in the
expanded list: they agree with ``savecraft sql`` over the same arguments.
The ``dask`` extra installs dask[dataframe] and distributed.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any
from .tables import expand, group_batches, groups, schema, table_def

FILES_PER_PARTITION = 64


def _partition(group: tuple[int, list[str]], table: str) -> Any:
    import pyarrow as pa

    first, paths = group
    batches = [b for name, b in group_batches(first, paths, [table]) if name == table]
    return pa.Table.from_batches(batches, schema=schema(table)).to_pandas(
        types_mapper=_types_mapper())


def _types_mapper() -> Any:
    """Nullable pandas types: an integer column with nulls stays integers (as in DuckDB)."""
    import pandas as pd
    import pyarrow as pa

    mapping = {pa.int64(): pd.Int64Dtype(), pa.bool_(): pd.BooleanDtype(),
               pa.float64(): pd.Float64Dtype(), pa.string(): pd.StringDtype()}
    return mapping.get


def read(paths: Iterable[str | os.PathLike[str]] | str, table: str = "files", *,
         files_per_partition: int = FILES_PER_PARTITION) -> Any:
    """A dask DataFrame of one table over files, folders and globs (lazy: nothing read yet)."""
    import dask.dataframe as dd
    import pyarrow as pa

    table_def(table)  # an unknown table fails here, not in a worker
    if isinstance(paths, str | os.PathLike):
        paths = [paths]
    files = expand(paths)
    parts = list(groups(files, files_per_partition))
    meta = pa.Table.from_batches([], schema=schema(table)).to_pandas(types_mapper=_types_mapper())
    return dd.from_map(_partition, parts, table=table, meta=meta,  # type: ignore[no-untyped-call]
                       enforce_metadata=False, label=f"savecraft-{table}")
