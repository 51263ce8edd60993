"""TirNanoG saved games: generated saves of both kinds, JSON, preview, edits."""

from __future__ import annotations

import io
import zlib

import numpy as np
import pytest
from hypothesis import given
from PIL import Image

import savecraft
from savecraft.formats.tirnanog.save import codec, preview, sample
from savecraft.formats.tirnanog.save.model import (
    AddressFamily,
    DenyChunk,
    InventoryItem,
    MapChunk,
    RawChunk,
    SaveGame,
    UserChunk,
)

from .strategies import save_files, saves


@pytest.fixture(scope="module")
def player_bytes() -> bytes:
    return savecraft.build(sample.player_save())


@pytest.fixture(scope="module")
def server_bytes() -> bytes:
    return savecraft.build(sample.server_save(users=40))


def test_player_save_round_trip(player_bytes: bytes) -> None:
    m = savecraft.load(player_bytes)
    assert isinstance(m, SaveGame)
    assert m.preview is not None and len(m.users) == 1
    assert m.users[0].name == "Brigid"
    assert savecraft.build(m) == player_bytes


def test_server_save_round_trip(server_bytes: bytes) -> None:
    m = savecraft.load(server_bytes)
    assert m.preview is None
    assert len(m.users) == 40 and len(m.npcs) == 3
    kinds = [type(c) for c in m.chunks]
    assert DenyChunk in kinds and MapChunk in kinds and RawChunk in kinds
    deny = m.chunks.of_kind(DenyChunk)[0]
    assert [(e.family, e.address) for e in deny.entries] == [
        (AddressFamily.AF_INET, "192.0.2.17"), (AddressFamily.AF_INET6, "2001:db8::dead:beef")]
    raw = [c for c in m.chunks if isinstance(c, RawChunk)][0]
    assert raw.magic == b"XTRA"
    assert savecraft.build(m) == server_bytes


def test_model_equals_what_was_built() -> None:
    model = sample.server_save(users=12)
    assert savecraft.parse(savecraft.build(model)) == model


def test_json_round_trip_is_exact(server_bytes: bytes, player_bytes: bytes) -> None:
    for data in (server_bytes, player_bytes):
        m = savecraft.load(data)
        doc = savecraft.to_json(m)
        assert doc["format"] == "tirnanog-save"
        back = savecraft.from_json(doc)
        assert back == m
        assert savecraft.build(back) == data
        assert savecraft.build(savecraft.loads(savecraft.dumps(m))) == data


def test_json_shows_enums_by_name_and_number(server_bytes: bytes) -> None:
    doc = savecraft.to_json(savecraft.load(server_bytes))
    deny = next(c for c in doc["data"]["chunks"] if c["kind"] == "DENY")
    assert deny["entries"][0]["family"] == {"name": "AF_INET", "value": 2}
    user = next(c for c in doc["data"]["chunks"] if c["kind"] == "USER")
    assert isinstance(user["password_hash"], str)  # base64


def test_foreign_compression_is_kept_until_an_edit() -> None:
    model = sample.server_save(users=5)
    content = codec.payload_bytes(model)
    c = zlib.compressobj(9, zlib.DEFLATED, 9, 1)  # no level of ours reproduces this
    stream = c.compress(content) + c.flush()
    data = codec.MAGIC + b"sample-world".ljust(16, b"\0") + stream + zlib.crc32(content).to_bytes(4, "little")
    m = savecraft.load(data)
    assert savecraft.build(m) == data
    dumped = savecraft.loads(savecraft.dumps(m))
    assert savecraft.build(dumped) == data  # the original stream travels in the dump
    m.users[0].entity.x += 1
    edited = savecraft.build(m)
    assert edited[-4:] != data[-4:]
    again = savecraft.load(edited)
    assert again.users[0].entity.x == m.users[0].entity.x
    assert [u.name for u in again.users] == [u.name for u in m.users]


def test_edit_recomputes_sizes_and_crc(server_bytes: bytes) -> None:
    m = savecraft.load(server_bytes)
    u = m.user("Cian")
    assert u is not None
    u.name = "Cian the Very Long Name"
    u.entity.inventory.append(InventoryItem(3, 42))
    u.entity.attributes.append(-5)
    m.chunks.append(UserChunk(name="Newcomer"))
    out = savecraft.build(m)
    assert savecraft.validate(out).ok
    back = savecraft.load(out)
    cian = back.user("Cian the Very Long Name")
    assert cian is not None and cian.entity.inventory[-1] == InventoryItem(3, 42)
    assert cian.entity.attributes[-1] == -5
    assert back.user("Newcomer") is not None
    assert back == m


