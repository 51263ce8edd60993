"""The studio's overview of a TirNanoG save: a server's players as a table, a player's own save.

Data the page lays out (schema: :mod:`savecraft.studio.views`), never HTML.
A server save can hold 50,000 players and more: the table is read from the
bytes of chunks not decoded yet (their structure was checked on loading), as
``info`` reads the names, so opening the overview builds no player objects.
The page gets the rows a page at a time, sorted and searched by the studio.
"""

from __future__ import annotations

import datetime as _dt
import re
from typing import Any

from .model import SaveGame, UserChunk
from ....layout import Context, FAST_READ_ERRORS
from .layouts import HEAD_SIZE, USER


def _row(k: int, name: str, created: int, login: int, seen: int, lang: str, flags: int,
         where: tuple[int, int, int]) -> dict[str, Any]:
    # Dates stay Unix seconds here (sorting them is sorting numbers); the studio shows a page of
    # rows at a time and writes a "date" column as ISO 8601 then: 50,000 rows format no date at all.
    return {"path": f"users[{k}]", "cells": [k, name, created, login, seen, lang,
                                             "banned" if flags & 1 else "", where[0], where[1], where[2]]}


_PICK = ("name", "created", "last_login", "last_seen", "language", "flags", "entity.map",
         "entity.x", "entity.y")


def player_rows(save: SaveGame) -> list[dict[str, Any]]:
    """One row per user, in file order: the values picked from the bytes where the chunk is
    untouched (the USER layout's :meth:`Struct.picker`)."""
    pick = USER.picker(_PICK)
    ctx = Context()
    rows: list[dict[str, Any]] = []
    chunks = save.chunks
    k = 0
    for i in range(len(chunks)):
        raw = chunks.raw_or_none(i)
        if raw is not None:
            if raw[:4] != b"USER":
                continue
            try:
                (name, created, login, seen, lang, flags, where, x, y), _ = pick(
                    raw, HEAD_SIZE, len(raw), ctx)
            except FAST_READ_ERRORS:
                u = chunks[i]
                rows.append(_row(k, u.name, u.created, u.last_login, u.last_seen, u.language, u.flags,
                                 (u.entity.map, u.entity.x, u.entity.y)))
            else:
                rows.append(_row(k, name, created, login, seen, lang, flags, (where, x, y)))
        else:
            u = chunks[i]
            if not isinstance(u, UserChunk):
                continue
            rows.append(_row(k, u.name, u.created, u.last_login, u.last_seen, u.language, u.flags,
                             (u.entity.map, u.entity.x, u.entity.y)))
        k += 1
    return rows


PLAYER_COLUMNS = [
    {"key": "index", "label": "#", "type": "number"}, {"key": "name", "label": "Name"},
    {"key": "created", "label": "Created", "type": "date"}, {"key": "last_login", "label": "Last login", "type": "date"},
    {"key": "last_seen", "label": "Last seen", "type": "date"}, {"key": "language", "label": "Lang"},
    {"key": "banned", "label": "Status"}, {"key": "map", "label": "Map", "type": "number"},
    {"key": "x", "label": "X", "type": "number"}, {"key": "y", "label": "Y", "type": "number"},
]


def summary(save: SaveGame) -> dict[str, Any]:
    """A player's save: the preview and the character; a server's: its players, searchable."""
    counts: dict[str, int] = {}
    for i in range(len(save.chunks)):
        magic = save.chunks.magic(i).rstrip(b"\0").decode("latin-1")
        counts[magic] = counts.get(magic, 0) + 1
    rows = player_rows(save)
    banned = sum(1 for r in rows if r["cells"][6])
    server = save.preview is None and len(rows) != 1
    facts: list[dict[str, Any]] = [
        {"label": "Game", "value": save.game_id, "path": "game_id"},
        {"label": "Kind", "value": "server save" if server else "player save"},
        {"label": "Players", "value": f"{len(rows):,}" + (f" ({banned:,} banned)" if banned else ""), "path": "users"},
        {"label": "NPCs", "value": f"{counts.get('NPC', 0):,}", "path": "npcs"},
        {"label": "Changed maps", "value": f"{counts.get('MAP', 0):,}", "path": "maps"},
    ]
    if save.preview is not None:
        t = save.preview.play_time
        facts.append({"label": "Play time", "value": f"{t // 3600}:{t // 60 % 60:02d}:{t % 60:02d}",
                      "path": "preview.play_time"})
    sections: list[dict[str, Any]] = [{"kind": "facts", "title": "Save", "items": facts}]
    if save.preview is not None:
        sections.append({"kind": "pictures", "title": "Preview", "names": ["preview"]})
    sections.append({"kind": "table", "id": "players", "title": "Players", "columns": PLAYER_COLUMNS,
                     "rows": rows, "search": True})
    title = "Server save" if server else (rows[0]["cells"][1] if rows else "Player save")
    return {"title": title, "subtitle": f"TirNanoG · {save.game_id}", "sections": sections}


_DATE = re.compile(r"users\[\d+\]\.(created|last_login|last_logout|last_seen)$")
_FLAGS = re.compile(r"users\[\d+\]\.flags$")


def field_hint(path: str, value: Any) -> dict[str, str] | None:
    """A user's dates as ISO 8601 (the file keeps Unix seconds), the flags' meaning."""
    if _DATE.search(path):
        try:
            ts = int(value)
        except (TypeError, ValueError):
            return None
        if ts <= 0:
            return {"shown": "never"}
        try:
            return {"shown": _dt.datetime.fromtimestamp(ts, _dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")}
        except (OverflowError, OSError, ValueError):
            return None
    if _FLAGS.search(path):
        try:
            return {"shown": "banned" if int(value) & 1 else "not banned"}
        except (TypeError, ValueError):
            return None
    return None
