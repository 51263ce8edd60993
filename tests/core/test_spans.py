"""Byte spans: every decoded value knows its bytes, in every format, and recording changes nothing."""

from __future__ import annotations

import glob
import struct
import zlib
from dataclasses import dataclass, field

import pytest

from savecraft import api, binary, jsonmap, paths, spans
from savecraft.binary import Reader, SpanLog, SpanReader, recording
from savecraft.errors import Report
from savecraft.layout import U8, U16, Array, Bytes, Context, Field, Struct
from savecraft.formats.angband import sample as angband_sample
from savecraft.formats.angband.block import build as build_block
from savecraft.formats.angband.modular import build as build_modular
from savecraft.formats.qfg5 import codec as qfg5_codec
from savecraft.formats.qfg5 import sample as qfg5_sample
from savecraft.formats.tirnanog.game import sample as game_sample
from savecraft.formats.tirnanog.game.header import CRC_OFFSET
from savecraft.formats.tirnanog.save import codec as save_codec
from savecraft.formats.tirnanog.save import sample as save_sample
from tests.samples import SAMPLES, real_samples

BLOCK_SAMPLES = sorted(glob.glob(str(SAMPLES / "angband-block" / "*.sav")))
TRUNCATED = str(SAMPLES / "angband-truncated" / "vanilla-4.0.1_half-written.sav")


@pytest.fixture(scope="module")
def server() -> bytes:
    return save_codec.build(save_sample.server_save(5))


@pytest.fixture(scope="module")
def player() -> bytes:
    return save_codec.build(save_sample.player_save())


@pytest.fixture(scope="module")
def game() -> bytes:
    return game_sample.build_sample_game()


def _chunks(payload: bytes) -> list[tuple[bytes, int, int]]:
    """(magic, offset, size) of every chunk, found by walking the headers by hand."""
    out, pos = [], 0
    while pos < len(payload):
        magic, size = struct.unpack_from("<4sI", payload, pos)
        out.append((magic, pos, size))
        pos += size
    return out


# -- the Reader ---------------------------------------------------------------------------


def test_readers_record_only_inside_recording() -> None:
    assert type(Reader(b"abc")) is Reader
    log = SpanLog()
    with recording(log):
        r = Reader(b"\x01\x02\x03\x04hi\0" + struct.pack("<HH", 5, 6), path="top")
        assert isinstance(r, SpanReader)
        assert r.u16("a") == 0x0201
        sub = r.sub(2, "b")
        assert sub.u8("x") == 3
        assert r.cstr("name") == "hi"
        assert r.array("u16", 2, "pair") == (5, 6)
    assert type(Reader(b"abc")) is Reader  # the scope ended
    assert log.entries == [
        ("file", 0, 2, "top.a"), ("file", 2, 2, "top.b"), ("file", 2, 1, "top.b.x"),
        ("file", 4, 3, "top.name"), ("file", 7, 4, "top.pair"), ("file", 7, 2, "top.pair[0]"),
        ("file", 9, 2, "top.pair[1]"),
    ]


@dataclass(slots=True)
class _Rec:
    a: int = 0
    b: list[int] = field(default_factory=list)
    c: bytes = b""


def test_record_fields_and_array_elements_are_noted() -> None:
    rec = Struct(_Rec, [Field("a", U8), Field("b", Array(U16, 2)), Field("c", Bytes(3))], whole=True)
    log = SpanLog()
    with recording(log), binary.stream_space("inner", b"x" * 20, (4, 9)):
        rec.read_item(Reader(bytes(range(20)), base=10), Context(), "item")
    assert log.entries == [
        ("inner", 10, 8, "item"), ("inner", 10, 1, "item.a"), ("inner", 11, 4, "item.b"),
        ("inner", 11, 2, "item.b[0]"), ("inner", 13, 2, "item.b[1]"), ("inner", 15, 3, "item.c"),
    ]
    assert log.streams["inner"][1] == ("file", 4, 9)


