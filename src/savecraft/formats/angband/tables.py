"""The tables an Angband 3.1+/4.x savefile offers (``savecraft sql``, ``export``; docs/tables.md).

One ``characters`` row per file, from the decoded player through
:func:`.sheet.character_sheet` (the same name, race, class and numbers
``savecraft info`` shows), and entity tables joined to it by ``file_id``:
``gear`` (what the character carries and wields), ``home`` (what it keeps
at home), ``history`` (the game's notes of levels, uniques and artifacts),
``uniques_killed`` (the history's notes of uniques slain) and
``monster_memory`` (what the file remembers of each monster race). Every
game's blocks are reached by their names (:mod:`.vocabulary`), so each table
holds rows for every game whose layouts decoded the block; a value a game
does not store is null. A file whose blocks its game's layouts could not
decode still has its ``characters`` row, with the fields nobody could read
left null.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from ...tables.schema import Table, col
from . import sheet
from .block import BlockSave, RawBlock, block_name
from .vocabulary import object_name

RETIRED = "Ripe Old Age"  # what the game writes as the cause of death of a winner who retired
# The history's "slew a unique" mark: HIST_SLAY_UNIQUE of list-history-types.h (4.0, 4.2,
# PWMAngband: flag 6 of a bitflag, bit 0x20 of its first byte) and HISTORY_SLAY_UNIQUE 0x0020
# of the 3.x games and FAangband (a u16 of flags).
SLAY_UNIQUE = 0x20
KILLED = "Killed "  # the entry's text: "Killed %s" with the unique's name (mon-util.c, monster2.c)
STORE_HOME = 7  # store.h of 3.x to 4.2: the home is the eighth store of the stores block
# FAangband 1 (Ponyband store.c type_of_store[]): the home of each of its ten towns, as
# places in its 60 stores; only the character's own home holds anything.
FAANGBAND_HOMES = (3, 7, 11, 15, 19, 23, 31, 40, 49, 58)


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
           depth(save), s.get("max_depth"), turns, st,
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
        yield (i, g.slot, slots[g.slot].name if worn else None, worn, object_name(g), g.quantity,
               str(g.item.tval), str(g.item.sval), g.note or None)


def depth(save: BlockSave) -> int | None:
    """The current dungeon level, where the file has it: the dungeon block's ``depth`` (4.x,
    3.x; PWMAngband's is its level's ``wpos_depth``), else the menu line's ", at DL<n>" (4.2 and
    the games that write its line, Xygos among them, when no dungeon block is decoded). A dead
    character's dungeon block holds no level (``present`` False): null. FAangband stores a
    stage, whose depth is in the game's stage map, not in the file: null."""
    d = save.dungeon
    if d is not None:
        if save.variant == "FAAN" or hasattr(d, "stage") or not getattr(d, "present", True):
            return None
        return d.depth
    line = save.description
    if line is not None and line.text is None:
        m = _AT_DL.fullmatch(line.rest)
        if m:
            return int(m.group(1))
    return None


_AT_DL = re.compile(r", at DL([0-9]+)")


def _object(obj: Any) -> tuple[str | None, int, str, str, str | None]:
    """An object record's name (where the file names its kind), count, kind and inscription,
    whichever game's record it is (4.2's keeps ``number`` and ``inscription`` plainly)."""
    number = getattr(obj, "quantity", None)
    note = getattr(obj, "note", None)
    return (object_name(obj), number if isinstance(number, int) else obj.number, str(obj.tval),
            str(obj.sval), (note if isinstance(note, str) else obj.inscription) or None)


def _home_objects(save: BlockSave) -> list[Any]:
    """The objects at home: PWMAngband's home block; the home store of the others."""
    home = save.home
    if home is not None:
        return [getattr(entry, "item", entry) for entry in home.items]
    stores = save.stores
    if stores is None:
        return []
    places = FAANGBAND_HOMES if save.variant == "FAAN" else (STORE_HOME,)
    out: list[Any] = []
    for i in places:
        if i < len(stores.stores):
            # 4.2 keeps each stock object beside the player's knowledge of it
            out.extend(getattr(o, "item", o) for o in stores.stores[i].stock)
    return out


def _home(save: BlockSave) -> Iterator[tuple[Any, ...]]:
    for i, obj in enumerate(_home_objects(save)):
        yield (i, *_object(obj))


def _history(save: BlockSave) -> Iterator[tuple[Any, ...]]:
    h = save.history
    if h is None:
        return
    for i, e in enumerate(h.entries):
        # 4.0 and FAangband store the artifact by index (a_idx) and PWMAngband by index or
        # name: only a name is shown; FAangband notes a stage (``place``), not a depth
        artifact = getattr(e, "artifact", None)
        yield (i, e.turn, getattr(e, "dlev", None), e.clev,
               artifact if isinstance(artifact, str) and artifact else None, e.event)


def slew_unique(entry: Any) -> bool:
    """Whether a history entry is the game's note of a unique slain (its SLAY_UNIQUE mark)."""
    kind = entry.type
    first = kind[0] if isinstance(kind, bytes) and kind else kind if isinstance(kind, int) else 0
    return bool(first & SLAY_UNIQUE)


