"""Time to first paint of the studio's field tree, in a real browser, for a huge save and a large game.

Generates a TirNanoG server save with 50,000 players (20 attributes and 30
items each, as ``bench_save_load.py``) and a large ``.tng`` (movie assets and
512 x 512 maps, as ``bench_tng_open.py``), starts ``savecraft studio`` on
127.0.0.1 and drives Debian's chromium (Playwright, ``executable_path``) to:

* load the page with the file given on the command line: navigation start to
  the tree painted (the server reads the model on the first tree request);
* open the same file again through the page's "open by path" box: the call
  to the tree painted (read, detect, parse, first page of the tree).

Each is set beside ``savecraft.load`` timed in this run (the least any viewer
must do; for the open by path, reading the file and loading it), as a ratio. Screenshots go to ``--shots``.

    python3 bench/bench_studio_paint.py [--users 50000] [--tng-mb 512] [--shots DIR]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from statistics import median

sys.path.insert(0, str(Path(__file__).parent))

import savecraft  # noqa: E402
from savecraft.formats.tirnanog.save import sample  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def start_studio(path: Path) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen([sys.executable, "-m", "savecraft", "studio", str(path), "--no-browser",
                             "--port", "0"], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    for _ in range(10):
        line = proc.stdout.readline()
        if "http://127.0.0.1:" in line:
            return proc, line.strip()
    proc.terminate()
    raise RuntimeError("the studio printed no address")


def measure(context: object, path: Path, shots: Path, label: str, repeat: int) -> dict[str, float]:
    proc, url = start_studio(path)
    try:
        page = context.new_page()  # type: ignore[attr-defined]
        page.set_default_timeout(120_000)
        page.goto(url)
        page.wait_for_selector("body[data-tree-ready]")
        first = page.evaluate("Object.values(window.studio.timings)[0].treePaint")
        reopen = []
        for _ in range(repeat):
            # Let the previous open finish its background work (validate, spans) first.
            page.wait_for_selector("body[data-problems-ready]", timeout=300_000)
            page.evaluate("document.body.removeAttribute('data-problems-ready')")
            t = page.evaluate(f"""async () => {{
                const t0 = performance.now();
                await window.studio.openPath({str(path)!r});
                const docs = [...window.studio.docs.keys()];
                return window.studio.timings[docs[docs.length - 1]].treePaint - t0;
            }}""")
            reopen.append(t)
        page.wait_for_selector("body[data-problems-ready]", timeout=300_000)
        page.click(".row[data-path='chunks'], .row[data-path='sections']")
        page.wait_for_timeout(1500)
        if label == "save":
            page.click(".row[data-path='chunks[3]']")
            page.click(".row[data-path='chunks[3].entity']")
            page.click(".row[data-path='chunks[3].entity.x']")
            page.wait_for_selector("body[data-highlighted='chunks[3].entity.x']")
        else:
            page.wait_for_selector(".picture[data-kind='map'][data-drawn]", timeout=120_000)
        page.screenshot(path=str(shots / f"studio-{label}.png"))
        page.close()
        return {"first": first, "reopen": median(reopen)}
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def load_time(path: Path, repeat: int) -> tuple[float, float]:
    """Median ms of ``savecraft.load`` of the bytes, and of reading the file then loading it."""
    data = path.read_bytes()
    times, read = [], []
    for _ in range(repeat):
        t = time.perf_counter()
        savecraft.load(data)
        times.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        savecraft.load(path.read_bytes())
        read.append((time.perf_counter() - t) * 1000)
    return median(times), median(read)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--users", type=int, default=50_000)
    ap.add_argument("--tng-mb", type=int, default=512)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--shots", default=".")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    from bench_tng_open import make_game

    shots = Path(args.shots)
    shots.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="bench-studio-") as tmp:
        folder = Path(tmp)
        save = folder / "server.sav"
        save.write_bytes(savecraft.build(sample.server_save(users=args.users, attributes=20, items=30)))
        game = folder / "big.tng"
        game.write_bytes(make_game(args.tng_mb))
        print(f"save: {save.stat().st_size:,} bytes, {args.users:,} users; "
              f"game: {game.stat().st_size / 2**20:,.0f} MiB")
        with sync_playwright() as p, tempfile.TemporaryDirectory() as profile:
            context = p.chromium.launch_persistent_context(
                profile, executable_path=CHROMIUM, headless=True, args=ARGS,
                viewport={"width": 1500, "height": 900})
            try:
                for label, path in (("save", save), ("tng", game)):
                    base, with_read = load_time(path, args.repeat)
                    got = measure(context, path, shots, label, args.repeat)
                    print(f"{label}: savecraft.load {base:.0f} ms (with reading the file {with_read:.0f} ms); "
                          f"tree painted {got['first']:.0f} ms after navigation start "
                          f"({got['first'] / base:.1f}x load); opened by path in the page, tree painted "
                          f"after {got['reopen']:.0f} ms ({got['reopen'] / with_read:.1f}x read+load)")
            finally:
                context.close()


if __name__ == "__main__":
    main()
