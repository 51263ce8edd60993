"""The fast paths of TirNanoG save dumps and builds give what the careful ones give.

Players and NPCs go straight between chunk bytes and JSON (``jsonfast``), a
big dump is parsed piece by piece (``jsonmap.loads``), and the compression
level is found from a prefix of the stream. Each is compared here with the
path it shortcuts: the dataclasses and the one JSON mapping, the whole
document and the strict decoder, the whole stream recompressed.
"""

from __future__ import annotations

import copy
import zlib
from pathlib import Path
from typing import Any

import orjson
import pytest

import savecraft
from savecraft import compression, jsonmap
from savecraft.compression import SETTLE_OUTPUT, Container, Deflated, compress, find_level
from savecraft.errors import FormatError
from savecraft.formats.tirnanog.save import codec, jsonfast, sample
from savecraft.formats.tirnanog.save.model import Chunk, Entity, InventoryItem, UserChunk


@pytest.fixture(scope="module")
def server() -> bytes:
    return savecraft.build(sample.server_save(users=40, attributes=20, items=30))


def _raws(data: bytes) -> list[bytes]:
    save = savecraft.load(data)
    raws = [save.chunks.raw_or_none(i) for i in range(len(save.chunks))]
    assert all(r is not None for r in raws)
    return [r for r in raws if r is not None]


def _careful_bytes(obj: Any) -> bytes | FormatError:
    """What the strict decoder and the Writer make of one chunk object (or their error)."""
    try:
        return codec.encode_chunk(jsonmap.decoder(Chunk)(obj, "chunk"), "chunk")
    except FormatError as err:
        return err


# -- bytes to JSON ------------------------------------------------------------------------


def test_every_chunk_dumps_as_the_mapping_writes_its_dataclass(server: bytes) -> None:
    enc = jsonmap.encoder(Chunk)
    fast = 0
    for raw in _raws(server) + _raws(savecraft.build(sample.player_save())):
        obj = jsonfast.chunk_json(raw)
        if obj is None:
            assert raw[:4] not in (b"USER", b"NPC\0")
            continue
        fast += 1
        careful = enc(codec.decode_chunk(raw, 0))
        assert obj == careful
        assert orjson.dumps(obj, option=orjson.OPT_INDENT_2) == orjson.dumps(careful, option=orjson.OPT_INDENT_2)
    assert fast == 40 + 3 + 1  # the server's users and NPCs, the player's user


def test_a_dump_leaves_the_players_undecoded_and_writes_the_same_text(server: bytes) -> None:
    save = savecraft.load(server)
    text = jsonmap.dumps(save)
    assert all(save.chunks.raw_or_none(i) is not None for i in range(3, 43))  # still lazy
    decoded = savecraft.load(server)
    decoded.chunks.decode_all()
    assert jsonmap.dumps(decoded) == text
    assert jsonmap.dumps(save, indent=False) == jsonmap.dumps(decoded, indent=False)
    assert jsonmap.to_json(savecraft.load(server)) == jsonmap.to_json(decoded)


def test_record_and_rows_encoders_are_the_mappings() -> None:
    user = sample.server_save(users=1).users[0]
    e = user.entity
    entity = jsonmap.record_encoder(Entity)(
        e.map, e.direction, e.x, e.y, e.behaviour, e.transport, e.altitude, e.attributes,
        jsonmap.rows_encoder(InventoryItem)([i.quantity for i in e.inventory],
                                            [i.object_id for i in e.inventory]),
        [jsonmap.encoder(type(s))(s) for s in e.skills], [jsonmap.encoder(type(q))(q) for q in e.quests])
    assert entity == jsonmap.encoder(Entity)(e)
    obj = jsonmap.record_encoder(UserChunk, tagged=True)(
        user.name, user.password_hash, user.created, user.last_login, user.last_logout, user.last_seen,
        user.language, user.flags, user.character_options, user.equipped, user.belt, entity)
    assert obj == jsonmap.encoder(Chunk)(user)
    assert list(obj) == list(jsonmap.encoder(Chunk)(user))  # the same order: the same text


# -- JSON to bytes ------------------------------------------------------------------------


