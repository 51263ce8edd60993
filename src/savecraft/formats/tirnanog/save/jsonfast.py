"""Players and NPCs between their chunk bytes and their JSON, without building dataclasses.

A dump or a build of a server save with 100,000 players spends its time on
the players. These two paths skip the model objects:

* :func:`chunk_json`: a USER or NPC chunk not decoded yet (its structure was
  checked when the save loaded) straight to the JSON object a dump writes;
* :func:`chunk_bytes`: a USER or NPC object of a dump straight to the chunk's
  bytes, with precompiled structs.

They are the fast paths, not a second mapping: the keys, their order and
the value encodings come from :mod:`savecraft.jsonmap` (``record_encoder``,
``rows_encoder``) and the binary layout from :mod:`.codec`'s records.
:func:`chunk_bytes` accepts only what the strict decoder and the writer
accept and then gives the same bytes; for anything else (a wrong type, a
value out of range, an extra ``"kind"`` in an item) it answers None, and
the careful path (the strict decoder, then the Writer) decodes the object
and names every problem by its path. The tests compare both paths.
"""

from __future__ import annotations

import base64
import binascii
import operator
import struct
from collections.abc import Callable
from typing import Any

from ....binary import active_sink, cached_struct
from ....errors import FormatError
from ....jsonmap import record_encoder, rows_encoder
from .codec import (
    ENTITY_HEAD,
    NPC_HEAD,
    QUEST_DONE,
    SLOTS,
    USER_HEAD,
    _fast_npc,
    _fast_user,
)
from .model import Entity, InventoryItem, NpcChunk, QuestState, Skill, UserChunk

_NAME_AT = USER_HEAD.size
# The entity header with its u24 map and u8 direction as one u32 (Record widens u24 in Python).
_ENTITY_HEAD = struct.Struct("<I2i4B3H")
assert _ENTITY_HEAD.size == ENTITY_HEAD.size
_USER_HEAD = USER_HEAD.struct  # no u24 in it: used as is (bytes fields checked here, not padded)
_INT = frozenset((int,))
_BOOL = frozenset((bool,))
_DICT = frozenset((dict,))
_TWO = frozenset((2,))


class _Encoders:
    """The generated encoders, made on first use (not when the format is imported)."""

    def __init__(self) -> None:
        self.user = record_encoder(UserChunk, tagged=True)
        self.npc = record_encoder(NpcChunk, tagged=True)
        self.entity = record_encoder(Entity)
        self.items = rows_encoder(InventoryItem)
        self.skills = rows_encoder(Skill)
        self.quests = rows_encoder(QuestState)


_enc: list[_Encoders] = []


def _encoders() -> _Encoders:
    if not _enc:
        _enc.append(_Encoders())
    return _enc[0]


# -- bytes to JSON ---------------------------------------------------------------------


def _entity_json(e: _Encoders, raw: bytes, ent: int) -> dict[str, Any]:
    where, x, y, behaviour, transport, altitude, a, i, s, q = _ENTITY_HEAD.unpack_from(raw, ent)
    values = cached_struct(f"<{a}i{2 * i + 2 * s + q}I").unpack_from(raw, ent + ENTITY_HEAD.size)
    inv = values[a : a + 2 * i]
    sk = values[a + 2 * i : a + 2 * i + 2 * s]
    qs = values[a + 2 * i + 2 * s :]
    return e.entity(where & 0xFFFFFF, where >> 24, x, y, behaviour, transport, altitude,
                    list(values[:a]), e.items(inv[0::2], inv[1::2]), e.skills(sk[0::2], sk[1::2]),
                    e.quests([v & ~QUEST_DONE for v in qs], [bool(v & QUEST_DONE) for v in qs]))


def _user_json(raw: bytes) -> dict[str, Any]:
    e = _encoders()
    _, _, digest, created, login, logout, seen, language, flags, n = _USER_HEAD.unpack_from(raw, 0)
    nul = raw.find(b"\0", _NAME_AT)
    rest = cached_struct(f"<{n}i{SLOTS}H{SLOTS}H").unpack_from(raw, nul + 1)
    return e.user(raw[_NAME_AT:nul].decode("utf-8"), digest, created, login, logout, seen,
                  language.rstrip(b"\0").decode("latin-1"), flags, list(rest[:n]),
                  list(rest[n : n + SLOTS]), list(rest[n + SLOTS :]),
                  _entity_json(e, raw, nul + 1 + 4 * n + 4 * SLOTS))


def _npc_json(raw: bytes) -> dict[str, Any]:
    e = _encoders()
    head = NPC_HEAD.unpack_from(raw, 0)
    return e.npc(head[2], head[3], _entity_json(e, raw, NPC_HEAD.size))


_TO_JSON: dict[bytes, tuple[Callable[[bytes, int, int], bool], Callable[[bytes], dict[str, Any]]]] = {
    b"USER": (_fast_user, _user_json),
    b"NPC\0": (_fast_npc, _npc_json),
}


def chunk_json(raw: bytes) -> dict[str, Any] | None:
    """The dump's object for an undecoded USER or NPC chunk; None for other chunks
    (and when spans are being recorded: decoding records them)."""
    entry = _TO_JSON.get(raw[:4])
    if entry is None or not entry[0](raw, 0, len(raw)) or active_sink() is not None:
        return None
    return entry[1](raw)


# -- JSON to bytes ---------------------------------------------------------------------


def _ints(v: Any) -> bool:
    """A list of ints, bools excluded (as the strict decoder wants them)."""
    return type(v) is list and set(map(type, v)) <= _INT


_GETTERS: dict[str, Callable[[Any], Any]] = {}


