"""Hypothesis strategies for TirNanoG saves: random models, and random files made
byte by byte independently of savecraft's writer (so the two cross-check)."""

from __future__ import annotations

import ipaddress
import struct
import zlib

from hypothesis import strategies as st

from savecraft.formats.tirnanog.save.model import (
    AddressFamily,
    ChunkList,
    DenyChunk,
    DenyEntry,
    Entity,
    GlobalsChunk,
    InventoryItem,
    MapChunk,
    NpcChunk,
    Preview,
    QuestsChunk,
    QuestState,
    RawChunk,
    SaveGame,
    Skill,
    UserChunk,
)
from savecraft.formats.tirnanog.save.preview import encode_image

u8 = st.integers(0, 255)
u16 = st.integers(0, 0xFFFF)
u32 = st.integers(0, 0xFFFF_FFFF)
i32 = st.integers(-(2**31), 2**31 - 1)
u64 = st.integers(0, 2**64 - 1)
KNOWN = {b"USER", b"NPC\0", b"MAP\0", b"DENY", b"GLBL", b"QSTS", b"PRVW"}
# A user name is never empty (registration refuses one; the writer and validate do too).
name_text = st.text(st.characters(blacklist_characters="\0", blacklist_categories=("Cs",)), min_size=1,
                    max_size=12)

entities = st.builds(
    Entity,
    map=st.integers(0, 2**24 - 1), direction=u8, x=i32, y=i32, behaviour=u8, transport=u8, altitude=u8,
    attributes=st.lists(i32, max_size=12),
    inventory=st.lists(st.builds(InventoryItem, u32, u32), max_size=8),
    skills=st.lists(st.builds(Skill, u32, u32), max_size=4),
    quests=st.lists(st.builds(QuestState, st.integers(0, 2**31 - 1), st.booleans()), max_size=4),
)
users = st.builds(
    UserChunk, name=name_text, password_hash=st.binary(min_size=32, max_size=32),
    created=u64, last_login=u64, last_logout=u64, last_seen=u64,
    language=st.text(st.characters(min_codepoint=97, max_codepoint=122), max_size=2),
    flags=u8, character_options=st.lists(i32, max_size=6),
    equipped=st.lists(u16, min_size=32, max_size=32), belt=st.lists(u16, min_size=32, max_size=32),
    entity=entities,
)
deny_entries = st.one_of(
    st.builds(lambda a: DenyEntry(AddressFamily.AF_INET, str(ipaddress.IPv4Address(a))), u32),
    st.builds(lambda a: DenyEntry(AddressFamily.AF_INET6, str(ipaddress.IPv6Address(a))),
              st.integers(0, 2**128 - 1)),
)
raw_magics = st.binary(min_size=4, max_size=4).filter(lambda m: m not in KNOWN)
chunks = st.one_of(
    users,
    st.builds(NpcChunk, npc_type=u32, spawner=u32, entity=entities),
    st.builds(DenyChunk, st.lists(deny_entries, max_size=5)),
    st.builds(GlobalsChunk, st.lists(i32, max_size=10)),
    st.builds(QuestsChunk, st.lists(i32, max_size=10)),
    st.builds(MapChunk, map_id=u32, tiles=st.lists(st.sampled_from([0, 1, 2, 0xFFFF]), max_size=300)),
    st.builds(RawChunk, magic=raw_magics, data=st.binary(max_size=40)),
)
_PREVIEW_IMAGE = encode_image(__import__("numpy").zeros((256, 256, 3), dtype="uint8"))
saves = st.builds(
    lambda gid, prv, cs: SaveGame(game_id=gid, preview=prv, chunks=ChunkList(cs)),
    st.text(st.characters(min_codepoint=33, max_codepoint=126), max_size=16),
    st.one_of(st.none(), st.builds(lambda t: Preview(play_time=t, image=_PREVIEW_IMAGE), u32)),
    st.lists(chunks, max_size=8),
)


# -- files made byte by byte, with the encoder freedoms a foreign writer may take ---------


