"""The field-path language: parsing, printing, resolving and assigning."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from savecraft.formats.tirnanog.save.model import AddressFamily
from savecraft.formats.tirnanog.save.sample import player_save, server_save
from savecraft.paths import (
    Attr,
    Index,
    Key,
    Match,
    PathError,
    assign,
    format_path,
    get,
    key_matches,
    key_text,
    parse_path,
    quote,
    resolve,
    split_assignment,
)


def test_parse_the_documented_examples() -> None:
    assert parse_path("users[name=Brigid].entity.x") == [
        Attr("users"), Match("name", "Brigid"), Attr("entity"), Attr("x")]
    assert parse_path("inventory[0].amount") == [Attr("inventory"), Index(0), Attr("amount")]
    assert parse_path("chunks[3]") == [Attr("chunks"), Index(3)]
    assert parse_path("chunks[-1]") == [Attr("chunks"), Index(-1)]
    assert parse_path('tags["a b"]') == [Attr("tags"), Key("a b")]
    assert parse_path("tags[speed]") == [Attr("tags"), Key("speed")]
    assert parse_path('users[name="odd]name"].x') == [Attr("users"), Match("name", "odd]name"), Attr("x")]
    assert parse_path("users[ name = Brigid ]") == [Attr("users"), Match("name", "Brigid")]


@pytest.mark.parametrize("bad", [
    "", "  ", ".x", "a..b", "a.", "a[", "a[0", "a[]", "a[0]b", "a[=x]", "a[1x=2]", 'a["open]',
    "a b", "9lives", 'a["x"', "a.[0]",
])
def test_bad_paths_say_where(bad: str) -> None:
    with pytest.raises(PathError):
        parse_path(bad)


names = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,8}", fullmatch=True)
values = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
steps = st.one_of(
    names.map(Attr),
    st.integers(-5, 10_000).map(Index),
    st.builds(Match, names, values),
    values.map(Key),
)


@given(names, st.lists(steps, max_size=6))
def test_printed_paths_parse_back(first: str, rest: list[Any]) -> None:
    path = [Attr(first), *rest]
    assert parse_path(format_path(path)) == path


@given(values)
def test_quote_reads_back_as_the_same_key(text: str) -> None:
    assert parse_path(f"a[k={quote(text)}]") == [Attr("a"), Match("k", text)]


def test_mapping_keys_that_look_like_other_steps_are_quoted() -> None:
    for key in ("a=b", "12", "-3", " 7 ", "x]", "", "plain"):
        printed = format_path([Attr("t"), Key(key)])
        assert parse_path(printed) == [Attr("t"), Key(key)], printed
    assert format_path([Attr("t"), Key("a=b")]) == 't["a=b"]'
    assert format_path([Attr("t"), Key("speed")]) == "t[speed]"


def test_split_assignment_ignores_equals_in_brackets_and_quotes() -> None:
    assert split_assignment("users[name=Brigid].entity.x=120") == ("users[name=Brigid].entity.x", "120")
    assert split_assignment('users[name="a=]b"].name=x=y') == ('users[name="a=]b"].name', "x=y")
    assert split_assignment("game_id=") == ("game_id", "")
    with pytest.raises(PathError):
        split_assignment("users[name=Brigid]")


def test_resolve_through_properties_and_keys() -> None:
    save = player_save()
    r = resolve(save, "users[name=Brigid].entity.x")
    assert r.value == save.users[0].entity.x
    assert r.hint is int
    assert r.path == "users[0].entity.x"
    assert get(save, "users[0].entity.inventory[-1].quantity") == save.users[0].entity.inventory[-1].quantity
    # a dump's path ("data.…") names the same value
    assert get(save, "data.game_id") == save.game_id
    srv = server_save(users=3)
    r = resolve(srv, "chunks[0].entries[0].family")
    assert r.value is AddressFamily.AF_INET and r.hint is AddressFamily
    assert resolve(srv, "chunks[name=Cian]").path == "users[2]"  # a chunk is named by its kind
    assert resolve(srv, "chunks[0].entries[0]").path == "deny.entries[0]"


@pytest.mark.parametrize(("path", "says"), [
    ("users[name=Nobody]", "no item with name = Nobody"),
    ("users[7]", "index 7 is out of range (1 items)"),
    ("users[0].nope", "has no field 'nope' (fields: name,"),
    ("game_id.x", "str has no field 'x'"),
    ("game_id[0]", "needs a list"),
    ("users[0]._secret", "has no field '_secret'"),
    ("preview.image.x", "bytes has no field"),
])
def test_resolve_errors_name_the_step(path: str, says: str) -> None:
    with pytest.raises(PathError, match=None) as info:
        resolve(player_save(), path)
    assert says in str(info.value)


def test_ambiguous_key_is_refused() -> None:
    save = server_save(users=3)
    save.users[1].name = "Brigid"
    with pytest.raises(PathError, match="2 items have name = Brigid"):
        resolve(save, "users[name=Brigid]")


def test_key_matching_by_type() -> None:
    assert key_matches(AddressFamily.AF_INET, "AF_INET")
    assert key_matches(AddressFamily.AF_INET, "2")
    assert key_matches(17, "0x11")
    assert not key_matches(17, "seventeen")
    assert key_matches(True, "true") and not key_matches(False, "true")
    assert key_matches(b"XTRA", "XTRA")
    assert key_text(b"NPC\0") == "NPC"
    assert key_text(b"\x01\x02") is None
    assert key_text(3.5) is None


@dataclass(frozen=True)
class Point:
    x: int
    y: int


@dataclass
class Holder:
    points: tuple[Point, ...]
    pair: tuple[int, str]
    table: dict[str, int] = field(default_factory=dict)
    maybe: Point | None = None


def test_assign_rebuilds_frozen_records_and_tuples() -> None:
    h = Holder((Point(1, 2), Point(3, 4)), (5, "five"), {"a": 1})
    assign(resolve(h, "points[1].y"), 40)
    assert h.points == (Point(1, 2), Point(3, 40))
    assign(resolve(h, "pair[0]"), 6)
    assert h.pair == (6, "five")
    assert resolve(h, "pair[1]").hint is str
    assign(resolve(h, "table[a]"), 2)
    assert h.table == {"a": 2}
    assert resolve(h, "table[a]").hint is int
    assert resolve(h, "maybe").hint == Point | None


def test_assign_through_a_view_sets_the_models_own_list() -> None:
    save = server_save(users=2)
    first, second = save.users
    k = next(i for i in range(len(save.chunks)) if save.chunks[i] is first)
    assign(resolve(save, "users[0]"), second)  # users is computed: chunks[k] is what changes
    assert save.chunks[k] is second
    with pytest.raises(PathError, match="computed"):  # the view as a whole is no list to set
        assign(resolve(save, "users"), [])


# -- views by kind: derived from property hints, for any model -----------------------------


@dataclass
class _Cat:
    name: str = ""


@dataclass
class _Dog:
    name: str = ""


@dataclass
class _Zoo:
    animals: list[_Cat | _Dog] = field(default_factory=list)

    @property
    def cats(self) -> list[_Cat]:
        return [a for a in self.animals if isinstance(a, _Cat)]

    @property
    def dog(self) -> _Dog | None:
        return next((a for a in self.animals if isinstance(a, _Dog)), None)


def test_records_of_one_kind_are_named_through_the_models_view() -> None:
    zoo = _Zoo([_Cat("a"), _Dog("rex"), _Cat("b"), _Dog("fido")])
    assert resolve(zoo, "animals[2].name").path == "cats[1].name"
    assert resolve(zoo, "cats[name=b]").path == "cats[1]"
    assert resolve(zoo, "animals[1]").path == "dog"
    assert resolve(zoo, "animals[3]").path == "animals[3]"  # a second dog: the view shows only the first
    assert resolve(zoo, "cats[0].name").value == "a"
