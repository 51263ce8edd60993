"""TirNanoG: saved games, game files (.tng) and the pieces they share."""
