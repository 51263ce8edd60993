"""Editing TirNanoG saved games: by key, by index, refused edits, counts and CRC recomputed."""

from __future__ import annotations

import zlib
from pathlib import Path

import pytest

from savecraft import api, diff, edit, jsonmap
from savecraft.compression import inflate
from savecraft.errors import FormatError
from savecraft.formats.tirnanog.save.model import InventoryItem, SaveGame
from savecraft.formats.tirnanog.save.sample import player_save, server_save
from savecraft.paths import PathError, get


@pytest.fixture(scope="module")
def player() -> bytes:
    return api.build(player_save())


@pytest.fixture(scope="module")
def server() -> bytes:
    return api.build(server_save(users=40))


def test_edit_by_user_name_round_trips(player: bytes, tmp_path: Path) -> None:
    p = tmp_path / "player.sav"
    p.write_bytes(player)
    before = api.parse(player)
    result = edit.edit_file(p, {"users[name=Brigid].entity.x": 120})
    assert result.changes == [("users[0].entity.x", 120)]
    assert (tmp_path / "player.sav.bak").read_bytes() == player
    after = p.read_bytes()
    assert api.load(after).users[0].entity.x == 120
    assert get(jsonmap.loads(jsonmap.dumps(api.load(after))), "users[name=Brigid].entity.x") == 120
    assert api.validate(after).ok
    changes = diff.diff(before, api.parse(after)).changes
    assert [(c.kind, c.path, c.old, c.new) for c in changes] == [
        ("changed", "users[0].entity.x", before.users[0].entity.x, 120)]


def test_appending_to_a_list_recomputes_counts_and_crc(player: bytes) -> None:
    result = edit.edit_bytes(player, {"users[0].entity.inventory": [
        *[{"quantity": it.quantity, "object_id": it.object_id}
          for it in api.parse(player).users[0].entity.inventory],
        {"quantity": 3, "object_id": 77}]})
    save = api.parse(result.data)
    assert save.users[0].entity.inventory[-1] == InventoryItem(3, 77)
    content = inflate(result.data[32 + 32 + len(save.preview.image) if save.preview else 32:-4]).data
    assert int.from_bytes(result.data[-4:], "little") == zlib.crc32(content)
    changes = diff.diff_bytes(player, result.data).changes
    assert [(c.kind, c.path) for c in changes] == [
        ("added", "users[0].entity.inventory[5]")]


def test_edit_a_server_save_changes_one_chunk_only(server: bytes) -> None:
    result = edit.edit_bytes(server, {"users[name=Niamh2].flags": 1, "chunks[1].values[0]": -5})
    assert dict(result.changes) == {"users[23].flags": 1, "globals.values[0]": -5}
    assert result.model.user("Niamh2").banned
    changes = diff.diff_bytes(server, result.data).changes
    assert sorted((c.path, c.new) for c in changes) == [
        ("globals.values[0]", -5), ("users[23].flags", 1)]


def test_text_values_follow_the_field_type(player: bytes) -> None:
    result = edit.edit_bytes(player, [("users[0].name", "1234"), ("users[0].language", "ga"),
                                      ("preview.play_time", "60")], text=True)
    u = result.model.users[0]
    assert (u.name, u.language, result.model.preview.play_time) == ("1234", "ga", 60)


