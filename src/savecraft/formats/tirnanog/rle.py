"""TirNanoG's run-length encoding of 16-bit tile values (maps in game files and saves).

A packet starts with a byte ``h``. With bit 7 set, one 16-bit value follows and
is repeated ``(h & 0x7F) + 1`` times; otherwise ``h + 1`` literal 16-bit values
follow. Runs may cross layer boundaries (NOTES.md).

Several encodings give the same tiles, so :func:`encode` is one canonical
choice; codecs keep a file's original RLE bytes and reuse them while the tiles
are unchanged.
"""

from __future__ import annotations

import struct

import numpy as np
import numpy.typing as npt

from ...errors import FormatError

MAX_RUN = 128


def decode(
    data: bytes | memoryview,
    count: int | None = None,
    *,
    offset: int = 0,
    path: str = "",
) -> npt.NDArray[np.uint16]:
    """Decode to a uint16 array; with ``count``, exactly that many values.

    Errors say where the stream breaks: a packet cut short, a stream that
    over-fills ``count`` or ends before filling it.
    """
    buf = bytes(data)
    n = len(buf)
    # Each packet yields at most 128 values from at least 3 bytes; a bound for the
    # output before reading a single packet, so a bad count cannot allocate wildly.
    bound = (n // 3 + 1) * MAX_RUN
    cap = bound if count is None else count
    if count is not None and count > bound:
        raise FormatError(offset, path, f"an RLE stream that fills {count} values",
                          f"{n} bytes, which hold at most {bound}")
    out = np.empty(cap, dtype=np.uint16)
    pos = 0
    filled = 0
    unpack_h = struct.Struct("<H").unpack_from
    while pos < n:
        h = buf[pos]
        if h & 0x80:
            run = (h & 0x7F) + 1
            if pos + 3 > n:
                raise FormatError(offset + pos, path, "a run packet of 3 bytes",
                                  f"the end of the stream after {n - pos}")
            if filled + run > cap:
                raise _overfill(offset + pos, path, count, filled + run)
            out[filled : filled + run] = unpack_h(buf, pos + 1)[0]
            pos += 3
        else:
            run = h + 1
            size = 1 + 2 * run
            if pos + size > n:
                raise FormatError(offset + pos, path, f"a literal packet of {size} bytes",
                                  f"the end of the stream after {n - pos}")
            if filled + run > cap:
                raise _overfill(offset + pos, path, count, filled + run)
            out[filled : filled + run] = np.frombuffer(buf, dtype="<u2", count=run, offset=pos + 1)
            pos += size
        filled += run
    if count is not None and filled != count:
        raise FormatError(offset + n, path, f"an RLE stream that fills {count} values",
                          f"the end of the stream after {filled}")
    return out[:filled] if count is None else out


def _overfill(offset: int, path: str, count: int | None, total: int) -> FormatError:
    return FormatError(offset, path, f"an RLE stream that fills {count} values",
                       f"a packet that makes it {total}")


def encode(values: npt.ArrayLike) -> bytes:
    """The canonical encoding: runs of two or more equal values, literals otherwise."""
    arr = np.ascontiguousarray(values, dtype="<u2").ravel()
    n = len(arr)
    if n == 0:
        return b""
    # Boundaries of runs of equal values, found with numpy rather than per value.
    change = np.flatnonzero(arr[1:] != arr[:-1]) + 1
    starts = np.concatenate(([0], change))
    lengths = np.diff(np.concatenate((starts, [n])))
    raw = arr.tobytes()
    out = bytearray()
    lit_start = -1  # index of the first pending literal value
    for s, length in zip(starts.tolist(), lengths.tolist()):
        if length >= 2:
            if lit_start >= 0:
                _literals(out, raw, lit_start, s)
                lit_start = -1
            v = raw[2 * s : 2 * s + 2]
            while length > 0:
                r = min(length, MAX_RUN)
                if r == 1:
                    out.append(0)
                else:
                    out.append(0x80 | (r - 1))
                out += v
                length -= r
        elif lit_start < 0:
            lit_start = s
    if lit_start >= 0:
        _literals(out, raw, lit_start, n)
    return bytes(out)


def _literals(out: bytearray, raw: bytes, start: int, stop: int) -> None:
    while start < stop:
        r = min(stop - start, MAX_RUN)
        out.append(r - 1)
        out += raw[2 * start : 2 * (start + r)]
        start += r
