"""Pausing the garbage collector (savecraft.speed.gc_paused): the caller's setting comes back."""

from __future__ import annotations

import gc
import threading

from savecraft.speed import gc_paused


def test_nested_uses_restore_the_callers_setting() -> None:
    assert gc.isenabled()
    with gc_paused():
        with gc_paused(keep=True):
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()  # it was off: it stays off
    finally:
        gc.enable()


def test_uses_that_overlap_in_two_threads_switch_the_collector_back_on() -> None:
    """The studio parses a file in one thread while another validates it. A use beginning
    inside the other's found the collector off, took that for the caller's setting, and the
    collector stayed off for the rest of the process when the first use ended first."""
    entered, inside, first_left = threading.Event(), threading.Event(), threading.Event()

    def second() -> None:
        entered.wait(10)
        with gc_paused():
            inside.set()
            first_left.wait(10)  # the first use ends while this one is open

    t = threading.Thread(target=second)
    t.start()
    with gc_paused():
        entered.set()
        assert inside.wait(10)  # the second use began inside this one
    first_left.set()
    t.join(10)
    assert gc.isenabled()
