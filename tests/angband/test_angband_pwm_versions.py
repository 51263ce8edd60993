"""PWMAngband player files of every savefile magic: one set of layouts whose fields come and go
with the magic (the ``pwm_magic`` context entry), as src/server/save.c writes them at the commit
each magic was current (draconisPW/PWMAngband: 1.1.12.3 at 7e62df8, 1.3.0.1 at a5e06d7,
1.4.0.0/1.4.0.1 at bdbf039, 1.5.0.x at f948251, 1.6.0.0 at afa0f6d, 1.6.1.0 and 1.6.2.0 at
1941cee).

The real 1.2.0 beta 2 file is held against what the game wrote about it in its own
description line; the fields of magics with no real file are held against records laid out
here by hand from the game's ``wr_item`` (never by savecraft's writer).
"""

from __future__ import annotations

import json
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from savecraft import api
from savecraft.binary import Reader, Writer
from savecraft.errors import FormatError, Report
from savecraft.formats.angband import block
from savecraft.formats.angband.block import BlockSave, RawBlock
from savecraft.formats.angband.decoding import PWM_MAGIC_RELEASES, file_context
from savecraft.formats.angband.layouts import pwmangband as pw
from savecraft.formats.angband.layouts import pwmangband_server as pws
from savecraft.formats.angband.layouts import pwmangband_world as pww
from tests.samples import SAMPLES, real_samples

MORE = SAMPLES / "angband-block-more"
PWM12 = MORE / "pwmangband_1.2.0b2_Brainiac.pwmg"
PWM16 = MORE / "pwmangband_1.6.0_Ganja.pwmg"
ARCHY = SAMPLES / "angband-block-variants" / "pwmangband-1.3.0b1_Archy.sav"
real = real_samples


def _blocks(save: BlockSave, name: str) -> list[object]:
    return [b for b in save.blocks if block.block_name(b) == name]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "savecraft", *args], capture_output=True, text=True,
                          timeout=120)


@real
def test_a_1_2_0_beta_2_file_is_decoded_whole_and_rebuilt_byte_for_byte() -> None:
    data = PWM12.read_bytes()
    save = block.parse(data, Report(strict=True), verify=True)
    assert save.game == pw.GAME and "1.1.12.3" in save.game_reason
    assert [b.name for b in save.blocks if isinstance(b, RawBlock)] == []
    assert block.build(save) == data
    assert api.validate(data).problems == []


@real
def test_a_1_2_0_beta_2_file_reads_as_the_game_describes_it() -> None:
    """The game's own description line: "Builder, L36 Dwarf Telepath, at DL68"."""
    save = block.parse(PWM12.read_bytes(), Report(strict=True))
    header, player = save.header, save.player
    assert header is not None and player is not None
    assert (header.race, header.character_class, player.lev) == ("Dwarf", "Telepath", 36)
    dungeon = _blocks(save, "dungeon")[0]
    assert isinstance(dungeon, pww.Dungeon) and dungeon.level is not None
    assert dungeon.level.wpos_depth == 68  # "at DL68"
    # fields of magic 1.1.12.3: "confusing" and food in the player block; no level_req,
    # spell cooldowns, thefts, origin_player; terrain runs of 2 bytes
    assert player.confusing is not None and player.food is not None
    spells = _blocks(save, "player spells")[0]
    assert isinstance(spells, pw.PlayerSpells) and spells.spell_cooldown is None
    gear = save.blocks[[block.block_name(b) for b in save.blocks].index("gear")]
    assert isinstance(gear, pww.Gear) and gear.items
    assert all(g.item.level_req is None and g.item.origin_player is None for g in gear.items)
    assert all(g.item.owner == player.id for g in gear.items if g.item.owner)
    memory = _blocks(save, "monster memory")[0]
    assert isinstance(memory, pw.MonsterMemory) and all(r.thefts is None for r in memory.races)
    # Latin-1 text, as the game's data files are: "Eöl, the Dark Elf" killed something here
    objects = _blocks(save, "objects")[0]
    assert isinstance(objects, pww.Objects) and objects.items
    assert "E\xf6l, the Dark Elf" in {p.item.origin_race for p in objects.items}


