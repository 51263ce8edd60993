"""info: a summary (lists capped), JSON that is data (docs/info-json.md), fast on large saves."""

from __future__ import annotations

import gc
import json
from pathlib import Path

import pytest

import savecraft
from savecraft.cli import main
from savecraft.compression import Container, Deflated, compress, reproduces
from savecraft.formats.qfg5 import sample as qfg5_sample
from savecraft.formats.tirnanog.save import codec
from savecraft.formats.tirnanog.save import sample as tng_sample

from .info_convention import check_info

TNG_SAVE_KEYS = {"file", "format", "description", "game_id", "kind", "chunks", "user_count", "users",
                 "banned_users"}
QFG5_KEYS = {"file", "format", "description", "player_type", "inventory_items", "dialogue_rooms",
             "object_count", "object_slots", "rooms", "rooms_with_objects", "equipment", "belt",
             "current_room", "noise_bytes"}


def info_json(path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    assert main(["info", "--json", str(path)]) == 0
    doc: dict[str, object] = json.loads(capsys.readouterr().out)
    return doc


def test_tirnanog_save_info_follows_the_convention(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    server = tng_sample.server_save(users=5)
    server.users[1].flags |= 1
    savecraft.save(server, tmp_path / "server.sav")
    savecraft.save(tng_sample.player_save(), tmp_path / "player.sav")
    doc = info_json(tmp_path / "server.sav", capsys)
    check_info(doc, data_keys={"chunks"})
    assert set(doc) == TNG_SAVE_KEYS
    assert doc["kind"] == "server" and doc["user_count"] == 5 and doc["banned_users"] == ["Aoife"]
    doc = info_json(tmp_path / "player.sav", capsys)
    check_info(doc, data_keys={"chunks"})
    assert set(doc) == TNG_SAVE_KEYS | {"play_time_seconds", "last_seen"}
    assert doc["play_time_seconds"] == 5 * 3600 + 17 * 60 + 9
    assert isinstance(doc["last_seen"], str) and doc["last_seen"].endswith("Z")


def test_qfg5_info_follows_the_convention(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    save = qfg5_sample.qfg5_save()
    savecraft.save(save, tmp_path / "q.sav")
    doc = info_json(tmp_path / "q.sav", capsys)
    check_info(doc)
    assert set(doc) == QFG5_KEYS
    assert doc["object_count"] == save.object_count and doc["rooms"] == len(save.rooms)


def test_the_checker_refuses_prose(tmp_path: Path) -> None:
    base = {"file": "f", "format": "x", "description": "d"}
    for bad in ({"tile size": 1}, {"tile_size": "32 x 32"}, {"crc": "0x115A548C"},
                {"objects": "74 in 25 of 133 rooms (91 slots)"}, {"status": "alive (1)"},
                {"user_count": "5"}, {"mixed": [1, "a"]}):
        with pytest.raises(AssertionError):
            check_info({**base, **bad})


def test_text_lists_are_capped_unless_all(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    savecraft.save(tng_sample.server_save(users=30), tmp_path / "s.sav")
    assert main(["info", str(tmp_path / "s.sav")]) == 0
    out = capsys.readouterr().out
    assert "and 10 more" in out and "user count: 30" in out
    assert main(["info", "--all", str(tmp_path / "s.sav")]) == 0
    out = capsys.readouterr().out
    assert "more" not in out


def test_info_reads_user_names_without_decoding_the_users() -> None:
    data = savecraft.build(tng_sample.server_save(users=20))
    save = savecraft.load(data)
    from savecraft.formats.tirnanog.save import FORMAT

    summary = FORMAT.info(save)
    assert summary["user_count"] == 20
    assert all(save.chunks.raw_or_none(i) is not None for i in range(len(save.chunks)))


def test_validate_decodes_with_the_collector_paused(monkeypatch: pytest.MonkeyPatch) -> None:
    data = savecraft.build(tng_sample.server_save(users=5))
    states: list[bool] = []
    real = codec.decode_chunk

    def spy(raw: bytes, offset: int, path: str = "") -> object:
        states.append(gc.isenabled())
        return real(raw, offset, path)

    monkeypatch.setattr(codec, "decode_chunk", spy)
    assert gc.isenabled()
    assert savecraft.validate(data).ok
    assert states and not any(states)
    assert gc.isenabled()


def test_the_level_search_refuses_wrong_levels_early_and_confirms_the_right_one() -> None:
    content = bytes(range(256)) * 4000 + b"tail" * 5000
    nine = compress(content, Container.ZLIB, 9)
    assert reproduces(content, nine, Container.ZLIB, 9)
    assert not reproduces(content, nine[:-1] + bytes([nine[-1] ^ 1]), Container.ZLIB, 9)
    assert not reproduces(content, nine + b"x", Container.ZLIB, 9)
    d = Deflated.from_stream(nine, content, Container.ZLIB)
    d.settle(content)
    assert d.level in (9, 7, 8) and d.original is None and d.compress(content) == nine
    other = __import__("zlib").compressobj(6, 8, 15, 8, 1)  # Z_FILTERED: no level reproduces it
    odd = other.compress(content) + other.flush()
    d = Deflated.from_stream(odd, content, Container.ZLIB)
    d.settle(content)
    if d.level is None:
        assert d.original == odd and d.compress(content) == odd
