"""The dungeon level a savefile stores, drawn as the game draws it: glyphs and colours.

An Angband block save holds the current level twice (``rd_dungeon``): as it
is (``cave``) and as the character knows it (``known_cave``, what the game's
map shows), each a grid of feature indexes, with the floor objects, the
monsters and the player's place in other blocks. This module turns one of the
two into a grid of (glyph, colour) cells and draws it as text or as a PNG
(``savecraft render-map``, the studio's map).

Feature indexes are the game's terrain list in its ``terrain.txt`` order, so
the glyph of index 21 depends on the game: the Vanilla 4.0, 4.1 and 4.2 lists
are known here; any game's is read from its own data folder (``gamedata``:
the ``lib/gamedata`` of the game's installation, whose ``terrain.txt``,
``monster.txt`` and ``monster_base.txt`` give terrain, and monsters their
race's glyph and colour). A savefile names a monster's race (by name in 4.2,
by index in 4.0) but not its glyph: without the game's data a monster is a
light red ``M``. Objects are drawn by their kind's base (a potion ``!``, a
scroll ``?``), in the base's colour.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
import io
from PIL import Image, ImageDraw, ImageFont

from ...errors import SavecraftError

# The game's colour letters (z-color.c's table of names and RGB values).
COLOURS: dict[str, tuple[int, int, int]] = {
    "d": (0, 0, 0), "w": (255, 255, 255), "s": (128, 128, 128), "o": (255, 128, 0),
    "r": (192, 0, 0), "g": (0, 128, 64), "b": (0, 64, 255), "u": (128, 64, 0),
    "D": (96, 96, 96), "W": (192, 192, 192), "P": (255, 0, 255), "y": (255, 255, 0),
    "R": (255, 64, 64), "G": (0, 255, 0), "B": (0, 255, 255), "U": (192, 128, 64),
    "p": (144, 0, 144), "v": (144, 32, 255), "t": (0, 160, 160), "m": (108, 108, 48),
    "Y": (255, 255, 144), "i": (255, 0, 160), "T": (32, 255, 220), "V": (184, 168, 255),
    "I": (255, 128, 128), "M": (180, 180, 0), "z": (160, 192, 208), "Z": (0, 176, 255),
}
# Colour names as object_base.txt writes them.
NAMED = {"dark": "d", "white": "w", "slate": "s", "orange": "o", "red": "r", "green": "g",
         "blue": "b", "umber": "u", "light dark": "D", "light slate": "W", "light purple": "P",
         "yellow": "y", "light red": "R", "light green": "G", "light blue": "B",
         "light umber": "U", "purple": "p", "violet": "v", "teal": "t", "mud": "m",
         "light yellow": "Y", "magenta": "i", "light teal": "T", "light violet": "V",
         "light pink": "I", "mustard": "M", "blue slate": "z", "deep light blue": "Z"}

Cell = tuple[str, str]  # (glyph, colour letter)

_UNKNOWN: Cell = (" ", "w")
_FLOOR, _DOORS, _STAIRS = ((".", "w"),), (("+", "U"), ("'", "U"), ("'", "u")), (("<", "w"), (">", "w"))
# terrain.txt of each release, in index order (what the savefile's feature bytes count in).
TERRAIN: dict[str, tuple[Cell, ...]] = {
    "4.2": (_UNKNOWN, *_FLOOR, *_DOORS, *_STAIRS,
            ("1", "U"), ("2", "s"), ("3", "w"), ("4", "g"), ("5", "b"), ("6", "r"), ("7", "D"),
            ("8", "y"), ("#", "w"), (":", "W"), ("%", "D"), ("%", "s"), ("*", "o"), ("*", "y"),
            ("#", "W"), ("#", "z"), ("#", "r"), (":", "u")),
    "4.1": (_UNKNOWN, *_FLOOR, *_DOORS, *_STAIRS,
            ("1", "U"), ("2", "s"), ("3", "w"), ("4", "g"), ("5", "b"), ("6", "r"), ("7", "D"),
            ("8", "y"), ("#", "w"), (":", "w"), ("%", "s"), ("%", "W"), ("*", "o"), ("*", "o"),
            ("#", "w"), ("#", "z"), ("#", "r"), (":", "u")),
    "4.0": (_UNKNOWN, *_FLOOR, *_DOORS, *_STAIRS,
            ("1", "U"), ("2", "s"), ("3", "w"), ("4", "g"), ("5", "b"), ("6", "r"), ("7", "D"),
            ("8", "y"), ("#", "w"), (":", "w"), ("%", "s"), ("%", "W"), ("*", "o"), ("*", "o"),
            ("#", "w"), ("#", "z"), (".", "G"), ("#", "G"), ("#", "r"), (":", "u")),
}
# An object by its base (tval), as the game's object lists draw most kinds of it.
OBJECTS: dict[str, Cell] = {
    "chest": ("~", "s"), "shot": ("{", "U"), "arrow": ("{", "U"), "bolt": ("{", "U"),
    "bow": ("}", "u"), "digger": ("\\", "s"), "hafted": ("\\", "w"), "polearm": ("/", "w"),
    "sword": ("|", "w"), "boots": ("]", "U"), "gloves": ("]", "U"), "helm": ("]", "U"),
    "crown": ("]", "U"), "shield": (")", "U"), "cloak": ("(", "U"), "soft armor": ("(", "s"),
    "soft armour": ("(", "s"), "hard armor": ("[", "s"), "hard armour": ("[", "s"),
    "dragon armor": ("[", "s"), "light": ("~", "y"), "amulet": ('"', "o"), "ring": ("=", "r"),
    "staff": ("_", "U"), "wand": ("-", "g"), "rod": ("-", "P"), "scroll": ("?", "w"),
    "potion": ("!", "B"), "flask": ("!", "y"), "food": (",", "U"), "mushroom": (",", "U"),
    "magic book": ("?", "Z"), "prayer book": ("?", "Y"), "nature book": ("?", "G"),
    "shadow book": ("?", "P"), "necromantic tome": ("?", "P"), "gold": ("$", "y"),
    "none": ("*", "r"),  # an object the character has seen but not learnt: "unknown item"
}
# Vanilla 4.0 stores an object's base by number, in its list-tvals.h order.
TVALS_40 = ("none", "chest", "shot", "arrow", "bolt", "bow", "digger", "hafted", "polearm", "sword",
            "boots", "gloves", "helm", "crown", "shield", "cloak", "soft armor", "hard armor",
            "dragon armor", "light", "amulet", "ring", "staff", "wand", "rod", "scroll", "potion",
            "flask", "food", "mushroom", "magic book", "prayer book", "gold")
_OBJECT: Cell = ("&", "w")  # a pile, or an object of a base not known here
_MONSTER: Cell = ("M", "R")
_PLAYER: Cell = ("@", "w")


@dataclass
class GameData:
    """What the game's own data folder says about drawing: terrain, and monster races."""

    terrain: tuple[Cell, ...] = ()
    races: dict[str, Cell] = field(default_factory=dict)  # by name
    race_names: list[str] = field(default_factory=list)  # in file order (4.0 saves count in it)

    @classmethod
    def read(cls, folder: str | Path) -> GameData:
        folder = Path(folder)
        if not folder.is_dir():
            raise SavecraftError(f"{folder}: not a folder (give the game's lib/gamedata)")
        data = cls()
        terrain = folder / "terrain.txt"
        if terrain.is_file():
            recs = _raw_records(terrain)
            if recs and all(r.get("index", "").isdigit() for r in recs):  # 3.x: indexes are given
                cells = [("?", "v")] * (max(int(r["index"]) for r in recs) + 1)
                for r in recs:
                    cells[int(r["index"])] = _cell(r.get("graphics", ""))
                data.terrain = tuple(cells)
            else:
                data.terrain = tuple(_cell(r.get("graphics", "")) for r in recs)
        monsters, bases = folder / "monster.txt", folder / "monster_base.txt"
        if monsters.is_file():
            glyphs = {}
            if bases.is_file():
                for rec in _raw_records(bases):
                    if "glyph" in rec:
                        glyphs[rec["name"]] = rec["glyph"][:1]
            for rec in _raw_records(monsters):
                name = rec.get("name", "")
                if name.isdigit() or ":" in rec.get("name_full", ""):  # 4.0: "N:index:name"
                    name = rec.get("name_full", name).split(":")[-1]
                glyph = rec.get("glyph", glyphs.get(rec.get("base", ""), "M"))[:1] or "M"
                colour = rec.get("color", "w")[:1]
                data.races[name] = (glyph, colour if colour in COLOURS else "w")
                data.race_names.append(name)
        return data


