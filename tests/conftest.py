"""Shared test settings: hypothesis runs the same examples on every machine; the real samples.

Tests live in folders by area (core, angband, tirnanog, qfg5, net, studio, cli, tables);
helpers an area shares are in its ``support.py`` (or ``strategies.py`` for hypothesis), never
imported from another test module. Where the real samples are is known in one place,
:mod:`tests.samples`; a test that reads them is marked ``real_samples`` (or asks for the
fixture of that name), is skipped when they are absent, and the run ends with a line that
says how many such tests were skipped.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from tests import samples

settings.register_profile(
    "ci",
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    print_blob=True,
)
settings.register_profile("dev", max_examples=300, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test that asks for the ``real_samples`` fixture carries the marker too (so it is counted)."""
    for item in items:
        if "real_samples" in getattr(item, "fixturenames", ()):
            item.add_marker(samples.real_samples)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    # First, before skipif marks: a test over an empty list of sample files would else be
    # skipped as "got empty parameter set", not as missing samples, even when they are required.
    if item.get_closest_marker("real_samples") is not None:
        samples.require()


@pytest.fixture(scope="session")
def real_samples() -> Path:
    """The folder of real samples (the test is skipped when it is absent)."""
    samples.require()
    return samples.SAMPLES


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """One line: where the samples were looked for, and how many tests skipped for want of them."""
    skipped = [r for r in terminalreporter.stats.get("skipped", ()) if samples.MISSING in str(r.longrepr)]
    where = "found" if samples.PRESENT else "not found"
    terminalreporter.write_line(
        f"real samples {where} at {samples.SAMPLES}: {len(skipped)} real-sample tests skipped")
