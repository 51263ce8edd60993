"""The studio's views as data: format summaries, table pages, inspector, find, byte patches, labels."""

from __future__ import annotations

import struct

import pytest

import savecraft
from savecraft.errors import SavecraftError
from savecraft.formats.tirnanog.game.sample import build_sample_game
from savecraft.formats.tirnanog.save import sample
from savecraft.paths import resolve
from savecraft.studio import tree, views
from savecraft.studio.documents import Workspace
from tests.samples import SAMPLES, real_samples

ADUIAL = SAMPLES / "angband-block-variants" / "vanilla-4.2_Aduial.sav"
needs_aduial = real_samples


@pytest.fixture(scope="module")
def server() -> tuple[Workspace, str]:
    ws = Workspace()
    doc = ws.open_bytes("server.sav", savecraft.build(sample.server_save(users=5000)))
    return ws, doc.id


@needs_aduial
def test_angband_sheet_links_every_value_to_its_field() -> None:
    doc = Workspace().open_path(ADUIAL)
    view = views.summary_view(doc)
    assert view["available"] and view["title"] == "Aduial"
    assert view["subtitle"] == "High-Elf Paladin, level 50"
    sections = {s["title"]: s for s in view["sections"]}
    facts = {f["label"]: f for f in sections["Character"]["items"]}
    assert facts["Gold"]["value"] == "672,848" and facts["Gold"]["path"] == "player.au"
    assert [r["cells"][3] for r in sections["Stats"]["rows"]] == ["18/100"] * 5
    worn = {i["label"]: i for i in sections["Equipment"]["items"]}
    assert worn["left hand"]["text"] == "Ring of Speed"
    for item in sections["Equipment"]["items"] + sections["Pack"]["items"]:
        assert resolve(doc.model, item["path"]).value.name == item["text"]


def test_players_table_reads_no_player_and_pages_sorts_searches(server: tuple[Workspace, str]) -> None:
    ws, doc_id = server
    doc = ws.get(doc_id)
    model = doc.model
    view = views.summary_view(doc)
    players = next(s for s in view["sections"] if s.get("id") == "players")
    assert players["total"] == 5000 and len(players["rows"]) == views.ROWS
    # Read from the chunks' bytes: no user was decoded to list them.
    assert all(model.chunks.raw_or_none(i) is not None for i in range(len(model.chunks))
               if model.chunks.magic(i) == b"USER")
    first = players["rows"][1]
    user = model.users[1]
    assert first["path"] == "users[1]" and first["cells"][1] == user.name
    assert first["cells"][2] == views._iso(user.created) and first["cells"][2].startswith("20")
    page = views.table_page(doc, "players", "name", True, "", 0)
    names = sorted((u.name for u in model.users), key=str.casefold, reverse=True)
    assert [r["cells"][1] for r in page["rows"]] == names[:views.ROWS]
    page = views.table_page(doc, "players", "last_seen", False, "aoife1", 100)
    matching = [u for u in model.users if "aoife1" in u.name.casefold()]
    assert page["total"] == len(matching) and page["start"] == 100
    assert all("aoife1" in r["cells"][1].casefold() for r in page["rows"])
    seen = [r["cells"][4] for r in views.table_page(doc, "players", "last_seen", False, "aoife1", 0)["rows"]]
    assert seen == sorted(seen)
    with pytest.raises(SavecraftError, match="sort: expected one of"):
        views.table_page(doc, "players", "password", False, "", 0)
    with pytest.raises(SavecraftError, match="no table"):
        views.table_page(doc, "nothing", "", False, "", 0)


def test_game_overview_names_layers_sprites_and_scripts() -> None:
    doc = Workspace().open_bytes("game.tng", build_sample_game())
    view = views.summary_view(doc)
    assert view["title"] == "Sample Quest"
    maps = next(s for s in view["sections"] if s["kind"] == "maps")["maps"]
    assert maps[0]["title"] == "map 0: village"
    assert {layer["name"] for layer in maps[0]["layers"]} >= {"tiles 0 (under characters)",
                                                             "tiles 7 (over characters)"}
    scripts = next(s for s in view["sections"] if s["title"].startswith("Scripts"))["items"]
    titles = [s["text"] for s in scripts]
    assert "npc types › npcs 'npc_guard' › handlers 0" in titles
    assert not any("[" in t for t in titles)  # no raw paths
    for s in scripts:
        assert isinstance(resolve(doc.model, s["path"]).value, str)


