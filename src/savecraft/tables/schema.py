"""How a format describes its tables, without importing Arrow.

A format's ``tables`` module (named in :data:`savecraft.registry.PLUGINS`)
exports ``TABLES``, a tuple of :class:`Table`. Each table has a fixed schema
(its columns never depend on the files read, so a query written today runs
on tomorrow's saves, and a table with no rows still has its columns) and a
``rows`` function from a decoded model to tuples in column order, without
the leading ``file_id``, which the producer adds. The format modules stay
free of pyarrow: the types here are names that :mod:`.arrow` maps.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

# The column types a table may use (Arrow types of the same name; DuckDB's VARCHAR,
# BIGINT, DOUBLE, BOOLEAN).
TYPES = ("string", "int64", "double", "bool")

FILE_ID = "file_id"


@dataclass(frozen=True)
class Column:
    """One column: its name, type (one of :data:`TYPES`), and where its value comes from.

    ``source`` is the field path ``savecraft dump``/``edit``/``diff`` use for the
    value (``player.au``), or a phrase when the value is computed; docs/tables.md
    prints it, so a person can go from a column to the field and back.
    """

    name: str
    type: str
    source: str
    doc: str = ""

    def __post_init__(self) -> None:
        if self.type not in TYPES:
            raise ValueError(f"column {self.name}: type {self.type!r} is not one of {TYPES}")


@dataclass(frozen=True)
class Table:
    """A table a format offers: name, what one row is, columns, and how rows come from a model.

    ``format`` is the registry name of the format whose models ``rows`` takes
    (None for the tables every file has: files, problems, fields).
    """

    name: str
    format: str | None
    row: str  # what one row is, for the docs ("one per file", "one per user")
    columns: tuple[Column, ...]
    rows: Callable[[Any], Iterable[tuple[Any, ...]]] | None = None

    @property
    def column_names(self) -> list[str]:
        return [FILE_ID] + [c.name for c in self.columns]


def col(name: str, type: str, source: str, doc: str = "") -> Column:
    """Shorthand for the format modules' column lists."""
    return Column(name, type, source, doc)