def test_unknown_chunk_is_written_back_unchanged() -> None:
    m = SaveGame(game_id="g", chunks=[RawChunk(b"ZZZZ", b"\x00\x01\x02odd")])
    back = savecraft.load(savecraft.build(m))
    assert back.chunks[0] == RawChunk(b"ZZZZ", b"\x00\x01\x02odd")


def test_map_chunk_keeps_a_foreign_rle_stream() -> None:
    # Two literal packets where our encoder would write one run: kept as read.
    rle = bytes([0]) + b"\x05\x00" + bytes([0]) + b"\x05\x00"
    chunk = b"MAP\0" + (12 + len(rle)).to_bytes(4, "little") + (7).to_bytes(4, "little") + rle
    data = _wrap(chunk)
    m = savecraft.load(data)
    assert m.chunks[0].tiles == [5, 5]
    assert savecraft.build(m) == data
    m.chunks[0].tiles = [5, 5, 5]
    assert savecraft.load(savecraft.build(m)).chunks[0].tiles == [5, 5, 5]


def _wrap(content: bytes) -> bytes:
    return (codec.MAGIC + b"g".ljust(16, b"\0") + zlib.compress(content)
            + zlib.crc32(content).to_bytes(4, "little"))


def test_crc_over_compressed_bytes_is_accepted_and_kept() -> None:
    content = codec.encode_chunk(UserChunk(name="A"))
    stream = zlib.compress(content)
    data = codec.MAGIC + bytes(16) + stream + zlib.crc32(stream).to_bytes(4, "little")
    result = savecraft.validate(data)
    assert result.ok
    assert any("compressed" in n for n in result.notes)
    assert savecraft.build(savecraft.load(data)) == data


def test_preview_png_export_and_import(player_bytes: bytes) -> None:
    m = savecraft.load(player_bytes)
    assert m.preview is not None
    png = preview.to_png(m.preview)
    img = Image.open(io.BytesIO(png))
    assert img.size == (256, 256) and img.mode == "RGB"
    px = np.asarray(img)
    assert tuple(px[60, 190]) == (255, 222, 82)  # the sun, through 5 bits per channel
    assert tuple(px[250, 10]) == (41, 140, 57)  # the hills
    back = preview.from_png(png)
    assert np.array_equal(preview.decode_pixels(back), px)


def test_lazy_chunks_decode_only_when_used(server_bytes: bytes) -> None:
    m = savecraft.load(server_bytes)
    assert all(m.chunks.raw_or_none(i) is not None for i in range(len(m.chunks)))
    _ = m.chunks[5]
    assert m.chunks.raw_or_none(5) is None
    assert m.chunks.raw_or_none(6) is not None


@given(saves)
def test_random_models_round_trip(model: SaveGame) -> None:
    assert savecraft.parse(savecraft.build(model)) == model
    assert savecraft.from_json(savecraft.to_json(model)) == model


@given(save_files())
def test_random_files_rebuild_byte_for_byte(data: bytes) -> None:
    m = savecraft.parse(data)
    assert savecraft.build(m) == data
    for c in m.chunks:  # decoding every chunk and re-encoding it changes nothing either
        pass
    assert savecraft.build(m) == data
    assert savecraft.build(savecraft.from_json(savecraft.to_json(m))) == data


def test_error_paths_resolve_on_the_model(server_bytes: bytes) -> None:
    """Every path an error message uses names something on the model (so edit can use it)."""
    m = savecraft.load(server_bytes)
    assert m.globals is not None and m.quests is not None and m.deny is not None
    assert m.globals.values == m.chunks.of_kind(type(m.globals))[0].values
    assert len(m.maps) == 1 and m.maps[0].map_id == 1
    m.users[1].entity.inventory[2].object_id = -1
    with pytest.raises(savecraft.FormatError) as exc:
        savecraft.build(m)
    assert exc.value.path == "users[1].entity.inventory[2].object_id"
