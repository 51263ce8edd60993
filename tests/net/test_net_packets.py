"""Every TirNanoG protocol message: round trips, layouts, limits and errors."""

from __future__ import annotations

import struct
import zlib

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from savecraft import jsonmap
from savecraft.errors import FormatError
from savecraft.formats.tirnanog.save.codec import encode_chunk
from savecraft.formats.tirnanog.save.model import (
    DenyChunk,
    GlobalsChunk,
    InventoryItem,
    UserChunk,
)
from savecraft.net.packets import (
    MESSAGE_TYPES,
    OWN_INVENTORY,
    UDP_MAX_MESSAGE,
    AssetBundle,
    BundleRequest,
    CharacterOption,
    CharacterSpec,
    ClientHello,
    Context,
    Error,
    ErrorReason,
    InventoryQuery,
    InventoryRecord,
    LanDiscoveryReply,
    Login,
    LoginOk,
    Logout,
    MapFragment,
    MapRequest,
    Message,
    Move,
    MoveRecord,
    OpaquePacket,
    Precision,
    Quest,
    QuestAction,
    Register,
    Role,
    SampleRate,
    ServerHello,
    SpritesRecord,
    TextChat,
    UdpHello,
    Update,
    VoiceChat,
    VoiceCompression,
    Whois,
    bundle_size,
    decode,
)

from .strategies import CTX, messages

TOKEN = bytes(range(256))
OTP = b"\x01\x02\x03\x04\x05\x06\x07\x08"


# -- round trips --------------------------------------------------------------------------


@given(messages)
def test_round_trip(m: Message) -> None:
    raw = m.encode()
    back = decode(raw, ctx=CTX)
    assert back == m
    assert type(back) is type(m)
    assert back.encode() == raw
    for role in m.SENDERS:
        assert decode(raw, sender=role, ctx=CTX) == m
    if not isinstance(m, LoginOk):
        word = struct.unpack_from("<H", raw)[0]
        assert word >> 5 == len(raw)
        assert word & 0x1F == (m.packet_type if isinstance(m, OpaquePacket) else m.TYPE)


@given(messages)
def test_json_round_trip(m: Message) -> None:
    """Messages map to JSON and back with the project's one JSON mapping (for logs, captures)."""
    doc = orjson.loads(orjson.dumps(jsonmap.encoder(type(m))(m)))
    assert jsonmap.decoder(type(m))(doc, "") == m


def _check_decodes_or_fails(data: bytes) -> None:
    try:
        msg = decode(data, ctx=CTX)
    except FormatError as err:
        assert err.offset is None or 0 <= err.offset <= max(len(data), 1) + 4
        assert str(err)
    else:
        assert isinstance(msg, Message)


@given(st.binary(max_size=400))
def test_random_bytes_are_a_message_or_a_format_error(data: bytes) -> None:
    _check_decodes_or_fails(data)


@given(st.integers(0, 31), st.binary(max_size=300))
def test_random_bodies_with_a_consistent_header(msg_type: int, body: bytes) -> None:
    """A header whose length is right reaches every body decoder with junk."""
    _check_decodes_or_fails(struct.pack("<H", msg_type | (len(body) + 2) << 5) + body)


@given(messages, st.data())
def test_mutated_messages_are_a_message_or_a_format_error(m: Message, data: st.DataObject) -> None:
    raw = bytearray(m.encode())
    for _ in range(data.draw(st.integers(1, 4))):
        i = data.draw(st.integers(0, len(raw) - 1))
        raw[i] = data.draw(st.integers(0, 255))
    cut = data.draw(st.integers(0, len(raw)))
    _check_decodes_or_fails(bytes(raw[:cut]))
    _check_decodes_or_fails(bytes(raw))


def test_every_documented_type_has_a_class() -> None:
    types = {c.TYPE for c in MESSAGE_TYPES}
    assert types == set(range(17)) | {-1}
    for t in range(17, 32):
        assert decode(struct.pack("<H", t | 4 << 5) + b"ab") == OpaquePacket(t, b"ab")


# -- layouts from the spec ----------------------------------------------------------------------


