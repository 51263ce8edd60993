"""One edit vocabulary for every Angband game (issue 20, section 5).

The same path names the same thing in Vanilla 4.2 and 4.0, Anquestria (3.x),
Ponyband (FAangband 1) and PWMAngband 1.3 real files: ``player.au``,
``player.exp``, ``player.lev``, ``player.stat_cur[i]``, ``player.chp``, ...,
``gear.items[i].quantity`` and ``gear.items[i].note``. Every edit is checked
the way a user meets it: the rebuilt file parses again with the value set,
``savecraft diff`` names exactly the edited field and the fields the game
keeps with it, and every other block is byte for byte the same.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from savecraft import api, diff, edit
from savecraft.errors import FormatError
from savecraft.formats.angband.block import BlockSave
from savecraft.formats.angband.layouts import layout_type, layouts
from savecraft.formats.angband.layouts.records import PY_MAX_LEVEL, exp_needed
from savecraft.formats.angband.vocabulary import GearBlock, PlayerBlock, answers

from tests.samples import SAMPLES, real_samples

from .support import blocks_of

FILES = {
    "Vanilla 4.2": SAMPLES / "angband-block-variants" / "vanilla-4.2_Aduial.sav",
    "Vanilla 4.0": SAMPLES / "angband-block-variants" / "vanilla-4.0.1_Mage.sav",
    "Anquestria": SAMPLES / "angband-block-variants" / "anquestria-3.2_PLAYER.sav",
    "Ponyband": SAMPLES / "angband-block" / "ponyband_Asira.sav",
    "PWMAngband 1.3": SAMPLES / "angband-block-variants" / "pwmangband-1.3.0b1_Archy.sav",
}
# The block each game keeps the carried objects in.
GEAR_BLOCK = {"Vanilla 4.2": "gear", "Vanilla 4.0": "gear", "Anquestria": "inventory",
              "Ponyband": "inventory", "PWMAngband 1.3": "gear"}
real = real_samples
games = pytest.mark.parametrize("game", list(FILES))


def _data(game: str) -> bytes:
    return FILES[game].read_bytes()


def _blocks(data: bytes) -> dict[str, bytes]:
    """Each block's bytes (header, data, padding) by name, read with struct alone."""
    out = {}
    for start, name, _, size, _ in blocks_of(data):
        out[name] = data[start:start + 28 + size + (-size % 4)]
    return out


def _edit(game: str, changes: dict[str, Any]) -> tuple[bytes, BlockSave, set[str], set[str]]:
    """The edited file, its model read back, the paths diff names and the blocks that changed."""
    data = _data(game)
    result = edit.edit_bytes(data, changes)
    assert result.data[:8] == data[:8]
    assert api.validate(result.data).ok
    back = api.parse(result.data)
    assert isinstance(back, BlockSave)
    paths = {c.path for c in diff.diff_bytes(data, result.data).changes}
    old, new = _blocks(data), _blocks(result.data)
    assert list(old) == list(new)  # the same blocks, in the same order
    changed = {name for name in old if old[name] != new[name]}
    return result.data, back, paths, changed


def _player(save: BlockSave) -> PlayerBlock:
    p = save.player
    assert p is not None
    return p


def _gear(save: BlockSave) -> GearBlock:
    g = save.gear
    assert g is not None and g.items
    return g


def _with_description(save: BlockSave) -> set[str]:
    """The menu line follows the player's level where the game rebuilds it from the player."""
    d = save.description
    return {"description"} if d is not None and d.from_player else set()


# -- the same paths answer in every game ------------------------------------------------------


@real
@games
def test_every_game_answers_the_common_paths(game: str) -> None:
    save = api.parse(_data(game))
    assert isinstance(save, BlockSave)
    p, g = _player(save), _gear(save)
    assert save.game.startswith(game.split()[0].replace("Ponyband", "FAangband"))
    for name in ("au", "exp", "max_exp", "lev", "chp", "mhp", "csp", "msp"):
        assert isinstance(getattr(p, name), int), name
    assert len(p.stat_cur) == len(p.stat_max) >= 5
    assert isinstance(g.items[0].quantity, int) and g.items[0].quantity >= 1
    assert isinstance(g.items[0].note, str)


@real
@games
@pytest.mark.parametrize("name", ["au", "chp", "mhp", "csp", "msp"])
def test_plain_player_fields(game: str, name: str) -> None:
    before = getattr(_player(api.parse(_data(game))), name)
    value = before - 1 if before > 0 else before + 1
    _, back, paths, changed = _edit(game, {f"player.{name}": value})
    assert getattr(_player(back), name) == value
    assert paths == {f"player.{name}"}
    assert changed == {"player"}


