"""The optional C backends, one module per domain; use them only through :mod:`savecraft.compiled`.

``records`` (Angband object records and record programs), ``rle`` (TirNanoG tile
runs and Angband level runs) and ``bytewise`` (block checksums, the session XOR).
Importing a module here directly skips the version check that keeps a stale or
partial build from running.
"""
