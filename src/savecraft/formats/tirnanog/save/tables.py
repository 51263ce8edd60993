"""The tables a TirNanoG saved game offers (``savecraft sql``, ``export``; docs/tables.md).

``tng_saves``: one row per file. ``tng_users``: one per player account,
with where the player's character stands; ``tng_user_attributes`` and
``tng_inventory`` hold the character's attribute values and carried objects.
A server's save may hold 100,000 users: each table picks only its columns
from each USER chunk (:mod:`.picking`), builds no user and keeps nothing, so
the loaded save stays as light as ``savecraft info`` keeps it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ....tables.schema import Table, col
from .model import SaveGame
from .picking import user_values

_USER = b"USER"

# What each table picks of a USER chunk: only these values are read (a list no column shows
# is stepped over by its count: the users table reads no attribute, item or skill).
_USER_COLUMNS = ("name", "created", "last_login", "last_logout", "last_seen", "language", "flags",
                 "entity.map", "entity.x", "entity.y", "entity.direction",
                 "entity.inventory_count", "entity.skills_count", "entity.quests")
_ATTRIBUTES = ("name", "entity.attributes")
_INVENTORY = ("name", "entity.inventory")


def tuple_of(*values: Any) -> tuple[Any, ...]:
    return values


def _as_tuple(cls: type) -> Any:
    """Records inside a picked list (items, quests) come as tuples: no objects are built."""
    return tuple_of


def game(save: SaveGame) -> str | None:
    return save.game_id or None


def _picked(save: SaveGame, names: tuple[str, ...]) -> Iterator[tuple[int, tuple[Any, ...]]]:
    """``names`` of each user (items and quests as tuples), with the user's place among them."""
    return enumerate(values for _, values in user_values(save, names, _as_tuple))


def _save(save: SaveGame) -> Iterator[tuple[Any, ...]]:
    chunks = save.chunks
    magics = [chunks.magic(i) for i in range(len(chunks))]
    users = magics.count(_USER)
    preview = save.preview
    yield (save.game_id, "player" if preview is not None or users == 1 else "server", users,
           magics.count(b"NPC\0"), len(magics), preview is not None,
           preview.play_time if preview is not None else None)


def _user_rows(save: SaveGame) -> Iterator[tuple[Any, ...]]:
    for n, (name, created, login, logout, seen, language, flags, where, x, y, direction,
            items, skills, quests) in _picked(save, _USER_COLUMNS):
        yield (n, name, created or None, login or None, logout or None, seen or None, language,
               bool(flags & 1), where, x, y, direction, items, skills,
               sum(1 for _, done in quests if done))


def _attribute_rows(save: SaveGame) -> Iterator[tuple[Any, ...]]:
    for n, (name, attributes) in _picked(save, _ATTRIBUTES):
        for k, v in enumerate(attributes):
            yield (n, name, k, v)


def _inventory_rows(save: SaveGame) -> Iterator[tuple[Any, ...]]:
    for n, (name, inventory) in _picked(save, _INVENTORY):
        for k, (quantity, object_id) in enumerate(inventory):
            yield (n, name, k, object_id, quantity)


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