@real
def test_the_cli_reads_a_1_2_0_beta_2_file() -> None:
    out = _run("info", "--json", str(PWM12))
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert (doc["name"], doc["race"], doc["class"], doc["level"]) == ("Brainiac", "Dwarf", "Telepath", 36)
    assert doc["game"] == "PWMAngband" and doc["not_decoded"] == []
    assert doc["savefile_magic"] == "1.1.12.3"
    assert doc["depth"] == 68 and doc["max_depth"] == 68  # "at DL68"
    assert doc["state"] == "alive" and doc["turns"] > 0
    assert _run("validate", str(PWM12)).returncode == 0


@real
def test_an_edit_of_a_1_2_0_beta_2_file_keeps_the_other_bytes(tmp_path: Path) -> None:
    """``player.au`` and the gear's ``items[i].quantity``; ``gear.`` itself is BlockSave.gear's
    (another change makes it find a "gear" block of any variant), so the gear block's index here."""
    target = tmp_path / "Brainiac"
    data = PWM12.read_bytes()
    target.write_bytes(data)
    at = [b.name for b in block.walk(data, Report())[1]].index("gear")
    out = _run("edit", str(target), "--set", "player.au=1234", "--set", f"blocks[{at}].items[0].quantity=2")
    assert out.returncode == 0, out.stdout + out.stderr
    save = block.parse(target.read_bytes(), Report(strict=True))
    assert save.player is not None and save.player.au == 1234
    gear = _blocks(save, "gear")[0]
    assert isinstance(gear, pww.Gear) and gear.items[0].quantity == 2
    assert gear.items[0].item.number == 2
    before = block.parse(data, Report(strict=True))
    old = _blocks(before, "gear")[0]
    assert isinstance(old, pww.Gear) and old.items[1:] == gear.items[1:]


@real
def test_a_file_of_the_same_magic_from_a_fork_is_not_read_as_pwmangband() -> None:
    """The 1.6.0.0 sample was written by a server with six stats (the Tangaria fork; PWMAngband
    has five, list-stats.h): PWMAngband's 1.6.0.0 player layout does not read its player block,
    so it is read as Tangaria (layouts/tangaria.py, tests/test_angband_tangaria.py), never as
    PWMAngband, and nothing is reported as a fault of the file."""
    data = PWM16.read_bytes()
    save = api.parse(data)
    assert save.game == "Tangaria"
    assert "PWMAngband's own player layout does not read it" in save.game_reason
    player = next(b for b in save.blocks if block.block_name(b) == "player")
    # PWMAngband's layout alone (no fork in the context) refuses the player block: the level,
    # read where a 5-stat layout expects it (after the sixth stats), is 0
    with pytest.raises(FormatError, match="lev: expected a level from 1 to 50, found 0"):
        pw.PLAYER.read(Reader(pw.PLAYER.pack(player, file_context("PWMG", data[:4], "Tangaria"))),
                       file_context("PWMG", data[:4]))
    assert api.validate(data).problems == []
    assert block.build(save) == data


# -- the object record of each magic, laid out by hand from wr_item -------------------------

SIZES = {"of_size": 5, "obj_mod_max": 2, "elem_max": 1, "brand_max": 1, "slay_max": 1, "curse_max": 1}


def _wr_item(magic: tuple[int, ...], tval: int, sval: int, artifact: int, note: bytes = b"") -> bytes:
    """One index-build object record as ``wr_item`` at ``magic`` writes it."""
    kind = "<HH" if magic >= (1, 4, 0, 0) else "<BB"
    art = "<HH" if magic >= (1, 6, 0, 0) else "<BB"
    out = struct.pack("<BBBhhh", 1, 3, 4, 0, 0, 0)  # version, grid y, x, wpos
    out += struct.pack(kind, tval, sval)
    out += struct.pack("<iBhi", 0, 7, 30, 0)  # pval, number, weight, randart_seed
    out += struct.pack(art, artifact, 0)  # artifact, ego
    out += struct.pack("<BhhhhhBBBh", 0, 0, 1, 2, 3, 4, 1, 4, 0, 0)  # effect..origin_depth
    out += b"\0" + b"\0"  # origin_race, notice
    out += bytes(5) + struct.pack("<ii", 0, 0)  # flags (of_size), modifiers
    out += b"\0\0\0"  # no brands, slays, curses
    out += struct.pack("<hB", 0, 0)  # elements
    out += struct.pack("<hhHhhh", 0, 0, 0, 0, 0, 0)  # held, mimicking, activation, time
    out += note + b"\0"
    out += struct.pack("<ii", 5, 5)  # creator, owner
    if magic >= (1, 3, 0, 1):
        out += b"\x09"  # level_req
    out += struct.pack("<BBhB", 0, 0, 0, 0)  # ignore_protect, ordered, decay, bypass_aware
    if magic >= (1, 5, 0, 0):
        out += b"Archy\0"  # origin_player
    if magic >= (1, 6, 1, 0):
        out += struct.pack("<H", 300)  # worn_time
    return out


