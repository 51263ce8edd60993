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
from typing import TYPE_CHECKING, Any, TextIO
import re
import time
from .lazy import lazy_module

if TYPE_CHECKING:
    from .net import loadtest
    import rich.console as rich_console
    import rich.progress as rich_progress
    import rich.table as rich_table
    import rich.text as rich_text
    import signal
else:  # imported on first use (savecraft.lazy): start-up does not need them
    loadtest = lazy_module("savecraft.net.loadtest")
    rich_console = lazy_module("rich.console")
    rich_progress = lazy_module("rich.progress")
    rich_table = lazy_module("rich.table")
    rich_text = lazy_module("rich.text")
    signal = lazy_module("signal")

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
def progress(description: str, total: int | None, unit: str = "files") -> Iterator[Advance]:
    """A progress bar on stderr for work of ``total`` units; yields ``advance(n)``.

    ``unit`` is what is counted: ``"bytes"`` are shown as KiB, MiB or GiB
    (``12.5/40.0 MiB``), anything else as a count and its name (``120/540
    files``). Off the terminal (or with ``-q``) it draws nothing and costs nothing.
    """
    if not show_progress():
        yield _no_advance
        return

    bars = rich_progress
    counted: list[rich_progress.ProgressColumn] = (
        [bars.DownloadColumn(binary_units=True)] if unit == "bytes" else [bars.MofNCompleteColumn(), bars.TextColumn(unit)])
    # Drawn from the first advance after half a second: quick runs show none. Its own thread
    # redraws it from then on (started by start(), so the count moves while the work goes on).
    bar = bars.Progress(bars.TextColumn("{task.description}"), bars.BarColumn(), *counted, bars.TimeRemainingColumn(),
                        console=rich_console.Console(stderr=True, force_terminal=True), transient=True,
                        refresh_per_second=8)
    task = bar.add_task(description, total=total)
    start = time.monotonic()
    started = False

    def advance(n: int) -> None:
        nonlocal started
        bar.advance(task, n)
        if not started and time.monotonic() - start > 0.5:
            started = True
            bar.start()

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

    with rich_console.Console(stderr=True, force_terminal=True).status(text) as live:
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

    t = rich_table.Table(title=title, show_header=False, box=None, padding=(0, 1))
    t.add_column(style="cyan", no_wrap=True)
    t.add_column()
    for key, value in rows:
        t.add_row(key, value)
    console = rich_console.Console(force_terminal=True, color_system="standard", highlight=False)
    with console.capture() as cap:
        console.print(t)
    out: str = cap.get()
    return out


# -- the terminal sheet of ``info`` ----------------------------------------------------------------

Label = Callable[[str], str]
Show = Callable[[str, Any], Any]


def _scalar(v: Any) -> bool:
    return not isinstance(v, dict | list)


def _flat(v: Any) -> bool:
    """A record of plain values (``{"current": 278, "max": 278}``): it reads on one line."""
    return isinstance(v, dict) and bool(v) and all(_scalar(x) for x in v.values())


def _grid(v: Any) -> bool:
    """Records of the same plain fields (stats, blocks): they read as one table."""
    if isinstance(v, dict):
        rows = list(v.values())
        return len(rows) > 1 and all(_flat(r) for r in rows) and len({tuple(r) for r in rows}) == 1
    # A list: only records with the same fields (a column each field not every record has is noise).
    return isinstance(v, list) and bool(v) and all(_flat(r) for r in v) and len({tuple(r) for r in v}) == 1


def wrap_items(items: list[str], width: int, sep: str = ", ") -> str:
    """Items over as many lines as they need, each line broken between items, never inside one."""
    lines: list[str] = []
    line = ""
    for i, item in enumerate(items):
        piece = item + (sep.rstrip() if i < len(items) - 1 else "")
        if line and len(line) + 1 + len(piece) > width:
            lines.append(line)
            line = piece
        else:
            line = f"{line} {piece}" if line else piece
    if line:
        lines.append(line)
    return "\n".join(lines)