def test_every_chunk_builds_as_the_strict_decoder_and_the_writer_do(server: bytes) -> None:
    doc = orjson.loads(jsonmap.dumps(savecraft.load(server)))
    for obj in doc["data"]["chunks"]:
        fast = jsonfast.chunk_bytes(obj)
        if obj["kind"] in ("USER", "NPC"):
            assert fast is not None
            assert fast == _careful_bytes(obj)
        else:
            assert fast is None


def _user(server: bytes) -> dict[str, Any]:
    doc = orjson.loads(jsonmap.dumps(savecraft.load(server)))
    user: dict[str, Any] = doc["data"]["chunks"][5]
    assert user["kind"] == "USER"
    return user


def _set(obj: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    out = copy.deepcopy(obj)
    target: Any = out
    for step in path[:-1]:
        target = target[step]
    if value is _DELETE:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return out


class _Delete:
    def __repr__(self) -> str:
        return "deleted"


_DELETE: Any = _Delete()
EDITS: list[tuple[tuple[Any, ...], Any]] = [
    (("flags",), 256), (("flags",), True), (("flags",), -1), (("created",), 1 << 64),
    (("created",), 1.0), (("name",), "a\0b"), (("name",), 7), (("language",), "eng"),
    (("language",), "é"), (("language",), "\u0151"), (("password_hash",), "not base64!"),
    (("password_hash",), "AAAA"), (("password_hash",), "A" * 48), (("character_options", 0), False),
    (("character_options",), list(range(256))), (("character_options", 0), 1 << 31),
    (("equipped", 3), 65536), (("equipped",), [0] * 31), (("belt", 0), None),
    (("entity", "map"), 1 << 24), (("entity", "map"), -1), (("entity", "direction"), 256),
    (("entity", "x"), 1 << 31), (("entity", "altitude"), True), (("entity", "attributes", 0), "1"),
    (("entity", "inventory", 2, "quantity"), -1), (("entity", "inventory", 2, "object_id"), True),
    (("entity", "inventory", 2, "kind"), "x"), (("entity", "inventory", 2), [1, 2]),
    (("entity", "inventory", 2, "quantity"), _DELETE), (("entity", "quests", 0, "quest_id"), 1 << 31),
    (("entity", "quests", 0, "completed"), 1), (("entity", "quests", 0, "quest_id"), -5),
    (("entity", "skills"), {}), (("entity", "kind"), "whatever"), (("entity", "extra"), 1),
    (("entity",), _DELETE), (("extra",), 0), (("belt",), _DELETE),
]


@pytest.mark.parametrize("path,value", EDITS, ids=[f"{'.'.join(map(str, p))}={v!r}"[:40] for p, v in EDITS])
def test_a_changed_field_builds_the_same_or_goes_the_careful_way(server: bytes, path: tuple[Any, ...],
                                                                  value: Any) -> None:
    obj = _set(_user(server), path, value)
    fast = jsonfast.chunk_bytes(obj)
    careful = _careful_bytes(obj)
    if isinstance(careful, FormatError):
        assert fast is None  # refused here; the careful path names the problem
    else:
        assert fast is None or fast == careful


def test_a_valid_change_builds_the_same_bytes_both_ways(server: bytes) -> None:
    for path, value in [(("flags",), 255), (("name",), "Ünïcødé"), (("language",), "g"),
                        (("entity", "quests", 0, "completed"), True), (("entity", "inventory"), []),
                        (("entity", "x"), -(1 << 31)), (("password_hash",), "AAAA")]:
        obj = _set(_user(server), path, value)
        fast = jsonfast.chunk_bytes(obj)
        assert fast is not None and fast == _careful_bytes(obj), path


# -- a dump read piece by piece -------------------------------------------------------------


@pytest.fixture(scope="module")
def big() -> tuple[bytes, bytes]:
    data = savecraft.build(sample.server_save(users=10_000))
    return data, jsonmap.dumps(savecraft.load(data))


def test_a_big_dump_is_read_piece_by_piece_and_builds_the_same_bytes(big: tuple[bytes, bytes]) -> None:
    data, text = big
    assert len(text) >= jsonmap.STREAM_MIN
    doc = jsonmap._streamed(text)
    assert doc is not None and len(doc["data"]["chunks"]._spans) > 4
    assert savecraft.build(jsonmap.loads(text)) == data
    assert jsonmap.loads(text) == jsonmap.from_json(jsonmap.parse_text(text))


def test_a_bad_field_deep_in_user_9999_is_named_by_its_path(big: tuple[bytes, bytes]) -> None:
    _, text = big
    doc = orjson.loads(text)
    chunks = doc["data"]["chunks"]
    k = next(i for i, c in enumerate(chunks) if c["kind"] == "USER") + 9_999
    chunks[k]["entity"]["inventory"][2]["quantity"] = "7"
    chunks[k]["entity"]["quests"][0]["completed"] = 0
    bad = orjson.dumps(doc, option=orjson.OPT_INDENT_2)
    assert jsonmap._streamed(bad) is not None  # read piece by piece until the bad user
    with pytest.raises(FormatError) as info:
        jsonmap.loads(bad)
    paths = [p.path for p in info.value.problems]
    assert paths == ["users[9999].entity.inventory[2].quantity", "users[9999].entity.quests[0].completed"]


def test_a_value_the_writer_refuses_deep_in_a_big_dump_is_named_by_its_path(big: tuple[bytes, bytes]) -> None:
    _, text = big
    doc = orjson.loads(text)
    chunks = doc["data"]["chunks"]
    k = next(i for i, c in enumerate(chunks) if c["kind"] == "USER") + 9_998
    chunks[k]["entity"]["inventory"][1]["object_id"] = -1  # an int, out of a u32's range
    model = jsonmap.loads(orjson.dumps(doc, option=orjson.OPT_INDENT_2))
    with pytest.raises(FormatError) as info:
        savecraft.build(model)
    assert info.value.path == "users[9998].entity.inventory[1].object_id"


def test_pieces_and_layouts_that_cannot_be_split(server: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jsonmap, "STREAM_MIN", 0)
    monkeypatch.setattr(jsonmap, "_PIECE_TEXT", 1)  # a piece per chunk
    text = jsonmap.dumps(savecraft.load(server))
    doc = jsonmap._streamed(text)
    assert doc is not None and len(doc["data"]["chunks"]._spans) == len(savecraft.load(server).chunks)
    assert savecraft.build(jsonmap.loads(text)) == server
    compact = jsonmap.dumps(savecraft.load(server), indent=False)
    assert jsonmap._streamed(compact) is None
    assert savecraft.build(jsonmap.loads(compact)) == server
    # An element closed at the wrong indentation: the pieces do not parse, the whole text does.
    skewed = text.replace(b'\n      },\n      {\n        "kind": "USER"', b'\n    },\n      {\n        "kind": "USER"', 1)
    assert skewed != text
    assert savecraft.build(jsonmap.loads(skewed)) == server


def test_a_consumed_document_still_names_users_by_their_index(server: bytes) -> None:
    doc = orjson.loads(jsonmap.dumps(savecraft.load(server), indent=False))
    doc["data"]["chunks"][3 + 30]["entity"]["x"] = "far"
    with pytest.raises(FormatError) as info:
        jsonmap.from_json(doc, consume=True)
    assert info.value.path == "users[30].entity.x"


# -- the compression level --------------------------------------------------------------------


@pytest.fixture(scope="module")
def content() -> bytes:
    """Chunk data whose compressed stream is longer than the prefix compared."""
    save = sample.server_save(users=1000, attributes=20, items=30)
    return codec.payload_bytes(savecraft.load(savecraft.build(save)))


@pytest.fixture()
def prefix_search(monkeypatch: pytest.MonkeyPatch) -> None:
    """The prefix search for content of any size (it is for content above 1 MiB)."""
    monkeypatch.setattr(compression, "WHOLE_BELOW", 0)


@pytest.mark.parametrize("whole", [False, True])
@pytest.mark.parametrize("level", range(10))
def test_the_level_found_rebuilds_byte_for_byte(content: bytes, level: int, whole: bool,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(compression, "WHOLE_BELOW", len(content) if whole else 0)
    original = compress(content, Container.ZLIB, level)
    assert len(original) > 2 * SETTLE_OUTPUT  # the prefix shortcut is what is tested
    assert find_level(content, original, Container.ZLIB) == level
    hint = Deflated.from_stream(original, content, Container.ZLIB)
    hint.settle(content)
    assert hint.original is None and hint.level == level
    assert hint.compress(content) == original


@pytest.mark.parametrize("strategy", [zlib.Z_FILTERED, zlib.Z_HUFFMAN_ONLY, zlib.Z_RLE, zlib.Z_FIXED])
@pytest.mark.usefixtures("prefix_search")
def test_another_strategy_keeps_the_original_stream(content: bytes, strategy: int) -> None:
    c = zlib.compressobj(6, zlib.DEFLATED, 15, 8, strategy)
    original = c.compress(content) + c.flush()
    hint = Deflated.from_stream(original, content, Container.ZLIB)
    hint.settle(content)
    assert hint.compress(content) == original  # a level when one reproduces it, else the bytes


@pytest.mark.usefixtures("prefix_search")
def test_a_stream_that_departs_from_zlib_after_the_prefix_is_caught_only_when_confirming(content: bytes) -> None:
    c = zlib.compressobj(6, zlib.DEFLATED, 15)
    cut = len(content) * 3 // 4
    original = c.compress(content[:cut]) + c.flush(zlib.Z_FULL_FLUSH) + c.compress(content[cut:]) + c.flush()
    assert zlib.decompress(original) == content and original != compress(content, Container.ZLIB, 6)
    assert find_level(content, original, Container.ZLIB) == 6  # the documented limit of the shortcut
    assert find_level(content, original, Container.ZLIB, enough=0) is None
    hint = Deflated.from_stream(original, content, Container.ZLIB)
    hint.settle(content, confirm=True)
    assert hint.original == original and hint.compress(content) == original


def test_dump_confirm_checks_the_whole_stream() -> None:
    data = savecraft.build(sample.server_save(users=2000, attributes=20, items=30))
    assert len(codec.payload_bytes(savecraft.load(data))) > compression.WHOLE_BELOW
    quick = jsonmap.dumps(savecraft.load(data))
    assert jsonmap.dumps(savecraft.load(data), confirm=True) == quick
    assert savecraft.build(jsonmap.loads(quick)) == data


# -- a dump written chunk by chunk ------------------------------------------------------------


def _whole(model: Any, indent: bool) -> bytes:
    """The dump's text from the whole document at once (what dumps wrote before streaming)."""
    doc = jsonmap.to_json(model)
    return orjson.dumps(doc, option=(orjson.OPT_INDENT_2 if indent else 0) | orjson.OPT_APPEND_NEWLINE)


@pytest.mark.parametrize("indent", [True, False])
def test_a_dump_written_chunk_by_chunk_is_the_whole_documents_text(server: bytes, indent: bool) -> None:
    from savecraft.formats.tirnanog.save.model import ChunkList, SaveGame

    empty = SaveGame(game_id="none", chunks=ChunkList())
    assert jsonmap.dumps(empty, indent=indent) == _whole(empty, indent)
    assert b"[]" in jsonmap.dumps(empty, indent=indent)
    save = savecraft.load(server)
    assert jsonmap.dumps(save, indent=indent) == _whole(savecraft.load(server), indent)
    # No placeholder text any more (the document is walked, not patched): a string of the
    # model with quotes, line breaks and NULs is written as one orjson call writes it.
    save.game_id = '\0"x\n\\'
    assert jsonmap.dumps(save, indent=indent) == _whole(save, indent)


def test_dump_confirm_option_on_the_command_line(tmp_path: Path) -> None:
    from savecraft import cli

    data = savecraft.build(sample.server_save(users=50, attributes=4, items=3))
    (tmp_path / "w.sav").write_bytes(data)
    for extra in ([], ["--confirm"]):
        out = tmp_path / f"w{len(extra)}.json"
        assert cli.main(["dump", str(tmp_path / "w.sav"), "-o", str(out), *extra]) == 0
        assert savecraft.build(jsonmap.loads(out.read_bytes())) == data
