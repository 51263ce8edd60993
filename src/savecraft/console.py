"""What the command line shows a person: colour, progress bars and tables, and when.

The rules live here so every command follows the same ones:

* colour (``--color=auto|always|never``): ``auto`` colours a stream only when
  it is a terminal and ``NO_COLOR`` is not set (https://no-color.org);
  ``always`` and ``never`` say what they mean. Piped output is plain text.
* progress: on standard error, only when standard error is a terminal, never
  with ``-q``/``--quiet``, and only for work that reports its size (so a
  bar can be drawn); it appears after half a second, so quick runs show none.

``rich`` draws the bars and tables. It is imported only when one is drawn:
importing it costs more than a whole small ``savecraft validate``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TextIO

_color = "auto"
_quiet = False

# ANSI styles (SGR): what git uses for the same purposes.
STYLES = {
    "removed": "31",  # red
    "added": "32",  # green
    "header": "1",  # bold
    "hunk": "36",  # cyan
    "error": "1;31",
    "warning": "33",
    "note": "2",
    "ok": "32",
    "key": "36",
}


def configure(*, color: str = "auto", quiet: bool = False) -> None:
    """Set the rules for this run (the command line calls it once, from its options)."""
    global _color, _quiet
    if color not in ("auto", "always", "never"):
        raise ValueError(f"color must be auto, always or never, not {color!r}")
    _color, _quiet = color, quiet


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # replaced or closed streams
        return False


def use_color(stream: TextIO | None = None) -> bool:
    """Whether text written to ``stream`` (stdout by default) is coloured."""
    if _color == "always":
        return True
    if _color == "never" or os.environ.get("NO_COLOR"):
        return False
    return _isatty(stream if stream is not None else sys.stdout)


def paint(text: str, style: str, stream: TextIO | None = None) -> str:
    """``text`` in the style named (see :data:`STYLES`) when the stream takes colour, else as it is."""
    if not use_color(stream) or not text:
        return text
    return f"\x1b[{STYLES[style]}m{text}\x1b[0m"


def show_progress() -> bool:
    """Whether progress bars are drawn: stderr is a terminal and ``-q`` was not given."""
    return not _quiet and _isatty(sys.stderr)


Advance = Callable[[int], None]


def _no_advance(n: int) -> None:
    pass


@contextmanager
def progress(description: str, total: int | None) -> Iterator[Advance]:
    """A progress bar on stderr for work of ``total`` units; yields ``advance(n)``.

    Off the terminal (or with ``-q``) it draws nothing and costs nothing.
    """
    if not show_progress():
        yield _no_advance
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                   TimeRemainingColumn(), console=Console(stderr=True, force_terminal=True), transient=True,
                   refresh_per_second=8)
    task = bar.add_task(description, total=total)
    # Drawn only for work that outlasts half a second.
    bar.live.auto_refresh = False
    import time
    start = time.monotonic()
    started = False

    def advance(n: int) -> None:
        nonlocal started
        bar.advance(task, n)
        if not started and time.monotonic() - start > 0.5:
            started = True
            bar.start()
            bar.live.auto_refresh = True

    try:
        yield advance
    finally:
        if started:
            bar.stop()


@contextmanager
def status(text: str) -> Iterator[Callable[[str], None]]:
    """A live one-line status on stderr (a spinner and ``text``); yields ``update(text)``."""
    if not show_progress():
        yield lambda _text: None
        return
    from rich.console import Console

    with Console(stderr=True, force_terminal=True).status(text) as live:
        yield lambda new: live.update(new)


BUSY_FROM = 32 << 20  # bytes: inputs from this size take about a second or more to decode


@contextmanager
def busy(text: str, size: int, from_bytes: int = BUSY_FROM) -> Iterator[None]:
    """A spinner with ``text`` on stderr while a large input (``size`` bytes) is worked on.

    The codecs do not report their progress, so a big single file gets a live
    spinner and the elapsed time rather than a bar; small ones get nothing.
    """
    if size < from_bytes or not show_progress():
        yield
        return
    with status(f"{text} ({size / (1 << 20):,.0f} MiB)"):
        yield


def table(rows: list[tuple[str, str]], title: str | None = None) -> str | None:
    """Key/value rows as a rich table for stdout, when stdout takes colour; None otherwise."""
    if not use_color(sys.stdout):
        return None
    from rich.console import Console
    from rich.table import Table

    t = Table(title=title, show_header=False, box=None, padding=(0, 1))
    t.add_column(style="cyan", no_wrap=True)
    t.add_column()
    for key, value in rows:
        t.add_row(key, value)
    console = Console(force_terminal=True, color_system="standard", highlight=False)
    with console.capture() as cap:
        console.print(t)
    out: str = cap.get()
    return out


@contextmanager
def live_loadtest(enabled: bool = True) -> Iterator[Any]:
    """A load test's control: Ctrl-C stops it with its report kept, a live line shows its figures.

    Yields a :class:`savecraft.net.loadtest.LiveControl` (None when not
    ``enabled``: multi-process runs keep the plain behaviour). The first
    Ctrl-C ends the walking phase early; the report is then for the time
    walked. A second one interrupts at once.
    """
    if not enabled:
        yield None
        return
    import signal

    from .net.loadtest import LiveControl, LiveFigures

    control = LiveControl()

    def on_interrupt(signum: int, frame: Any) -> None:
        control.stop = True
        signal.signal(signal.SIGINT, signal.default_int_handler)  # a second Ctrl-C: at once

    try:
        previous = signal.signal(signal.SIGINT, on_interrupt)
    except ValueError:  # not the main thread: no handler, no early stop
        previous = None
    try:
        with status("load test: logging the bots in") as update:
            def show(f: LiveFigures) -> None:
                update(f"{f.connected} players, {f.messages_per_second:,.0f} messages/s, "
                       f"p50 {f.p50_ms:.1f} ms, p99 {f.p99_ms:.1f} ms, {f.drops:,} drops, "
                       f"{f.seconds:.0f} s (Ctrl-C: stop and report)")

            if show_progress():
                control.on_second = show
            yield control
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
