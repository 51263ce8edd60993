"""Big maps are drawn smaller, within the picture cap, instead of not at all."""

from __future__ import annotations

import pytest

from savecraft.formats.tirnanog.game import render


@pytest.mark.parametrize("game_type", [render.TOP_DOWN, render.ISOMETRIC, 2])
@pytest.mark.parametrize(("size", "tile"), [(16, 32), (256, 32), (512, 32), (1024, 64), (700, 48)])
def test_fit_scale_keeps_the_canvas_under_the_cap(game_type: int, size: int, tile: int) -> None:
    scale = render.fit_scale(size, tile, tile // 2 if game_type != render.TOP_DOWN else tile, game_type)
    th = tile // 2 if game_type != render.TOP_DOWN else tile
    w, h = render.canvas_size(game_type, size, max(1, round(tile * scale)), max(1, round(th * scale)))
    assert 0 < scale <= 1
    assert w * h <= render.MAX_PIXELS
    full_w, full_h = render.canvas_size(game_type, size, tile, th)
    if full_w * full_h <= render.MAX_PIXELS:
        assert scale == 1.0
    else:  # not needlessly small: a slightly larger tile would not fit
        bigger = render.canvas_size(game_type, size, round(tile * scale) + 2, round(th * scale) + 2)
        assert bigger[0] * bigger[1] > render.MAX_PIXELS * 0.9
