"""The library's front door: load, save, parse, build and validate any registered format."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from . import paths, registry
from .errors import FormatError, Problem, Report, SavecraftError
from .fileio import MAP_FROM, PathLike, Written, read_input, write_file


def parse(data: bytes, format: str | None = None) -> Any:
    """Decode bytes (strictly: the first problem raises FormatError)."""
    return parse_format(data, format)[1]


def parse_format(data: bytes, format: str | None = None) -> tuple[registry.Format, Any]:
    """Like :func:`parse`, and say which format the bytes were read as."""
    fmt = registry.find(data, format)
    return fmt, fmt.parse(data, Report(strict=True))


def build(model: Any) -> bytes:
    """Encode a model; sizes, counts and checksums are computed here, never kept stale."""
    return registry.for_model(model).build(model)


def load(source: PathLike | bytes | bytearray | memoryview, format: str | None = None) -> Any:
    """Detect the format from the content and parse it (a large file is mapped, not copied)."""
    return parse(read_input(source, map_from=MAP_FROM), format)


def save(model: Any, path: PathLike, *, backup: bool = False, force: bool = False) -> Written:
    """Build and write through the one writer (see :mod:`savecraft.fileio`).

    A regular file is replaced atomically (through a symlink, its target);
    a FIFO, device or ``-`` is written into. Raises :class:`~savecraft.fileio.WriteError`
    when the operating system refuses, and FormatError when the model cannot be built;
    in both cases nothing on disk changed.
    """
    return write_file(path, build(model), backup=backup, force=force)


@dataclass
class Validation:
    """Everything wrong with one input, and which accepted variants it used."""

    format: str | None
    problems: list[Problem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    model: Any = None

    @property
    def ok(self) -> bool:
        return not any(p.severity == "error" for p in self.problems)


def validate(source: PathLike | bytes | bytearray | memoryview, format: str | None = None) -> Validation:
    """Collect every problem that can be found, instead of stopping at the first.

    Problems the format can read past (checksums, sizes, counts) are all
    reported; when the data ends early, decoding resumes at the next boundary
    the format has (a chunk, a block) where it can.

    It never raises on bad input, and not for an input that cannot be read
    either (a missing path, a folder, no permission): that is one problem
    at no offset, and ``format`` is None.
    """
    try:
        data = read_input(source, map_from=MAP_FROM)
    except SavecraftError as err:
        return Validation(None, [Problem(None, "", str(err), "")])
    report = Report(strict=False)
    try:
        fmt = registry.find(data, format)
    except FormatError as err:
        return Validation(None, list(err.problems))
    model = None
    try:
        model = fmt.parse(data, report)
        if fmt.validate_by_building and model is not None and report.ok:
            try:
                fmt.build(model)
            except FormatError as err:
                report.capture(err)
        if fmt.check is not None and model is not None:
            fmt.check(model, report)
    except FormatError as err:
        report.capture(err)
    problems = report.problems
    if model is not None:  # one record, one name: the path dumps, edits and diffs print
        problems = [paths.renamed_problem(p, lambda path: paths.canonical_prefix(model, path))
                    for p in problems]
    return Validation(fmt.name, problems, report.notes, model)
