"""TirNanoG saved games (player and server saves): the ``tirnanog-save`` format."""

from __future__ import annotations

import datetime as _dt
from pathlib import Path
from typing import TYPE_CHECKING, Any
import orjson

from ....errors import Report
from ....fileio import ensure_dir, write_files
from ....jsonmap import decoder, encoder
from ....parts import load_part
from ....registry import Format, register
from ....speed import gc_paused
from . import codec
from .model import Chunk, ChunkList, Encoding, NpcChunk, Preview, SaveGame, UserChunk, chunk_magic
from ....lazy import lazy_module
from .picking import user_values

if TYPE_CHECKING:
    from . import pictures
    from . import preview
    from . import spanning
    from . import summary as _summary
    import PIL.Image as Image
else:  # imported on first use (savecraft.lazy): start-up does not need them
    pictures = lazy_module("savecraft.formats.tirnanog.save.pictures")
    preview = lazy_module("savecraft.formats.tirnanog.save.preview")
    spanning = lazy_module("savecraft.formats.tirnanog.save.spanning")
    _summary = lazy_module("savecraft.formats.tirnanog.save.summary")
    Image = lazy_module("PIL.Image")


def _when(ts: int) -> str | None:
    """A Unix time as ISO 8601 UTC (``info``'s convention for instants), None for never."""
    if ts <= 0:
        return None
    try:
        return _dt.datetime.fromtimestamp(ts, _dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    except (OverflowError, OSError, ValueError):
        return None


def play_time_text(seconds: int) -> str:
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}"


def _named_users(save: SaveGame) -> list[tuple[int, str, int]]:
    """``(k, name, flags)`` of every user that reads, without decoding the users; ``k`` is
    its place among the USER chunks (``users[k]``, which counts a chunk kept as bytes after
    a problem too).

    A summary of a server save with 100,000 players must not build 100,000
    entities: the name and the flags byte were picked from the bytes by the
    chunk scan (:data:`.codec.PICKED`), or are picked here from the bytes of
    the chunks not decoded yet by the USER layout (:meth:`Struct.picker`).
    """
    return [(k, name, flags) for k, (name, flags) in user_values(save, codec.PICKED[b"USER"])]


def _user_names(save: SaveGame) -> tuple[list[str], list[str]]:
    """Every user's name, and the banned ones' (:func:`_named_users`)."""
    users = _named_users(save)
    return [name for _, name, _ in users], [name for _, name, flags in users if flags & 1]


def info(save: SaveGame) -> dict[str, Any]:
    """The summary (docs/info-json.md): names and counts, nothing decoded that is not needed."""
    counts: dict[str, int] = {}
    for i in range(len(save.chunks)):
        name = save.chunks.magic(i).rstrip(b"\0").decode("latin-1")
        counts[name] = counts.get(name, 0) + 1
    names, banned = _user_names(save)
    out: dict[str, Any] = {
        "game_id": save.game_id,
        "kind": "player" if save.preview is not None or len(names) == 1 else "server",
        "chunks": counts,
        "user_count": len(names),
        "users": names,
        "banned_users": banned,
    }
    if save.preview is not None:
        out["play_time_seconds"] = save.preview.play_time
    if len(names) == 1:
        out["last_seen"] = _when(save.users[0].last_seen)
    return out


def extract(save: SaveGame, folder: Path) -> list[Path]:
    """The preview as PNG, and one JSON file per chunk (numbered in file order)."""
    ensure_dir(folder)
    parts: list[tuple[Path, bytes]] = []
    if save.preview is not None:
        parts.append((folder / "preview.png", preview.to_png(save.preview)))
        enc_p = encoder(type(save.preview))
        parts.append((folder / "preview.json", orjson.dumps(enc_p(save.preview), option=orjson.OPT_INDENT_2)))
    save.__json_prepare__()  # the compression as a level where one reproduces it (a small save.json)
    parts.append((folder / "save.json", orjson.dumps(
        {"game_id": save.game_id, "encoding": encoder(Encoding)(save.encoding)}, option=orjson.OPT_INDENT_2)))
    enc = encoder(Chunk)
    for i, chunk in enumerate(save.chunks):
        label = chunk_magic(chunk).rstrip(b"\0").decode("latin-1", "replace")
        label = "".join(ch if ch.isalnum() else "_" for ch in label)
        extra = f"-{chunk.name}" if isinstance(chunk, UserChunk) else ""
        extra = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in extra)
        parts.append((folder / f"{i:05d}-{label}{extra}.json", orjson.dumps(enc(chunk), option=orjson.OPT_INDENT_2)))
    write_files(parts)  # each atomic, flushed to disk together (one flush a file took minutes)
    written = [p for p, _ in parts]
    return written


