"""How :mod:`savecraft.spans` records a TirNanoG save: each chunk is a unit, named by its kind.

The codec's chunk scan notes every chunk by its place (``chunks[5]``) and a
chunk's fields, when it is decoded, under its kind's path (``users[3]``).
The span map shows the place as the kind (``users[3].magic``), which the
model would work out through ``SaveGame.users`` (a view counted over every
chunk) once per chunk: a pass over all chunks per chunk. This adapter names
them all in one pass over the chunk magics, decoding none.
"""

from __future__ import annotations

from functools import partial

from ....errors import Report
from ....spans import Adapter, Unit
from . import codec
from .model import _MAGIC_OF, SaveGame, _Pending, chunk_magic


def _parse(data: bytes, report: Report, lazy: bool) -> SaveGame:
    return codec.parse(data, report)  # chunks are decoded (and recorded) as units


def _heads(save: SaveGame) -> dict[str, str]:
    """Each chunk's place (``chunks[i]``) and canonical path, as :func:`savecraft.paths.shown`
    names it, to that name.

    A chunk of a kind the model has a view of is the ``k``-th of its magic
    (``users[k]``; ``deny`` for the first of a kind that comes once, while a
    second one keeps its place). A chunk kept as raw bytes (an unknown magic,
    or one that failed its check) has no view: ``chunks[i]``.
    """
    kinds = {magic: entry[0] for magic, entry in codec._CHUNKS.items()}
    single = set(codec._SINGLE)
    counters: dict[bytes, int] = {}
    heads: dict[str, str] = {}
    for i, item in enumerate(save.chunks._items):
        if type(item) is _Pending:
            magic = item.raw[:4]
            kind = kinds.get(magic)
        else:
            magic = chunk_magic(item)
            kind = kinds.get(magic) if type(item) in _MAGIC_OF else None
        k = counters.get(magic, 0)
        counters[magic] = k + 1
        place = f"chunks[{i}]"
        if kind is None or magic in single:
            heads[place] = kind if kind is not None and not k else place
        else:
            heads[place] = heads[f"{kind}[{k}]"] = f"{kind}[{k}]"
    return heads


def _units(save: SaveGame, data: bytes) -> list[Unit]:
    """Every chunk not decoded yet (all of them, after a parse), by its kind's path."""
    kinds = {magic: entry[0] for magic, entry in codec._CHUNKS.items()}
    single = set(codec._SINGLE)
    counters: dict[bytes, int] = {}
    decode = codec.decode_chunk
    payload = codec.PAYLOAD
    out = []
    for i, item in enumerate(save.chunks._items):
        if type(item) is _Pending:
            raw = item.raw
            magic = raw[:4]
        else:
            magic = chunk_magic(item)
        k = counters.get(magic, 0)
        counters[magic] = k + 1
        if type(item) is not _Pending:
            continue
        kind = kinds.get(magic)
        if kind is None:
            path, alias = f"chunks[{i}]", ""
        else:
            path, alias = (kind if magic in single else f"{kind}[{k}]"), f"chunks[{i}]"
        out.append(Unit(path, payload, item.offset, len(raw), partial(decode, raw, item.offset, path),
                        alias=alias))
    return out


def adapter() -> Adapter:
    """The save's span hook (``Format.spans``): chunks as units, outlined when a list is asked for."""
    return Adapter(_parse, _units, _heads, outline_units=True)
