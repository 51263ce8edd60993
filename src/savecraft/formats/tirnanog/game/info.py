"""The summary ``savecraft info`` prints for a game: header fields, sections, counts, titles."""

from __future__ import annotations

from typing import Any

from ....errors import FormatError
from .header import game_type_name
from .model import Game
from .sections import section_name


def summary(game: Game) -> dict[str, Any]:
    """The summary (docs/info-json.md): every header field as a number, the sections as records."""
    h = game.header
    out: dict[str, Any] = {
        "game_id": h.game_id, "revision": h.revision, "game_type": game_type_name(h.game_type),
        "tile_width": h.tile_width, "tile_height": h.tile_height,
        "map_size": h.map_size, "map_size_log2": h.map_size_log2,
        "atlas_size": h.atlas_size, "atlas_size_log2": h.atlas_size_log2,
        "audio_sample_rate": h.sample_rate, "frames_per_second": h.fps,
        "default_action_handlers": h.default_actions, "map_layers": h.map_layers,
        "transportation_methods": h.transport_methods, "highest_bytecode_command": h.highest_command,
        "character_sprite_delta_y": h.char_delta_y,
        "character_sprites_per_layer": h.char_sprites_per_layer,
        "unique_id": h.unique_id, "crc": h.crc, "encrypted": h.encrypted,
    }
    try:
        out["title"] = game.title
    except FormatError as err:
        out["title"] = None
        out["title_error"] = str(err)
    out["languages"] = [t.language for t in game.translations]
    out["sections"] = [_record(s) for s in game.sections]
    kinds: dict[str, list[int]] = {}
    for a in game.assets():
        k = kinds.setdefault(a.WHAT, [0, 0])
        k[0] += 1
        k[1] += a.length  # as stored in the file; nothing is read
    out["assets"] = [{"kind": what, "count": n, "stored_bytes": size} for what, (n, size) in kinds.items()]
    if game.source is not None:
        out["file_bytes"] = len(game.source)
        start, end = game.asset_bundle_range()
        out["asset_bundle_start"] = start
        out["asset_bundle_end"] = end
    return out


def _record(s: Any) -> dict[str, Any]:
    """One section as data: its type, its name, and what it holds."""
    t = int(s.TYPE)
    rec: dict[str, Any] = {"type": t, "name": section_name(t)}
    if getattr(s, "KIND", "") == "opaque":
        rec["kept_bytes"] = len(s.data)
    elif getattr(s, "KIND", "") == "translation":
        rec["language"] = s.language
        rec["speech_assets"] = len(s.speech)
    else:
        for attr in _LISTS:
            v = getattr(s, attr, None)
            if isinstance(v, list):
                rec[_WORDS.get(attr, attr).replace(" ", "_")] = len(v)
                break
    return rec


_LISTS = ("entries", "sprites", "npcs", "objects", "maps", "quests", "dialogs", "spawners", "groups",
          "attributes", "scripts", "actions", "tiles", "slots", "alerts", "strings", "speech", "categories",
          "progress_bars")


_WORDS = {"entries": "records", "progress_bars": "progress bars", "groups": "option groups"}


def _line(s: Any) -> str:
    """One section as ``type name: n records``."""
    t = int(s.TYPE)
    name = section_name(t)
    if getattr(s, "KIND", "") == "opaque":
        return f"{t} {name}: {len(s.data)} bytes kept as they are"
    if getattr(s, "KIND", "") == "translation":
        return f"{t} {name}: {s.language}, {len(s.speech)} speech assets"
    for attr in _LISTS:
        v = getattr(s, attr, None)
        if isinstance(v, list):
            return f"{t} {name}: {len(v)} {_WORDS.get(attr, attr)}"
    return f"{t} {name}"