def _uniques(save: BlockSave) -> Iterator[tuple[Any, ...]]:
    h = save.history
    if h is None:
        return
    for i, e in enumerate(h.entries):
        if slew_unique(e):
            name = e.event[len(KILLED):] if e.event.startswith(KILLED) else e.event
            yield (i, name, e.turn, getattr(e, "dlev", None), e.clev)


def _memory_block(save: BlockSave) -> Any:
    return next((b for b in save.blocks if block_name(b) == "monster memory"
                 and not isinstance(b, RawBlock)), None)


def _monster_memory(save: BlockSave) -> Iterator[tuple[Any, ...]]:
    block = _memory_block(save)
    if block is None:
        return
    records = getattr(block, "races", None)
    if records is None:
        records = getattr(block, "kills", [])  # 4.0: (race name, kills) pairs
    for i, r in enumerate(records):
        race = getattr(r, "race", None)
        if isinstance(race, str):  # 4.0 and 4.2: the races the character met, by name
            yield (None, race, r.pkills, None, None, None, getattr(r, "thefts", None))
            continue
        deaths = getattr(r, "deaths", getattr(r, "pdeaths", None))
        sights = getattr(r, "sights", None)
        counts = (r.pkills, r.tkills, deaths, sights, getattr(r, "pseen", None))
        if any(counts):  # the 3.x games keep every race: those of which it counts nothing are left out
            yield (i, None, r.pkills, r.tkills, deaths, sights, None)


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
    col("depth", "int64", "dungeon.depth", "the current dungeon level (0: the town); PWMAngband: "
        "its level's wpos_depth; with no dungeon block decoded, the menu line's \"at DL\" "
        "(Xygos); null in FAangband, which stores a stage"),
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
    col("name", "string", "gear.items[N].name", "the object kind's name, as info shows it, where "
        "the file names kinds (4.2); null where it stores indexes"),
    col("quantity", "int64", "gear.items[N].quantity"),
    col("tval", "string", "gear.items[N].item.tval", "the object's kind (potion, sword, ...)"),
    col("sval", "string", "gear.items[N].item.sval", "which one of its kind"),
    col("note", "string", "gear.items[N].note", "the inscription"),
), _gear)

HISTORY = Table("history", "angband-block", "one per entry of the character's history", (
    col("entry", "int64", "history.entries[N]"),
    col("turn", "int64", "history.entries[N].turn"),
    col("depth", "int64", "history.entries[N].dlev", "null in FAangband (which notes a stage)"),
    col("level", "int64", "history.entries[N].clev"),
    col("artifact", "string", "history.entries[N].artifact",
        "the artifact's name where the file names it (4.2); null where it stores an index"),
    col("event", "string", "history.entries[N].event"),
), _history)

HOME = Table("home", "angband-block", "one per object kept at home", (
    col("item", "int64", "home.items[N], stores.stores[7].stock[N]",
        "N, the object's place at home (PWMAngband's home block; the others' home store: the "
        "eighth, FAangband's home in each town)"),
    col("name", "string", "(the object).name", "the object kind's name where the file names "
        "kinds (4.2); null where it stores indexes"),
    col("quantity", "int64", "(the object).number"),
    col("tval", "string", "(the object).tval", "the object's kind: a name (4.2) or an index"),
    col("sval", "string", "(the object).sval", "which one of its kind"),
    col("note", "string", "(the object).inscription", "the inscription"),
), _home)

UNIQUES_KILLED = Table("uniques_killed", "angband-block",
                       "one per unique the history says the character slew", (
    col("entry", "int64", "history.entries[N]", "N, the entry (its type has the SLAY_UNIQUE mark)"),
    col("name", "string", "history.entries[N].event", "the unique, from the game's \"Killed NAME\""),
    col("turn", "int64", "history.entries[N].turn"),
    col("depth", "int64", "history.entries[N].dlev", "null in FAangband (which notes a stage)"),
    col("level", "int64", "history.entries[N].clev", "the character's level then"),
), _uniques)

MONSTER_MEMORY = Table("monster_memory", "angband-block",
                       "one per monster race the file remembers", (
    col("race_index", "int64", "monster memory.races[N]", "N, the race's place in the game's "
        "monster list (3.x, FAangband, PWMAngband: every race is stored, and one the file "
        "counts nothing of has no row); null where the file names the race"),
    col("race", "string", "monster memory.races[N].race", "the race's name (4.0, 4.2: only "
        "the races met are stored); null where the file keeps an index"),
    col("kills", "int64", "monster memory.races[N].pkills", "how many this character killed"),
    col("total_kills", "int64", "monster memory.races[N].tkills",
        "how many all the file's characters killed; null in 4.0 and 4.2 (not stored)"),
    col("deaths", "int64", "monster memory.races[N].deaths",
        "characters it killed (PWMAngband: pdeaths, this one); null in 4.0 and 4.2"),
    col("sights", "int64", "monster memory.races[N].sights",
        "times seen (3.x, FAangband); null where not stored"),
    col("thefts", "int64", "monster memory.races[N].thefts", "objects it stole (4.2 only)"),
), _monster_memory)

TABLES = (CHARACTERS, GEAR, HOME, HISTORY, UNIQUES_KILLED, MONSTER_MEMORY)