def test_hello_layouts() -> None:
    assert ClientHello().encode() == struct.pack("<HH", 8 << 5, 0) + b"TNGP"
    hello = ServerHello(game_id="mygame", game_type=1, tile_width=0x1FF, tile_height=0x2FF,
                        bundle_id=7, bundle_size=1234)
    raw = hello.encode()
    assert len(raw) == 64 and raw[:2] == struct.pack("<H", 64 << 5)
    assert raw[4:8] == b"TNGS" and raw[16:32] == b"mygame".ljust(16, b"\0")
    assert raw[33] == 1 | 1 << 4 | 2 << 6 and raw[34] == 0xFF and raw[35] == 0xFF
    assert struct.unpack_from("<QQ", raw, 48) == (7, 1234)
    disc = hello.discovery_reply().encode()
    assert len(disc) == 32 and disc[:2] == struct.pack("<H", 32 << 5) and disc[2:] == raw[2:32]
    assert isinstance(decode(disc), LanDiscoveryReply)


def test_server_hello_from_a_game_file_header() -> None:
    head = bytearray(64)
    head[:16] = b"#!/usr/bin/tngp\n"
    head[16:20] = b"demo"
    head[33:46] = bytes([0x10, 0x20, 0x30, 7, 10, 0, 30, 9, 11, 3, 40, 2, 20])
    head[48:56] = (99).to_bytes(8, "little")
    head[56:60] = b"\xde\xad\xbe\xef"  # the file's CRC is not part of the hello
    hello = ServerHello.from_file_header(bytes(head), 5000)
    assert hello.game_id == "demo" and hello.tile_width == 0x120 and hello.tile_height == 0x30
    assert hello.fps == 30 and hello.transports == 3 and hello.bundle_id == 99
    assert hello.bundle_size == 5000
    assert hello.file_header_fields() == bytes(head[16:56])
    with pytest.raises(FormatError):
        ServerHello.from_file_header(b"short", 1)


def test_bundle_request_and_bundle() -> None:
    assert BundleRequest().encode() == struct.pack("<H", 1 | 2 << 5)
    data = bytes(range(200)) * 3
    raw = AssetBundle(data).encode()
    assert raw == data + zlib.crc32(data).to_bytes(4, "little")
    assert AssetBundle.decode(raw, len(data)) == AssetBundle(data)
    bad = raw[:-1] + bytes([raw[-1] ^ 1])
    with pytest.raises(FormatError) as e:
        AssetBundle.decode(bad, len(data), offset=100)
    assert e.value.offset == 100 + len(data) and "crc" in e.value.path
    with pytest.raises(FormatError):
        AssetBundle.decode(raw[:-1], len(data))
    assert bundle_size(10_000, 4000) == 3936 and bundle_size(10_000, None) == 9936
    assert bundle_size(3000, 9000) == 2936


def test_register_and_login_layouts() -> None:
    ph = bytes(range(32))
    reg = Register("bob", ph, "hu", [1 << 8 | 2, -5])
    raw = reg.encode()
    assert struct.unpack_from("<H", raw)[0] == 2 | (36 + 4 + 8) << 5
    assert raw[2:4] == b"hu" and raw[4:36] == ph and raw[36:40] == b"bob\0"
    assert struct.unpack_from("<2i", raw, 40) == (258, -5)
    spec = reg.character(1)
    assert spec == CharacterSpec([CharacterOption(1, 2)], [-5])
    assert spec.values() == reg.spec
    with pytest.raises(FormatError):
        reg.character(3)
    login = Login("bob", ph, "en").encode()
    assert struct.unpack_from("<H", login)[0] == 3 | (36 + 4) << 5
    bad = struct.pack("<H", 2 | (36 + 4 + 3) << 5) + raw[2:40] + b"xyz"
    with pytest.raises(FormatError) as e:
        decode(bad)
    assert "spec" in e.value.path and e.value.offset == 40
    with pytest.raises(FormatError):
        Register("a\0b", ph).encode()
    with pytest.raises(FormatError):
        Register("bob", b"short").encode()
    with pytest.raises(FormatError):
        Register("bob", ph, spec=[2**31]).encode()
    with pytest.raises(FormatError):
        Login("bob", ph, language="eng").encode()


