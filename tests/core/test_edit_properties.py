"""Properties: any value at any path is either stored exactly or refused with a FormatError.

Never another exception, never a half-written file; and a diff between two
models names exactly the records that were added, removed or changed.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from savecraft import api, diff, edit
from savecraft.errors import FormatError
from savecraft.formats.tirnanog.save.model import InventoryItem
from savecraft.formats.tirnanog.save.sample import player_save
from savecraft.paths import PathError, get

PLAYER = api.build(player_save())

PATHS = [
    "game_id", "preview", "preview.play_time", "preview.image", "preview.reserved",
    "users[name=Brigid].name", "users[0].language", "users[0].flags", "users[0].created",
    "users[0].password_hash", "users[0].equipped", "users[0].equipped[3]", "users[0].belt[-1]",
    "users[0].character_options", "users[0].entity", "users[0].entity.map", "users[0].entity.x",
    "users[0].entity.inventory", "users[0].entity.inventory[0]",
    "users[0].entity.inventory[1].object_id", "users[0].entity.quests[0].completed",
    "chunks[0].values", "chunks[0].values[2]", "chunks[1].completers[0]", "encoding.crc_over",
]

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.integers(-300, 70_000)
    | st.floats(allow_nan=False) | st.text(max_size=20) | st.sampled_from(["AAAA", "en", "", "content"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["quantity", "object_id", "x", "name", "kind"]), inner, max_size=3),
    max_leaves=8,
)


@given(st.sampled_from(PATHS), json_values)
def test_any_value_is_stored_exactly_or_refused(path: str, value: Any) -> None:
    try:
        result = edit.edit_bytes(PLAYER, {path: value})
    except FormatError as err:
        assert err.problems and str(err)
        return
    canonical, stored = result.changes[0]
    assert get(api.parse(result.data), canonical) == stored
    assert api.validate(result.data).ok


@given(st.sampled_from(PATHS), st.text(max_size=12))
def test_any_command_line_text_is_stored_or_refused(path: str, text: str) -> None:
    try:
        result = edit.edit_bytes(PLAYER, [(path, text)], text=True)
    except FormatError:
        return
    canonical, stored = result.changes[0]
    assert get(api.parse(result.data), canonical) == stored


@given(st.text(max_size=30))
def test_any_path_text_resolves_or_raises_a_path_error(path: str) -> None:
    try:
        edit.edit_bytes(PLAYER, {path: 1})
    except (PathError, FormatError):
        pass


keys = st.lists(st.integers(0, 60), unique=True, max_size=25)


@given(keys, keys, st.sets(st.integers(0, 60), max_size=5))
def test_keyed_list_diff_names_exactly_what_changed(old: list[int], new: list[int],
                                                   touched: set[int]) -> None:
    """Users identified by name: the diff's added/removed/changed sets are the true ones."""
    a = player_save()
    b = player_save()
    template = a.users[0]

    def user(k: int, bump: bool) -> Any:
        from copy import deepcopy
        u = deepcopy(template)
        u.name = f"u{k}"
        u.entity.inventory.append(InventoryItem(k, 1))
        if bump:
            u.entity.y += 1
        return u

    # Brigid stays on both sides: a type that occurs once on each side is matched whatever
    # its key (test_diff_formats: the one Angband description block), and that is not tested here.
    for k in old:
        a.chunks.append(user(k, False))
    for k in new:
        b.chunks.append(user(k, k in touched))
    changes = diff.diff(a, b).changes

    def named(c: Any) -> str:  # canonical paths name users by position: which user is that?
        side = a if c.kind == "removed" else b
        head, dot, rest = c.path.partition(".")
        return f"{get(side, head).name}{dot}{rest}"

    added = {named(c) for c in changes if c.kind == "added"}
    removed = {named(c) for c in changes if c.kind == "removed"}
    changed = {named(c) for c in changes if c.kind == "changed"}
    assert added == {f"u{k}" for k in set(new) - set(old)}
    assert removed == {f"u{k}" for k in set(old) - set(new)}
    assert changed == {f"u{k}.entity.y" for k in set(old) & set(new) & touched}
    moved = [c for c in changes if c.kind == "moved"]
    common = [k for k in old if k in set(new)]
    order_b = [k for k in new if k in set(old)]
    assert (not moved) == (common == order_b)
    for c in changes:
        side = a if c.kind == "removed" else b
        if c.kind != "moved":
            assert get(side, c.path) == (c.old if c.kind == "removed" else c.new)


@pytest.mark.parametrize("path", ["users[0].entity.x", "chunks[0].values[0]"])
def test_an_edit_and_its_undo_give_back_the_same_bytes(path: str) -> None:
    old = get(api.parse(PLAYER), path)
    changed = edit.edit_bytes(PLAYER, {path: old + 1})
    undone = edit.edit_bytes(changed.data, {path: old})
    assert undone.data == PLAYER


RANGES = {
    "users[0].entity.x": "i32", "users[0].entity.map": "u24", "users[0].equipped[3]": "u16",
    "users[0].flags": "u8", "users[0].created": "u64", "preview.play_time": "u32",
    "chunks[0].values[2]": "i32", "users[0].entity.inventory[1].object_id": "u32",
}


@given(st.sampled_from(sorted(RANGES)), st.integers(-2**64, 2**64) | st.integers(-70_000, 70_000))
def test_integers_are_accepted_exactly_within_the_field_range(path: str, value: int) -> None:
    from savecraft.binary import int_range
    lo, hi = int_range(RANGES[path])
    try:
        result = edit.edit_bytes(PLAYER, {path: value})
    except FormatError as err:
        assert not lo <= value <= hi, err
        assert path.split("[")[0] in str(err) or path in str(err)
        return
    assert lo <= value <= hi
    assert get(result.model, path) == value
