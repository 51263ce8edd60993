"""The studio's server without a browser: the token, the views, edits, undo, save, diff, pictures.

The server runs in-process on a loopback port (aiohttp's test server); the
browser end-to-end tests are in ``test_studio_browser.py``.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from aiohttp import ClientSession
from aiohttp.test_utils import TestServer

import savecraft
from savecraft import api, diff, spans
from savecraft.formats.tirnanog.game.sample import build_sample_game
from savecraft.formats.tirnanog.save import sample
from savecraft.studio import tree
from savecraft.studio.documents import Workspace
from savecraft.studio.server import HEADER, make_app

TOKEN = "test-token-0123456789"


@pytest.fixture()
def files(tmp_path: Path) -> dict[str, Path]:
    world = tmp_path / "world.sav"
    world.write_bytes(savecraft.build(sample.server_save(users=30)))
    game = tmp_path / "game.tng"
    game.write_bytes(build_sample_game())
    return {"world": world, "game": game}


Client = Callable[..., Awaitable[tuple[int, Any]]]


def run(files: dict[str, Path], body: Callable[[Client], Awaitable[None]]) -> None:
    """Start the app on 127.0.0.1 with both files open, and run ``body`` with a request helper."""

    async def main() -> None:
        ws = Workspace()
        ws.open_path(files["world"])
        ws.open_path(files["game"])
        server = TestServer(make_app(ws, TOKEN), host="127.0.0.1")
        await server.start_server()
        try:
            async with ClientSession() as session:
                async def call(method: str, path: str, *, token: bool = True, **kw: Any) -> tuple[int, Any]:
                    headers = {HEADER: TOKEN} if token else {}
                    headers.update(kw.pop("headers", {}))
                    async with session.request(method, server.make_url(path), headers=headers,
                                               timeout=30, **kw) as r:
                        if r.content_type == "application/json":
                            return r.status, await r.json()
                        return r.status, await r.read()
                await asyncio.wait_for(body(call), 120)
        finally:
            await server.close()

    asyncio.run(main())


def test_requests_without_the_token_are_refused(files: dict[str, Path]) -> None:
    async def body(call: Client) -> None:
        for path in ("/", "/api/docs", "/static/app.js", "/api/doc/d1/tree"):
            status, _ = await call("GET", path, token=False)
            assert status == 403, path
        status, _ = await call("GET", "/api/docs", token=False, headers={HEADER: "wrong"})
        assert status == 403
        status, _ = await call("GET", f"/api/docs?token={TOKEN}", token=False)
        assert status == 200
        status, page = await call("GET", "/static/index.html")
        assert status == 200 and b"app.js" in page
    run(files, body)


def test_tree_pages_a_large_list_and_names_references(files: dict[str, Path]) -> None:
    async def body(call: Client) -> None:
        status, docs = await call("GET", "/api/docs")
        assert [d["format"] for d in docs] == ["tirnanog-save", "tirnanog-game"]
        _, top = await call("GET", "/api/doc/d1/tree", params={"path": "chunks", "start": "10"})
        assert top["total"] == 38 and top["start"] == 10
        assert top["children"][0]["path"] == "users[7]"  # chunk 10 is the eighth user
        _, user = await call("GET", "/api/doc/d1/tree", params={"path": "chunks[4]"})
        names = {c["name"]: c for c in user["children"]}
        assert names["name"]["value"] == "'Aoife'" and names["name"]["edit"] == "Aoife"
        _, npc = await call("GET", "/api/doc/d2/tree", params={"path": "sections[26].npcs[0]"})
        ref = {c["name"]: c for c in npc["children"]}["name"]
        assert "'npc_guard'" in ref["ref"]
    run(files, body)


def test_spans_link_fields_and_bytes_both_ways(files: dict[str, Path]) -> None:
    data = files["world"].read_bytes()
    expected = spans.record(data).span_of("users[1].entity.x")
    assert expected is not None

    async def body(call: Client) -> None:
        _, found = await call("GET", "/api/doc/d1/spans", params={"path": "chunks[4].entity.x"})
        assert (found[0]["space"], found[0]["offset"], found[0]["length"]) == \
            (expected.space, expected.offset, expected.length)
        _, at = await call("GET", "/api/doc/d1/at",
                           params={"space": expected.space, "offset": str(expected.offset + 2)})
        assert at["span"]["tree"] == "users[1].entity.x"
        _, page = await call("GET", "/api/doc/d1/hex",
                             params={"space": expected.space, "offset": str(expected.offset), "length": "4"})
        value = api.parse(data).chunks[4].entity.x
        assert bytes.fromhex(page["hex"]) == value.to_bytes(4, "little", signed=True)
        _, level = await call("GET", "/api/doc/d1/reveal", params={"path": "users[name=Aoife].entity.x"})
        assert level["path"] == "users[1].entity.x"
    run(files, body)


def test_a_game_asset_is_a_byte_space_of_its_own_linked_to_the_tree(files: dict[str, Path]) -> None:
    async def body(call: Client) -> None:
        path = "sections[26].npcs[2].asset.value.title"  # the reader names it value.header.title
        _, found = await call("GET", "/api/doc/d2/spans", params={"path": path})
        own = found[0]
        assert own["space"] != "file" and own["tree"].endswith(".title")  # the inflated asset
        _, spaces = await call("GET", "/api/doc/d2/spaces")
        stream = next(s for s in spaces if s["name"] == own["space"])
        assert stream["stored"]["space"] == "file"  # where its compressed form sits
        _, at = await call("GET", "/api/doc/d2/at", params={"space": own["space"], "offset": str(own["offset"])})
        _, level = await call("GET", "/api/doc/d2/reveal", params={"path": at["span"]["tree"]})
        assert level["path"] == path
    run(files, body)


def test_problems_point_at_their_field_and_bytes(files: dict[str, Path]) -> None:
    broken = bytearray(files["world"].read_bytes())
    broken[-1] ^= 0xFF  # the CRC
    files["world"].write_bytes(bytes(broken))

    async def body(call: Client) -> None:
        _, answer = await call("GET", "/api/doc/d1/problems")
        assert not answer["ok"]
        [problem] = answer["problems"]
        assert problem["path"] == "crc"
        assert problem["spans"] == {"space": "file", "offset": len(broken) - 4, "length": 4, "tree": "crc"}
    run(files, body)


def test_edit_refused_changes_nothing_and_accepted_edit_saves_with_backup(files: dict[str, Path]) -> None:
    world = files["world"]
    original = world.read_bytes()

    async def body(call: Client) -> None:
        _, out = await call("POST", "/api/doc/d1/edit",
                            json={"path": "chunks[4].entity.x", "value": "99999999999"})
        assert out["accepted"] is False and "2147483647" in out["problems"][0]["text"]
        assert out["document"]["undo"] == 0 and out["document"]["dirty"] is False
        _, rng = await call("GET", "/api/doc/d1/range", params={"path": "chunks[4].entity.x"})
        assert "-2147483648 to 2147483647" in rng["allowed"]
        _, out = await call("POST", "/api/doc/d1/edit", json={"path": "chunks[4].entity.x", "value": "321"})
        assert out["accepted"] is True and out["document"]["undo"] == 1
        assert [c["path"] for c in out["diff"]] == ["users[1].entity.x"]
        recomputed = {r["path"] for r in out["recomputed"]}
        assert "crc" in recomputed and "payload" in recomputed
        _, out = await call("POST", "/api/doc/d1/undo")
        assert out["undone"] and out["document"]["dirty"] is False
        _, out = await call("POST", "/api/doc/d1/edit", json={"path": "chunks[4].entity.y", "value": "55"})
        assert out["accepted"]
        assert world.read_bytes() == original  # nothing written before saving
        status, out = await call("POST", "/api/doc/d1/save")
        assert status == 200 and out["backup"].endswith("world.sav.bak")
    run(files, body)
    assert Path(str(world) + ".bak").read_bytes() == original
    assert api.validate(world).ok
    changes = diff.diff_files(str(world) + ".bak", world).changes
    assert [(c.path, c.new) for c in changes] == [("users[1].entity.y", 55)]


def test_an_edit_shows_what_the_rebuild_recomputed(files: dict[str, Path]) -> None:
    async def body(call: Client) -> None:
        _, out = await call("POST", "/api/doc/d1/edit", json={"path": "chunks[4].name", "value": "Aoibheann"})
        assert out["accepted"]
        assert [r["tree"] for r in out["recomputed"]] == ["payload", "crc", "users[1].size"]
        path = "sections[26].npcs[2].asset.value.speed"
        _, out = await call("POST", "/api/doc/d2/edit", json={"path": path, "value": "7"})
        assert out["accepted"]
        assert [r["tree"] for r in out["recomputed"]] == ["header.crc"]  # not the edited field itself
        _, out = await call("POST", "/api/doc/d2/edit", json={"path": path, "value": "70000"})
        assert not out["accepted"] and "65535" in out["problems"][0]["text"]
    run(files, body)


def test_diff_of_two_open_files_links_both_sides(files: dict[str, Path], tmp_path: Path) -> None:
    other = tmp_path / "other.sav"
    model = api.parse(files["world"].read_bytes())
    model.chunks[5].entity.y = 7
    other.write_bytes(api.build(model))

    async def body(call: Client) -> None:
        _, opened = await call("POST", "/api/open", json={"path": str(other)})
        _, result = await call("GET", "/api/diff", params={"a": "d1", "b": opened["id"]})
        assert result["equal"] is False
        [change] = result["changes"]
        assert change["path"].endswith("entity.y") and change["old"] != change["new"]
        assert change["spans_a"][0]["length"] == 4 and change["spans_b"][0]["length"] == 4
        status, dropped = await call("POST", "/api/open", data=other.read_bytes(),
                                     headers={"X-Filename": "dropped%20file.sav"})
        assert status == 200 and dropped["name"] == "dropped file.sav" and dropped["path"] is None
        status, refused = await call("POST", f"/api/doc/{dropped['id']}/save")
        assert status == 400 and "download" in refused["error"]
        status, junk = await call("POST", "/api/open", data=b"not a save at all")
        assert status == 422 and "magic" in junk["error"]
    run(files, body)


def test_pictures_of_a_save_and_a_game(files: dict[str, Path], tmp_path: Path) -> None:
    player = tmp_path / "player.sav"
    player.write_bytes(savecraft.build(sample.player_save()))

    async def body(call: Client) -> None:
        _, pics = await call("GET", "/api/doc/d2/pictures")
        kinds = {p["kind"] for p in pics}
        assert {"map", "image", "animation"} <= kinds
        status, png = await call("GET", "/api/doc/d2/picture/map-0", params={"layers": "0", "scale": "0.5"})
        assert status == 200 and png[:8] == b"\x89PNG\r\n\x1a\n"
        scripts = [p for p in pics if p["kind"] == "text"]
        assert scripts and "END" in scripts[0]["text"]
        for p in scripts:  # each names the field that holds its assembly
            _, level = await call("GET", "/api/doc/d2/reveal", params={"path": p["path"]})
            assert level["path"] == p["path"]
        status, png = await call("GET", "/api/doc/d2/picture/atlases-0")
        assert status == 200 and png[:4] == b"\x89PNG"
        _, opened = await call("POST", "/api/open", json={"path": str(player)})
        _, pics = await call("GET", f"/api/doc/{opened['id']}/pictures")
        assert [p["name"] for p in pics] == ["preview"]
        status, png = await call("GET", f"/api/doc/{opened['id']}/picture/preview")
        assert status == 200 and png[:4] == b"\x89PNG"
    run(files, body)


def test_tree_of_formats_without_studio_code(tmp_path: Path) -> None:
    """Angband and QfG5 get the tree from their models alone."""
    from savecraft.formats.angband import demo as angband_demo
    from savecraft.formats.qfg5 import demo as qfg5_demo

    paths = angband_demo.write_samples(tmp_path) + qfg5_demo.write_samples(tmp_path)
    ws = Workspace()
    for path in paths:
        doc = ws.open_path(path)
        top = tree.children(doc.model, "")
        assert top["children"], path
        first = next(c for c in top["children"] if c["kind"] != "leaf") if any(
            c["kind"] != "leaf" for c in top["children"]) else None
        if first is not None:
            tree.children(doc.model, first["path"])


def test_a_clicked_byte_without_a_field_of_its_own_selects_the_nearest_field(tmp_path: Path) -> None:
    """Spans can name bytes the model keeps no field for; revealing one selects its parent."""
    ws = Workspace()
    doc = ws.open_path(_write_demo(tmp_path, "savecraft.formats.angband.demo"))
    assert tree.reveal(doc.model, "blocks[0].no_such_field[3]")["path"] == "description"
    assert tree.reveal(doc.model, "variant")["path"] == "variant"


def _write_demo(folder: Path, module: str) -> Path:
    import importlib

    paths: list[Path] = importlib.import_module(module).write_samples(folder)
    return next(p for p in paths if "block" in p.name) if any("block" in p.name for p in paths) else paths[0]


def test_command_prints_the_address_with_a_token_and_serves(tmp_path: Path, files: dict[str, Path]) -> None:
    proc = subprocess.Popen([sys.executable, "-m", "savecraft", "studio", str(files["world"]),
                             "--no-browser", "--port", "0"], stdout=subprocess.PIPE, text=True)
    try:
        url = ""
        assert proc.stdout is not None
        for _ in range(5):
            line = proc.stdout.readline()
            if "http://127.0.0.1:" in line:
                url = line.strip()
                break
        assert "?token=" in url and len(url.split("token=")[1]) >= 32
        import urllib.error
        import urllib.request

        base = url.split("?")[0]
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(base + "api/docs", timeout=10)
        assert refused.value.code == 403
        token = url.split("token=")[1]
        req = urllib.request.Request(base + "api/docs", headers={HEADER: token})
        with urllib.request.urlopen(req, timeout=10) as r:
            assert b"world.sav" in r.read()
            # Offline: the page may load nothing from anywhere but the studio itself.
            assert "default-src 'self'" in r.headers["Content-Security-Policy"]
        page = urllib.request.Request(base + "static/index.html", headers={HEADER: token})
        with urllib.request.urlopen(page, timeout=10) as r:
            html = r.read().decode()
        assert "http:" not in html and "https:" not in html and "//" not in html.replace("<!--", "")
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_the_page_ships_everything_it_uses() -> None:
    """No script, style, font or picture is fetched from elsewhere: no address outside the studio."""
    from savecraft.studio.server import static_dir

    names = sorted(p.name for p in static_dir().iterdir())
    assert {"index.html", "app.js", "tree.js", "hex.js", "api.js", "studio.css"} <= set(names)
    for p in static_dir().iterdir():
        text = p.read_text()
        assert "http://" not in text and "https://" not in text and "@import" not in text, p.name


def test_command_with_a_file_it_cannot_read_exits_2_before_serving(tmp_path: Path) -> None:
    """A studio started on a missing file used to print "not opened" and serve on regardless."""
    proc = subprocess.run([sys.executable, "-m", "savecraft", "studio", str(tmp_path / "gone.sav"),
                           "--no-browser", "--port", "0"], capture_output=True, text=True, timeout=30)
    assert proc.returncode == 2
    assert "gone.sav: cannot read" in proc.stderr and "http://" not in proc.stdout
