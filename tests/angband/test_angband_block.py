"""Angband 3.1+/4.x block savefiles: the real Ponyband saves, description, corruption, properties."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from savecraft import api, jsonmap, registry
from savecraft.cli import main
from savecraft.errors import FormatError, Report
from savecraft.formats.angband import block, sample
from savecraft.formats.angband.block import BlockSave, Description, RawBlock
from tests import samples
from tests.samples import real_samples

SAMPLES = samples.SAMPLES / "angband-block"
REAL = sorted(SAMPLES.glob("*.sav"))
CHARACTERS = {
    "ponyband_Asira.sav": "Asira, L7 Zebra Priest",
    "ponyband_Clever_Sparkle.sav": "Clever Sparkle, L1 Unicorn Mage",
    "ponyband_PLAYER.sav": ", L1 Unicorn Warrior",
}
real = real_samples


def spec_file(variant: bytes, blocks_: list[tuple[bytes, int, bytes]]) -> bytes:
    """An encoder written from NOTES.md, independent of the codec."""
    out = bytearray(b"Save" + variant)
    for name, version, data in blocks_:
        out += name.ljust(16, b"\0") + struct.pack("<III", version, len(data), sum(data) % 2**32)
        out += data + b"x" * (-len(data) % 4)
    return bytes(out)


def block_starts(data: bytes) -> list[int]:
    pos, starts = 8, []
    while pos < len(data):
        starts.append(pos)
        size = struct.unpack_from("<I", data, pos + 20)[0]
        pos += 28 + size + (-size % 4)
    return starts


def parse(data: bytes) -> BlockSave:
    return block.parse(data, Report(strict=True))


# -- the real files -----------------------------------------------------------------------------


@real
@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name)
def test_real_files_round_trip_with_checksums_verified(path: Path) -> None:
    data = path.read_bytes()
    assert registry.detect(data).name == "angband-block"
    report = Report(strict=False)
    save = block.parse(data, report)
    assert report.problems == []
    assert block.build(save) == data
    assert block.build(jsonmap.loads(jsonmap.dumps(save))) == data
    assert save.variant == "FAAN" and len(save.blocks) == 22
    d = save.description
    assert d is not None and d.line == CHARACTERS[path.name]
    assert block.info(save)["character"] == CHARACTERS[path.name]
    names = [block.block_name(b) for b in save.blocks]
    assert names[:3] == ["description", "rng", "options"] and names[-1] == "traps"
    raw = {b.name for b in save.blocks if isinstance(b, RawBlock)}
    assert raw == set()  # every block has a FAangband layout (tests/test_angband_variants.py)
    # every stored checksum is the byte sum of the block's data
    for start in block_starts(data):
        stored, = struct.unpack_from("<I", data, start + 24)
        size, = struct.unpack_from("<I", data, start + 20)
        assert stored == sum(data[start + 28:start + 28 + size]) % 2**32


@real
def test_real_description_fields() -> None:
    save = parse((SAMPLES / "ponyband_Asira.sav").read_bytes())
    assert save.description == Description(1, "Asira", 7, "Zebra", "Priest")


@real
def test_real_file_corrupted_checksum_is_found(tmp_path: Path) -> None:
    data = bytearray((SAMPLES / "ponyband_Asira.sav").read_bytes())
    stores = block_starts(bytes(data))[15]
    data[stores + 28 + 1000] ^= 0x40
    # Found and located; a warning, as no game's loader compares the checksum (it loads the file)
    found = [p for p in api.validate(bytes(data)).problems if p.path == "blocks[15].checksum"]
    assert [(p.offset, p.severity) for p in found] == [(stores + 24, "warning")]


@real
def test_real_file_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = SAMPLES / "ponyband_Asira.sav"
    assert main(["info", str(src)]) == 0
    assert "character: Asira, L7 Zebra Priest" in capsys.readouterr().out
    assert main(["validate", "-v", str(src)]) == 0
    dump, out = tmp_path / "a.json", tmp_path / "a.sav"
    assert main(["dump", str(src), "-o", str(dump)]) == 0
    assert main(["build", str(dump), "-o", str(out)]) == 0
    assert out.read_bytes() == src.read_bytes()
    assert main(["extract", str(src), "-o", str(tmp_path / "x")]) == 0
    files = sorted(p.name for p in (tmp_path / "x").iterdir())
    assert files[0] == "00-description.json" and "15-stores.json" in files and len(files) == 24 and "savecraft-extract.json" in files
    assert main(["build", str(tmp_path / "x"), "-o", str(tmp_path / "b.sav")]) == 0
    assert (tmp_path / "b.sav").read_bytes() == src.read_bytes()


# -- description ----------------------------------------------------------------------------


@pytest.mark.parametrize("line, fields", [
    ("Asira, L7 Zebra Priest", ("Asira", 7, "Zebra", "Priest", "")),
    ("Brand, L12 High-Elf Mage, at DL5", ("Brand", 12, "High-Elf", "Mage", ", at DL5")),
    (", L1 Unicorn Warrior", ("", 1, "Unicorn", "Warrior", "")),
    ("Sir Roland, L50 Half Troll Paladin", ("Sir Roland", 50, "Half Troll", "Paladin", "")),
])
def test_description_fields(line: str, fields: tuple[object, ...]) -> None:
    d = Description.from_line(line)
    assert (d.name, d.level, d.race, d.character_class, d.rest) == fields
    assert d.text is None and d.line == line


@pytest.mark.parametrize("line", ["Asira, dead (killed by a jackal)", "Asira, L07 Zebra Priest", ""])
def test_description_free_text_kept(line: str) -> None:
    d = Description.from_line(line)
    assert d.text == line and d.line == line
    data = spec_file(b"VNLA", [(b"description", 1, line.encode() + b"\0")])
    assert block.build(parse(data)) == data


def test_description_edit_rewrites_size_checksum_padding() -> None:
    save = sample.block_save()
    d = save.description
    assert d is not None
    d.level = 13
    d.name = "Brandybuck"
    data = block.build(save)
    line = b"Brandybuck, L13 High-Elf Mage, at DL5\0"
    assert struct.unpack_from("<II", data, 8 + 20) == (len(line), sum(line))
    assert data[36:36 + len(line)] == line and data[36 + len(line)] == ord("x")
    assert parse(data) == save


def test_bad_description_block_kept_as_bytes_and_reported() -> None:
    data = spec_file(b"VNLA", [(b"description", 1, b"no nul here")])
    report = Report(strict=False)
    save = block.parse(data, report)
    assert save.blocks == [RawBlock("description", 1, b"no nul here")]
    assert [(p.offset, p.path) for p in report.problems] == [(8 + 28 + 11, "blocks[0].data")]
    assert block.build(save) == data


# -- corruption ------------------------------------------------------------------------------


def test_truncation_at_and_inside_every_block() -> None:
    data = block.build(sample.block_save())
    starts = block_starts(data)
    for i, start in enumerate(starts):
        assert len(parse(data[:start]).blocks) == i  # no end block: a boundary is a valid end
        with pytest.raises(FormatError) as err:
            parse(data[:start + 17])
        assert err.value.offset == start + 16 and err.value.path == f"blocks[{i}].version"
        with pytest.raises(FormatError) as err:
            parse(data[:start + 29])
        assert err.value.offset == start + 28 and err.value.path == f"blocks[{i}].data"


def test_truncated_padding() -> None:
    data = spec_file(b"VNLA", [(b"rng", 1, b"abcde")])
    with pytest.raises(FormatError) as err:
        parse(data[:-1])
    assert err.value.offset == 8 + 28 + 5 and err.value.path == "blocks[0].padding"


def test_bad_padding_name_magic_variant_all_reported() -> None:
    data = bytearray(spec_file(b"VNLA", [(b"rng", 1, b"abcde"), (b"misc", 1, b"ab")]))
    data[0] = ord("s")
    data[5] = 1
    data[8 + 28 + 5] = ord("y")
    second = 8 + 28 + 8
    data[second + 6] = ord("Q")  # after the NUL of "misc"
    report = Report(strict=False)
    block.parse(bytes(data), report)
    assert [(p.offset, p.path) for p in report.problems] == [
        (0, "magic"), (4, "variant"), (8 + 28 + 5, "blocks[0].padding"),
        (second + 4, "blocks[1].name")]


def test_bad_checksum_offset() -> None:
    data = bytearray(spec_file(b"VNLA", [(b"rng", 1, b"abcd"), (b"misc", 1, b"efgh")]))
    data[-1] ^= 1
    report = Report(strict=False)
    block.parse(bytes(data), report)
    assert [(p.offset, p.path, p.severity) for p in report.problems] == \
        [(8 + 32 + 24, "blocks[1].checksum", "warning")]


def test_trailing_bytes_that_are_not_a_block() -> None:
    data = spec_file(b"VNLA", [(b"rng", 1, b"abcd")]) + b"zz"
    with pytest.raises(FormatError) as err:
        parse(data)
    assert err.value.offset == 8 + 32 and err.value.path == "blocks[1].name"


def test_size_past_the_end() -> None:
    data = bytearray(spec_file(b"VNLA", [(b"rng", 1, b"abcd")]))
    struct.pack_into("<I", data, 8 + 20, 0xFFFFFFF0)
    with pytest.raises(FormatError) as err:
        parse(bytes(data))
    assert err.value.offset == 36 and err.value.path == "blocks[0].data"


def test_duplicate_names_and_bad_models() -> None:
    save = BlockSave("VNLA", [RawBlock("rng"), RawBlock("rng")])
    report = Report(strict=False)
    block.check(save, report)
    assert [p.path for p in report.problems] == ["blocks[1].name"]
    with pytest.raises(FormatError, match="variant"):
        block.build(BlockSave("VNLAX"))
    with pytest.raises(FormatError, match=r"blocks\[0\]\.name"):
        block.build(BlockSave("VNLA", [RawBlock("a" * 17)]))


# -- properties ------------------------------------------------------------------------------

names = st.text("abcdefghijklmnopqrstuvwxyz ", min_size=1, max_size=16).filter(
    lambda n: n != "description")
raw_blocks = st.builds(RawBlock, names, st.integers(0, 2**32 - 1), st.binary(max_size=100))
descriptions = st.builds(
    Description, st.integers(0, 9), st.text("ABCxyz", max_size=10), st.integers(1, 99),
    st.sampled_from(["Human", "High-Elf", "Earth Pony"]), st.sampled_from(["Mage", "Rogue"]),
    st.sampled_from(["", ", at DL3"]))
models = st.builds(BlockSave, st.text("ABCDFNVL", min_size=4, max_size=4),
                   st.lists(st.one_of(raw_blocks, descriptions), max_size=5))


@given(models)
def test_property_models(save: BlockSave) -> None:
    assert parse(block.build(save)) == save
    assert jsonmap.from_json(jsonmap.to_json(save)) == save


@given(st.lists(st.tuples(names.map(str.encode), st.integers(0, 9), st.binary(max_size=64)), max_size=5))
def test_property_files(blocks_: list[tuple[bytes, int, bytes]]) -> None:
    data = spec_file(b"TEST", blocks_)
    assert block.build(block.parse(data, Report(strict=False))) == data


@given(st.binary(max_size=120))
def test_property_garbage_never_crashes(tail: bytes) -> None:
    try:
        parse(b"SaveVNLA" + tail)
    except FormatError:
        pass


def test_api_load(tmp_path: Path) -> None:
    p = tmp_path / "b.sav"
    api.save(sample.block_save(), p)
    assert api.load(p) == sample.block_save()


def test_a_small_angband_validate_imports_no_numpy(tmp_path: Path) -> None:
    """Start-up (docs/cli.md, bench/bench_startup.py): numpy costs ~50 ms to import, more than a
    small file's whole validate; only a level map (and sums of many MB) need it."""
    import subprocess
    import sys

    from savecraft.formats.angband import sample as angband_sample

    files = [tmp_path / "block.sav", tmp_path / "modular.sav", tmp_path / "unknown.bin"]
    api.save(angband_sample.block_save(), files[0])
    api.save(angband_sample.modular_save(), files[1])
    files[2].write_bytes(bytes(range(256)) * 4)  # no magic: the legacy sniffer sums it
    for path in files:
        prog = ("import sys\nfrom savecraft.cli import main\n"
                f"main(['validate', {str(path)!r}])\nprint('numpy' in sys.modules)")
        out = subprocess.run([sys.executable, "-c", prog], capture_output=True, text=True, timeout=60)
        assert out.stdout.split()[-1] == "False", (path.name, out.stdout, out.stderr)


def test_block_sums_are_the_same_with_and_without_numpy() -> None:
    import random
    import sys

    from savecraft.formats.angband import sniffing

    data = random.Random(4).randbytes(5000)
    numpy = sys.modules.pop("numpy", None)
    try:
        plain = sniffing.byte_sum(data)
    finally:
        if numpy is not None:
            sys.modules["numpy"] = numpy
    import numpy as np  # noqa: F401 - once imported by anything, large sums use it

    assert sniffing.byte_sum(data) == plain == sum(data) % 2**32
