"""savecraft._native.rle: run-length walks (see rle.c). Use it through savecraft.compiled."""

from typing import Any

VERSION: int

# (status, pos, total): 0 the whole stream, 1 the packet at pos is cut short.
def rle_count(src: bytes | bytearray | memoryview, /) -> tuple[int, int, int]: ...

# (status, pos, filled) into a writable buffer of 16-bit values (a numpy uint16 array);
# status 2: the packet at pos would pass the buffer's end (filled is then its end).
def rle_decode(src: bytes | bytearray | memoryview, dst: Any, /) -> tuple[int, int, int]: ...

# How many runs of `stride` bytes (a count, then the value) from pos cover `cells` squares; -1 when
# those up to end cover fewer.
def rle_cover(data: bytes | bytearray | memoryview, pos: int, end: int, cells: int, stride: int = 2, /) -> int: ...
