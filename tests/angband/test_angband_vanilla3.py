"""Vanilla Angband 3.x savefiles the game itself wrote (tests/data/angband-built/vanilla-3.*):
every block decoded, byte-exact, and the values the game's own character screen showed.

The files were written by 3.1.2, 3.2.0, 3.3.2, 3.4.1 and 3.5.1 built from their tags (see each
folder's README):
a new character saved in the town, and the same character dead by the game's suicide
command. The expected values are the game's screen, not savecraft's output.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from savecraft import api, diff, edit, jsonmap
from savecraft.errors import Report
from savecraft.formats.angband import block
from savecraft.formats.angband.block import BlockSave, RawBlock
from savecraft.formats.angband.layouts import layouts, layouts_for
from savecraft.formats.angband.layouts import anquestria as anq
from savecraft.formats.angband.layouts import vanilla3 as v3

from tests import samples
from .support import block_span, blocks_of, replace_block

BUILT = Path(__file__).resolve().parents[1] / "data" / "angband-built"
KETH = BUILT / "vanilla-3.1.2" / "vanilla-3.1.2_Keth.sav"
KETH_DEAD = BUILT / "vanilla-3.1.2" / "vanilla-3.1.2_Keth-dead.sav"
BRIN = BUILT / "vanilla-3.2.0" / "vanilla-3.2.0_Brin.sav"
BRIN_DEAD = BUILT / "vanilla-3.2.0" / "vanilla-3.2.0_Brin-dead.sav"
MIRA = BUILT / "vanilla-3.3.2" / "vanilla-3.3.2_Mira.sav"
MIRA_DEAD = BUILT / "vanilla-3.3.2" / "vanilla-3.3.2_Mira-dead.sav"
OLWEN = BUILT / "vanilla-3.4.1" / "vanilla-3.4.1_Olwen.sav"
OLWEN_DEAD = BUILT / "vanilla-3.4.1" / "vanilla-3.4.1_Olwen-dead.sav"
TARN = BUILT / "vanilla-3.5.1" / "vanilla-3.5.1_Tarn.sav"
TARN_DEAD = BUILT / "vanilla-3.5.1" / "vanilla-3.5.1_Tarn-dead.sav"
FILES = {KETH: v3.V31, KETH_DEAD: v3.V31, BRIN: v3.V32, BRIN_DEAD: v3.V32, MIRA: v3.V33, MIRA_DEAD: v3.V33, OLWEN: v3.V34,
         OLWEN_DEAD: v3.V34, TARN: v3.V35, TARN_DEAD: v3.V35}


def _parse(path: Path) -> BlockSave:
    return block.parse(path.read_bytes(), Report(strict=True))


def _named(save: BlockSave, name: str) -> object:
    found = [b for b in save.blocks if block.block_name(b) == name]
    assert len(found) == 1, name
    return found[0]


# -- every file: decoded, exact, valid ------------------------------------------------------


@pytest.mark.parametrize("path", list(FILES), ids=lambda p: p.name)
def test_every_block_decoded_and_rebuilt_byte_for_byte(path: Path, tmp_path: Path) -> None:
    data = path.read_bytes()
    save = block.parse(data, Report(strict=True), verify=True)  # re-encodes every block too
    assert save.game == FILES[path]
    assert [(b.name, b.reason) for b in save.blocks if isinstance(b, RawBlock)] == []
    assert block.build(save) == data
    assert block.build(jsonmap.loads(jsonmap.dumps(save))) == data
    block.extract(save, tmp_path / "x")
    assert block.build(block.rebuild(tmp_path / "x")) == data
    result = api.validate(data)
    assert result.ok and not result.problems, result.problems


def test_each_release_has_a_layout_for_every_block_it_writes() -> None:
    """The savers tables of each release, as in the files they wrote."""
    for path, game in FILES.items():
        mine = {(lay.name, lay.version) for lay in layouts() if lay.game == game}
        written = {(name, version) for _, name, version, _, _ in blocks_of(path.read_bytes())}
        assert written - {("description", 1)} <= mine, game


# -- the character, as the game's screen showed it -------------------------------------------


@pytest.mark.parametrize(("path", "name", "race", "cls", "gold", "hp", "sp", "stats", "turns"), [
    (KETH, "Keth", "Hobbit", "Ranger", 200, 12, 0,
     {"str": 17, "int": 15, "wis": 10, "dex": 16, "con": 15, "chr": 10}, 41),
    (BRIN, "Brin", "High-Elf", "Mage", 391, 10, 2,
     {"str": 17, "int": 15, "wis": 10, "dex": 16, "con": 15, "chr": 10}, 41),
    (MIRA, "Mira", "Half-Troll", "Ranger", 211, 18, 0,
     {"str": 17, "int": 16, "wis": 10, "dex": 14, "con": 16, "chr": 10}, 61),
    (OLWEN, "Olwen", "Half-Troll", "Rogue", 189, 18, 0,
     {"str": 17, "int": 10, "wis": 10, "dex": 18, "con": 10, "chr": 10}, 61),
    (TARN, "Tarn", "Dwarf", "Priest", 82, 13, 2, {"str": 17, "int": 10, "wis": 16, "dex": 16, "con": 10}, 51),
], ids=["3.1.2", "3.2.0", "3.3.2", "3.4.1", "3.5.1"])
def test_character_as_the_game_shows_it(path: Path, name: str, race: str, cls: str, gold: int, hp: int,
                                        sp: int, stats: dict[str, int], turns: int) -> None:
    sheet = block.info(_parse(path))
    assert (sheet["name"], sheet["race"], sheet["class"], sheet["level"]) == (name, race, cls, 1)
    assert sheet["experience"] == {"current": 0, "max": 0}
    assert sheet["gold"] == gold and sheet["turns"] == turns
    assert sheet["hit_points"] == {"current": hp, "max": hp}
    assert sheet["spell_points"] == {"current": sp, "max": sp}
    # The screen's "Self" column: the stats as rolled, before race and class bonuses.
    assert {k: v["max"] for k, v in sheet["stats"].items()} == stats
    assert sheet["state"] == "alive" and sheet["depth"] == 0 and sheet["max_depth"] == 0


@pytest.mark.parametrize("path", [KETH_DEAD, BRIN_DEAD, MIRA_DEAD, OLWEN_DEAD, TARN_DEAD], ids=lambda p: p.name)
def test_dead_character_killed_by_quitting(path: Path) -> None:
    save = _parse(path)
    sheet = block.info(save)
    assert (sheet["state"], sheet["dead"]) == ("dead", "Quitting")
    assert "depth" not in sheet and sheet["max_depth"] == 0  # the game writes no level once dead
    # The game writes no level for a dead character: its dungeon, objects and monsters are empty.
    for name in ("dungeon", "objects", "monsters"):
        assert getattr(_named(save, name), "present") is False
    assert getattr(_named(save, "ghost"), "ghost_name") is None


def test_3_5_menu_line_and_sizes_from_the_memory_blocks() -> None:
    save = _parse(TARN)
    d = save.description
    assert d is not None and (d.name, d.level, d.race, d.character_class, d.rest) == \
        ("Tarn", 1, "Dwarf", "Priest", ", at DL0")
    mm, om = _named(save, "monster memory"), _named(save, "object memory")
    assert isinstance(mm, v3.MonsterMemory3) and isinstance(om, v3.ObjectMemory2)
    # The sizes 3.5.1 writes (RF_SIZE, RSF_SIZE, MONSTER_BLOW_MAX, OF_SIZE, MAX_PVALS).
    assert (mm.rf_size, mm.rsf_size, mm.monster_blow_max) == (13, 13, 4)
    assert (om.of_size, om.max_pvals) == (14, 3)
    p = save.player
    assert isinstance(p, v3.Player35) and len(p.stat_max) == 5  # 3.5 dropped charisma
    # The dwarf priest's starting kit, in the pack order the game showed: a prayer book (tval
    # 91), 2 rations, 2 potions, a scroll, 2 torches; then a weapon and a torch wielded.
    inv = _named(save, "inventory")
    assert isinstance(inv, v3.Inventory6)
    assert [(e.slot, e.item.tval, e.quantity) for e in inv.items][:5] == \
        [(0, 91, 1), (1, 80, 2), (2, 75, 2), (3, 70, 1), (4, 39, 2)]


def test_3_2_starting_kit_and_town() -> None:
    save = _parse(BRIN)
    inv = _named(save, "inventory")
    assert isinstance(inv, v3.Inventory1) and inv.items[0].item.tval == 90  # a magic book first
    dungeon = _named(save, "dungeon")
    assert isinstance(dungeon, v3.Dungeon) and (dungeon.depth, dungeon.height, dungeon.width) == (0, 66, 198)
    options = _named(save, "options")
    assert isinstance(options, v3.Options1) and not options.randarts
    assert getattr(_named(save, "randarts"), "artifacts") is None  # nothing written without randarts
    stores = _named(save, "stores")
    assert isinstance(stores, v3.Stores1) and len(stores.stores) == 8


def test_3_1_2_random_artifacts_and_turns() -> None:
    save = _parse(KETH)
    options = _named(save, "options")
    assert isinstance(options, v3.Options1) and options.randarts  # birth_randarts was switched on
    randarts = _named(save, "randarts")
    assert isinstance(randarts, v3.Randarts1) and randarts.artifacts is not None
    assert len(randarts.artifacts) == 137 and {len(a) for a in randarts.artifacts} == {v3.RANDART_32}
    rng = _named(save, "rng")
    assert isinstance(rng, v3.Rng31) and len(rng.state) == v3.RAND_DEG_31
    # The screen's "Player Turns 4": 3.1.2 keeps them where 3.2 keeps the energy used.
    p = save.player
    assert p is not None and getattr(p, "total_energy") == 4
    inv = _named(save, "inventory")
    assert isinstance(inv, v3.Inventory1)
    assert (inv.items[0].item.tval, inv.items[-1].slot, inv.items[-1].quantity) == (90, 37, 18)  # arrows


def test_3_1_1_random_artifacts_are_42_bytes() -> None:
    """3.1.1 writes no allocation bytes (wr_randarts): the same block with 42-byte records
    reads as 3.1.1's, and 3.1.2's layout, tried first, does not claim it."""
    data = KETH.read_bytes()
    start, size = block_span(data, "randarts")
    body = data[start + 28:start + 28 + size]
    count = int.from_bytes(body[:2], "little")
    # each record: 34 bytes (tval to rarity), alloc_prob/min/max, then effect and time: drop the 3
    cut = b"".join(r[:34] + r[37:] for r in (body[2 + 45 * i:2 + 45 * (i + 1)] for i in range(count)))
    save = block.parse(replace_block(data, "randarts", body[:2] + cut), Report(strict=True))
    randarts = _named(save, "randarts")
    assert isinstance(randarts, v3.Randarts31) and randarts.artifacts is not None
    assert {len(a) for a in randarts.artifacts} == {v3.RANDART_31} and len(randarts.artifacts) == count


def test_3_3_records_and_random_artifacts() -> None:
    save = _parse(MIRA)
    randarts = _named(save, "randarts")
    assert isinstance(randarts, anq.Randarts) and randarts.artifacts is not None
    assert len(randarts.artifacts) == 139  # z_info->a_max of 3.3.2's artifact.txt
    inv = _named(save, "inventory")
    assert isinstance(inv, v3.Inventory4) and isinstance(inv.items[0].item, v3.Item4)
    # a magic book, 3 rations, a scroll, 6 torches...; a bow wielded; 18 arrows in the quiver
    assert [(e.slot, e.item.tval, e.quantity) for e in inv.items] == \
        [(0, 90, 1), (1, 80, 3), (2, 70, 1), (3, 39, 6), (24, 23, 1), (25, 19, 1), (29, 39, 1), (37, 17, 18)]
    assert isinstance(_named(save, "misc"), v3.Misc2)  # 3.3.1 on
    monsters = _named(save, "monsters")
    assert isinstance(monsters, v3.Monsters6) and monsters.monsters
    assert all(0 <= m.fy < 66 and 0 <= m.fx < 198 and 0 < m.hp <= m.maxhp for m in monsters.monsters)


def test_3_4_records() -> None:
    save = _parse(OLWEN)
    inv = _named(save, "inventory")
    assert isinstance(inv, v3.Inventory5) and isinstance(inv.items[0].item, v3.Item5)
    assert [(e.slot, e.item.tval, e.quantity) for e in inv.items][:4] == \
        [(0, 90, 1), (1, 80, 3), (2, 70, 1), (3, 39, 2)]
    assert isinstance(_named(save, "randarts"), v3.Randarts3)  # empty: regenerated from the seed
    assert isinstance(_named(save, "misc"), v3.Misc2) and isinstance(_named(save, "monsters"), v3.Monsters6)


def test_3_2_text_is_latin_1() -> None:
    """3.2 keeps names in Latin-1 (monster.txt's ``M[^i]m`` becomes the byte 0xEE): a cause of
    death and a history event naming Mîm read as such, and write back the same bytes."""
    data = BRIN_DEAD.read_bytes()
    start, size = block_span(data, "player")
    body = data[start + 28:start + 28 + size]
    at = body.index(b"Quitting\0")
    data = replace_block(data, "player", body[:at] + b"M\xeem, Betrayer of Turin\0" + body[at + 9:])
    start, size = block_span(data, "history")
    body = data[start + 28:start + 28 + size]
    data = replace_block(data, "history", body.replace(b"Began", b"B\xe9gan"))
    save = block.parse(data, Report(strict=True), verify=True)
    assert save.game == v3.V32 and not [b for b in save.blocks if isinstance(b, RawBlock)]
    assert block.info(save)["dead"] == "Mîm, Betrayer of Turin"
    history = _named(save, "history")
    assert isinstance(history, v3.History1) and history.entries[0].event.startswith("Bégan")
    assert block.build(save) == data
    assert block.build(jsonmap.loads(jsonmap.dumps(save))) == data


def test_a_message_longer_than_the_loaders_buffer_is_the_games() -> None:
    """rd_messages cuts a message to its 128-byte buffer; wr_messages writes it whole: the file
    loads, so the block decodes (and rebuilds byte for byte)."""
    data = TARN.read_bytes()
    long = b"The " + b"very " * 40 + b"long message."
    body = (1).to_bytes(2, "little") + long + b"\0" + (0).to_bytes(2, "little")
    spliced = replace_block(data, "messages", body)
    save = block.parse(spliced, Report(strict=True))
    messages = _named(save, "messages")
    assert isinstance(messages, v3.Messages3) and messages.messages[0].text == long.decode()
    assert block.build(save) == spliced


# -- which release wrote the file ------------------------------------------------------------


def test_game_reason_says_how_3_2_was_told_from_3_1() -> None:
    save = api.parse(BRIN.read_bytes())
    assert isinstance(save, BlockSave)
    assert save.game == v3.V32
    assert "Vanilla 3.1 writes the same block versions" in save.game_reason
    assert "Vanilla 3.2's layouts read 20 of the 20 blocks" in save.game_reason


def test_3_5_is_told_by_its_player_block_version() -> None:
    save = api.parse(TARN.read_bytes())
    assert isinstance(save, BlockSave) and save.game == v3.V35
    assert [lay.game for lay in layouts_for("VNLA", "player", 3)] == [v3.V35]


def test_a_3_1_shaped_rng_block_makes_it_3_1() -> None:
    """3.1 writes an old-generator rng block (2 + 2 + 63 * 4 = 256 bytes) where 3.2 writes 260:
    with the same block versions, the trial reads pick 3.1's layouts."""
    data = BRIN.read_bytes()
    rng31 = bytes(4) + bytes(range(252))
    save = api.parse(replace_block(data, "rng", rng31))
    assert isinstance(save, BlockSave) and save.game == v3.V31
    rng = save.blocks[0]
    assert isinstance(rng, v3.Rng31) and len(rng.state) == v3.RAND_DEG_31


# -- loader checks and edits ----------------------------------------------------------------


def test_a_player_outside_the_dungeon_leaves_the_block_raw_naming_the_loader_check() -> None:
    data = BRIN.read_bytes()
    start, size = block_span(data, "dungeon")
    body = bytearray(data[start + 28:start + 28 + size])
    body[4:6] = (66).to_bytes(2, "little")  # py: one row below DUNGEON_HGT
    report = Report()
    save = block.parse(replace_block(data, "dungeon", bytes(body)), report)
    raw = [b for b in save.blocks if isinstance(b, RawBlock)]
    assert [b.name for b in raw] == ["dungeon"] and "Ignoring illegal player location" in raw[0].reason


def test_too_many_object_flags_is_the_3_5_loader_refusal() -> None:
    data = TARN.read_bytes()
    start, size = block_span(data, "object memory")
    body = bytearray(data[start + 28:start + 28 + size])
    body[2] = 15  # of_size above 3.5.1's OF_SIZE (14)
    save = block.parse(replace_block(data, "object memory", bytes(body)), Report())
    raw = {b.name: b.reason for b in save.blocks if isinstance(b, RawBlock)}
    assert "Too many (%u) object flags!" in raw["object memory"]
    assert {"inventory", "stores", "monsters"} <= set(raw)  # sized by it: raw too


@pytest.mark.parametrize("path", [KETH, BRIN, MIRA, OLWEN, TARN], ids=lambda p: p.name)
def test_edit_gold_quantity_and_inscription(path: Path) -> None:
    data = path.read_bytes()
    result = edit.edit_bytes(data, {"player.au": 123456, "blocks[name=inventory].items[1].quantity": 5,
                                    "blocks[name=inventory].items[0].note": "@r1"})
    # the inscription adds 3 bytes to the inventory block: its size is recomputed
    assert api.validate(result.data).ok and len(result.data) in (len(data), len(data) + 4)
    changes = {(c.path, c.old, c.new) for c in diff.diff_bytes(data, result.data).changes}
    assert ("player.au", api.parse(data).player.au, 123456) in changes  # type: ignore[union-attr]
    again = block.parse(result.data, Report(strict=True))
    assert again.player is not None and again.player.au == 123456
    inv = _named(again, "inventory")
    assert getattr(inv, "items")[1].quantity == 5 and getattr(inv, "items")[0].note == "@r1"


def test_3_5_menu_line_follows_a_level_and_name_edit() -> None:
    """wr_description writes "NAME, L<lev> RACE CLASS, at DL<depth>" from the player: an edit of
    the level or name shows in the savefile menu line."""
    result = edit.edit_bytes(TARN.read_bytes(), {"player.lev": 5, "player.full_name": "Tarnish"})
    save = api.parse(result.data)
    assert isinstance(save, BlockSave) and save.description is not None
    assert save.description.line == "Tarnish, L5 Dwarf Priest, at DL0"


def test_level_above_50_is_refused_as_the_loader_does() -> None:
    with pytest.raises(Exception) as err:
        edit.edit_bytes(TARN.read_bytes(), {"player.lev": 51})
    assert "Invalid player level" in str(err.value) or "1 to 50" in str(err.value)


# -- the other games of the variant id are read as before -----------------------------------

SAMPLES = samples.SAMPLES / "angband-block-variants"


@pytest.mark.parametrize(("name", "game"), [
    ("anquestria-3.2_PLAYER.sav", "Anquestria (Angband 3.x)"), ("vanilla-4.0.1_Mage.sav", "Vanilla 4.0"),
    ("vanilla-4.2_Aduial.sav", "Vanilla 4.2")])
def test_other_vnla_samples_keep_their_game(name: str, game: str, real_samples: Path) -> None:
    path = SAMPLES / name
    save = block.parse(path.read_bytes(), Report(strict=True))
    assert save.game == game and not [b for b in save.blocks if isinstance(b, RawBlock)]


# -- as users run it ------------------------------------------------------------------------


@pytest.mark.parametrize(("path", "lines"), [
    (BRIN, ["game: Vanilla 3.2", "race: High-Elf", "class: Mage", "gold: 391", "not decoded: (none)"]),
    (TARN_DEAD, ["game: Vanilla 3.5", "race: Dwarf", "class: Priest", "state: dead", "dead: Quitting",
                 "not decoded: (none)"]),
], ids=["3.2.0", "3.5.1-dead"])
def test_info_command_on_the_game_written_files(path: Path, lines: list[str]) -> None:
    out = subprocess.run([sys.executable, "-m", "savecraft", "info", str(path)], capture_output=True,
                         text=True, check=True).stdout
    for line in lines:
        assert f"  {line}\n" in out, line
    checked = subprocess.run([sys.executable, "-m", "savecraft", "validate", str(path)],
                             capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr


@pytest.mark.parametrize("path", [KETH, MIRA_DEAD, OLWEN], ids=lambda p: p.name)
def test_dump_then_build_command_gives_the_same_bytes(path: Path, tmp_path: Path) -> None:
    dumped = tmp_path / "save.json"
    subprocess.run([sys.executable, "-m", "savecraft", "dump", str(path), "-o", str(dumped), "-q"],
                   check=True, capture_output=True)
    out = tmp_path / "rebuilt.sav"
    subprocess.run([sys.executable, "-m", "savecraft", "build", str(dumped), "-o", str(out), "-q"],
                   check=True, capture_output=True)
    assert out.read_bytes() == path.read_bytes()
