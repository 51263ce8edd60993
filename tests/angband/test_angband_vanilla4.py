"""Vanilla Angband 4.1 and 4.2.x: files the games wrote (built from source, see the READMEs in
tests/data/angband-built/), read as the release that wrote them, held against what the game
showed, and byte for byte through every way out (build, dump/build, extract/build); and 8-bit
text in a real 4.2 file."""

from __future__ import annotations

import json
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from savecraft import api, jsonmap, registry
from savecraft.errors import Report
from savecraft.formats.angband import block
from savecraft.formats.angband.block import RawBlock
from savecraft.formats.angband.layouts import character, vanilla41, world
from savecraft.layout import EightBitText

from tests.samples import SAMPLES, real_samples

from .support import block_span, replace_block

BUILT = Path(__file__).parents[1] / "data" / "angband-built"
V420 = BUILT / "vanilla-4.2.0"
V425 = BUILT / "vanilla-4.2.5"
V413 = BUILT / "vanilla-4.1.3"
V426 = BUILT / "vanilla-4.2.6"
FILES = sorted(BUILT.glob("vanilla-4.[12]*/*.sav"))
PERSISTENT = sorted(V425.glob("Persa-*.sav"))
V42 = SAMPLES / "angband-block-variants" / "vanilla-4.2_Aduial.sav"


def _info(path: Path) -> dict:  # type: ignore[type-arg]
    out = subprocess.run([sys.executable, "-m", "savecraft", "info", "--json", str(path)],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)  # type: ignore[no-any-return]


def test_every_built_file_is_tested() -> None:
    assert len(FILES) == 12 and len(PERSISTENT) == 2
    for folder in (V420, V425, V413, BUILT / "vanilla-4.1.0", V426):
        assert (folder / "README.md").exists()


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_block_decodes_and_rebuilds_byte_for_byte(path: Path) -> None:
    data = path.read_bytes()
    assert registry.detect(data).name == "angband-block"
    report = Report(strict=False)
    save = block.parse(data, report, verify=True)
    assert report.problems == []
    assert not [b for b in save.blocks if isinstance(b, RawBlock)]
    assert len(save.blocks) == 21
    assert block.build(save) == data
    assert block.build(jsonmap.loads(jsonmap.dumps(save))) == data
    assert api.validate(data).ok


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_command_line_validates_and_rebuilds_it(path: Path, tmp_path: Path) -> None:
    run = [sys.executable, "-m", "savecraft"]
    ok = subprocess.run(run + ["validate", str(path)], capture_output=True, text=True)
    assert ok.returncode == 0 and ok.stderr == ""
    subprocess.run(run + ["dump", str(path), "-o", str(tmp_path / "d.json")], check=True,
                   capture_output=True)
    subprocess.run(run + ["build", str(tmp_path / "d.json"), "-o", str(tmp_path / "d.sav")],
                   check=True, capture_output=True)
    assert (tmp_path / "d.sav").read_bytes() == path.read_bytes()
    subprocess.run(run + ["extract", str(path), "-o", str(tmp_path / "x")], check=True,
                   capture_output=True)
    subprocess.run(run + ["build", str(tmp_path / "x"), "-o", str(tmp_path / "x.sav")],
                   check=True, capture_output=True)
    assert (tmp_path / "x.sav").read_bytes() == path.read_bytes()


# What the game's character screen, equipment and inventory showed (the READMEs).
SHOWN = {
    "vanilla-4.2.0/Borin": dict(name="Borin", race="Dwarf", cls="Priest", gold=97, hp=14, sp=2,
                                turns=81, self_stats=[17, 10, 16, 10, 16],
                                equipment=["weapon: Mace", "light: Wooden Torch"],
                                pack=["[Novice's Handbook]", "Ration of Food",
                                      "2 x Potion of Cure Serious Wounds", "Scroll of Word of Recall"]),
    "vanilla-4.2.5/AldaAlda": dict(name="AldaAlda", race="Human", cls="Warrior", gold=146, hp=20, sp=0,
                                   turns=31, self_stats=[17, 10, 10, 16, 16],
                                   equipment=["weapon: Dagger", "light: Wooden Torch",
                                              "body: Soft Leather Armour"],
                                   pack=["Ration of Food", "Potion of Berserk Strength",
                                         "Scroll of Word of Recall", "Wooden Torch"]),
    # 4.2.6's Q retires the character: dead, "Retiring", and its exit screen says "You have retired"
    "vanilla-4.2.6/Morwen": dict(name="Morwen", race="Human", cls="Warrior", gold=140, hp=20, sp=0,
                                 turns=51, self_stats=[17, 10, 10, 16, 16], cause="Retiring",
                                 equipment=["weapon: Dagger", "light: Wooden Torch",
                                            "body: Soft Leather Armour"],
                                 pack=["3 x Ration of Food", "Potion of Berserk Strength",
                                       "Scroll of Word of Recall", "Wooden Torch"]),
    "vanilla-4.1.0/Elwing": dict(name="ElwingElwing", race="Dwarf", cls="Priest", gold=91, hp=13, sp=2,
                                 turns=51, self_stats=[17, 10, 16, 16, 10],
                                 equipment=["weapon: Mace", "light: Wooden Torch"],
                                 pack=["[Beginners Handbook]", "Ration of Food",
                                       "2 x Potion of Cure Serious Wounds", "Scroll of Word of Recall",
                                       "Wooden Torch"]),
    "vanilla-4.1.3/Celebrin": dict(name="Celebrin", race="Elf", cls="Mage", gold=372, hp=9, sp=2,
                                   turns=81, self_stats=[17, 16, 10, 16, 10],
                                   equipment=["weapon: Dagger", "light: Wooden Torch"],
                                   pack=["[Magic for Beginners]", "2 x Ration of Food",
                                         "Scroll of Word of Recall"]),
}