@pytest.mark.parametrize("magic", sorted(PWM_MAGIC_RELEASES), ids=lambda m: ".".join(map(str, m)))
def test_the_object_record_of_every_magic(magic: bytes) -> None:
    m = tuple(magic)
    ctx = file_context("PWMG", magic)
    for name, value in SIZES.items():
        ctx.set(name, value, "object memory")
    data = _wr_item(m, 300 if m >= (1, 4, 0, 0) else 30, 2, 260 if m >= (1, 6, 0, 0) else 200, b"@r1")
    r = Reader(data)
    it = pww.read_item(r, ctx, False, "item")
    assert r.at_end()
    assert (it.tval, it.sval, it.number, it.artifact, it.note, it.owner) == (
        300 if m >= (1, 4, 0, 0) else 30, 2, 7, 260 if m >= (1, 6, 0, 0) else 200, "@r1", 5)
    assert it.level_req == (9 if m >= (1, 3, 0, 1) else None)
    assert it.origin_player == ("Archy" if m >= (1, 5, 0, 0) else None)
    assert it.worn_time == (300 if m >= (1, 6, 1, 0) else None)
    w = Writer()
    pww.write_item(it, w, ctx, False, "item")
    assert w.getvalue() == data


def test_a_field_the_magic_does_not_store_is_refused_on_write() -> None:
    magic = bytes((1, 3, 0, 1))
    ctx = file_context("PWMG", magic)
    for name, value in SIZES.items():
        ctx.set(name, value, "object memory")
    it = pww.read_item(Reader(_wr_item(tuple(magic), 30, 2, 0)), ctx, False, "item")
    it.worn_time = 5
    with pytest.raises(FormatError, match="worn_time"):
        pww.write_item(it, Writer(), ctx, False, "item")


@real
def test_the_1_3_file_still_reads_as_before() -> None:
    save = block.parse(ARCHY.read_bytes(), Report(strict=True), verify=True)
    assert save.game == pw.GAME and not [b for b in save.blocks if isinstance(b, RawBlock)]
    assert save.player is not None and save.player.food is not None and save.player.confusing is None


# -- files PWMAngband 1.6.2 wrote (tests/data/angband-built/pwmangband-1.6.2/README.md) -------

BUILT = Path(__file__).resolve().parents[1] / "data" / "angband-built" / "pwmangband-1.6.2"
FOOD, POTION, SCROLL, LIGHT, DEED, SWORD, SOFT_ARMOUR = 36, 34, 33, 27, 5, 16, 24  # list-tvals.h


BUILT_150 = BUILT.parent / "pwmangband-1.5.0"
MAGIC_BOOK = 39


