"""Broken saves: every problem is reported with the right offset, never a traceback."""

from __future__ import annotations

import struct
import zlib

import pytest

import savecraft
from savecraft.compression import set_inflate_limit
from savecraft.errors import FormatError
from savecraft.formats.tirnanog.save import codec, sample

HEADER = 32


@pytest.fixture(scope="module")
def server() -> bytes:
    return savecraft.build(sample.server_save(users=6))


def _content(data: bytes, start: int = HEADER) -> bytes:
    return zlib.decompress(data[start:-4])


def _wrap(content: bytes, crc: int | None = None) -> bytes:
    return (codec.MAGIC + b"g".ljust(16, b"\0") + zlib.compress(content)
            + struct.pack("<I", zlib.crc32(content) if crc is None else crc))


def _boundaries(content: bytes) -> list[int]:
    out, pos = [], 0
    while pos < len(content):
        out.append(pos)
        pos += struct.unpack_from("<I", content, pos + 4)[0]
    return out


def _problems(data: bytes) -> list[savecraft.Problem]:
    result = savecraft.validate(data)
    assert not result.ok
    return result.problems


def test_wrong_magic(server: bytes) -> None:
    bad = b"TNG Saved Gamf\n\0" + server[16:]
    with pytest.raises(FormatError) as exc:
        savecraft.parse(bad, "tirnanog-save")
    assert exc.value.offset == 0 and exc.value.path == "magic"
    # Without the format named, nothing claims it.
    with pytest.raises(FormatError):
        savecraft.parse(bad)


def test_wrong_crc(server: bytes) -> None:
    bad = server[:-4] + bytes(4)
    with pytest.raises(FormatError) as exc:
        savecraft.parse(bad)
    assert exc.value.offset == len(server) - 4 and exc.value.path == "crc"
    assert exc.value.found == "0x00000000"
    problems = _problems(bad)
    assert [p.path for p in problems] == ["crc"]


@pytest.mark.parametrize("cut", ["header", "size", "body"])
def test_truncation_at_every_chunk_boundary(server: bytes, cut: str) -> None:
    content = _content(server)
    for index, start in enumerate(_boundaries(content)):
        end = {"header": start + 3, "size": start + 8, "body": start + 12}[cut]
        data = _wrap(content[:end])
        with pytest.raises(FormatError) as exc:
            savecraft.parse(data)
        err = exc.value
        if cut == "header":
            assert err.offset == start and err.path == f"chunks[{index}]"
        else:
            assert err.offset == start + 4 and err.path == f"chunks[{index}].size", str(err)


def test_truncated_file_at_each_part(server: bytes) -> None:
    player = savecraft.build(sample.player_save())
    prvw_end = HEADER + struct.unpack_from("<I", player, HEADER + 4)[0]
    cases = [
        (server[:10], 0, "magic"),
        (server[:20], 16, "game_id"),
        (player[: HEADER + 10], HEADER + 8, "preview.play_time"),
        (player[: HEADER + 20], HEADER + 12, "preview.reserved"),
        (player[: HEADER + 40], HEADER + 4, "preview.size"),
        (server[:HEADER + 2], HEADER, "crc"),
    ]
    for data, offset, path in cases:
        with pytest.raises(FormatError) as exc:
            savecraft.parse(data, "tirnanog-save")
        assert (exc.value.offset, exc.value.path) == (offset, path), str(exc.value)
    # A payload cut short: the stream ends where the file does (less the CRC).
    cut = player[: prvw_end + 30] + b"\0\0\0\0"
    with pytest.raises(FormatError) as exc:
        savecraft.parse(cut)
    assert exc.value.offset == prvw_end + 30 and exc.value.path == "payload"


def test_wrong_chunk_size(server: bytes) -> None:
    content = bytearray(_content(server))
    starts = _boundaries(bytes(content))
    third = starts[3]
    struct.pack_into("<I", content, third + 4, 5)  # smaller than a header
    with pytest.raises(FormatError) as exc:
        savecraft.parse(_wrap(bytes(content)))
    assert exc.value.offset == third + 4 and exc.value.path == "chunks[3].size"
    assert exc.value.found == "5"


def test_user_chunk_size_off_by_one_points_into_the_entity(server: bytes) -> None:
    content = bytearray(_content(server))
    starts = _boundaries(bytes(content))
    user = starts[3]  # DENY, GLBL, QSTS, then the first USER
    size = struct.unpack_from("<I", content, user + 4)[0]
    # Grow the chunk by 4 bytes, taking them from the next chunk's header: counts no longer fill it.
    struct.pack_into("<I", content, user + 4, size + 4)
    problems = _problems(_wrap(bytes(content)))
    first = problems[0]
    assert first.path == "users[0].entity.quests"
    assert "+4 bytes" not in first.found and "-4 bytes" in first.found
    ent_counts = first.offset
    assert user < ent_counts < user + size


def test_count_larger_than_the_data(server: bytes) -> None:
    m = savecraft.load(server)
    content = bytearray(_content(server))
    starts = _boundaries(bytes(content))
    user = starts[3]
    name_len = len(m.users[0].name.encode()) + 1
    numchar = content[user + 75]
    ent = user + 76 + name_len + 4 * numchar + 128
    struct.pack_into("<H", content, ent + 16, 60000)  # inventory count
    with pytest.raises(FormatError) as exc:
        savecraft.parse(_wrap(bytes(content)))
    err = exc.value
    assert err.offset == ent + 15  # the counts start with the attribute count at byte 15
    assert err.path == "users[0].entity.attributes"
    assert "60000 items" in err.expected


