"""The top of a character sheet from a decoded save, and the values the game keeps consistent.

``info`` shows what a player looks for first (name, race, class, level,
experience, gold, hit and spell points, stats, depth, turns, equipment and
pack by name); :func:`check_consistency` refuses what the game would not
have written: experience above its maximum, a stat above its maximum or
outside 3 to 18/100, hit or spell points above their maximum, a stack of
no objects.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...errors import Report
from .layouts.character import MAX_LEVEL, STAT_NAMES, STAT_RANGE, Player, stat_text

if TYPE_CHECKING:
    from .block import BlockSave

MAX_STACK = 40  # z_info->stack_size of 4.2: the most objects one gear slot holds
MAX_GOLD = 2**31 - 1


def character_sheet(save: BlockSave) -> dict[str, Any]:
    p = save.player
    if p is None:
        return {}
    who: Any = p if isinstance(p, Player) else save.header
    out: dict[str, Any] = {}
    if who is not None:
        out.update({"name": who.full_name, "race": who.race, "class": who.character_class})
    elif save.description is not None and save.description.text is None:  # race, class by index
        d = save.description
        out.update({"name": getattr(p, "full_name", d.name), "race": d.race, "class": d.character_class})
    out.update({
        "level": p.lev,
        "experience": {"current": p.exp, "max": p.max_exp},
        "gold": p.au,
        "hit_points": {"current": p.chp, "max": p.mhp},
        "spell_points": {"current": p.csp, "max": p.msp},
        # ``shown``: the game's "18/100" for a stat above 18 (null when the game shows the number)
        "stats": {name: {"current": p.stat_cur[i], "max": p.stat_max[i],
                         "shown": stat_text(p.stat_cur[i]) if p.stat_cur[i] > 18 else None}
                  for i, name in enumerate(getattr(p, "STAT_NAMES", STAT_NAMES)[:len(p.stat_cur)])},
    })
    dungeon = save.dungeon
    if dungeon is not None:
        out["depth"] = dungeon.depth
    if getattr(p, "max_depth", None) is not None:  # FAangband keeps stages, no maximum depth
        out["max_depth"] = p.max_depth  # type: ignore[union-attr]
    misc = save.misc
    if misc is not None and isinstance(p, Player):
        out["turns"] = misc.turn
        if misc.is_dead:
            out["dead"] = p.died_from
    gear = save.gear
    if gear is not None and isinstance(p, Player):
        slots = p.body
        worn = sorted((g for g in gear.items if g.slot < len(slots)), key=lambda g: g.slot)
        out["equipment"] = [f"{slots[g.slot].name}: {g.name}" for g in worn]
        out["inventory"] = [g.name for g in gear.items if g.slot >= len(slots)]
    return out


def check_consistency(save: BlockSave, report: Report) -> None:
    p = save.player
    if p is not None:
        if not 1 <= p.lev <= MAX_LEVEL:
            report.error(None, "player.lev", f"a level from 1 to {MAX_LEVEL}", str(p.lev))
        if p.au < 0:
            report.error(None, "player.au", f"gold from 0 to {MAX_GOLD}", str(p.au))
        if not 0 <= p.exp <= p.max_exp:
            report.error(None, "player.exp", f"experience from 0 to max_exp ({p.max_exp})", str(p.exp))
        if not 0 <= p.chp <= p.mhp:
            report.error(None, "player.chp", f"hit points from 0 to mhp ({p.mhp})", str(p.chp))
        if not 0 <= p.csp <= p.msp:
            report.error(None, "player.csp", f"spell points from 0 to msp ({p.msp})", str(p.csp))
        lo, hi = STAT_RANGE
        for i, (cur, top) in enumerate(zip(p.stat_cur, p.stat_max)):
            if not lo <= top <= hi:
                report.error(None, f"player.stat_max[{i}]", f"a stat from {lo} to {hi} (18/100)", str(top))
            if not lo <= cur <= top:
                report.error(None, f"player.stat_cur[{i}]", f"a stat from {lo} to stat_max ({top})",
                             str(cur))
    gear = save.gear
    if gear is not None:
        for i, g in enumerate(gear.items):
            if not 1 <= g.item.number <= MAX_STACK:
                report.error(None, f"gear.items[{i}].quantity", f"1 to {MAX_STACK} objects",
                             str(g.item.number))
            if g.known.number != g.item.number:
                report.error(None, f"gear.items[{i}].known.number",
                             f"the object's own number ({g.item.number})", str(g.known.number))
