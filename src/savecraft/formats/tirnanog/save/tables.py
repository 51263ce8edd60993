"""The tables a TirNanoG saved game offers (``savecraft sql``, ``export``; docs/tables.md).

``tng_saves``: one row per file. ``tng_users``: one per player account,
with where the player's character stands; ``tng_user_attributes`` and
``tng_inventory`` hold the character's attribute values and carried objects.
A server's save may hold 100,000 users: each USER chunk is decoded once for
its rows and not kept (:meth:`ChunkList.decoded`), so the loaded save stays
as light as ``savecraft info`` keeps it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from ....layout import FAST_READ_ERRORS, Context
from ....tables.schema import Table, col
from .layouts import HEAD_SIZE, USER
from .model import SaveGame, UserChunk

_USER = b"USER"
_PICK = ("name", "created", "last_login", "last_logout", "last_seen", "language", "flags",
         "entity.map", "entity.direction", "entity.x", "entity.y", "entity.behaviour",
         "entity.transport", "entity.altitude", "entity.attributes", "entity.inventory",
         "entity.skills", "entity.quests")
_CTX = Context()


def _as_tuple(cls: type) -> Any:
    return tuple_of


def tuple_of(*values: Any) -> tuple[Any, ...]:
    return values


def _pick() -> Any:
    """The USER layout's picker of the columns, items and quests as tuples (no objects)."""
    return USER.picker(_PICK, _as_tuple)


def game(save: SaveGame) -> str | None:
    return save.game_id or None


class _User:
    """What the tables need of one USER chunk, picked from its bytes.

    A chunk still undecoded (the usual case after a load) is read by the USER
    layout's picker (:meth:`Struct.picker`: the skim the load ran, returning the
    columns; items and quests as tuples); a chunk already decoded (an edited
    save) is read from its object. No UserChunk, Entity or item objects are
    built: for 100,000 users that is most of the time a table takes.
    """

    __slots__ = ("name", "created", "last_login", "last_logout", "last_seen", "language", "flags",
                 "head", "attributes", "inventory", "quests_done")
    name: str
    created: int
    last_login: int
    last_logout: int
    last_seen: int
    language: str
    flags: int
    head: tuple[int, ...]  # the entity head: map, direction, x, y, behaviour, ..., the four counts
    attributes: Sequence[int]
    inventory: list[tuple[int, int]]
    quests_done: int

    @classmethod
    def from_raw(cls, raw: bytes) -> _User:
        u = cls()
        (u.name, u.created, u.last_login, u.last_logout, u.last_seen, u.language, u.flags,
         where, direction, x, y, behaviour, transport, altitude, attributes, inventory, skills,
         quests), _ = _pick()(raw, HEAD_SIZE, len(raw), _CTX)
        u.head = (where, direction, x, y, behaviour, transport, altitude, len(attributes),
                  len(inventory), len(skills), len(quests))
        u.attributes = attributes
        u.inventory = [(object_id, quantity) for quantity, object_id in inventory]
        u.quests_done = sum(1 for _, done in quests if done)
        return u

    @classmethod
    def from_chunk(cls, c: UserChunk) -> _User:
        u = cls()
        e = c.entity
        u.name, u.created, u.last_login, u.last_logout = c.name, c.created, c.last_login, c.last_logout
        u.last_seen, u.language, u.flags = c.last_seen, c.language, c.flags
        u.head = (e.map, e.direction, e.x, e.y, e.behaviour, e.transport, e.altitude,
                  len(e.attributes), len(e.inventory), len(e.skills), len(e.quests))
        u.attributes = e.attributes
        u.inventory = [(it.object_id, it.quantity) for it in e.inventory]
        u.quests_done = sum(1 for qs in e.quests if qs.completed)
        return u


