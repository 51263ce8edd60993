"""Helpers the core tests share (and the command-line tests over every format)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from savecraft import registry
from savecraft.commands.demo import load_step
from savecraft.errors import FormatError

MAX_SAMPLE = 8 << 20  # the generic edit search (test_edit_formats) decodes the whole file


def demo_samples(spec: str, folder: Path) -> list[tuple[Path, bytes, registry.Format]]:
    """The files a demo step writes that a registered format reads (those small enough to search)."""
    out = []
    for p in load_step(spec)(folder):
        data = p.read_bytes()
        if len(data) > MAX_SAMPLE:
            continue
        try:
            fmt = registry.detect(data)
        except FormatError:
            continue  # not a file format (e.g. a packet capture listing)
        out.append((p, data, fmt))
    return out


def model_leaves(obj: Any, path: str,
                 special: Callable[[Any, str], Iterable[str] | None] = lambda obj, path: None
                 ) -> Iterator[str]:
    """The paths of every value a model stores, as dump and hexdump name them: a dataclass's
    compared fields, a list's items; a number, text, bytes, tuple, mapping or any other object
    is one leaf, and an empty value or None none (nothing stored). ``special(obj, path)`` gives
    a format's own answer for an object (an asset and its inflated value), or None."""
    got = special(obj, path)
    if got is not None:
        yield from got
        return
    if obj is None or (isinstance(obj, bytes | list | tuple | dict) and not obj):
        return
    if isinstance(obj, list):
        for i, x in enumerate(obj):
            yield from model_leaves(x, f"{path}[{i}]", special)
        return
    if not dataclasses.is_dataclass(obj) or isinstance(obj, type):
        yield path
        return
    for f in dataclasses.fields(obj):
        if f.compare:  # compare=False: bookkeeping, not the file's value
            yield from model_leaves(getattr(obj, f.name), f"{path}.{f.name}" if path else f.name, special)


def read_outcome(struct: Any, data: bytes, ctx: Any) -> object:
    """The model a record's read gives, or its error's text (offset, path, expected, found):
    what the compiled and the generated paths must agree on."""
    from savecraft.binary import Reader
    from savecraft.layout import LayoutError

    try:
        return struct.read(Reader(data), ctx, "rec")
    except (FormatError, LayoutError) as err:
        return f"{type(err).__name__}: {err}"


def written_outcome(struct: Any, model: Any, ctx: Any) -> object:
    """The bytes a record's write gives, or its error's text."""
    from savecraft.binary import Writer
    from savecraft.layout import LayoutError

    w = Writer()
    try:
        struct.write(model, w, ctx, "rec")
    except (FormatError, LayoutError) as err:
        return f"{type(err).__name__}: {err}"
    return w.getvalue()
