"""The studio's character sheet of an Angband save: data the page lays out, never HTML.

Built on :func:`.sheet.character_sheet` (what ``info`` prints), with the
field path of every value so the page can jump from the sheet to the field
tree and the bytes. The schema is :mod:`savecraft.studio.views`'s.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from .sheet import character_sheet
from .vocabulary import object_name
from .layouts.character import MAX_LEVEL, STAT_RANGE, Player
from .layouts.character import stat_text

# The game's own limits, shown as the allowed range (4.2: z_info->stack_size, and the s32 gold).
MAX_STACK = 40
MAX_GOLD = 2**31 - 1

if TYPE_CHECKING:
    from .block import BlockSave


def _pair(v: dict[str, int]) -> str:
    if v.get("max") is None:  # NarSil's experience: the total, with no maximum
        return f"{v['current']:,}"
    return f"{v['current']:,} / {v['max']:,}"


def summary(save: BlockSave) -> dict[str, Any]:
    """A character sheet: who, how strong, where, and what they carry, each linked to its field."""
    sheet = character_sheet(save)
    if not sheet:
        return {"title": "Angband save", "subtitle": "no character block was read", "sections": []}
    name = sheet.get("name") or "(nameless)"
    who = " ".join(str(sheet[k]) for k in ("race", "class") if sheet.get(k))
    if not who and "race_index" in sheet:  # (Anquestria: indexes, and no names in the file)
        who = f"race {sheet['race_index']}, class {sheet['class_index']}"
    # (a Sil character, NarSil's, has no level and no gold)
    subtitle = (f"{who}, level {sheet['level']}" if "level" in sheet else who) \
        + (f" (died: {sheet['dead']})" if sheet.get("dead") else "")
    facts = [
        {"label": "Level", "value": str(sheet.get("level")), "path": "player.lev", "allowed": f"1 to {MAX_LEVEL}"},
        {"label": "Experience", "value": _pair(sheet["experience"]), "path": "player.exp"},
        {"label": "Gold", "value": f"{sheet.get('gold', 0):,}", "path": "player.au", "allowed": f"0 to {MAX_GOLD:,}"},
        {"label": "Hit points", "value": _pair(sheet["hit_points"]), "path": "player.chp"},
    ]
    if sheet.get("spell_points") is not None:  # (Xygos has none)
        facts.append({"label": "Spell points", "value": _pair(sheet["spell_points"]), "path": "player.csp"})
    facts = [f for f in facts if f["label"] not in (("Level",) if "level" not in sheet else ())
             + (("Gold",) if "gold" not in sheet else ())]
    if "depth" in sheet:
        facts.append({"label": "Depth", "value": f"{sheet['depth'] * 50:,} ft (level {sheet['depth']})",
                      "path": "dungeon.depth"})
    if "stage" in sheet:  # FAangband 1: a stage of its map (the file does not say its depth)
        facts.append({"label": "Stage", "value": str(sheet["stage"]), "path": "dungeon.stage"})
    if "max_depth" in sheet:
        facts.append({"label": "Deepest", "value": f"{sheet['max_depth'] * 50:,} ft (level {sheet['max_depth']})",
                      "path": "player.max_depth"})
    if "turns" in sheet:
        facts.append({"label": "Game turns", "value": f"{sheet['turns']:,}", "path": "misc.turn"})
    stats = {
        "kind": "table", "id": "stats", "title": "Stats",
        "columns": [{"key": "stat", "label": "Stat"}, {"key": "current", "label": "Current", "type": "number"},
                    {"key": "max", "label": "Maximum", "type": "number"}, {"key": "shown", "label": "As shown"}],
        "rows": [{"path": f"player.stat_cur[{i}]",
                  "cells": [name.upper(), s["current"], s["max"], s["shown"] or str(s["current"])]}
                 for i, (name, s) in enumerate(sheet["stats"].items())],
    }
    sections: list[dict[str, Any]] = [{"kind": "facts", "title": "Character", "items": facts}, stats]
    gear = save.gear
    p = save.player
    if gear is not None and isinstance(p, Player):
        slots = p.body
        worn = sorted(((i, g) for i, g in enumerate(gear.items) if g.slot < len(slots)), key=lambda x: x[1].slot)
        sections.append({"kind": "list", "title": "Equipment", "items": [
            {"label": slots[g.slot].name, "text": object_name(g), "path": f"gear.items[{i}]"} for i, g in worn]})
        sections.append({"kind": "list", "title": "Pack", "note": f"a stack holds 1 to {MAX_STACK}", "items": [
            {"text": object_name(g), "path": f"gear.items[{i}]"} for i, g in enumerate(gear.items) if g.slot >= len(slots)]})
    return {"title": name, "subtitle": subtitle, "sections": sections}


_HINTS: list[tuple[re.Pattern[str], str]] = []


def _hints() -> list[tuple[re.Pattern[str], str]]:
    """The game's limits, as :func:`.sheet.check_consistency` enforces them on every edit."""
    if not _HINTS:
        lo, hi = STAT_RANGE
        _HINTS.extend((re.compile(p), text) for p, text in (
            (r"player\.lev$", f"a level from 1 to {MAX_LEVEL}"),
            (r"player\.au$", f"gold from 0 to {MAX_GOLD:,}"),
            (r"player\.exp$", "experience from 0 to player.max_exp"),
            (r"player\.chp$", "hit points from 0 to player.mhp"),
            (r"player\.csp$", "spell points from 0 to player.msp"),
            (r"player\.stat_max\[\d+\]$", f"a stat from {lo} to {hi} (18/100)"),
            (r"player\.stat_cur\[\d+\]$", f"a stat from {lo} to its player.stat_max"),
            (r"gear\.items\[\d+\]\.(item|known)\.number$", f"1 to {MAX_STACK} objects (one gear slot)"),
        ))
    return _HINTS


def field_hint(path: str, value: Any) -> dict[str, str] | None:
    """A field's value as the game shows it (a stat as 18/100) and the game's limits for it."""
    out: dict[str, str] = {}
    for pattern, text in _hints():
        if pattern.search(path):
            out["allowed"] = text
            break
    if re.search(r"player\.stat_(cur|max)\[\d+\]$", path):
        try:
            out["shown"] = stat_text(int(value))
        except (TypeError, ValueError):
            pass
    return out or None
