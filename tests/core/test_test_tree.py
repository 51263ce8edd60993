"""The tests stay findable (issue 19, section 4): a folder per area, no test module importing
another, and one place (tests/samples.py) that knows where the real samples are.

A test file added at the top of tests/ (as a branch made before the move would add it), a
helper imported from a test module, or a sample path worked out again in a test file fails
here with the file named, rather than working on one machine and skipping on the next.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
AREAS = {"core", "angband", "tirnanog", "qfg5", "net", "studio", "cli", "tables"}
# Finding the samples again: the library's own look-up, a path beside the checkout, a fixed path.
OWN_SAMPLES = re.compile(r'import samples_folder|"shared" / "samples"|Path\("/work/shared')


def _modules() -> list[Path]:
    return sorted(p for p in TESTS.rglob("*.py") if "data" not in p.relative_to(TESTS).parts)


def test_every_test_file_is_in_the_folder_of_its_area() -> None:
    misplaced = [str(p.relative_to(TESTS)) for p in TESTS.rglob("test_*.py")
                 if len(p.relative_to(TESTS).parts) != 2 or p.parent.name not in AREAS]
    assert not misplaced, f"move these into tests/<area>/ ({', '.join(sorted(AREAS))}): {misplaced}"
    assert {p.name for p in TESTS.iterdir() if p.is_dir() and (p / "__init__.py").is_file()} == AREAS


def test_no_test_module_imports_another_or_a_private_name() -> None:
    found = []
    for path in _modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom):
                continue
            module = node.module or ""
            local = node.level > 0 or module == "tests" or module.startswith("tests.")
            names = [a.name for a in node.names]
            if local and (module.split(".")[-1].startswith("test_") or any(n.startswith("test_") for n in names)):
                found.append(f"{path.relative_to(TESTS)}:{node.lineno} imports a test module")
            if local and any(n.startswith("_") for n in names):
                found.append(f"{path.relative_to(TESTS)}:{node.lineno} imports a private name {names}")
    assert not found, "\n".join(found)


def test_only_tests_samples_knows_where_the_samples_are() -> None:
    found = [f"{p.relative_to(TESTS)}:{n}" for p in _modules() if p.name != "samples.py" and p != Path(__file__).resolve()
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             if OWN_SAMPLES.search(line)]
    assert not found, "use tests.samples (SAMPLES, the real_samples marker or fixture): " + ", ".join(found)


def _pytest(folder: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """pytest run as a user runs it, on a file outside the tree, with the tree's conftest as a plugin."""
    clean = {k: v for k, v in os.environ.items() if k not in ("SAVECRAFT_SAMPLES", "SAVECRAFT_REQUIRE_SAMPLES")}
    clean["PYTHONPATH"] = os.pathsep.join(p for p in (str(TESTS.parent), clean.get("PYTHONPATH")) if p)
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "tests.conftest", "-p", "no:cacheprovider",
                           "-q", "-rs", str(folder)], cwd=TESTS.parent, env={**clean, **env},
                          capture_output=True, text=True, timeout=120)


def test_without_the_samples_their_tests_skip_saying_why_and_the_run_counts_them(tmp_path: Path) -> None:
    (tmp_path / "test_uses_samples.py").write_text(
        "from pathlib import Path\n\nfrom tests.samples import SAMPLES, real_samples\n\n\n"
        "@real_samples\ndef test_marked() -> None:\n    assert SAMPLES.is_dir()\n\n\n"
        "def test_fixture(real_samples: Path) -> None:\n    assert real_samples.is_dir()\n\n\n"
        "def test_plain() -> None:\n    pass\n", encoding="utf-8")
    absent = tmp_path / "no-samples-here"
    run = _pytest(tmp_path, SAVECRAFT_SAMPLES=str(absent))
    assert run.returncode == 0, run.stdout + run.stderr
    assert "1 passed, 2 skipped" in run.stdout, run.stdout
    assert run.stdout.count(f"real samples not found at {absent}") == 3, run.stdout  # two reasons, one total
    assert f"real samples not found at {absent}: 2 real-sample tests skipped" in run.stdout, run.stdout

    required = _pytest(tmp_path, SAVECRAFT_SAMPLES=str(absent), SAVECRAFT_REQUIRE_SAMPLES="1")
    assert required.returncode == 1, required.stdout + required.stderr
    assert "1 passed, 2 errors" in required.stdout, required.stdout
    assert "SAVECRAFT_REQUIRE_SAMPLES is set" in required.stdout, required.stdout

    absent.mkdir()
    present = _pytest(tmp_path, SAVECRAFT_SAMPLES=str(absent), SAVECRAFT_REQUIRE_SAMPLES="1")
    assert present.returncode == 0 and "3 passed" in present.stdout, present.stdout + present.stderr
    assert f"real samples found at {absent}: 0 real-sample tests skipped" in present.stdout, present.stdout