def _raw_records(path: Path) -> list[dict[str, str]]:
    """The ``key:value`` records of one of the game's data files, a record per ``name:``."""
    out: list[dict[str, str]] = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        key, sep, value = line.partition(":")
        if not sep or line.startswith("#"):
            continue
        if key == "N":  # the 3.x files: "N:index:name", "G:glyph:colour"
            index, _, name = value.partition(":")
            out.append({"name": name, "name_full": name, "index": index})
        elif key == "name":
            out.append({"name": value, "name_full": value})
        elif key == "G" and out:
            glyph = ":" if value.startswith("::") else value[:1]
            colour = value[2:3] if value.startswith("::") else value.partition(":")[2][:1]
            out[-1].setdefault("graphics", f"{glyph}:{colour}" if glyph != ":" else f"::{colour}")
            out[-1].setdefault("glyph", glyph)
            out[-1].setdefault("color", colour)
        elif out and key not in out[-1]:
            out[-1][key] = value
    return out


def _cell(graphics: str) -> Cell:
    """``graphics:G:C`` (glyph and colour letter; a colon glyph is written ``graphics:::C``)."""
    if graphics.startswith("::"):
        return ":", graphics[2:3] or "w"
    glyph, _, colour = graphics.partition(":")
    return glyph[:1] or " ", colour[:1] if colour[:1] in COLOURS else "w"


