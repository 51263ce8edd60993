"""FAangband 1.2.0-1.3.3 (NickMcConnell/FAangband, tags v1.2.0 to v1.3.3), variant ``FAAN``.

1.2.3 to 1.3.3 share one ``save.c`` (its formatting aside; compared at every tag), and their
``savefile.c`` writes every block as version 1 with no description block: rng, options,
messages, monster memory, object memory, quests, artifacts, player, squelch, misc, player hp,
player spells, randarts, inventory, stores, dungeon, objects, monsters, ghost, history,
traps. 1.2.0 and 1.2.1 write the same blocks but traps, and their level as the older maps
(two info maps after a square size of 0), which the FAangband 1 dungeon description reads
(``max(2, square_size)`` maps): the same layouts read them. 1.4.0 changed three of them, and its loader keeps a reader for the old versions
(``rd_options_1``, ``rd_player_1``, ``rd_squelch_1``), which are the layouts here: options
version 1 stores the options as bits and masks (:data:`.faangband.OPTIONS_1`), player
version 1 has no map or game modes (:data:`.faangband_character.PLAYER_1`, the player
description with its map as a condition), squelch version 1 is laid out as version 2
(:data:`.faangband.SQUELCH_1`). Every other block is laid out as 1.4 writes it, so the game
registers FAangband 1.4's other layouts again, in the context FAangband's own releases give
(``faan_game``: no Ponyband fields).

The block versions tell these files from 1.4's and Ponyband's, as the game's loader tells
them: only this game has a player layout of version 1.
"""

from __future__ import annotations

from . import Layout, register_game_context, register_layout, register_struct, registered
from . import character, faangband, faangband_character, faangband_world  # noqa: F401  (registered first)
from .character import FAANGBAND
from .faangband_character import FAAN, FAAN_GAME, FAANGBAND_13, GAME_13

VARIANTS = ("FAAN",)  # the variant ids this module registers layouts for (see the package)

GAME = GAME_13  # (the player model names its races and classes by it)
# What 1.4 changed: these blocks are version 1 here (faangband.py and faangband_character.py).
_OLD = {("options", 1): faangband.OPTIONS_1, ("player", 1): faangband_character.PLAYER_1,
        ("squelch", 1): faangband.SQUELCH_1}

register_game_context(GAME, {FAAN_GAME: FAANGBAND_13})
for _lay in [lay for lay in registered(FAANGBAND) if lay.variants == FAAN]:
    if (_lay.name, 1) in _OLD or _lay.name == "description":
        continue  # written as version 1 (below), or not written at all
    register_layout(Layout(_lay.name, _lay.version, FAAN, _lay.model, _lay.decode, _lay.encode, GAME,
                           exact=_lay.exact))
for (_name, _version), _struct in _OLD.items():
    register_struct(_struct, _name, _version, FAAN, GAME)
