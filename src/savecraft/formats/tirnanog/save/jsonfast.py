"""Players and NPCs between their chunk bytes and their JSON, without building dataclasses.

A dump or a build of a server save with 100,000 players spends its time on
the players. These two paths skip the careful ones:

* :func:`chunk_json`: a USER or NPC chunk not decoded yet straight to the JSON
  object a dump writes: the body's layout (:mod:`.layouts`) read by its fast
  reader with :func:`savecraft.jsonmap.record_encoder` in place of each
  record's class, so the keys, their order and the value encodings are the
  mapping's and the bytes are read as the codec reads them;
* :func:`chunk_bytes`: a USER or NPC object of a dump straight to the chunk's
  bytes: the mapping's strict fast decoder, then the layout's fast writer.

They are the fast paths, not a second mapping nor a second layout. Anything
either does not take (a wrong type, a value out of range, an extra ``"kind"``
in an item) answers None, and the careful path (the strict decoder, then the
checked writer) decodes the object and names every problem by its path. The
tests compare both paths.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ....binary import active_sink, cached_struct
from ....jsonmap import record_encoder, strict_decoder
from ....layout import FAST_READ_ERRORS, FAST_WRITE_ERRORS, Context
from ....errors import FormatError
from .codec import encode_chunk
from .layouts import HEAD_SIZE, NPC, USER
from .model import NpcChunk, UserChunk, _Pending

_TAGGED = (UserChunk, NpcChunk)  # a chunk's object starts with its "kind"
_SIZE = cached_struct("<I")


def _as_json(cls: type) -> Any:
    """What a JSON-building read calls in place of ``cls`` (cached by jsonmap per class)."""
    return record_encoder(cls, tagged=cls in _TAGGED)


_LAYOUTS = {b"USER": USER, b"NPC\0": NPC}
_DECODERS: dict[type, Callable[[Any], Any]] = {cls: strict_decoder(cls) for cls in _TAGGED}
_KINDS = {UserChunk.KIND: (b"USER", USER, UserChunk), NpcChunk.KIND: (b"NPC\0", NPC, NpcChunk)}


def chunk_json(raw: bytes) -> dict[str, Any] | None:
    """The dump's object for an undecoded USER or NPC chunk; None for other chunks, for one
    the fast reader does not take (the careful decode says why), and when spans are being
    recorded (decoding records them)."""
    layout = _LAYOUTS.get(raw[:4])
    if layout is None or active_sink() is not None:
        return None
    try:
        obj, pos = layout.built_read_fn(_as_json)(raw, HEAD_SIZE, len(raw), Context())
    except FAST_READ_ERRORS:
        return None
    return obj if pos == len(raw) else None


def chunk_bytes(obj: Any) -> bytes | None:
    """The chunk bytes of a dump's USER or NPC object when it is entirely right; else None."""
    if type(obj) is not dict:
        return None
    entry = _KINDS.get(str(obj.get("kind")))
    if entry is None:
        return None
    magic, layout, cls = entry
    model = _DECODERS[cls](obj)
    if model is None:
        return None
    parts = [magic, b""]
    try:
        layout.fast_write_fn(model, parts.append, Context())
    except FAST_WRITE_ERRORS:
        return None
    parts[1] = _SIZE.pack(sum(map(len, parts)) + 4)
    return b"".join(parts)


def with_bytes(chunk: Any) -> Any:
    """A dump's chunk that :func:`chunk_bytes` did not take, for the deflate thread of a build:
    encoded once, as a pending chunk that keeps both its bytes (which build writes, as it
    writes a player's) and the chunk (its value on first use). The chunk itself when the
    writer refuses it: build names the problem."""
    try:
        return _Pending(encode_chunk(chunk), 0, None, chunk)
    except FormatError:
        return chunk
