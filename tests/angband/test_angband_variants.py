"""Angband variants' blocks decoded from the real samples: FAangband 1 / Ponyband's player,
misc, history, inventory, stores, dungeon, objects, monsters and ghost blocks.

The values checked are the ones the game shows for each character (the
description block, written by the game, names them; the history block
names the artifacts found), so a layout that read the bytes one field off
would fail here even where it consumed its block exactly.
"""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from savecraft import api, diff, edit, jsonmap
from savecraft.errors import FormatError, Report
from savecraft.formats.angband import block
from savecraft.formats.angband.block import BlockSave, RawBlock
from savecraft.formats.angband.layouts import anquestria as anq
from savecraft.formats.angband.layouts import faangband_character as fac
from savecraft.formats.angband.layouts import faangband_world as faw
from savecraft.formats.angband.layouts import layouts
from savecraft.formats.angband.layouts import pwmangband as pw
from savecraft.formats.angband.layouts import vanilla40 as v40

from tests.samples import SAMPLES, real_samples

from .support import block_span, replace_block

PONY = SAMPLES / "angband-block"
ASIRA, SPARKLE, PLAYER = (PONY / f"ponyband_{n}.sav" for n in ("Asira", "Clever_Sparkle", "PLAYER"))
real = real_samples
FA_GAME = "FAangband 1 (Ponyband)"


def _blocks(save: BlockSave, cls: type) -> list[object]:
    return [b for b in save.blocks if isinstance(b, cls)]


def _one(save: BlockSave, cls: type) -> object:
    found = _blocks(save, cls)
    assert len(found) == 1, cls
    return found[0]






@pytest.fixture(scope="module")
def asira() -> BlockSave:
    return block.parse(ASIRA.read_bytes(), Report(strict=True))


# -- the table ------------------------------------------------------------------------------


def test_faangband_has_a_layout_for_every_block_the_samples_hold() -> None:
    faan = {(lay.name, lay.version) for lay in layouts() if lay.game == FA_GAME}
    assert {("player", 2), ("misc", 1), ("history", 1), ("inventory", 1), ("stores", 1),
            ("dungeon", 1), ("objects", 1), ("monsters", 1), ("ghost", 1)} <= faan
    assert ("player", 1) not in faan  # rd_player_1 files: no sample, no layout


# -- every block of every FAangband sample --------------------------------------------------


@real
@pytest.mark.parametrize("path", [ASIRA, SPARKLE, PLAYER], ids=lambda p: p.name)
def test_every_faangband_block_decoded_and_round_trips(path: Path) -> None:
    data = path.read_bytes()
    save = block.parse(data, Report(strict=True))
    assert save.game == FA_GAME
    assert [b.name for b in save.blocks if isinstance(b, RawBlock)] == []
    assert block.build(save) == data
    assert block.build(jsonmap.loads(jsonmap.dumps(save))) == data


# -- player, misc, history ------------------------------------------------------------------


@real
@pytest.mark.parametrize(("path", "name", "level", "race", "cls", "gold", "hp"), [
    (ASIRA, "Asira", 7, "Zebra", "Priest", 151, (58, 58)),
    (SPARKLE, "Clever Sparkle", 1, "Unicorn", "Mage", 216, (8, 8)),
    (PLAYER, "", 1, "Unicorn", "Warrior", 100, (17, 17)),
])
def test_character_as_the_game_shows_it(path: Path, name: str, level: int, race: str, cls: str,
                                        gold: int, hp: tuple[int, int]) -> None:
    save = api.parse(path.read_bytes())
    p = save.player
    assert isinstance(p, fac.Player)
    d = save.description
    assert d is not None and (d.name, d.level) == (p.full_name, p.lev) == (name, level)
    sheet = block.info(save)
    assert (sheet["name"], sheet["race"], sheet["class"], sheet["level"]) == (name, race, cls, level)
    assert sheet["gold"] == gold and (p.chp, p.mhp) == hp
    assert set(sheet["stats"]) == {"str", "int", "wis", "dex", "con", "chr"}  # a_max is 6
    assert all(3 <= v["current"] <= 18 for v in sheet["stats"].values())  # a new character's
    misc = _one(save, fac.Misc)
    assert isinstance(misc, fac.Misc) and misc.is_dead == 0 and len(misc.seed_town) == 10


