"""Angband family: every game's blocks, real and game-written files, spans, speed."""
