"""When the studio's validation of a document starts: beside the model's parse, or after it.

A validation that runs in a process of its own starts as the file opens, on the other core,
while the model is still being parsed under the document's lock (it used to wait for that
lock, and to start only when the page asked, after the tree: the problems of a 50,000-player
save came a parse later). One that runs in the studio's own process waits for the parse,
since both hold the one interpreter lock and the tree needs only the model.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import savecraft
from savecraft.formats.tirnanog.save import sample
from savecraft.studio import documents
from savecraft.studio.documents import Document, Workspace

WAIT = 60  # seconds: a bound, never a synchronisation (each wait ends on an event)
HOLD = 600  # how long the stand-in parse may hold the lock: it is released by the test


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


def test_a_big_file_opened_with_a_core_spare_is_validated_from_the_start(
        broken_save: bytes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Opened (as the command line and the page open files), its validation is under way
    before anything asks; opened as one of a folder for the timeline, it is not."""
    monkeypatch.setattr(documents, "SEPARATE_VALIDATION", 0)
    monkeypatch.setattr(documents, "_spare_core", lambda: True)
    path = tmp_path / "server.sav"
    path.write_bytes(broken_save)
    ws = Workspace()
    doc = ws.open_path(path)
    assert doc._validation is not None and doc._validation[0] is doc.data
    started = doc._validation[1]
    problems, _ = doc.problems()  # the same run, not a second one
    assert doc._validation[1] is started
    assert problems == savecraft.validate(broken_save).problems
    assert ws.open_path(path, validate=False)._validation is None
    monkeypatch.setattr(documents, "_spare_core", lambda: False)  # no core spare: only when asked
    assert ws.open_path(path)._validation is None


def test_a_validation_in_this_process_once_the_model_is_read_does_not_wait_for_the_lock(
        broken_save: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    """The tree and reveal requests of a person's clicks hold the document's lock one after
    another; a validation asked for then does not queue behind them."""
    monkeypatch.setattr(documents, "_spare_core", lambda: False)
    doc = Document("d1", "server.sav", broken_save)
    doc.model  # noqa: B018 (read: the parse is over)
    _, release = _hold(doc.lock)  # a click's request, holding the lock
    try:
        with ThreadPoolExecutor(1) as pool:
            asked = pool.submit(doc.problems)
            try:
                problems, _ = asked.result(timeout=WAIT)
            finally:
                release.set()
    finally:
        release.set()
    assert problems == savecraft.validate(broken_save).problems
