"""PWMAngband 1.3.0b1 (``pwmangband-1.3.0b1_Archy.sav``): the misc, gear, dungeon, objects,
traps and home blocks, read as the loader and writer of the sample's commit read and write them.

The values checked tie the blocks to each other and to the character (Archy,
a level 6 Dunadan Archer standing in the town, player id 7), so a layout one
field off would fail here even where it consumed its block exactly: every
object's owner is the player block's id, the wielded bow is a bow, the level
is where the description says, the quest's kills are at most the monster
memory's kills of that race.
"""

from __future__ import annotations

import pytest

from savecraft import api, edit, jsonmap
from savecraft.binary import Reader
from savecraft.errors import Report
from savecraft.formats.angband import block
from savecraft.formats.angband.block import BlockSave, RawBlock
from savecraft.formats.angband.layouts import Context, LayoutError
from savecraft.formats.angband.layouts import pwmangband as pw
from savecraft.formats.angband.layouts import pwmangband_world as pww

from tests.samples import SAMPLES, real_samples

from .support import block_span, replace_block

PWM = SAMPLES / "angband-block-variants" / "pwmangband-1.3.0b1_Archy.sav"
real = real_samples

# PWMAngband's list-tvals.h, in order (the names a SAVE_AS_STRINGS build writes).
TVALS = ["none", "skeleton", "bottle", "stone", "corpse", "deed", "chest", "horn", "rock", "shot",
         "arrow", "bolt", "bow", "digger", "hafted", "polearm", "sword", "mage staff", "boots",
         "gloves", "helm", "crown", "shield", "cloak", "soft armour", "hard armour",
         "dragon armour", "light", "amulet", "ring", "staff", "wand", "rod", "scroll", "potion",
         "flask", "food", "mushroom", "crop", "magic book", "prayer book", "nature book"]
BOW, SWORD, SCROLL, POTION = 12, 16, 33, 34


@pytest.fixture(scope="module")
def save() -> BlockSave:
    return block.parse(PWM.read_bytes(), Report(strict=True))


def _block(save: BlockSave, name: str) -> object:
    found = [b for b in save.blocks if getattr(b, "name", None) == name]
    assert len(found) == 1, name
    return found[0]






@real
def test_every_block_decoded_and_the_file_rebuilt_byte_for_byte(save: BlockSave) -> None:
    assert save.game == pw.GAME
    assert not [b.name for b in save.blocks if isinstance(b, RawBlock)]
    assert api.build(save) == PWM.read_bytes()
    again = jsonmap.loads(jsonmap.dumps(save))  # the JSON dump keeps every field
    assert again == save and block.build(again) == PWM.read_bytes()


@real
def test_misc(save: BlockSave) -> None:
    m = _block(save, "misc")
    assert isinstance(m, pww.Misc) and m.as_names is False  # the quest race is a 2-byte index
    assert (m.is_dead, m.total_winner, m.noscore) == (0, 0, 0)
    history = _block(save, "history")
    assert isinstance(history, pw.History)
    assert max(e.turn for e in history.entries) < m.game_turn  # the last event before the save
    assert m.player_turn <= m.game_turn and m.active_turn <= m.player_turn
    # birth options: 0 or 1 each
    assert {getattr(m, f) for f in pww.Misc.__dataclass_fields__ if f.startswith("birth_")} == {0, 1}
    # The current quest: kill 8 of race 44, 6 done; the monster memory saw 8 killed in all.
    assert (m.quest_race, m.quest_cur_num, m.quest_max_num) == (44, 6, 8)
    memory = _block(save, "monster memory")
    assert isinstance(memory, pw.MonsterMemory) and memory.races[44].pkills >= m.quest_cur_num
    assert (m.poly_race, m.party) == (0, 0)
    k = m.knowledge
    assert k is not None and len(k.flags) == 7 and len(k.elements) == 30 and len(k.curses) == 27


