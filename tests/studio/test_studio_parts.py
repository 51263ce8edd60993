"""The studio on big files (issue 23): nothing the page asks first waits behind what it does not need.

* The tree answers while the span map is being recorded (the recording held the
  document's lock, so a 50,000-player save's tree waited seconds behind it).
* A field inside a chunk is answered from that chunk's spans alone
  (``SpanMap.unit_spans``), and the answer is the whole-file query's.
* ``validate`` and the range probe of a big file run in a process of their own
  and answer exactly what they answer here; a range is probed once per kind of field.
* A recorded map queried from several threads while it is being sorted never
  answers from a half-published index.
* A big file is parsed once for the model and the spans.
"""

from __future__ import annotations

import asyncio
import dataclasses
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from aiohttp import ClientSession, ClientTimeout
from aiohttp.test_utils import TestServer

import savecraft
from savecraft import api, spans
from savecraft.formats.tirnanog.save import sample
from savecraft.studio import documents, hexview
from savecraft.studio.documents import Document, Workspace
from savecraft.studio.server import HEADER, make_app

TOKEN = "test-token-0123456789"


@pytest.fixture(scope="module")
def save() -> bytes:
    return savecraft.build(sample.server_save(users=40))


def _fields(value: Any, path: str) -> Iterator[str]:
    """Every field path under ``path`` in a model value (records and lists)."""
    import dataclasses

    yield path
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            if not f.name.startswith("_"):
                yield from _fields(getattr(value, f.name), f"{path}.{f.name}")
    elif isinstance(value, list | tuple):
        for i, item in enumerate(value[:4]):
            yield from _fields(item, f"{path}[{i}]")


