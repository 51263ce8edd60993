"""The one timing helper of the benchmarks: the best of several rounds.

The minimum, not the mean: these machines change speed from minute to
minute, and the fastest round is the one least disturbed by anything else.
Every bench compares contenders timed in the same run (a ratio), never
against a fixed time. The garbage collector runs before each round, so one
contender's garbage is not collected on another's clock.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable


def best(fn: Callable[[], object], repeat: int = 7, number: int = 1) -> float:
    """Seconds per call of ``fn``: the fastest of ``repeat`` rounds of ``number`` calls."""
    times = []
    for _ in range(repeat):
        gc.collect()
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - t0) / number)
    return min(times)