def _entity_bytes(draw: st.DrawFn) -> bytes:
    a, i, s, q = draw(st.integers(0, 6)), draw(st.integers(0, 6)), draw(st.integers(0, 3)), draw(st.integers(0, 3))
    head = (draw(st.binary(min_size=3, max_size=3)) + draw(st.binary(min_size=12, max_size=12))
            + struct.pack("<BHHH", a, i, s, q))
    return head + draw(st.binary(min_size=4 * a + 8 * i + 8 * s + 4 * q, max_size=4 * a + 8 * i + 8 * s + 4 * q))


def _chunk(magic: bytes, body: bytes) -> bytes:
    return magic + struct.pack("<I", 8 + len(body)) + body


def _rle_packets(draw: st.DrawFn) -> bytes:
    out = b""
    for _ in range(draw(st.integers(0, 6))):
        if draw(st.booleans()):
            out += bytes([0x80 | draw(st.integers(0, 127))]) + draw(st.binary(min_size=2, max_size=2))
        else:
            n = draw(st.integers(1, 5))
            out += bytes([n - 1]) + draw(st.binary(min_size=2 * n, max_size=2 * n))
    return out


@st.composite
def chunk_bytes(draw: st.DrawFn) -> bytes:
    kind = draw(st.sampled_from(["USER", "NPC", "MAP", "DENY", "GLBL", "QSTS", "RAW"]))
    if kind == "USER":
        name = draw(name_text).encode()
        numchar = draw(st.integers(0, 4))
        lang = draw(st.sampled_from([b"en", b"hu", b"\0\0", b"e\0"]))
        body = (draw(st.binary(min_size=32, max_size=32)) + draw(st.binary(min_size=32, max_size=32))
                + lang + bytes([draw(u8), numchar]) + name + b"\0"
                + draw(st.binary(min_size=4 * numchar + 128, max_size=4 * numchar + 128)) + _entity_bytes(draw))
        return _chunk(b"USER", body)
    if kind == "NPC":
        return _chunk(b"NPC\0", draw(st.binary(min_size=8, max_size=8)) + _entity_bytes(draw))
    if kind == "MAP":
        return _chunk(b"MAP\0", draw(st.binary(min_size=4, max_size=4)) + _rle_packets(draw))
    if kind == "DENY":
        body = b""
        for _ in range(draw(st.integers(0, 4))):
            if draw(st.booleans()):
                body += b"\x02" + draw(st.binary(min_size=4, max_size=4)) + draw(
                    st.sampled_from([bytes(12), b"\x01" * 12]))
            else:
                body += b"\x0a" + draw(st.binary(min_size=16, max_size=16))
        return _chunk(b"DENY", body)
    if kind in ("GLBL", "QSTS"):
        return _chunk(kind.encode(), draw(st.binary(max_size=40).map(lambda b: b[: len(b) // 4 * 4])))
    return _chunk(draw(raw_magics), draw(st.binary(max_size=30)))


@st.composite
def save_files(draw: st.DrawFn) -> bytes:
    content = b"".join(draw(st.lists(chunk_bytes(), max_size=6)))
    level = draw(st.integers(0, 9))
    wbits = draw(st.sampled_from([15, -15, 31, 9]))
    c = zlib.compressobj(level, zlib.DEFLATED, wbits, draw(st.integers(1, 9)))
    stream = c.compress(content) + c.flush()
    gid = draw(st.binary(max_size=16).filter(lambda b: b"\0" not in b))
    try:
        gid.decode("utf-8")
    except UnicodeDecodeError:
        gid = b"game"
    out = b"TNG Saved Game\n\0" + gid.ljust(16, b"\0")
    if draw(st.booleans()):
        image = zlib.compress(draw(st.binary(min_size=8, max_size=8)) * (256 * 256 * 2 // 8), level)
        out += b"PRVW" + struct.pack("<II", 32 + len(image), draw(u32)) + bytes(18) + struct.pack("<H", 256) + image
    crc = zlib.crc32(stream) if draw(st.booleans()) else zlib.crc32(content)
    return out + stream + struct.pack("<I", crc)
