"""The studio end to end: a real ``savecraft studio`` driven by headless Chromium.

Debian's chromium (installed by ``scripts/install-browser.sh``, which
``.ci/run`` calls) is driven through Playwright with ``executable_path``;
no browser is ever downloaded. Outside CI the tests skip when the browser is
missing; in CI (``CI`` set) they fail instead, so they can never be silently
skipped there. Every wait is bounded; the server listens on 127.0.0.1 only.
"""

from __future__ import annotations

import base64
import os
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import savecraft
from savecraft import api, diff, spans
from savecraft.formats.tirnanog.game.sample import build_sample_game
from savecraft.formats.tirnanog.save import sample

CHROMIUM = "/usr/bin/chromium"
WAIT_MS = 15_000
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]

if not Path(CHROMIUM).exists():
    if os.environ.get("CI"):
        raise RuntimeError(f"{CHROMIUM} is missing: run scripts/install-browser.sh (as .ci/run does)")
    pytest.skip(f"{CHROMIUM} is missing (scripts/install-browser.sh installs it)", allow_module_level=True)

sync_api = pytest.importorskip("playwright.sync_api") if not os.environ.get("CI") else \
    __import__("playwright.sync_api", fromlist=["sync_playwright"])


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("studio")
    model = sample.server_save(users=30)
    (d / "world.sav").write_bytes(savecraft.build(model))
    (d / "edit.sav").write_bytes(savecraft.build(model))
    model.chunks[5].entity.y = 7
    (d / "other.sav").write_bytes(savecraft.build(model))
    (d / "game.tng").write_bytes(build_sample_game())
    return d