def test_qfg5_hero_summary() -> None:
    from savecraft.formats.qfg5.sample import qfg5_save

    save = qfg5_save()
    doc = Workspace().open_bytes("hero.sav", savecraft.build(save))
    view = views.summary_view(doc)
    worn = next(s for s in view["sections"] if s["title"] == "Equipment")["items"]
    assert [(w["label"], w["path"]) for w in worn][0] == ("sword", "equipment.sword")
    inventory = next(s for s in view["sections"] if s.get("id") == "inventory")
    assert [r["cells"][1] for r in inventory["rows"]] == [i.sprite_id for i in save.inventory]


@real_samples
def test_a_format_without_a_summary_says_so() -> None:
    legacy = SAMPLES / "angband-legacy" / "minimal_PLAYER.sav"
    doc = Workspace().open_path(legacy)
    assert doc.format.summary is None
    assert views.summary_view(doc) == {"available": False, "format": doc.format.name}


def test_inspector_reads_every_type_both_ways() -> None:
    data = struct.pack("<q", -2) + b"hello\0world"
    out = views.inspect(data, 0)
    got = {v["type"]: (v["le"], v["be"]) for v in out["values"]}
    assert got["u8"] == (0xFE, 0xFE) and got["i8"] == (-2, -2)
    assert got["i16"] == (-2, struct.unpack(">h", data[:2])[0])
    assert got["u32"][0] == 0xFFFFFFFE and got["i64"][0] == -2
    assert got["f64"][1] == repr(struct.unpack(">d", data[:8])[0])
    assert views.inspect(data, 8)["text"] == "hello"
    short = views.inspect(data, len(data) - 2)
    assert [v["type"] for v in short["values"]] == ["u8", "i8", "u16", "i16"]
    with pytest.raises(SavecraftError, match="offset"):
        views.inspect(data, len(data))


def test_find_bytes_text_and_values(server: tuple[Workspace, str]) -> None:
    ws, doc_id = server
    doc = ws.get(doc_id)
    magic = views.find(doc, "file", "bytes", "54 4e 47", 0)
    assert magic["offset"] == 0 and magic["length"] == 3
    again = views.find(doc, "file", "bytes", "54 4e 47", 1)
    assert again["offset"] == 0 and again["wrapped"]  # once, at the start: the search wraps
    assert views.find(doc, "file", "text", "TNG Saved", 0)["offset"] == 0
    hit = views.find(doc, "file", "value", "Aoife", 0)
    assert hit["path"] is not None and "Aoife" in tree.show(resolve(doc.model, hit["path"]).value)
    assert views.find(doc, "file", "value", "Aoife", 1)["index"] == 1
    with pytest.raises(SavecraftError, match="expected hex"):
        views.find(doc, "file", "bytes", "zz", 0)


@needs_aduial
def test_a_raw_patch_is_checked_by_reading_the_result() -> None:
    doc = Workspace().open_path(ADUIAL)
    data = doc.data
    at = data.find(b"Aduial")
    refused = views.patch(doc, at - 8, "ffffff7f")  # the block's size now runs past the end
    assert not refused["accepted"] and "couldn't load block" in refused["message"]
    assert doc.data is data and len(doc.history) == 1
    checksum = int.from_bytes(data[at - 4:at], "little")
    accepted = views.patch(doc, at - 4, ((checksum + 1).to_bytes(4, "little") + b"B").hex())
    assert accepted["accepted"], accepted
    assert doc.data[at:at + 6] == b"Bduial" and len(doc.history) == 2
    assert doc.undo() and doc.data is data
    with pytest.raises(SavecraftError, match="offset"):
        views.patch(doc, len(data), "00")


@needs_aduial
def test_tree_labels_names_dates_and_the_games_limits(server: tuple[Workspace, str]) -> None:
    model = Workspace().open_path(ADUIAL).model
    blocks = tree.children(model, "", 0)["children"][1]
    assert blocks["type"].startswith("list[one of ") and "Description | RawBlock" not in blocks["type"]
    item = tree.children(model, "gear.items", 0, 1)["children"][0]
    assert item["label"] == "Prayer Book [Battle Blessings]" and item["name"] == "[0]"
    gold = next(c for c in tree.children(model, "player", 0, 500)["children"] if c["name"] == "au")
    assert gold["allowed"] == "gold from 0 to 2,147,483,647"  # the game's rule, not "i32"
    stat = tree.children(model, "player.stat_cur", 0, 1)["children"][0]
    assert stat["shown"] == "18/100"
    ws, doc_id = server
    save = ws.get(doc_id).model
    users = tree.children(save, "chunks", 0, 5)["children"]
    assert [(u["name"], u["label"]) for u in users][3:] == [("users[0]", "USER Brigid"), ("users[1]", "USER Aoife")]
    created = next(c for c in tree.children(save, "users[1]", 0)["children"] if c["name"] == "created")
    assert created["shown"] == views._iso(save.users[1].created).replace(" ", "T")