def test_error_reasons() -> None:
    assert Error().encode() == struct.pack("<HH", 4 | 4 << 5, 0)
    assert ErrorReason(0) is ErrorReason.UNSPECIFIED
    assert decode(Error(ErrorReason.BAD_CREDENTIALS).encode()) == Error(3)
    assert decode(struct.pack("<HH", 4 | 4 << 5, 4000)) == Error(4000)
    assert len({r.value for r in ErrorReason}) == len(ErrorReason)
    assert Error(2).known_reason is ErrorReason.NAME_TAKEN and Error(4000).known_reason is None


def test_login_ok_carries_the_world_state() -> None:
    user = UserChunk(name="alice", password_hash=bytes(32))
    ok = LoginOk(TOKEN, OTP, [GlobalsChunk([1, 2, 3]), user])
    raw = ok.encode()
    assert struct.unpack_from("<H", raw)[0] == 5 | 270 << 5
    assert raw[2:258] == TOKEN and raw[258:266] == OTP
    n = struct.unpack_from("<I", raw, 266)[0]
    assert len(raw) == 270 + n
    content = zlib.decompress(raw[270:-4])
    assert content == encode_chunk(GlobalsChunk([1, 2, 3])) + encode_chunk(user)
    # the state is the payload as a save stores it: zlib stream, then CRC-32 of the chunk data
    assert struct.unpack_from("<I", raw, len(raw) - 4)[0] == zlib.crc32(content)
    back = decode(raw)
    assert isinstance(back, LoginOk) and back == ok and back.user.name == "alice"
    assert back.state_crc
    assert back.encode() == raw  # the original compressed bytes are reused


def test_login_ok_state_crc_is_checked_and_may_be_missing() -> None:
    user = UserChunk(name="alice", password_hash=bytes(32))
    raw = LoginOk(TOKEN, OTP, [user]).encode()
    bad = bytearray(raw)
    bad[-1] ^= 0xFF
    with pytest.raises(FormatError) as e:
        decode(bytes(bad))
    assert e.value.offset == len(raw) - 4 and "state_crc" in e.value.path
    # a state without its CRC (older writers) is read, and said to be so
    n = struct.unpack_from("<I", raw, 266)[0]
    short = raw[:266] + struct.pack("<I", n - 4) + raw[270:-4]
    back = decode(short)
    assert isinstance(back, LoginOk) and not back.state_crc and back.user.name == "alice"
    assert back.encode() == raw  # writers always add it


def test_whois_and_inventory_requests_are_six_bytes() -> None:
    for msg in (Whois(7), InventoryQuery(7)):
        raw = msg.encode()
        assert len(raw) == 6 and struct.unpack_from("<H", raw)[0] >> 5 == 6
        assert decode(raw, sender=Role.CLIENT) == msg
        with pytest.raises(FormatError):  # the tables' "size 4" is not accepted
            decode(struct.pack("<H", msg.TYPE | 4 << 5) + raw[2:4], sender=Role.CLIENT)


def test_server_hello_must_be_zero_fields_are_kept_and_reported() -> None:
    hello = ServerHello(game_id="g")
    assert hello.nonzero_reserved() == []
    odd = decode(ServerHello(game_id="g", features=4, reserved=1).encode())
    assert isinstance(odd, ServerHello)
    assert odd.nonzero_reserved() == ["features=0x4", "reserved=0x1"]


def _state(*chunks: object) -> bytes:
    content = b"".join(encode_chunk(c) for c in chunks)
    payload = zlib.compress(content) + struct.pack("<I", zlib.crc32(content))
    return (struct.pack("<H", 5 | 270 << 5) + TOKEN + OTP + struct.pack("<I", len(payload))
            + payload)


def test_login_ok_refuses_deny_and_user_counts() -> None:
    for bad in ((GlobalsChunk([1]),), (UserChunk(name="a"), UserChunk(name="b")),
                (UserChunk(name="a"), DenyChunk([]))):
        with pytest.raises(FormatError):
            decode(_state(*bad))
        with pytest.raises(FormatError):
            LoginOk(TOKEN, OTP, list(bad)).encode()
    raw = _state(UserChunk(name="a"))
    with pytest.raises(FormatError) as e:
        decode(raw + b"x")  # the state size must cover everything after the message
    assert e.value.offset == 266
    with pytest.raises(FormatError) as e:
        decode(raw, ctx=Context(max_world_state=4))
    assert e.value.offset == 266
    with pytest.raises(FormatError):
        LoginOk(b"short", OTP, [UserChunk()]).encode()