@dataclass
class LevelMap:
    """One level as cells, row by row, and what it was drawn from."""

    width: int
    height: int
    cells: list[list[Cell]]
    depth: int
    which: str  # "the level as stored" or "the level as the character knows it"
    game: str

    def text(self) -> str:
        return "\n".join("".join(g for g, _ in row).rstrip() for row in self.cells)


def _terrain_of(game: str, data: GameData | None) -> tuple[Cell, ...]:
    if data is not None and data.terrain:
        return data.terrain
    m = re.match(r"Vanilla (4\.[012])", game)
    if m is None:
        raise SavecraftError(f"the terrain list of {game or 'this game'} is not known here: give "
                             "the game's data folder (--gamedata PATH/lib/gamedata)")
    return TERRAIN[m.group(1)]


def _expand(runs: bytes, cells: int) -> bytes:
    """The (count, value) pairs of a stored level layer, as one byte per square."""
    out = bytearray()
    for k in range(0, len(runs) - 1, 2):
        out += bytes((runs[k + 1],)) * runs[k]
    if len(out) != cells:
        raise SavecraftError(f"the level's terrain covers {len(out)} squares, not {cells}")
    return bytes(out)


def _block(save: Any, name: str) -> Any:
    for b in getattr(save, "blocks", ()):
        if getattr(b, "name", None) == name and not type(b).__name__.startswith("Raw"):
            return b
    return None


# What a map is drawn in, in order: each can be left out (the studio's layer toggles).
LAYERS = ("terrain", "objects", "monsters", "the player")


