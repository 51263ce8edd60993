"""The tables an Angband 3.1+/4.x savefile offers (``savecraft sql``, ``export``; docs/tables.md).

One ``characters`` row per file, from the decoded player through
:func:`.sheet.character_sheet` (the same name, race, class and numbers
``savecraft info`` shows), and two entity tables joined to it by
``file_id``: ``gear`` (what the character carries and wields) and
``history`` (the game's notes of levels, uniques and artifacts). A file
whose blocks its game's layouts could not decode still has its
``characters`` row, with the fields nobody could read left null.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ...tables.schema import Table, col
from . import sheet
from .block import BlockSave

RETIRED = "Ripe Old Age"  # what the game writes as the cause of death of a winner who retired


def game(save: BlockSave) -> str | None:
    """The partition key below the format (savecraft export): the game that wrote the file."""
    return save.game or save.variant or None


def _misc(save: BlockSave) -> Any:
    """The misc block of any version (4.2's, or 4.0's and the variants' own with the same fields)."""
    if save.misc is not None:
        return save.misc
    for b in save.blocks:
        if hasattr(b, "is_dead") and hasattr(b, "turn"):
            return b
    return None


def status(save: BlockSave) -> str | None:
    """alive, dead, retired (a winner who left the game) or winner (still playing)."""
    misc = _misc(save)
    if misc is None:
        d = save.description
        if d is not None and d.text is not None and ", dead" in d.text:
            return "dead"  # the menu line of a game whose misc block is not decoded
        return None
    p = save.player
    died_from = getattr(p, "died_from", "")
    if misc.is_dead:
        return "retired" if died_from == RETIRED else "dead"
    return "winner" if getattr(misc, "total_winner", 0) else "alive"  # (NarSil stores no winner)


def _character(save: BlockSave) -> Iterator[tuple[Any, ...]]:
    s = sheet.character_sheet(save)
    p = save.player
    d = save.description
    exp = s.get("experience") or {}
    hp = s.get("hit_points") or {}
    name, race, cls = s.get("name"), s.get("race"), s.get("class")
    level = s.get("level")
    if p is None and d is not None and d.text is None:  # nothing decoded: the savefile menu's line
        name, race, cls, level = d.name, d.race, d.character_class, d.level
    st = status(save)
    misc = _misc(save)
    turns = s.get("turns", getattr(misc, "turn", None))
    yield (save.game or None, save.variant, name or None, race or None, cls or None, level,
           exp.get("current"), exp.get("max"), s.get("gold"), hp.get("current"), hp.get("max"),
           s.get("depth"), s.get("max_depth"), turns, st,
           (getattr(p, "died_from", None) or None) if st in ("dead", "retired") else None,
           d.line if d is not None else None)


def _gear(save: BlockSave) -> Iterator[tuple[Any, ...]]:
    gear = save.gear
    p = save.player
    if gear is None or p is None:
        return
    slots = getattr(p, "body", [])
    for i, g in enumerate(gear.items):
        worn = g.slot < len(slots)
        yield (i, g.slot, slots[g.slot].name if worn else None, worn, g.name, g.quantity,
               str(g.item.tval), str(g.item.sval), g.note or None)


def _history(save: BlockSave) -> Iterator[tuple[Any, ...]]:
    h = save.history
    if h is None:
        return
    for i, e in enumerate(h.entries):
        yield (i, e.turn, e.dlev, e.clev, e.artifact or None, e.event)


CHARACTERS = Table("characters", "angband-block", "one per file", (
    col("game", "string", "(decoding) game", "the game whose layouts read the file (Vanilla 4.2, ...)"),
    col("variant", "string", "variant", "the 4-letter variant id (VNLA, FAAN, PWMG, ...)"),
    col("name", "string", "player.full_name", "PWMAngband: header.name; else the menu line"),
    col("race", "string", "player.race"),
    col("class", "string", "player.character_class"),
    col("level", "int64", "player.lev"),
    col("exp", "int64", "player.exp"),
    col("max_exp", "int64", "player.max_exp"),
    col("gold", "int64", "player.au"),
    col("hp", "int64", "player.chp"),
    col("max_hp", "int64", "player.mhp"),
    col("depth", "int64", "dungeon.depth", "the current dungeon level (0: the town)"),
    col("max_depth", "int64", "player.max_depth"),
    col("turns", "int64", "misc.turn", "game turns"),
    col("status", "string", "misc.is_dead, misc.total_winner, player.died_from",
        "alive, dead, retired (a winner who left: died of 'Ripe Old Age') or winner"),
    col("killed_by", "string", "player.died_from", "null unless dead or retired"),
    col("description", "string", "description", "the savefile menu's line"),
), _character)

GEAR = Table("gear", "angband-block", "one per carried object (worn and in the pack)", (
    col("item", "int64", "gear.items[N]", "N, the object's place in the gear block"),
    col("slot", "int64", "gear.items[N].slot", "a body slot, or past them: the pack"),
    col("slot_name", "string", "player.body[slot].name", "null for the pack"),
    col("worn", "bool", "gear.items[N].slot", "true when wielded or worn"),
    col("name", "string", "gear.items[N].name", "the object kind's name, as info shows it"),
    col("quantity", "int64", "gear.items[N].quantity"),
    col("tval", "string", "gear.items[N].item.tval", "the object's kind (potion, sword, ...)"),
    col("sval", "string", "gear.items[N].item.sval", "which one of its kind"),
    col("note", "string", "gear.items[N].note", "the inscription"),
), _gear)

HISTORY = Table("history", "angband-block", "one per entry of the character's history", (
    col("entry", "int64", "history.entries[N]"),
    col("turn", "int64", "history.entries[N].turn"),
    col("depth", "int64", "history.entries[N].dlev"),
    col("level", "int64", "history.entries[N].clev"),
    col("artifact", "string", "history.entries[N].artifact"),
    col("event", "string", "history.entries[N].event"),
), _history)

TABLES = (CHARACTERS, GEAR, HISTORY)
