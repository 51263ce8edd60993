"""The Angband modular v2 savefile: layout, block codecs, checksums, corruption, JSON, CLI."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from savecraft import api, jsonmap, registry
from savecraft.cli import main
from savecraft.errors import FormatError, Report
from savecraft.formats.angband import blocks, modular, sample
from savecraft.formats.angband.blocks import BlockCodec, VariantHeader, register_block
from savecraft.layout import U16, Field, Struct
from savecraft.formats.angband.modular import DecodedBlock, ModularSave, OpaqueBlock


# -- an encoder written from the spec, independent of the codec ---------------------------


def spec_file(status: int, description: bytes, blocks_: list[tuple[int, int, int, bytes]],
              trailing: bytes = b"") -> bytes:
    out = bytearray(b"Save" + bytes([2, status]) + description.ljust(64, b"\0"))
    for vendor, type_, version, data in blocks_:
        out += struct.pack("<HHHII", vendor, type_, version, len(data), sum(data) % 2**32)
        out += data + b"\0"
    out += bytes(15)
    return bytes(out + trailing)


def block_starts(data: bytes) -> list[int]:
    """Offsets of every block header, the end block's included."""
    pos, starts = 70, []
    while True:
        starts.append(pos)
        vendor, type_, version, size = struct.unpack_from("<HHHI", data, pos)
        if (vendor, type_, version) == (0, 0, 0):
            return starts
        pos += 14 + size + 1


def parse(data: bytes) -> ModularSave:
    return modular.parse(data, Report(strict=True))


def problems(data: bytes) -> list[tuple[int | None, str]]:
    report = Report(strict=False)
    modular.parse(data, report)
    return [(p.offset, p.path) for p in report.problems]


# -- layout ---------------------------------------------------------------------------------


def test_sample_round_trip_and_layout() -> None:
    save = sample.modular_save()
    data = modular.build(save)
    assert data[:6] == b"Save\x02\x01"
    assert data[6:6 + 64].rstrip(b"\0") == save.description.encode()
    assert data[-15:] == bytes(15)
    again = parse(data)
    assert again == save
    assert modular.build(again) == data
    assert isinstance(again.blocks[0], DecodedBlock)
    assert again.variant == VariantHeader("Vanilla", 3, 0, 6, 0)
    assert [b.key for b in again.blocks[1:]] == [(0, t, 1) for t, _, _ in sample.MODULAR_LAYOUT] + [(77, 1, 2)]


def test_header_block_codec_bytes() -> None:
    data = spec_file(0, b"Dead Hero", [(0, 1, 1, b"Sangband\x00\x01\x02\x03\x04")])
    save = parse(data)
    assert save.dead
    assert save.blocks == [DecodedBlock(VariantHeader("Sangband", 1, 2, 3, 4))]
    assert save.variant is not None and save.variant.version_text == "1.2.3.4"
    assert modular.build(save) == data


def test_header_block_with_extra_bytes_stays_opaque_and_is_reported() -> None:
    data = spec_file(1, b"x", [(0, 1, 1, b"V\x00\x01\x02\x03\x04\x05")])
    report = Report(strict=False)
    save = modular.parse(data, report)
    assert save.blocks == [OpaqueBlock(0, 1, 1, b"V\x00\x01\x02\x03\x04\x05")]
    assert [(p.offset, p.path) for p in report.problems] == [(70 + 14 + 6, "blocks[0]")]
    assert modular.build(save) == data
    with pytest.raises(FormatError) as err:
        parse(data)
    assert err.value.offset == 70 + 14 + 6


def test_header_codec_ignores_other_versions() -> None:
    data = spec_file(1, b"x", [(0, 1, 2, b"V\x00\x01\x02\x03\x04")])
    assert parse(data).blocks == [OpaqueBlock(0, 1, 2, b"V\x00\x01\x02\x03\x04")]


