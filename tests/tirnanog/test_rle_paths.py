"""The compiled RLE walk and the numpy fallback give the same values and the same errors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from savecraft.errors import FormatError
from savecraft.formats.tirnanog import rle

pytestmark = pytest.mark.skipif(rle._speedups is None, reason="savecraft._speedups was not built")


def _both(data: bytes, count: int | None) -> tuple[object, object]:
    results = []
    for compiled in (True, False):
        saved = rle._speedups
        if not compiled:
            rle._speedups = None
        try:
            out: object = rle.decode(data, count, offset=0x10, path="layers").tolist()
        except FormatError as err:
            out = (err.offset, err.path, err.expected, err.found)
        finally:
            rle._speedups = saved
        results.append(out)
    return results[0], results[1]


@given(st.binary(max_size=300), st.one_of(st.none(), st.integers(0, 400)))
def test_random_streams_agree(data: bytes, count: int | None) -> None:
    compiled, fallback = _both(data, count)
    assert compiled == fallback


@given(st.lists(st.integers(0, 3), max_size=600))
def test_encoded_streams_agree(values: list[int]) -> None:
    data = rle.encode(np.array(values, dtype=np.uint16))
    compiled, fallback = _both(data, len(values))
    assert compiled == fallback == values


def test_error_kinds() -> None:
    run = bytes([0x83, 1, 0])  # four 1s
    assert _both(run[:2], None)[0] == (0x10, "layers", "a run packet of 3 bytes",
                                       "the end of the stream after 2")
    compiled, fallback = _both(run + run, 6)
    assert compiled == fallback and "a packet that makes it 8" in str(compiled)
    compiled, fallback = _both(run, 5)
    assert compiled == fallback and "after 4" in str(compiled)