@pytest.mark.parametrize("path", [p for p in FILES if p not in PERSISTENT],
                         ids=lambda p: f"{p.parent.name}/{p.name}")
def test_info_reads_what_the_game_showed(path: Path) -> None:
    shown = SHOWN[f"{path.parent.name}/{path.stem.rsplit('-', 1)[0]}"]
    doc = _info(path)
    assert (doc["name"], doc["race"], doc["class"], doc["level"]) == \
        (shown["name"], shown["race"], shown["cls"], 1)
    assert doc["gold"] == shown["gold"] and doc["turns"] == shown["turns"]
    assert doc["hit_points"] == {"current": shown["hp"], "max": shown["hp"]}
    assert doc["spell_points"] == {"current": shown["sp"], "max": shown["sp"]}
    assert [doc["stats"][s]["max"] for s in ("str", "int", "wis", "dex", "con")] == shown["self_stats"]
    assert doc["experience"] == {"current": 0, "max": 0} and doc["depth"] == 0
    assert doc["equipment"] == shown["equipment"]
    for thing in shown["pack"]:
        assert any(thing in line for line in doc["inventory"]), thing
    assert len(doc["inventory"]) == len(shown["pack"])
    assert doc["not_decoded"] == [] and doc["trailing_bytes"] == 0
    if path.stem.endswith("-dead"):
        cause = shown.get("cause", "Quitting")
        # (the game's exit screen: "You have retired" for 4.2.6's retire command, else "slain")
        assert (doc["state"], doc["dead"]) == ("retired" if cause == "Retiring" else "dead", cause)
        assert doc["character"] == f"{shown['name']}, dead ({cause})"  # the game's own line
    else:
        assert doc["state"] == "alive"
        assert doc["character"] == f"{shown['name']}, L1 {shown['race']} {shown['cls']}, at DL0"


# -- which game and release --------------------------------------------------------------------


def test_each_file_is_read_as_the_release_that_wrote_it() -> None:
    for path in V420.glob("*.sav"):
        doc = _info(path)
        assert doc["game"] == "Vanilla 4.2"
        assert "read as Vanilla 4.2.0: it stores 52 timed effects" in doc["game_reason"]
    for path in V425.glob("*.sav"):  # nothing a new 4.2.5 character stores is 4.2.5's alone
        doc = _info(path)
        assert doc["game"] == "Vanilla 4.2"
        assert "read as Vanilla 4.2.1-4.2.6: it stores 53 timed effects" in doc["game_reason"]
    for path in V426.glob("*.sav"):  # 4.2.6 writes what 4.2.5 writes: the range, not a release
        doc = _info(path)
        assert doc["game"] == "Vanilla 4.2"
        assert "read as Vanilla 4.2.1-4.2.6: it stores 53 timed effects" in doc["game_reason"]
    for path in V413.glob("*.sav"):
        doc = _info(path)
        assert doc["game"] == "Vanilla 4.1"
        assert "read as Vanilla 4.1.0-4.1.3: it stores 32 timed effects" in doc["game_reason"]


def _player_with(data: bytes, offset_from_timed: int, value: int) -> bytes:
    """The file with one byte of the player block's "more info" set (counted back from the
    timed effects count)."""
    start, size = block_span(data, "player")
    body = bytearray(data[start + 28:start + 28 + size])
    p = block.parse(data, Report(strict=False)).player
    assert p is not None
    count_at = size - (1 + 2 * len(p.timed) + 4 + 4 + 32)  # the timed count byte
    body[count_at - offset_from_timed] = value
    return replace_block(data, "player", bytes(body))