def test_stream_space_is_free_when_not_recording() -> None:
    with binary.stream_space("x", b"abc") as sink:
        assert sink is None
        assert binary.active_sink() is None


# -- TirNanoG saves -------------------------------------------------------------------------


def test_save_header_payload_and_crc_spans(server: bytes) -> None:
    smap = spans.record(server)
    assert smap.span_of("magic") == spans.Span("file", 0, 16, "magic")
    assert smap.span_of("game_id") == spans.Span("file", 16, 16, "game_id")
    assert smap.span_of("payload") == spans.Span("file", 32, len(server) - 36, "payload")
    assert smap.span_of("crc") == spans.Span("file", len(server) - 4, 4, "crc")
    payload = smap.spaces()["payload"]
    assert payload.data == zlib.decompress(server[32:-4])
    assert payload.stored == spans.Span("file", 32, len(server) - 36, "payload")


def test_save_user_name_and_entity_offsets(server: bytes) -> None:
    payload = zlib.decompress(server[32:-4])
    users = [(off, size) for magic, off, size in _chunks(payload) if magic == b"USER"]
    off, size = users[2]
    name = payload[off + 76 : payload.index(b"\0", off + 76)].decode()
    smap = spans.record(server, lazy=True)
    assert smap.span_of(f"users[name={name}].name") == spans.Span("payload", off + 76, len(name) + 1,
                                                                  "users[2].name")
    assert smap.span_of("users[2]") == spans.Span("payload", off, size, "users[2]")
    n_opts = payload[off + 75]
    entity = off + 76 + len(name) + 1 + 4 * n_opts + 128
    assert smap.span_of("users[2].entity") == spans.Span("payload", entity, off + size - entity, "users[2].entity")
    assert smap.span_of("users[2].entity.x") == spans.Span("payload", entity + 4, 4, "users[2].entity.x")
    item = smap.span_of("users[2].entity.inventory[1].object_id")
    assert item is not None
    a = payload[entity + 15]
    assert item.offset == entity + 22 + 4 * a + 8 + 4
    # A chunk named by position reaches the same bytes.
    index = [i for i, (m, _, _) in enumerate(_chunks(payload)) if m == b"USER"][2]
    assert smap.span_of(f"chunks[{index}].name") == smap.span_of("users[2].name")
    assert smap.span_of(f"chunks[{index}].magic") == spans.Span("payload", off, 4, "users[2].magic")
    assert smap.span_of("users[2].magic") == spans.Span("payload", off, 4, "users[2].magic")


def test_lazy_recording_expands_only_what_is_asked(server: bytes) -> None:
    smap = spans.record(server, lazy=True)
    assert not any(u.done for u in smap.units())
    smap.spans_for("users[1].entity")
    assert [u.path for u in smap.units() if u.done] == ["users[1]"]
    hit = smap.at("payload", smap.units()[-1].offset + 9)
    assert hit is not None and hit.path.startswith(smap.units()[-1].path)
    assert sum(u.done for u in smap.units()) == 2
    eager = spans.record(server)
    lazy = spans.record(server, lazy=True)
    lazy.expand()
    assert sorted(eager.spans()) == sorted(lazy.spans())


def test_player_save_preview_spans(player: bytes) -> None:
    smap = spans.record(player)
    assert smap.span_of("preview.magic") == spans.Span("file", 32, 4, "preview.magic")
    assert smap.span_of("preview.play_time") == spans.Span("file", 40, 4, "preview.play_time")
    size = struct.unpack_from("<I", player, 36)[0]
    assert smap.span_of("preview.image") == spans.Span("file", 64, size - 32, "preview.image")
    assert smap.span_of("payload") == spans.Span("file", 32 + size, len(player) - 36 - size, "payload")


def _leaves(smap: spans.SpanMap) -> list[spans.Span]:
    all_spans = smap.spans()
    by_path = {sp.path for sp in all_spans}
    return [sp for sp in all_spans
            if not any(p != sp.path and spans._under(p, sp.path) for p in by_path if p.startswith(sp.path))]


