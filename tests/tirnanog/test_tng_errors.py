"""Every check of the game-file reader, each with the corruption that trips it.

Bad input is a validation problem with its offset (or a FormatError in
strict mode), never an IndexError or a traceback.
"""

from __future__ import annotations

import struct
import zlib

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from savecraft import api
from savecraft.cli import main
from savecraft.errors import FormatError, UnsupportedFormatError
from savecraft.formats.tirnanog.game import EncryptedGameError, open_game
from savecraft.formats.tirnanog.game.bytecode import Script
from savecraft.formats.tirnanog.game.header import CRC_OFFSET, file_crc
from savecraft.formats.tirnanog.game.sample import build_sample_game
from savecraft.formats.tirnanog.game.sections import (
    AlertsSection,
    HudSection,
    NpcTypesSection,
    SpriteRef,
)

DATA = build_sample_game()


def fix_crc(data: bytes | bytearray) -> bytes:
    out = bytearray(data)
    struct.pack_into("<I", out, CRC_OFFSET, file_crc(out))
    return bytes(out)


def split(data: bytes) -> tuple[bytes, bytes, bytes]:
    """(header, inflated section block, asset area)."""
    n = int.from_bytes(data[64:68], "little")
    return data[:64], zlib.decompress(data[68 : 68 + n - 4]), data[68 + n :]


def rewrap(header: bytes, block: bytes, assets: bytes) -> bytes:
    comp = zlib.compress(block)
    body = header + struct.pack("<I", len(comp) + 4) + comp + struct.pack("<I", zlib.crc32(block)) + assets
    return fix_crc(body)


def problems(data: bytes) -> list[str]:
    v = api.validate(data)
    return [str(p) for p in v.problems if p.severity == "error"]


def edited(edit: object) -> bytes:
    game = open_game(DATA)
    edit(game)  # type: ignore[operator]
    return api.build(game)


def test_rewrap_helper_is_faithful() -> None:
    assert rewrap(*split(DATA)) == DATA


def test_encrypted_file_is_refused_with_its_header() -> None:
    data = bytearray(DATA)
    data[60:64] = b"\x01\x02\x03\x04"
    with pytest.raises(EncryptedGameError) as info:
        open_game(bytes(data))
    assert isinstance(info.value, UnsupportedFormatError)
    assert info.value.header.game_id == "tngsample"
    assert info.value.offset == 60
    assert "encrypted" in str(info.value) and "tngsample" in str(info.value)
    v = api.validate(bytes(data))
    assert not v.ok and "encrypted" in str(v.problems[0])


def test_encrypted_file_on_the_command_line(tmp_path: object, capsys: pytest.CaptureFixture[str]) -> None:
    from pathlib import Path
    p = Path(str(tmp_path)) / "enc.tng"
    data = bytearray(DATA)
    data[63] = 0x80
    p.write_bytes(bytes(data))
    assert main(["info", str(p)]) == 1
    err = capsys.readouterr().err
    assert "encrypted" in err and "tngsample" in err


def test_whole_file_crc_is_checked() -> None:
    data = bytearray(DATA)
    data[-1] ^= 0xFF
    found = problems(bytes(data))
    assert any(p.startswith("offset 0x00000038: header.crc") for p in found), found
    with pytest.raises(FormatError):
        api.load(bytes(data))
    assert open_game(bytes(data)) is not None  # the lazy open does not read the whole file


def test_section_block_crc_is_checked() -> None:
    n = int.from_bytes(DATA[64:68], "little")
    data = bytearray(DATA)
    data[68 + n - 4] ^= 0x55
    found = problems(fix_crc(data))
    assert any("sections.crc" in p and f"0x{68 + n - 4:08X}" in p for p in found), found


def test_crc_over_the_compressed_bytes_is_accepted_and_kept() -> None:
    n = int.from_bytes(DATA[64:68], "little")
    data = bytearray(DATA)
    struct.pack_into("<I", data, 68 + n - 4, zlib.crc32(DATA[68 : 68 + n - 4]))
    data = bytearray(fix_crc(data))
    v = api.validate(bytes(data))
    assert v.ok and any("compressed" in note for note in v.notes)
    assert api.build(api.load(bytes(data))) == bytes(data)


