"""The studio's world overview of a TirNanoG game: maps with named layers, sprites and scripts by name.

Data the page lays out (schema: :mod:`savecraft.studio.views`), never HTML.
Names come from the game itself: a sprite by its category and, for an
object's tile, the object's title; a script by the records that hold it (an
NPC type's name, a quest's title) rather than by its raw field path. Nothing
that is not needed is inflated: asset sizes are read from the directory.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ....errors import FormatError
from .header import game_type_name
from .maps import NPC_LAYER, SPAWNER_LAYER
from .model import Game
from .sections import CATEGORY_NAMES, section_name
from ....paths import Attr, Index, format_path, resolve, shown
from ..game.render import canvas_size, game_map, tile_layers
from .assets import Asset
from .bytecode import Script
from .refs import describe
from .sections.common import SpriteRef, iter_values

SPRITE_KINDS = ("ui_sprites", "tile_sprites", "character_sprites", "portrait_sprites")
LIST_LIMIT = 500  # names listed per kind in the overview (the tree reaches the rest)


def layer_name(i: int) -> str:
    """A map layer as the spec fixes it: 5 holds NPCs, 6 spawners, every other one tiles."""
    if i == NPC_LAYER:
        return "NPCs"
    if i == SPAWNER_LAYER:
        return "spawners"
    return f"tiles {i} ({'under' if i < NPC_LAYER else 'over'} characters)"


def section_path(game: Game, k: int) -> str:
    return format_path(shown(game, [Attr("sections"), Index(k)]))


def _own_name(game: Game, record: Any) -> str | None:
    """The string or text a record names itself by (a field called *name* or *title*)."""
    if not dataclasses.is_dataclass(record) or isinstance(record, type):
        return None
    for f in dataclasses.fields(record):
        kind = f.metadata.get("ref")
        if ("name" in f.name or "title" in f.name) and kind in ("string", "text") and isinstance(getattr(record, f.name, None), int):
            try:
                text = describe(game, kind, getattr(record, f.name))
            except (FormatError, LookupError, TypeError, ValueError):
                continue
            if "'" in text:
                return text[text.index("'"):text.rindex("'") + 1] if kind == "string" else text.split("(", 1)[-1].split(",")[0].rstrip(")")
    return None


def script_title(game: Game, path: str) -> str:
    """A script named by where it lives: ``NPC types › 'Guard' › handlers 0``."""
    try:
        where = resolve(game, path)
    except Exception:  # noqa: BLE001 - a title is a nicety: fall back to the path
        return path
    chain = where.chain
    values = [c for c, _, _ in chain] + [where.value]
    parts: list[str] = []
    for n, (container, step, _) in enumerate(chain):
        item = values[n + 1]
        if isinstance(step, Index):
            if container is game.sections:
                parts.append(section_name(int(item.TYPE)).replace("_", " "))
                continue
            own = _own_name(game, item)
            if parts and own:
                parts[-1] = f"{parts[-1]} {own}"
            elif parts:
                parts[-1] = f"{parts[-1]} {step.index}"
            else:
                parts.append(own or str(step.index))
        else:
            name = getattr(step, "name", "")
            if name in ("asset", "value", "script", "text", "sections") or container is game:
                continue
            parts.append(name.replace("_", " "))
    return " › ".join(parts) or path


def game_scripts(game: Game, limit: int) -> list[tuple[str, Any]]:
    """Up to ``limit`` scripts that have assembly text, with their paths, in file order."""
    out: list[tuple[str, Any]] = []
    for k, section in enumerate(game.sections):
        if len(out) >= limit:
            break
        try:
            found: list[tuple[str, Any]] = list(iter_values(section, (Script, Asset), section_path(game, k)))
        except FormatError:
            continue
        for path, value in found:
            if isinstance(value, Asset):  # a script asset, or an asset holding scripts
                try:
                    inner = value.value
                except FormatError:
                    continue
                if isinstance(inner, Script):
                    value, path = inner, path + ".value"
                else:
                    out += [(p, sc) for p, sc in iter_values(inner, Script, path + ".value") if sc.text]
                    continue
            if isinstance(value, Script) and value.text:
                out.append((path, value))
    return out[:limit]


def summary(game: Game) -> dict[str, Any]:
    """Title and header facts, maps (pictures with named layers), sprites and scripts by name."""
    h = game.header
    try:
        title = game.title or h.game_id
    except FormatError:
        title = h.game_id
    facts = [
        {"label": "Game id", "value": h.game_id, "path": "header.game_id"},
        {"label": "Revision", "value": str(h.revision), "path": "header.revision"},
        {"label": "Kind", "value": game_type_name(h.game_type), "path": "header.game_type"},
        {"label": "Tiles", "value": f"{h.tile_width} x {h.tile_height} px", "path": "header.tile_width"},
        {"label": "Map size", "value": f"{h.map_size} x {h.map_size} tiles, {h.map_layers} layers",
         "path": "header.map_size"},
        {"label": "Languages", "value": ", ".join(t.language for t in game.translations) or "none"},
    ]
    if game.source is not None:
        n = len(game.source)
        facts.append({"label": "File", "value": f"{n / 2**20:,.1f} MiB" if n >= 2**20 else f"{n / 1024:,.1f} KiB"})
    sections: list[dict[str, Any]] = [{"kind": "facts", "title": "Game", "items": facts}]

    maps: list[dict[str, Any]] = []
    sec: Any
    for k, sec in enumerate(game.sections):
        if getattr(sec, "KIND", "") != "maps":
            continue
        for i, entry in enumerate(sec.maps):
            item: dict[str, Any] = {"name": f"map-{i}", "title": f"map {i}: {game.string(entry.name)}",
                                    "path": f"{section_path(game, k)}.maps[{i}]", "layers": []}
            try:
                _, m = game_map(game, i)
                item["layers"] = [{"id": n, "name": layer_name(n)} for n in tile_layers(m)]
                item["width"], item["height"] = canvas_size(h.game_type, m.size, h.tile_width, h.tile_height)
            except FormatError as err:
                item["error"] = str(err)
            maps.append(item)
    if maps:
        sections.append({"kind": "maps", "title": "Maps", "maps": maps})

    sprites: list[dict[str, Any]] = []
    for k, sec in enumerate(game.sections):
        kind = getattr(sec, "KIND", "")
        if kind not in SPRITE_KINDS:
            continue
        cat = int(getattr(sec, "CATEGORY", -1))
        for i in range(min(len(sec.sprites), LIST_LIMIT)):
            try:
                text = describe(game, "sprite", SpriteRef(cat, i))
            except (FormatError, LookupError, TypeError, ValueError):
                text = f"{CATEGORY_NAMES.get(cat, kind)} sprite {i}"
            sprites.append({"label": CATEGORY_NAMES.get(cat, kind), "text": text,
                            "path": f"{section_path(game, k)}.sprites[{i}]"})
    if sprites:
        sections.append({"kind": "list", "title": f"Sprites ({len(sprites):,})", "items": sprites,
                         "search": True})

    scripts = [{"text": script_title(game, path), "path": path + ".text", "label": "script"}
               for path, _ in game_scripts(game, LIST_LIMIT)]
    if scripts:
        sections.append({"kind": "list", "title": f"Scripts ({len(scripts):,})", "items": scripts,
                         "search": True})
    return {"title": title, "subtitle": f"TirNanoG game · {game_type_name(h.game_type)}", "sections": sections}
