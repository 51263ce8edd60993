"""Where the real samples are: the one place the tests learn it.

The real samples are files the games themselves wrote (``../shared/samples`` beside the
checkout, see its README); they are not part of the repository. ``$SAVECRAFT_SAMPLES``
names another folder. A test that reads one carries the ``real_samples`` marker (or
asks for the ``real_samples`` fixture, which returns :data:`SAMPLES`): without the folder
it is skipped with "real samples not found at PATH", and with
``SAVECRAFT_REQUIRE_SAMPLES=1`` it fails instead, so a run that must cover them cannot
pass by skipping. The conftest counts these skips at the end of every run.

Module-level paths (``SAMPLES / "angband-block" / ...``) and globs are safe without the
folder: they name files that do not exist, and a glob finds none.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SAMPLES = Path(os.environ.get("SAVECRAFT_SAMPLES") or REPO.parent / "shared" / "samples")
PRESENT = SAMPLES.is_dir()
REQUIRED = os.environ.get("SAVECRAFT_REQUIRE_SAMPLES", "") not in ("", "0")
MISSING = f"real samples not found at {SAMPLES}"

real_samples = pytest.mark.real_samples
"""The marker: ``@real_samples`` on a test or class, ``pytestmark = real_samples`` on a module."""


def require() -> None:
    """Skip the running test when the samples are absent (fail when they are required)."""
    if PRESENT:
        return
    if REQUIRED:
        pytest.fail(f"{MISSING} (SAVECRAFT_REQUIRE_SAMPLES is set)", pytrace=False)
    # Reported at the test's own line (as a skipif mark is), not at this one: -rs then lists
    # which tests were skipped, not one line here for all of them.
    raise pytest.skip.Exception(MISSING, _use_item_location=True)
