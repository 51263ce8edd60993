"""validate: a format can ask for its writer to be tried on a model that parsed cleanly."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest

import savecraft
from savecraft import registry
from savecraft.errors import FormatError, Report


@dataclass
class Strict:
    value: int


def _parse(data: bytes, report: Report) -> Strict:
    return Strict(data[4])


def _build(model: Strict) -> bytes:
    if model.value > 100:  # the reader takes any byte, the writer only up to 100
        raise FormatError(None, "value", "at most 100", str(model.value))
    return b"STRI" + bytes([model.value])


@pytest.fixture(params=[True, False])
def toy(request: pytest.FixtureRequest) -> Iterator[bool]:
    fmt = registry.register(registry.Format(
        name="toy-strict", description="toy", model=Strict, sniff=lambda d: d[:4] == b"STRI",
        parse=_parse, build=_build, info=lambda m: {}, validate_by_building=request.param))
    try:
        yield fmt.validate_by_building
    finally:
        registry._FORMATS.pop(fmt.name, None)
        registry._BY_MODEL.pop(Strict, None)


def test_validate_reports_what_the_writer_refuses(toy: bool) -> None:
    assert savecraft.validate(b"STRI\x05").ok
    result = savecraft.validate(b"STRI\xff")
    if toy:
        assert [(p.path, p.expected, p.found) for p in result.problems] == [("value", "at most 100", "255")]
    else:
        assert result.ok  # not asked for: nothing built
