"""TirNanoG saved games (player and server saves): the ``tirnanog-save`` format."""

from __future__ import annotations

import datetime as _dt
from pathlib import Path
from typing import Any

from ....errors import Report
from ....fileio import atomic_write, ensure_dir
from ....jsonmap import encoder
from ....registry import Format, register
from . import codec, preview
from .model import Chunk, NpcChunk, SaveGame, UserChunk, chunk_magic


def _when(ts: int) -> str:
    if ts <= 0:
        return "never"
    try:
        return _dt.datetime.fromtimestamp(ts, _dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
    except (OverflowError, OSError, ValueError):
        return str(ts)


def play_time_text(seconds: int) -> str:
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}"


def info(save: SaveGame) -> dict[str, Any]:
    counts: dict[str, int] = {}
    for i in range(len(save.chunks)):
        name = save.chunks.magic(i).rstrip(b"\0").decode("latin-1")
        counts[name] = counts.get(name, 0) + 1
    users = save.users
    out: dict[str, Any] = {
        "game id": save.game_id,
        "kind": "player save" if save.preview is not None or len(users) == 1 else "server save",
        "chunks": counts,
        "users": [u.name + (" (banned)" if u.banned else "") for u in users],
    }
    if save.preview is not None:
        out["play time"] = play_time_text(save.preview.play_time)
    if len(users) == 1:
        out["last seen"] = _when(users[0].last_seen)
    return out


def extract(save: SaveGame, folder: Path) -> list[Path]:
    """The preview as PNG, and one JSON file per chunk (numbered in file order)."""
    import orjson

    ensure_dir(folder)
    written = []
    if save.preview is not None:
        p = folder / "preview.png"
        atomic_write(p, preview.to_png(save.preview))
        written.append(p)
        enc_p = encoder(type(save.preview))
        p = folder / "preview.json"
        atomic_write(p, orjson.dumps(enc_p(save.preview), option=orjson.OPT_INDENT_2))
        written.append(p)
    enc = encoder(Chunk)
    for i, chunk in enumerate(save.chunks):
        label = chunk_magic(chunk).rstrip(b"\0").decode("latin-1", "replace")
        label = "".join(ch if ch.isalnum() else "_" for ch in label)
        extra = f"-{chunk.name}" if isinstance(chunk, UserChunk) else ""
        extra = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in extra)
        p = folder / f"{i:05d}-{label}{extra}.json"
        atomic_write(p, orjson.dumps(enc(chunk), option=orjson.OPT_INDENT_2))
        written.append(p)
    return written


def _parse(data: bytes, report: Report) -> SaveGame:
    save = codec.parse(data, report)
    if not report.strict:
        # Validate mode: decode every chunk too, so nothing waits for first use.
        for i in range(len(save.chunks)):
            try:
                save.chunks[i]
            except Exception as exc:  # a decoder bug must not hide the other problems
                report.error(None, f"chunks[{i}]", "a decodable chunk", str(exc))
    return save


def _check(save: SaveGame, report: Report) -> None:
    """Consistency a player or server save needs beyond its bytes."""
    users = save.users
    if save.preview is not None and len(users) != 1:
        report.error(None, "users", "exactly one USER chunk in a player save (it has PRVW)",
                     str(len(users)))
    names: set[str] = set()
    for k, u in enumerate(users):
        if u.name in names:
            report.error(None, f"users[{k}].name", "a user name not used before", repr(u.name))
        names.add(u.name)


FORMAT = register(Format(
    name="tirnanog-save",
    description="TirNanoG saved game, player or server",
    model=SaveGame,
    sniff=codec.sniff,
    parse=_parse,
    build=codec.build,
    info=info,
    extract=extract,
    check=_check,
    suffixes=(".sav",),
))

__all__ = ["FORMAT", "NpcChunk", "SaveGame", "UserChunk", "codec", "preview"]
