"""Content rules that keep the two "Save" formats apart, and the shared block checksum.

Both later Angband formats start with the bytes ``Save`` (83 97 118 101).
Byte 4 decides:

* ``0x02`` (the savefile format version of the modular v2 spec) means
  ``angband-modular``;
* a printable ASCII byte (0x20-0x7E), the first letter of a 4-byte variant
  id such as ``VNLA`` or ``FAAN``, means ``angband-block``; all four id
  bytes must be printable.

No byte is both, so exactly one sniffer accepts any file (or neither).

PWMAngband writes the same blocks behind 4 version bytes and ``PWMG``
(bytes 4-7); such a file is ``angband-block`` when its first block header
(at byte 8) has a printable NUL-padded name and a size that fits the file.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from ...compiled import active
from ...lazy import lazy_module

if TYPE_CHECKING:
    import numpy as np
else:  # imported on first use (savecraft.lazy): start-up does not need them
    np = lazy_module("numpy")

MAGIC = b"Save"
PWMG = b"PWMG"
# A block header's 16-byte name field: printable ASCII, then NUL padding.
BLOCK_NAME = re.compile(rb"[\x20-\x7e]+\0*")
MODULAR_VERSION = 2
_NUMPY_FROM = 512  # below this, the builtin sum() is faster than building an array
# Importing numpy costs ~50 ms, what the builtin sum() takes for ~15 MB: below this size numpy
# is used only when something else already imported it, so a small file's start-up stays light.
_IMPORT_NUMPY_FROM = 4 << 20


def is_modular(data: bytes) -> bool:
    return len(data) >= 5 and data[:4] == MAGIC and data[4] == MODULAR_VERSION


def is_block(data: bytes) -> bool:
    if len(data) >= 8 and data[:4] == MAGIC and all(0x20 <= b <= 0x7E for b in data[4:8]):
        return True
    return data[4:8] == PWMG and _first_block_fits(data)


def _first_block_fits(data: bytes) -> bool:
    if len(data) < 8 + 28:
        return False
    size = int.from_bytes(data[28:32], "little")
    return BLOCK_NAME.fullmatch(data[8:24]) is not None and 8 + 28 + size <= len(data)


def byte_sum(data: bytes | bytearray | memoryview) -> int:
    """The block checksum both formats use: the unsigned sum of the bytes, modulo 2**32.

    The C loop where it was built (one call, any size); else the builtin sum()
    for small data and numpy for large (numpy costs a 50 ms import).
    """
    if _c_sum is not None:
        return _c_sum(data)
    n = len(data)
    if n < _NUMPY_FROM or (n < _IMPORT_NUMPY_FROM and "numpy" not in sys.modules):
        return sum(data) & 0xFFFFFFFF

    return int(np.frombuffer(data, np.uint8).sum(dtype=np.uint64)) & 0xFFFFFFFF


_c_sum: Callable[[bytes | bytearray | memoryview], int] | None = None
if active("bytewise"):
    from ..._native.bytewise import byte_sum as _c_sum