def level_map(save: Any, *, known: bool = False, data: GameData | None = None,
              layers: set[int] | None = None) -> LevelMap:
    """The current level of an Angband block save as glyphs and colours.

    ``known``: the level as the character knows it (the game's own map)
    instead of as stored. ``layers``: which of :data:`LAYERS` to draw (all by
    default). Raises SavecraftError with the reason when the file holds no
    level (a dead character's, a game that keeps its levels elsewhere, a block
    left undecoded).
    """
    shown = set(range(len(LAYERS))) if layers is None else layers
    dungeon = _block(save, "dungeon")
    if dungeon is None:
        raise SavecraftError("this savefile has no decoded dungeon block, so no level to draw")
    game = getattr(save, "game", "") or ""
    if hasattr(dungeon, "feat"):  # 3.x-era games: one level, in the dungeon block itself
        if known:
            raise SavecraftError(f"a {game or 'this game'} savefile stores the level once (what the "
                                 "character knows is flags of its squares): draw it without --known")
        level = dungeon
    elif not hasattr(dungeon, "cave"):
        raise SavecraftError(f"a {game or 'this game'} savefile stores no level map (the game keeps "
                             "its levels elsewhere)")
    else:
        level = getattr(dungeon, "known_cave" if known else "cave", None)
    if level is None:
        raise SavecraftError("this savefile stores no level: the game keeps none for a dead "
                             "character")
    terrain = _terrain_of(game, data)
    h, w = level.height, level.width
    feats = _expand(level.feat, h * w)
    cells = [[terrain[f] if f < len(terrain) else ("?", "v") for f in feats[y * w:(y + 1) * w]]
             if 0 in shown else [_UNKNOWN] * w for y in range(h)]
    where = "known_cave" if known else "cave"
    objects = _block(save, "objects")
    floor = getattr(objects, where, getattr(objects, "objects", None)) if objects is not None and 1 in shown \
        else None
    piled: set[tuple[int, int]] = set()
    for obj in _objects_of(floor):
        y, x = _place(obj, "iy", "ix")
        if 0 <= y < h and 0 <= x < w:
            tval = getattr(obj, "tval", "")
            if isinstance(tval, int):
                tval = TVALS_40[tval] if 0 <= tval < len(TVALS_40) else ""
            # Two or more objects on a square are a pile, which the game draws as '&'.
            cells[y][x] = _OBJECT if (y, x) in piled else OBJECTS.get(str(tval).lower(), _OBJECT)
            piled.add((y, x))
    monsters = _block(save, "monsters")
    mons = getattr(monsters, where, getattr(monsters, "monsters", None)) if monsters is not None and 2 in shown \
        else None
    for mon in _monsters_of(mons):
        y, x = _place(mon, "fy", "fx")
        if 0 <= y < h and 0 <= x < w:
            cells[y][x] = _race_cell(mon, data)
    py, px = getattr(dungeon, "py", -1), getattr(dungeon, "px", -1)
    if 3 in shown and 0 <= py < h and 0 <= px < w:
        cells[py][px] = _PLAYER
    which = "the level as the character knows it" if known else "the level as stored"
    return LevelMap(w, h, cells, getattr(dungeon, "depth", getattr(dungeon, "stage", 0)), which, game)


def _place(thing: Any, y_name: str, x_name: str) -> tuple[int, int]:
    """Where an object or monster stands (4.2 names it y, x; 4.0 iy, ix and fy, fx)."""
    y = getattr(thing, "y", getattr(thing, y_name, -1))
    x = getattr(thing, "x", getattr(thing, x_name, -1))
    return (y, x) if isinstance(y, int) and isinstance(x, int) else (-1, -1)


def _objects_of(floor: Any) -> list[Any]:
    if floor is None:
        return []
    items = getattr(floor, "objects", floor)
    items = getattr(items, "items", items)
    return [getattr(i, "item", i) for i in (items or ())]


def _monsters_of(mons: Any) -> list[Any]:
    if mons is None:
        return []
    return list(getattr(mons, "monsters", mons) or ())


def _race_cell(mon: Any, data: GameData | None) -> Cell:
    if data is None or not data.races:
        return _MONSTER
    race = getattr(mon, "race", getattr(mon, "r_idx", None))
    if isinstance(race, int):  # 4.0 stores the race's index in monster.txt
        race = data.race_names[race] if 0 <= race < len(data.race_names) else None
    return data.races.get(str(race), _MONSTER) if race is not None else _MONSTER


CELL = 12  # pixels a square, by default


def to_png(level: LevelMap, cell: int = CELL) -> bytes:
    """The level drawn as the game's terminal would, ``cell`` pixels a square, on black."""
    if not 4 <= cell <= 64:
        raise SavecraftError(f"cell size: expected 4 to 64 pixels, found {cell}")
    img = Image.new("RGB", (level.width * cell, level.height * cell), (0, 0, 0))
    draw = ImageDraw.Draw(img)
    font = ImageFont.load_default(size=cell)
    for y, row in enumerate(level.cells):
        for x, (glyph, colour) in enumerate(row):
            if glyph != " ":
                draw.text((x * cell + cell / 2, y * cell + cell / 2), glyph, fill=COLOURS.get(colour, (255, 255, 255)),
                          font=font, anchor="mm")
    out = io.BytesIO()
    img.save(out, "PNG")
    return out.getvalue()
