"""A synthetic corpus for bulk questions: thousands of Angband saves, TirNanoG server saves.

There are about a hundred real Angband-family saves in public; ``savecraft sql``
is for thousands. This makes them by editing real files the game wrote
(/work/shared/samples: Vanilla 4.2 and 4.0 saves, alive and dead) through
savecraft's own edit path (:func:`savecraft.edit.set_value` on a loaded
model, then :func:`savecraft.api.build`, which recomputes sizes and
checksums): new names, races, classes, levels, experience, gold, depths,
turns, and dead, retired or alive. Every file is SYNTHETIC: the numbers are
drawn at random (a seed makes them repeatable), loosely as a ladder looks
(deeper characters have higher levels, more gold; one in seven is dead, a few
of those retired winners). Each file
still validates with no problem.

TirNanoG: server saves with up to 100,000 users from
:func:`savecraft.formats.tirnanog.save.sample.server_save`.

    python3 bench/make_corpus.py angband OUT_DIR --count 5000
    python3 bench/make_corpus.py tirnanog OUT.sav --users 100000
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

def _samples() -> Path:
    """The real samples: $SAVECRAFT_SAMPLES, else shared/samples beside the checkout."""
    from savecraft.formats.angband.demo import samples_folder

    return samples_folder() or Path(__file__).resolve().parents[2] / "shared" / "samples"


SAMPLES = _samples()
# (file, alive or dead, race and class editable as text: 4.2 keeps names, 4.0 indexes)
BASES = (
    ("angband-block-more/angband_4.2.2+_Lorenz.sav", "alive", True),
    ("angband-block-variants/vanilla-4.2_Aduial.sav", "alive", True),
    ("angband-block-more/angband_4.2.1_Maxwell-ada4e7b-dead.sav", "dead", True),
    ("angband-block-more/angband_4.0.2_Varis-2a7034d.sav", "alive", False),
    ("angband-block-variants/vanilla-4.0.1_Mage.sav", "alive", False),
)
RACES = ("Human", "Half-Elf", "Elf", "Hobbit", "Gnome", "Dwarf", "Half-Orc", "Half-Troll",
         "Dunadan", "High-Elf", "Kobold")
CLASSES = ("Warrior", "Mage", "Druid", "Priest", "Necromancer", "Paladin", "Rogue", "Ranger",
           "Blackguard")
CLASSES_40 = ("Warrior", "Mage", "Priest", "Rogue", "Ranger", "Paladin")  # 4.0's class.txt order
KILLERS = ("Grip, Farmer Maggot's Dog", "Fang, Farmer Maggot's Dog", "a cave spider", "Bullroarer the Hobbit",
           "Wormtongue, Agent of Saruman", "Grishnákh, the Hill Orc", "a hill orc", "an Uruk",
           "a dark elven priest", "Azog, King of the Uruk-Hai", "a young blue dragon", "a mature white dragon",
           "Mîm, Betrayer of Turin", "a troll priest", "a basilisk", "an ancient red dragon",
           "a greater basilisk", "Sauron, the Sorcerer", "a dread", "a giant white louse")
SYLLABLES = ("ar", "bel", "cor", "dûn", "el", "fin", "gal", "hur", "ith", "kal", "lor", "mir", "nar",
             "or", "ril", "sar", "thal", "ur", "val", "wen", "zor")
RETIRED = "Ripe Old Age"


def _name(rng: random.Random) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 3))).capitalize()


def character(rng: random.Random, state: str) -> dict[str, Any]:
    """One made-up character: level follows depth; the dead die shallower, at their killer."""
    depth = min(127, int(rng.expovariate(1 / 18)))
    level = max(1, min(50, int(depth * 0.55 + rng.gauss(5, 4))))
    if state == "dead" and rng.random() < 0.03:
        depth, level, killer = 99, 50, RETIRED  # a winner who retired
    else:
        killer = KILLERS[min(len(KILLERS) - 1, depth * len(KILLERS) // 100 + rng.randint(-2, 2))] \
            if state == "dead" else ""
    exp = int(level ** 3.2 * rng.uniform(8, 12))
    return {"name": _name(rng), "race": rng.choice(RACES), "class": rng.choice(CLASSES),
            "level": level, "exp": exp, "gold": int(rng.paretovariate(1.2) * 50 * level),
            "depth": depth, "max_depth": depth + rng.randint(0, 5), "turns": rng.randint(10_000, 5_000_000),
            "killed_by": killer}


def _edits(c: dict[str, Any], state: str, text_race: bool) -> list[tuple[str, Any]]:
    edits: list[tuple[str, Any]] = [
        # an edit keeps experience and level together as the game does: back to none, then the
        # level, which brings the experience up to the least it needs (and the maxima with it)
        ("player.full_name", c["name"]), ("player.exp", 0), ("player.max_exp", 0), ("player.max_lev", 1),
        ("player.lev", c["level"]), ("player.au", c["gold"]),
        ("player.max_depth", c["max_depth"]),
    ]
    if text_race:
        edits += [("player.race", c["race"]), ("player.character_class", c["class"]),
                  ("misc.turn", c["turns"])]
    else:  # 4.0 keeps indexes into its race and class lists, and the menu line's names
        cls = c["class"] if c["class"] in CLASSES_40 else CLASSES_40[CLASSES.index(c["class"]) % len(CLASSES_40)]
        edits += [("player.prace", RACES.index(c["race"])), ("player.pclass", CLASSES_40.index(cls)),
                  ("description.race", c["race"]), ("description.character_class", cls)]
    edits.append(("dungeon.depth", min(c["depth"], c["max_depth"])))
    if state == "dead":  # where they died; the game keeps no level (cave) for the dead
        edits += [("player.died_from", c["killed_by"]), ("player.chp", 0),
                  ("description.text", f"{c['name']}, dead ({c['killed_by']})")]
        if c["killed_by"] == RETIRED:
            edits.append(("misc.total_winner", 1))
    return edits


def _make_some(job: tuple[str, int, int, int]) -> int:
    """Files ``start`` to ``stop - 1`` into ``folder`` (one worker's share)."""
    from savecraft import api, edit

    folder, start, stop, seed = job
    models = {}
    made = 0
    for k in range(start, stop):
        rng = random.Random(seed * 1_000_003 + k)
        base, state, text_race = BASES[k % len(BASES)] if k % 7 else BASES[2]  # one in 7 dead
        if base not in models:
            models[base] = api.parse((SAMPLES / base).read_bytes())
        model = models[base]
        c = character(rng, state)
        for path, value in _edits(c, state, text_race):
            edit.set_value(model, path, value)
        Path(folder, f"{k:06d}-{c['name']}.sav").write_bytes(api.build(model))
        made += 1
    return made


def make_angband(folder: str | os.PathLike[str], count: int, *, seed: int = 1, jobs: int | None = None) -> list[Path]:
    """``count`` synthetic Angband saves in ``folder`` (made if missing); their paths, sorted."""
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    workers = max(1, min(jobs or os.cpu_count() or 1, count // 50 or 1))
    step = -(-count // workers)
    shares = [(str(out), s, min(count, s + step), seed) for s in range(0, count, step)]
    if workers == 1:
        for share in shares:
            _make_some(share)
    else:
        with ProcessPoolExecutor(workers) as pool:
            list(pool.map(_make_some, shares))
    return sorted(out.glob("*.sav"))


def make_tirnanog(path: str | os.PathLike[str], users: int, *, seed: int = 2) -> Path:
    """A synthetic TirNanoG server save with ``users`` player accounts."""
    from savecraft import api
    from savecraft.formats.tirnanog.save.sample import server_save

    Path(path).write_bytes(api.build(server_save(users=users, seed=seed)))
    return Path(path)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="kind", required=True)
    a = sub.add_parser("angband")
    a.add_argument("out")
    a.add_argument("--count", type=int, default=5000)
    a.add_argument("--seed", type=int, default=1)
    t = sub.add_parser("tirnanog")
    t.add_argument("out")
    t.add_argument("--users", type=int, default=100_000)
    args = ap.parse_args(argv)
    if args.kind == "angband":
        files = make_angband(args.out, args.count, seed=args.seed)
        print(f"{len(files)} synthetic Angband saves in {args.out}")
    else:
        make_tirnanog(args.out, args.users)
        print(f"a synthetic TirNanoG server save with {args.users} users: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