@pytest.mark.parametrize("which", ["server", "game", "qfg5", "block"])
def test_at_is_the_inverse_of_spans_for(which: str, server: bytes, game: bytes) -> None:
    data = {"server": server, "game": game, "qfg5": qfg5_codec.build(qfg5_sample.qfg5_save()),
            "block": build_block(angband_sample.block_save())}[which]
    smap = spans.record(data)
    leaves = _leaves(smap)
    assert len(leaves) > 20
    for sp in leaves[:: max(1, len(leaves) // 300)]:
        for k in {0, sp.length // 2, sp.length - 1} if sp.length else set():
            hit = smap.at(sp.space, sp.offset + k)
            assert hit is not None
            assert (hit.offset, hit.length) == (sp.offset, sp.length), (sp, hit)
            assert hit in smap.spans_for(hit.path)


def test_spans_for_covers_the_field_and_everything_under_it(server: bytes) -> None:
    smap = spans.record(server)
    under = smap.spans_for("users[0].entity")
    assert under[0].path == "users[0].entity"
    assert all(spans._under(sp.path, "users[0].entity") for sp in under)
    assert {"users[0].entity.x", "users[0].entity.attributes[3]", "users[0].entity.skills[1].level"} <= {
        sp.path for sp in under}
    outer = under[0]
    assert all(outer.offset <= sp.offset and sp.end <= outer.end for sp in under)
    # A value with no bytes of its own (a bit of a word) gets its parent's span.
    assert smap.spans_for("users[0].entity.quests[0].completed")[0].path == "users[0].entity.quests[0]"


def test_to_json(server: bytes) -> None:
    out = spans.record(server, lazy=True).to_json()
    assert out["format"] == "tirnanog-save"
    assert {s["name"] for s in out["spaces"]} == {"file", "payload"}
    assert {"space": "file", "offset": 0, "length": 16, "path": "magic"} in out["spans"]
    assert out["units"][0]["expanded"] is False


# -- recording changes nothing -----------------------------------------------------------------


def _samples(server: bytes, player: bytes, game: bytes) -> list[bytes]:
    return [server, player, game, qfg5_codec.build(qfg5_sample.qfg5_save()),
            build_block(angband_sample.block_save()), build_modular(angband_sample.modular_save()),
            *(open(p, "rb").read() for p in BLOCK_SAMPLES[:1])]


def test_recording_leaves_results_identical(server: bytes, player: bytes, game: bytes) -> None:
    for data in _samples(server, player, game):
        plain = api.parse(data)
        smap = spans.record(data)
        assert smap.model is not None
        if smap.format == "tirnanog-save":
            smap.model.chunks.decode_all()
        assert jsonmap.dumps(smap.model) == jsonmap.dumps(plain), smap.format
        assert api.build(plain) == data


# -- other formats --------------------------------------------------------------------------------


def test_game_header_sections_and_assets(game: bytes) -> None:
    smap = spans.record(game, lazy=True)
    assert smap.span_of("header.crc") == spans.Span("file", CRC_OFFSET, 4, "header.crc")
    assert smap.span_of("sections.size") == spans.Span("file", 64, 4, "sections.size")
    n = struct.unpack_from("<I", game, 64)[0]
    assert smap.span_of("sections") == spans.Span("file", 68, n - 4, "sections")
    assert smap.span_of("sections.crc") == spans.Span("file", 64 + n, 4, "sections.crc")
    block = smap.spaces()["sections"].data
    assert block == zlib.decompress(game[68 : 64 + n])
    first = struct.unpack_from("<I", block, 0)[0]
    off, ln, t = struct.unpack_from("<I3sB", block, 8 * 3)
    assert smap.span_of("sections.table[3].type") == spans.Span("sections", 8 * 3 + 7, 1, "sections.table[3].type")
    assert smap.span_of("sections.table") == spans.Span("sections", 0, first, "sections.table")
    assert smap.span_of("sections[3]") == spans.Span("sections", off, int.from_bytes(ln, "little"), "sections[3]")
    from savecraft.formats.tirnanog.game import parse
    g = parse(game, Report())
    asset = next(a for a in g.assets() if a.path == "maps.maps[0].asset")
    where = "maps.maps[0].asset"
    assert smap.span_of(where) == spans.Span("file", asset.file_offset, asset.length, where)
    assert smap.span_of("sections[33].maps[0].asset") == smap.span_of(where)  # by the section's place
    inflated = smap.spaces()[where]
    assert inflated.data == zlib.decompress(game[asset.file_offset : asset.file_offset + asset.length])
    # The asset's fields are its value's: the reader names the title under the map's header.
    title = spans.Span(where, 0, 3, f"{where}.value.header.title")
    assert smap.span_of(f"{where}.value.header.title") == title
    assert smap.span_of(f"{where}.header.title") == title  # without .value, as edit takes it
    assert smap.at(where, 1) == title
    unit = next(u for u in smap.units() if u.path == where)
    assert unit.alias.startswith("sections[") and unit.alias.endswith(".asset")
    assert paths.get(g, unit.alias) is asset
    assert smap.span_of(unit.alias) == spans.Span("file", asset.file_offset, asset.length, where)


def test_qfg5_spans_are_file_offsets() -> None:
    save = qfg5_sample.qfg5_save()
    data = qfg5_codec.build(save)
    smap = spans.record(data)
    noise = len(save.noise)
    assert smap.span_of("header.player_type") == spans.Span("file", 18, 4, "header.player_type")
    assert smap.span_of("noise") == spans.Span("file", 22, noise, "noise")
    assert smap.span_of("player_state") == spans.Span("file", 22 + noise, 1096, "player_state")
    at = 22 + noise + 1096 + 16 + 4
    assert smap.span_of("inventory[1].amount") == spans.Span("file", at, 4, "inventory[1].amount")
    assert struct.unpack_from("<I", data, at)[0] == save.inventory[1].amount


@real_samples
def test_angband_block_headers_and_data_of_a_real_file() -> None:
    data = open(BLOCK_SAMPLES[0], "rb").read()
    smap = spans.record(data)
    assert smap.format == "angband-block"
    assert smap.span_of("variant") == spans.Span("file", 4, 4, "variant")  # the model's path
    size = struct.unpack_from("<I", data, 8 + 20)[0]
    assert smap.span_of("blocks[0].checksum") == spans.Span("file", 32, 4, "description.checksum")
    assert smap.span_of("blocks[0].data") == spans.Span("file", 36, size, "description.data")
    whole = smap.span_of("blocks[0]")
    assert whole is not None and whole.offset == 8 and whole.length == 28 + size + (-size % 4)


def test_angband_modular_block_spans() -> None:
    data = build_modular(angband_sample.modular_save())
    smap = spans.record(data)
    assert smap.format == "angband-modular"
    assert smap.span_of("magic") == spans.Span("file", 0, 4, "magic")
    assert smap.span_of("description") == spans.Span("file", 6, 64, "description")  # the model's paths
    first = smap.span_of("blocks[0]")
    assert first is not None and first.space == "file"
    assert smap.at("file", first.offset).path.startswith("blocks[0]")  # type: ignore[union-attr]


# -- problems carry spans ----------------------------------------------------------------------


def test_a_bad_crc_points_at_its_four_bytes(server: bytes) -> None:
    bad = server[:-4] + bytes(4)
    result = spans.validate(bad)
    crc = next(p for p in result.problems if p.path == "crc")
    assert (crc.space, crc.offset, crc.length) == ("file", len(server) - 4, 4)
    smap = spans.record(bad)
    assert any(p.path == "crc" and p.length == 4 for p in smap.problems)


def test_a_bad_chunk_is_pointed_at_in_the_payload(server: bytes) -> None:
    payload = bytearray(zlib.decompress(server[32:-4]))
    users = [(off, size) for magic, off, size in _chunks(bytes(payload)) if magic == b"USER"]
    off, size = users[1]
    nul = payload.index(b"\0", off + 76)
    entity = nul + 1 + 4 * payload[off + 75] + 128
    payload[entity + 15] += 1  # one attribute more than the block holds
    body = zlib.compress(bytes(payload))
    bad = server[:32] + body + zlib.crc32(bytes(payload)).to_bytes(4, "little")
    result = spans.validate(bad)
    problem = next(p for p in result.problems if p.path.startswith("users[1]"))
    assert problem.space == "payload"
    assert problem.offset == entity + 15
    assert problem.length is not None and problem.offset + problem.length <= off + size


@real_samples
def test_a_cut_short_block_points_at_the_bytes_that_are_there() -> None:
    data = open(TRUNCATED, "rb").read()
    result = spans.validate(data)
    cut = next(p for p in result.problems if "end of the file" in p.found)
    assert cut.space == "file" and cut.offset is not None
    assert cut.offset + (cut.length or 0) == len(data)


def test_problems_without_spans_are_unchanged(server: bytes) -> None:
    assert spans.validate(server).problems == []
    assert api.validate(server[:-4] + bytes(4)).problems[0].length is None


# -- the vocabulary: spans use the model's paths -----------------------------------------------


def test_save_span_paths_are_model_paths(server: bytes) -> None:
    smap = spans.record(server)
    # Bytes the model recomputes rather than holds: magics, sizes, counts, the stream and its CRC.
    stored_only = {"magic", "size", "payload", "crc", "numchar", "attributes_count", "inventory_count",
                   "skills_count", "quests_count"}
    checked = 0
    for sp in smap.spans():
        last = paths.parse_path(sp.path)[-1]
        if isinstance(last, paths.Attr) and last.name in stored_only:
            continue
        if sp.path.startswith("chunks["):
            continue  # the chunk by position: its fields are recorded under the typed name
        paths.resolve(smap.model, sp.path)  # raises PathError when the model has no such value
        checked += 1
    assert checked > 500


def test_qfg5_model_paths_have_spans() -> None:
    save = qfg5_sample.qfg5_save()
    smap = spans.record(qfg5_codec.build(save))
    k = next(i for i, room in enumerate(save.rooms) if room.objects and hasattr(room.objects[0], "data"))
    for path in ("noise", "player_state", "inventory[0].zapped", "dialogue[0].room",
                 "dialogue[0].messages[0].removed", f"rooms[{k}].objects[0].data", f"rooms[{k}].objects[0].id",
                 "engine_state", "belt.items[3]", "belt.selected", "equipment.amulet", "current_room"):
        sp = smap.span_of(path)
        assert sp is not None and sp.path == path, path
    for path in ("hero", "map_state", "room_data"):  # a size, then the bytes (the model's field)
        found = smap.spans_for(path)
        assert [sp.path for sp in found] == [f"{path}.size", path] if path != "room_data" or \
            save.room_data else True, path


def test_one_lazy_map_queried_from_several_threads(server: bytes) -> None:
    from concurrent.futures import ThreadPoolExecutor

    eager = spans.record(server)
    lazy = spans.record(server, lazy=True)
    names = [f"users[{k}].entity" for k in range(5)] * 4
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lazy.spans_for, names))
    assert got == [eager.spans_for(n) for n in names]
    lazy.expand()
    assert sorted(lazy.spans()) == sorted(eager.spans())


@pytest.mark.parametrize("which", ["save", "game"])
def test_span_paths_are_the_paths_every_message_prints(which: str, server: bytes, game: bytes) -> None:
    """A span names its field as dumps, diffs and validate do, so the studio's links meet."""
    smap = spans.record(server if which == "save" else game)
    assert smap.model is not None
    named = {sp.path for sp in smap.spans()} | set(smap.spaces()) - {"file", "payload", "sections"}
    odd = sorted(p for p in named if paths.canonical_prefix(smap.model, p) != p)
    assert not odd, odd[:10]
    for sp in smap.spans()[:: max(1, len(smap.spans()) // 200)]:  # and a path finds its own bytes
        assert smap.span_of(sp.path) is not None, sp.path
