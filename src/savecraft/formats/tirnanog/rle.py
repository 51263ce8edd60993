"""TirNanoG's run-length encoding of 16-bit tile values (maps in game files and saves).

A packet starts with a byte ``h``. With bit 7 set, one 16-bit value follows and
is repeated ``(h & 0x7F) + 1`` times; otherwise ``h + 1`` literal 16-bit values
follow. Runs may cross layer boundaries (NOTES.md).

Several encodings give the same tiles, so :func:`encode` is one canonical
choice; codecs keep a file's original RLE bytes and reuse them while the tiles
are unchanged.
"""

from __future__ import annotations

import base64
import binascii

import numpy as np
import numpy.typing as npt

from ... import limits
from ...compiled import active
from ...errors import FormatError
from ...jsonmap import register_type

MAX_RUN = 128

# The compiled packet walk (savecraft._native.rle), or None: the numpy path does the work (the
# tests run both). A module or None: mypy checks the calls against _native/rle.pyi.
if active("rle"):
    from ..._native import rle as _speedups
else:
    _speedups = None  # type: ignore[assignment]


def count_values(data: bytes | memoryview, *, offset: int = 0, path: str = "") -> int:
    """How many values the stream holds, from its packet headers alone (nothing is decoded).

    This is how a loader checks a map it will not draw yet: the arithmetic of
    the stream (every packet whole, the total) costs no memory, whatever the
    total claims. A packet cut short raises FormatError at its offset.
    """
    buf = bytes(data)
    if _speedups is not None:
        status, pos, total = _speedups.rle_count(buf)
        if status == 1:
            raise _cut_short(buf, pos, offset, path)
        return int(total)
    size = _PACKET_SIZE
    n = len(buf)
    pos = total = 0
    while pos < n:
        h = buf[pos]
        if pos + size[h] > n:
            raise _cut_short(buf, pos, offset, path)
        total += (h & 0x7F) + 1
        pos += size[h]
    return total


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

    Only finding where the packets start is a walk from header to header;
    everything else is done on whole arrays.
    """
    buf = bytes(data)
    n = len(buf)
    # Each packet yields at most 128 values from at least 3 bytes; a bound for the
    # output before reading a single packet, so a bad count cannot allocate wildly.
    bound = (n // 3 + 1) * MAX_RUN
    if count is not None and count > bound:
        raise FormatError(offset, path, f"an RLE stream that fills {count} values",
                          f"{n} bytes, which hold at most {bound}")
    # The output is checked against the cap on one decoded structure before it is made.
    if count is None and 2 * bound > limits.get("decoded"):
        limits.check("decoded", 2 * count_values(buf, offset=offset, path=path), offset, path,
                     "bytes of tiles the RLE stream holds")
    elif count is not None:
        limits.check("decoded", 2 * count, offset, path, "bytes of tiles the RLE stream must fill")
    if _speedups is not None:
        return _decode_compiled(buf, count, offset, path)
    return _decode_numpy(buf, count, offset, path)


def _cut_short(buf: bytes, last: int, offset: int, path: str) -> FormatError:
    h = buf[last]
    size = 3 if h & 0x80 else 2 * h + 3
    kind = "run" if h & 0x80 else "literal"
    return FormatError(offset + last, path, f"a {kind} packet of {size} bytes",
                       f"the end of the stream after {len(buf) - last}")


def _decode_compiled(buf: bytes, count: int | None, offset: int, path: str) -> npt.NDArray[np.uint16]:
    """The C walk (savecraft._native.rle); same results and errors as the numpy path."""
    assert _speedups is not None
    if count is None:
        status, pos, total = _speedups.rle_count(buf)
        if status == 1:
            raise _cut_short(buf, pos, offset, path)
        cap = total
    else:
        cap = count
    out = np.empty(cap, dtype=np.uint16)
    status, pos, filled = _speedups.rle_decode(buf, out)
    if status == 1:
        raise _cut_short(buf, pos, offset, path)
    if status == 2:
        raise _overfill(offset + pos, path, count, filled)
    if filled < cap:
        raise FormatError(offset + len(buf), path, f"an RLE stream that fills {count} values",
                          f"the end of the stream after {filled}")
    return out


def _decode_numpy(buf: bytes, count: int | None, offset: int, path: str) -> npt.NDArray[np.uint16]:
    """Whole-array decoding, for when the compiled walk is not available."""
    n = len(buf)
    starts = packet_starts(buf)
    end = int(starts[-1]) if len(starts) else 0
    if len(starts) and end != n:
        # The walk stepped over the end: the last packet is cut short.
        last = int(starts[-2]) if len(starts) > 1 else 0
        if count is not None and len(starts) > 2:
            # Report problems in stream order: a whole packet that over-fills comes first.
            whole = starts[:-2]
            ends = np.cumsum((np.frombuffer(buf, dtype=np.uint8)[whole] & 0x7F).astype(np.intp) + 1)
            if int(ends[-1]) > count:
                raise _first_overfill(whole, ends, count, offset, path)
        raise _cut_short(buf, last, offset, path)
    starts = starts[:-1]
    raw = np.frombuffer(buf, dtype=np.uint8)
    heads = raw[starts]
    counts = (heads & 0x7F).astype(np.intp) + 1
    ends = np.cumsum(counts)
    filled = int(ends[-1]) if len(ends) else 0
    if count is not None:
        if filled > count:
            raise _first_overfill(starts, ends, count, offset, path)
        if filled < count:
            raise FormatError(offset + n, path, f"an RLE stream that fills {count} values",
                              f"the end of the stream after {filled}")
    # Every packet as a run of its first value (the run value, or a literal's first
    # word): one np.repeat writes nearly all of the output...
    first = raw[starts + 1].astype(np.uint16) | (raw[starts + 2].astype(np.uint16) << 8)
    out = np.repeat(first, counts)
    # ...then the later words of literal packets are put in their places.
    longer = np.flatnonzero(heads < 0x80)
    longer = longer[counts[longer] > 1]
    if len(longer):
        extra = counts[longer] - 1
        total = int(extra.sum())
        base = np.cumsum(extra) - extra
        step = np.arange(total, dtype=np.intp) - np.repeat(base, extra) + 1  # 1 .. c-1
        at = np.repeat(ends[longer] - counts[longer], extra) + step
        src = np.repeat(starts[longer] + 1, extra) + 2 * step
        out[at] = raw[src].astype(np.uint16) | (raw[src + 1].astype(np.uint16) << 8)
    return out


_PACKET_SIZE = tuple(3 if h & 0x80 else 2 * h + 3 for h in range(256))


def packet_starts(buf: bytes) -> npt.NDArray[np.int64]:
    """The offset of every packet header, then the offset where the walk ended.

    The walk ends at ``len(buf)`` for a whole stream and past it when the last
    packet is cut short. This walk is the one part of decoding that cannot be
    done on whole arrays (each header says where the next one is, and streams
    of 0xFFFF runs look the same from any of three offsets, so guessing
    packet starts in parallel does not settle); it is kept to one table
    lookup and one append per packet, and the end of the data is found by the
    IndexError of the first read past it rather than by a test per packet.
    """
    size = _PACKET_SIZE
    out = [0]
    append = out.append
    pos = 0
    try:
        while True:
            pos += size[buf[pos]]
            append(pos)
    except IndexError:
        pass
    return np.array(out, dtype=np.int64)


def _first_overfill(starts: npt.NDArray[np.int64], ends: npt.NDArray[np.intp], count: int,
                    offset: int, path: str) -> FormatError:
    """The error for the first packet whose end (``ends``, cumulative) passes ``count``."""
    k = int(np.searchsorted(ends, count, side="right"))
    return _overfill(offset + int(starts[k]), path, count, int(ends[k]))


def _overfill(offset: int, path: str, count: int | None, total: int) -> FormatError:
    return FormatError(offset, path, f"an RLE stream that fills {count} values",
                       f"a packet that makes it {total}")


def encode(values: npt.ArrayLike) -> bytes:
    """The canonical encoding: runs of two or more equal values, literals otherwise.

    A run longer than 128 is split into packets of 128, and a last piece of one
    value is a one-value literal packet; consecutive single values are grouped
    into literal packets of up to 128. Computed on whole arrays (no loop per
    run): a game's maps are written at the speed of numpy, not of Python.
    """
    arr, starts, lengths = _runs(values)
    n = len(arr)
    if n == 0:
        return b""
    if len(starts) < _FEW_RUNS:  # a few runs: the loop beats a dozen whole-array steps
        return _encode_runs(arr, starts, lengths)
    single = lengths == 1
    # An item is one run of two or more, or a stretch of consecutive single values.
    first = ~single
    first[1:] |= ~single[:-1]
    first[0] = True
    item_run = np.flatnonzero(first)
    item_start = starts[item_run]
    item_lit = single[item_run]
    item_len = np.diff(np.concatenate((item_start, [n])))
    item_npk = (item_len + MAX_RUN - 1) // MAX_RUN
    # Packets: item by item, up to 128 values each.
    pk_item = np.repeat(np.arange(len(item_run)), item_npk)
    pk_j = np.arange(len(pk_item)) - np.repeat(np.cumsum(item_npk) - item_npk, item_npk)
    lit = item_lit[pk_item]
    cnt = np.minimum(item_len[pk_item] - MAX_RUN * pk_j, MAX_RUN)
    head = np.where(lit, cnt - 1, np.where(cnt >= 2, 0x80 | (cnt - 1), 0)).astype(np.uint8)
    words = np.where(lit, cnt, 1)
    src = item_start[pk_item] + np.where(lit, MAX_RUN * pk_j, 0)
    size = 1 + 2 * words
    pos = np.cumsum(size) - size
    out = np.empty(int(size.sum()), dtype=np.uint8)
    out[pos] = head
    k = np.arange(int(words.sum())) - np.repeat(np.cumsum(words) - words, words)
    value = arr[np.repeat(src, words) + k]
    at = np.repeat(pos + 1, words) + 2 * k
    out[at] = value & 0xFF
    out[at + 1] = value >> 8
    return out.tobytes()


_FEW_RUNS = 64


def _runs(values: npt.ArrayLike) -> tuple[npt.NDArray[np.uint16], npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    """The values as little-endian u16, and where each run of equal values starts and how long it is."""
    arr = np.ascontiguousarray(values, dtype="<u2").ravel()
    if len(arr) == 0:
        return arr, np.empty(0, np.intp), np.empty(0, np.intp)
    starts = np.concatenate(([0], np.flatnonzero(arr[1:] != arr[:-1]) + 1))
    return arr, starts, np.diff(np.concatenate((starts, [len(arr)])))


def _encode_loop(values: npt.ArrayLike) -> bytes:
    """The same encoding one run at a time: the reference the tests hold :func:`encode` to."""
    arr, starts, lengths = _runs(values)
    return _encode_runs(arr, starts, lengths) if len(arr) else b""


def _encode_runs(arr: npt.NDArray[np.uint16], starts: npt.NDArray[np.intp],
                 lengths: npt.NDArray[np.intp]) -> bytes:
    n = len(arr)
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


# -- JSON ---------------------------------------------------------------------------------
# numpy arrays in dumps: uint16 tile arrays as this RLE (a map's layers are mostly
# runs, so a dump stays small), any other dtype as little-endian base64.

_JSON_DTYPES = ("bool", "uint8", "int8", "uint16", "int16", "uint32", "int32", "uint64", "int64",
                "float32", "float64")


def array_to_json(a: npt.NDArray[np.generic]) -> dict[str, object]:
    dtype = a.dtype.name
    if dtype not in _JSON_DTYPES:
        raise FormatError(None, "", "a numpy array of " + ", ".join(_JSON_DTYPES), dtype)
    out: dict[str, object] = {"dtype": dtype, "shape": list(a.shape)}
    if dtype == "uint16":
        out["rle"] = base64.b64encode(encode(a)).decode("ascii")
    else:
        raw = np.ascontiguousarray(a, dtype=a.dtype.newbyteorder("<")).tobytes()
        out["base64"] = base64.b64encode(raw).decode("ascii")
    return out


def array_from_json(v: object, path: str) -> npt.NDArray[np.generic]:
    if not isinstance(v, dict) or v.get("dtype") not in _JSON_DTYPES:
        raise FormatError(None, path, 'an array object {"dtype", "shape", "rle" or "base64"} with '
                          "dtype one of " + ", ".join(_JSON_DTYPES), repr(v)[:60])
    shape = v.get("shape")
    if not isinstance(shape, list) or not all(isinstance(d, int) and not isinstance(d, bool)
                                              and d >= 0 for d in shape):
        raise FormatError(None, path + ".shape", "a list of sizes", repr(shape)[:60])
    total = int(np.prod(shape)) if shape else 1
    dtype = np.dtype(str(v["dtype"])).newbyteorder("<")
    key = "rle" if v["dtype"] == "uint16" and "rle" in v else "base64"
    text = v.get(key)
    if not isinstance(text, str):
        raise FormatError(None, f"{path}.{key}", "base64 text", repr(text)[:60])
    try:
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise FormatError(None, f"{path}.{key}", "base64 text", repr(text)[:60]) from None
    if key == "rle":
        flat: npt.NDArray[np.generic] = decode(raw, total, path=f"{path}.rle")
    else:
        if len(raw) != total * dtype.itemsize:
            raise FormatError(None, f"{path}.base64", f"{total * dtype.itemsize} bytes for shape "
                              f"{shape}", f"{len(raw)} bytes")
        flat = np.frombuffer(raw, dtype=dtype).astype(dtype.newbyteorder("="))
    return flat.reshape(shape)


register_type(np.ndarray, array_to_json, array_from_json)
