"""Every value of the demo game's model has bytes that ``savecraft hexdump FILE PATH`` shows.

The sections and structured assets are record descriptions (savecraft.layout): their
readers record a span for every field under the model's own paths. This walks every
leaf of the demo game's model (sections, and the values of the assets they point to)
and holds each to a span: its own, or for the few values that are not stored as bytes
of their own (bits of a stored byte, a field a record of another kind does not store,
an asset stored as no bytes) the record that holds them.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from savecraft import spans
from savecraft.commands.hexdump import render
from savecraft.formats.tirnanog.game import open_game
from savecraft.formats.tirnanog.game.assets import Asset, MediaAsset
from savecraft.formats.tirnanog.game.bytecode import Script
from savecraft.formats.tirnanog.game.demo import write_samples
from tests.core.support import model_leaves

# Values that are bits of a stored byte, or stored only by some records: they show the
# record (or asset) that holds them. Anything else without a span of its own is a defect.
NOT_OWN = [
    r"header\.(game_type|tile_width|tile_height)",  # bits of the type byte and the size bytes
    r".*\.animations\[\d+\]\.(direction|loop)",  # bits of an animation's type byte
    r".*\.frames\[\d+\]\.(atlas|operation)",  # bits of a frame's first word
    r".*\.attributes\[\d+\]\.default",  # stored by variables only
    r".*\.options\[\d+\]\.(rect_padding|rect|sprites)",  # a chooser option stores one or the other
    r".*\.asset\.value",  # a script asset: its value is the whole inflated asset
    r".*\.speech\[\d+\]\.asset",  # a missing recording: stored as no bytes
    r"sections\[\d+\]\.(type|data)",  # an opaque section: its bytes as they are
    r".*\.maps\[\d+\]\.asset\.value\..*",  # map assets: their reader names the map's header
]


def _asset(obj: Any, path: str) -> Iterator[str] | None:
    """An asset is its value when inflated from its own bytes; a media asset and a script
    (its bytecode) are one leaf each."""
    if isinstance(obj, Script):
        return iter([path])
    if not isinstance(obj, Asset):
        return None
    if isinstance(obj, MediaAsset) or not obj.COMPRESSED:
        return iter([path])
    return model_leaves(obj.value, path + ".value", _asset)


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    (path,) = write_samples(tmp_path_factory.mktemp("demo"))
    return path


def game_leaves(data: bytes) -> list[str]:
    game = open_game(data)
    out = list(model_leaves(game.header, "header", _asset))
    for i, section in enumerate(game.sections):
        out += model_leaves(section, f"sections[{i}]", _asset)
    return out


def test_every_leaf_of_the_demo_game_has_a_span_hexdump_shows(demo: Path) -> None:
    data = demo.read_bytes()
    smap = spans.record(data)
    paths = game_leaves(data)
    assert len(paths) > 1000
    kinds = {re.sub(r"\[\d+\]", "[]", p) for p in paths}
    for must in ("sections[].npcs[].asset.value.handlers[].script", "sections[].entries[].name",
                 "sections[].objects[].asset.value.sprite_modifiers[].sprites[].index",
                 "sections[].texts.value.texts[]", "sections[].menu.buttons[].left.category"):
        assert must in kinds, must  # the walk reaches the sections' records and asset values
    not_own = re.compile("|".join(f"(?:{p})" for p in NOT_OWN))
    missing = []
    for path in paths:
        own = smap.span_of(path)
        if own is None and not not_own.fullmatch(path):
            missing.append(path)
        shown = list(render(smap, path, length=1 << 20))
        # The title names the field (by the section's name where it has one) and where it is.
        assert re.fullmatch(r"\S+: \d+ bytes(, inflated from the \d+ bytes)? at 0x[0-9A-F]+ in \S+", shown[0]), \
            (path, shown[0])
        assert len(shown) > 1 or (own is not None and own.length == 0), path  # rows of its bytes
        if own is not None:
            assert shown[0].endswith(f": {own.length} bytes at 0x{own.offset:X} in {own.space}"), (path, shown)
    assert missing == []


def test_hexdump_of_a_handler_script_and_a_descriptor_through_the_command(demo: Path) -> None:
    data = demo.read_bytes()
    game = open_game(data)
    k = next(i for i, s in enumerate(game.sections) if type(s).__name__ == "NpcTypesSection")
    smap = spans.record(data)
    env = dict(os.environ)
    for path in (f"sections[{k}].npcs[0].asset.value.handlers[0].script",
                 f"sections[{k}].npcs[0].offset", f"sections[{k}].npcs[0].name"):
        own = smap.span_of(path)
        assert own is not None, path
        out = subprocess.run([sys.executable, "-m", "savecraft", "hexdump", str(demo), path],
                             capture_output=True, text=True, env=env, check=True).stdout.splitlines()
        assert out[0] == f"{path}: {own.length} bytes at 0x{own.offset:X} in {own.space}"
        assert path in out[1]  # the first row names the field
