"""Quest for Glory 5 savegames: layout, obfuscation, counts, corruption, properties, CLI."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from savecraft import api, jsonmap, registry
from savecraft.cli import main
from savecraft.errors import FormatError, Report
from savecraft.formats.qfg5 import codec, sample
from savecraft.formats.qfg5.model import (
    Belt,
    DialogueRoom,
    EmptySlot,
    Equipment,
    GameObject,
    InventoryItem,
    MessageState,
    QfgSave,
    RoomObjects,
    empty_rooms,
)
from savecraft.formats.qfg5.obfuscation import deobfuscate, obfuscate


def parse(data: bytes) -> QfgSave:
    return codec.parse(data, Report(strict=True))


def problems(data: bytes) -> list[tuple[int | None, str]]:
    report = Report(strict=False)
    codec.parse(data, report)
    return [(p.offset, p.path) for p in report.errors]


# -- an encoder written from the spec, independent of the codec ---------------------------


def spec_file(s: QfgSave, rooms: int | None = None, total: int | None = None) -> bytes:
    """The bytes of ``s`` as the spec lays them out; ``rooms`` writes that many room records."""
    plain = s.player_state
    stored = bytes(plain[i] ^ plain[i + 1] for i in range(len(plain) - 1)) + plain[-1:]
    out = bytearray(b"QG5P1.000 " + struct.pack("<HHHHI", 0xDE89, len(s.inventory) ^ 0xBEAD,
                                                  len(s.noise) ^ 0xFACE, 0xA8A5, s.player_type))
    out += s.noise + stored
    for it in s.inventory:
        out += struct.pack("<4I", it.sprite_id, it.amount, it.unique, it.zapped)
    out += struct.pack("<I", len(s.dialogue))
    for d in s.dialogue:
        out += struct.pack("<II", d.room, len(d.messages))
        for m in d.messages:
            out += struct.pack("<II", m.said, m.removed)
    room_list = s.rooms if rooms is None else (s.rooms * 2)[:rooms]
    slots = sum(len(r.objects) for r in room_list)
    out += struct.pack("<I", slots if total is None else total)
    for r in room_list:
        out += struct.pack("<I", len(r.objects))
        for o in r.objects:
            if isinstance(o, EmptySlot):
                out += bytes(4)
            else:
                out += struct.pack("<III", len(o.data), o.type, o.id) + o.data
    out += s.engine_state + struct.pack("<I", len(s.hero)) + s.hero
    e = s.equipment
    out += struct.pack("<16I", *s.belt.items, s.belt.selected, s.belt.active, e.sword, e.shield,
                       e.helmet, e.armour, e.amulet)
    out += struct.pack("<I", len(s.map_state)) + s.map_state + struct.pack("<I", s.current_room)
    if s.current_room not in (0, 900):
        out += struct.pack("<I", len(s.room_data)) + s.room_data
    return bytes(out)


def part_boundaries(s: QfgSave) -> dict[str, int]:
    """Where each part starts (the next part's path as the reader names it)."""
    pos = 22
    marks = {"noise": pos}
    pos += len(s.noise)
    marks["player_state"] = pos
    pos += 1096
    marks["dialogue.rooms"] = pos + 16 * len(s.inventory)
    pos = marks["dialogue.rooms"] + 4 + sum(8 + 8 * len(d.messages) for d in s.dialogue)
    marks["objects.total"] = pos
    pos += 4 + sum(4 + sum(4 if isinstance(o, EmptySlot) else 12 + len(o.data) for o in r.objects)
                   for r in s.rooms)
    marks["engine_state"] = pos
    marks["hero.size"] = pos + 1536
    marks["belt.items"] = marks["hero.size"] + 4 + len(s.hero)  # the model's paths (belt, equipment)
    marks["map_state.size"] = marks["belt.items"] + 64
    marks["current_room"] = marks["map_state.size"] + 4 + len(s.map_state)
    marks["room_data.size"] = marks["current_room"] + 4
    return marks


# -- layout ---------------------------------------------------------------------------------


def test_sample_matches_the_spec_encoder_and_round_trips() -> None:
    save = sample.qfg5_save()
    data = codec.build(save)
    assert data == spec_file(save)
    assert parse(data) == save
    assert jsonmap.loads(jsonmap.dumps(save)) == save
    assert codec.build(jsonmap.loads(jsonmap.dumps(parse(data)))) == data
    assert registry.detect(data).name == "qfg5-save"


def test_header_fields_are_xored() -> None:
    save = sample.qfg5_save()
    data = codec.build(save)
    assert data[:10] == b"QG5P1.000 "
    check1, items, noise, check2 = struct.unpack_from("<4H", data, 10)
    assert (check1, check2) == (0xDE89, 0xA8A5)
    assert items == len(save.inventory) ^ 0xBEAD and noise == len(save.noise) ^ 0xFACE
    assert data[22:22 + len(save.noise)] == save.noise


def test_player_state_is_stored_decoded() -> None:
    save = sample.qfg5_save()
    data = codec.build(save)
    at = 22 + len(save.noise)
    stored = data[at:at + 1096]
    assert stored != save.player_state
    assert stored[-1] == save.player_state[-1]
    assert stored[0] == save.player_state[0] ^ save.player_state[1]
    assert deobfuscate(stored) == save.player_state


@given(st.binary(min_size=1, max_size=2000))
def test_property_obfuscation_inverts(plain: bytes) -> None:
    assert deobfuscate(obfuscate(plain)) == plain
    assert obfuscate(deobfuscate(plain)) == plain


def test_equipment_by_name_and_global_rooms() -> None:
    save = sample.qfg5_save()
    save.equipment.shield = 101999
    save.current_room = 900
    save.room_data = b""
    data = codec.build(save)
    again = parse(data)
    assert again.equipment == Equipment(sample.SWORD, 101999, sample.HELMET, sample.ARMOUR, sample.AMULET)
    assert data.endswith(struct.pack("<I", 900))
    save.room_data = b"x"
    with pytest.raises(FormatError, match="room_data"):
        codec.build(save)


def test_adding_an_item_and_a_dialogue_room_rewrites_the_counts() -> None:
    save = sample.qfg5_save()
    before = codec.build(save)
    save.inventory.append(InventoryItem(101777, 3, 1, 0))
    save.dialogue.append(DialogueRoom(620, [MessageState(1, 0), MessageState(0, 1)]))
    save.rooms[7].objects.append(GameObject(3, 42, b"state"))
    after = codec.build(save)
    assert len(after) == len(before) + 16 + 8 + 16 + 12 + 5
    assert struct.unpack_from("<H", after, 12)[0] ^ 0xBEAD == len(save.inventory)
    marks = part_boundaries(save)
    assert struct.unpack_from("<I", after, marks["dialogue.rooms"])[0] == len(save.dialogue)
    assert struct.unpack_from("<I", after, marks["objects.total"])[0] == save.object_slots
    assert after == spec_file(save)
    assert parse(after) == save


def test_noise_length_change_rewrites_header() -> None:
    save = sample.qfg5_save()
    save.noise = b"\x11" * 150
    data = codec.build(save)
    assert struct.unpack_from("<H", data, 14)[0] ^ 0xFACE == 150
    assert parse(data).noise == save.noise


def test_build_refuses_invalid_models() -> None:
    cases = [
        (dict(noise=bytes(49)), "noise"), (dict(noise=bytes(151)), "noise"),
        (dict(rooms=empty_rooms()[:132]), "rooms"), (dict(player_state=bytes(10)), "player_state"),
        (dict(engine_state=bytes(1535)), "engine_state"), (dict(belt=Belt([1] * 8)), "belt.items"),
        (dict(inventory=[InventoryItem(-1)]), r"inventory\[0\]"),
    ]
    for change, where in cases:
        with pytest.raises(FormatError, match=where):
            codec.build(QfgSave(**change))  # type: ignore[arg-type]
    rooms = empty_rooms()
    rooms[3] = RoomObjects([GameObject(1, 2, b"")])
    with pytest.raises(FormatError, match=r"rooms\[3\]\.objects\[0\]\.data"):
        codec.build(QfgSave(rooms=rooms))


def test_objects_total_variants_are_accepted_and_kept() -> None:
    save = sample.qfg5_save()
    assert save.object_slots != save.object_count
    for rule, total in (("objects", save.object_count), ("rooms", 133)):
        data = spec_file(save, total=total)
        report = Report(strict=False)
        again = codec.parse(data, report)
        assert report.ok and again.total_rule == rule and any(rule in n for n in report.notes)
        assert codec.build(again) == data


# -- corruption ----------------------------------------------------------------------------------


def test_truncation_at_every_part_boundary() -> None:
    save = sample.qfg5_save()
    data = codec.build(save)
    for path, at in part_boundaries(save).items():
        with pytest.raises(FormatError) as err:
            parse(data[:at])
        assert (err.value.offset, err.value.path) == (at, path)
        assert problems(data[:at])[-1] == (at, path)


def test_truncation_everywhere_is_a_format_error() -> None:
    data = codec.build(sample.qfg5_save(items=2, dialogue_rooms=2, busy_rooms=3))
    for cut in range(0, len(data), 7):
        with pytest.raises(FormatError):
            parse(data[:cut])


def test_bad_magic_and_constants() -> None:
    data = bytearray(codec.build(sample.qfg5_save()))
    data[3] = ord("6")
    data[10] ^= 1
    data[17] ^= 1
    assert problems(bytes(data)) == [(0, "header.magic"), (10, "header.check1"), (16, "header.check2")]
    with pytest.raises(FormatError) as err:
        parse(bytes(data))
    assert err.value.offset == 0


@pytest.mark.parametrize("length", [49, 151, 0, 0xFFFF])
def test_bad_noise_length(length: int) -> None:
    data = bytearray(codec.build(sample.qfg5_save()))
    struct.pack_into("<H", data, 14, length ^ 0xFACE)
    with pytest.raises(FormatError) as err:
        parse(bytes(data))
    assert (err.value.offset, err.value.path) == (14, "header.noise_length")
    assert problems(bytes(data))[0] == (14, "header.noise_length")


@pytest.mark.parametrize("rooms", [132, 134, 120])
def test_wrong_room_count(rooms: int) -> None:
    save = sample.qfg5_save()
    data = spec_file(save, rooms=rooms)
    at = part_boundaries(save)["objects.total"]
    with pytest.raises(FormatError) as err:
        parse(data)
    assert (err.value.offset, err.value.path) == (at, "rooms")
    assert f"found {rooms} " in str(err.value)
    report = Report(strict=False)
    partial = codec.parse(data, report)
    assert [(p.offset, p.path) for p in report.errors] == [(at, "rooms")]
    assert len(partial.rooms) == rooms and partial.room_data == save.room_data


def test_wrong_objects_total() -> None:
    save = sample.qfg5_save()
    data = spec_file(save, total=5)
    at = part_boundaries(save)["objects.total"]
    with pytest.raises(FormatError) as err:
        parse(data)
    assert (err.value.offset, err.value.path) == (at, "objects.total")


def test_trailing_bytes() -> None:
    data = codec.build(sample.qfg5_save())
    with pytest.raises(FormatError) as err:
        parse(data + b"\0\0\0")
    assert (err.value.offset, err.value.path) == (len(data), "trailing")


def test_sizes_past_the_end() -> None:
    save = sample.qfg5_save()
    data = bytearray(codec.build(save))
    marks = part_boundaries(save)
    struct.pack_into("<I", data, marks["map_state.size"], 10**9)
    with pytest.raises(FormatError) as err:
        parse(bytes(data))
    assert (err.value.offset, err.value.path) == (marks["map_state.size"] + 4, "map_state")
    data = bytearray(codec.build(save))
    struct.pack_into("<H", data, 12, 60000 ^ 0xBEAD)
    with pytest.raises(FormatError) as err:
        parse(bytes(data))
    assert err.value.path == "inventory" and "a count of 60000" in str(err.value)


def test_validate_collects_several_problems() -> None:
    save = sample.qfg5_save()
    data = bytearray(spec_file(save, total=1))
    data[10] = 0
    result = api.validate(bytes(data) + b"!")
    assert [p.path for p in result.problems] == ["header.check1", "trailing", "objects.total"]


# -- properties ---------------------------------------------------------------------------------

u32 = st.integers(0, 2**32 - 1)
objects = st.one_of(st.just(EmptySlot()), st.builds(GameObject, u32, u32, st.binary(min_size=1, max_size=20)))


@st.composite
def saves(draw: st.DrawFn) -> QfgSave:
    rooms = empty_rooms()
    for i in draw(st.lists(st.integers(0, 132), max_size=4, unique=True)):
        rooms[i] = RoomObjects(draw(st.lists(objects, max_size=3)))
    current = draw(st.sampled_from([0, 900, 7, 2**32 - 1]))
    return QfgSave(
        player_type=draw(u32),
        noise=draw(st.binary(min_size=50, max_size=150)),
        player_state=draw(st.binary(min_size=1096, max_size=1096)),
        inventory=draw(st.lists(st.builds(InventoryItem, u32, u32, u32, u32), max_size=4)),
        dialogue=draw(st.lists(st.builds(DialogueRoom, u32, st.lists(st.builds(MessageState, u32, u32),
                                                                       max_size=3)), max_size=3)),
        rooms=rooms,
        engine_state=draw(st.binary(min_size=1536, max_size=1536)),
        hero=draw(st.binary(max_size=40)),
        belt=Belt(draw(st.lists(u32, min_size=9, max_size=9)), draw(u32), draw(u32)),
        equipment=Equipment(*draw(st.lists(u32, min_size=5, max_size=5))),
        map_state=draw(st.binary(max_size=40)),
        current_room=current,
        room_data=b"" if current in (0, 900) else draw(st.binary(max_size=40)),
    )


@given(saves())
def test_property_models(save: QfgSave) -> None:
    assert parse(codec.build(save)) == save


@given(saves())
def test_property_files(save: QfgSave) -> None:
    data = spec_file(save)
    assert codec.build(codec.parse(data, Report(strict=False))) == data


@given(st.binary(max_size=300))
def test_property_garbage_never_crashes(tail: bytes) -> None:
    head = codec.build(sample.qfg5_save(items=1, dialogue_rooms=1, busy_rooms=1))[:1200]
    for data in (head + tail, b"QG5P1.000 " + tail):
        try:
            parse(data)
        except FormatError:
            pass
        codec.parse(data, Report(strict=False))


# -- command line ---------------------------------------------------------------------------------


def test_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "q.sav"
    api.save(sample.qfg5_save(), src)
    assert main(["info", str(src)]) == 0
    out = capsys.readouterr().out
    assert "qfg5-save" in out and "sword: 101010" in out and "amulet: 101050" in out
    assert main(["validate", "-v", str(src)]) == 0
    dump, out_file = tmp_path / "q.json", tmp_path / "q2.sav"
    assert main(["dump", str(src), "-o", str(dump)]) == 0
    assert main(["build", str(dump), "-o", str(out_file)]) == 0
    assert out_file.read_bytes() == src.read_bytes()
    folder = tmp_path / "x"
    assert main(["extract", str(src), "-o", str(folder)]) == 0
    names = {p.name for p in folder.iterdir()}
    assert {"header.json", "noise.bin", "player_state.bin", "inventory.json", "dialogue.json",
            "objects.json", "engine_state.bin", "hero.bin", "equipment.json", "map_state.bin",
            "room.json", "room_data.bin", "objects", "savecraft-extract.json"} == names
    assert (folder / "player_state.bin").read_bytes() == sample.qfg5_save().player_state
    assert len(list((folder / "objects").iterdir())) == sample.qfg5_save().object_count


def test_demo_sample(tmp_path: Path) -> None:
    from savecraft.formats.qfg5 import demo

    [path] = demo.write_samples(tmp_path)
    assert api.validate(path).ok and api.load(path) == sample.qfg5_save()
