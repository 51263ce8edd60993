"""One vocabulary of paths: dump, edit, diff, validate and messages name a value the same way.

The invariants, per registered format:

* every change ``diff`` reports between a file and an edited copy names, with
  :func:`savecraft.paths.resolve`, the new value (the old one for a removed
  record), and that path is already canonical;
* every problem ``validate`` reports names a value of the model, or bytes of
  a record the model holds that the model does not keep (a block's checksum,
  padding, a count, the file's CRC), or a record that could not be read;
* records are matched by what a person calls them: a TirNanoG game's
  records by the names their string references resolve to, an Angband
  save's description block as that block whatever the character is called.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from savecraft import api, diff, edit, jsonmap, paths
from savecraft.errors import FormatError, Report
from savecraft.formats.angband import sample as angband_sample
from savecraft.formats.qfg5 import sample as qfg5_sample
from savecraft.formats.tirnanog.game import sample as game_sample
from savecraft.formats.tirnanog.save.model import SaveGame
from savecraft.formats.tirnanog.save.sample import make_user, player_save, server_save
from savecraft.paths import Attr, Index, PathError, parse_path, resolve, same_value
from tests import samples


def real_angband(variants: bool = False) -> bytes | None:
    samples.require()  # the test is skipped (or fails, when they are required) without them
    folder = samples.SAMPLES
    if variants:  # a Vanilla 4.2 file: its player and gear blocks are decoded
        files = sorted((folder / "angband-block-variants").glob("vanilla-4.2_*.sav"))
    else:
        files = sorted((folder / "angband-block").glob("*.sav"))
    return files[0].read_bytes() if files else None


@pytest.fixture(scope="module")
def game() -> bytes:
    return game_sample.build_sample_game()


# -- edits per format: (original bytes, change the model) -----------------------------------


def _server_edit(save: Any) -> None:
    save.users[3].entity.x += 5
    save.globals.values[0] = -5
    save.npcs[1].entity.y += 1
    save.maps[0].tiles[5] = 9
    save.deny.entries.pop(0)
    save.chunks.insert(7, make_user(random.Random(3), "Newcomer"))


def _player_edit(save: Any) -> None:
    save.users[0].name = "Brigid the Bold"  # one USER on each side: the same record, renamed
    save.users[0].entity.inventory[0].quantity += 1


def _game_edit(game: Any) -> None:
    strings = game.strings.strings
    strings[strings.index("gold")] = "gold_coins"
    game.maps.maps[0].asset.value.layers[0, 3, 4] += 1
    game.attributes.free_total_points += 1


def _block_edit(save: Any) -> None:
    from savecraft.formats.angband.block import RawBlock

    save.description.level += 1
    save.description.name += "a"
    # a decoded block's version is its layout's: only a block kept as bytes can change it
    raw = [b for b in save.blocks if isinstance(b, RawBlock)]
    if raw:
        raw[len(raw) // 2].version += 1
    if save.player is not None:  # decoded values, reached through the model's views
        save.player.au += 1
    if save.gear is not None and save.gear.items:
        save.gear.items[-1].quantity += 1  # the object (and 4.2's known copy with it)


def _modular_edit(save: Any) -> None:
    save.description = "Asira, L8 Zebra Priest, in the Town"


def _qfg5_edit(save: Any) -> None:
    from savecraft.formats.qfg5.model import GameObject

    save.inventory[3].amount = 7
    room = next(r for r in save.rooms if len(r.objects) >= 2)
    room.objects.insert(0, GameObject(2, 4999, b"new object"))


EDITS: dict[str, tuple[Callable[[], bytes | None], Callable[[Any], None]]] = {
    "tirnanog-save server": (lambda: api.build(server_save(users=8)), _server_edit),
    "tirnanog-save player": (lambda: api.build(player_save()), _player_edit),
    "tirnanog-game": (game_sample.build_sample_game, _game_edit),
    "angband-block": (lambda: api.build(angband_sample.block_save()), _block_edit),
    "angband-block real file": (real_angband, _block_edit),
    "angband-block real 4.2 file": (lambda: real_angband(variants=True), _block_edit),
    "angband-modular": (lambda: api.build(angband_sample.modular_save()), _modular_edit),
    "qfg5-save": (lambda: api.build(qfg5_sample.qfg5_save()), _qfg5_edit),
}


@pytest.mark.parametrize("name", sorted(EDITS))
def test_every_diff_path_names_its_value_and_edit_accepts_it(name: str) -> None:
    make, change = EDITS[name]
    before = make()
    if before is None:
        pytest.skip("no real Angband sample on this machine (set SAVECRAFT_SAMPLES)")
    model = api.parse(before)
    change(model)
    after = api.build(model)
    result = diff.diff_bytes(before, after)
    assert result.changes, name
    old, new = api.parse(before), api.parse(after)
    for c in result.changes:
        side = old if c.kind == "removed" else new
        where = resolve(side, c.path)
        assert where.path == c.path, "a diff path is canonical"
        if c.kind != "moved":
            assert same_value(where.value, c.old if c.kind == "removed" else c.new), c
        if c.kind == "changed":
            # what diff prints, edit takes, naming the same value: setting it changes nothing
            again = edit.edit_bytes(after, {c.path: c.new})
            assert again.changes[0][0] == c.path and again.data == after, c


# -- matching records by what a person calls them ---------------------------------------------


def test_renaming_one_string_in_a_game_is_that_one_change(game: bytes) -> None:
    model = api.parse(game)
    strings = model.strings.strings
    strings[strings.index("font_main")] = "font_body"  # a string many records are named by
    result = diff.diff_bytes(game, api.build(model))
    lines = result.lines()
    assert lines[0] == '  strings.strings[10]: "font_main" -> "font_body"'
    assert len(lines) == 1, lines  # was 89 lines: every record named after it, every offset


def test_a_renamed_string_that_scripts_use_shows_in_their_text(game: bytes) -> None:
    model = api.parse(game)
    strings = model.strings.strings
    strings[strings.index("hp")] = "hit_points"
    lines = diff.diff_bytes(game, api.build(model)).lines()
    assert lines[0] == '  strings.strings[1]: "hp" -> "hit_points"'
    assert all("hit_points" in line for line in lines), lines  # scripts are text: they name it
    assert not any(line.startswith(("+", "-")) for line in lines), lines
    assert len(lines) <= 3, lines


def test_a_reference_pointed_elsewhere_names_both_strings(game: bytes) -> None:
    model = api.parse(game)
    font = model.strings.find("font_main")
    other = model.strings.find("village")
    entry = model.section(type(model.sections[3])).entries[0]
    assert entry.name == font
    entry.name = other
    changes = diff.diff_bytes(game, api.build(model)).changes
    assert [(c.path, c.old, c.new, c.note) for c in changes] == [
        ("sections[3].entries[0].name", font, other, '"font_main" -> "village"')]


def test_an_angband_description_block_is_one_block_whose_fields_change() -> None:
    # A line of its own (the generated file has no player block): in a real file the line
    # is the player's, so its fields follow player.full_name and player.lev instead.
    data = api.build(angband_sample.block_save())
    save = api.parse(data)
    name, level = save.description.name, save.description.level
    result = edit.edit_bytes(data, {"blocks[kind=description].level": level + 1,
                                    "blocks[kind=description].name": name + "a"})
    changes = diff.diff_bytes(data, result.data).changes
    assert [(c.kind, c.path, c.old, c.new) for c in changes] == [
        ("changed", "description.name", name, name + "a"),
        ("changed", "description.level", level, level + 1),
    ]


@samples.real_samples
def test_a_real_description_follows_its_player_and_refuses_an_edit_of_its_own() -> None:
    data = real_angband()
    assert data is not None
    with pytest.raises(FormatError, match="description.level: expected a value the format stores as set"):
        edit.edit_bytes(data, {"blocks[kind=description].level": 9})
    result = edit.edit_bytes(data, {"player.lev": 9})
    assert api.parse(result.data).description.level == 9


# -- every key a dump shows selects ------------------------------------------------------------


def test_the_kind_a_dump_shows_selects_a_list_item() -> None:
    data = api.build(angband_sample.block_save())
    doc = jsonmap.to_json(api.parse(data))
    assert doc["data"]["blocks"][0]["kind"] == "description"
    result = edit.edit_bytes(data, {"blocks[kind=description].level": 9})
    assert result.changes == [("description.level", 9)]
    assert api.parse(result.data).description.level == 9
    game = api.parse(game_sample.build_sample_game())
    assert resolve(game, "sections[kind=strings].strings[1]").value == "hp"
    assert resolve(game, "sections[kind=strings]").path == "strings"


def test_bytes_keys_select_by_the_text_or_base64_a_dump_shows() -> None:
    from savecraft.formats.tirnanog.save.model import RawChunk

    save = server_save(users=1)
    raw = next(c for c in save.chunks if isinstance(c, RawChunk))
    import base64
    shown = base64.b64encode(raw.magic).decode()
    assert resolve(save, f"chunks[magic={shown}]").value is raw


# -- edit prints the canonical path ---------------------------------------------------------


def test_edit_reports_the_path_dumps_and_diffs_use() -> None:
    data = api.build(server_save(users=3))
    save = api.parse(data)
    k = next(i for i in range(len(save.chunks)) if save.chunks[i] is save.users[1])
    result = edit.edit_bytes(data, {f"chunks[{k}].entity.x": 5, "chunks[1].values[0]": -5,
                                    f"users[name={save.users[2].name}].flags": 1})
    assert [p for p, _ in result.changes] == [
        "users[1].entity.x", "globals.values[0]", "users[2].flags"]
    assert [c.path for c in diff.diff_bytes(data, result.data).changes] == [
        "globals.values[0]", "users[1].entity.x", "users[2].flags"]


def test_a_dump_path_maps_to_the_model_path() -> None:
    save = server_save(users=3)
    doc = jsonmap.to_json(save)
    kinds = [c["kind"] for c in doc["data"]["chunks"]]
    first_user = kinds.index("USER")
    assert paths.from_dump_path(SaveGame, doc["data"], f"data.chunks[{first_user + 1}].entity.x") \
        == "users[1].entity.x"
    deny = kinds.index("DENY")
    assert paths.from_dump_path(SaveGame, doc["data"], f"data.chunks[{deny}].entries[0]") \
        == "deny.entries[0]"
    assert paths.from_dump_path(SaveGame, doc["data"], "data.game_id") == "game_id"
    # a path the document does not hold is only stripped of "data."
    assert paths.from_dump_path(SaveGame, doc["data"], "data.chunks[99].x") == "chunks[99].x"


# -- validate --------------------------------------------------------------------------------


def test_a_truncated_game_says_once_where_it_ends(game: bytes) -> None:
    result = api.validate(game[:3000])
    keys = [(p.offset, p.path, p.expected, p.found) for p in result.problems]
    assert len(keys) == len(set(keys)), "no problem is listed twice"
    ends = [p for p in result.problems if "could not be read" in p.found]
    assert len(ends) == 1 and ends[0].offset == 3000
    assert f"{len(game) - 3000:,} bytes could not be read" in ends[0].found
    assert len(result.problems) <= 4, [str(p) for p in result.problems]  # was 159 lines


def test_report_lists_a_problem_once() -> None:
    report = Report(strict=False)
    for _ in range(3):
        report.error(5, "a.b", "x", "y")
    report.error(None, "a.b", "x", "y")  # the same, without its offset
    report.error(6, "a.b", "x", "y")     # elsewhere: another problem
    assert [(p.offset, p.path) for p in report.problems] == [(5, "a.b"), (6, "a.b")]
    report.ends_early(10, 30, "c", "data")
    report.error(12, "d", "x", "y")      # past the end already reported: follows from it
    report.ends_early(10, 40, "c", "data")
    assert [(p.offset, p.path) for p in report.problems] == [(5, "a.b"), (6, "a.b"), (10, "c")]
    assert report.problems[-1].found == "the end of the data at 0xA: 20 bytes could not be read"


def _server_with_a_twin() -> bytes:
    """A server save (bit flips in its compressed payload only break it), with a problem to find."""
    save = server_save(users=5)
    save.users[3].name = save.users[1].name
    return api.build(save)


CORRUPTIBLE: dict[str, Callable[[], bytes | None]] = {
    "tirnanog-save": _server_with_a_twin,
    "tirnanog-save player": lambda: api.build(player_save()),
    "tirnanog-game": game_sample.build_sample_game,
    "angband-block": lambda: api.build(angband_sample.block_save()),
    "angband-block real file": real_angband,
    "angband-modular": lambda: api.build(angband_sample.modular_save()),
    "qfg5-save": lambda: api.build(qfg5_sample.qfg5_save()),
}


def _names_something(model: Any, path: str) -> bool:
    """The path resolves; or all but its last field does (bytes the model does not keep);
    or it goes one item past the end of a list the model holds (a record not read)."""
    steps = parse_path(path)
    for n in range(len(steps), -1, -1):
        try:
            found = resolve(model, steps[:n]).value if n else model
        except (PathError, ValueError, LookupError):
            continue
        if n == len(steps):
            return True
        rest = steps[n]
        if n == len(steps) - 1 and isinstance(rest, Attr):
            return True
        return isinstance(rest, Index) and hasattr(found, "__len__") and rest.index >= len(found)
    return False


@pytest.mark.parametrize("name", sorted(CORRUPTIBLE))
def test_every_validate_problem_names_a_value(name: str) -> None:
    data = CORRUPTIBLE[name]()
    if data is None:
        pytest.skip("no real Angband sample on this machine (set SAVECRAFT_SAMPLES)")
    rng = random.Random(name)
    seen = 0
    for trial in range(25):
        bad = bytearray(data)
        for _ in range(rng.randrange(1, 3) if trial else 0):  # the file as made first
            k = rng.randrange(len(bad))
            bad[k] ^= 1 << rng.randrange(8)
        result = api.validate(bytes(bad))
        if result.model is None:
            continue
        for p in result.problems:
            if not p.path:
                continue
            seen += 1
            assert _names_something(result.model, p.path), str(p)
            assert paths.canonical_prefix(result.model, p.path) == p.path, str(p)
    assert seen, "the corruptions found nothing to check"


def test_problems_inside_a_game_asset_name_it_as_the_model_does(game: bytes) -> None:
    model = api.parse(game)
    npcs = model.sections[26]
    asset = npcs.npcs[0].asset
    assert asset.path == "sections[26].npcs[0].asset"  # was "npc_types[0]", which names nothing
    assert resolve(model, asset.path).value is asset
    assert resolve(model, "sections[26].npcs[0].asset.sprites").path == \
        "sections[26].npcs[0].asset.value.sprites"


def test_an_edited_dump_with_a_bad_value_names_it_as_the_model_does() -> None:
    import orjson


    data = api.build(server_save(users=3))
    doc = orjson.loads(jsonmap.dumps(api.parse(data)))
    kinds = [c["kind"] for c in doc["data"]["chunks"]]
    doc["data"]["chunks"][kinds.index("USER") + 1]["entity"]["x"] = "oops"
    with pytest.raises(FormatError) as info:
        edit.edit_dump(data, orjson.dumps(doc))
    assert info.value.path == "users[1].entity.x"  # was data.chunks[4].entity.x
    assert [p.path for p in info.value.problems] == ["users[1].entity.x"]


def test_a_dump_error_maps_to_model_paths_by_the_documents_format() -> None:
    from savecraft.errors import FormatError

    save = server_save(users=2)
    doc = jsonmap.to_json(save)
    kinds = [c["kind"] for c in doc["data"]["chunks"]]
    k = kinds.index("USER")
    doc["data"]["chunks"][k]["entity"]["x"] = "oops"
    with pytest.raises(FormatError) as info:
        jsonmap.from_json(doc)  # from_json names it by model path already
    assert [p.path for p in info.value.problems] == ["users[0].entity.x"]
    for where in (f"chunks[{k}].entity.x", f"data.chunks[{k}].entity.x"):  # where it sits in the document
        raw = FormatError(None, where, "an integer", "str 'oops'")
        mapped = paths.from_dump_error(raw, doc)
        assert [p.path for p in mapped.problems] == ["users[0].entity.x"]
        assert mapped.path == "users[0].entity.x" and mapped.expected == raw.expected
        assert paths.from_dump_error(raw, {"format": "no-such-format"}) is raw


@pytest.mark.parametrize("name", sorted(CORRUPTIBLE))
def test_a_file_cut_anywhere_lists_few_distinct_problems(name: str) -> None:
    data = CORRUPTIBLE[name]()
    if data is None:
        pytest.skip("no real Angband sample on this machine (set SAVECRAFT_SAMPLES)")
    for part in range(1, 20):
        result = api.validate(data[: len(data) * part // 20])
        keys = [(p.offset, p.path, p.expected, p.found) for p in result.problems]
        assert len(keys) == len(set(keys)), (part, [str(p) for p in result.problems])
        assert len(keys) <= 4, (part, [str(p) for p in result.problems])  # a game: up to 192


def test_a_whole_record_shown_through_a_view_can_be_set() -> None:
    """users[1] and deny are computed from chunks: setting them sets the chunk itself."""
    data = api.build(server_save(users=3))
    save = api.parse(data)
    newcomer = jsonmap.encoder(type(save.users[0]))(make_user(random.Random(1), "Zed"))
    result = edit.edit_bytes(data, {"users[1]": newcomer})
    assert result.changes[0][0] == "users[1]"
    assert [u.name for u in api.parse(result.data).users] == [
        save.users[0].name, "Zed", save.users[2].name]
    changes = diff.diff_bytes(data, result.data).changes
    assert {(c.kind, c.path) for c in changes} == {("added", "users[1]"), ("removed", "users[1]")}
    deny = jsonmap.encoder(type(save.deny))(save.deny)
    deny["entries"] = []
    result = edit.edit_bytes(data, {"deny": deny})
    assert api.parse(result.data).deny.entries == []
