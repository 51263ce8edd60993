"""Without the optional extras (pip install -e . alone, as the README's demo command does), every
module imports and the demo runs: an extra is imported only by the feature that needs it.

Found when moving imports to module tops: the game server imported its Prometheus endpoint at
the top, so ``savecraft demo`` in a fresh install stopped with "No module named
'prometheus_client'". The extras are blocked in a child process (a ``None`` in ``sys.modules``
makes their import fail), so the test holds whatever this machine has installed.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

# The optional dependencies of pyproject.toml's extras (and the test extra's), by import name.
EXTRAS = ("prometheus_client", "pyarrow", "duckdb", "dask", "distributed", "pyspark", "playwright",
          "kaitaistruct", "hypothesis", "uvloop", "pandas")
# The modules whose one job is an extra: they may not import without it.
NEEDS_ITS_EXTRA = {"savecraft.net.metrics", "savecraft.spark"}

BLOCK = "import sys\nfor name in %r:\n    sys.modules[name] = None\n" % (EXTRAS,)


def _child(code: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", BLOCK + code], capture_output=True, text=True,
                          timeout=300, cwd=cwd)


def test_every_module_imports_without_the_extras() -> None:
    done = _child("""
import importlib, pkgutil
import savecraft
failed = []
for m in pkgutil.walk_packages(savecraft.__path__, "savecraft."):
    if m.name.endswith("__main__"):
        continue
    try:
        importlib.import_module(m.name)
    except ImportError as exc:
        failed.append(m.name)
print(" ".join(sorted(failed)))
""")
    assert done.returncode == 0, done.stderr
    assert set(done.stdout.split()) == NEEDS_ITS_EXTRA


def test_the_demo_runs_without_the_extras(tmp_path: Path) -> None:
    done = _child("sys.argv = ['savecraft', 'demo']\nfrom savecraft.cli import main\nsys.exit(main())",
                  cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "internal error" not in done.stderr
    assert len(list((tmp_path / "demo-out").iterdir())) >= 8