def _column(items: list[Any], name: str) -> list[Any]:
    get = _GETTERS.get(name)
    if get is None:
        get = _GETTERS[name] = operator.itemgetter(name)
    return list(map(get, items))


def _columns(v: Any, first: str, second: str) -> tuple[list[Any], list[Any]] | None:
    """Two fields of a list of two-field objects, as two lists; None if it is not exactly that."""
    if type(v) is not list or not set(map(type, v)) <= _DICT or not set(map(len, v)) <= _TWO:
        return None
    try:
        return _column(v, first), _column(v, second)
    except KeyError:
        return None


def _pairs(a: list[Any], b: list[Any]) -> list[Any] | None:
    if not (set(map(type, a)) <= _INT and set(map(type, b)) <= _INT):
        return None
    flat: list[Any] = [0] * (2 * len(a))
    flat[0::2] = a
    flat[1::2] = b
    return flat


def _entity_bytes(e: Any) -> bytes | None:
    if type(e) is not dict or len(e) != 11 + ("kind" in e):
        return None
    try:
        head = (e["map"], e["direction"], e["x"], e["y"], e["behaviour"], e["transport"],
                e["altitude"])
        attrs, inv, skills, quests = e["attributes"], e["inventory"], e["skills"], e["quests"]
    except KeyError:
        return None
    if not set(map(type, head)) <= _INT or not _ints(attrs):
        return None
    inv_cols = _columns(inv, "quantity", "object_id")
    sk_cols = _columns(skills, "level", "object_id")
    q_cols = _columns(quests, "quest_id", "completed")
    if inv_cols is None or sk_cols is None or q_cols is None:
        return None
    inv_flat = _pairs(*inv_cols)
    sk_flat = _pairs(*sk_cols)
    ids, done = q_cols
    if inv_flat is None or sk_flat is None or not set(map(type, ids)) <= _INT \
            or not set(map(type, done)) <= _BOOL:
        return None
    if ids and not (0 <= min(ids) and max(ids) < QUEST_DONE):
        return None
    if len(attrs) > 255 or len(inv) > 65535 or len(skills) > 65535 or len(quests) > 65535:
        return None
    where, direction = head[0], head[1]
    if not (0 <= where < 1 << 24 and 0 <= direction < 256):
        return None
    try:
        return _ENTITY_HEAD.pack(where | direction << 24, *head[2:], len(attrs), len(inv),
                                 len(skills), len(quests)) + \
            cached_struct(f"<{len(attrs)}i{len(inv_flat) + len(sk_flat) + len(ids)}I").pack(
                *attrs, *inv_flat, *sk_flat,
                *[i | QUEST_DONE if d else i for i, d in zip(ids, done)])
    except (struct.error, OverflowError, TypeError, ValueError):
        return None


_HASH_SIZE = 32


def _user_bytes(d: dict[str, Any]) -> bytes | None:
    if len(d) != 13:  # the twelve fields and "kind"
        return None
    try:
        name, digest, language = d["name"], d["password_hash"], d["language"]
        times = (d["created"], d["last_login"], d["last_logout"], d["last_seen"])
        flags, options, equipped, belt = d["flags"], d["character_options"], d["equipped"], d["belt"]
        entity = d["entity"]
    except KeyError:
        return None
    if type(name) is not str or not name or type(digest) is not str or type(language) is not str \
            or type(flags) is not int or not set(map(type, times)) <= _INT \
            or not (_ints(options) and _ints(equipped) and _ints(belt)) \
            or len(options) > 255 or len(equipped) != SLOTS or len(belt) != SLOTS:
        return None
    ent = _entity_bytes(entity)
    if ent is None:
        return None
    try:
        password_hash = base64.b64decode(digest, validate=True)
        raw_name = name.encode("utf-8")
    except (binascii.Error, ValueError):
        return None
    lang = language.encode("latin-1", "replace")
    if b"\0" in raw_name or len(lang) > 2 or len(password_hash) > _HASH_SIZE:
        return None  # (a shorter hash is padded with zeros, as the Writer does)
    n = len(options)
    size = USER_HEAD.size + len(raw_name) + 1 + 4 * n + 4 * SLOTS + len(ent)
    try:
        head = _USER_HEAD.pack(b"USER", size, password_hash, *times, lang, flags, n)
        body = cached_struct(f"<{n}i{2 * SLOTS}H").pack(*options, *equipped, *belt)
    except (struct.error, OverflowError, TypeError, ValueError):
        return None
    return b"".join((head, raw_name, b"\0", body, ent))


def _npc_bytes(d: dict[str, Any]) -> bytes | None:
    if len(d) != 4:  # the three fields and "kind"
        return None
    try:
        npc_type, spawner, entity = d["npc_type"], d["spawner"], d["entity"]
    except KeyError:
        return None
    if type(npc_type) is not int or type(spawner) is not int:
        return None
    ent = _entity_bytes(entity)
    if ent is None:
        return None
    try:
        return NPC_HEAD.pack(b"NPC\0", NPC_HEAD.size + len(ent), npc_type, spawner) + ent
    except (FormatError, struct.error, OverflowError, TypeError, ValueError):
        return None


_TO_BYTES: dict[Any, Callable[[dict[str, Any]], bytes | None]] = {
    UserChunk.KIND: _user_bytes,
    NpcChunk.KIND: _npc_bytes,
}


def chunk_bytes(obj: Any) -> bytes | None:
    """The chunk bytes of a dump's USER or NPC object when it is entirely right; else None."""
    if type(obj) is not dict:
        return None
    make = _TO_BYTES.get(obj.get("kind"))
    return None if make is None else make(obj)
