"""Real Angband saves: the layout table, every block of the 4.2 file decoded, the character
sheet, safe edits, and every real sample round-tripping byte for byte."""

from __future__ import annotations

import json
import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest

from savecraft import api, diff, edit, jsonmap, registry
from savecraft.errors import FormatError, Report
from savecraft.formats.angband import block
from savecraft.formats.angband.block import BlockSave, Description, RawBlock
from savecraft.formats.angband.layouts import (anquestria, character, faangband2, layouts, layouts_for,
                                             vanilla40, world)
from savecraft.paths import PathError

from tests.samples import SAMPLES, real_samples

from .support import ALL_REAL, V42, blocks_of

PWM = SAMPLES / "angband-block-variants" / "pwmangband-1.3.0b1_Archy.sav"
TRUNCATED = SAMPLES / "angband-truncated" / "vanilla-4.0.1_half-written.sav"
real = real_samples


@pytest.fixture(scope="module")
def v42() -> bytes:
    return V42.read_bytes()


@pytest.fixture(scope="module")
def save42(v42: bytes) -> BlockSave:
    return block.parse(v42, Report(strict=True))


# -- every real file -------------------------------------------------------------------------


@real
def test_every_real_sample_is_tested() -> None:
    assert len(ALL_REAL) == 7


@real
@pytest.mark.parametrize("path", ALL_REAL, ids=lambda p: p.name)
def test_every_real_file_round_trips_byte_for_byte(path: Path) -> None:
    data = path.read_bytes()
    assert registry.detect(data).name == "angband-block"
    report = Report(strict=False)
    save = block.parse(data, report)
    assert report.problems == []
    assert block.build(save) == data
    assert block.build(jsonmap.loads(jsonmap.dumps(save))) == data
    assert [(block.block_name(b), block.block_version(b)) for b in save.blocks] == \
        [(n, v) for _, n, v, _, _ in blocks_of(data)]
    assert api.validate(data).ok


# -- the layout table ------------------------------------------------------------------------


def test_table_is_keyed_by_variant_name_and_version() -> None:
    # 4.2 first: a 4.2 player block is read as 4.2, whatever 4.0's layout would make of it
    # (FAangband 2 writes VNLA too: its player layout reads only its own, tests/test_angband_faangband2.py)
    models = [lay.model for lay in layouts_for("VNLA", "player", 1)]
    assert models[0] is character.Player and {vanilla40.Player, faangband2.Player} <= set(models)
    # FAangband 1.2.0-1.3.3 alone write the player block version 1 (rd_player_1)
    assert [lay.game for lay in layouts_for("FAAN", "player", 1)] == ["FAangband 1.2.0-1.3.3"]
    # Anquestria and Vanilla 3.1 to 3.4 write a player block version 2 (3.2 to 3.4 the same bytes)
    assert [lay.game for lay in layouts_for("VNLA", "player", 2)] == [
        "Anquestria (Angband 3.x)", "Vanilla 3.1", "Vanilla 3.2", "Vanilla 3.3", "Vanilla 3.4"]
    assert [lay.game for lay in layouts_for("VNLA", "player", 3)] == ["Vanilla 3.5"]
    faan = {lay.name for lay in layouts() if lay.game == "FAangband 1 (Ponyband)"}
    assert {"rng", "messages", "player hp", "options", "traps"} <= faan
    names = {lay.name for lay in layouts() if lay.game == "Vanilla 4.2"}
    assert names == {"rng", "options", "messages", "monster memory", "object memory", "quests",
                     "player", "ignore", "misc", "artifacts", "player hp", "player spells", "gear",
                     "stores", "dungeon", "objects", "monsters", "traps", "chunks", "history"}


@real
def test_4_2_every_block_decoded(save42: BlockSave) -> None:
    assert not [b for b in save42.blocks if isinstance(b, RawBlock)]
    assert len(save42.blocks) == 21
    assert block.info(save42)["not_decoded"] == []
    assert block.info(save42)["game"] == "Vanilla 4.2"


