"""The top of a character sheet from a decoded save, and the loader checks a decoded save must pass.

``info`` shows what a player looks for first (name, race, class, level,
experience, gold, hit and spell points, stats, depth, turns, alive or dead
and what killed the character, equipment and pack by name).

:func:`check_consistency` makes only the checks the game's own loader makes
(``rd_player`` of ``load.c``, 4.0 to 4.2): the game is the judge of its
files. It loads a dead character (hit points below zero: that is how it
marks one), experience above its maximum (a drained character), gold or
stats it would never roll, an object whose known copy counts differently,
so none of those is a problem. What it refuses, savecraft refuses, naming
the loader's check.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...errors import Report
from .layouts.character import MAX_LEVEL, STAT_NAMES, Player, stat_text
from .vocabulary import object_name
from .layouts import layout_of

if TYPE_CHECKING:
    from .block import BlockSave

# Race and class names by index, for the games that store indexes: Vanilla 4.0.0 to 4.0.5
# (lib/gamedata/p_race.txt and class.txt give each its ``name:INDEX:NAME``; the same at every
# 4.0 tag). A dead character's menu line no longer names them, so these do.
VANILLA40_RACES = ("Human", "Half-Elf", "Elf", "Hobbit", "Gnome", "Dwarf", "Half-Orc", "Half-Troll",
                   "Dunadan", "High-Elf", "Kobold")
VANILLA40_CLASSES = ("Warrior", "Mage", "Priest", "Rogue", "Ranger", "Paladin")
# 3.1.1 to 3.5.1 have the same races and classes in the same order (lib/edit/p_race.txt, p_class.txt).
INDEXED_GAMES = ("Vanilla 4.0", "Vanilla 3.1", "Vanilla 3.2", "Vanilla 3.3", "Vanilla 3.4", "Vanilla 3.5")
# The loader's own words for its checks, which a validate error quotes.
LOADER_LEVEL = "load.c rd_player: 'Invalid player level' (1 to PY_MAX_LEVEL)"


def character_sheet(save: BlockSave) -> dict[str, Any]:
    p = save.player
    if p is None:
        return {}
    # Race and class by name in the player block: Vanilla 4.2's and the games built on it.
    named = isinstance(p, Player) or isinstance(getattr(p, "race", None), str)
    who: Any = p if named else save.header
    out: dict[str, Any] = {}
    if who is not None:
        out.update({"name": who.full_name, "race": who.race})
        if hasattr(who, "character_class"):
            out["class"] = who.character_class
    elif save.game in INDEXED_GAMES and hasattr(p, "prace"):  # race, class by index
        out.update({"name": getattr(p, "full_name", ""),
                    "race": _by_index(VANILLA40_RACES, p.prace),
                    "class": _by_index(VANILLA40_CLASSES, getattr(p, "pclass", -1))})
    elif save.description is not None and save.description.text is None:  # race, class by index
        d = save.description
        out.update({"name": getattr(p, "full_name", d.name), "race": d.race, "class": d.character_class})
    elif hasattr(p, "prace") and save.game in getattr(p, "RACE_NAMES", {}):
        out.update(_names_of_indexes(p, save.game))  # the game's names, which its player model holds
    elif hasattr(p, "prace"):  # by index, and nothing in the file names them (Anquestria)
        out.update({"name": getattr(p, "full_name", ""), "race_index": p.prace,
                    "class_index": getattr(p, "pclass", None)})
    if hasattr(p, "house"):  # NarSil and Beleriand: a house, and no class
        out["house"] = p.house
    if hasattr(p, "lev"):  # (Sil's characters have no level, and no gold)
        out["level"] = p.lev
    out["experience"] = ({"current": p.exp, "max": p.max_exp} if hasattr(p, "max_exp")
                         else {"current": p.exp, "unspent": getattr(p, "new_exp", None)})
    if hasattr(p, "au"):
        out["gold"] = p.au
    out.update({
        "hit_points": {"current": p.chp, "max": p.mhp},
        # (Xygos has none: talents and cooldowns instead)
        "spell_points": ({"current": getattr(p, "csp", None), "max": getattr(p, "msp", None)}
                         if hasattr(p, "msp") else None),
        # ``shown``: the game's "18/100" for a stat above 18 (null when the game shows the number)
        "stats": {name: {"current": p.stat_cur[i], "max": p.stat_max[i],
                         "shown": stat_text(p.stat_cur[i]) if p.stat_cur[i] > 18 else None}
                  for i, name in enumerate(getattr(p, "STAT_NAMES", STAT_NAMES)[:len(p.stat_cur)])},
    })
    dungeon = save.dungeon
    if dungeon is not None and getattr(dungeon, "present", True):  # 3.x: no level once dead
        if hasattr(dungeon, "stage"):  # FAangband 1: a stage of its map, whose depth the file lacks
            out["stage"] = dungeon.stage
        elif getattr(dungeon, "level", True) is not None:  # (PWMAngband: none once dead)
            out["depth"] = dungeon.depth
    if getattr(p, "max_depth", None) is not None:  # FAangband keeps stages, no maximum depth
        out["max_depth"] = getattr(p, "max_depth")
    misc = _misc(save)
    if misc is not None and isinstance(getattr(misc, "turn", None), int):
        out["turns"] = misc.turn
    out.update(_state(misc, p))
    gear = save.gear
    slots = getattr(p, "body", None)
    if gear is not None and isinstance(slots, list):  # a 4.2-style body (4.1, 4.2, Xygos)
        worn = sorted((g for g in gear.items if g.slot < len(slots)), key=lambda g: g.slot)
        out["equipment"] = [f"{slots[g.slot].name}: {object_name(g)}" for g in worn]
        out["inventory"] = [object_name(g) for g in gear.items if g.slot >= len(slots)]
    return out


def summary_line(sheet: dict[str, Any]) -> str | None:
    """The top of the sheet in one line, in the savefile menu's form ("Brin, L1 High-Elf Mage,
    at DL5"), for a file without the description block that holds the game's own line (Vanilla
    3.1 to 3.4, Anquestria). Built from the decoded blocks only: race and class by name where
    savecraft knows the game's names for the stored indexes, else the indexes as stored."""
    if "name" not in sheet or "level" not in sheet:
        return None
    who = f"{sheet['name']}, L{sheet['level']}"
    if sheet.get("race") is not None or sheet.get("class") is not None:
        who += " " + " ".join(str(sheet[k]) for k in ("race", "class") if sheet.get(k) is not None)
    elif "race_index" in sheet:
        who += f" (race {sheet['race_index']}, class {sheet['class_index']})"
    state = sheet.get("state")
    if state in ("dead", "retired"):
        return f"{who}, {state}" + (f" ({sheet['dead']})" if sheet.get("dead") else "")
    if state == "winner":
        who += ", winner"
    if "depth" in sheet:
        return who + (", in the town" if sheet["depth"] == 0 else f", at DL{sheet['depth']}")
    if "stage" in sheet:
        return who + f", at stage {sheet['stage']}"
    return who


