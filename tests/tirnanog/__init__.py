"""TirNanoG: the .tng game file and its saved games."""