@pytest.mark.parametrize(("changes", "says"), [
    ({"game_id": "a-game-id-of-17-b"}, "game_id: expected a string of at most 16 bytes"),
    ({"users[0].language": "eng"}, "users[0].language: expected an ISO-639-1 code"),
    ({"users[0].language": "日"}, "users[0].language: expected a value the format stores as set"),
    ({"users[0].entity.x": 2**31}, "users[0].entity.x: expected an integer from -2147483648"),
    ({"users[0].entity.map": 2**24}, "users[0].entity.map: expected an integer from 0 to 16777215"),
    ({"users[0].equipped[0]": -1}, "users[0].equipped[0]: expected an integer from 0 to 65535"),
    ({"users[0].equipped": [1, 2]}, "users[0].equipped: expected 32 slots"),
    ({"users[0].name": "Bri\0gid"}, "users[0].name: expected a string without NUL characters"),
    ({"users[0].entity.x": "far"}, "users[0].entity.x: expected an integer, found str 'far'"),
    ({"users[0].password_hash": "not base64!"}, "users[0].password_hash: expected base64 text"),
    ({"preview.play_time": -1}, "preview.play_time: expected an integer from 0 to 4294967295"),
    ({"preview.dimension": 128}, "preview.dimension: expected 256"),
])
def test_refused_edits_name_the_field(player: bytes, changes: dict[str, object], says: str) -> None:
    with pytest.raises(FormatError) as info:
        edit.edit_bytes(player, changes)
    assert says in "\n".join(map(str, info.value.problems))


def test_an_edit_that_breaks_the_format_check_is_refused(server: bytes) -> None:
    with pytest.raises(FormatError, match="a user name not used before"):
        edit.edit_bytes(server, {"users[name=Aoife].name": "Brigid"})


def test_refused_edits_leave_the_file_byte_identical(player: bytes, tmp_path: Path) -> None:
    p = tmp_path / "player.sav"
    p.write_bytes(player)
    for changes in ({"game_id": "x" * 17}, {"users[0].entity.x": 2**40},
                    {"users[0].entity.x": 1, "users[0].language": "xyz"}):
        with pytest.raises(FormatError):
            edit.edit_file(p, changes)
    for changes in ({"users[name=Nobody].entity.x": 1}, {"users[0].entity.z": 1}, {"users": []}):
        with pytest.raises(PathError):
            edit.edit_file(p, changes)
    assert p.read_bytes() == player
    assert [x.name for x in tmp_path.iterdir()] == ["player.sav"]


def test_setting_the_same_value_writes_nothing(player: bytes, tmp_path: Path) -> None:
    p = tmp_path / "player.sav"
    p.write_bytes(player)
    x = api.parse(player).users[0].entity.x
    result = edit.edit_file(p, {"users[0].entity.x": x})
    assert not result.changed
    assert [x.name for x in tmp_path.iterdir()] == ["player.sav"]


def test_dump_edit_round_trip(player: bytes) -> None:
    doc = jsonmap.to_json(api.parse(player))
    doc["data"]["game_id"] = "renamed"
    import orjson
    result = edit.edit_dump(player, orjson.dumps(doc))
    assert isinstance(result.model, SaveGame) and result.model.game_id == "renamed"
    assert [c.path for c in diff.diff_bytes(player, result.data).changes] == ["game_id"]
    doc["data"]["chunks"][2]["entity"]["x"] = 2**33
    with pytest.raises(FormatError, match=r"entity\.x"):
        edit.edit_dump(player, orjson.dumps(doc))
    with pytest.raises(FormatError, match="valid JSON"):
        edit.edit_dump(player, b"{not json")


def test_library_edit_of_a_loaded_model(server: bytes) -> None:
    save = api.parse(server)
    result = edit.edit_model(save, {"users[name=Cian].entity.y": 5}, original=server)
    assert result.model.user("Cian").entity.y == 5
    assert save.user("Cian").entity.y == 5  # the model given was changed in place


def test_a_refused_value_names_its_user_when_earlier_users_were_never_decoded() -> None:
    """The writer counted users[k] over decoded chunks only: chunks[4] (the 2nd USER) was users[0]."""
    import pytest as _pytest

    from savecraft import api, edit
    from savecraft.errors import FormatError
    from savecraft.formats.tirnanog.save import sample

    data = api.build(sample.server_save(users=3))
    with _pytest.raises(FormatError) as info:
        edit.edit_bytes(data, {"chunks[4].entity.x": 99999999999})  # the 2nd USER; chunks[3] untouched
    assert [p.path for p in info.value.problems] == ["users[1].entity.x"]