@pytest.fixture(scope="module")
def studio(folder: Path) -> Iterator[str]:
    """A real ``savecraft studio`` with world.sav and game.tng open; yields its address with token."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "savecraft", "studio", str(folder / "world.sav"), str(folder / "game.tng"),
         "--no-browser", "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert proc.stdout is not None
        url = ""
        for _ in range(10):
            line = proc.stdout.readline()
            if "http://127.0.0.1:" in line:
                url = line.strip()
                break
        assert url, "the studio printed no address"
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as p, tempfile.TemporaryDirectory() as profile:
        context = p.chromium.launch_persistent_context(
            profile, executable_path=CHROMIUM, headless=True, args=ARGS,
            viewport={"width": 1400, "height": 900})
        context.set_default_timeout(WAIT_MS)
        try:
            yield context
        finally:
            context.close()


@pytest.fixture()
def page(browser: Any, studio: str) -> Iterator[Any]:
    pg = browser.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.goto(studio)
    pg.wait_for_selector("body[data-ready='1']")
    pg.click("#view-fields")  # these tests work in the field tree (the page opens on the overview)
    yield pg
    pg.close()
    assert not errors, errors


def select_path(pg: Any, *paths: str) -> None:
    """Click down the tree, one row per path, as a person would."""
    for path in paths:
        pg.click(f".row[data-path='{path}']")
    pg.wait_for_selector(f"body[data-highlighted='{paths[-1]}']")


def selected_offsets(pg: Any) -> list[int]:
    return sorted(pg.eval_on_selector_all(".hex-bytes .b.sel", "ns => ns.map(n => Number(n.dataset.o))"))


def test_request_without_the_token_is_refused(studio: str) -> None:
    base = studio.split("?")[0]
    for path in ("", "api/docs", "static/app.js"):
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(base + path, timeout=10)
        assert refused.value.code == 403


def test_select_a_field_highlights_its_bytes(page: Any, folder: Path) -> None:
    data = (folder / "world.sav").read_bytes()
    own = spans.record(data).span_of("users[1].entity.x")
    assert own is not None
    select_path(page, "chunks", "users[1]", "users[1].entity", "users[1].entity.x")  # chunk 4: the 2nd user
    assert page.input_value(".hex-space") == own.space
    assert selected_offsets(page) == list(range(own.offset, own.end))
    shown = page.eval_on_selector_all(".hex-bytes .b.sel", "ns => ns.map(n => n.textContent).join('')")
    value = api.parse(data).chunks[4].entity.x
    assert bytes.fromhex(shown) == value.to_bytes(4, "little", signed=True)


def test_click_a_byte_selects_its_field(page: Any, folder: Path) -> None:
    own = spans.record((folder / "world.sav").read_bytes()).span_of("users[2].name")
    assert own is not None
    page.select_option(".hex-space", own.space)
    page.fill(".hex-goto", str(own.offset))
    page.press(".hex-goto", "Enter")
    page.click(f".hex-bytes .b[data-o='{own.offset + 1}']")
    page.wait_for_selector(".row.selected[data-path='users[2].name']")
    page.wait_for_selector("body[data-highlighted='users[2].name']")
    assert selected_offsets(page) == list(range(own.offset, own.end))


def test_edit_undo_refuse_and_save(page: Any, folder: Path) -> None:
    target = folder / "edit.sav"
    original = target.read_bytes()
    page.fill("#open-path", str(target))
    page.click("#open-form button")
    page.wait_for_selector("#tabs button.active:has-text('edit.sav')")
    page.wait_for_selector("body[data-problems-ready]")
    select_path(page, "chunks", "users[1]", "users[1].entity", "users[1].entity.x")  # chunk 4: the 2nd user
    page.fill("#edit-value", "99999999999")
    page.click("#edit-apply")
    page.wait_for_selector("#edit-result[data-accepted='false']")
    assert "2147483647" in page.inner_text("#edit-result .refusal")
    assert page.is_disabled("#save-button") and page.inner_text("#undo-button") == "Undo (0)"

    page.fill("#edit-value", "1234")
    page.click("#edit-apply")
    page.wait_for_selector("#edit-result[data-accepted='true']")
    recomputed = page.inner_text("#edit-result .recomputed")
    assert "crc" in recomputed and "payload" in recomputed
    page.wait_for_selector("#undo-button:has-text('Undo (1)')")
    page.click("#undo-button")
    page.wait_for_selector("#undo-button:has-text('Undo (0)')")

    select_path(page, "users[1].entity.y")
    page.fill("#edit-value", "4321")
    page.click("#edit-apply")
    page.wait_for_selector("#edit-result[data-accepted='true']")
    page.wait_for_selector(".row[data-path='users[1].entity.y'] .value:has-text('4321')")
    assert target.read_bytes() == original
    page.click("#save-button")
    page.wait_for_selector("body[data-saved]")
    assert Path(str(target) + ".bak").read_bytes() == original
    assert api.validate(target).ok
    changes = diff.diff_files(str(target) + ".bak", target).changes
    assert [(c.path, c.new) for c in changes] == [("users[1].entity.y", 4321)]


def test_compare_two_files(page: Any, folder: Path) -> None:
    page.fill("#open-path", str(folder / "other.sav"))
    page.click("#open-form button")
    page.wait_for_selector("#tabs button.active:has-text('other.sav')")
    page.click("#compare-button")
    page.wait_for_selector("body[data-compare-ready]")  # compared at once: the file in front and
    shown = page.eval_on_selector_all("#compare select", "ss => ss.map(s => s.options[s.selectedIndex].text)")
    assert shown[0].startswith("other.sav") and shown[1].startswith("world.sav")  # one of its format
    for side, name in (("#compare-a", "world.sav"), ("#compare-b", "other.sav")):
        page.select_option(side, label=page.eval_on_selector(
            side, f"s => [...s.options].find(o => o.text.startsWith('{name}')).text"))
    page.evaluate("document.getElementById('compare-list').replaceChildren()")
    page.click("#compare-run")
    page.wait_for_selector("#compare-list .change")
    rows = page.eval_on_selector_all("#compare-list .change", "ns => ns.map(n => n.dataset.path)")
    assert rows == ["users[2].entity.y"]
    page.click("#compare-list .change")
    page.wait_for_selector("body[data-compare-shown]")
    for side in ("#compare-hex-a", "#compare-hex-b"):
        assert page.eval_on_selector_all(f"{side} .b.sel", "ns => ns.length") == 4


def test_an_inflated_asset_is_browsable_and_linked(page: Any) -> None:
    page.click("#tabs button:has-text('game.tng')")
    page.wait_for_selector("body[data-tree-ready='d2']")
    select_path(page, "sections", "sections[26]", "sections[26].npcs", "sections[26].npcs[2]",
                "sections[26].npcs[2].asset", "sections[26].npcs[2].asset.value",
                "sections[26].npcs[2].asset.value.title")
    assert page.input_value(".hex-space") == "sections[26].npcs[2].asset"  # the asset's own inflated bytes
    offsets = selected_offsets(page)
    assert offsets == [0, 1, 2]
    page.click(".row[data-path='sections[26].npcs[2].asset.value.speed']")
    page.wait_for_selector("body[data-highlighted='sections[26].npcs[2].asset.value.speed']")
    page.click(".hex-bytes .b[data-o='1']")
    page.wait_for_selector(".row.selected[data-path='sections[26].npcs[2].asset.value.title']")


def test_a_problem_selects_its_field_and_bytes(page: Any, folder: Path) -> None:
    broken = bytearray((folder / "world.sav").read_bytes())
    broken[-2] ^= 0xFF
    (folder / "broken.sav").write_bytes(bytes(broken))
    page.fill("#open-path", str(folder / "broken.sav"))
    page.click("#open-form button")
    page.wait_for_selector("#tabs button.active:has-text('broken.sav')")
    page.wait_for_selector(".problem.error")
    assert "crc" in page.inner_text(".problem.error")
    page.click(".problem.error")  # the CRC is computed, not a model field: its bytes are shown
    page.wait_for_function("() => document.querySelectorAll('.hex-bytes .b.sel').length === 4",
                           polling=100)
    assert selected_offsets(page) == list(range(len(broken) - 4, len(broken)))


def test_drop_a_file_on_the_page(page: Any) -> None:
    data = savecraft.build(sample.player_save())
    page.evaluate("""async (b64) => {
        const bytes = Uint8Array.from(atob(b64), c => c.charCodeAt(0));
        const dt = new DataTransfer();
        dt.items.add(new File([bytes], "dropped.sav"));
        window.dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
    }""", base64.b64encode(data).decode())
    page.wait_for_selector("#tabs button.active:has-text('dropped.sav')")
    page.click("#view-overview")  # a player save's preview is on its overview
    page.wait_for_selector(".picture[data-name='preview'][data-drawn]")
    pixels, colours = drawn_pixels(page, ".picture[data-name='preview'] canvas")
    assert pixels == 256 * 256 and colours > 3
    dropped = page.get_attribute("#tabs button.active", "data-doc")
    page.click(f"#tabs button[data-close='{dropped}']")
    page.wait_for_selector(f"#tabs button[data-doc='{dropped}']", state="detached")
    page.wait_for_selector("#tabs button.active")  # another file is in front


def drawn_pixels(page: Any, selector: str) -> tuple[int, int]:
    """(pixels not fully transparent, distinct colours) of a canvas."""
    result: list[int] = page.eval_on_selector(selector, """c => {
        const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        let n = 0; const colours = new Set();
        for (let i = 0; i < d.length; i += 4) {
            if (d[i + 3]) { n++; if (colours.size < 64) colours.add(d[i] << 16 | d[i + 1] << 8 | d[i + 2]); }
        }
        return [n, colours.size];
    }""")
    return result[0], result[1]


def test_game_map_and_atlas_are_drawn(page: Any) -> None:
    page.click("#tabs button:has-text('game.tng')")
    page.click("#view-overview")  # the maps, large, on the game's overview
    page.wait_for_selector(".picture[data-name='map-0'][data-drawn]")
    page.wait_for_selector(".picture[data-name='atlases-0']", state="attached")
    page.click("#view-pictures")  # atlases, sprites and scripts
    page.wait_for_selector(".picture[data-name='atlases-0'][data-drawn]")
    pixels, colours = drawn_pixels(page, ".picture[data-name='map-0'] canvas")
    assert pixels > 10_000 and colours > 3
    pixels, colours = drawn_pixels(page, ".picture[data-name='atlases-0'] canvas")
    assert pixels > 100 and colours > 3
    page.click("#view-overview")
    fitted = drawn_pixels(page, ".picture[data-name='map-0'] canvas")
    page.click(".picture[data-name='map-0'] .layers button:has-text('+')")
    zoomed = drawn_pixels(page, ".picture[data-name='map-0'] canvas")
    assert zoomed[0] > fitted[0]  # zoomed in, the map covers more of the canvas
    page.uncheck(".picture[data-name='map-0'] input[data-layer='0']")  # the ground layer
    page.wait_for_selector(".picture[data-name='map-0'][data-loads='2']")
    assert drawn_pixels(page, ".picture[data-name='map-0'] canvas")[0] < zoomed[0]
