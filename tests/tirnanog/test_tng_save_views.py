"""``SaveGame.users`` and the other kind views decode only the chunks that are looked at.

They were lists built by decoding every chunk of the kind, so resolving
``users[1].entity.x`` in a save of 50,000 players (a studio edit, ``edit --set``)
decoded all 50,000 of them first.
"""

from __future__ import annotations

import pytest

import savecraft
from savecraft import edit
from savecraft.formats.tirnanog.save.model import SaveGame, UserChunk
from savecraft.formats.tirnanog.save.sample import server_save
from savecraft.paths import PathError, resolve


@pytest.fixture(scope="module")
def data() -> bytes:
    return savecraft.build(server_save(users=300, attributes=4, items=3))


def _decoded(save: SaveGame) -> int:
    return sum(save.chunks.raw_or_none(i) is None for i in range(len(save.chunks)))


def test_indexing_a_view_decodes_one_chunk(data: bytes) -> None:
    save = savecraft.load(data)
    before = _decoded(save)
    assert len(save.users) == 300 and _decoded(save) == before  # counted by magic
    u = save.users[217]
    assert isinstance(u, UserChunk) and _decoded(save) == before + 1
    assert save.users[217] is u and save.users[-83] is u
    assert resolve(save, "users[217].entity.x").value == u.entity.x and _decoded(save) == before + 1


def test_a_view_still_acts_as_the_list_it_was(data: bytes) -> None:
    save = savecraft.load(data)
    names = [u.name for u in save.users]
    assert len(set(names)) == 300 and save.users == list(save.users) and save.users[:2] == list(save.users)[:2]
    assert save.user(names[5]) is save.users[5]
    assert len(save.npcs) == len(list(save.npcs))


def test_an_edit_through_a_view_rebuilds_only_that_player(data: bytes) -> None:
    edited = edit.edit_bytes(data, {"users[217].entity.x": 4242})
    after = savecraft.load(edited.data)
    assert after.users[217].entity.x == 4242
    assert [u for i, u in enumerate(after.users) if i != 217] == \
        [u for i, u in enumerate(savecraft.load(data).users) if i != 217]


def test_the_view_itself_cannot_be_replaced(data: bytes) -> None:
    with pytest.raises(PathError, match="users: cannot be replaced here"):
        edit.edit_bytes(data, {"users": []})