@real
def test_unknown_game_blocks_stay_raw_with_reason() -> None:
    data = (SAMPLES / "angband-block-variants" / "anquestria-3.2_PLAYER.sav").read_bytes()
    save = api.parse(data[:4] + b"ZZZZ" + data[8:])  # a variant no layout is registered for
    raw = [b for b in save.blocks if isinstance(b, RawBlock)]
    assert len(raw) == 20 and all(b.reason == "no layouts for variant 'ZZZZ'" for b in raw)
    assert save.game == "" and block.info(save)["game"] is None
    # a block version no layout knows: that block stays raw, the game is still recognised
    start = next(b[0] for b in blocks_of(data) if b[1] == "player")
    save = api.parse(data[:start + 16] + struct.pack("<I", 7) + data[start + 20:])
    assert save.game == "Anquestria (Angband 3.x)"
    assert {(b.name, b.reason) for b in save.blocks if isinstance(b, RawBlock)} == \
        {("player", "no Anquestria (Angband 3.x) layout for 'player' version 7")}
    pony = api.load(SAMPLES / "angband-block" / "ponyband_Asira.sav")
    assert pony.game == "FAangband 1 (Ponyband)"
    assert block.info(pony)["not_decoded"] == []


@real
def test_block_the_layout_does_not_consume_stays_raw_and_is_reported(v42: bytes) -> None:
    start, name, version, size, _ = next(b for b in blocks_of(v42) if b[1] == "quests")
    body = v42[start + 28:start + 28 + size] + b"\x07"
    head = v42[:start] + name.encode().ljust(16, b"\0") + struct.pack("<III", version, len(body), sum(body))
    data = head + body + b"x" * (-len(body) % 4) + v42[start + 28 + size + (-size % 4):]
    report = Report(strict=False)
    save = block.parse(data, report)
    quests = next(b for b in save.blocks if block.block_name(b) == "quests")
    assert isinstance(quests, RawBlock) and quests.failed and "1 more bytes" in quests.reason
    assert [(p.severity, p.offset) for p in report.problems] == [("warning", start + 28 + size)]
    assert block.build(save) == data  # byte for byte, not forced
    result = api.validate(data)
    assert not result.ok and any(p.path == "blocks[6]" for p in result.problems)
    assert any(b["name"] == "quests" and "the Vanilla 4.2 layout does not fit" in b["reason"]
               for b in block.info(save)["not_decoded"])


@real
def test_reader_offsets_and_paths_inside_blocks(v42: bytes) -> None:
    start, _, _, size, _ = next(b for b in blocks_of(v42) if b[1] == "gear")
    data = bytearray(v42)
    data[start + 28 + 1] = 0x12  # the first object's 0xFFFF mark
    struct.pack_into("<I", data, start + 24, sum(data[start + 28:start + 28 + size]))
    report = Report(strict=False)
    block.parse(bytes(data), report)
    p = report.problems[0]
    # the path is the model's (gear.items[0].item), as edit, diff and hexdump name it
    assert (p.offset, p.path) == (start + 29, "blocks[13].items[0].item.mark")


# -- the character -------------------------------------------------------------------------