@real
def test_gear(save: BlockSave) -> None:
    gear = _block(save, "gear")
    player = _block(save, "player")
    assert isinstance(gear, pww.Gear) and isinstance(player, pw.Player) and gear.as_names is False
    assert len(gear.items) == 14
    for g in gear.items:
        assert g.item.owner == player.id == 7  # every object is the character's
        assert 0 < g.item.tval < len(TVALS) and g.item.tval == g.known.tval
        assert g.item.version == 1 and g.item.number >= 1
    wielded = {g.slot: g.item for g in gear.items if g.slot != 13}
    assert wielded[0].tval == SWORD and (wielded[0].dd, wielded[0].ds) == (1, 4)  # a dagger
    assert wielded[1].tval == BOW and wielded[1].pval == 3  # the Archer's bow, x3
    notes = {g.item.note: g.item for g in gear.items if g.item.note}
    assert notes["@r1"].tval == SCROLL and notes["@r1"].number == 13
    assert notes["@q1"].tval == POTION and notes["@q1"].number == 7
    # found on the level the player block says is the deepest reached
    assert max(g.item.origin_depth for g in gear.items) == player.max_depth == 2


@real
def test_dungeon_objects_traps_home(save: BlockSave) -> None:
    d = _block(save, "dungeon")
    assert isinstance(d, pww.Dungeon) and d.level is not None
    lv = d.level
    description = save.description
    assert description is not None and description.rest == ", at DL0" and lv.wpos_depth == 0
    assert (lv.height, lv.width) == (66, 198) and 0 <= lv.py < lv.height and 0 <= lv.px < lv.width
    assert len(lv.info) == 3  # SQUARE_SIZE layers
    objects = _block(save, "objects")
    assert isinstance(objects, pww.Objects) and objects.items == [] and objects.end is not None
    assert objects.end.is_marker and objects.as_names is False
    traps = _block(save, "traps")
    assert isinstance(traps, pww.Traps) and traps.traps == [] and traps.as_names is None
    assert traps.end == pww.Trap(flags=bytes(pww.TRF_SIZE))
    home = _block(save, "home")
    assert isinstance(home, pww.Home) and (home.owner, home.items, home.as_names) == (2, [], None)


@real
def test_edit_an_item_quantity_and_gold() -> None:
    data = PWM.read_bytes()
    result = edit.edit_bytes(data, {"blocks[name=gear].items[12].quantity": 5, "player.au": 1000})
    assert len(result.data) == len(data)
    save = api.parse(result.data)
    gear = _block(save, "gear")
    assert isinstance(gear, pww.Gear) and gear.items[12].item.number == 5
    assert save.player is not None and save.player.au == 1000
    changed = [i for i in range(len(data)) if data[i] != result.data[i]]
    start, _ = block_span(data, "gear")
    assert any(i >= start + 28 for i in changed) and len(changed) <= 2 + 4 + 4 + 4  # value, sums


@real
def test_a_names_build_file_reads_back(save: BlockSave) -> None:
    """The same character written by a SAVE_AS_STRINGS build: kinds, artifacts, egos and races
    as names. Every block still decodes, each saying it is of that build, and rebuilds exactly."""
    names = jsonmap.loads(jsonmap.dumps(save))
    misc = _block(names, "misc")
    assert isinstance(misc, pww.Misc)
    misc.as_names, misc.quest_race, misc.poly_race = True, "Grip, Farmer Maggot's Dog", ""
    gear, objects = _block(names, "gear"), _block(names, "objects")
    assert isinstance(gear, pww.Gear) and isinstance(objects, pww.Objects) and objects.end
    for it in [x for g in gear.items for x in (g.item, g.known)] + [objects.end]:
        it.tval, it.sval = TVALS[int(it.tval)], (f"kind {it.sval}" if it.sval else "")
        it.artifact, it.ego = ({0: "", 255: "1"}[int(v)] for v in (it.artifact, it.ego))
    gear.as_names = objects.as_names = True
    history = _block(names, "history")
    assert isinstance(history, pw.History)
    for e in history.entries:
        e.artifact = ""
    history.entries[1].artifact, history.artifacts_as_names = "the Phial of Galadriel", True
    data = block.build(names)
    again = block.parse(data, Report(strict=True))
    assert not [b.name for b in again.blocks if isinstance(b, RawBlock)]
    gear2, misc2 = _block(again, "gear"), _block(again, "misc")
    assert isinstance(gear2, pww.Gear) and isinstance(misc2, pww.Misc)
    assert gear2.as_names and misc2.as_names and misc2.quest_race == "Grip, Farmer Maggot's Dog"
    assert gear2.items[0].item.tval == "nature book" and again == names and block.build(again) == data
    history2 = _block(again, "history")
    assert isinstance(history2, pw.History) and history2.artifacts_as_names is True
    assert history2.entries[1].artifact == "the Phial of Galadriel"