def test_update_records_layouts() -> None:
    move = MoveRecord(1, 2, 3, 4, 5, 6).encode()
    assert move == struct.pack("<BIIHHBB", 0, 1, 2, 3, 4, 5, 6) and len(move) == 15
    up = Update([MoveRecord(1, 2, 3, 4, 5, 6)]).encode()
    assert struct.unpack_from("<H", up)[0] == 7 | 17 << 5  # "type 7, size 17"
    assert Update([]).encode() == struct.pack("<H", 7 | 2 << 5)
    from savecraft.net.packets import EquipmentRecord, LogoutRecord
    assert len(Update([LogoutRecord(9)]).encode()) == 7  # "type 7, size 7"
    eq = EquipmentRecord(5, list(range(32))).encode()
    assert eq == struct.pack("<BI32H", 4, 5, *range(32))
    inv = InventoryRecord(3, [InventoryItem(2, 77), InventoryItem(1, 5)]).encode()
    assert inv[:5] == struct.pack("<BI", 3, 3)
    assert zlib.decompress(inv[5:]) == struct.pack("<4I", 2, 77, 1, 5)
    spr = SpritesRecord(4, [1, 2, 3], [0] * 32, "al").encode()
    assert len(Update([SpritesRecord(4, [1, 2, 3], [0] * 32, "al")]).encode()) == 7 + 12 + 64 + 3
    assert spr[5:17] == struct.pack("<3i", 1, 2, 3) and spr.endswith(b"al\0")


def test_update_with_records_after_an_inventory() -> None:
    recs = [InventoryRecord(1, [InventoryItem(5, 6)]), MoveRecord(2), LogoutRecord_(3)]
    assert decode(Update(recs).encode()) == Update(recs)


def LogoutRecord_(uid: int) -> object:  # noqa: N802 - a helper named like the record it builds
    from savecraft.net.packets import LogoutRecord
    return LogoutRecord(uid)


def test_sprites_record_needs_numchar() -> None:
    raw = Update([SpritesRecord(4, [1, 2, 3], [0] * 32, "al")]).encode()
    with pytest.raises(FormatError) as e:
        decode(raw)
    assert "numchar" in str(e.value) and e.value.offset == 2
    with pytest.raises(FormatError):
        decode(raw, ctx=Context(numchar=40))


def test_update_errors_carry_offsets() -> None:
    raw = Update([MoveRecord(1), MoveRecord(2)]).encode()
    bad = raw[:17] + b"\x09" + raw[18:]
    with pytest.raises(FormatError) as e:
        decode(bad)
    assert e.value.offset == 17 and "records[1]" in e.value.path
    short = struct.pack("<H", 7 | 12 << 5) + raw[2:12]
    with pytest.raises(FormatError) as e:
        decode(short)
    # Where the message ends: in the record's x (bytes 11-12), one byte of it there.
    assert (e.value.offset, e.value.path) == (11, "update.records[0].x")
    inv = Update([InventoryRecord(1, [InventoryItem(1, 2)])]).encode()
    with pytest.raises(FormatError):
        decode(inv[:-3] + struct.pack("<H", 0)[:0] + b"\0\0\0")


def test_update_batch_fits_datagrams() -> None:
    recs: list[object] = [MoveRecord(i, 1, 2, 3) for i in range(300)]
    batches = Update.batch(recs)  # type: ignore[arg-type]
    assert len(batches) > 1
    assert [r for b in batches for r in b.records] == recs
    assert all(len(b.encode()) <= UDP_MAX_MESSAGE for b in batches)
    assert Update.batch([]) == []
    packed = Update.pack_encoded(r.encode() for r in recs)  # type: ignore[attr-defined]
    assert packed == [b.encode() for b in batches]
    assert Update.pack_encoded([]) == []
    with pytest.raises(FormatError):
        Update.pack_encoded([bytes(1393)])


