"""The Angband part of ``savecraft demo``: generated saves and copies of the real block saves.

The block save is a whole Vanilla 4.2 character (every block decoded by the
game's own layouts: a name, stats, gear, a town level), made here from the
layouts' models, so the demo shows what savecraft reads in a real save
without shipping anyone's savefile.

The real files (Ponyband saves, see ``samples/README.md``) are not part of the
package; they are copied when the samples folder is found: ``$SAVECRAFT_SAMPLES``,
else ``../shared/samples`` next to the repository.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
import random

from ... import api
from ...fileio import atomic_write
from . import sample
from .block import Block, BlockSave, Description
from .layouts import character as c, knowledge as k, world as w
from .layouts.items import Item


def samples_folder() -> Path | None:
    env = os.environ.get("SAVECRAFT_SAMPLES")
    candidates = [Path(env)] if env else []
    candidates.append(Path(__file__).resolve().parents[4].parent / "shared" / "samples")
    for c in candidates:
        if (c / "angband-block").is_dir():
            return c
    return None


# Vanilla 4.2's option names, in the order its savefile stores them, and the ones a new game sets.
OPTIONS = (
    "none rogue_like_commands use_sound show_damage use_old_target pickup_always pickup_inven "
    "show_flavors show_target highlight_player disturb_near solid_walls hybrid_walls view_yellow_light "
    "animate_flicker center_player purple_uniques auto_more hp_changes_color mouse_movement "
    "notify_recharge effective_speed cheat_hear score_hear cheat_room score_room cheat_xtra score_xtra "
    "cheat_live score_live birth_randarts birth_connect_stairs birth_force_descend birth_no_recall "
    "birth_no_artifacts birth_stacking birth_lose_arts birth_feelings birth_no_selling birth_start_kit "
    "birth_ai_learn birth_know_runes birth_know_flavors birth_levels_persist birth_percent_damage").split()
OPTIONS_ON = ("pickup_inven", "show_target", "disturb_near", "hp_changes_color", "birth_connect_stairs",
              "birth_stacking", "birth_feelings", "birth_no_selling", "birth_start_kit", "birth_ai_learn")
BODY = ("weapon", "shooting", "right hand", "left hand", "neck", "light", "body", "back", "arm", "head",
        "hands", "feet")  # a Humanoid's slots; the pack comes after them
TIMED_EFFECTS = 53  # Vanilla 4.2's list of timed effects (player_timed.txt)
SQUARE_INFO_BYTES = 3  # square flags per grid cell (SQUARE_SIZE)


def _runs(cells: int, value: int) -> bytes:
    """A level layer as the game stores it: (count, value) pairs of at most 255 squares."""
    out = bytearray()
    while cells:
        n = min(255, cells)
        out += bytes((n, value))
        cells -= n
    return bytes(out)


def character_save(seed: int = 42) -> Any:
    """Brand, a level 12 High-Elf Mage at 250 ft, as Vanilla 4.2 writes him: every block decodes."""
    rng = random.Random(seed)

    def item(tval: str, sval: str, number: int, weight: int) -> Item:
        return Item(version=5, tval=tval, sval=sval, number=number, weight=weight, dd=1, ds=4, origin=18)

    def carried(slot: int, tval: str, sval: str, number: int = 1, weight: int = 10) -> Any:
        return w.GearItem(slot, item(tval, sval, number, weight), slot, item(tval, sval, number, weight))

    def level(height: int = 22, width: int = 66) -> Any:
        cells = height * width
        return w.Level("town", height, width, [_runs(cells, 0) for _ in range(SQUARE_INFO_BYTES)],
                       _runs(cells, 1), 0, 0, 0, None)

    stats = [14, 18, 12, 16, 11]
    player = c.Player(
        full_name="Brand", history="You are the second child of an Elven scholar.", race="High-Elf",
        shape="normal", character_class="Mage", hitdie=10, expfact=145, age=210, height=78, weight=180,
        stat_max=stats, stat_cur=list(stats), stat_map=[0, 1, 2, 3, 4], stat_birth=list(stats),
        height_birth=78, weight_birth=180, au_birth=600, body_name="Humanoid",
        body=[c.BodySlot(t, name) for t, name in enumerate(BODY, 1)], au=1234, max_exp=1400, exp=1400,
        lev=12, mhp=74, chp=74, msp=23, csp=23, max_lev=12, max_depth=5, recall_depth=5, energy=50,
        timed=[0] * TIMED_EFFECTS, total_energy=2_000_000)
    gear = w.Gear([carried(0, "sword", "Dagger", weight=12), carried(6, "soft armour", "Soft Leather Armour",
                                                                    weight=80),
                   carried(12, "magic book", "[Magic for Beginners]", weight=30),
                   carried(13, "potion", "Cure Light Wounds", 4, 4), carried(14, "flask", "Flask of Oil", 5)])
    options = {name: int(name in OPTIONS_ON) for name in OPTIONS}
    blocks: list[Block] = [
        Description.from_line("Brand, L12 High-Elf Mage, at DL5"),
        c.Rng(rng.getrandbits(32), 4, [rng.getrandbits(32) for _ in range(3)],
              [rng.getrandbits(32) for _ in range(32)], [0] * 27),
        c.Options(40, 3, 0, 0, options), c.Messages([c.Message("Welcome to Angband.", 0)]),
        k.MonsterMemory(), k.ObjectMemory(), c.Quests(), player, k.Ignore(),
        c.Misc(seed_flavor=rng.getrandbits(32), turn=52_000), k.Artifacts(), c.PlayerHp(), c.PlayerSpells(),
        gear, w.Stores(), w.Dungeon(5, 1, 10, 30, SQUARE_INFO_BYTES, level(), level()),
        w.Objects(w.FloorObjects(), w.FloorObjects()), w.Monsters(w.MonsterList(), w.MonsterList()),
        w.Traps(w.TrapList(), w.TrapList()), w.Chunks([]), c.History()]
    return BlockSave("VNLA", blocks)


def write_samples(folder: Path) -> list[Path]:
    modular = folder / "angband-modular.sav"
    block = folder / "angband-block.sav"
    api.save(sample.modular_save(), modular)
    api.save(character_save(), block)
    written = [modular, block]
    real = samples_folder()
    if real is not None:
        for src in sorted((real / "angband-block").glob("*.sav")):
            dest = folder / f"angband-real-{src.name}"
            atomic_write(dest, src.read_bytes())
            written.append(dest)
    return written