def _by_index(names: tuple[str, ...], index: int) -> str | None:
    return names[index] if 0 <= index < len(names) else None


def _names_of_indexes(p: Any, game: str) -> dict[str, Any]:
    """Race and class by name, from the names a game's player model gives its stored indexes
    (``RACE_NAMES`` and ``CLASS_NAMES``: per game the file is read as, from that game's data
    files); an index past the game's list is shown as stored."""
    pclass = getattr(p, "pclass", -1)
    race, klass = _by_index(p.RACE_NAMES[game], p.prace), _by_index(p.CLASS_NAMES.get(game, ()), pclass)
    out = {"name": getattr(p, "full_name", ""), "race": race, "class": klass}
    if race is None or klass is None:
        out.update({"race_index": p.prace, "class_index": pclass})
    return out


def _misc(save: BlockSave) -> Any:
    """The decoded ``misc`` block of whichever game (each has ``is_dead``, ``total_winner``)."""
    from .block import RawBlock, block_name

    return next((b for b in save.blocks if not isinstance(b, RawBlock) and block_name(b) == "misc"
                 and hasattr(b, "is_dead")), None)


RETIRING = "Retiring"
"""The cause a game stores for a character its player retired (Vanilla 4.2.6's ``do_cmd_retire``,
NarSil's and Beleriand's): their exit screens test for it and say "You have retired"."""