@real
def test_4_2_character_as_the_game_shows_it(save42: BlockSave) -> None:
    d = save42.description
    assert d is not None and d.line == "Aduial, L50 High-Elf Paladin, at DL81"
    p = save42.player
    assert p is not None
    # values the game's own dump of this character (Aduial-YAWC.txt, 4.2.1) and the save agree on
    assert (p.full_name, p.race, p.character_class, p.lev) == ("Aduial", "High-Elf", "Paladin", 50)
    assert (p.chp, p.mhp) == (1033, 1033)
    assert (p.age, p.height, p.weight) == (110, 79, 196)  # 6'7", 14st 0lb
    assert p.history == ("You are the only child of a Telerin Ranger.  You have light grey eyes, "
                         "straight black hair, and a fair complexion.")
    assert [s.name for s in p.body][:4] == ["weapon", "shooting", "right hand", "left hand"]
    assert save42.dungeon is not None and save42.dungeon.depth == 81
    sheet = block.info(save42)
    for worn in ("light: Arkenstone of Thráin", "head: Iron Helm of Dor-Lómin",
                 "arm: Leather Shield of the Haradrim", "hands: Set of Mithril Gauntlets of Power",
                 "feet: Pair of Leather Boots 'Dal-i-thalion'", "weapon: Spear 'Aiglos'"):
        assert worn in sheet["equipment"]
    for carried in ("Shovel of Digging", "Small Metal Shield of Thorin",
                    "Prayer Book [Battle Blessings]", "Ring of Power 'The One Ring'"):
        assert carried in sheet["inventory"]
    assert sheet["stats"]["str"] == {"current": 118, "max": 118, "shown": "18/100"}
    assert (sheet["level"], sheet["depth"], sheet["max_depth"]) == (50, 81, 81)


@real
def test_4_2_names_where_the_save_stores_names(save42: BlockSave) -> None:
    stores = save42.stores
    assert stores is not None and len(stores.stores) == 8
    monsters = next(b for b in save42.blocks if isinstance(b, world.Monsters))
    assert monsters.cave is not None and all(m.race for m in monsters.cave.monsters)
    memory = next(b for b in save42.blocks if block.block_name(b) == "monster memory")
    assert memory.races[0].race == "village idiot"  # type: ignore[union-attr]
    history = save42.history
    assert history is not None
    found = [h for h in history.entries if h.artifact == "'The One Ring'"]
    assert [h.event for h in found] == ["Found the Ring of Power 'The One Ring'"]
    home = stores.stores[-1].stock
    assert home and all(s.item.sval for s in home)


@real
def test_info_cli_text_and_json() -> None:
    out = subprocess.run([sys.executable, "-m", "savecraft", "info", str(V42)], capture_output=True,
                         text=True, check=True).stdout
    assert "character: Aduial, L50 High-Elf Paladin, at DL81" in out
    assert "gold: 672848" in out and "class: Paladin" in out
    doc = json.loads(subprocess.run([sys.executable, "-m", "savecraft", "info", "--json", str(V42)],
                                    capture_output=True, check=True).stdout)
    assert doc["name"] == "Aduial" and doc["level"] == 50 and doc["gold"] == 672848
    assert doc["experience"] == {"current": 6873062, "max": 6873062}
    assert doc["hit_points"] == {"current": 1033, "max": 1033}
    assert doc["spell_points"] == {"current": 368, "max": 368}
    assert doc["turns"] == 1395205 and doc["depth"] == 81


# -- edits ---------------------------------------------------------------------------------


def _edited(data: bytes, changes: dict[str, object]) -> tuple[BlockSave, list[tuple[str, object, object]]]:
    result = edit.edit_bytes(data, changes)
    new = result.data
    # checksums and sizes of every block hold; nothing outside the edited blocks moved
    for start, _, _, size, checksum in blocks_of(new):
        assert sum(new[start + 28:start + 28 + size]) % 2**32 == checksum
    assert api.validate(new).ok
    changed = [(c.path, c.old, c.new) for c in diff.diff_bytes(data, new).changes]
    return api.parse(new), changed


@real
def test_edit_gold(v42: bytes) -> None:
    save, changed = _edited(v42, {"player.au": 1_000_000})
    assert save.player is not None and save.player.au == 1_000_000
    assert changed == [("player.au", 672848, 1_000_000)]
    assert len(api.build(save)) == len(v42)