def test_move_layout_and_actions() -> None:
    raw = Move(7, 10, 20, 3, 1, [0, 4, 8]).encode()
    assert raw == struct.pack("<HIHHBB", 8 | 15 << 5, 7, 10, 20, 3, 1) + bytes([0, 4, 8])
    assert decode(raw) == Move(7, 10, 20, 3, 1, [0, 4, 8])
    with pytest.raises(FormatError):
        Move(actions=[256]).encode()
    with pytest.raises(FormatError):
        Move(x=70000).encode()
    with pytest.raises(FormatError) as e:
        decode(raw[:2] + raw[2:11])
    assert e.value.offset == 0


def test_small_fixed_messages() -> None:
    assert Logout().encode() == struct.pack("<H", 9 | 2 << 5)
    assert MapRequest(5).encode() == struct.pack("<HI", 10 | 6 << 5, 5)
    assert Whois(5).encode() == struct.pack("<HI", 15 | 6 << 5, 5)
    assert InventoryQuery().encode() == struct.pack("<HI", 16 | 6 << 5, OWN_INVENTORY)
    assert InventoryQuery().own and not InventoryQuery(3).own
    assert Quest(9, QuestAction.COMPLETED).encode() == struct.pack("<HIB", 14 | 7 << 5, 9, 1)
    with pytest.raises(FormatError) as e:
        decode(struct.pack("<HIB", 14 | 7 << 5, 9, 3))
    assert e.value.offset == 6 and "action" in e.value.path
    with pytest.raises(FormatError):
        decode(struct.pack("<HIB", 10 | 7 << 5, 9, 3))  # a map request is 6 bytes
    assert UdpHello(OTP).encode() == struct.pack("<H", 6 | 10 << 5) + OTP
    assert UdpHello().is_discovery and not UdpHello(OTP).is_discovery


def test_text_chat_message_at_offset_6() -> None:
    raw = TextChat(0, "héllo").encode()
    assert raw[6:] == "héllo".encode() + b"\0"
    assert struct.unpack_from("<H", raw)[0] == 12 | len(raw) << 5
    with pytest.raises(FormatError) as e:
        decode(raw[:-1].replace(raw[:2], struct.pack("<H", 12 | (len(raw) - 1) << 5)))
    assert "text" in e.value.path
    with pytest.raises(FormatError):
        decode(struct.pack("<H", 12 | (len(raw) + 1) << 5) + raw[2:] + b"x")  # bytes after the NUL
    bad = struct.pack("<HI", 12 | 9 << 5, 0) + b"\xff\xfe\0"
    with pytest.raises(FormatError) as e:
        decode(bad)
    assert e.value.offset == 6


def test_voice_chat() -> None:
    raw = VoiceChat(5, SampleRate.HZ_44100, Precision.PCM16, VoiceCompression.DEFLATE,
                    b"zz").encode()
    assert raw[2:8] == struct.pack("<IBB", 5, 1, 1 | 1 << 4)
    pcm = bytes(range(256)) * 6  # 1536 bytes: more than a datagram holds raw
    v = VoiceChat.from_pcm(pcm)
    assert v.compression == VoiceCompression.DEFLATE and len(v.encode()) <= UDP_MAX_MESSAGE
    assert v.pcm() == pcm and v.sample_rate == 22050
    small = VoiceChat.from_pcm(b"\x80" * 100, SampleRate.HZ_44100)
    assert small.compression == VoiceCompression.NONE and small.sample_rate == 44100
    for b6, b7 in ((2, 0), (0, 3), (0, 2 << 4)):
        with pytest.raises(FormatError):
            decode(struct.pack("<HIBB", 13 | 8 << 5, 0, b6, b7))


def test_map_fragments() -> None:
    asset = bytes(range(256)) * 20
    frags = MapFragment.fragments(3, asset)
    assert len(frags) == 4
    assert b"".join(f.data for f in frags) == asset
    raw = frags[1].encode()
    assert len(raw) <= UDP_MAX_MESSAGE
    assert raw[2:12] == struct.pack("<I", 3) + len(asset).to_bytes(3, "little") \
        + frags[1].offset.to_bytes(3, "little")
    assert MapFragment.fragments(1, b"") == [MapFragment(1, 0, 0, b"")]
    with pytest.raises(FormatError):
        MapFragment(1, 10, 8, b"abc").encode()
    with pytest.raises(FormatError):
        decode(struct.pack("<HI", 11 | 15 << 5, 1) + (10).to_bytes(3, "little")
               + (8).to_bytes(3, "little") + b"abc")