def _users(save: SaveGame) -> Iterator[tuple[int, _User]]:
    chunks = save.chunks
    n = 0
    for i in range(len(chunks)):
        if chunks.magic(i) != _USER:
            continue
        raw = chunks.raw_or_none(i)
        user = None
        if raw is not None:
            try:
                user = _User.from_raw(raw)
            except FAST_READ_ERRORS:  # the careful decoder says what is wrong
                user = None
        if user is None:
            chunk = chunks.decoded(i)
            if not isinstance(chunk, UserChunk):
                continue
            user = _User.from_chunk(chunk)
        yield n, user
        n += 1


def _save(save: SaveGame) -> Iterator[tuple[Any, ...]]:
    chunks = save.chunks
    magics = [chunks.magic(i) for i in range(len(chunks))]
    users = magics.count(_USER)
    preview = save.preview
    yield (save.game_id, "player" if preview is not None or users == 1 else "server", users,
           magics.count(b"NPC\0"), len(magics), preview is not None,
           preview.play_time if preview is not None else None)


def _user_rows(save: SaveGame) -> Iterator[tuple[Any, ...]]:
    for n, u in _users(save):
        e = u.head
        yield (n, u.name, u.created or None, u.last_login or None, u.last_logout or None,
               u.last_seen or None, u.language, bool(u.flags & 1), e[0], e[2], e[3], e[1],
               e[8], e[9], u.quests_done)


def _attribute_rows(save: SaveGame) -> Iterator[tuple[Any, ...]]:
    for n, u in _users(save):
        for k, v in enumerate(u.attributes):
            yield (n, u.name, k, v)


def _inventory_rows(save: SaveGame) -> Iterator[tuple[Any, ...]]:
    for n, u in _users(save):
        for k, (object_id, quantity) in enumerate(u.inventory):
            yield (n, u.name, k, object_id, quantity)


SAVES = Table("tng_saves", "tirnanog-save", "one per file", (
    col("game_id", "string", "game_id"),
    col("kind", "string", "(chunks)", "player (a preview or one user) or server"),
    col("users", "int64", "users", "USER chunks"),
    col("npcs", "int64", "npcs", "NPC chunks"),
    col("chunks", "int64", "chunks"),
    col("preview", "bool", "preview", "a player's save has a preview picture"),
    col("play_time", "int64", "preview.play_time", "seconds; null without a preview"),
), _save)

USERS = Table("tng_users", "tirnanog-save", "one per player account (USER chunk)", (
    col("user", "int64", "users[N]", "N, the user's place among the save's users"),
    col("name", "string", "users[N].name"),
    col("created", "int64", "users[N].created", "Unix time; null for never"),
    col("last_login", "int64", "users[N].last_login"),
    col("last_logout", "int64", "users[N].last_logout"),
    col("last_seen", "int64", "users[N].last_seen"),
    col("language", "string", "users[N].language"),
    col("banned", "bool", "users[N].flags", "bit 0 of the flags"),
    col("map", "int64", "users[N].entity.map", "the map the character is on"),
    col("x", "int64", "users[N].entity.x"),
    col("y", "int64", "users[N].entity.y"),
    col("direction", "int64", "users[N].entity.direction"),
    col("items", "int64", "users[N].entity.inventory", "inventory entries"),
    col("skills", "int64", "users[N].entity.skills"),
    col("quests_done", "int64", "users[N].entity.quests", "quests marked completed"),
), _user_rows)

ATTRIBUTES = Table("tng_user_attributes", "tirnanog-save", "one per attribute value of a user", (
    col("user", "int64", "users[N]"),
    col("name", "string", "users[N].name"),
    col("attribute", "int64", "users[N].entity.attributes[K]", "K, the attribute's index in the game"),
    col("value", "int64", "users[N].entity.attributes[K]"),
), _attribute_rows)

INVENTORY = Table("tng_inventory", "tirnanog-save", "one per inventory entry of a user", (
    col("user", "int64", "users[N]"),
    col("name", "string", "users[N].name"),
    col("item", "int64", "users[N].entity.inventory[K]"),
    col("object_id", "int64", "users[N].entity.inventory[K].object_id"),
    col("quantity", "int64", "users[N].entity.inventory[K].quantity"),
), _inventory_rows)

TABLES = (SAVES, USERS, ATTRIBUTES, INVENTORY)