def test_the_bytes_later_releases_fill_narrow_the_release() -> None:
    data = (V425 / "AldaAlda-alive.sav").read_bytes()
    # 4.2.x "more info": old_y, old_x, 4 bytes, skip_cmd_coercion, unignoring, deep_descent (2),
    # energy (2), word_recall (2), then the timed count: old_y is 14 bytes before it, and
    # skip_cmd_coercion 8.
    old_y = _player_with(data, 14, 5)
    save = block.parse(old_y, Report(strict=False))
    assert save.player is not None and save.player.old_y == 5
    assert "read as Vanilla 4.2.4-4.2.6: " in save.game_reason and "old grid is stored" in save.game_reason
    skip = _player_with(data, 8, 1)
    save = block.parse(skip, Report(strict=False))
    assert save.player is not None and save.player.unused_more[4] == 1
    assert "read as Vanilla 4.2.5-4.2.6: " in save.game_reason and "skip_cmd_coercion" in save.game_reason
    assert block.build(save) == skip


def test_release_is_what_the_player_block_says() -> None:
    p = character.Player(timed=[0] * 52, unused_more=b"\0" * 5)
    assert character.release(p)[0] == "4.2.0"
    p.timed = [0] * 53
    assert character.release(p)[0] == "4.2.1-4.2.6"
    p.old_x = 3
    assert character.release(p)[0] == "4.2.4-4.2.6"
    p.unused_more = b"\0\0\0\0\1"
    assert character.release(p)[0] == "4.2.5-4.2.6"
    p.timed = [0] * 40
    assert character.release(p) == ("4.2", "it stores 40 timed effects, which no 4.2 release writes "
                                            "(4.2.0 writes 52, 4.2.1-4.2.6 write 53)")


def test_4_1_and_4_2_layouts_do_not_take_each_other_s_files() -> None:
    p41 = (V413 / "Celebrin-alive.sav").read_bytes()
    p42 = (V425 / "AldaAlda-alive.sav").read_bytes()
    r41 = block.parse(p41, Report(strict=False))
    assert r41.game == "Vanilla 4.1" and isinstance(r41.player, vanilla41.Player)
    assert r41.player.food > 0 and r41.player.shape == "" and len(r41.player.timed) == 32
    r42 = block.parse(p42, Report(strict=False))
    assert r42.game == "Vanilla 4.2" and type(r42.player) is character.Player
    assert r42.player.shape == "normal"


@real_samples
def test_the_real_samples_are_read_as_before() -> None:
    expect = {"vanilla-4.2_Aduial.sav": "Vanilla 4.2", "angband_4.2.1_Maxwell-ada4e7b-dead.sav": "Vanilla 4.2",
              "angband_4.2.2+_Lorenz.sav": "Vanilla 4.2", "vanilla-4.0.1_Mage.sav": "Vanilla 4.0",
              "angband_4.0.2_Varis-2a7034d.sav": "Vanilla 4.0",
              "anquestria-3.2_PLAYER.sav": "Anquestria (Angband 3.x)"}
    for name, game in expect.items():
        path = next(SAMPLES.glob(f"*/{name}"))
        save = block.parse(path.read_bytes(), Report(strict=False))
        assert save.game == game, name
        assert not [b for b in save.blocks if isinstance(b, RawBlock)], name
    aduial = block.parse(V42.read_bytes(), Report(strict=False))
    assert "read as Vanilla 4.2.1-4.2.6" in aduial.game_reason  # its character dump says 4.2.1


def test_a_dead_4_1_character_has_no_level() -> None:
    save = block.parse((V413 / "Celebrin-dead.sav").read_bytes(), Report(strict=False))
    assert save.misc is not None and save.misc.is_dead == 1
    assert save.dungeon is not None and save.dungeon.cave is None
    chunks = next(b for b in save.blocks if isinstance(b, vanilla41.Chunks))
    assert chunks.chunks is None
    alive = block.parse((V413 / "Celebrin-alive.sav").read_bytes(), Report(strict=False))
    monsters = next(b for b in alive.blocks if isinstance(b, vanilla41.Monsters))
    assert monsters.cave is not None and monsters.cave.monsters  # the town's people
    assert all(m.race for m in monsters.cave.monsters)


# -- 8-bit text --------------------------------------------------------------------------------


