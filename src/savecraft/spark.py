"""Apache Spark reads savecraft's tables: a Python data source (PySpark 4's DataSource API).

>>> from savecraft.spark import register
>>> register(spark)
>>> spark.read.format("savecraft").option("table", "characters").load("saves/").show()

``load`` takes one path, or several joined by commas (files, folders,
globs, as ``savecraft sql`` takes them). The files are expanded on the
driver and split into partitions of ``files_per_partition`` files (option,
default 64); each task decodes its files with the same code as every other
consumer (:func:`savecraft.tables.group_batches`) and returns Arrow record
batches. File ids are the files' places in the expanded list, so they agree
with ``savecraft sql`` over the same arguments. The ``spark`` extra installs
PySpark; Spark itself needs Java 17 or later (scripts/install-deps.sh).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
import json

from pyspark.sql.datasource import DataSource, DataSourceReader, InputPartition
from .tables import expand, group_batches, groups, table_def

_SPARK_TYPES = {"string": "string", "int64": "bigint", "double": "double", "bool": "boolean"}
FILES_PER_PARTITION = 64


def ddl(table: str) -> str:
    """The table's schema as Spark DDL (file_id first)."""
    t = table_def(table)
    return ", ".join([f"`file_id` bigint"] + [f"`{c.name}` {_SPARK_TYPES[c.type]}" for c in t.columns])


@dataclass
class FileGroup(InputPartition):
    first_id: int
    paths: list[str]


class SavecraftReader(DataSourceReader):
    def __init__(self, files: list[str], table: str, per_partition: int) -> None:
        self.files, self.table, self.per_partition = files, table, per_partition

    def partitions(self) -> list[FileGroup]:
        return [FileGroup(first, paths) for first, paths in groups(self.files, self.per_partition)]

    def read(self, partition: InputPartition) -> Iterator[Any]:
        import pyarrow as pa

        assert isinstance(partition, FileGroup)

        for name, batch in group_batches(partition.first_id, partition.paths, [self.table]):
            if name == self.table and batch.num_rows:
                # Spark compares schemas exactly: its columns are all nullable, with no metadata.
                yield pa.RecordBatch.from_arrays(batch.columns, names=batch.schema.names)


class SavecraftDataSource(DataSource):
    """``spark.read.format("savecraft").option("table", NAME).load(PATHS)``."""

    @classmethod
    def name(cls) -> str:
        return "savecraft"

    def _table(self) -> str:
        return str(self.options.get("table", "files"))

    def schema(self) -> str:
        return ddl(self._table())

    def reader(self, schema: Any) -> SavecraftReader:
        given = self.options.get("paths") or self.options.get("path") or ""
        paths: list[str] = list(given) if not isinstance(given, str) else []
        if isinstance(given, str):
            paths = json.loads(given) if given.startswith("[") else given.split(",")
        per = int(self.options.get("files_per_partition", FILES_PER_PARTITION))
        return SavecraftReader(expand(p for p in paths if p), self._table(), per)


def register(spark: Any) -> None:
    """Make ``format("savecraft")`` known to a Spark session."""
    spark.dataSource.register(SavecraftDataSource)