def test_name_without_nul(server: bytes) -> None:
    content = codec.MAGIC  # any bytes without NUL after the fixed fields
    chunk = b"USER" + struct.pack("<I", 8 + 68 + 3) + bytes(66) + b"en" + b"Bob"
    chunk = chunk[:4] + struct.pack("<I", len(chunk)) + chunk[8:]
    with pytest.raises(FormatError) as exc:
        savecraft.parse(_wrap(chunk))
    assert str(exc.value) == ("offset 0x0000004C: users[0].name: expected a NUL-terminated UTF-8 "
                              "string, found the end of the chunk")
    del content


def test_inflate_past_the_cap_is_reported(server: bytes) -> None:
    bomb = zlib.compress(bytes(8 * 1024 * 1024), 9)
    data = codec.MAGIC + bytes(16) + bomb + bytes(4)
    old = set_inflate_limit(1024 * 1024)
    try:
        with pytest.raises(FormatError) as exc:
            savecraft.parse(data)
    finally:
        set_inflate_limit(old)
    assert exc.value.offset == HEADER and exc.value.path == "payload"
    assert "at most 1048576 bytes" in exc.value.expected


def test_validate_reports_every_problem_not_just_the_first(server: bytes) -> None:
    content = bytearray(_content(server))
    starts = _boundaries(bytes(content))
    glbl = starts[1]
    size = struct.unpack_from("<I", content, glbl + 4)[0]
    struct.pack_into("<I", content, glbl + 4, size - 1)  # not a whole number of values
    del content[glbl + size - 1]
    starts = _boundaries(bytes(content))
    content[starts[4] + 75] = 200  # users[1]: character options past the end
    bad = _wrap(bytes(content), crc=0xDEADBEEF)
    problems = _problems(bad)
    paths = [p.path for p in problems]
    assert paths[0] == "crc"
    assert "globals.values" in paths
    assert any(p.startswith("users[1]") for p in paths), paths
    # The chunks after the broken ones were still checked, and validate raised nothing.
    assert len(problems) == 3


def test_bad_deny_family_and_size(server: bytes) -> None:
    deny = b"DENY" + struct.pack("<I", 8 + 17) + b"\x07" + bytes(16)
    problems = _problems(_wrap(deny))
    assert problems[0].path == "deny.entries[0].family" and problems[0].offset == 8
    deny = b"DENY" + struct.pack("<I", 8 + 18) + b"\x02" + bytes(17)
    problems = _problems(_wrap(deny))
    assert problems[0].path == "deny.entries" and problems[0].offset == 8


def test_map_rle_cut_short() -> None:
    chunk = b"MAP\0" + struct.pack("<II", 12 + 4, 1) + bytes([3]) + b"\x01\x00\x02"
    problems = _problems(_wrap(chunk))
    assert problems[0].path == "maps[0].tiles" and problems[0].offset == 12


def test_preview_problems_are_all_listed() -> None:
    player = bytearray(savecraft.build(sample.player_save()))
    player[HEADER + 12] = 1  # reserved must be zero
    struct.pack_into("<H", player, HEADER + 30, 128)  # dimension must be 256
    problems = _problems(bytes(player))
    assert [(p.offset, p.path) for p in problems] == [(HEADER + 12, "preview.reserved"),
                                                      (HEADER + 30, "preview.dimension")]


def test_random_garbage_never_raises_anything_else() -> None:
    import random

    rng = random.Random(7)
    good = savecraft.build(sample.server_save(users=3))
    for _ in range(300):
        data = bytearray(good)
        for _ in range(rng.randrange(1, 6)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        if rng.random() < 0.3:
            data = data[: rng.randrange(len(data))]
        try:
            savecraft.parse(bytes(data))
        except FormatError:
            pass
        result = savecraft.validate(bytes(data))
        assert isinstance(result.problems, list)


def test_validate_keeps_no_chunk_decoded_and_decodes_only_what_the_scan_did_not_check(
        server: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    """The model validate returns stays bytes (a 100,000-player save's objects were what made
    validate's cost per user grow). A USER, NPC, DENY, GLBL or QSTS chunk is checked by the scan
    through its layout (the skim, else the checked reader), so validate does not decode it again;
    a MAP chunk (the scan only counts its RLE packets) is decoded, and a decoder bug there is a
    problem, not a traceback."""
    result = savecraft.validate(server)
    assert result.ok
    chunks = result.model.chunks
    users = [i for i in range(len(chunks)) if chunks.magic(i) == b"USER"]
    maps = [i for i in range(len(chunks)) if chunks.magic(i) == b"MAP\0"]
    assert len(users) == 6 and maps and all(chunks.raw_or_none(i) is not None for i in users)
    assert [u.name for u in result.model.users] == [u.name for u in sample.server_save(users=6).users]

    real = codec.decode_chunk
    decoded: list[bytes] = []

    def broken(raw: bytes, offset: int, path: str = "") -> object:
        decoded.append(bytes(raw[:4]))
        if raw[:4] in (b"USER", b"MAP\0"):
            raise ValueError("a decoder bug")
        return real(raw, offset, path)

    monkeypatch.setattr(codec, "decode_chunk", broken)
    problems = savecraft.validate(server).problems
    assert b"USER" not in decoded and b"NPC\0" not in decoded and b"MAP\0" in decoded
    assert [(p.path, p.expected) for p in problems] == \
        [(f"chunks[{i}]", "a decodable chunk") for i in maps]


def test_validate_names_a_user_name_used_twice_from_the_bytes() -> None:
    save = sample.server_save(users=4)
    save.users[2].name = save.users[0].name
    problems = savecraft.validate(savecraft.build(save)).problems
    assert [(p.path, p.expected) for p in problems] == [("users[2].name", "a user name not used before")]
