"""Helpers the core tests share (and the command-line tests over every format)."""

from __future__ import annotations

from pathlib import Path

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
