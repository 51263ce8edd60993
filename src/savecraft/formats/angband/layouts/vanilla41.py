"""Vanilla Angband 4.1.0 to 4.1.3: the ``rd_*``/``wr_*`` of 4.1's ``src/load.c`` and ``save.c``.

4.1 writes the blocks 4.2 writes, in the same order and all version 1, and
most of them byte for byte as 4.2 does (read from save.c at the tags 4.1.3 and
4.2.0): those use the 4.2 descriptions, registered for this game too. Where
the bytes differ, the description is here:

* options: ``lazymove_delay`` is one u16 (4.2.2 split it into a byte and the
  sidebar mode);
* monster memory: each race's kill count only (4.2 adds the theft count);
* player: no shape name, and ``food`` and ``confusing`` beside energy and word
  of recall (4.2 moved food into a timed effect and dropped ``confusing``);
  32 timed effects (4.1's TMD_MAX), not 4.2's 52 or 53;
* monsters (the level's and each chunk's): no monster index, no original race
  and no group information.

4.1.0 differs from 4.1.1-4.1.3 in the same bytes, not in the layout: the slot
4.1.1 uses for ``recall_depth`` is a 0 written as "oops", the level's turn is
its creation turn, and it has no ``birth_levels_persist`` option (so no level
connectors). 4.1.0 also writes the chunks of a dead character (its ``wr_chunks`` and
``rd_chunks`` have the "is dead" test commented out), each only its level's map: the
objects, monsters and traps writers of a chunk still return for the dead. 4.1.1 on write
nothing there; so a dead character's chunks block holds the levels (``dead_levels``) when it
has bytes, and is empty otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from ....layout import (
    I16,
    I32,
    U8,
    U16,
    U32,
    Adapt,
    Array,
    Bytes,
    CStr,
    Ctx,
    Field,
    List,
    Prefix,
    Range,
    SetCtx,
    Struct,
    Until,
    When,
)
from . import BlockModel, character, knowledge, register_struct, world
from .character import EIGHT_BIT, MAX_LEVEL, STAT_NAMES
from .items import ITEM_LIST, NAME_MAX, ItemList

VARIANTS = ("VNLA",)  # the variant ids this module registers layouts for (see the package)

VANILLA = frozenset({"VNLA"})
GAME = "Vanilla 4.1"
TMD_MAX = 32  # list-player-timed.h of 4.1.0-4.1.3: what wr_player writes
ALIVE = world.ALIVE


# -- options --------------------------------------------------------------------------------


@dataclass(slots=True)
class Options(BlockModel):
    KIND: ClassVar[str] = "options-4.1"
    delay_factor: int = 0
    hitpoint_warn: int = 0
    lazymove_delay: int = 0
    options: dict[str, int] = field(default_factory=dict)


OPTIONS = Struct(Options, [
    Field("delay_factor", U8), Field("hitpoint_warn", U8), Field("lazymove_delay", U16),
    Field("options", Adapt(Until(character._OPTION, CStr(39), ""), character._options_dict,
                           character._options_list, "each option once")),
    SetCtx("levels_persist", "options.get('birth_levels_persist', 0)"),
], name="options")


# -- monster memory -------------------------------------------------------------------------


@dataclass(slots=True)
class MonsterKills:
    race: str = ""
    pkills: int = 0


@dataclass(slots=True)
class MonsterMemory(BlockModel):
    """Kill counts by monster race name (the game writes a race only once it was killed)."""

    KIND: ClassVar[str] = "monster-memory-4.1"
    mflag_size: int = 0
    races: list[MonsterKills] = field(default_factory=list)


_KILLS = Struct(MonsterKills, [Field("race", CStr(NAME_MAX)), Field("pkills", U16)], name="monster kills")
MONSTER_MEMORY = Struct(MonsterMemory, [
    Field("mflag_size", U8, export="mflag_size"),
    Field("races", Until(_KILLS, CStr(NAME_MAX), knowledge.END_OF_MONSTERS)),
], name="monster memory")


# -- player ---------------------------------------------------------------------------------


@dataclass(slots=True)
class Player(character.Player):
    """The character as 4.1 stores it: 4.2's fields but the shape (left empty), with ``food``
    and ``confusing``. A 4.2 player model, so every place that reads a 4.2 character (the
    sheet, edit paths such as ``player.au``) reads this one the same way."""

    KIND: ClassVar[str] = "player-4.1"
    food: int = 0
    confusing: int = 0

    def release_reason(self) -> str:
        """What the block says of the release (for ``info``'s game reason)."""
        n = len(self.timed)
        why = (f"it stores {n} timed effects, 4.1's TMD_MAX" if n == TMD_MAX else
               f"it stores {n} timed effects (4.1 writes {TMD_MAX})")
        return (f"read as Vanilla 4.1.0-4.1.3: {why}, no shape, and food beside energy; nothing "
                "in the player block tells the 4.1 releases apart")


PLAYER = Struct(Player, [
    Field("full_name", CStr(31, eight_bit=EIGHT_BIT)), Field("died_from", CStr(79, eight_bit=EIGHT_BIT)),
    Field("history", CStr(249, eight_bit=EIGHT_BIT)),
    Field("race", CStr(79)), Field("character_class", CStr(79)),
    Field("name_suffix", U8), Field("hitdie", U8), Field("expfact", U8), Field("age", I16),
    Field("height", I16), Field("weight", I16),
    *character.stats(len(STAT_NAMES), f"at most {len(STAT_NAMES)} stats (rd_player: 'Too many stats')"),
    *character.BIRTH, Field("unused_body", U32),
    Field("au", I32), Field("max_exp", I32), Field("exp", I32), Field("exp_frac", U16),
    Field("lev", I16, check=Range(1, MAX_LEVEL, f"a level from 1 to {MAX_LEVEL} "
                                  "(rd_player: 'Invalid player level')")),
    Field("mhp", I16), Field("chp", I16), Field("chp_frac", U16), Field("msp", I16),
    Field("csp", I16), Field("csp_frac", U16), Field("max_lev", I16), Field("max_depth", I16),
    # 4.1.0 writes a 0 ("oops") where 4.1.1 on write the recall depth: the same bytes.
    Field("recall_depth", I16), Field("old_y", U8), Field("old_x", U8),
    Field("unused_more", Bytes(5)), Field("unignoring", U8), Field("deep_descent", I16),
    Field("food", I16), Field("energy", I16), Field("word_recall", I16), Field("confusing", U8),
    Field("timed", Array(I16, Prefix(U8, "timed_count"))), Field("total_energy", U32),
    Field("resting_turn", U32), Field("future", Bytes(32)),
    SetCtx("spell_count_known", "1"),
], name="player")


# -- monsters -------------------------------------------------------------------------------


@dataclass(slots=True)
class Monster:
    """One monster (4.1's ``rd_monster``): race by name, place, hit points, what it carries."""

    race: str = ""
    y: int = 0
    x: int = 0
    hp: int = 0
    maxhp: int = 0
    mspeed: int = 0
    energy: int = 0
    timed: list[int] = field(default_factory=list)
    mflag: bytes = b""
    known_flags: bytes = b""
    known_res: list[int] = field(default_factory=list)
    mimic: int = 0
    held: ItemList = field(default_factory=ItemList)


MONSTER = Struct(Monster, [
    Field("race", CStr(79)), Field("y", U8), Field("x", U8), Field("hp", I16), Field("maxhp", I16),
    Field("mspeed", U8), Field("energy", U8),
    Field("timed", Array(I16, Prefix(U8, "timed_count"))),
    Field("mflag", Bytes(Ctx("mflag_size", "monster memory"))),
    Field("known_flags", Bytes(Ctx("of_size", "object memory"))),
    Field("known_res", Array(I16, Ctx("elem_max", "object memory"))), Field("mimic", U16),
    Field("held", ITEM_LIST),
], name="monster")


@dataclass(slots=True)
class MonsterList:
    """The level's monsters; the stored limit is one more than them (slot 0 is never used)."""

    monsters: list[Monster] = field(default_factory=list)


MONSTER_LIST = Struct(MonsterList, [Field("monsters", List(MONSTER, Prefix(U16, "limit", bias=1)))],
                      name="monster list")


@dataclass(slots=True)
class Monsters(BlockModel):
    KIND: ClassVar[str] = "monsters-4.1"
    cave: MonsterList | None = None
    known_cave: MonsterList | None = None


MONSTERS = Struct(Monsters, [When(ALIVE, [Field("cave", MONSTER_LIST), Field("known_cave", MONSTER_LIST)],
                                   "the monsters of both levels exactly when the character is alive")],
                  name="monsters")


# -- chunks ---------------------------------------------------------------------------------


@dataclass(slots=True)
class Chunk(world.LevelChunk[world.Level, world.FloorObjects, MonsterList]):
    info: world.ChunkInfo | None = None


@dataclass(slots=True)
class Chunks(world.ChunkList[Chunk], BlockModel):
    """``dead_levels``: the maps 4.1.0 writes for a dead character (None otherwise)."""

    KIND: ClassVar[str] = "chunks-4.1"
    dead_levels: list[world.Level] | None = None


# 4.1.0, dead: the chunk count, then each chunk's level alone (wr_dungeon_aux; the objects,
# monsters and traps writers return for the dead). Read exactly when the block has bytes.
_DEAD_LEVELS = When(f"not ({ALIVE}) and left > 0",
                    [Field("dead_levels", List(world.LEVEL, Prefix(U16, "count")))],
                    "the levels of a dead character exactly when 4.1.0 wrote them (a block with bytes)",
                    by_model=True)
# A persistent level's record counts f_max + 1 features: 4.1's terrain.txt has 25, as 4.2's.
CHUNKS = world.chunks(Chunks, Chunk, world.LEVEL, world.FLOOR, MONSTER_LIST, world.CHUNK_INFO,
                      first=[_DEAD_LEVELS],
                      alive="chunks exactly when the character is alive (4.1.1 on; 4.1.0 also writes a "
                            "dead character's levels, read above)")


for _struct in (OPTIONS, MONSTER_MEMORY, PLAYER, MONSTERS, CHUNKS):
    register_struct(_struct, _struct.name, 1, VANILLA, GAME)
# The blocks 4.1 writes byte for byte as 4.2 does (save.c of 4.1.3 and 4.2.0).
for _struct in (character.RNG, character.MESSAGES, character.QUESTS, character.MISC,
                character.PLAYER_HP, character.PLAYER_SPELLS, character.HISTORY,
                knowledge.OBJECT_MEMORY, knowledge.IGNORE, knowledge.ARTIFACTS,
                world.GEAR, world.STORES, world.DUNGEON, world.OBJECTS, world.TRAPS):
    register_struct(_struct, _struct.name, 1, VANILLA, GAME)