@pytest.mark.parametrize("path", [BUILT / "Savetest", BUILT / "server", BUILT / "players",
                                  BUILT_150 / "Fivetest", BUILT_150 / "server", BUILT_150 / "players"],
                         ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_files_the_game_wrote_are_decoded_whole_and_rebuilt_byte_for_byte(path: Path) -> None:
    data = path.read_bytes()
    save = block.parse(data, Report(strict=True), verify=True)
    assert save.game == ("PWMAngband" if path.name[0].isupper() else "PWMAngband server")
    assert [b.name for b in save.blocks if isinstance(b, RawBlock)] == []
    assert block.build(save) == data
    out = _run("validate", str(path))
    assert out.returncode == 0, out.stdout + out.stderr


def test_the_1_5_0_character_reads_as_the_game_showed_it() -> None:
    """A level 1 Human Sorceror, 300 gold, 10/10 HP, 3/3 SP, a dagger and a torch wielded, the
    book, a ration, a scroll, a torch and a deed carried (README.md)."""
    save = block.parse((BUILT_150 / "Fivetest").read_bytes(), Report(strict=True))
    header, p = save.header, save.player
    assert header is not None and p is not None
    assert (header.race, header.character_class, p.lev, p.au) == ("Human", "Sorceror", 1, 300)
    assert (p.chp, p.mhp, p.csp, p.msp) == (10, 10, 3, 3)
    gear = _blocks(save, "gear")[0]
    assert isinstance(gear, pww.Gear)
    assert sorted((g.item.tval, g.item.number) for g in gear.items) == sorted(
        [(SWORD, 1), (LIGHT, 1), (MAGIC_BOOK, 1), (FOOD, 1), (SCROLL, 1), (LIGHT, 1), (DEED, 1)])
    # 1.5.0: origin_player stored, worn_time not yet (1.6.1)
    assert all(g.item.origin_player == "Fivetest" and g.item.worn_time is None for g in gear.items)
    server = block.parse((BUILT_150 / "server").read_bytes(), Report(strict=True))
    artifacts = _blocks(server, "artifacts")[0]
    assert isinstance(artifacts, pws.ServerArtifacts)  # 1.5.0: an owner id, no "owned" flag
    assert all(a.owned is None and a.owner == 0 and a.created == 0 for a in artifacts.artifacts)
    names = block.parse((BUILT_150 / "players").read_bytes(), Report(strict=True)).blocks[0]
    assert isinstance(names, pws.PlayerNames)
    assert [(n.id, n.name) for n in names.players] == [(p.id, "Fivetest")] and names.player_id == p.id + 1


def test_the_1_6_2_character_reads_as_the_game_showed_it() -> None:
    """The game's screen: a level 1 Dwarf Warrior with 179 gold and 21/21 hit points, "Self" 10
    in every stat at birth, wielding a dagger, a torch and soft leather armour, carrying 2
    rations, a potion, a scroll, 2 torches and a deed."""
    out = _run("info", "--json", str(BUILT / "Savetest"))
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert (doc["name"], doc["race"], doc["class"], doc["level"], doc["gold"]) == (
        "Savetest", "Dwarf", "Warrior", 1, 179)
    assert doc["hit_points"] == {"current": 21, "max": 21} and doc["savefile_magic"] == "1.6.2.0"
    save = block.parse((BUILT / "Savetest").read_bytes(), Report(strict=True))
    assert save.player is not None and save.player.stat_cur == [10] * 5
    assert save.player.food is None  # a timed effect since 1.4.0
    gear = _blocks(save, "gear")[0]
    assert isinstance(gear, pww.Gear) and gear.as_names is False
    carried = sorted((g.item.tval, g.item.number) for g in gear.items)
    assert carried == sorted([(SWORD, 1), (LIGHT, 1), (SOFT_ARMOUR, 1), (FOOD, 2), (POTION, 1),
                              (SCROLL, 1), (LIGHT, 2), (DEED, 1)])
    assert {g.item.origin_player for g in gear.items} == {"Savetest"}  # 1.5.0 on
    assert all(g.item.owner == save.player.id and g.item.worn_time is not None for g in gear.items)


def test_the_1_6_2_server_and_players_files_agree_with_the_character() -> None:
    player = block.parse((BUILT / "Savetest").read_bytes(), Report(strict=True))
    server = block.parse((BUILT / "server").read_bytes(), Report(strict=True))
    players = block.parse((BUILT / "players").read_bytes(), Report(strict=True))
    assert player.player is not None
    names = players.blocks[0]
    assert isinstance(names, pws.PlayerNames)
    assert [(p.id, p.name) for p in names.players] == [(player.player.id, "Savetest")]
    assert names.player_id == player.player.id + 1  # the next id to give
    here = _blocks(player, "dungeon")[0]
    assert isinstance(here, pww.Dungeon) and here.level is not None
    kept = _blocks(server, "dungeons")[0]
    assert isinstance(kept, pws.Dungeons)
    assert [(lv.wpos_y, lv.wpos_x, lv.wpos_depth, lv.height, lv.width) for lv in kept.levels] == [
        (here.level.wpos_y, here.level.wpos_x, here.level.wpos_depth, here.level.height,
         here.level.width)]
    assert kept.square_size == len(here.level.info)
    stores = _blocks(server, "stores")[0]
    assert isinstance(stores, pws.Stores) and len(stores.orders) == pws.STORE_ORDERS
    # build 3 writes STORE_ORDERS + 1 and a second turn per order (rd_stores_aux)
    assert all(o.order_turn is not None for o in stores.orders)
    misc = _blocks(server, "misc")[0]
    assert isinstance(misc, pws.ServerMisc) and misc.player_id is None  # in the players file
