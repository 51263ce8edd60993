"""The studio's timeline in a real browser (issue 22): a character's gold across six saves.

A folder holds six copies of the real ``vanilla-4.2_Aduial.sav``, the gold set in each through
``savecraft.edit`` (as six saves of one character over time), and a text file. Through the page:
open the folder, pick the field that changes, read its value per save in the table and the chart,
leave a save out, and go from a row to that save's field. Every wait is bounded; a screenshot of
the timeline goes to ``$SAVECRAFT_SHOTS`` (else the test's temporary folder).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from savecraft import edit
from tests.samples import SAMPLES, real_samples

CHROMIUM = "/usr/bin/chromium"
ADUIAL = SAMPLES / "angband-block-variants" / "vanilla-4.2_Aduial.sav"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
GOLD = [672848, 680000, 655000, 700123, 700123, 1200]

if not Path(CHROMIUM).exists():
    if os.environ.get("CI"):
        raise RuntimeError(f"{CHROMIUM} is missing: run scripts/install-browser.sh (as .ci/run does)")
    pytest.skip(f"{CHROMIUM} is missing (scripts/install-browser.sh installs it)", allow_module_level=True)
pytestmark = real_samples  # every test opens Aduial, a real save

sync_api = pytest.importorskip("playwright.sync_api") if not os.environ.get("CI") else \
    __import__("playwright.sync_api", fromlist=["sync_playwright"])


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("aduial-over-time")
    data = ADUIAL.read_bytes()
    for i, gold in enumerate(GOLD, 1):
        (d / f"aduial-{i}.sav").write_bytes(edit.edit_bytes(data, {"player.au": str(gold)}, text=True).data)
    (d / "notes.txt").write_text("the dungeon, week by week\n")
    return d


@pytest.fixture(scope="module")
def studio() -> Iterator[str]:
    proc = subprocess.Popen([sys.executable, "-m", "savecraft", "studio", "--no-browser", "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
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


@pytest.fixture()
def page(studio: str) -> Iterator[Any]:
    with sync_api.sync_playwright() as p, tempfile.TemporaryDirectory() as profile:
        context = p.chromium.launch_persistent_context(profile, executable_path=CHROMIUM, headless=True, args=ARGS,
                                                       viewport={"width": 1440, "height": 900})
        context.set_default_timeout(30_000)
        pg = context.new_page()
        errors: list[str] = []
        pg.on("pageerror", lambda e: errors.append(str(e)))
        pg.goto(studio)
        pg.wait_for_selector("body[data-ready='1']")
        try:
            yield pg
        finally:
            context.close()
        assert not errors, errors


def test_gold_across_six_saves(page: Any, folder: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    shots = Path(os.environ.get("SAVECRAFT_SHOTS") or tmp_path_factory.mktemp("shots"))
    shots.mkdir(parents=True, exist_ok=True)
    page.click("#timeline-button")
    page.fill("#timeline-folder", str(folder))
    page.press("#timeline-folder", "Enter")
    page.wait_for_selector("body[data-timeline-fields='1']", timeout=90_000)  # only the gold changes
    assert "1 skipped" in page.inner_text("#toast")  # the text file: skipped, not shown
    names = page.eval_on_selector_all("#timeline-files label", "ls => ls.map(l => l.innerText.trim())")
    assert names == [f"aduial-{i}.sav" for i in range(1, 7)]
    page.click("#timeline-fields .change[data-path='player.au']")
    page.wait_for_selector("body[data-timeline-ready='player.au']", timeout=60_000)

    rows = page.eval_on_selector_all("#timeline-table tbody tr", "rs => rs.map(r => [...r.cells].map(c => c.innerText))")
    assert [r[1] for r in rows] == [f"aduial-{i}.sav" for i in range(1, 7)]
    assert [int(r[2].replace(",", "")) for r in rows] == GOLD
    assert [r[3] for r in rows] == ["", "+7,152", "−25,000", "+45,123", "=", "−698,923"]
    # The chart: one mark per save, higher gold higher up (smaller y), joined by one line.
    marks = page.eval_on_selector_all("#timeline-chart circle.point", "cs => cs.map(c => Number(c.getAttribute('cy')))")
    assert len(marks) == 6
    assert sorted(range(6), key=lambda i: marks[i]) == sorted(range(6), key=lambda i: -GOLD[i])
    assert page.eval_on_selector_all("#timeline-chart polyline", "ls => ls.length") == 1
    page.screenshot(path=str(shots / "timeline-gold.png"))

    # Leave the last save out: five rows.
    page.uncheck("#timeline-files input >> nth=5")
    page.wait_for_function("() => document.querySelectorAll('#timeline-table tbody tr').length === 5")

    # A row goes to that save's field: its tab, the Fields view, the gold's bytes highlighted.
    third = page.get_attribute("#timeline-table tbody tr:nth-child(3)", "data-doc")
    page.click("#timeline-table tbody tr:nth-child(3)")
    page.wait_for_selector("#timeline", state="hidden")
    page.wait_for_selector(f"body[data-tree-ready='{third}']")
    page.wait_for_selector("body[data-highlighted='player.au']", timeout=60_000)
    assert page.get_attribute("#tabs button.active", "data-doc") == third
    assert "655,000" in page.inner_text(".row.selected") or "655000" in page.inner_text(".row.selected")