@real
def test_edit_experience_raises_max(v42: bytes) -> None:
    save, changed = _edited(v42, {"player.experience": 7_000_000})
    assert save.player is not None and (save.player.exp, save.player.max_exp) == (7_000_000,) * 2
    assert changed == [("player.max_exp", 6873062, 7_000_000),
                       ("player.exp", 6873062, 7_000_000)]
    # drained: the maximum stays, the level follows the experience down as the game's
    # adjust_level does (4,350,000 = player_exp[45] x expfact 145%: level 47), and the menu line
    _, changed = _edited(v42, {"player.exp": 5_000_000})
    assert changed == [("description.level", 50, 47), ("player.exp", 6873062, 5_000_000),
                       ("player.lev", 50, 47)]


@real
def test_edit_stat(v42: bytes) -> None:
    save, changed = _edited(v42, {"player.stat_cur[1]": 100})
    assert save.player is not None and save.player.stat_cur[1] == 100
    assert changed == [("player.stat_cur[1]", 118, 100)]


@real
def test_edit_hit_and_spell_points(v42: bytes) -> None:
    _, changed = _edited(v42, {"player.chp": 1000})
    assert changed == [("player.chp", 1033, 1000)]
    _, changed = _edited(v42, {"player.csp": 10})
    assert changed == [("player.csp", 368, 10)]


@real
def test_edit_item_quantity_and_inscription(v42: bytes) -> None:
    save, changed = _edited(v42, {"gear.items[3].quantity": 9})
    assert save.gear is not None and save.gear.items[3].item.number == 9
    assert changed == [("gear.items[3].item.number", 1, 9),
                       ("gear.items[3].known.number", 1, 9)]
    save, changed = _edited(v42, {"gear.items[3].note": "@q1"})
    assert save.gear is not None and save.gear.items[3].name.endswith("{@q1}")
    assert changed == [("gear.items[3].item.inscription", "", "@q1"),
                       ("gear.items[3].known.inscription", "", "@q1")]


@real
def test_description_follows_name_and_level(v42: bytes) -> None:
    save, changed = _edited(v42, {"player.full_name": "Brand", "player.lev": 49})
    assert save.description is not None
    assert save.description.line == "Brand, L49 High-Elf Paladin, at DL81"
    assert sorted(changed) == sorted([
        ("description.name", "Aduial", "Brand"), ("description.level", 50, 49),
        ("player.full_name", "Aduial", "Brand"), ("player.lev", 50, 49),
        # the experience follows into level 49's range, as the game's adjust_level keeps it:
        # one point below 4,500,000 (player_exp[48]) x expfact 145%
        ("player.exp", 6873062, 6524999)])


@real
@pytest.mark.parametrize("changes, path", [
    ({"player.lev": 51}, "player.lev"),  # load.c rd_player: "Invalid player level"
    ({"gear.items[3].note": "x" * 128}, "gear.items[3].item.inscription"),  # rd_string's buffer
    ({"player.au": 2**31}, "player.au"),  # does not fit the s32 the game stores
    ({"gear.items[3].quantity": 256}, "gear.items[3].item.number"),  # nor the byte
])
def test_edits_the_game_would_refuse(v42: bytes, changes: dict[str, object], path: str) -> None:
    with pytest.raises(FormatError) as err:
        edit.edit_bytes(v42, changes)
    assert err.value.path == path


@real
@pytest.mark.parametrize("changes", [
    {"player.chp": 1034}, {"player.chp": -1}, {"player.csp": -1}, {"player.stat_max[0]": 119},
    {"player.stat_cur[0]": 2}, {"player.exp": 7_000_000}, {"player.au": -5},
    {"gear.items[3].quantity": 0}, {"gear.items[3].quantity": 41},
    {"gear.items[3].known.number": 7},
])
def test_values_the_game_loads_are_no_problem(v42: bytes, changes: dict[str, object]) -> None:
    """4.2's loader (rd_player, rd_item) checks none of these: a dead character has hit points
    below zero, a drained one experience above... the game is the judge, so they validate."""
    result = api.validate(edit.edit_bytes(v42, changes).data)
    assert result.ok, result.problems


