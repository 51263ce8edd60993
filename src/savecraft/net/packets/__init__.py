"""Every TirNanoG protocol message as a dataclass with ``encode()``, and one ``decode()``.

    >>> from savecraft.net.packets import Move, decode
    >>> raw = Move(map_id=3, x=10, y=12, direction=2).encode()
    >>> decode(raw)
    Move(map_id=3, x=10, y=12, direction=2, altitude=0, actions=[])

Nothing here does I/O. TCP framing and ordering live in
:mod:`savecraft.net.session`, UDP reliability in :mod:`savecraft.net.netq`,
encryption and the plain UDP hello in :mod:`savecraft.net.crypto`.
"""

from __future__ import annotations

from .base import (
    HEADER_SIZE,
    MAX_LENGTH,
    NETQ_HEADER_SIZE,
    PROTOCOL_VERSION,
    UDP_MAX_DATAGRAM,
    UDP_MAX_MESSAGE,
    Channel,
    Context,
    Message,
    Role,
    decode,
    message_class,
    peek,
)
from .game import (
    OWN_INVENTORY,
    InventoryQuery,
    Logout,
    MapFragment,
    MapRequest,
    Move,
    OpaquePacket,
    Precision,
    Quest,
    QuestAction,
    SampleRate,
    TextChat,
    UdpHello,
    Update,
    VoiceChat,
    VoiceCompression,
    Whois,
)
from .handshake import (
    CLIENT_MAGIC,
    HASH_SIZE,
    OTP_SIZE,
    SERVER_MAGIC,
    TOKEN_SIZE,
    AssetBundle,
    BundleRequest,
    CharacterOption,
    CharacterSpec,
    ClientHello,
    Error,
    ErrorReason,
    LanDiscoveryReply,
    Login,
    LoginOk,
    Register,
    ServerHello,
    bundle_size,
)
from .updates import (
    EquipmentRecord,
    InventoryRecord,
    LogoutRecord,
    MoveRecord,
    SpritesRecord,
    UpdateRecord,
)

MESSAGE_TYPES: tuple[type[Message], ...] = (
    ClientHello, ServerHello, LanDiscoveryReply, BundleRequest, Register, Login, Error, LoginOk,
    UdpHello, Update, Move, Logout, MapRequest, MapFragment, TextChat, VoiceChat, Quest, Whois,
    InventoryQuery, OpaquePacket,
)

__all__ = [
    "AssetBundle", "BundleRequest", "CLIENT_MAGIC", "Channel", "CharacterOption", "CharacterSpec",
    "ClientHello", "Context", "EquipmentRecord", "Error", "ErrorReason", "HASH_SIZE",
    "HEADER_SIZE", "InventoryQuery", "InventoryRecord", "LanDiscoveryReply", "Login", "LoginOk",
    "Logout", "LogoutRecord", "MAX_LENGTH", "MESSAGE_TYPES", "MapFragment", "MapRequest",
    "Message", "Move", "MoveRecord", "NETQ_HEADER_SIZE", "OTP_SIZE", "OWN_INVENTORY",
    "OpaquePacket", "PROTOCOL_VERSION", "Precision", "Quest", "QuestAction", "Register", "Role",
    "SERVER_MAGIC", "SampleRate", "ServerHello", "SpritesRecord", "TOKEN_SIZE", "TextChat",
    "UDP_MAX_DATAGRAM", "UDP_MAX_MESSAGE", "UdpHello", "Update", "UpdateRecord", "VoiceChat",
    "VoiceCompression", "Whois", "bundle_size", "decode", "message_class", "peek",
]
