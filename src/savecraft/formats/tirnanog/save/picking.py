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
from .layouts import HEAD_SIZE, USER
from .model import SaveGame, UserChunk

_USER = b"USER"
_CTX = Context()


def user_values(save: SaveGame, names: tuple[str, ...],
                build: Callable[[type], Any] | None = None) -> Iterator[tuple[Any, ...]]:
    """``names`` (``"entity.x"``: a field of the entity) of each user, in the save's order;
    records inside a picked list are built by ``build(cls)`` when given (tuples, say)."""
    pick = USER.picker(names, build)
    chunks = save.chunks
    for i in range(len(chunks)):
        if chunks.magic(i) != _USER:
            continue
        raw = chunks.raw_or_none(i)
        if raw is not None:
            try:
                yield pick(raw, HEAD_SIZE, len(raw), _CTX)[0]
                continue
            except FAST_READ_ERRORS:  # the careful decoder says what is wrong
                pass
        chunk = chunks.decoded(i)
        if isinstance(chunk, UserChunk):
            yield USER.pick_from(chunk, names, build)
