"""FAangband 1.4.0-1.4.5 (NickMcConnell/FAangband, tags v1.4.0 to v1.4.5), variant ``FAAN``.

Its ``savefile.c`` writes the same blocks at the same versions as Ponyband, the fork the
FAangband 1 layouts were first read from (description, rng, options 2, messages, monster and
object memory, quests, artifacts, player 2, squelch 2, misc, player hp and spells, randarts,
inventory, stores, dungeon, objects, monsters, ghost, history, traps), and ``save.c`` is the
same at every 1.4 tag but for its formatting (1.4.0 and 1.4.1 name the square size
``CAVE_SIZE``; it is stored). The bytes differ from Ponyband's in a few fields, declared once
in Ponyband's layouts as conditions over the ``faan_game`` context entry this module gives
the game (see :mod:`.faangband_character` and :mod:`.faangband_world`): no cutie mark, last
moves or alignment in the player block, no follow distance in misc, a 45-byte monster record,
no temporary grids after the level.

Nothing in the file says which of the two wrote it (the variant id and every block version
are the same): the decoder reads a file as FAangband 1.4 when Ponyband's player layout does
not read its player block and this game's does. Every FAangband 1 layout is registered for
the game again, with the same models.
"""

from __future__ import annotations

from . import Layout, register_game_context, register_layout, registered
from . import character, faangband, faangband_character, faangband_world  # noqa: F401  (registered first)
from .character import FAANGBAND
from .faangband_character import FAAN, FAAN_GAME, FAANGBAND_14, GAME_14

VARIANTS = ("FAAN",)  # the variant ids this module registers layouts for (see the package)

GAME = GAME_14  # (the player model names its races and classes by it)

register_game_context(GAME, {FAAN_GAME: FAANGBAND_14})
for _lay in [lay for lay in registered(FAANGBAND) if lay.variants == FAAN]:
    register_layout(Layout(_lay.name, _lay.version, FAAN, _lay.model, _lay.decode, _lay.encode, GAME,
                           exact=_lay.exact))