@real
@games
def test_gold_through_the_command(game: str, tmp_path: Path) -> None:
    """As a user does it: ``savecraft edit`` then ``savecraft diff``, in a subprocess."""
    out = tmp_path / "out.sav"
    env = {**os.environ, "NO_COLOR": "1"}
    r = subprocess.run([sys.executable, "-m", "savecraft", "edit", str(FILES[game]), "--set",
                        "player.au=12345", "--set", "gear.items[0].quantity=3", "-o", str(out)],
                       capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([sys.executable, "-m", "savecraft", "diff", str(FILES[game]), str(out)],
                       capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 1, r.stderr  # the files differ
    lines = [line.split(":")[0].strip() for line in r.stdout.splitlines() if line.strip()]
    before = api.parse(_data(game))
    assert isinstance(before, BlockSave)
    number = "gear.items[0].item.number"
    expected = {"player.au"} if _player(before).au != 12345 else set()
    if _gear(before).items[0].quantity != 3:
        expected.add(number)
        if game == "Vanilla 4.2":  # the known copy counts with the object
            expected.add("gear.items[0].known.number")
    assert set(lines) == expected, r.stdout


# -- values the game keeps together -----------------------------------------------------------


@real
@games
def test_experience_moves_the_level_as_the_game_does(game: str) -> None:
    p = _player(api.parse(_data(game)))
    if p.lev < PY_MAX_LEVEL:  # just enough for the next level: the level and the maxima follow
        value = exp_needed(p, p.lev + 1)
        want = {"exp": value, "max_exp": value, "lev": p.lev + 1, "max_lev": p.lev + 1}
    else:  # drained below the last level: the maximum stays, the level falls
        value = exp_needed(p, p.lev) - 1
        want = {"exp": value, "max_exp": p.max_exp, "lev": p.lev - 1, "max_lev": p.max_lev}
    _, back, paths, changed = _edit(game, {"player.exp": value})
    q = _player(back)
    assert {k: getattr(q, k) for k in want} == want
    assert paths == {f"player.{k}" for k in want if want[k] != getattr(p, k)} | \
        ({"description.level"} if _with_description(back) else set())
    assert changed == {"player"} | _with_description(back)


@real
@games
def test_level_brings_the_experience_into_its_range(game: str) -> None:
    p = _player(api.parse(_data(game)))
    level = 20
    _, back, paths, changed = _edit(game, {"player.lev": level})
    q = _player(back)
    assert q.lev == level and exp_needed(q, level) <= q.exp < exp_needed(q, level + 1)
    assert q.max_exp >= q.exp and q.max_lev >= level
    # the least change: up to the level's first point, or down to one below the next level
    assert q.exp == (exp_needed(q, level) if p.exp < exp_needed(q, level) else exp_needed(q, level + 1) - 1)
    assert {"player.lev", "player.exp"} <= paths <= {
        "player.lev", "player.exp", "player.max_exp", "player.max_lev", "description.level"}
    assert changed == {"player"} | _with_description(back)


@real
def test_faangband_levels_follow_its_own_table_without_the_race_factor() -> None:
    """Ponyband's check_experience compares its own player_exp[] with the experience as it is."""
    # FAangband's player_exp[17] is 5300: level 19 (Vanilla's table alone would say 20)
    _, back, _, _ = _edit("Ponyband", {"player.exp": 5300})
    assert _player(back).lev == 19
    # Vanilla 4.0's player_exp[15] 2300 x this High-Elf Mage's expfact 230% is 5290: level 17
    _, back, _, _ = _edit("Vanilla 4.0", {"player.exp": 5300})
    assert _player(back).lev == 17


@real
@pytest.mark.parametrize(("changes", "path"), [
    ({"player.exp": -1}, "player.exp"),
    ({"player.exp": 100_000_000}, "player.exp"),  # PY_MAX_EXP is 99,999,999
    ({"player.max_exp": 0}, "player.max_exp"),  # below the current experience
    ({"player.lev": 0}, "player.lev"),
])
def test_experience_the_game_would_not_keep_is_refused(changes: dict[str, Any], path: str) -> None:
    with pytest.raises(FormatError) as err:
        edit.edit_bytes(_data("Vanilla 4.0"), changes)
    assert err.value.path == path


@real
@games
def test_stats_keep_current_at_most_maximum(game: str) -> None:
    p = _player(api.parse(_data(game)))
    i = 1
    higher = p.stat_max[i] + 1
    _, back, paths, changed = _edit(game, {f"player.stat_cur[{i}]": higher})
    q = _player(back)
    assert (q.stat_cur[i], q.stat_max[i]) == (higher, higher)  # player_stat_inc raises the maximum
    assert paths == {f"player.stat_cur[{i}]", f"player.stat_max[{i}]"} - (
        {f"player.stat_cur[{i}]"} if p.stat_cur[i] == higher else set())
    assert changed == {"player"}
    lower = 5
    _, back, paths, _ = _edit(game, {f"player.stat_max[{i}]": lower})
    q = _player(back)
    assert (q.stat_cur[i], q.stat_max[i]) == (lower, lower)  # a permanent drain lowers both
    assert paths == {f"player.stat_cur[{i}]", f"player.stat_max[{i}]"}


# -- objects ------------------------------------------------------------------------------------


@real
@games
def test_quantity(game: str) -> None:
    g = _gear(api.parse(_data(game)))
    k = len(g.items) - 1
    value = g.items[k].quantity + 1
    _, back, paths, changed = _edit(game, {f"gear.items[{k}].quantity": value})
    assert _gear(back).items[k].quantity == value
    expected = {f"gear.items[{k}].item.number"}
    if game == "Vanilla 4.2":  # the game keeps the known copy's count with the object's
        expected.add(f"gear.items[{k}].known.number")
    assert paths == expected
    assert changed == {GEAR_BLOCK[game]}


@real
@games
def test_note(game: str) -> None:
    _, back, paths, changed = _edit(game, {"gear.items[0].note": "@r9 mine"})
    assert _gear(back).items[0].note == "@r9 mine"
    field = "note" if game.startswith("PWM") else "inscription"
    expected = {f"gear.items[0].item.{field}"}
    if game == "Vanilla 4.2":  # and the inscription of its known copy (PWMAngband's has none)
        expected.add("gear.items[0].known.inscription")
    assert paths == expected
    assert changed == {GEAR_BLOCK[game]}


# -- blocks found by name ----------------------------------------------------------------------


def test_every_player_and_gear_model_answers_the_vocabulary() -> None:
    """Each game's player and gear (or inventory) model has the common names, so the paths
    hold for every game savecraft decodes, and for a new one that keeps to them."""
    seen = {"player": 0, "gear": 0}
    for layout in layouts():
        if layout.name == "player":
            assert answers(layout.model, PlayerBlock), layout.model
            seen["player"] += 1
        elif layout.name in ("gear", "inventory"):
            assert answers(layout.model, GearBlock), layout.model
            seen["gear"] += 1
        assert layout_type(layout.model) is not None
    assert seen["player"] >= 5 and seen["gear"] >= 5


def test_a_new_games_blocks_are_found_without_editing_block_py(tmp_path: Path) -> None:
    """A module that registers a ``player`` and an ``inventory`` block for a new variant id:
    ``player.au`` and ``gear.items[0].quantity`` edit its file, and paths name them so."""
    script = textwrap.dedent('''
        from dataclasses import dataclass, field
        from typing import ClassVar

        from savecraft import diff, edit
        from savecraft.formats.angband.block import BlockSave
        from savecraft.formats.angband.layouts import BlockModel, register_struct
        from savecraft.formats.angband.layouts.records import Experience, HeldQuantity, Inscribed, Quantity
        from savecraft.layout import I16, I32, U8, CStr, Field, List, Prefix, Struct, Array

        @dataclass(slots=True)
        class Player(Experience, BlockModel):
            KIND: ClassVar[str] = "player-test"
            au: int = 0
            exp: int = 0
            max_exp: int = 0
            lev: int = 1
            max_lev: int = 1
            expfact: int = 100
            stat_cur: list[int] = field(default_factory=list)
            stat_max: list[int] = field(default_factory=list)
            chp: int = 0
            mhp: int = 0
            csp: int = 0
            msp: int = 0

        @dataclass(slots=True)
        class Item(Quantity, Inscribed):
            number: int = 1
            inscription: str = ""

        @dataclass(slots=True)
        class Entry(HeldQuantity):
            slot: int = 0
            item: Item = field(default_factory=Item)

        @dataclass(slots=True)
        class Inventory(BlockModel):
            KIND: ClassVar[str] = "inventory-test"
            items: list[Entry] = field(default_factory=list)

        T = frozenset({"TEST"})
        stats = Array(I16, 5)
        register_struct(Struct(Player, [Field(n, I32) for n in ("au", "exp", "max_exp")] + [
            Field(n, I16) for n in ("lev", "max_lev")] + [Field("expfact", U8),
            Field("stat_cur", stats), Field("stat_max", stats)] + [
            Field(n, I16) for n in ("chp", "mhp", "csp", "msp")], name="player"), "player", 1, T, "Test")
        item = Struct(Item, [Field("number", U8), Field("inscription", CStr(20))], name="item")
        register_struct(Struct(Inventory, [Field("items", List(Struct(Entry, [
            Field("slot", U8), Field("item", item)], name="entry"), Prefix(U8, "count")))],
            name="inventory"), "inventory", 1, T, "Test")

        save = BlockSave("TEST", [Player(au=5, stat_cur=[10] * 5, stat_max=[10] * 5),
                                  Inventory([Entry(3, Item(2, "x"))])])
        assert save.player is save.blocks[0] and save.gear is save.blocks[1]
        before = BlockSave("TEST", [Player(au=5, stat_cur=[10] * 5, stat_max=[10] * 5),
                                    Inventory([Entry(3, Item(2, "x"))])])
        done = edit.edit_model(save, {"player.au": 77, "gear.items[0].quantity": 4,
                                      "gear.items[0].note": "new", "player.exp": 30})
        assert done.changes == [("player.au", 77), ("gear.items[0].quantity", 4),
                                ("gear.items[0].note", "new"), ("player.exp", 30)], done.changes
        assert save.player.lev == 3 and save.player.max_lev == 3  # 25 <= 30 < 45
        print(sorted(c.path for c in diff.diff(before, save).changes))
    ''')
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == str(sorted([
        "player.au", "player.exp", "player.max_exp", "player.lev", "player.max_lev",
        "gear.items[0].item.number", "gear.items[0].item.inscription"]))
