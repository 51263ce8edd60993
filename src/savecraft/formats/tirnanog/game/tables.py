"""The tables a TirNanoG game file (``.tng``) offers (``savecraft sql``, ``export``; docs/tables.md).

``tng_games``: one row per file, the header and how much of each kind the
game holds. ``tng_sections``: one per section, with its number of records
(the same counts ``savecraft sections`` prints); there assets are counted
from their stored lengths and nothing is inflated. ``tng_maps``,
``tng_objects``, ``tng_npcs``, ``tng_quests`` and ``tng_dialogs``: one row per
record of those sections, with its name (the strings section) and title (the
first translation) resolved, so a question is asked by name. Their assets are
inflated and decoded only when one of these tables is asked for (a query of
``tng_games`` alone inflates nothing); the model, and so every decoded asset,
is let go when the file's rows are made.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ....errors import FormatError
from ....tables.schema import Table, col
from .maps import EMPTY_TILE, NPC_LAYER, SPAWNER_LAYER, MapAsset
from .model import Game
from .sections.s28_npc_types import NpcTypesSection
from .sections.s30_dialogs import DialogsSection
from .sections.s31_objects import ObjectsSection
from .sections.s34_quests import QuestsSection
from .header import game_type_name
from .info import _LISTS
from .sections import section_name


def game(g: Game) -> str | None:
    return g.header.game_id or None


def _title(g: Game) -> str | None:
    try:
        return g.title or None
    except FormatError:
        return None


def _records(s: Any) -> int | None:
    for attr in _LISTS:
        v = getattr(s, attr, None)
        if isinstance(v, list):
            return len(v)
    return None


def _game(g: Game) -> Iterator[tuple[Any, ...]]:
    h = g.header
    maps = g.maps
    assets = list(g.assets())
    yield (h.game_id, _title(g), h.revision, game_type_name(h.game_type), len(g.sections),
           len(maps.maps) if maps is not None and isinstance(getattr(maps, "maps", None), list) else 0,
           len(assets), sum(a.length for a in assets), len(g.translations), h.encrypted)


def _sections(g: Game) -> Iterator[tuple[Any, ...]]:
    for i, s in enumerate(g.sections):
        t = int(s.TYPE)
        yield (i, t, section_name(t), _records(s))


GAMES = Table("tng_games", "tirnanog-game", "one per file", (
    col("game_id", "string", "header.game_id"),
    col("title", "string", "translations[0].title", "null when the game has no translation"),
    col("revision", "int64", "header.revision"),
    col("game_type", "string", "header.game_type", "its name (top-down, isometric, ...)"),
    col("sections", "int64", "sections"),
    col("maps", "int64", "maps.maps"),
    col("assets", "int64", "(sections)", "assets of every kind"),
    col("asset_bytes", "int64", "(sections)", "their stored bytes"),
    col("languages", "int64", "translations"),
    col("encrypted", "bool", "header.encrypted"),
), _game)

SECTIONS = Table("tng_sections", "tirnanog-game", "one per section", (
    col("section", "int64", "sections[N]"),
    col("type", "int64", "sections[N].TYPE"),
    col("name", "string", "sections[N]", "the section's name in the format's docs"),
    col("records", "int64", "sections[N]", "its records (maps, sprites, scripts, ...)"),
), _sections)

def _name(g: Game, offset: int) -> str | None:
    """A name from the strings section (None where the game stores none)."""
    try:
        return g.string(offset) or None
    except FormatError:
        return None


def _text(g: Game, index: int) -> str | None:
    """A translatable text in the game's first language (None where it has none)."""
    try:
        return g.text(index) or None
    except FormatError:
        return None


def _placed(m: MapAsset, layer: int) -> int:
    """How many tiles of one layer hold something (the NPC and spawner layers place them)."""
    if layer >= m.layer_count:
        return 0
    return int((m.layers[layer] != EMPTY_TILE).sum())


def _neighbours(g: Game, refs: list[int]) -> str | None:
    """The six neighbours' names in the stored order (empty where there is none), or null."""
    names = [_name(g, v) or "" for v in refs]
    return ",".join(names) if any(names) else None


def _maps(g: Game) -> Iterator[tuple[Any, ...]]:
    maps = g.maps
    for i, entry in enumerate(maps.maps if maps is not None else ()):
        m = entry.asset.value
        yield (i, _name(g, entry.name), _text(g, m.title), m.size, m.layer_count,
               _neighbours(g, m.neighbours),
               _name(g, m.music), m.daylight_length, len(m.parallaxes), len(m.patrol_paths),
               _placed(m, NPC_LAYER), _placed(m, SPAWNER_LAYER), entry.asset.length)


def _objects(g: Game) -> Iterator[tuple[Any, ...]]:
    for s in g.sections_of(ObjectsSection):
        for i, entry in enumerate(s.objects):
            o = entry.asset.value
            yield (i, entry.sprite, _text(g, o.title), o.category, o.price,
                   None if o.price_unit == 0xFFFF else o.price_unit, o.equip_mask,
                   o.equip_mask == 0xFFFFFFFF, len(o.required), len(o.modifiers), len(o.handlers))


def _npcs(g: Game) -> Iterator[tuple[Any, ...]]:
    for s in g.sections_of(NpcTypesSection):
        for i, entry in enumerate(s.npcs):
            n = entry.asset.value
            yield (i, _name(g, entry.name), _text(g, n.title), n.behaviour, n.speed, n.patrol_path,
                   len(n.attributes), len(n.inventory), sum(it.quantity for it in n.inventory),
                   len(n.handlers))


def _quests(g: Game) -> Iterator[tuple[Any, ...]]:
    for s in g.sections_of(QuestsSection):
        for i, entry in enumerate(s.quests):
            q = entry.asset.value
            yield (i, _name(g, entry.name), _text(g, q.title), _text(g, q.description),
                   bool(q.global_quest), not q.script.empty)