@real
def test_raw_player_block_cannot_be_replaced(v42: bytes) -> None:
    with pytest.raises(PathError):
        edit.edit_bytes(v42, {"blocks[name=player].data": "AAAA"}, text=True)
    save = api.parse(v42)
    i = next(i for i, b in enumerate(save.blocks) if block.block_name(b) == "player")
    save.blocks[i] = RawBlock("player", 1, b"\0\0\0")  # a hand-made dump with the block raw
    data = api.build(save)
    result = api.validate(data)
    assert not result.ok and any(p.path == f"blocks[{i}]" for p in result.problems)


# -- damaged and odd files -----------------------------------------------------------------


def test_empty_description_block_is_kept_byte_exact() -> None:
    data = b"SaveVNLA" + b"description".ljust(16, b"\0") + struct.pack("<III", 1, 0, 0)
    save = block.parse(data, Report(strict=False))
    assert save.blocks == [RawBlock("description", 1, b"")]
    assert block.build(save) == data


def test_a_file_of_zeros_is_one_problem_and_fast() -> None:
    data = b"SaveVNLA" + bytes(16 * 2**20 - 8)
    t = time.perf_counter()
    result = api.validate(data)
    assert time.perf_counter() - t < 2
    assert [(p.offset, p.path) for p in result.problems] == [(8, "blocks[0].name")]
    assert "16777208 bytes from here are kept unread" in result.problems[0].found
    assert block.build(result.model) == data


@real_samples
def test_truncated_sample_reports_the_offset_and_keeps_what_it_read() -> None:
    data = TRUNCATED.read_bytes()
    result = api.validate(data)
    assert [(p.offset, p.path) for p in result.problems] == [(0xF6C, "blocks[7].data")]
    assert [block.block_name(b) for b in result.model.blocks] == [
        "description", "rng", "options", "messages", "monster memory", "object memory", "quests"]
    with pytest.raises(FormatError) as err:
        api.parse(data)
    assert err.value.offset == 0xF6C


@real
def test_pwmangband_sniffs_and_round_trips() -> None:
    data = PWM.read_bytes()
    assert registry.detect(data).name == "angband-block"
    save = api.parse(data)
    assert save.variant == "PWMG" and save.magic == bytes([1, 3, 0, 1])
    assert save.header is not None
    assert (save.header.full_name, save.header.race, save.header.character_class) == \
        ("Archy", "Dunadan", "Archer")
    assert save.description is not None
    assert save.description.line == "Builder, L6 Dunadan Archer, at DL0"
    assert api.build(save) == data


@real
def test_pwmangband_blocks_decoded() -> None:
    save = api.parse(PWM.read_bytes())
    assert not [b.name for b in save.blocks if isinstance(b, RawBlock)]  # test_angband_pwm: the values
    sheet = block.info(save)
    assert (sheet["name"], sheet["race"], sheet["class"], sheet["level"]) == ("Archy", "Dunadan", "Archer", 6)
    assert (sheet["gold"], sheet["hit_points"], sheet["max_depth"]) == (404, {"current": 59, "max": 59}, 2)
    assert sheet["experience"] == {"current": 197, "max": 197}


@real
def test_pwmangband_gold_and_experience_edits() -> None:
    data = PWM.read_bytes()
    _, changed = _edited(data, {"player.au": 5000, "player.experience": 300})
    assert changed == [("player.au", 404, 5000),
                       ("player.max_exp", 197, 300), ("player.exp", 197, 300)]
    # above the maximum: PWMAngband's rd_player does not check it, so neither does savecraft
    assert api.validate(edit.edit_bytes(data, {"player.chp": 60}).data).ok


def test_pwmg_header_needs_a_block_after_it() -> None:
    assert not block.sniff(b"\1\3\0\1PWMG" + bytes(40))
    good = b"\1\3\0\1PWMG" + b"header".ljust(16, b"\0") + struct.pack("<III", 1, 2, 3) + b"ab\0\0"
    assert block.sniff(good)


def test_description_model_is_never_keyed_by_the_character_name() -> None:
    assert Description.KEY == ""


