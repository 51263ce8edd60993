"""When the studio's validation of a document starts: beside the model's parse, or after it.

The page asks for the problems together with the tree. A validation that runs in a process
of its own starts at once, on the other core, while the model is still being parsed under
the document's lock (it used to wait for that lock: the problems of a 50,000-player save
came a parse later). One that runs in the studio's own process waits for the parse, since
both hold the one interpreter lock and the tree needs only the model.
"""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from aiohttp import ClientSession
from aiohttp.test_utils import TestServer

import savecraft
from savecraft.formats.tirnanog.save import sample
from savecraft.studio import documents
from savecraft.studio.documents import Document, Workspace
from savecraft.studio.server import HEADER, make_app

WAIT = 60  # seconds: a bound, never a synchronisation (each wait ends on an event)
HOLD = 600  # how long the stand-in parse may hold the lock: it is released by the test
TOKEN = "test-token-0123456789"


@pytest.fixture()
def broken_save() -> bytes:
    save = sample.server_save(users=5)
    save.users[3].name = save.users[1].name  # one problem validate names
    return savecraft.build(save)


def _hold(lock: threading.RLock) -> tuple[threading.Event, threading.Event]:
    """A thread holding ``lock`` (as the model's parse does) until ``release`` is set."""
    held, release = threading.Event(), threading.Event()

    def run() -> None:
        with lock:
            held.set()
            release.wait(HOLD)

    threading.Thread(target=run, daemon=True).start()
    assert held.wait(WAIT)
    return held, release


def test_a_validation_in_a_process_of_its_own_does_not_wait_for_the_parse(
        broken_save: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(documents, "SEPARATE_VALIDATION", 0)  # this small save is big enough
    monkeypatch.setattr(documents, "_spare_core", lambda: True)
    doc = Document("d1", "server.sav", broken_save)
    _, release = _hold(doc.lock)
    try:  # answered while the lock is held (asked from a thread of its own, as the server does)
        with ThreadPoolExecutor(1) as pool:
            asked = pool.submit(doc.problems)
            try:
                problems, _ = asked.result(timeout=WAIT)
            finally:
                release.set()
    finally:
        release.set()
    assert [(p.path, p.expected) for p in problems] == [("users[3].name", "a user name not used before")]
    assert problems == savecraft.validate(broken_save).problems


def test_a_validation_in_this_process_starts_after_the_parse(
        broken_save: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(documents, "_spare_core", lambda: False)  # whatever the size
    doc = Document("d1", "server.sav", broken_save)
    _, release = _hold(doc.lock)
    started_after_release: list[bool] = []
    real = documents._JOBS["validate"]

    def validate(data: bytes, format: str) -> tuple[list[savecraft.Problem], list[str]]:
        started_after_release.append(release.is_set())
        return real(data, format)  # type: ignore[no-any-return]

    monkeypatch.setitem(documents._JOBS, "validate", validate)
    future = doc._validate(doc.data)
    release.set()
    problems, _ = future.result(timeout=WAIT)
    assert started_after_release == [True]
    assert problems == savecraft.validate(broken_save).problems


def _record_starts(monkeypatch: pytest.MonkeyPatch, doc: Document) -> list[bool]:
    """Whether a tree had been answered when each validation started."""
    seen: list[bool] = []
    real = documents._JOBS["validate"]

    def validate(data: bytes, format: str) -> tuple[list[savecraft.Problem], list[str]]:
        seen.append(doc.tree_shown.is_set())
        return real(data, format)  # type: ignore[no-any-return]

    monkeypatch.setitem(documents._JOBS, "validate", validate)
    return seen


def test_a_big_file_validated_here_waits_for_the_first_tree_asked_for_beside_it(
        broken_save: bytes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The page asks for the problems and the tree at once; in the studio's own process the
    validation starts once the tree is answered (through the server, as the page asks)."""
    monkeypatch.setattr(documents, "SEPARATE_VALIDATION", 0)  # big, as far as this is concerned
    monkeypatch.setattr(documents, "_spare_core", lambda: False)
    path = tmp_path / "server.sav"
    path.write_bytes(broken_save)
    ws = Workspace()
    doc = ws.open_path(path)
    seen = _record_starts(monkeypatch, doc)

    async def main() -> tuple[Any, Any]:
        server = TestServer(make_app(ws, TOKEN), host="127.0.0.1")
        await server.start_server()
        try:
            async with ClientSession(headers={HEADER: TOKEN}) as session:
                async def get(what: str) -> Any:
                    async with session.get(server.make_url(f"/api/doc/{doc.id}/{what}"),
                                           timeout=WAIT) as r:
                        assert r.status == 200
                        return await r.json()
                return tuple(await asyncio.gather(get("problems"), get("tree")))
        finally:
            await server.close()

    problems, shown = asyncio.run(main())
    assert seen == [True]
    assert shown["children"] and [p["path"] for p in problems["problems"]] == ["users[3].name"]


def test_a_big_file_validated_here_with_no_tree_asked_for_waits_a_bounded_time(
        broken_save: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(documents, "SEPARATE_VALIDATION", 0)
    monkeypatch.setattr(documents, "_spare_core", lambda: False)
    monkeypatch.setattr(documents, "TREE_FIRST", 0.05)
    doc = Document("d1", "server.sav", broken_save)
    seen = _record_starts(monkeypatch, doc)
    problems, _ = doc.problems()
    assert seen == [False] and problems == savecraft.validate(broken_save).problems
