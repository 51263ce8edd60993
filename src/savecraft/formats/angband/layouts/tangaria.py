"""Tangaria (igroglaz/Tangaria), the PWMAngband fork that writes PWMAngband's savefile magic:
its player files, as ``rd_*`` of its ``src/server/load.c`` reads them and ``save.c`` writes
them at 99e0114f (2024-01-23, magic 1.6.0.0), the layout of the real file
(``pwmangband_1.6.0_Ganja.pwmg``, from a Tangaria client's folder: TreeOfSelf's
Tangaria-HTML5-Client). Tangaria kept the magic 1.6.0.0 while its misc block grew:
``birth_hardcore`` from 0cd0c734 (2024-01-23), ``y_cooldown`` (7171e3bc), ``birth_ironman``
(688e3c76) and ``iron_timer`` (c4856716) until 67e68af1 (2024-03-10; then 1.6.1.0). The file
has none of these, and every value it holds reads as the game wrote it (its account name is the
header's character name, its account id 3); the later builds' misc blocks are not read (they stay
raw, with the reason).

Tangaria writes PWMAngband 1.6.0's blocks with a few fields of its own, declared once in the
PWMAngband layouts as conditions over the ``pwm_fork`` context entry this module gives the game
(``IS_TANGARIA``):

* the player block's four stat arrays have six stats (its ``list-stats.h`` adds CHR, 7c1b5f49);
* the misc block has the account (``account_id``, ``account_name``, ``account_score``,
  ``supporter``: d7c1ae66 to 4f37c5c2, 2022) after ``k_idx``;
* every object record has ``soulbound`` after ``bypass_aware`` (e30e4d2e, 2021).

Nothing in the header says Tangaria: the decoder reads a PWMAngband-magic file as Tangaria
only when PWMAngband's own player layout does not read its player block and this one does.
Every block of PWMAngband's player files is registered for the game, with the same models.
"""

from __future__ import annotations

from . import Layout, register_game_context, register_layout, registered
from . import pwmangband, pwmangband_world  # noqa: F401  (pwmangband_world: its layouts registered)
from .pwmangband import FORK, PWMG, TANGARIA

VARIANTS = ("PWMG",)  # the variant ids this module registers layouts for (see the package)

GAME = "Tangaria"

register_game_context(GAME, {FORK: TANGARIA})
for _lay in [lay for lay in registered(pwmangband.GAME) if lay.variants == PWMG]:
    register_layout(Layout(_lay.name, _lay.version, PWMG, _lay.model, _lay.decode, _lay.encode, GAME,
                           exact=_lay.exact))