def _cell(key: str, v: Any, width: int, label: Label, show: Show, cap: int | None) -> Any:
    """What the value column shows for ``key``: text, or a table of its own."""
    if isinstance(v, list | dict) and not v:
        return "(none)"
    if _scalar(v):
        return str(show(key, v))
    if isinstance(v, list) and all(_scalar(x) for x in v):
        items = [str(x) for x in (v if cap is None else v[:cap])]
        if cap is not None and len(v) > cap:
            items.append(f"and {len(v) - cap} more")
        return wrap_items(items, width)
    if _flat(v):
        return wrap_items([f"{label(k)} {show(k, x)}" for k, x in v.items()], width)
    if _grid(v):
        records = list(v.items()) if isinstance(v, dict) else [(None, r) for r in v]
        shown = records if cap is None else records[:cap]
        columns = list(dict.fromkeys(k for _, r in shown for k in r))
        t = rich_table.Table(box=None, padding=(0, 1), pad_edge=False, show_edge=False, header_style="bold")
        if isinstance(v, dict):
            t.add_column("", style="cyan", no_wrap=True)
        for c in columns:
            numbers = all(isinstance(r.get(c), int | float | None) and not isinstance(r.get(c), bool)
                          for _, r in shown)
            t.add_column(label(c), overflow="fold", justify="right" if numbers else "left")
        for name, r in shown:
            cells = [str(show(c, r[c])) if c in r else "" for c in columns]
            t.add_row(*([label(str(name))] if isinstance(v, dict) else []), *cells)
        if cap is not None and len(records) > cap:
            t.add_row(*([""] if isinstance(v, dict) else []), f"and {len(records) - cap} more",
                      *[""] * (len(columns) - 1))
        return t
    if isinstance(v, dict):
        return _sheet_table(v, width, label, show, cap)
    inner = rich_table.Table(box=None, show_header=False, padding=0, pad_edge=False)
    inner.add_column(overflow="fold")
    for x in (v if cap is None else v[:cap]):
        if _flat(x):  # a record of its own fields: one line of it (wrapped between fields)
            inner.add_row(wrap_items([f"{label(k)} {show(k, y)}" for k, y in x.items()], width))
        else:
            inner.add_row(_cell(key, x, width, label, show, cap))
    if cap is not None and len(v) > cap:
        inner.add_row(f"and {len(v) - cap} more")
    return inner


def _sheet_table(summary: dict[str, Any], width: int, label: Label, show: Show, cap: int | None) -> Any:
    keys = [label(k) for k in summary]
    key_width = max(map(len, keys), default=0)
    room = max(20, width - key_width - 3)
    t = rich_table.Table(show_header=False, box=None, padding=(0, 1), pad_edge=False)
    t.add_column(style="cyan", no_wrap=True, vertical="top")
    t.add_column(overflow="fold")
    for k, name in zip(summary, keys):
        t.add_row(name, _cell(k, summary[k], room, label, show, cap))
    return t


def sheet(head: str, summary: dict[str, Any], label: Label, show: Show, cap: int | None) -> str:
    """``info``'s summary as a terminal sheet: one key column, every value beside its own key.

    Plain values and records of plain values take one line each (``current
    278, max 278``); records of the same fields (stats, blocks) are one
    table; a list wraps between its items, never inside one, at the
    terminal's width. Piped output never comes here (it is plain text).
    """
    console = rich_console.Console(force_terminal=True, color_system="standard", highlight=False)
    width = console.width
    with console.capture() as cap_:
        console.print(rich_text.Text(head, style="bold"), soft_wrap=True)
        console.print(_sheet_table(summary, width, label, show, cap))

    # rich pads every cell to its column: the spaces at the end of a line are dropped (the styles
    # there are kept), so a copied line or a narrower terminal does not carry them.
    tail = re.compile(r"(?:\x1b\[[0-9;]*m| )+$")
    lines = []
    for line in cap_.get().split("\n"):
        m = tail.search(line)
        if m is not None:
            line = line[:m.start()] + "".join(re.findall(r"\x1b\[[0-9;]*m", m.group(0)))
        lines.append(line)
    return "\n".join(lines)


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

    control = loadtest.LiveControl()

    def on_interrupt(signum: int, frame: Any) -> None:
        control.stop = True
        signal.signal(signal.SIGINT, signal.default_int_handler)  # a second Ctrl-C: at once

    try:
        previous = signal.signal(signal.SIGINT, on_interrupt)
    except ValueError:  # not the main thread: no handler, no early stop
        previous = None
    try:
        with status("load test: logging the bots in") as update:
            def show(f: loadtest.LiveFigures) -> None:
                update(f"{f.connected} players, {f.messages_per_second:,.0f} messages/s, "
                       f"p50 {f.p50_ms:.1f} ms, p99 {f.p99_ms:.1f} ms, {f.drops:,} drops, "
                       f"{f.seconds:.0f} s (Ctrl-C: stop and report)")

            if show_progress():
                control.on_second = show
            yield control
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
