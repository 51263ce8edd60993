"""First paint and first interaction of the studio, in Chromium, for a huge save, a large game and a real save.

Three files, each opened by a fresh ``savecraft studio FILE`` on 127.0.0.1 and
loaded by Debian's chromium (Playwright, ``executable_path``; nothing is
downloaded):

* a TirNanoG server save with 50,000 players (20 attributes and 30 items
  each, as ``bench_save_load.py``);
* a 128 MiB ``.tng`` (movie assets and large maps, as ``bench_tng_open.py``);
* the real Angband save ``vanilla-4.2_Aduial.sav`` from /work/shared/samples.

For each, measured in the page (``performance.now()``, from navigation start):

* **overview**: the format plugin's summary painted (the view a file opens on);
* **tree**: the field tree painted;
* **bytes**: the first rows of the file's bytes painted (untinted: they need
  no field spans), then **tinted**: painted again with every byte coloured by
  its field, once the server has recorded the spans;
* **problems**: the ``validate`` list shown (it runs in the background);
* **first interaction**: right after the tree is painted, the clicks a person
  makes to reach one field (open the list, the record, select the field), from
  the first click to that field's bytes highlighted in the hex view, and the
  last click (selecting the field) alone.

The issue's goal: a 50,000-user save usable (tree, hex, problems, field
selection) within 2 s of opening. The paints are set beside ``savecraft info
FILE`` in a fresh process (the command-line way to see the same file: start-up,
plugin import, load and print) timed in the same run, alternating browser and
baseline runs, medians of ``--repeat``. Screenshots of each file's overview and field
view go to ``--shots``.

    python3 bench/bench_studio_paint.py [--users 50000] [--tng-mb 128] [--repeat 3] [--shots DIR]

``--against SRC`` (another checkout's ``src`` folder, such as the main branch's)
runs that studio too, alternating with this one run by run on the same files
in the same browser, and prints both rows and their ratios: before and after
a change, measured in one run on the same loaded machine.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from statistics import median
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

import savecraft  # noqa: E402
from savecraft.formats.tirnanog.save import sample  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
ADUIAL = Path("/work/shared/samples/angband-block-variants/vanilla-4.2_Aduial.sav")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]

# The rows a person clicks to reach one field of each file, as the tree names them.
CLICKS = {
    "save": ["chunks", "users[3]", "users[3].entity", "users[3].entity.x"],
    "tng": ["header", "header.game_id"],
    "angband": ["blocks", "player", "player.au"],
}


def start_studio(path: Path, src: str | None = None) -> tuple[subprocess.Popen[str], str]:
    """A fresh ``savecraft studio FILE``: this checkout's, or the one whose ``src`` folder is given."""
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = src
    proc = subprocess.Popen([sys.executable, "-m", "savecraft", "studio", str(path), "--no-browser",
                             "--port", "0"], stdout=subprocess.PIPE, text=True, env=env)
    assert proc.stdout is not None
    for _ in range(10):
        line = proc.stdout.readline()
        if "http://127.0.0.1:" in line:
            return proc, line.strip()
    proc.terminate()
    raise RuntimeError("the studio printed no address")


CLICK_JS = """async (paths) => {
    const rowOf = (p) => document.querySelector(`.row[data-path="${CSS.escape(p)}"]`);
    const until = (test) => new Promise((resolve, reject) => {
        const t0 = performance.now();
        const poll = () => { if (test()) resolve(); else if (performance.now() - t0 > 120000) reject(new Error('timeout')); else requestAnimationFrame(poll); };
        poll();
    });
    const start = performance.now();
    let last = start;
    for (const p of paths) {
        await until(() => rowOf(p));
        last = performance.now();
        rowOf(p).click();
    }
    const leaf = paths[paths.length - 1];
    await until(() => document.body.dataset.highlighted === leaf && document.querySelector('.hex-bytes .b.sel'));
    const end = performance.now();
    return { all: end - start, last: end - last };
}"""


