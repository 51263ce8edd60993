"""A TirNanoG save built from its dump is deflated in a thread while the dump is decoded.

``jsonmap.loads`` starts a :class:`savecraft.compression.DeflateWorker` at the
dump's level and feeds it each chunk's bytes as they are made; ``build`` takes
its stream only when the payload it builds is the content compressed. Checked
here: zlib's output at levels 1 to 9 does not depend on how the input is split
(the premise), the bytes stay those of the original file, an edit after decoding
is compressed again, errors come back as FormatError, the queue bounds what
waits, and no thread is left behind.
"""

from __future__ import annotations

import random
import subprocess
import sys
import threading
import time
import zlib
from pathlib import Path
from collections import Counter
from typing import Any

import orjson
import pytest

import savecraft
from savecraft import compression, jsonmap
from savecraft.compression import STREAM_BATCH, STREAM_DEPTH, Container, DeflateWorker, compress
from savecraft.errors import FormatError
from savecraft.formats.tirnanog.save import codec, sample
from savecraft.formats.tirnanog.save.model import DenyChunk, GlobalsChunk, QuestsChunk


def _deflate_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "savecraft-deflate" and t.is_alive()]


@pytest.fixture(scope="module")
def server() -> bytes:
    return savecraft.build(sample.server_save(users=300, attributes=20, items=30))


@pytest.fixture(scope="module")
def content(server: bytes) -> bytes:
    return codec.payload_bytes(savecraft.load(server))


def _splits(content: bytes, seed: int) -> list[bytes]:
    """``content`` cut at random places: empty pieces, single bytes, pieces over a batch."""
    rng = random.Random(seed)
    pieces, pos = [], 0
    while pos < len(content):
        n = rng.choice([0, 1, 2, 7, 100, 4096, 65537, STREAM_BATCH + 3])
        pieces.append(content[pos : pos + n])
        pos += n
    return pieces


@pytest.mark.parametrize("container", list(Container))
@pytest.mark.parametrize("level", range(1, 10))
def test_the_stream_is_zlibs_whole_output_however_the_input_is_split(content: bytes, level: int,
                                                                     container: Container) -> None:
    whole = compress(content, container, level)
    for seed in range(4):
        worker = DeflateWorker(level, container)
        for piece in _splits(content, seed * 10 + level):
            worker.feed(piece)
        assert worker.result() == whole
        assert worker.fed(content) and not worker.fed(content + b"x") and not worker.fed(content[:-1])
        assert not worker.fed(content[:100] + b"?" + content[101:])
    # zlib itself, fed the same uneven pieces with no batching in between
    c = zlib.compressobj(level, zlib.DEFLATED, container.wbits)
    assert b"".join([*map(c.compress, _splits(content, level)), c.flush()]) == whole


def test_level_0_depends_on_the_split_and_is_not_streamed(content: bytes) -> None:
    big = content * 8
    c = zlib.compressobj(0)
    pieces = [big[:3], big[3 : 1 << 17], big[1 << 17 :]]
    split = b"".join([*map(c.compress, pieces), c.flush()])
    assert split != compress(big, Container.ZLIB, 0)  # stored blocks end where the input did
    assert zlib.decompress(split) == big
    with pytest.raises(ValueError):
        DeflateWorker(0)


@pytest.mark.parametrize("level", [0, 1, 6, 9])
def test_dump_then_build_gives_the_file_at_every_level(level: int, monkeypatch: pytest.MonkeyPatch) -> None:
    save = sample.server_save(users=60, attributes=20, items=30)
    save.encoding.deflate.level = level
    data = savecraft.build(save)
    text = jsonmap.dumps(savecraft.load(data))
    model = jsonmap.loads(text)
    streamed = model.encoding.deflate.streamed
    assert (streamed is None) == (level == 0)
    if streamed is not None:  # build compresses nothing itself: the thread did
        monkeypatch.setattr(compression, "compress", _no_compress)
    assert savecraft.build(model) == data


def _no_compress(*args: Any) -> bytes:
    raise AssertionError("compressed again on the caller's thread")


