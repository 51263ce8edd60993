"""Format-independent tests: layouts, binary, JSON, paths, files, spans, compression, robustness, typing, import graph."""
