"""How the registry recognises a Quest for Glory 5 savegame before importing the plugin.

Imports nothing but the registry: every detection module is imported on every
detection, so it must cost nothing (see :mod:`savecraft.registry`).
"""

from __future__ import annotations

from ...registry import Plugin, starts_with

DETECTION = (
    # The game writes "QG5P1.000 " first (codec.MAGIC; the real sniffer checks more).
    Plugin("qfg5-save", "savecraft.formats.qfg5.save", starts_with(b"QG5P1.000 "),
           tables="savecraft.formats.qfg5.tables", order=500),
)
