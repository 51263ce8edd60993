"""A few values of every user of a save, read without building the users.

A server save may hold 100,000 users; ``info`` needs their names and flags,
each table a few columns. Building UserChunk, Entity and item objects for
them would be most of the time either takes, so an undecoded USER chunk is
read by the USER layout's picker (:meth:`Struct.picker`: the skim the load ran,
also returning the values asked for; a list no value comes from is stepped
over by its count). A chunk the picker gives up on is decoded by the checked
reader (which says what is wrong, and is not kept); one already decoded, or
edited in memory, gives the same values from its object (:meth:`Struct.pick_from`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from ....layout import FAST_READ_ERRORS, Context
from .codec import PICKED
from .layouts import HEAD_SIZE, USER
from .model import SaveGame, UserChunk, _Pending, chunk_magic

_USER = b"USER"
_CTX = Context()


def user_values(save: SaveGame, names: tuple[str, ...], build: Callable[[type], Any] | None = None
                ) -> Iterator[tuple[int, tuple[Any, ...]]]:
    """``(k, values)``: ``names`` (``"entity.x"``: a field of the entity) of each user that reads,
    in the save's order; ``k`` is its place among the USER chunks (``users[k]``, which counts a
    chunk kept as bytes after a problem too). Records inside a picked list are built by
    ``build(cls)`` when given (tuples, say). Values the chunk scan already picked
    (:data:`.codec.PICKED`) are taken as they are."""
    pick = USER.picker(names, build)
    scanned = build is None and names == PICKED[_USER]
    chunks = save.chunks
    k = -1
    for i, item in enumerate(chunks._items):  # one pass, no call per chunk (100,000 of them)
        if type(item) is _Pending:
            raw = item.raw
            if not raw.startswith(_USER):
                continue
            k += 1
            if scanned and item.picked is not None:
                yield k, item.picked
                continue
            try:
                yield k, pick(raw, HEAD_SIZE, len(raw), _CTX)[0]
                continue
            except FAST_READ_ERRORS:  # the careful decoder says what is wrong
                item = chunks.decoded(i)
        elif chunk_magic(item) == _USER:
            k += 1
        if isinstance(item, UserChunk):
            yield k, USER.pick_from(item, names, build)