@real
def test_fast_and_checked_item_paths_agree(v42: bytes, save42: BlockSave) -> None:
    from savecraft.binary import Reader, Writer
    from savecraft.formats.angband.layouts import Context, items

    ctx = Context()
    memory = next(b for b in save42.blocks if block.block_name(b) == "object memory")
    for name in ("of_size", "obj_mod_max", "elem_max", "brand_max", "slay_max", "curse_max"):
        ctx.set(name, getattr(memory, name), "object memory")
    start, _, _, size, _ = next(b for b in blocks_of(v42) if b[1] == "stores")
    r = Reader(v42, start + 28 + 4, start + 28 + size)  # past the count, owner and stock size
    at = start + 28 + 4
    fast, end_fast = items.OBJECT._compile()[0](v42, at, r.end, ctx)  # the generated fast reader
    checked = items.OBJECT.checked_only(r, ctx, "x")
    assert checked == fast and r.pos == end_fast
    from savecraft.layout import native

    program = native.program_of(items.OBJECT)  # the C program derived from the description
    if program is not None:
        assert program.read_one(v42, at, r.end, ctx) == (fast, end_fast)
        assert program.write_one(fast, ctx) == v42[at:end_fast]
    w = Writer()
    items.OBJECT.checked_write_fn(fast, w, ctx, "x.")
    parts: list[bytes] = []
    items.OBJECT._compile()[2](fast, parts.append, ctx)
    assert w.getvalue() == b"".join(parts) == v42[at:end_fast]


