"""The load test's report says how to lift the server's registration limits when they refused bots.

Run against a server started with its defaults, 190 of 200 bots were refused
(10 registrations per address) and the report only said
``refused: {'TOO_MANY_REGISTRATIONS': 190}``.
"""

from __future__ import annotations

from savecraft.net.loadtest import LoadReport


def test_refused_registrations_name_the_serve_options_that_lift_them() -> None:
    report = LoadReport(clients=200, rate=5, duration=10, logged_in=10,
                        refused={"TOO_MANY_REGISTRATIONS": 190})
    text = "\n".join(report.lines())
    assert "refused: {'TOO_MANY_REGISTRATIONS': 190}" in text
    assert "--registrations-per-address 0 --registrations-per-minute 0" in text
    clean = "\n".join(LoadReport(clients=2, rate=1, duration=1, logged_in=2).lines())
    assert "refused" not in clean and "registrations-per" not in clean
