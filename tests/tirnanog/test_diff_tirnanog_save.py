"""Diffing TirNanoG saved games, small and large (a 10,000-user server save).

The large-file tests check the property that keeps the diff linear and
cheap: chunks both sides still hold as their original bytes are compared as
bytes and never decoded, so only the records that differ are decoded.
"""

from __future__ import annotations

import random

import orjson
import pytest

from savecraft import api, diff
from savecraft.formats.tirnanog.save.model import AddressFamily, DenyEntry, SaveGame
from savecraft.formats.tirnanog.save.sample import make_user, player_save, server_save
from savecraft.paths import get

USERS = 10_000


@pytest.fixture(scope="module")
def big() -> bytes:
    return api.build(server_save(users=USERS))


def decoded(save: SaveGame) -> int:
    """How many chunks have been decoded into objects (the rest are still bytes)."""
    return sum(save.chunks.raw_or_none(i) is None for i in range(len(save.chunks)))


def test_a_large_file_diffed_with_itself_decodes_nothing(big: bytes) -> None:
    a, b = api.parse(big), api.parse(big)
    assert diff.diff(a, b).changes == []
    assert decoded(a) == decoded(b) == 0
    assert diff.diff_bytes(big, big).equal


def test_a_single_changed_field_in_a_large_file(big: bytes) -> None:
    edited = api.parse(big)
    user = edited.chunks[5003]
    old = user.entity.inventory[2].quantity
    user.entity.inventory[2].quantity = old + 7
    changed = api.build(edited)
    a, b = api.parse(big), api.parse(changed)
    result = diff.diff(a, b)
    assert [(c.kind, c.path, c.old, c.new) for c in result.changes] == [
        ("changed", f"users[{edited.users.index(user)}].entity.inventory[2].quantity", old, old + 7)]
    assert result.changes[0].note == f"USER name={user.name}"
    assert decoded(a) == decoded(b) == 1
    assert get(b, result.changes[0].path) == old + 7


def test_an_inserted_user_is_one_added_record(big: bytes) -> None:
    edited = api.parse(big)
    edited.chunks.insert(100, make_user(random.Random(5), "Newcomer"))
    result = diff.diff_bytes(big, api.build(edited))
    assert [(c.kind, c.path) for c in result.changes] == [
        ("added", f"users[{[u.name for u in edited.users].index('Newcomer')}]")]
    assert result.changes[0].new.name == "Newcomer"


def test_a_removed_and_a_moved_user(big: bytes) -> None:
    edited = api.parse(big)
    names = [edited.chunks[i].name for i in (10, 20)]
    del edited.chunks[20]
    edited.chunks.insert(300, edited.chunks.pop(10))
    result = diff.diff_bytes(big, api.build(edited))
    got = [(c.kind, c.path) for c in result.changes]
    old_users = [u.name for u in api.parse(big).users]
    new_users = [u.name for u in edited.users]
    assert got == [("removed", f"users[{old_users.index(names[1])}]"),
                   ("moved", f"users[{new_users.index(names[0])}]")]
    moved = result.changes[1]
    assert (moved.old, moved.new) == (10, 300)


def test_changes_in_several_chunk_kinds() -> None:
    a = server_save(users=5)
    b = server_save(users=5)
    b.chunks[0].entries.insert(0, DenyEntry(AddressFamily.AF_INET, "198.51.100.7"))
    b.chunks[2].completers[3] = 4
    b.npcs[1].entity.y += 1
    maps = [c for c in b.chunks if type(c).__name__ == "MapChunk"]
    maps[0].tiles[5] = 9
    b.preview = None
    data_a, data_b = api.build(a), api.build(b)
    changes = diff.diff_bytes(data_a, data_b).changes
    got = {(c.kind, c.path) for c in changes}
    for c in changes:  # every path names the value on its side
        assert get(api.parse(data_b), c.path) == c.new
    assert got == {  # DENY entries are matched by address, MAP chunks by map id (their KEY)
        ("added", "deny.entries[0]"),
        ("changed", "quests.completers[3]"),
        ("changed", "npcs[1].entity.y"),
        ("changed", "maps[0].tiles[5]"),
    }


def test_many_changed_values_in_one_list_show_as_one_change() -> None:
    a = server_save(users=1)
    b = server_save(users=1)
    maps = [i for i, c in enumerate(b.chunks) if type(c).__name__ == "MapChunk"]
    b.chunks[maps[0]].tiles = [7] * len(b.chunks[maps[0]].tiles)
    changes = diff.diff(a, b).changes
    assert [(c.kind, c.path) for c in changes] == [("changed", "maps[0].tiles")]


def test_json_output_names_old_and_new_values() -> None:
    a = player_save()
    b = player_save()
    b.users[0].entity.x = 1
    b.users[0].password_hash = b"\x01" * 32
    b.chunks.append(make_user(random.Random(1), "Guest"))
    result = diff.diff(a, b)
    doc = orjson.loads(result.dumps())
    assert doc["equal"] is False
    assert doc["a"]["format"] == doc["b"]["format"] == "tirnanog-save"
    by_path = {c["path"]: c for c in doc["changes"]}
    assert by_path["users[0].entity.x"] == {
        "change": "changed", "path": "users[0].entity.x",
        "old": a.users[0].entity.x, "new": 1, "note": "USER name=Brigid"}
    assert by_path["users[0].password_hash"]["new"] == "AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE="
    added = by_path["users[1]"]
    assert added["change"] == "added" and "old" not in added
    assert added["new"]["kind"] == "USER" and added["new"]["name"] == "Guest"
    text = "\n".join(result.lines())
    assert "+ users[1]: USER name=Guest" in text
    assert "  users[0].password_hash: (32 bytes) -> (32 bytes)  (USER name=Brigid)" in text
