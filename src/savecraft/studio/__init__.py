"""``savecraft studio``: a local web application over the library.

The server (:mod:`.server`) is an aiohttp application in the same process as
the library; the page is plain ES modules shipped in ``static/`` (no build
step, nothing loaded from the network). Everything the page shows comes from
format-neutral views of the models: the field tree (:mod:`.tree`), the bytes
and their field spans (:mod:`.hexview`), problems, edits and diffs
(:mod:`.documents`); pictures (:mod:`.pictures`) and reference names
(:mod:`.refnames`) come from the format's own hooks. The studio names no format.
"""

from __future__ import annotations

__all__ = ["documents", "hexview", "pictures", "refnames", "server", "tree"]