@real
def test_asira_stats_history_and_turn(asira: BlockSave) -> None:
    p = asira.player
    assert isinstance(p, fac.Player)
    assert p.stats == {"str": "16", "int": "10", "wis": "16", "dex": "10", "con": "16", "chr": "10"}
    assert (p.exp, p.max_exp, p.csp, p.msp) == (184, 184, 8, 19)
    assert p.history.startswith("You are one of several foals of a Farmer.")
    assert p.died_from == "(saved)"
    misc = _one(asira, fac.Misc)
    assert isinstance(misc, fac.Misc) and misc.turn == 5002
    h = _one(asira, fac.History)
    assert isinstance(h, fac.History) and len(h.entries) == 39
    assert h.entries[0].event == "Gained the Meditation specialty."
    assert (h.entries[1].event, h.entries[1].a_idx) == ("Found The Mighty Hammer 'Grond'", 158)
    assert max(e.clev for e in h.entries) <= p.lev


@real
def test_edit_gold_and_experience() -> None:
    data = ASIRA.read_bytes()
    result = edit.edit_bytes(data, {"player.au": 5000, "player.experience": 300})
    assert api.validate(result.data).ok
    changed = [(c.path, c.old, c.new) for c in diff.diff_bytes(data, result.data).changes]
    assert changed == [("player.au", 151, 5000), ("player.max_exp", 184, 300),
                       ("player.exp", 184, 300)]
    assert len(result.data) == len(data)
    with pytest.raises(FormatError):
        edit.edit_bytes(data, {"player.lev": 51})


# -- the world ------------------------------------------------------------------------------


@real
def test_wielded_weapon_is_the_artifact_the_history_found(asira: BlockSave) -> None:
    inv = _one(asira, faw.Inventory)
    assert isinstance(inv, faw.Inventory) and inv.all_inven_total == 48
    weapon = next(i.item for i in inv.items if i.slot == 24)  # INVEN_WIELD
    h = _one(asira, fac.History)
    assert isinstance(h, fac.History)
    found = {e.a_idx: e.event for e in h.entries if e.event.startswith("Found")}
    assert found[weapon.name1] == "Found The Flail 'Totila'"
    assert all(1 <= i.item.number <= 99 for i in inv.items)


@real
def test_stores_merchants_keep_a_table(asira: BlockSave) -> None:
    st = _one(asira, faw.Stores)
    assert isinstance(st, faw.Stores) and len(st.stores) == 60
    assert [i for i, s in enumerate(st.stores) if s.table is not None] == [0, 4, 8, 12, 16, 20]
    assert all(len(s.stock) <= 24 and all(1 <= it.number <= 99 for it in s.stock) for s in st.stores)


@real
def test_dungeon_and_monsters_of_two_builds() -> None:
    late = api.parse(ASIRA.read_bytes())
    early = api.parse(PLAYER.read_bytes())
    d, d0 = _one(late, faw.Dungeon), _one(early, faw.Dungeon)
    assert isinstance(d, faw.Dungeon) and isinstance(d0, faw.Dungeon)
    assert (d.height, d.width) == (d0.height, d0.width) == (66, 198)
    assert d.temp_grids is not None and d0.temp_grids is None
    m, m0 = _one(late, faw.Monsters), _one(early, faw.Monsters)
    assert isinstance(m, faw.Monsters) and isinstance(m0, faw.Monsters)
    assert m.root_and_challenge and not m0.root_and_challenge
    assert m.monsters and m0.monsters
    # a monster stands inside the level, with hit points up to its maximum; the territory
    # of the late build's monsters is the player's square
    for mon in m.monsters + m0.monsters:
        assert 0 <= mon.fy < 66 and 0 <= mon.fx < 198 and 0 < mon.hp <= mon.maxhp
    assert {(x.y_terr, x.x_terr) for x in m.monsters} == {(d.py, d.px)}
    o = _one(late, faw.Objects)
    assert isinstance(o, faw.Objects) and o.objects
    assert all(0 <= it.iy < 66 and 0 <= it.ix < 198 for it in o.objects if not it.held_m_idx)
    g = _one(late, faw.Ghost)
    assert isinstance(g, faw.Ghost) and g.ghost_name == "Broken Ghost"


