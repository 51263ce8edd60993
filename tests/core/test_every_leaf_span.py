"""Every value of a QfG5 and a modular Angband save has bytes under the model's own path.

The Angband block saves (tests/angband/test_angband_every_leaf_span.py), the .tng game
(tests/tirnanog/test_tng_spans.py) and the TirNanoG saves have walks of their own; these are
the other formats, on the files the demo writes. A header field the model keeps at its top
level (QfG5's player type, the modular file's status and description) and a decoded block's
fields (``blocks[i].value.*``) are found under those paths, as dump and edit name them.
"""

from __future__ import annotations

from typing import Any

import pytest

from savecraft import api, spans
from savecraft.commands.hexdump import render
from savecraft.formats.angband import sample as angband_sample
from savecraft.formats.qfg5 import sample as qfg5_sample
from tests.core.support import model_leaves


@pytest.mark.parametrize("model", [qfg5_sample.qfg5_save(), angband_sample.modular_save()],
                         ids=["qfg5", "angband-modular"])
def test_every_leaf_has_a_span_hexdump_shows(model: Any) -> None:
    data = api.build(model)
    smap = spans.record(data)
    paths = list(model_leaves(api.load(data), ""))
    assert len(paths) > 30
    assert [p for p in paths if smap.span_of(p) is None] == []
    for p in paths:
        own = smap.span_of(p)
        assert own is not None
        shown = list(render(smap, p, length=1 << 16))
        assert shown[0].endswith(f": {own.length} bytes at 0x{own.offset:X} in {own.space}"), (p, shown[0])