def test_udp_messages_over_1400_bytes_cannot_be_built() -> None:
    room = UDP_MAX_MESSAGE - 6 - 1  # header, user id, NUL
    assert len(TextChat(0, "x" * room).encode()) == UDP_MAX_MESSAGE
    with pytest.raises(FormatError) as e:
        TextChat(0, "x" * (room + 1)).encode()
    assert "1394" in str(e.value)
    for big in (VoiceChat(data=bytes(1387)), OpaquePacket(20, bytes(1393)), Move(actions=[0] * 1383),
                MapFragment(1, 5000, 0, bytes(1383)), Update([MoveRecord()] * 93)):
        with pytest.raises(FormatError):
            big.encode()
    assert len(VoiceChat(data=bytes(1386)).encode()) == UDP_MAX_MESSAGE


def test_decode_checks_length_and_sender() -> None:
    raw = Whois(3).encode()
    with pytest.raises(FormatError) as e:
        decode(raw + b"\0")
    assert e.value.offset == 0 and "length" in e.value.path
    with pytest.raises(FormatError) as e:
        decode(raw, sender=Role.SERVER)
    assert "client" in str(e.value)
    with pytest.raises(FormatError):
        decode(Update([]).encode(), sender=Role.CLIENT)
    assert decode(TextChat(1, "x").encode(), sender=Role.SERVER) == TextChat(1, "x")
    with pytest.raises(FormatError) as e:
        decode(struct.pack("<H", 16 << 5) + bytes(14))
    assert "8, 32 or 64" in str(e.value)
    with pytest.raises(FormatError):
        decode(struct.pack("<H", 3 | 1 << 5))
    with pytest.raises(FormatError) as e:
        decode(b"\x00\x01\x02\x03", offset=1000)
    assert e.value.offset == 1000


def test_bad_magic_offsets() -> None:
    raw = bytearray(ClientHello().encode())
    raw[4:8] = b"XXXX"
    with pytest.raises(FormatError) as e:
        decode(bytes(raw))
    assert e.value.offset == 4 and "magic" in e.value.path
    raw = bytearray(ServerHello(game_id="g").encode())
    raw[16] = 0xC3
    with pytest.raises(FormatError) as e:
        decode(bytes(raw))
    assert "game_id" in e.value.path and e.value.offset == 16


def test_encoders_refuse_bad_values() -> None:
    for bad in (ServerHello(game_id="é"), ServerHello(game_id="x" * 17), ServerHello(tile_width=1024),
                ServerHello(game_type=16), ServerHello(fps=256), ClientHello(-1), Error(70000),
                UdpHello(b"1"), Quest(action=5), Whois(-1), TextChat(0, "a\0b"),
                VoiceChat(rate=9), OpaquePacket(5, b""), Update(["x"]),  # type: ignore[list-item]
                Update([SpritesRecord(equipped=[1])]), Update([MoveRecord(x=-1)])):
        with pytest.raises(FormatError):
            bad.encode()


def test_fuzz_findings_of_the_handshake_are_refused_not_mangled() -> None:
    """Bytes the encoder would never write are refused, so whatever decodes re-encodes the same."""
    from savecraft.net.packets import decode
    from savecraft.net.packets.handshake import LanDiscoveryReply, Register, ServerHello

    for msg in (ServerHello(game_id="world"), LanDiscoveryReply(game_id="world")):
        raw = bytearray(msg.encode())
        assert decode(bytes(raw)) == msg
        at = bytes(raw).index(b"world\0") + 7  # a byte after the id's NUL
        raw[at] = 0x41
        with pytest.raises(FormatError, match="zero bytes after the game id's NUL"):
            decode(bytes(raw))
    reg = Register(language="en", password_hash=bytes(32), name="Brigid", spec=[])
    raw = bytearray(reg.encode())
    assert decode(bytes(raw)) == reg
    at = bytes(raw).index(b"en")
    raw[at:at + 2] = b"\0n"
    with pytest.raises(FormatError, match="language"):
        decode(bytes(raw))
