"""The whole-array RLE encoder gives exactly the bytes of the run-by-run one (the canonical choice)."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from savecraft.formats.tirnanog import rle


def _runs(pieces: list[tuple[int, int]]) -> np.ndarray:
    return np.concatenate([np.full(n, v, dtype=np.uint16) for v, n in pieces]) if pieces else \
        np.zeros(0, dtype=np.uint16)


@given(st.lists(st.tuples(st.sampled_from([0, 1, 2, 0xFFFF, 0x1234]), st.integers(1, 300)),
                max_size=120))
def test_encode_matches_the_reference_loop(pieces: list[tuple[int, int]]) -> None:
    arr = _runs(pieces)
    out = rle.encode(arr)
    assert out == rle._encode_loop(arr)
    assert np.array_equal(rle.decode(out, len(arr)), arr)


def test_the_edges_of_packets() -> None:
    for n in (1, 2, 127, 128, 129, 130, 255, 256, 257):
        for arr in (np.full(n, 7, dtype=np.uint16), np.arange(n, dtype=np.uint16),
                    np.tile(np.array([1, 1, 2], dtype=np.uint16), n)):
            assert rle.encode(arr) == rle._encode_loop(arr), n
    many = np.repeat(np.arange(5000, dtype=np.uint16) % 3, 1 + np.arange(5000) % 4)
    assert rle.encode(many) == rle._encode_loop(many)
    assert rle.encode(np.full(129, 5, dtype=np.uint16)) == bytes([0xFF, 5, 0, 0, 5, 0])
