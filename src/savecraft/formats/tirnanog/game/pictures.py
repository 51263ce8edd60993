"""A game's pictures for the studio: what a person would rather look at than read.

Its maps (drawn on request with chosen layers, by the same renderer as ``savecraft
render-map``), atlases and backgrounds (``image``), sprite animations (PNG frames and a
frame time) and every script as its assembly (``text``), as the plain descriptions the
studio's page shows without knowing the format (the format's ``pictures`` hook).
"""

from __future__ import annotations

from typing import Any

from ....errors import FormatError, SavecraftError
from . import render as draw
from .refs import describe
from .sections.common import SpriteRef
from .summary import game_scripts, script_title, section_path

SPRITE_LIMIT = 48
SCRIPT_LIMIT = 200  # animations listed per sprite section (the tree reaches the rest)
FRAME_MS = 150
SPRITE_KINDS = ("ui_sprites", "tile_sprites", "character_sprites", "portrait_sprites")


def _section(game: Any, kind: str) -> Any:
    for s in getattr(game, "sections", ()):
        if getattr(s, "KIND", None) == kind:
            return s
    return None


def _section_index(game: Any, kind: str) -> int:
    for k, s in enumerate(getattr(game, "sections", ())):
        if getattr(s, "KIND", None) == kind:
            return k
    return -1


def listing(game: Any) -> list[dict[str, Any]]:
    """What a game can show: its maps, atlases, backgrounds, sprite animations and scripts."""
    out: list[dict[str, Any]] = []
    maps = _section(game, "maps")
    mk = _section_index(game, "maps")
    for i, entry in enumerate(getattr(maps, "maps", ()) if maps is not None else ()):
        layers: list[int] = []
        width = height = 0
        try:
            _, m = draw.game_map(game, i)
            layers = draw.tile_layers(m)
            h = game.header
            width, height = draw.canvas_size(h.game_type, m.size, h.tile_width, h.tile_height)
        except FormatError:
            pass
        out.append({"name": f"map-{i}", "kind": "map", "title": f"map {i}: {game.string(entry.name)}",
                    "layers": layers, "width": width, "height": height,
                    "path": f"{section_path(game, mk)}.maps[{i}]"})
    for kind, title in (("atlases", "atlas"), ("backgrounds", "background")):
        sec = _section(game, kind)
        k = _section_index(game, kind)
        for i, _ in enumerate(getattr(sec, "entries", ()) if sec is not None else ()):
            out.append({"name": f"{kind}-{i}", "kind": "image", "title": f"{title} {i}",
                        "path": f"{section_path(game, k)}.entries[{i}].asset"})
    for kind in SPRITE_KINDS:
        sec = _section(game, kind)
        k = _section_index(game, kind)
        cat = int(getattr(sec, "CATEGORY", -1)) if sec is not None else -1
        for i, sprite in enumerate(list(getattr(sec, "sprites", ()))[:SPRITE_LIMIT] if sec is not None else ()):
            try:
                anims = sprite.asset.value.animations
            except FormatError:
                continue
            for a, anim in enumerate(anims):
                n = len(anim.frames)
                if not n:
                    continue
                try:  # named as references to it read: "tiles sprite 3 (object 'Sword')"
                    named = describe(game, "sprite", SpriteRef(cat, i))
                except (FormatError, LookupError, TypeError, ValueError):
                    named = f"{kind.replace('_', ' ')} {i}"
                out.append({"name": f"{kind}-{i}-{a}", "kind": "animation",
                            "title": f"{named}, animation {a}",
                            "frames": n, "frame_ms": FRAME_MS,
                            "path": f"{section_path(game, k)}.sprites[{i}].asset.value.animations[{a}]"})
    return out + _scripts(game)


def _scripts(game: Any) -> list[dict[str, Any]]:
    """Every script of the game as its assembly (labels and names as ``savecraft disasm`` prints)."""
    return [_script_entry(path, script, game) for path, script in game_scripts(game, SCRIPT_LIMIT)]


def _script_entry(path: str, script: Any, game: Any = None) -> dict[str, Any]:
    """A script titled by the records that hold it (``npc types › npcs 'Guard' › handlers 0``)."""
    title = path
    if game is not None:
        title = script_title(game, path)
    return {"name": f"script:{path}", "kind": "text", "title": f"script: {title}", "path": path + ".text",
            "text": script.text}


def render(game: Any, name: str, query: dict[str, str]) -> bytes:
    """The PNG of one listed picture (``map-N`` takes ``layers`` and ``scale``)."""
    kind, _, rest = name.partition("-")
    if kind == "map":
        return _map(game, _number(rest, name), query)
    if name.startswith(("atlases-", "backgrounds-")):
        sec_kind, _, index = name.rpartition("-")
        sec = _section(game, sec_kind)
        entries = getattr(sec, "entries", []) if sec is not None else []
        i = _number(index, name)
        if not 0 <= i < len(entries):
            raise SavecraftError(f"no picture {name!r}")
        return bytes(entries[i].asset.value)
    for sk in SPRITE_KINDS:
        if name.startswith(sk + "-"):
            sprite, _, anim = name[len(sk) + 1 :].partition("-")
            frame = _number(query.get("frame", "0"), "frame")
            return _frame(game, sk, _number(sprite, name), _number(anim, name), frame)
    raise SavecraftError(f"no picture {name!r}")


def _number(text: str, what: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise SavecraftError(f"{what}: expected a number, found {text!r}") from None


def _map(game: Any, index: int, query: dict[str, str]) -> bytes:
    layers = None
    if "layers" in query:
        layers = [int(x) for x in query["layers"].split(",") if x.strip().isdigit()]
    scale = float(query.get("scale", "1") or 1)
    if not 0.01 <= scale <= 4:
        raise SavecraftError(f"scale: expected 0.01 to 4, found {scale}")
    _, m = draw.game_map(game, index)
    h = game.header
    scale = min(scale, draw.fit_scale(m.size, h.tile_width, h.tile_height, h.game_type))
    picture = draw.render_map(m, draw.game_tiles(game), h.tile_width, h.tile_height, h.game_type, layers,
                           scale)
    return draw.to_png(picture)


def _frame(game: Any, kind: str, index: int, anim: int, frame: int) -> bytes:
    sec = _section(game, kind)
    sprites = getattr(sec, "sprites", []) if sec is not None else []
    if not 0 <= index < len(sprites):
        raise SavecraftError(f"no sprite {index} in {kind}")
    anims = sprites[index].asset.value.animations
    if not 0 <= anim < len(anims):
        raise SavecraftError(f"no animation {anim} in {kind}[{index}]")
    atlases = _section(game, "atlases")
    entries = getattr(atlases, "entries", []) if atlases is not None else []
    cache: dict[int, Any] = {}

    def atlas(i: int) -> Any:
        if i not in cache:
            if not 0 <= i < len(entries):
                raise FormatError(None, "atlases", f"an atlas index below {len(entries)}", str(i))
            cache[i] = draw.load_png(entries[i].asset.value, f"atlases[{i}]")
        return cache[i]

    count = len(anims[anim].frames)
    picture = draw.sprite_image(anims[anim], atlas, frame % max(count, 1), path=f"{kind}[{index}]")
    return draw.to_png(picture)

