"""The studio's timeline (issue 22) without a browser: a field across several open files.

The changed fields are ``savecraft diff A B C``'s series, the values are read from every file, a
character is followed by its key where it moved in the list, and a folder opens its saves in
natural name order, skipping (and not keeping) what is not a save. The browser end is
tests/test_studio_timeline_browser.py.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from aiohttp import ClientSession, ClientTimeout
from aiohttp.test_utils import TestServer

import savecraft
from savecraft.formats.tirnanog.save import sample
from savecraft.formats.tirnanog.save.model import ChunkList
from savecraft.studio.documents import Workspace
from savecraft.studio.server import HEADER, make_app

TOKEN = "test-token-0123456789"


def _moved(x_shift: int) -> bytes:
    """A server save in which Brigid (users[0] in the sample) is the third player, moved by ``x_shift``."""
    model = sample.server_save(users=5)
    chunks = list(model.chunks)
    users = [i for i, c in enumerate(chunks) if type(c).__name__ == "UserChunk"]
    chunks[users[0]], chunks[users[2]] = chunks[users[2]], chunks[users[0]]
    chunks[users[2]].entity.x += x_shift
    model.chunks = ChunkList(chunks)
    return savecraft.build(model)


@pytest.fixture()
def saves(tmp_path: Path) -> Path:
    folder = tmp_path / "saves"
    folder.mkdir()
    (folder / "world-1.sav").write_bytes(savecraft.build(sample.server_save(users=5)))
    (folder / "world-2.sav").write_bytes(_moved(5))
    (folder / "world-10.sav").write_bytes(_moved(40))  # after world-2: natural order, not text order
    (folder / "notes.txt").write_text("not a save\n")
    return folder


def _serve(body: Any) -> None:
    async def main() -> None:
        ws = Workspace()
        server = TestServer(make_app(ws, TOKEN), host="127.0.0.1")
        await server.start_server()
        try:
            async with ClientSession(headers={HEADER: TOKEN}, timeout=ClientTimeout(total=120)) as session:
                async def call(method: str, path: str, **kw: Any) -> tuple[int, Any]:
                    async with session.request(method, server.make_url(path), **kw) as r:
                        return r.status, await r.json()
                await body(call)
        finally:
            await server.close()

    asyncio.run(asyncio.wait_for(main(), 300))


def test_a_folder_opens_in_order_and_a_player_is_followed_by_name(saves: Path) -> None:
    async def body(call: Any) -> None:
        status, opened = await call("POST", "/api/open-folder", json={"path": str(saves)})
        assert status == 200, opened
        assert [d["name"] for d in opened["opened"]] == ["world-1.sav", "world-2.sav", "world-10.sav"]
        assert opened["skipped"] == 1 and "not a save" not in json.dumps(opened)  # nothing of it is shown
        ids = ",".join(d["id"] for d in opened["opened"])
        first = opened["opened"][0]["id"]

        status, fields = await call("GET", "/api/timeline/fields", params={"docs": ids})
        assert status == 200, fields
        expected = savecraft.diff.series_files([saves / "world-1.sav", saves / "world-2.sav", saves / "world-10.sav"])
        assert [f["path"] for f in fields["fields"]] == [p for p, _ in expected.fields]

        status, x = await call("GET", "/api/timeline/values",
                               params={"docs": ids, "path": "users[0].entity.x", "from": first})
        assert status == 200, x
        assert x["followed"] == "users[name=Brigid].entity.x"
        brigid = [savecraft.load((saves / n).read_bytes()).users for n in ("world-1.sav", "world-2.sav", "world-10.sav")]
        xs = [next(u for u in us if u.name == "Brigid").entity.x for us in brigid]
        assert [p["number"] for p in x["points"]] == xs and xs[1] == xs[0] + 5 and xs[2] == xs[0] + 40
        assert [p["at"] for p in x["points"]] == ["users[0].entity.x", "users[2].entity.x", "users[2].entity.x"]
        assert x["numeric"]

        status, name = await call("GET", "/api/timeline/values", params={"docs": ids, "path": "users[1].name"})
        assert [p["shown"] for p in name["points"]] == ["'Aoife'"] * 3 and not name["numeric"]
        status, gone = await call("GET", "/api/timeline/values", params={"docs": ids, "path": "users[name=Nobody].entity.x"})
        assert status == 200 and [p["present"] for p in gone["points"]] == [False] * 3

    _serve(body)


def test_a_timeline_refuses_files_of_two_formats_and_a_missing_folder(saves: Path, tmp_path: Path) -> None:
    from savecraft.formats.qfg5 import sample as qfg5_sample

    hero = tmp_path / "hero.sav"
    hero.write_bytes(savecraft.build(qfg5_sample.qfg5_save()))

    async def body(call: Any) -> None:
        _, a = await call("POST", "/api/open", json={"path": str(saves / "world-1.sav")})
        _, b = await call("POST", "/api/open", json={"path": str(hero)})
        status, refused = await call("GET", "/api/timeline/fields", params={"docs": f"{a['id']},{b['id']}"})
        assert status == 400 and "one format" in refused["error"]
        status, refused = await call("POST", "/api/open-folder", json={"path": str(tmp_path / "nowhere")})
        assert status == 400 and "not a folder" in refused["error"]
        status, refused = await call("POST", "/api/open-folder", data="path=/etc",
                                     headers={"Content-Type": "application/x-www-form-urlencoded"})
        assert status == 415  # a form post is refused, as every change that is not JSON

    _serve(body)


def test_the_command_line_series_and_the_studio_agree(saves: Path) -> None:
    """`savecraft diff A B C` in a subprocess names the same changed fields the timeline lists."""
    files = [str(saves / n) for n in ("world-1.sav", "world-2.sav", "world-10.sav")]
    done = subprocess.run([sys.executable, "-m", "savecraft", "diff", *files, "--json"],
                          capture_output=True, text=True, check=False, timeout=300)
    assert done.returncode in (0, 1), done.stderr
    cli = [f["path"] for f in json.loads(done.stdout)["fields"]]

    async def body(call: Any) -> None:
        _, opened = await call("POST", "/api/open-folder", json={"path": str(saves)})
        _, fields = await call("GET", "/api/timeline/fields",
                               params={"docs": ",".join(d["id"] for d in opened["opened"])})
        assert [f["path"] for f in fields["fields"]] == cli and cli

    _serve(body)