@real_samples
def test_a_latin1_name_and_message_keep_their_blocks_decoded_and_their_bytes() -> None:
    data = V42.read_bytes()
    start, size = block_span(data, "player")
    body = data[start + 28:start + 28 + size]
    changed = replace_block(data, "player", body.replace(b"Aduial\0", b"Ad\xe9ial\0", 1))
    start, size = block_span(changed, "messages")
    msgs = changed[start + 28:start + 28 + size]
    assert b"You " in msgs
    changed = replace_block(changed, "messages", msgs.replace(b"You ", b"Y\xf6u ", 1))
    report = Report(strict=False)
    save = block.parse(changed, report, verify=True)
    assert report.problems == []
    assert not [b for b in save.blocks if isinstance(b, RawBlock)]  # raw before the change
    assert save.player is not None and save.player.full_name == "Ad\u00e9ial"
    assert isinstance(save.player.full_name, EightBitText)
    messages = next(b for b in save.blocks if isinstance(b, character.Messages))
    latin = [m.text for m in messages.messages if isinstance(m.text, EightBitText)]
    assert len(latin) == 1 and latin[0].startswith("Y\u00f6u ")
    assert all(type(m.text) is str for m in messages.messages if m.text is not latin[0])
    assert block.build(save) == changed
    assert block.info(save)["name"] == "Ad\u00e9ial"
    # a dump keeps which text was 8-bit, so dump/build is byte for byte too
    text = jsonmap.dumps(save)
    assert b'"eight_bit": "latin-1"' in text
    back = jsonmap.loads(text)
    assert isinstance(back.player.full_name, EightBitText) and block.build(back) == changed


@real_samples
def test_8bit_text_survives_dump_build_and_extract_build(tmp_path: Path) -> None:
    data = V42.read_bytes()
    start, size = block_span(data, "player")
    body = data[start + 28:start + 28 + size]
    changed = replace_block(data, "player", body.replace(b"Aduial\0", b"Ad\xe9ial\0", 1))
    (tmp_path / "in.sav").write_bytes(changed)
    run = [sys.executable, "-m", "savecraft"]
    for args in (["dump", "in.sav", "-o", "d.json"], ["build", "d.json", "-o", "d.sav"],
                 ["extract", "in.sav", "-o", "x"], ["build", "x", "-o", "x.sav"]):
        subprocess.run(run + args, cwd=tmp_path, check=True, capture_output=True)
    assert (tmp_path / "d.sav").read_bytes() == changed
    assert (tmp_path / "x.sav").read_bytes() == changed
    player = json.loads(next((tmp_path / "x").glob("*-player.json")).read_text())
    assert player["full_name"] == {"text": "Ad\u00e9ial", "eight_bit": "latin-1"}


def test_player_block_stored_sizes_are_the_game_s() -> None:
    data = (V420 / "Borin-alive.sav").read_bytes()
    start, size = block_span(data, "player")
    count_at = size - (4 + 4 + 32) - 2 * 52 - 1
    assert data[start + 28 + count_at] == 52
    assert struct.unpack_from("<I", data, start + 20)[0] == size


def test_a_4_1_character_is_edited_through_the_common_paths(tmp_path: Path) -> None:
    src, out = V413 / "Celebrin-alive.sav", tmp_path / "edited.sav"
    subprocess.run([sys.executable, "-m", "savecraft", "edit", str(src), "--set", "player.au=5000",
                    "--set", "player.full_name=Celebrinn", "--set", "gear.items[0].quantity=1",
                    "-o", str(out)], check=True, capture_output=True)
    doc = _info(out)
    assert (doc["gold"], doc["name"], doc["character"]) == (5000, "Celebrinn", "Celebrinn, L1 Elf Mage, at DL0")
    assert doc["game"] == "Vanilla 4.1" and doc["not_decoded"] == []
    assert api.validate(out.read_bytes()).ok


def test_persistent_levels_keep_each_level_s_record() -> None:
    """birth_levels_persist: the chunks carry their level's record, with f_max + 1 (4.2.5:
    FEAT_MAX + 1) feature counts, which the file does not store: the stock 26 is right when
    the counts of the real level add up to its squares."""
    on_dl1, in_town = (block.parse(p.read_bytes(), Report(strict=True), verify=True) for p in PERSISTENT)
    for save in (on_dl1, in_town):
        options = next(b for b in save.blocks if isinstance(b, character.Options))
        assert options.options["birth_levels_persist"] == 1
        assert save.dungeon is not None and save.dungeon.cave is not None
        assert save.dungeon.cave.connectors is not None  # the level's stairs, for persistence
    assert on_dl1.dungeon is not None and on_dl1.dungeon.depth == 1
    assert in_town.dungeon is not None and in_town.dungeon.depth == 0
    for save, kept, depth in ((on_dl1, "Town", 0), (in_town, "Angband 1", 1)):
        chunks = next(b for b in save.blocks if isinstance(b, world.Chunks))
        assert chunks.chunks is not None
        real, known = chunks.chunks
        assert real.info is not None and known.info is not None
        assert (real.info.name, known.info.name, real.info.depth) == (kept, f"{kept} known", depth)
        assert len(real.info.feat_count) == 26
        assert sum(real.info.feat_count) == real.info.height * real.info.width > 0