def test_a_big_dump_read_piece_by_piece_builds_from_the_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    data = savecraft.build(sample.server_save(users=2_000, attributes=20, items=30))
    text = jsonmap.dumps(savecraft.load(data))
    monkeypatch.setattr(jsonmap, "STREAM_MIN", 0)
    monkeypatch.setattr(jsonmap, "_PIECE_TEXT", 1 << 16)
    assert jsonmap._streamed(text) is not None
    model = jsonmap.loads(text)
    assert model.encoding.deflate.streamed is not None
    monkeypatch.setattr(compression, "compress", _no_compress)
    assert savecraft.build(model) == data


def test_from_json_does_not_stream(server: bytes) -> None:
    """A caller of from_json may edit before building: nothing is compressed ahead for it."""
    model = jsonmap.from_json(jsonmap.parse_text(jsonmap.dumps(savecraft.load(server))))
    assert model.encoding.deflate.streamed is None
    assert savecraft.build(model) == server


def test_an_edit_after_decoding_is_compressed_again(server: bytes) -> None:
    model = jsonmap.loads(jsonmap.dumps(savecraft.load(server)))
    assert model.encoding.deflate.streamed is not None
    model.users[5].name = "renamed"
    model.users[7].entity.inventory[0].quantity = 12345
    out = savecraft.build(model)
    assert out != server
    again = savecraft.load(out)
    assert again.users[5].name == "renamed" and again.users[7].entity.inventory[0].quantity == 12345
    payload = codec.payload_bytes(again)
    assert compress(payload, Container.ZLIB, 6) in out  # the new payload's own stream
    model.encoding.deflate.level = 9  # a level changed after decoding: not the thread's stream
    assert compress(payload, Container.ZLIB, 9) in savecraft.build(model)