def test_checksum_recomputed_after_edit() -> None:
    save = sample.modular_save()
    block = save.blocks[1]
    assert isinstance(block, OpaqueBlock)
    block.data = b"\xff" * 10
    data = modular.build(save)
    start = block_starts(data)[1]
    vendor, type_, version, size, checksum = struct.unpack_from("<HHHII", data, start)
    assert (size, checksum) == (10, 2550)
    assert parse(data) == save


def test_description_padding_kept() -> None:
    raw = b"Name\x00junk" + bytes(55)
    data = spec_file(1, raw, [])
    save = parse(data)
    assert save.description == "Name"
    assert save.description_padding == b"\x00junk" + bytes(55)
    assert modular.build(save) == data


def test_build_refuses_bad_models() -> None:
    with pytest.raises(FormatError, match="description"):
        modular.build(ModularSave(description="x" * 65))
    with pytest.raises(FormatError, match=r"blocks\[0\]"):
        modular.build(ModularSave(blocks=[OpaqueBlock(0, 0, 0, b"")]))
    with pytest.raises(FormatError, match=r"blocks\[0\]\.vendor"):
        modular.build(ModularSave(blocks=[OpaqueBlock(70000, 1, 1, b"")]))
    with pytest.raises(FormatError, match=r"major"):
        modular.build(ModularSave(blocks=[DecodedBlock(VariantHeader("V", 300))]))


# -- block-codec registry ---------------------------------------------------------------------


@dataclass(slots=True)
class Pair:
    left: int
    right: int


PAIR_LAYOUT = Struct(Pair, [Field("left", U16), Field("right", U16)], name="test pair")
PAIR = register_block(BlockCodec("test-pair", 900, 5, 1, PAIR_LAYOUT))


def test_registered_codec_decodes_dumps_and_rebuilds() -> None:
    data = spec_file(1, b"x", [(900, 5, 1, struct.pack("<HH", 7, 9)), (900, 5, 2, b"\x01")])
    save = parse(data)
    assert save.blocks == [DecodedBlock(Pair(7, 9)), OpaqueBlock(900, 5, 2, b"\x01")]
    doc = jsonmap.to_json(save)
    assert doc["data"]["blocks"][0] == {"kind": "decoded", "codec": "test-pair", "vendor": 900,
                                        "type": 5, "version": 1, "fields": {"left": 7, "right": 9}}
    assert jsonmap.from_json(doc) == save
    assert modular.build(jsonmap.loads(jsonmap.dumps(save))) == data
    assert blocks.codec_for(900, 5, 1) is PAIR and blocks.codec_named("test-pair") is PAIR


def test_registry_refuses_clashes() -> None:
    with pytest.raises(Exception, match="already registered"):
        register_block(BlockCodec("other", 900, 5, 1, Struct(dict, [])))
    assert register_block(PAIR) is PAIR  # registering the same codec again is harmless


def test_json_unknown_codec_name() -> None:
    doc = jsonmap.to_json(sample.modular_save())
    doc["data"]["blocks"][0]["codec"] = "nope"
    with pytest.raises(FormatError, match=r"^blocks\[0\]\.codec"):
        jsonmap.from_json(doc)


# -- corruption ---------------------------------------------------------------------------------


def test_truncation_at_every_block_boundary() -> None:
    data = modular.build(sample.modular_save())
    starts = block_starts(data)
    for i, start in enumerate(starts):
        with pytest.raises(FormatError) as err:
            parse(data[:start])
        assert err.value.offset == start
        assert err.value.path == f"blocks[{i}]"
        # inside the header, then inside the data
        with pytest.raises(FormatError) as err:
            parse(data[:start + 5])
        assert err.value.offset == start + 4  # version field, the first one cut short
        if i < len(starts) - 1:
            with pytest.raises(FormatError) as err:
                parse(data[:start + 20])
            assert err.value.offset == start + 14
            assert err.value.path == f"blocks[{i}].data"


def test_truncated_file_header() -> None:
    with pytest.raises(FormatError) as err:
        parse(b"Save\x02\x01abc")
    assert err.value.offset == 6 and err.value.path == "description"  # the model's path