def measure(context: Any, path: Path, label: str, shots: Path | None, limit_s: float,
            src: str | None = None) -> dict[str, float]:
    """One fresh studio and page; a stage not done within ``limit_s`` counts as inf (reported as such)."""
    from playwright.sync_api import Error as PlaywrightError

    proc, url = start_studio(path, src)
    inf = float("inf")
    try:
        page = context.new_page()
        page.set_default_timeout(limit_s * 1000)
        page.goto(url)
        page.wait_for_selector("body[data-tree-ready]")
        page.evaluate("window.studio.setView('fields')")
        try:
            clicks = page.evaluate(CLICK_JS.replace("120000", str(int(limit_s * 1000))), CLICKS[label])
        except PlaywrightError:
            clicks = {"all": inf, "last": inf}
        for stage in ("hex", "problems"):
            try:
                page.wait_for_selector(f"body[data-{stage}-ready]")
            except PlaywrightError:
                pass
        times = page.evaluate("Object.values(window.studio.timings)[0]")
        if shots is not None:
            page.screenshot(path=str(shots / f"studio-{label}-fields.png"))
            page.evaluate("window.studio.setView('overview')")
            page.wait_for_timeout(500)
            page.screenshot(path=str(shots / f"studio-{label}-overview.png"))
        page.close()
        return {"overview": times.get("overviewPaint", inf), "tree": times["treePaint"],
                "bytes": times.get("bytesPaint", inf), "hex": times.get("hexPaint", inf),
                "problems": times.get("problemsPaint", inf),
                "interaction": clicks["all"], "select": clicks["last"]}
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def info_ms(path: Path) -> float:
    """Milliseconds of ``savecraft info FILE`` in a fresh process: the other way a person sees the file.

    (A ``savecraft.load`` in this process would be warm after the first run, the plugin imported
    and caches filled, while each studio starts cold.)
    """
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "savecraft", "info", str(path)], stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=False)
    return (time.perf_counter() - t) * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--users", type=int, default=50_000)
    ap.add_argument("--tng-mb", type=int, default=128)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--shots", default=None, help="folder for screenshots (default: none)")
    ap.add_argument("--only", choices=sorted(CLICKS), action="append", help="measure only this file")
    ap.add_argument("--limit", type=float, default=120, help="seconds a stage may take before it counts as inf")
    ap.add_argument("--against", default=None, metavar="SRC",
                    help="another checkout's src folder: its studio is measured too, alternating (before/after)")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    from bench_tng_open import make_game

    shots = Path(args.shots) if args.shots else None
    if shots is not None:
        shots.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="bench-studio-") as tmp:
        folder = Path(tmp)
        files: dict[str, Path] = {}
        wanted = args.only or list(CLICKS)
        if "save" in wanted:
            files["save"] = folder / "server.sav"
            files["save"].write_bytes(savecraft.build(sample.server_save(users=args.users, attributes=20, items=30)))
        if "tng" in wanted:
            files["tng"] = folder / "big.tng"
            files["tng"].write_bytes(make_game(args.tng_mb))
        if "angband" in wanted:
            if ADUIAL.exists():
                files["angband"] = ADUIAL
            else:
                print(f"angband: {ADUIAL} is missing, skipped")
        for label, path in files.items():
            print(f"{label}: {path.name}, {path.stat().st_size / 2**20:,.1f} MiB")
        with sync_playwright() as p, tempfile.TemporaryDirectory() as profile:
            context = p.chromium.launch_persistent_context(
                profile, executable_path=CHROMIUM, headless=True, args=ARGS,
                viewport={"width": 1440, "height": 900})
            try:
                for label, path in files.items():
                    runs: list[dict[str, float]] = []
                    others: list[dict[str, float]] = []
                    base: list[float] = []
                    for r in range(args.repeat):  # alternating: baseline, browser (, the other studio), ...
                        base.append(info_ms(path))
                        runs.append(measure(context, path, label, shots if r == 0 else None, args.limit))
                        if args.against:
                            others.append(measure(context, path, label, None, args.limit, args.against))
                    b = median(base)
                    rows = [("this checkout", runs)] + ([(f"against {args.against}", others)] if others else [])
                    medians = {}
                    for name, got in rows:
                        m = medians[name] = {k: median(run[k] for run in got) for k in got[0]}
                        usable = max(m["tree"], m["bytes"], m["problems"], m["tree"] + m["interaction"])
                        m["usable"] = usable
                        print(f"{label} ({name}): savecraft info {b:,.0f} ms | from navigation start: overview {m['overview']:,.0f} ms "
                              f"({m['overview'] / b:.2f}x info), tree {m['tree']:,.0f} ms ({m['tree'] / b:.2f}x info), bytes {m['bytes']:,.0f} ms, "
                              f"bytes tinted by their fields {m['hex']:,.0f} ms, "
                              f"problems {m['problems']:,.0f} ms | first interaction: {m['interaction']:,.0f} ms to reach "
                              f"{CLICKS[label][-1]} ({len(CLICKS[label])} clicks), selecting it {m['select']:,.0f} ms | "
                              f"usable (tree, bytes, problems, a field reached and its bytes shown) by {usable:,.0f} ms"
                              + (f" (inf: not done within {args.limit:.0f} s)" if usable == float("inf") else ""))
                    if others:
                        new, old = medians[rows[0][0]], medians[rows[1][0]]
                        print(f"{label}: this checkout / the other, medians: " + ", ".join(
                            f"{k} {new[k] / old[k]:.2f}x" for k in ("overview", "tree", "bytes", "hex", "problems",
                                                                     "interaction", "select", "usable")
                            if old[k] not in (0, float("inf"))))
            finally:
                context.close()


if __name__ == "__main__":
    main()