def test_asset_outside_the_file() -> None:
    data = fix_crc(DATA[:-40])
    found = problems(data)
    assert any("an asset inside the file" in p for p in found), found
    with pytest.raises(FormatError) as info:
        open_game(data)
    assert "maps[1]" in str(info.value)


def test_section_outside_the_buffer() -> None:
    head, block, assets = split(DATA)
    table = bytearray(block)
    struct.pack_into("<I", table, 8 * 3, len(block) + 100)  # section 3's offset past the block
    found = problems(rewrap(head, bytes(table), assets))
    assert any("sections.table[3]" in p and "inside the" in p for p in found), found


def test_section_table_size_not_a_multiple_of_eight() -> None:
    head, block, assets = split(DATA)
    bad = bytearray(block)
    struct.pack_into("<I", bad, 0, 13)
    with pytest.raises(FormatError) as info:
        api.load(rewrap(head, bytes(bad), assets))
    assert "sections.table[0].offset" in str(info.value)


def test_truncated_section_keeps_the_others() -> None:
    head, block, assets = split(DATA)
    table = bytearray(block)
    # shorten the HUD section by 5 bytes: its progress bar record is cut short
    entries = [struct.unpack_from("<I3sB", table, 8 * i) for i in range(struct.unpack_from("<I", table)[0] // 8)]
    k = next(i for i, (_, _, t) in enumerate(entries) if t == 18)
    off, ln, t = entries[k]
    table[8 * k + 4 : 8 * k + 7] = (int.from_bytes(ln, "little") - 5).to_bytes(3, "little")
    v = api.validate(rewrap(head, bytes(table), assets))
    assert not v.ok
    assert any("hud" in str(p) or f"sections[{k}]" in str(p) for p in v.problems), [str(p) for p in v.problems]


def test_string_index_past_section_0() -> None:
    def edit(g: object) -> None:
        g.attributes.attributes[0].name = 0x7FFF  # type: ignore[attr-defined]
    found = problems(edited(edit))
    assert any("attributes[0].name" in p and "inside section 0" in p for p in found), found


def test_string_index_inside_a_string() -> None:
    def edit(g: object) -> None:
        g.attributes.attributes[0].name = 2  # type: ignore[attr-defined]
    found = problems(edited(edit))
    assert any("at the start of a string" in p for p in found), found


def test_sprite_index_past_its_section() -> None:
    def edit(g: object) -> None:
        g.section(HudSection).navigator = SpriteRef(0, 77)  # type: ignore[attr-defined]
    found = problems(edited(edit))
    assert any("navigator.index" in p and "ui sprite index below 4" in p for p in found), found


def test_sprite_index_inside_an_asset() -> None:
    def edit(g: object) -> None:
        g.section(NpcTypesSection).npcs[0].asset.value.sprites[0] = SpriteRef(2, 9)  # type: ignore[attr-defined]
    found = problems(edited(edit))
    assert any("npcs[0].asset.value.sprites[0].index" in p for p in found), found


def test_text_index_past_the_texts() -> None:
    def edit(g: object) -> None:
        g.section(AlertsSection).alerts[0].text = 5000  # type: ignore[attr-defined]
    found = problems(edited(edit))
    assert any("alerts[0].text" in p and "text index below" in p for p in found), found


def test_bytecode_jump_outside_its_script() -> None:
    def edit(g: object) -> None:
        npc = g.section(NpcTypesSection).npcs[1].asset.value  # type: ignore[attr-defined]
        npc.handlers[0].script = Script(code=bytes([2, 0x40, 0, 0, 0]))  # JMP 0x40 in a 5-byte script
    data = edited(edit)
    found = problems(data)
    assert any("sections[26].npcs[1].asset.value.handlers[0].script" in p and "jump" in p for p in found), found
    again = api.load(data)  # kept as bytecode, written back unchanged
    assert api.build(again) == data


def test_rle_that_under_fills_its_map() -> None:
    def edit(g: object) -> None:
        m = g.maps.maps[1].asset.value  # type: ignore[attr-defined]
        m.layers = np.zeros((11, 8, 8), dtype=np.uint16)
        m.rle_stream = None
    found = problems(edited(edit))
    assert any("maps[1]" in p and "RLE stream that fills" in p for p in found), found


def test_rle_that_over_fills_its_map() -> None:
    def edit(g: object) -> None:
        m = g.maps.maps[0].asset.value  # type: ignore[attr-defined]
        m.layers = np.zeros((12, 16, 16), dtype=np.uint16)
        m.rle_stream = None
    found = problems(edited(edit))
    assert any("maps[0]" in p and "RLE stream that fills" in p for p in found), found


def test_not_a_game() -> None:
    with pytest.raises(FormatError):
        open_game(b"#!/usr/bin/tngp\n" + bytes(10))
    with pytest.raises(FormatError):
        open_game(DATA[:70])


@given(st.lists(st.tuples(st.integers(0, len(DATA) - 1), st.integers(1, 255)), min_size=1, max_size=6))
def test_random_corruption_is_reported_never_a_crash(flips: list[tuple[int, int]]) -> None:
    data = bytearray(DATA)
    for pos, x in flips:
        data[pos] ^= x
    v = api.validate(bytes(data))  # must not raise
    assert v.format in (None, "tirnanog-game")
    try:
        game = api.load(bytes(data))
    except FormatError:
        return
    for a in game.assets():
        try:
            a.value
        except FormatError:
            pass


@given(st.integers(65, len(DATA) - 1))
def test_truncation_is_reported_never_a_crash(cut: int) -> None:
    v = api.validate(fix_crc(DATA[:cut]))
    assert not v.ok


def test_frame_atlas_past_the_atlases() -> None:
    from savecraft.formats.tirnanog.game.sections import TileSpritesSection

    def edit(g: object) -> None:
        g.section(TileSpritesSection).sprites[2].asset.value.animations[0].frames[0].atlas = 9  # type: ignore[attr-defined]
    found = problems(edited(edit))
    assert any("sprites[2].asset.value.animations[0].frames[0].atlas" in p and "below 2" in p for p in found), found


def test_map_tile_past_the_tile_sprites() -> None:
    def edit(g: object) -> None:
        g.maps.maps[0].asset.value.layers[2, 1, 1] = 40  # type: ignore[attr-defined]
    found = problems(edited(edit))
    assert any("maps[0].layers[2]" in p and "tile sprite indices below 8" in p for p in found), found


def test_map_npc_past_the_npc_types() -> None:
    def edit(g: object) -> None:
        g.maps.maps[1].asset.value.layers[5, 1, 1] = 30  # type: ignore[attr-defined]
    found = problems(edited(edit))
    assert any("maps[1].layers[5]" in p and "NPC type" in p for p in found), found


def test_object_sprite_past_the_tiles() -> None:
    from savecraft.formats.tirnanog.game.sections import ObjectsSection

    def edit(g: object) -> None:
        g.section(ObjectsSection).objects[0].sprite = 300  # type: ignore[attr-defined]
    found = problems(edited(edit))
    assert any("objects[0].sprite" in p for p in found), found


def test_speech_counts_differ_between_languages() -> None:
    def edit(g: object) -> None:
        g.translations[1].speech.clear()  # type: ignore[attr-defined]
    found = problems(edited(edit))
    assert any("speech assets in every language" in p for p in found), found


def test_media_without_its_magic_is_a_warning() -> None:
    from savecraft.formats.tirnanog.game.sections import FontsSection

    def edit(g: object) -> None:
        g.section(FontsSection).entries[0].asset.value = b"not a font"  # type: ignore[attr-defined]
    v = api.validate(edited(edit))
    assert v.ok
    assert any(p.severity == "warning" and "SSFN2" in str(p) for p in v.problems)


def test_default_action_count_follows_the_header() -> None:
    def edit(g: object) -> None:
        g.header.default_actions = 4  # type: ignore[attr-defined]
    found = problems(edited(edit))
    assert any("default_actions" in p and "header byte 40" in p for p in found), found


def test_string_index_inside_bytecode() -> None:
    def edit(g: object) -> None:
        npc = g.section(NpcTypesSection).npcs[1].asset.value  # type: ignore[attr-defined]
        npc.handlers[0].script = Script(code=bytes([44, 0xFF, 0x7F, 0, 5, 8, 0]))  # PUSHSND 0x7FFF; FNC1 sound
    found = problems(edited(edit))
    assert any("handlers[0].script@0.PUSHSND" in p and "inside section 0" in p for p in found), found


def test_sprite_inside_bytecode() -> None:
    def edit(g: object) -> None:
        npc = g.section(NpcTypesSection).npcs[1].asset.value  # type: ignore[attr-defined]
        npc.handlers[0].script = Script(code=bytes([42, 1, 99, 0, 0]))  # PUSHSPR tiles, 99
    found = problems(edited(edit))
    assert any("script@0.PUSHSPR.index" in p and "tiles sprite index below 8" in p for p in found), found


def test_command_above_the_header_s_highest() -> None:
    def edit(g: object) -> None:
        g.header.highest_command = 12  # type: ignore[attr-defined]
    found = problems(edited(edit))
    assert any(".FNC" in p and "header byte 43" in p for p in found), found


def test_frame_outside_its_atlas() -> None:
    from savecraft.formats.tirnanog.game.sections import UiSpritesSection

    def edit(g: object) -> None:
        g.section(UiSpritesSection).sprites[0].asset.value.animations[0].frames[0].x = 120  # type: ignore[attr-defined]
    found = problems(edited(edit))
    assert any("frames[0]" in p and "inside atlas 1 (128 x 128)" in p for p in found), found


def test_too_many_frames() -> None:
    from savecraft.formats.tirnanog.game.sections import UiSpritesSection

    def edit(g: object) -> None:
        anim = g.section(UiSpritesSection).sprites[0].asset.value.animations[0]  # type: ignore[attr-defined]
        anim.frames = anim.frames * 33
    found = problems(edited(edit))
    assert any("1 to 32 frames" in p for p in found), found


def test_neighbour_that_is_not_a_map() -> None:
    def edit(g: object) -> None:
        g.maps.maps[0].asset.value.neighbours[3] = g.strings.find("snd_coin")  # type: ignore[attr-defined]
    found = problems(edited(edit))
    assert any("maps[0].asset.neighbours[3]" in p and "snd_coin" in p for p in found), found


def test_header_reserved_bytes() -> None:
    def edit(g: object) -> None:
        g.header.reserved = 7  # type: ignore[attr-defined]
    found = problems(edited(edit))
    assert any(p.startswith("offset 0x0000002E: header.reserved") for p in found), found


def test_bytes_between_and_after_assets_are_kept() -> None:
    head, block, assets = split(DATA)
    # noise after the last asset and a file whose first asset starts 3 bytes late
    tailed = fix_crc(DATA + b"tail")
    v = api.validate(tailed)
    assert v.ok
    assert api.build(api.load(tailed)) == tailed


def test_bytes_in_front_of_an_asset_are_kept() -> None:
    game = open_game(DATA)
    first = min((a for a in game.assets() if a.length), key=lambda a: a.file_offset)
    first.gap = b"gap!"
    data = api.build(game)
    assert b"gap!" in data
    again = api.load(data)
    assert api.validate(data).ok
    assert api.build(again) == data
    assert again == open_game(DATA)


def test_section_block_in_another_order_is_kept() -> None:
    head, block, assets = split(DATA)
    count = int.from_bytes(block[:4], "little") // 8
    entries = [struct.unpack_from("<I3sB", block, 8 * i) for i in range(count)]
    datas = [block[off : off + int.from_bytes(ln, "little")] for off, ln, _ in entries]
    order = [0] + list(range(1, count))[::-1]  # the strings first (their offset is the table's size), then last to first
    table = bytearray(8 * count)
    body = bytearray()
    places = {}
    for i in order:
        places[i] = 8 * count + len(body)
        body += datas[i]
    for i, (_, ln, t) in enumerate(entries):
        struct.pack_into("<I3sB", table, 8 * i, places[i], ln, t)
    data = rewrap(head, bytes(table + body), assets)
    v = api.validate(data)
    assert v.ok and any("table order" in n for n in v.notes)
    assert api.build(api.load(data)) == data


def test_event_handler_codes_and_parameters() -> None:
    def edit(g: object) -> None:
        npc = g.section(NpcTypesSection).npcs[0].asset.value  # type: ignore[attr-defined]
        npc.handlers[0].event = 19
        npc.handlers[1].parameter = 13  # a timer code past 1 hour
        npc.handlers.append(type(npc.handlers[0])(14, 50))  # on using object2: object 50 does not exist
    found = problems(edited(edit))
    assert any("handlers[0].event" in p and "0 to 18" in p for p in found), found
    assert any("handlers[1].parameter" in p and "timer" in p for p in found), found
    assert any("handlers[2].parameter" in p and "object sprite index below 8" in p for p in found), found
