"""The C extension is all or nothing: one interface version, checked at import, and
``savecraft --version`` says which accelerated paths run."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from savecraft import compiled



def test_a_stale_build_is_not_used() -> None:
    code = ("import sys, types; m = types.ModuleType('savecraft._speedups'); m.VERSION = 1; "
            "sys.modules['savecraft._speedups'] = m; from savecraft import compiled; "
            "assert compiled.speedups is None, compiled.speedups; print(compiled.status())")
    env = {k: v for k, v in os.environ.items() if k != "SAVECRAFT_PURE"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env)
    assert out.returncode == 0, out.stderr
    assert "stale build (interface 1, this savecraft needs 2)" in out.stdout


@pytest.mark.skipif(compiled.speedups is None, reason="the C extension is not built or is turned off")
def test_the_built_extension_has_this_interface() -> None:
    assert compiled.speedups is not None and compiled.speedups.VERSION == compiled.VERSION
    assert compiled.status().startswith("active")


def test_version_says_which_paths_run() -> None:
    out = subprocess.run([sys.executable, "-m", "savecraft", "--version"], capture_output=True, text=True,
                         timeout=60, env={**os.environ, "SAVECRAFT_PURE": "1"})
    assert out.returncode == 0
    assert out.stdout.splitlines()[1] == "accelerated paths: off (SAVECRAFT_PURE is set): pure Python paths"