@real
def test_item_quantity_edit() -> None:
    data = ASIRA.read_bytes()
    result = edit.edit_bytes(data, {"blocks[name=inventory].items[0].quantity": 3})
    save = api.parse(result.data)
    inv = _one(save, faw.Inventory)
    assert isinstance(inv, faw.Inventory) and inv.items[0].item.number == 3
    assert len(result.data) == len(data)


# -- what does not fit stays raw, with the reason -------------------------------------------


@real
def test_a_block_of_neither_builds_size_stays_raw_with_the_reason() -> None:
    data = ASIRA.read_bytes()
    start, size = block_span(data, "dungeon")
    body = data[start + 28:start + 28 + size - 2]  # two temporary-grid bytes short
    save = block.parse(replace_block(data, "dungeon", body), Report())
    raw = {b.name: b for b in save.blocks if isinstance(b, RawBlock)}
    assert "dungeon" in raw and "temporary grids" in raw["dungeon"].reason and raw["dungeon"].failed
    start, size = block_span(data, "monsters")
    body = data[start + 28:start + 28 + size] + b"\0"
    save = block.parse(replace_block(data, "monsters", body), Report())
    raw = {b.name: b for b in save.blocks if isinstance(b, RawBlock)}
    assert "monsters" in raw and "49 in early builds" in raw["monsters"].reason


@real
def test_a_dead_characters_level_blocks_are_empty() -> None:
    data = ASIRA.read_bytes()
    start, size = block_span(data, "misc")
    misc = bytearray(data[start + 28:start + 28 + size])
    misc[-7] = 1  # is_dead: the byte before feeling, do_feeling and the turn
    dead = replace_block(data, "misc", bytes(misc))
    # (Ponyband writes its ghost block for a dead character too: ponyband-59f6ca5/Mint-dead.sav)
    for name in ("dungeon", "objects", "monsters"):
        dead = replace_block(dead, name, b"")
    save = api.parse(dead)
    assert not [b for b in save.blocks if isinstance(b, RawBlock)]
    d = _one(save, faw.Dungeon)
    assert isinstance(d, faw.Dungeon) and d.info is None
    assert api.build(save) == dead


# -- Vanilla 4.0 ----------------------------------------------------------------------------

V401 = SAMPLES / "angband-block-variants" / "vanilla-4.0.1_Mage.sav"
V42 = SAMPLES / "angband-block-variants" / "vanilla-4.2_Aduial.sav"


@pytest.fixture(scope="module")
def v401() -> BlockSave:
    return block.parse(V401.read_bytes(), Report(strict=True))


@real
def test_4_0_every_block_decoded_and_round_trips(v401: BlockSave) -> None:
    data = V401.read_bytes()
    assert v401.game == "Vanilla 4.0"
    assert [b.name for b in v401.blocks if isinstance(b, RawBlock)] == []
    assert block.build(v401) == data
    assert block.build(jsonmap.loads(jsonmap.dumps(v401))) == data
    assert api.parse(V42.read_bytes()).game == "Vanilla 4.2"  # 4.0's layouts do not take 4.2 files


@real
def test_4_0_character_as_the_game_shows_it(v401: BlockSave) -> None:
    p = v401.player
    assert isinstance(p, v40.Player)
    sheet = block.info(v401)
    assert sheet["character"] == "Katabra, L47 High-Elf Mage, at DL77"  # the game's own line
    assert (sheet["name"], sheet["race"], sheet["class"], sheet["level"]) == ("Katabra", "High-Elf", "Mage", 47)
    assert (sheet["depth"], sheet["max_depth"]) == (77, 77)
    assert sheet["gold"] == 1572293 and sheet["hit_points"] == {"current": 653, "max": 653}
    assert sheet["spell_points"] == {"current": 283, "max": 377}
    assert [s["shown"] for s in sheet["stats"].values()] == ["18/100", "18/100", "18/91", "18/100", "18/100"]
    assert [s.name for s in p.body][:2] == ["weapon", "shooting"] and len(p.body) == 12
    misc = _one(v401, v40.Misc)
    assert isinstance(misc, v40.Misc) and misc.is_dead == 0 and misc.turn == 2713452