def test_the_tree_answers_while_the_spans_are_recorded(save: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    """Span recording is held up (as a huge save holds it for seconds); the tree, the reveal of a
    field and the page's span-free bytes still answer; the held-up request answers once let go."""
    started, release = threading.Event(), threading.Event()
    record = spans.record

    def held(*args: Any, **kw: Any) -> spans.SpanMap:
        started.set()
        assert release.wait(60), "never let go"
        return record(*args, **kw)

    monkeypatch.setattr(spans, "record", held)

    async def main() -> None:
        ws = Workspace()
        doc = ws.open_bytes("world.sav", save)
        server = TestServer(make_app(ws, TOKEN), host="127.0.0.1")
        await server.start_server()
        try:
            async with ClientSession(headers={HEADER: TOKEN}, timeout=ClientTimeout(total=60)) as session:
                async def get(what: str, **params: str) -> Any:
                    async with session.get(server.make_url(f"/api/doc/{doc.id}/{what}"), params=params) as r:
                        assert r.status == 200, await r.text()
                        return await r.json()

                spaces = asyncio.ensure_future(get("spaces"))
                assert await asyncio.to_thread(started.wait, 30), "the spaces request never recorded"
                top = await asyncio.wait_for(get("tree"), 20)  # would wait for `release` before
                assert "chunks" in [c["path"] for c in top["children"]]
                shown = await asyncio.wait_for(get("reveal", path="users[3].entity.x"), 30)
                assert shown["path"] == "users[3].entity.x"
                raw = await asyncio.wait_for(get("bytes", offset="0", length="16"), 30)
                assert bytes.fromhex(raw["hex"]) == save[:16]
                assert not spaces.done()  # it really was held up meanwhile
                release.set()
                assert {s["name"] for s in await asyncio.wait_for(spaces, 60)} == {"file", "payload"}
                x = await asyncio.wait_for(get("spans", path="users[3].entity.x"), 60)
                assert [s["tree"] for s in x] == ["users[3].entity.x"]
        finally:
            release.set()
            await server.close()

    asyncio.run(asyncio.wait_for(main(), 120))


def test_a_field_inside_a_chunk_is_answered_from_the_chunk(save: bytes) -> None:
    smap = spans.record(save, lazy=True)
    model = api.parse(save)
    checked = 0
    for user in (0, 3, 39):
        for path in _fields(model.users[user], f"users[{user}]"):
            quick = smap.unit_spans(path)
            whole = list(dict.fromkeys(smap.spans_for(path)))
            if path == f"users[{user}]":
                assert quick is None  # the chunk itself: the container's notes of it count too
                continue
            if quick is None:
                continue  # nothing recorded under it inside the chunk: the whole-file answer stands
            assert sorted(quick) == sorted(whole), path
            checked += 1
    assert checked > 150
    assert smap.unit_spans("chunks") is None and smap.unit_spans("header") is None  # above every chunk


def test_the_studio_answers_a_field_without_sorting_the_whole_file(save: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    doc = Document("d1", "world.sav", save)
    smap = doc.span_map()
    got = hexview.spans_for(doc, "users[5].entity.x")
    assert [s["tree"] for s in got] == ["users[5].entity.x"]
    assert smap._lists == {}  # no space's spans were sorted for it
    assert got == [{**s.to_json(), "tree": s.path} for s in smap.spans_for("users[5].entity.x")]


def test_big_files_are_validated_in_a_process_of_their_own(save: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    broken = bytearray(save)
    broken[40] ^= 0xFF  # inside the compressed payload
    broken = bytes(broken)
    here = api.validate(broken)
    assert here.problems
    monkeypatch.setattr(documents, "SEPARATE_VALIDATION", 0)
    monkeypatch.setattr(documents, "_spare_core", lambda: True)  # (a loaded machine keeps it here)

    def not_here(*args: Any) -> Any:
        raise AssertionError("validated in the studio's own process")

    monkeypatch.setitem(documents._JOBS, "validate", not_here)
    problems, notes = documents.validate_data(broken, "tirnanog-save")
    assert problems == here.problems and notes == here.notes


def test_a_range_is_probed_once_per_kind_of_field(save: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[str] = []
    real = documents._JOBS["range"]

    def counted(data: bytes, format: str, path: str) -> Any:
        asked.append(path)
        return real(data, format, path)

    monkeypatch.setitem(documents._JOBS, "range", counted)
    hexview._RANGES.clear()
    monkeypatch.setattr(documents, "_spare_core", lambda: False)  # here, where it can be counted
    doc = Document("d1", "world.sav", save)
    first = hexview.allowed_range(doc, "users[3].entity.x")
    assert first is not None and "-2147483648" in first
    assert hexview.allowed_range(doc, "users[9].entity.x") == first
    assert asked == ["users[3].entity.x"]  # the second player's x: the same kind of field
    assert hexview.allowed_range(doc, "users[3].entity.map") != first
    assert asked == ["users[3].entity.x", "users[3].entity.map"]


def test_a_query_while_the_spans_are_sorted_finds_them(save: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    """A query that comes while another sorts the spans (the studio's threads share one map) must
    not find its space counted and its list missing: the counts were published before the lists
    (an empty hex page). The query is made at the moment the sort has its list and has not yet
    published it, from inside the sort, as another thread's query can come then."""
    smap = spans.record(save, lazy=True)
    seen: list[spans.Span | None] = []
    real = spans.accumulate

    def sorting(*args: Any, **kw: Any) -> Any:
        if not seen:
            seen.append(None)
            seen[0] = smap.at(spans.FILE, 0)  # before this sort's lists are published
        return real(*args, **kw)

    monkeypatch.setattr(spans, "accumulate", sorting)
    smap.spans(spans.FILE)
    assert seen and seen[0] is not None and seen[0].path == "magic"
    assert [sp.path for sp in smap.covering(spans.FILE, 0, 8)][:1] == ["magic"]


def test_a_big_file_is_parsed_once_for_the_tree_and_the_bytes(save: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    """From SHARED_PARSE bytes the model is the span recording's (no second whole-file parse
    after the tree); a file whose recording met a problem is read as before."""
    monkeypatch.setattr(documents, "SHARED_PARSE", 0)
    doc = Document("d1", "world.sav", save)
    parsed: list[bytes] = []
    real = doc.format.parse
    monkeypatch.setattr(doc, "format", dataclasses.replace(doc.format, parse=lambda d, r: parsed.append(d) or real(d, r)))
    assert doc.model is doc.span_map().model and not parsed
    assert doc.model.users[3].name == api.parse(save).users[3].name

    broken = bytearray(save)
    broken[-1] ^= 0xFF  # the CRC: the recording notes a problem
    bad = Document("d2", "broken.sav", bytes(broken))
    assert bad.span_map().report.problems
    assert bad.model is not bad.span_map().model  # read strictly, then in validate mode, as before