@real
def test_a_block_of_the_other_build_stays_raw_with_the_reason() -> None:
    """The misc block says indexes; a gear block written with names does not belong."""
    save = block.parse(PWM.read_bytes(), Report(strict=True))
    gear = _block(save, "gear")
    assert isinstance(gear, pww.Gear)
    for g in gear.items:
        for it in (g.item, g.known):
            it.tval, it.sval, it.artifact, it.ego = TVALS[int(it.tval)], "x", "", ""
    gear.as_names = True
    bad = block.parse(block.build(save), Report())
    raw = {b.name: b for b in bad.blocks if isinstance(b, RawBlock)}
    assert list(raw) == ["gear"] and raw["gear"].failed
    assert "'misc' block was written by (indexes)" in raw["gear"].reason
    assert "SAVE_AS_STRINGS" in raw["gear"].reason


@real
def test_a_dead_characters_level_blocks_are_empty(save: BlockSave) -> None:
    """The writer stores no level, objects or traps, and no rune knowledge, for the dead."""
    dead = jsonmap.loads(jsonmap.dumps(save))
    misc = _block(dead, "misc")
    assert isinstance(misc, pww.Misc)
    misc.is_dead, misc.knowledge = 1, None
    for name, cls in (("dungeon", pww.Dungeon), ("objects", pww.Objects), ("traps", pww.Traps)):
        dead.blocks[dead.blocks.index(_block(dead, name))] = cls()  # type: ignore[arg-type]
    data = block.build(dead)
    for name in ("dungeon", "objects", "traps"):
        assert block_span(data, name)[1] == 0
    again = block.parse(data, Report(strict=True))
    assert again == dead


@real
@pytest.mark.parametrize(("name", "cut"), [("gear", 1), ("dungeon", 3), ("objects", 1), ("misc", 1)])
def test_a_block_cut_short_stays_raw(name: str, cut: int) -> None:
    data = PWM.read_bytes()
    start, size = block_span(data, name)
    body = data[start + 28:start + 28 + size - cut]
    save = block.parse(replace_block(data, name, body), Report())
    raw = {b.name: b for b in save.blocks if isinstance(b, RawBlock)}
    assert name in raw and raw[name].failed and raw[name].data == body
    assert api.build(save) == replace_block(data, name, body)


# -- the build rule, without the sample -----------------------------------------------------


def _pair_or_name(r: Reader, as_names: bool) -> tuple[int, int] | str:
    """A stand-in block: one name, or two index bytes."""
    if as_names:
        value = pw.rd_name_or_index(r, True, "race", "u16")
        assert isinstance(value, str)
        return value
    return r.u8("a"), r.u8("b")


def test_a_block_both_builds_read_is_ambiguous() -> None:
    with pytest.raises(LayoutError, match="reads both with indexes and with names"):
        pw.read_build(Reader(b"A\0"), Context(), "demo", _pair_or_name, lambda m: True)


@pytest.mark.parametrize(("data", "known", "value", "build"), [
    (b"Grip\0", None, "Grip", True),  # only the names build fits: it settles the file's build
    (b",\0", None, (44, 0), False),  # a comma is no name: the index reading is the only one
    (b"A\0", 0, (65, 0), False),  # both fit, but an earlier block settled the indexes build
])
def test_the_build_a_block_is_read_as(data: bytes, known: int | None, value: object, build: bool) -> None:
    ctx = Context()
    if known is not None:
        ctx.set(pw.BUILD, known, "misc")
    r = Reader(data)
    assert pw.read_build(r, ctx, "demo", _pair_or_name, lambda m: True) == (value, build)
    assert r.at_end() and ctx.values[pw.BUILD] == int(build)


def test_a_block_of_the_build_ruled_out_names_the_block_that_ruled_it() -> None:
    ctx = Context()
    ctx.set(pw.BUILD, 0, "misc")
    with pytest.raises(LayoutError, match=r"'misc' block was written by \(indexes\)"):
        pw.read_build(Reader(b"Grip\0"), ctx, "demo", _pair_or_name, lambda m: True)