@real
def test_4_0_wielded_artifacts_are_the_ones_the_history_found(v401: BlockSave) -> None:
    gear = _one(v401, v40.Gear)
    h = _one(v401, v40.History)
    assert isinstance(gear, v40.Gear) and isinstance(h, v40.History)
    worn = {g.slot: g.item for g in gear.items if g.slot < 12}
    assert len(worn) == 12  # every body slot filled, as a level-47 character's would be
    found = {e.a_idx: e.event for e in h.entries if e.event.startswith("Found")}
    assert found[worn[7].art_idx] == "Found the Cloak 'Holcolleth'"
    assert all(it.art_idx in found for it in worn.values() if it.art_idx)
    assert [g.item.inscription for g in gear.items if g.item.inscription][:2] == ["@m2", "@m5"]
    assert all(1 <= g.item.number <= 40 for g in gear.items)


@real
def test_4_0_level_monsters_and_memory(v401: BlockSave) -> None:
    d = _one(v401, v40.Dungeon)
    assert isinstance(d, v40.Dungeon) and d.cave is not None and d.known_cave is not None
    assert (d.depth, d.cave.height, d.cave.width) == (77, 66, 198)
    m = _one(v401, v40.Monsters)
    assert isinstance(m, v40.Monsters) and m.cave is not None and len(m.cave) == 69
    for mon in m.cave:
        assert 0 <= mon.fy < 66 and 0 <= mon.fx < 198 and 0 < mon.hp <= mon.maxhp
    mem = _one(v401, v40.MonsterMemory)
    assert isinstance(mem, v40.MonsterMemory) and mem.kills[0] == v40.Kills("Filthy street urchin", 10)
    c = _one(v401, v40.Chunks)
    assert isinstance(c, v40.Chunks) and c.chunks is not None and c.chunks[0].level.name == "Town"


@real
def test_4_0_edits() -> None:
    data = V401.read_bytes()
    result = edit.edit_bytes(data, {"player.au": 2_000_000, "blocks[name=gear].items[0].quantity": 3})
    assert api.validate(result.data).ok and len(result.data) == len(data)
    changed = {c.path: (c.old, c.new) for c in diff.diff_bytes(data, result.data).changes}
    assert changed["player.au"] == (1572293, 2_000_000)
    save = api.parse(result.data)
    gear = _one(save, v40.Gear)
    assert isinstance(gear, v40.Gear) and gear.items[0].item.number == 3


# -- Anquestria (Angband 3.x) ---------------------------------------------------------------

ANQ = SAMPLES / "angband-block-variants" / "anquestria-3.2_PLAYER.sav"


@real
def test_anquestria_every_block_decoded_and_round_trips() -> None:
    data = ANQ.read_bytes()
    save = block.parse(data, Report(strict=True))
    assert save.game == "Anquestria (Angband 3.x)"
    assert [b.name for b in save.blocks if isinstance(b, RawBlock)] == []
    assert block.build(save) == data
    assert block.build(jsonmap.loads(jsonmap.dumps(save))) == data


