"""Reading an input file without copying it: a read-only memory map for large regular files.

``fileio.read_input`` reads a whole file into one ``bytes``; the codecs then
slice it, and a 1 GiB file with a valid magic used to cost three times its
size before the first check failed. :func:`read_mapped` maps a large regular
file instead (the pages are the page cache's; only those a codec touches are
read), so a file that fails at offset 0x20 costs what it takes to read 0x20
bytes. Small files, pipes and devices are read as ``bytes``, as before.

The codecs accept either: every one slices with ``data[a:b]`` and reads
buffers through ``memoryview``. A map is closed when the last reference
goes, or with :func:`close`.
"""

from __future__ import annotations

import mmap
import os
import stat
from typing import Union

from .errors import SavecraftError

# Below this a plain read is as cheap as a map and keeps the old type.
MAP_THRESHOLD = 1 << 20  # the same as fileio.MAP_FROM

Mapped = Union[bytes, mmap.mmap]
PathLike = Union[str, "os.PathLike[str]"]


def read_mapped(source: PathLike | bytes | bytearray | memoryview, *,
                threshold: int = MAP_THRESHOLD) -> Mapped | bytes | bytearray | memoryview:
    """The input's bytes: a byte-like value as it is (no copy), a small file or a pipe as
    ``bytes``, a regular file of ``threshold`` bytes or more as a read-only ``mmap``.

    The one reader is :func:`savecraft.fileio.read_input`; this names its mapped mode.
    """
    from .fileio import read_input

    result: Mapped | bytes | bytearray | memoryview = read_input(source, map_from=threshold)
    return result


def close(data: object) -> None:
    """Unmap ``data`` if it is a map (a no-op for bytes); safe while views are still alive."""
    if isinstance(data, mmap.mmap):
        try:
            data.close()
        except BufferError:  # a memoryview still looks at it; the collector unmaps it later
            pass