def test_bad_checksum_reported_at_its_field() -> None:
    data = bytearray(modular.build(sample.modular_save()))
    start = block_starts(bytes(data))[3]
    data[start + 14] ^= 0xFF
    with pytest.raises(FormatError) as err:
        parse(bytes(data))
    assert err.value.offset == start + 10 and err.value.path == "blocks[3].checksum"
    # validate mode reads on, and the rebuilt file carries the right checksum
    report = Report(strict=False)
    save = modular.parse(bytes(data), report)
    assert [(p.offset, p.path) for p in report.problems] == [(start + 10, "blocks[3].checksum")]
    fixed = modular.build(save)
    assert parse(fixed) == save


def test_bad_magic_and_version_all_reported() -> None:
    data = bytearray(modular.build(sample.modular_save()))
    data[0:4] = b"Sav!"
    data[4] = 3
    assert problems(bytes(data))[:2] == [(0, "magic"), (4, "version")]
    with pytest.raises(FormatError) as err:
        parse(bytes(data))
    assert err.value.offset == 0


def test_bad_block_terminator_and_end_block() -> None:
    data = bytearray(spec_file(1, b"x", [(5, 5, 5, b"abc")]))
    data[70 + 14 + 3] = 9
    end = 70 + 14 + 3 + 1
    data[end + 6] = 1  # end block size 1
    assert problems(bytes(data)) == [(70 + 17, "blocks[0].terminator"), (end + 6, "end.size")]


def test_trailing_bytes_reported_and_kept() -> None:
    data = spec_file(1, b"x", [(5, 5, 5, b"abc")], trailing=b"extra!")
    report = Report(strict=False)
    save = modular.parse(data, report)
    assert [(p.offset, p.path, p.severity) for p in report.problems] == [
        (len(data) - 6, "trailing", "warning")]
    assert save.trailing == b"extra!"
    assert modular.build(save) == data
    assert parse(data) == save  # a warning never fails a strict parse


def test_block_size_past_the_end() -> None:
    data = bytearray(spec_file(1, b"x", [(5, 5, 5, b"abc")]))
    struct.pack_into("<I", data, 70 + 6, 1_000_000)
    with pytest.raises(FormatError) as err:
        parse(bytes(data))
    assert err.value.offset == 84 and "1000000 bytes" in str(err.value)


# -- property tests -------------------------------------------------------------------------------

keys = st.tuples(st.integers(0, 0xFFFF), st.integers(0, 0xFFFF), st.integers(0, 0xFFFF)).filter(
    lambda k: k != (0, 0, 0) and k != (0, 1, 1) and k[0] != 900)
opaque = st.builds(lambda k, d: OpaqueBlock(k[0], k[1], k[2], d), keys, st.binary(max_size=300))
header = st.builds(VariantHeader, st.text(st.characters(blacklist_characters="\0"), max_size=12),
                   *[st.integers(0, 255)] * 4).map(DecodedBlock)
models = st.builds(
    ModularSave,
    status=st.integers(0, 255),
    description=st.text(st.characters(max_codepoint=255, blacklist_characters="\0"), max_size=64),
    blocks=st.lists(st.one_of(opaque, header), max_size=6),
    trailing=st.binary(max_size=8),
)


@given(models)
def test_property_models_survive_build_and_parse(save: ModularSave) -> None:
    data = modular.build(save)
    assert parse(data) == save
    assert jsonmap.from_json(jsonmap.to_json(save)) == save


@given(st.integers(0, 255), st.binary(max_size=64).map(lambda b: b.replace(b"\0", b"")),
       st.lists(st.tuples(st.integers(0, 9), st.integers(0, 9), st.integers(0, 9), st.binary(max_size=200))
                .filter(lambda t: t[:3] != (0, 0, 0)), max_size=6),
       st.binary(max_size=8))
def test_property_files_rebuild_byte_for_byte(status: int, desc: bytes,
                                              blocks_: list[tuple[int, int, int, bytes]],
                                              trailing: bytes) -> None:
    data = spec_file(status, desc, blocks_, trailing)
    assert modular.build(modular.parse(data, Report(strict=False))) == data


