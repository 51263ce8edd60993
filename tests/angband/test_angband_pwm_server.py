"""PWMAngband's server file and players file (layouts/pwmangband_server.py), read as
``load_server_info`` and ``load_account_info`` read them.

The server sample (1.3.0 beta 1, draconisPW/PWMAngband a5e06d7 lib/user/save/server) was
written by the same server as the player file pwmangband-1.3.0b1_Archy.sav, so the two are held
against each other: Archy's id is in the player names, the level the server keeps is the one
Archy stands on (the same position and size), both know the same wilderness radius, the next
player id is above every character's.
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
from savecraft.errors import Report
from savecraft.formats.angband import block
from savecraft.formats.angband.block import BlockSave, RawBlock
from savecraft.formats.angband.decoding import file_context
from savecraft.formats.angband.layouts import pwmangband_server as pws
from savecraft.formats.angband.layouts import pwmangband_world as pww
from tests.samples import SAMPLES, real_samples

SERVER = SAMPLES / "angband-block-more" / "pwmangband_1.3.0b1_server.pwmg"
PLAYERS = SAMPLES / "angband-block-more" / "pwmangband_1.6.0_players.pwmg"
ARCHY = SAMPLES / "angband-block-variants" / "pwmangband-1.3.0b1_Archy.sav"
real = real_samples
SCROLL = 33  # list-tvals.h


def _named(save: BlockSave) -> dict[str, object]:
    return {block.block_name(b): b for b in save.blocks}


@pytest.fixture(scope="module")
def server() -> BlockSave:
    return block.parse(SERVER.read_bytes(), Report(strict=True), verify=True)


@real
@pytest.mark.parametrize("path", [SERVER, PLAYERS], ids=lambda p: p.name)
def test_every_block_decoded_and_rebuilt_byte_for_byte(path: Path) -> None:
    data = path.read_bytes()
    save = block.parse(data, Report(strict=True), verify=True)
    assert save.game == "PWMAngband server"
    assert [b.name for b in save.blocks if isinstance(b, RawBlock)] == []
    assert block.build(save) == data
    assert api.validate(data).problems == []


@real
def test_the_server_file_agrees_with_a_player_file_of_the_same_server(server: BlockSave) -> None:
    archy = block.parse(ARCHY.read_bytes(), Report(strict=True))
    mine, theirs = _named(server), _named(archy)
    names = mine["player_names"]
    assert isinstance(names, pws.PlayerNames) and names.player_id is None  # 1.3: in misc
    assert [(p.id, p.name) for p in names.players] == [(1, "PowerWyrm"), (3, "DarkGod"), (7, "Archy")]
    assert archy.player is not None and archy.player.id == 7
    misc = mine["misc"]
    assert isinstance(misc, pws.ServerMisc) and misc.player_id == 8  # the next id to give
    level = theirs["dungeon"]
    assert isinstance(level, pww.Dungeon) and level.level is not None
    dungeons = mine["dungeons"]
    assert isinstance(dungeons, pws.Dungeons) and dungeons.square_size == len(level.level.info)
    kept = dungeons.levels[0]
    assert (kept.wpos_y, kept.wpos_x, kept.wpos_depth, kept.height, kept.width) == (
        level.level.wpos_y, level.level.wpos_x, level.level.wpos_depth, level.level.height,
        level.level.width)
    wild, seen = mine["wilderness"], theirs["wild map"]
    assert isinstance(wild, pws.Wilderness) and wild.radius == getattr(seen, "radius") == 43
    archy_misc = theirs["misc"]
    assert isinstance(archy_misc, pww.Misc) and misc.turn >= archy_misc.game_turn


@real
def test_stores_monsters_and_houses(server: BlockSave) -> None:
    named = _named(server)
    stores = named["stores"]
    assert isinstance(stores, pws.Stores) and len(stores.stores) == 12
    assert [len(s.items) for s in stores.stores[:4]] == [12, 18, 12, 18]
    assert stores.stores[0].items[0].item.tval == SCROLL  # the alchemist's first shelf
    assert len(stores.orders) == 8 and all(o.turn is None for o in stores.orders)  # 1.3: no turns
    monsters = named["monsters"]
    assert isinstance(monsters, pws.Monsters) and monsters.mflag_size is None
    on_level = monsters.levels[0]
    assert len(on_level.monsters) == 75
    assert all((m.wpos_y, m.wpos_x, m.wpos_depth) == (on_level.wpos_y, on_level.wpos_x,
                                                      on_level.wpos_depth) for m in on_level.monsters)
    assert all(0 < m.hp <= m.maxhp for m in on_level.monsters)
    houses = named["houses"]
    assert isinstance(houses, pws.Houses) and len(houses.houses) == 285
    owned = [h for h in houses.houses if h.ownerid]
    assert [(h.ownerid, h.ownername) for h in owned] == [(1, "PowerWyrm")]  # id 1 in player_names


@real
def test_the_players_file_of_1_6() -> None:
    save = block.parse(PLAYERS.read_bytes(), Report(strict=True))
    names = save.blocks[0]
    assert isinstance(names, pws.PlayerNames) and names.player_id == 7  # 1.4.0 on: here
    assert [(p.name, p.death_turn != 0) for p in names.players] == [("Ganja", False), ("Sebastian II", True)]


@real
def test_the_cli_summarises_the_server_file_from_its_blocks(tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, "-m", "savecraft", "info", "--json", str(SERVER)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert (doc["players"], doc["player_id"], doc["house_count"], doc["houses_owned"]) == (
        ["PowerWyrm", "DarkGod", "Archy"], 8, 285, 1)
    assert (doc["levels_kept"], doc["monster_count"], doc["wilderness_radius"]) == (1, 75, 43)
    target = tmp_path / "server"
    target.write_bytes(SERVER.read_bytes())
    at = [block.block_name(b) for b in api.parse(SERVER.read_bytes()).blocks].index("houses")
    edit = subprocess.run([sys.executable, "-m", "savecraft", "edit", str(target), "--set",
                           f"blocks[{at}].houses[0].price=1234"], capture_output=True, text=True,
                          timeout=120)
    assert edit.returncode == 0, edit.stdout + edit.stderr
    houses = _named(block.parse(target.read_bytes(), Report(strict=True)))["houses"]
    assert isinstance(houses, pws.Houses) and houses.houses[0].price == 1234


@real
def test_store_orders_of_1_6_2_build_3_carry_their_order_turns(server: BlockSave) -> None:
    """rd_stores_aux (1.6.2 build 3): a count of STORE_ORDERS + 1 says each order has a
    second turn. Laid out here by hand: the 1.3 stores block with its order part replaced."""
    data = SERVER.read_bytes()
    raw = block.walk(data, Report())[1]
    f = next(x for x in raw if x.name == "stores")
    body = data[f.data_start:f.data_start + f.size]
    cut = len(body) - (2 + 8)  # the count and 8 empty orders of 1.3.0.1
    assert body[cut:] == struct.pack("<H", 8) + bytes(8)
    orders = struct.pack("<H", 9) + b"".join(b"Ring\0" + struct.pack("<IIII", 0, i, 0, 100 + i)
                                              for i in range(8))
    # magic 1.6.2.0: the object records differ too, so only the order part is read, by the
    # stores reader of an empty store list
    ctx = file_context("PWMG", bytes((1, 6, 2, 0)))
    for name in ("of_size", "obj_mod_max", "elem_max", "brand_max", "slay_max", "curse_max"):
        ctx.set(name, 1, "object memory")
    r = Reader(struct.pack("<H", 0) + orders)
    m = pws._rd_stores_as(r, ctx, False)
    assert r.at_end() and [(o.order, o.turn, o.order_turn) for o in m.orders[:2]] == [
        ("Ring", 0, 100), ("Ring", 1, 101)]
    w = Writer()
    pws._wr_stores(m, w, ctx)
    assert w.getvalue() == struct.pack("<H", 0) + orders


BUILT_SERVER = Path(__file__).resolve().parents[1] / "data" / "angband-built" / "pwmangband-1.6.2" / "server"


@pytest.mark.parametrize("path", [pytest.param(SERVER, marks=real), BUILT_SERVER], ids=lambda p: f"{p.parent.name}/{p.name}")
def test_dump_build_and_extract_build_give_the_same_bytes(tmp_path: Path, path: Path) -> None:
    """Through the JSON dump and the extract folder, as users do (the server models must be
    known to the JSON mapping: a KeyError on ObjectSizes before)."""
    if not path.exists():
        pytest.skip(f"no {path}")

    def run(*args: str) -> None:
        out = subprocess.run([sys.executable, "-m", "savecraft", *args], capture_output=True,
                             text=True, timeout=300)
        assert out.returncode == 0, out.stdout + out.stderr

    run("dump", str(path), "-o", str(tmp_path / "dump.json"))
    run("build", str(tmp_path / "dump.json"), "-o", str(tmp_path / "from-dump"))
    assert (tmp_path / "from-dump").read_bytes() == path.read_bytes()
    run("extract", str(path), "-o", str(tmp_path / "parts"))
    run("build", str(tmp_path / "parts"), "-o", str(tmp_path / "from-parts"))
    assert (tmp_path / "from-parts").read_bytes() == path.read_bytes()