def rebuild(folder: Path) -> SaveGame:
    """The save an :func:`extract` folder describes: save.json, the chunk files in their
    order, the preview (preview.png when it was edited, else preview.json's stream)."""
    head = load_part(folder / "save.json")
    preview_value = None
    if (folder / "preview.json").is_file():
        preview_value = decoder(Preview)(load_part(folder / "preview.json"), "preview")
        png = folder / "preview.png"
        if png.is_file() and png.read_bytes() != preview.to_png(preview_value):
            with Image.open(png) as picture:
                preview_value.image = preview.encode_image(picture)
    dec = decoder(Chunk)
    files = sorted(p for p in folder.glob("*.json") if p.name[:5].isdigit() and p.name[5:6] == "-")
    chunks = [dec(load_part(p), p.name) for p in files]
    return SaveGame(game_id=str(head["game_id"]), preview=preview_value, chunks=ChunkList(chunks),
                    encoding=decoder(Encoding)(head["encoding"], "encoding"))


def _parse(data: bytes, report: Report) -> SaveGame:
    save = codec.parse(data, report)
    if not report.strict:
        # Validate mode: every problem is found now. The chunk scan already checked
        # each USER, NPC, DENY, GLBL and QSTS chunk against its layout: its skim
        # (the fast reader's own acceptance, building nothing) or, where that gave
        # up, its checked reader, which reported what is wrong. A chunk that passed
        # decodes without a problem, so decoding it again finds nothing: it cost
        # 1.6 s of a 50,000-player save's 2.3 s (cProfile) for no problem.
        # Only the chunks the scan did not read through a layout are decoded here
        # (MAP: the scan counts its RLE packets; a decode runs the tile codec too).
        # The objects are let go as soon as they are made (the chunk stays as its
        # bytes, decoded again on first use).
        chunks = save.chunks
        checked = codec.CHECKED_BY_SCAN
        with gc_paused():
            for i in range(len(chunks)):
                if chunks.magic(i) in checked:
                    continue
                try:
                    chunks.decoded(i)
                except Exception as exc:  # a decoder bug must not hide the other problems
                    report.error(None, f"chunks[{i}]", "a decodable chunk", str(exc))
    return save


def _span_adapter() -> Any:
    """The span-recording hook, imported only when spans are recorded (hexdump, the studio)."""
    return spanning.adapter()


def _check(save: SaveGame, report: Report) -> None:
    """Consistency a player or server save needs beyond its bytes."""
    users = _named_users(save)  # from the bytes of chunks not decoded: nothing built
    if save.preview is not None and len(users) != 1:
        report.error(None, "users", "exactly one USER chunk in a player save (it has PRVW)",
                     str(len(users)))
    names: set[str] = set()
    for k, name, _ in users:  # k: the user's place among the USER chunks, broken ones too
        if not name:  # no player can have one: registration refuses it (net.server_login)
            report.error(None, f"users[{k}].name", "a user name that is not empty (a TirNanoG "
                         "server refuses an empty one at registration)", '""')
        if name in names:
            report.error(None, f"users[{k}].name", "a user name not used before", repr(name))
        names.add(name)

def _studio_summary(model: Any) -> dict[str, Any]:
    """The studio's overview of this file (imported only when the studio asks)."""
    return _summary.summary(model)


def _studio_field_hint(path: str, value: Any) -> dict[str, str] | None:
    """A field as the game shows it and the game's limits for it, for the studio's tree."""
    return _summary.field_hint(path, value)


def _pictures() -> Any:
    """The studio's picture of a save: its preview (imported when asked)."""
    return pictures


FORMAT = register(Format(
    name="tirnanog-save",
    description="TirNanoG saved game, player or server",
    model=SaveGame,
    sniff=codec.sniff,
    parse=_parse,
    build=codec.build,
    info=info,
    extract=extract,
    rebuild=rebuild,
    check=_check,
    suffixes=(".sav",),
    summary=_studio_summary,
    field_hint=_studio_field_hint,
    spans=_span_adapter,
    pictures=_pictures,
))

__all__ = ["FORMAT", "NpcChunk", "SaveGame", "UserChunk", "codec", "preview"]