@given(st.binary(max_size=200))
def test_property_garbage_never_crashes(tail: bytes) -> None:
    data = b"Save\x02\x00" + tail
    try:
        modular.build(parse(data))
    except FormatError:
        pass
    report = Report(strict=False)
    modular.parse(data, report)


# -- registry and command line --------------------------------------------------------------------


def test_sniffing_tells_the_save_formats_apart() -> None:
    data = modular.build(sample.modular_save())
    assert registry.detect(data).name == "angband-modular"
    assert registry.detect(b"SaveVNLA" + bytes(30)).name == "angband-block"
    assert not modular.sniff(b"SaveVNLA")
    for fmt in registry.formats():
        if fmt.name != "angband-modular":
            assert not fmt.sniff(data), fmt.name


def test_cli_info_validate_dump_build_extract(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "m.sav"
    api.save(sample.modular_save(), src)
    assert main(["info", str(src)]) == 0
    out = capsys.readouterr().out
    assert "angband-modular" in out and "variant: Vanilla" in out and "variant version: 3.0.6" in out
    assert "Asira, L7 Zebra Priest" in out
    assert main(["validate", "-v", str(src)]) == 0
    dump, rebuilt = tmp_path / "m.json", tmp_path / "m2.sav"
    assert main(["dump", str(src), "-o", str(dump)]) == 0
    assert main(["build", str(dump), "-o", str(rebuilt)]) == 0
    assert rebuilt.read_bytes() == src.read_bytes()
    assert main(["extract", str(src), "-o", str(tmp_path / "x")]) == 0
    names = sorted(p.name for p in (tmp_path / "x").iterdir())
    assert names[0] == "000-header.json" and "008-vendor77-type1-v2.bin" in names
    assert (tmp_path / "x" / "001-vendor0-type2-v1.bin").stat().st_size == 256
    bad = tmp_path / "bad.sav"
    bad.write_bytes(src.read_bytes()[:200])
    assert main(["validate", str(bad)]) == 1
    assert "offset 0x0000006F: blocks[1].data" in capsys.readouterr().out


def test_info_json_keeps_the_format_description(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import orjson

    src = tmp_path / "m.sav"
    api.save(sample.modular_save(), src)
    assert main(["info", "--json", str(src)]) == 0
    doc = orjson.loads(capsys.readouterr().out)
    assert doc["description"] == "Angband modular savefile, version 2"
    assert doc["savefile_description"] == "Asira, L7 Zebra Priest, in the Town"
    from tests.cli.info_convention import check_info

    check_info(doc)  # docs/info-json.md
    assert doc["status"] == 1 and doc["dead"] is False and doc["variant_version"] == "3.0.6"
    assert all(isinstance(b["payload_bytes"], int) for b in doc["blocks"])


def test_demo_samples_load_validate_and_rebuild(tmp_path: Path) -> None:
    from savecraft.formats.angband import demo

    paths = demo.write_samples(tmp_path)
    formats = [api.validate(p).format for p in paths]
    assert formats[:2] == ["angband-modular", "angband-block"]
    if demo.samples_folder() is not None:
        assert formats[2:] == ["angband-block"] * 3
    for p in paths:
        assert api.validate(p).ok
        assert api.build(api.load(p)) == p.read_bytes()


def test_the_documented_block_codec_example_runs() -> None:
    import sys
    import types
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "angband.md").read_text()
    example = next(part.split("```", 1)[0] for part in text.split("```python\n")[1:] if "register_block" in part)
    module = types.ModuleType("modular_doc_example")
    sys.modules[module.__name__] = module
    try:
        exec(compile(example, "docs/angband.md", "exec"), module.__dict__)  # noqa: S102 (our own doc)
    finally:
        del sys.modules[module.__name__]
    codec = blocks.codec_named("pickup")
    assert codec is not None and codec.model is module.Pickup
    data = spec_file(1, b"x", [(78, 1, 1, struct.pack("<HHH", 2, 7, 9))])
    save = parse(data)
    assert save.blocks == [DecodedBlock(module.Pickup([7, 9]))]
    assert modular.build(save) == data
