"""The one error type for bad input, and the collector that validate mode uses.

Every codec reports a problem the same way: the byte offset where it was found,
the field path that was being read, what was expected and what was found. In
strict mode (the default for ``load``) the first problem raises
:class:`FormatError`; in validate mode problems are collected in a
:class:`Report` and decoding goes on wherever the format allows, so one run
lists everything that is wrong with a file.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NoReturn

from . import limits


class SavecraftError(Exception):
    """Base class of every error savecraft raises on purpose."""


def format_location(offset: int | None, path: str) -> str:
    """The ``offset 0x0000002C: users[1].name`` prefix shared by errors and problems."""
    parts = []
    if offset is not None:
        parts.append(f"offset 0x{offset:08X}")
    if path:
        parts.append(path)
    return ": ".join(parts)


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with an input: where, in which field, expected versus found.

    ``space`` and ``length`` complete the offset into a byte span (see
    :mod:`savecraft.spans`): the byte space the offset counts in (``"file"``,
    or an inflated stream such as ``"payload"``) and how many bytes the
    problem covers, so a viewer can point at them. None when not known.
    """

    offset: int | None
    path: str
    expected: str
    found: str
    severity: str = "error"
    space: str | None = None
    length: int | None = None

    @property
    def message(self) -> str:
        if self.found:
            return f"expected {self.expected}, found {self.found}"
        return self.expected

    def __str__(self) -> str:
        loc = format_location(self.offset, self.path)
        return f"{loc}: {self.message}" if loc else self.message


class FormatError(SavecraftError, ValueError):
    """Bad input: carries the offset, the field path, and expected versus found.

    ``str(err)`` reads like
    ``offset 0x0000002C: users[1].name: expected a NUL-terminated UTF-8 string,
    found the end of the chunk``.
    """

    def __init__(
        self,
        offset: int | None,
        path: str,
        expected: str,
        found: str = "",
        *,
        problems: list[Problem] | None = None,
    ) -> None:
        self.problem = Problem(offset, path, expected, found)
        self.problems = problems if problems is not None else [self.problem]
        super().__init__(str(self.problem))

    @property
    def offset(self) -> int | None:
        return self.problem.offset

    @property
    def path(self) -> str:
        return self.problem.path

    @property
    def expected(self) -> str:
        return self.problem.expected

    @property
    def found(self) -> str:
        return self.problem.found

    @classmethod
    def from_problem(cls, problem: Problem) -> FormatError:
        return cls(problem.offset, problem.path, problem.expected, problem.found)


class UnsupportedFormatError(FormatError):
    """The input is recognised, but is something savecraft refuses to decode.

    Examples: an encrypted TirNanoG game file (its licence forbids decrypting)
    or a pre-3.1 Angband savefile. The message says what the file is.
    """


@dataclass(slots=True)
class Report:
    """Where decoders send recoverable problems.

    ``strict`` reports raise at once; otherwise they are collected, and the
    decoder carries on with the best reading it has (a wrong checksum is still
    a readable file; a wrong count may still leave the rest of the file sane).
    Unrecoverable problems (the data simply ends) always raise
    :class:`FormatError`; validate mode catches those at the nearest boundary
    it can resynchronise on (a chunk, a block) and records them here.
    """

    strict: bool = True
    problems: list[Problem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # Where the data ends, once a decoder found that it ends early (see ends_early).
    data_end: int | None = None
    # What is already listed: a check that meets the same bad bytes twice reports them once.
    # (-1, path, expected, found) stands for "with any offset".
    _seen: set[tuple[int | None, str, str, str]] = field(default_factory=set, repr=False,
                                                         compare=False)

    def add(self, problem: Problem) -> None:
        """Record a problem unless the same one (offset, path, expected, found) is already listed,
        or it is about bytes past the end of data already reported as ending early."""
        end = self.data_end
        if end is not None and problem.offset is not None and problem.offset >= end:
            return
        key = (problem.offset, problem.path, problem.expected, problem.found)
        if key in self._seen or (problem.offset is None and (-1, *key[1:]) in self._seen):
            return  # the same, or the same already listed with its offset
        self._seen.update((key, (-1, *key[1:])))
        self._keep(problem)

    def ends_early(self, size: int, needed: int, path: str, expected: str) -> None:
        """The data ends at ``size``, the file goes on to ``needed``: said once, where it ends.

        Whatever is found later about bytes past that end (every record that
        lay there) follows from it, and is not listed again.
        """
        if self.data_end is not None:
            return
        self.error(size, path, f"{expected} (up to 0x{needed:X})",
                   f"the end of the data at 0x{size:X}: {needed - size:,} bytes could not be read")
        self.data_end = size

    omitted: int = 0  # problems past the cap (savecraft.limits "problems"), counted, not kept
    omitted_errors: int = 0

    def _keep(self, problem: Problem) -> None:
        """Keep the first N problems, then only count: a file of a million bad records costs N."""
        cap = limits.problem_limit()
        if len(self.problems) - (1 if self.omitted else 0) < cap:
            self.problems.append(problem)
            return
        self.omitted += 1
        self.omitted_errors += problem.severity == "error"
        summary = Problem(None, "", f"and {self.omitted} more problems (not kept: the limit is {cap} "
                          "per file, raise it with SAVECRAFT_MAX_PROBLEMS)", "",
                          "error" if self.omitted_errors else "warning")
        if self.omitted == 1:
            self.problems.append(summary)
        else:
            self.problems[-1] = summary

    def error(self, offset: int | None, path: str, expected: str, found: str = "") -> None:
        problem = Problem(offset, path, expected, found)
        if self.strict:
            raise FormatError.from_problem(problem)
        self.add(problem)

    def warning(self, offset: int | None, path: str, expected: str, found: str = "") -> None:
        """Something odd that the format tolerates: never raises, never fails validation."""
        self.add(Problem(offset, path, expected, found, "warning"))

    def note(self, text: str) -> None:
        """Which accepted variant the reader met (e.g. 'CRC over the compressed bytes')."""
        self.notes.append(text)

    def capture(self, err: FormatError) -> None:
        """Record an unrecoverable error caught at a resynchronisation point."""
        if self.strict:
            raise err
        for problem in err.problems:
            self.add(problem)

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "error"]

    @property
    def ok(self) -> bool:
        return not self.errors


def fail(offset: int | None, path: str, expected: str, found: str = "") -> NoReturn:
    """Raise the project's error; a function so call sites stay one line."""
    raise FormatError(offset, path, expected, found)