def test_a_thread_error_is_the_callers_format_error(server: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    class Broken:
        def compress(self, data: bytes) -> bytes:
            raise zlib.error("Error -2 while compressing data")

        def flush(self) -> bytes:
            return b""

    text = jsonmap.dumps(savecraft.load(server))
    real = zlib.compressobj
    monkeypatch.setattr(zlib, "compressobj", lambda *a: Broken())
    model = jsonmap.loads(text)
    monkeypatch.setattr(zlib, "compressobj", real)
    with pytest.raises(FormatError) as info:
        savecraft.build(model)
    assert "zlib failed" in str(info.value) and "Error -2" in str(info.value)
    assert not _deflate_threads()


def test_no_thread_is_left_behind(server: bytes) -> None:
    text = jsonmap.dumps(savecraft.load(server))
    model = jsonmap.loads(text)  # never built: the thread ends on its own
    streamed = model.encoding.deflate.streamed
    assert streamed is not None
    streamed._thread.join(30)
    assert not _deflate_threads()
    # a dump the fast path refuses half-way: the stream is dropped, the careful path names it
    doc = orjson.loads(text)
    users = [c for c in doc["data"]["chunks"] if c["kind"] == "USER"]
    users[250]["entity"]["x"] = "far"
    with pytest.raises(FormatError) as info:
        jsonmap.loads(orjson.dumps(doc, option=orjson.OPT_INDENT_2))
    assert info.value.path == "users[250].entity.x"
    assert not _deflate_threads()
    # a chunk the writer refuses (a magic of 3 bytes): the stream is paused there (its thread
    # ends once it compressed what came before), and build names the problem
    doc["data"]["chunks"] = [c for c in doc["data"]["chunks"] if c is not users[250]]
    doc["data"]["chunks"][-1]["magic"] = "XTR"
    model = jsonmap.loads(orjson.dumps(doc, option=orjson.OPT_INDENT_2))
    streamed = model.encoding.deflate.streamed
    assert streamed is not None and streamed.paused
    streamed._thread.join(30)
    assert not _deflate_threads()
    with pytest.raises(FormatError) as info:
        savecraft.build(model)
    assert info.value.path.endswith("magic")


def test_the_queue_bounds_what_waits(monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker that does not keep up makes the producer wait: at most STREAM_DEPTH batches
    (plus the one being compressed and the one being gathered) exist at once."""
    go = threading.Event()

    real = zlib.compressobj

    class Slow:
        def __init__(self) -> None:
            self.c = real(6)

        def compress(self, data: bytes) -> bytes:
            go.wait(30)
            return self.c.compress(data)

        def flush(self) -> bytes:
            return self.c.flush()

    monkeypatch.setattr(zlib, "compressobj", lambda *a: Slow())
    worker = DeflateWorker(6)
    piece = bytes(range(256)) * (STREAM_BATCH // 256)
    fed = []

    def produce() -> None:
        for _ in range(STREAM_DEPTH + 10):
            worker.feed(piece)
            fed.append(1)

    producer = threading.Thread(target=produce)
    producer.start()
    deadline = time.monotonic() + 30
    while len(fed) < STREAM_DEPTH + 1 and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.2)
    assert len(fed) == STREAM_DEPTH + 1 and producer.is_alive()  # waiting on the full queue
    go.set()
    producer.join(30)
    assert not producer.is_alive()
    data = piece * (STREAM_DEPTH + 10)
    assert zlib.decompress(worker.result()) == data and worker.fed(data)


def test_dropping_a_worker_stops_its_thread() -> None:
    worker = DeflateWorker(6)
    worker.feed(b"x" * (STREAM_BATCH + 1))
    worker.drop()
    assert not worker._thread.is_alive() and worker.dropped
    with pytest.raises(FormatError):
        worker.result()


def test_savecraft_dump_then_build_on_the_command_line(tmp_path: Path, server: bytes) -> None:
    src = tmp_path / "server.sav"
    src.write_bytes(server)
    run = [sys.executable, "-m", "savecraft"]
    subprocess.run([*run, "dump", str(src), "-o", str(tmp_path / "s.json")], check=True,
                   capture_output=True)
    r = subprocess.run([*run, "build", str(tmp_path / "s.json"), "-o", str(tmp_path / "out.sav")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "out.sav").read_bytes() == server


def test_the_switch_interval_is_short_while_fed_and_restored_after(server: bytes) -> None:
    before = sys.getswitchinterval()
    first = DeflateWorker(6)
    second = DeflateWorker(6)
    assert sys.getswitchinterval() == min(before, compression.STREAM_SWITCH)
    first.close()
    assert sys.getswitchinterval() == min(before, compression.STREAM_SWITCH)  # one still fed
    second.drop()
    assert sys.getswitchinterval() == before
    first.result()
    savecraft.build(jsonmap.loads(jsonmap.dumps(savecraft.load(server))))
    assert sys.getswitchinterval() == before


def _count_encodes(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """The chunks encoded from now on, by type (both places that encode one count)."""
    from savecraft.formats.tirnanog.save import jsonfast

    counts: Counter[str] = Counter()
    real = codec.encode_chunk

    def counting(chunk: Any, path: str = "") -> bytes:
        counts[type(chunk).__name__] += 1
        return real(chunk, path)

    monkeypatch.setattr(codec, "encode_chunk", counting)
    monkeypatch.setattr(jsonfast, "encode_chunk", counting)
    return counts


def test_each_chunk_is_encoded_once(server: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    """DENY, GLBL, QSTS, the unknown chunk and the changed map of a streamed build are encoded
    once, as players are: the bytes made for the thread are the ones build writes (twice each
    before: once for the thread, once by payload_bytes)."""
    text = jsonmap.dumps(savecraft.load(server))
    counts = _count_encodes(monkeypatch)
    model = jsonmap.loads(text)
    assert model.encoding.deflate.streamed is not None
    assert savecraft.build(model) == server
    assert counts == {"DenyChunk": 1, "GlobalsChunk": 1, "QuestsChunk": 1, "RawChunk": 1,
                      "MapChunk": 1}
    # the chunks kept with their bytes are the chunks decoded from the dump
    loaded = savecraft.load(server)
    for cls in (GlobalsChunk, QuestsChunk, DenyChunk):
        assert model.chunks.first(cls) == loaded.chunks.first(cls)
    assert list(model.chunks) == list(loaded.chunks)


def test_decoding_a_dump_imports_no_numpy(tmp_path: Path, server: bytes) -> None:
    """The changed map is encoded by build, not while the dump is decoded: its RLE encoder
    imports numpy (about 14 MB resident), which then landed on build's peak, while the text
    and the model are both held (fails before: imported by loads)."""
    dump = tmp_path / "server.json"
    dump.write_text(jsonmap.dumps(savecraft.load(server)).decode())
    code = ("import sys, savecraft; from savecraft import jsonmap\n"
            "text = open(sys.argv[1], 'rb').read()\n"
            "model = jsonmap.loads(text)\n"
            "streamed = model.encoding.deflate.streamed\n"
            "print(streamed is not None and streamed.paused, 'numpy' in sys.modules)\n"
            "out = savecraft.build(model)\n"
            "print(out == open(sys.argv[2], 'rb').read(), streamed._made is not None)\n")
    (tmp_path / "server.sav").write_bytes(server)
    r = subprocess.run([sys.executable, "-c", code, str(dump), str(tmp_path / "server.sav")],
                       capture_output=True, text=True, check=True)
    assert r.stdout.split() == ["True", "False", "True", "True"]


def test_a_paused_stream_is_finished_by_the_caller(content: bytes) -> None:
    """What the thread compressed before the pause and the rest compressed by finish make
    zlib's stream of the whole; a content that does not start with what was fed is refused."""
    whole = compress(content, Container.ZLIB, 6)
    for cut in (0, 1, len(content) // 3, len(content) - 1, len(content)):
        worker = DeflateWorker(6)
        for piece in _splits(content[:cut], cut):
            worker.feed(piece)
        worker.pause()
        worker._thread.join(30)
        assert not worker._thread.is_alive()  # the thread ended at the pause
        assert worker.finish(content) == whole
        assert worker.fed(content)
    worker = DeflateWorker(6)
    worker.feed(content[:1000])
    worker.pause()
    assert worker.finish(b"?" + content[1:]) is None
    assert not _deflate_threads()
    ended = DeflateWorker(6)
    ended.feed(content[:1000])
    ended.close()
    assert ended.finish(content) is None  # an ended stream covers all of the content or nothing
    assert ended.finish(content[:1000]) == compress(content[:1000], Container.ZLIB, 6)


def test_a_save_with_many_changed_maps_encodes_each_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Many maps after the players: the stream is paused at the first, build encodes each map
    once and compresses them on the thread's compressor; the bytes are the file's."""
    data = savecraft.build(sample.server_save(users=40, attributes=20, items=30, maps=25))
    text = jsonmap.dumps(savecraft.load(data))
    counts = _count_encodes(monkeypatch)
    model = jsonmap.loads(text)
    streamed = model.encoding.deflate.streamed
    assert streamed is not None and streamed.paused
    monkeypatch.setattr(compression, "compress", _no_compress)  # the rest goes on the same stream
    assert savecraft.build(model) == data
    assert counts["MapChunk"] == 25 and set(counts.values()) == {1, 25}
    assert not _deflate_threads()


def test_maps_before_the_players_are_encoded_while_decoding(monkeypatch: pytest.MonkeyPatch) -> None:
    """Maps followed by enough players (STREAM_HOLD bytes; lowered here) are encoded while the
    dump is decoded, each once, and the stream goes on in the thread: nothing is left to
    compress for build. Under the threshold the stream is paused at the first map."""
    from savecraft.formats.tirnanog.save import model as tng_model
    from savecraft.formats.tirnanog.save.model import ChunkList, MapChunk

    save = sample.server_save(users=200, attributes=20, items=30, maps=5)
    chunks = list(save.chunks)
    maps = [c for c in chunks if type(c) is MapChunk]
    save.chunks = ChunkList([*chunks[:3], *maps, *(c for c in chunks[3:] if type(c) is not MapChunk)])
    data = savecraft.build(save)
    text = jsonmap.dumps(savecraft.load(data))
    counts = _count_encodes(monkeypatch)
    monkeypatch.setattr(tng_model, "STREAM_HOLD", 4096)
    model = jsonmap.loads(text)
    streamed = model.encoding.deflate.streamed
    assert streamed is not None and not streamed.paused
    with monkeypatch.context() as m:
        m.setattr(compression, "compress", _no_compress)
        m.setattr(streamed, "_compressor", None)  # finish compresses nothing on the caller's side
        assert savecraft.build(model) == data
    assert counts["MapChunk"] == 5 and set(counts.values()) == {1, 5}
    assert [type(c) for c in model.chunks] == [type(c) for c in savecraft.load(data).chunks]
    monkeypatch.setattr(tng_model, "STREAM_HOLD", 1 << 30)
    model = jsonmap.loads(text)
    streamed = model.encoding.deflate.streamed
    assert streamed is not None and streamed.paused
    assert savecraft.build(model) == data
    assert not _deflate_threads()