@real
def test_anquestria_character() -> None:
    save = api.parse(ANQ.read_bytes())
    p = save.player
    assert isinstance(p, anq.Player)
    assert p.history.startswith("Your father was a Pegasus, and your mother was a Unicorn")
    sheet = block.info(save)
    assert (sheet["level"], sheet["gold"], sheet["max_depth"]) == (1, 156, 1)
    assert sheet["hit_points"] == {"current": 17, "max": 17}
    assert [s["current"] for s in sheet["stats"].values()] == [17, 10, 16, 14, 16, 10]  # six stats
    inv = _one(save, anq.Inventory)
    assert isinstance(inv, anq.Inventory) and inv.items[0].item.tval == 91  # a prayer book first
    h = _one(save, fac.History)
    assert isinstance(h, fac.History) and h.expansion is None and [e.event for e in h.entries] == ["Began the quest to destroy Morgoth."]
    d, m, o = _one(save, anq.Dungeon), _one(save, anq.Monsters), _one(save, anq.Objects)
    assert isinstance(d, anq.Dungeon) and isinstance(m, anq.Monsters) and isinstance(o, anq.Objects)
    assert (d.depth, d.height, d.width) == (1, 66, 198)
    assert all(0 <= x.fy < 66 and 0 <= x.fx < 198 and 0 < x.hp <= x.maxhp for x in m.monsters)
    held = [it for it in o.objects if it.held_m_idx]
    assert held and all(it.held_m_idx <= len(m.monsters) for it in held)
    result = edit.edit_bytes(ANQ.read_bytes(), {"player.au": 1000})
    assert api.validate(result.data).ok
    assert [(c.path, c.old, c.new) for c in diff.diff_bytes(ANQ.read_bytes(), result.data).changes] == \
        [("player.au", 156, 1000)]


# -- PWMAngband's history: artifact indexes or names (SAVE_AS_STRINGS) ---------------------

PWM = SAMPLES / "angband-block-variants" / "pwmangband-1.3.0b1_Archy.sav"


def _pwm_entry(artifact: bytes, event: bytes) -> bytes:
    return b"\x20\x00" + struct.pack("<IIhh", 0, 500, 3, 7) + artifact + b"\0" + event + b"\0"


@real
def test_pwmangband_history_decoded() -> None:
    save = api.parse(PWM.read_bytes())
    h = _one(save, pw.History)
    assert isinstance(h, pw.History) and h.artifacts_as_names is None  # no artifact: both builds agree
    assert [(e.event, e.clev, e.dlev) for e in h.entries][:2] == [
        ("Began the quest to destroy Morgoth", 1, 0), ("Killed Fang, Farmer Maggot's Dog", 4, 2)]
    assert max(e.clev for e in h.entries) <= 6  # the character is level 6


@real
def test_pwmangband_history_build_told_from_the_bytes() -> None:
    """An artifact index reads in this index-build file (its misc and gear blocks say so);
    names there (a SAVE_AS_STRINGS build's history) do not belong, and stay raw with the
    reason. test_angband_pwm reads a whole names-build file, history included."""
    def history(artifact: bytes) -> bytes:
        return b"\x02" + struct.pack("<h", 2) + _pwm_entry(b"\0", b"Reached level 2") + \
            _pwm_entry(artifact, b"Found the Phial")

    data = replace_block(PWM.read_bytes(), "history", history(b"\x05"))
    save = api.parse(data)
    h = _one(save, pw.History)
    assert isinstance(h, pw.History) and h.artifacts_as_names is False
    assert [e.artifact for e in h.entries] == [0, 5] and api.build(save) == data
    names = block.parse(replace_block(PWM.read_bytes(), "history", history(b"the Phial of Galadriel\0")),
                        Report())
    raw = {b.name: b for b in names.blocks if isinstance(b, RawBlock)}
    assert list(raw) == ["history"] and "reads only as the SAVE_AS_STRINGS" in raw["history"].reason


@real
def test_pwmangband_history_that_reads_neither_way_stays_raw() -> None:
    body = b"\x02" + struct.pack("<h", 1) + _pwm_entry(b"\0", b"Reached level 2") + b"\xff"
    save = block.parse(replace_block(PWM.read_bytes(), "history", body), Report())
    raw = {b.name: b for b in save.blocks if isinstance(b, RawBlock)}
    assert "history" in raw and raw["history"].failed


@real
@pytest.mark.parametrize("path", [ASIRA, PLAYER, V401, ANQ, PWM], ids=lambda p: p.name)
def test_extract_folder_rebuilds_every_variant_byte_for_byte(path: Path, tmp_path: Path) -> None:
    data = path.read_bytes()
    block.extract(block.parse(data, Report(strict=True)), tmp_path / "x")
    assert block.build(block.rebuild(tmp_path / "x")) == data
