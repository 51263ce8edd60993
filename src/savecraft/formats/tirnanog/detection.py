"""How the registry recognises TirNanoG files before importing a plugin: saved games and game files.

Imports nothing but the registry: every detection module is imported on every
detection, so it must cost nothing (see :mod:`savecraft.registry`).
"""

from __future__ import annotations

from ...registry import Plugin, starts_with

DETECTION = (
    Plugin("tirnanog-save", "savecraft.formats.tirnanog.save", starts_with(b"TNG Saved Game\n\0"),
           tables="savecraft.formats.tirnanog.save.tables", order=100),
    # A game file (.tng) begins with the engine's shebang line.
    Plugin("tirnanog-game", "savecraft.formats.tirnanog.game", starts_with(b"#!/usr/bin/tngp\n"),
           tables="savecraft.formats.tirnanog.game.tables", order=200),
)