def test_the_documented_layout_example_runs(tmp_path: Path) -> None:
    """In a process of its own: the layout it registers (a 'DEMO' game whose player block is
    only gold) must not stay registered for the tests that walk every layout."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "angband.md").read_text()
    example = next(part.split("```", 1)[0] for part in text.split("```python\n")[1:]
                   if "register_layout" in part)
    script = tmp_path / "angband_doc_example.py"
    script.write_text(example + "\nfrom savecraft.formats.angband.layouts import layouts_for\n"
                      "assert layouts_for('DEMO', 'player', 1)[0].game == 'Demo 1.0'\n")
    res = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert not layouts_for("DEMO", "player", 1)  # nothing registered here


@real
def test_the_documented_edit_and_diff_run(tmp_path: Path) -> None:
    out = tmp_path / "rich.sav"
    run = [sys.executable, "-m", "savecraft"]
    subprocess.run([*run, "edit", str(V42), "--set", "player.au=1000000", "-o", str(out)], check=True,
                   capture_output=True)
    shown = subprocess.run([*run, "diff", str(V42), str(out)], check=False, capture_output=True,
                           text=True).stdout
    assert shown.strip() == "player.au: 672848 -> 1000000  (player-4.2 name=player)"


@real
def test_description_that_does_not_match_the_player_is_kept(v42: bytes) -> None:
    save = api.parse(v42)
    assert save.description is not None and save.description.from_player
    save.description.rest = ", in the Town"
    save.description.from_player = False
    data = api.build(save)
    assert api.parse(data).description.line == "Aduial, L50 High-Elf Paladin, in the Town"
    with pytest.raises(FormatError):  # in a 4.2 file the line follows the player: edit the player
        edit.edit_bytes(v42, {"blocks[0].level": 13})


def _grown(v42: bytes, name: str) -> bytes:
    """The file with one byte appended to block ``name`` (sizes and checksums kept right)."""
    start, _, version, size, _ = next(b for b in blocks_of(v42) if b[1] == name)
    body = v42[start + 28:start + 28 + size] + b"\x07"
    head = v42[:start] + name.encode().ljust(16, b"\0") + struct.pack("<III", version, len(body), sum(body))
    return head + body + b"x" * (-len(body) % 4) + v42[start + 28 + size + (-size % 4):]


@real
def test_a_block_that_needs_a_raw_block_stays_raw(v42: bytes) -> None:
    data = _grown(v42, "dungeon")  # read to the end, then a byte too many: stays raw
    save = block.parse(data, Report(strict=False))
    names = {block.block_name(b): b for b in save.blocks}
    assert isinstance(names["dungeon"], RawBlock)
    chunks = names["chunks"]
    assert isinstance(chunks, RawBlock) and "square_size" in chunks.reason
    assert block.build(save) == data


@real
def test_a_failed_block_leaves_no_sizes_behind(v42: bytes) -> None:
    start, _, _, size, _ = next(b for b in blocks_of(v42) if b[1] == "object memory")
    data = bytearray(v42)
    data[start + 28 + 6] = 1  # curse_max 12 -> 1: misc then has 11 bytes too many
    struct.pack_into("<I", data, start + 24, sum(data[start + 28:start + 28 + size]) % 2**32)
    save = block.parse(bytes(data), Report(strict=False))
    names = {block.block_name(b): b for b in save.blocks}
    assert isinstance(names["misc"], RawBlock)
    for needs_misc in ("dungeon", "objects", "monsters", "traps", "chunks"):
        assert isinstance(names[needs_misc], RawBlock), needs_misc
    assert block.build(save) == bytes(data)


@real_samples
@pytest.mark.parametrize("seed", range(3))
def test_damaged_4_2_blocks_never_crash_and_round_trip(v42: bytes, seed: int) -> None:
    import random

    rng = random.Random(seed)
    blocks = blocks_of(v42)
    for _ in range(40):
        data = bytearray(v42)
        start, _, _, size, _ = rng.choice(blocks)
        for _ in range(rng.randint(1, 4)):
            data[start + 28 + rng.randrange(size)] = rng.choice([0, 1, 0xFF, rng.randrange(256)])
        struct.pack_into("<I", data, start + 24, sum(data[start + 28:start + 28 + size]) % 2**32)
        save = block.parse(bytes(data), Report(strict=False))
        assert block.build(save) == bytes(data)


@real
def test_stored_counts_are_checked_against_the_bytes_left(v42: bytes) -> None:
    start, _, _, size, _ = next(b for b in blocks_of(v42) if b[1] == "monsters")
    data = bytearray(v42)
    struct.pack_into("<H", data, start + 28, 60000)  # the level's monster count
    struct.pack_into("<I", data, start + 24, sum(data[start + 28:start + 28 + size]) % 2**32)
    report = Report(strict=False)
    block.parse(bytes(data), report)
    p = next(p for p in report.problems if p.path.startswith("blocks[17]"))
    assert (p.offset, p.path) == (start + 30, "blocks[17].cave.monsters")
    assert p.found == "a count of 59999"


@real
@pytest.mark.parametrize("path", ALL_REAL, ids=lambda p: p.name)
def test_info_json_follows_the_convention(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from savecraft.cli import main

    from tests.cli.info_convention import check_info

    assert main(["info", "--json", str(path)]) == 0
    doc = json.loads(capsys.readouterr().out)
    check_info(doc)  # docs/info-json.md
    assert doc["format"] == "angband-block" and isinstance(doc["variant"], str)
    assert all(isinstance(b["decoded"], bool) and isinstance(b["version"], int) for b in doc["blocks"])
    assert [b["name"] for b in doc["blocks"] if not b["decoded"]] == [b["name"] for b in doc["not_decoded"]]
    if path == V42:
        assert (doc["game"], doc["trailing_bytes"]) == ("Vanilla 4.2", 0)
        assert doc["variant_name"].startswith("Vanilla Angband (or a game that writes its id")


def test_the_smallest_object_record_is_min_item() -> None:
    from savecraft.binary import Writer
    from savecraft.formats.angband.layouts import Context, items

    ctx = Context()
    for name in ("of_size", "obj_mod_max", "elem_max", "brand_max", "slay_max", "curse_max"):
        ctx.set(name, 0, "object memory")
    w = Writer()
    items.write_item(items.Item(), w, ctx, "x")
    assert len(w) == items.OBJECT.min_size == 49  # rd_item's fixed fields and 6 empty strings
