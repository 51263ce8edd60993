"""Hypothesis strategies for every TirNanoG protocol message (shared by the net tests)."""

from __future__ import annotations

from hypothesis import strategies as st

from savecraft.formats.tirnanog.save.model import InventoryItem
from savecraft.net.packets import (
    BundleRequest,
    ClientHello,
    Context,
    EquipmentRecord,
    Error,
    ErrorReason,
    InventoryQuery,
    InventoryRecord,
    LanDiscoveryReply,
    Login,
    LoginOk,
    Logout,
    LogoutRecord,
    MapFragment,
    MapRequest,
    Move,
    MoveRecord,
    OpaquePacket,
    Precision,
    Quest,
    QuestAction,
    Register,
    SampleRate,
    ServerHello,
    SpritesRecord,
    TextChat,
    UdpHello,
    Update,
    VoiceChat,
    VoiceCompression,
    Whois,
)

from tests.tirnanog.strategies import chunks, users

NUMCHAR = 3
CTX = Context(numchar=NUMCHAR)

u8 = st.integers(0, 255)
u16 = st.integers(0, 0xFFFF)
u24 = st.integers(0, 0xFFFFFF)
u32 = st.integers(0, 0xFFFF_FFFF)
u64 = st.integers(0, 2**64 - 1)
i32 = st.integers(-(2**31), 2**31 - 1)
text = st.text(st.characters(blacklist_characters="\0", blacklist_categories=("Cs",)), max_size=24)
game_ids = st.text(st.characters(min_codepoint=33, max_codepoint=126), max_size=16)
languages = st.text(st.characters(min_codepoint=1, max_codepoint=255), max_size=2)

server_hellos = st.builds(
    ServerHello, game_id=game_ids, version=u16, features=u64, revision=u8,
    game_type=st.integers(0, 15), tile_width=st.integers(0, 1023), tile_height=st.integers(0, 1023),
    map_size=u8, atlas_size=u8, audio_rate=u8, fps=u8, default_actions=u8, map_layers=u8,
    transports=u8, highest_command=u8, sprite_delta_y=u8, sprites_per_layer=u8, reserved=u16,
    bundle_id=u64, bundle_size=u64,
)


def _login_ok(token: bytes, otp: bytes, user: object, others: list[object], at: int) -> LoginOk:
    state = list(others)
    state.insert(min(at, len(state)), user)
    return LoginOk(token, otp, state)


login_oks = st.builds(
    _login_ok, st.binary(min_size=256, max_size=256), st.binary(min_size=8, max_size=8), users,
    st.lists(chunks.filter(lambda c: type(c).__name__ not in ("UserChunk", "DenyChunk")),
             max_size=4),
    st.integers(0, 4),
)

records = st.one_of(
    st.builds(MoveRecord, u32, u32, u16, u16, u8, u8),
    st.builds(LogoutRecord, u32),
    st.builds(SpritesRecord, u32, st.lists(i32, min_size=NUMCHAR, max_size=NUMCHAR),
              st.lists(u16, min_size=32, max_size=32), text),
    st.builds(InventoryRecord, u32, st.lists(st.builds(InventoryItem, u32, u32), max_size=6)),
    st.builds(EquipmentRecord, u32, st.lists(u16, min_size=32, max_size=32)),
)


@st.composite
def map_fragments(draw: st.DrawFn) -> MapFragment:
    data = draw(st.binary(max_size=200))
    offset = draw(st.integers(0, 1000))
    total = draw(st.integers(offset + len(data), offset + len(data) + 1000))
    return MapFragment(draw(u32), total, offset, data)


udp_messages = st.one_of(
    st.builds(UdpHello, st.binary(min_size=8, max_size=8)),
    st.builds(Update, st.lists(records, max_size=6)),
    st.builds(Move, u32, u16, u16, u8, u8, st.lists(u8, max_size=20)),
    st.just(Logout()),
    st.builds(MapRequest, u32),
    map_fragments(),
    st.builds(TextChat, u32, text),
    st.builds(VoiceChat, u32, st.sampled_from(SampleRate), st.sampled_from(Precision),
              st.sampled_from(VoiceCompression), st.binary(max_size=200)),
    st.builds(Quest, u32, st.sampled_from(QuestAction)),
    st.builds(Whois, u32),
    st.builds(InventoryQuery, u32),
    st.builds(OpaquePacket, st.integers(17, 31), st.binary(max_size=100)),
    st.builds(LanDiscoveryReply, game_ids, u16, u64),
)

tcp_messages = st.one_of(
    st.builds(ClientHello, u16),
    server_hellos,
    st.just(BundleRequest()),
    st.builds(Register, text, st.binary(min_size=32, max_size=32), languages,
              st.lists(i32, max_size=20)),
    st.builds(Login, text, st.binary(min_size=32, max_size=32), languages),
    st.builds(Error, st.one_of(st.sampled_from(ErrorReason), u16)),
    login_oks,
)

messages = st.one_of(tcp_messages, udp_messages)