def _dialogs(g: Game) -> Iterator[tuple[Any, ...]]:
    for s in g.sections_of(DialogsSection):
        for i, entry in enumerate(s.dialogs):
            d = entry.asset.value
            yield (i, _name(g, entry.name), _text(g, d.title), _text(g, d.description),
                   _name(g, d.speech), len(d.options),
                   sum(1 for o in d.options if o.provided_attribute))


MAPS = Table("tng_maps", "tirnanog-game", "one per map", (
    col("map", "int64", "maps.maps[N]", "the map's place in the maps section (users' `map` in tng_users)"),
    col("name", "string", "maps.maps[N].name", "from the strings section"),
    col("title", "string", "maps.maps[N].asset.value.title", "in the game's first language"),
    col("size", "int64", "maps.maps[N].asset.value.layers", "tiles per side"),
    col("layers", "int64", "maps.maps[N].asset.value.layers"),
    col("neighbours", "string", "maps.maps[N].asset.value.neighbours",
        "the names of the six maps around it, South first, counter-clockwise, comma-separated (empty where none)"),
    col("music", "string", "maps.maps[N].asset.value.music", "its background music's name"),
    col("daylight_length", "int64", "maps.maps[N].asset.value.daylight_length", "minutes"),
    col("parallaxes", "int64", "maps.maps[N].asset.value.parallaxes"),
    col("patrol_paths", "int64", "maps.maps[N].asset.value.patrol_paths"),
    col("npcs_placed", "int64", "maps.maps[N].asset.value.layers[5]", "tiles of the NPC layer that place one"),
    col("spawners_placed", "int64", "maps.maps[N].asset.value.layers[6]", "tiles of the spawner layer that place one"),
    col("asset_bytes", "int64", "maps.maps[N].asset", "its stored (deflated) bytes"),
), _maps)

OBJECTS = Table("tng_objects", "tirnanog-game", "one per object", (
    col("object", "int64", "sections[objects].objects[N]"),
    col("sprite", "int64", "sections[objects].objects[N].sprite", "its tile sprite index"),
    col("title", "string", "sections[objects].objects[N].asset.value.title", "in the game's first language"),
    col("category", "int64", "sections[objects].objects[N].asset.value.category"),
    col("price", "int64", "sections[objects].objects[N].asset.value.price"),
    col("price_unit", "int64", "sections[objects].objects[N].asset.value.price_unit",
        "the object sprite priced in; null: none"),
    col("equip_mask", "int64", "sections[objects].objects[N].asset.value.equip_mask"),
    col("skill", "bool", "sections[objects].objects[N].asset.value.equip_mask", "0xFFFFFFFF: a skill"),
    col("requirements", "int64", "sections[objects].objects[N].asset.value.required"),
    col("modifiers", "int64", "sections[objects].objects[N].asset.value.modifiers"),
    col("handlers", "int64", "sections[objects].objects[N].asset.value.handlers"),
), _objects)

NPCS = Table("tng_npcs", "tirnanog-game", "one per NPC type", (
    col("npc", "int64", "sections[npc_types].npcs[N]"),
    col("name", "string", "sections[npc_types].npcs[N].name", "from the strings section"),
    col("title", "string", "sections[npc_types].npcs[N].asset.value.title", "in the game's first language"),
    col("behaviour", "int64", "sections[npc_types].npcs[N].asset.value.behaviour"),
    col("speed", "int64", "sections[npc_types].npcs[N].asset.value.speed", "percent"),
    col("patrol_path", "int64", "sections[npc_types].npcs[N].asset.value.patrol_path"),
    col("attributes", "int64", "sections[npc_types].npcs[N].asset.value.attributes"),
    col("inventory", "int64", "sections[npc_types].npcs[N].asset.value.inventory", "kinds of object carried"),
    col("inventory_quantity", "int64", "sections[npc_types].npcs[N].asset.value.inventory",
        "objects carried, all kinds"),
    col("handlers", "int64", "sections[npc_types].npcs[N].asset.value.handlers"),
), _npcs)

QUESTS = Table("tng_quests", "tirnanog-game", "one per quest", (
    col("quest", "int64", "sections[quests].quests[N]"),
    col("name", "string", "sections[quests].quests[N].name", "from the strings section"),
    col("title", "string", "sections[quests].quests[N].asset.value.title", "in the game's first language"),
    col("description", "string", "sections[quests].quests[N].asset.value.description",
        "in the game's first language"),
    col("global_quest", "bool", "sections[quests].quests[N].asset.value.global_quest",
        "only one player can complete it"),
    col("has_script", "bool", "sections[quests].quests[N].asset.value.script", "it runs a script on completion"),
), _quests)

DIALOGS = Table("tng_dialogs", "tirnanog-game", "one per dialog", (
    col("dialog", "int64", "sections[dialogs].dialogs[N]"),
    col("name", "string", "sections[dialogs].dialogs[N].name", "from the strings section"),
    col("title", "string", "sections[dialogs].dialogs[N].asset.value.title", "in the game's first language"),
    col("description", "string", "sections[dialogs].dialogs[N].asset.value.description",
        "in the game's first language"),
    col("speech", "string", "sections[dialogs].dialogs[N].asset.value.speech", "its speech asset's name"),
    col("options", "int64", "sections[dialogs].dialogs[N].asset.value.options", "answers offered"),
    col("options_giving", "int64", "sections[dialogs].dialogs[N].asset.value.options",
        "answers that set an attribute"),
), _dialogs)

TABLES = (GAMES, SECTIONS, MAPS, OBJECTS, NPCS, QUESTS, DIALOGS)