def _state(misc: Any, p: Any) -> dict[str, Any]:
    """``state``: alive, winner (won, still playing), dead, or retired (won, then ended the game:
    the game then writes "Ripe Old Age" as the cause; or ended by the player's retire command,
    :data:`RETIRING`); ``dead``: the cause the game stored."""
    if misc is None:
        return {}
    won = bool(getattr(misc, "total_winner", 0))
    if not getattr(misc, "is_dead", 0):
        return {"state": "winner" if won else "alive"}
    cause = getattr(p, "died_from", None)
    return {"state": "retired" if won or cause == RETIRING else "dead", "dead": cause}


def check_consistency(save: BlockSave, report: Report) -> None:
    """The loader's own checks on what a decoded player holds (after an edit, mostly: a file
    that breaks them does not decode in the first place). Nothing the loader lets through."""
    p = save.player
    lev = getattr(p, "lev", None)  # (a Sil character has no level)
    if lev is not None and not 1 <= lev <= MAX_LEVEL:
        report.error(None, "player.lev", f"a level from 1 to {MAX_LEVEL} ({LOADER_LEVEL})", str(lev))


# -- PWMAngband's server and players files --------------------------------------------------


HTURN_ERA_FLIP = 1_000_000  # PWMAngband's two-word turn: era * HTURN_ERA_FLIP + turn (h-basic.h)


def pwm_player_summary(save: BlockSave) -> dict[str, Any]:
    """What the common sheet cannot find in a PWMAngband player file: the depth and wilderness
    square of the level (the dungeon block; none for a dead character), the game turn (misc),
    and, in a SAVE_AS_STRINGS build, the carried objects by the kind names the file holds."""
    blocks: dict[str, Any] = {getattr(layout_of(b), "name", ""): b for b in save.blocks}
    out: dict[str, Any] = {}
    dungeon = blocks.get("dungeon")
    level = getattr(dungeon, "level", None)
    if level is not None:
        out["depth"] = level.wpos_depth
        out["wilderness_position"] = {"x": level.wpos_x, "y": level.wpos_y}
    misc = blocks.get("misc")
    if misc is not None and hasattr(misc, "game_turn"):
        out["turns"] = misc.game_turn_era * HTURN_ERA_FLIP + misc.game_turn
    gear = blocks.get("gear")
    if gear is not None and getattr(gear, "as_names", None):
        out["carried"] = [f"{g.item.number} {g.item.tval}: {g.item.sval}" for g in gear.items]
    return out


def pwm_server_summary(save: BlockSave, kind: str) -> dict[str, Any]:
    """Players, parties, houses, arenas and the wilderness of a PWMAngband server (or players)
    file, from its decoded blocks (layouts/pwmangband_server.py: ``rd_player_names``,
    ``rd_parties``, ``rd_houses``, ``rd_arenas``, ``rd_wilderness``); a block that stays raw
    (a magic savecraft has no layouts of, a damaged block) adds nothing."""
    out: dict[str, Any] = {"pwmangband_file": kind}
    blocks: dict[str, Any] = {getattr(layout_of(b), "name", ""): b for b in save.blocks}
    names = blocks.get("player_names")
    if names is not None:
        if names.player_id is not None:  # 1.4.0 on: the next player id comes first
            out["player_id"] = names.player_id
        out["player_count"] = len(names.players)
        out["players"] = [p.name for p in names.players]
    misc = blocks.get("misc")
    if misc is not None and getattr(misc, "player_id", None) is not None:  # before 1.4.0: here
        out["player_id"] = misc.player_id
    parties = blocks.get("parties")
    if parties is not None:
        out["parties"] = [f"{p.name} (owner {p.owner}, {p.num} members)" for p in parties.parties
                          if p.num > 0]
    houses = blocks.get("houses")
    if houses is not None:
        out["house_count"] = len(houses.houses)
        out["houses_owned"] = sum(h.ownerid != 0 for h in houses.houses)
    arenas = blocks.get("arenas")
    if arenas is not None:
        out["arena_count"] = len(arenas.arenas)
    wild = blocks.get("wilderness")
    if wild is not None:
        out["wilderness_radius"] = wild.radius
    dungeons = blocks.get("dungeons")
    if dungeons is not None:
        out["levels_kept"] = len(dungeons.levels)
    monsters = blocks.get("monsters")
    if monsters is not None:
        out["monster_count"] = sum(len(lv.monsters) for lv in monsters.levels)
    return out
