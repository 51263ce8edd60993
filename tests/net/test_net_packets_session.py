"""The TCP handshake state machine, both sides, fed byte by byte and out of order."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from savecraft.errors import FormatError
from savecraft.formats.tirnanog.save.model import UserChunk
from savecraft.net.packets import (
    AssetBundle,
    BundleRequest,
    ClientHello,
    Context,
    Error,
    ErrorReason,
    Login,
    LoginOk,
    Register,
    ServerHello,
    TextChat,
)
from savecraft.net.session import (
    CONNECTION_CLOSED,
    NEED_DATA,
    Handshake,
    HandshakeState,
    Role,
)

S = HandshakeState
HELLO = ServerHello(game_id="demo", bundle_size=300)
OK = LoginOk(bytes(range(256)), b"12345678", [UserChunk(name="al")])


def pair() -> tuple[Handshake, Handshake]:
    return Handshake(Role.CLIENT), Handshake(Role.SERVER)


def deliver(data: bytes, to: Handshake, step: int = 0) -> list[object]:
    if step:
        events: list[object] = []
        for i in range(0, len(data), step):
            to.receive_data(data[i:i + step])
            events += to.events()
        return events
    to.receive_data(data)
    return list(to.events())


@pytest.mark.parametrize("step", [0, 1, 7])
def test_login_handshake(step: int) -> None:
    client, server = pair()
    assert deliver(client.send(ClientHello()), server, step) == [ClientHello()]
    assert client.state is server.state is S.AWAIT_SERVER_HELLO
    assert deliver(server.send(HELLO), client, step) == [HELLO]
    assert client.hello == HELLO and server.hello == HELLO
    login = Login("al", bytes(32))
    assert deliver(client.send(login), server, step) == [login]
    assert server.state is S.AWAIT_ANSWER and server.attempts == 1
    assert deliver(server.send(OK), client, step) == [OK]
    assert client.state is server.state is S.LOGGED_IN
    client.receive_data(b"")
    assert client.next_event() is CONNECTION_CLOSED


def test_bundle_handshake() -> None:
    client, server = pair()
    deliver(client.send(ClientHello()), server)
    deliver(server.send(HELLO), client)
    assert deliver(client.send(BundleRequest()), server) == [BundleRequest()]
    bundle = AssetBundle(bytes(range(256)) + bytes(44))
    raw = server.send(bundle)
    assert len(raw) == 304
    client.receive_data(raw[:100])
    assert client.next_event() is NEED_DATA
    client.receive_data(raw[100:])
    assert client.next_event() == bundle
    assert client.state is server.state is S.CLOSED
    with pytest.raises(FormatError):
        Handshake(Role.SERVER).send(bundle)  # no hello: the size is unknown


def test_bad_bundle_crc_says_where() -> None:
    client, server = pair()
    deliver(client.send(ClientHello()), server)
    deliver(server.send(HELLO), client)
    offset = 64  # offsets count the bytes received from the peer
    client.send(BundleRequest())
    raw = bytearray(AssetBundle(bytes(300)).encode())
    raw[-1] ^= 0xFF
    client.receive_data(bytes(raw))
    with pytest.raises(FormatError) as e:
        client.next_event()
    assert e.value.offset == offset + 300


def test_error_then_retry_then_register() -> None:
    client, server = pair()
    deliver(client.send(ClientHello()), server)
    deliver(server.send(HELLO), client)
    deliver(client.send(Login("al", bytes(32))), server)
    assert deliver(server.send(Error(ErrorReason.BAD_CREDENTIALS)), client) == \
        [Error(ErrorReason.BAD_CREDENTIALS)]
    assert client.state is S.AWAIT_REQUEST
    reg = Register("al", bytes(32), "en", [1, 2])
    assert deliver(client.send(reg), server) == [reg]
    assert server.attempts == 2
    deliver(server.send(OK), client)
    assert client.state is S.LOGGED_IN


def test_refusing_before_the_hello() -> None:
    client, server = pair()
    deliver(client.send(ClientHello(5)), server)
    deliver(server.send(Error(ErrorReason.UNSUPPORTED_VERSION)), client)
    assert client.state is server.state is S.CLOSED


def test_out_of_order_from_the_peer() -> None:
    server = Handshake(Role.SERVER)
    server.receive_data(Login("al", bytes(32)).encode())
    with pytest.raises(FormatError) as e:
        server.next_event()
    assert e.value.offset == 0 and "client_hello" in str(e.value)
    client, server = pair()
    deliver(client.send(ClientHello()), server)
    with pytest.raises(FormatError) as e:  # the client speaks out of turn
        server.receive_data(ClientHello().encode())
    assert e.value.offset == 8
    client = Handshake(Role.CLIENT)
    client.send(ClientHello())
    client.receive_data(OK.encode())  # login OK instead of a hello
    with pytest.raises(FormatError) as e:
        client.next_event()
    assert e.value.offset == 0


def test_out_of_order_sends_are_refused() -> None:
    client, server = pair()
    with pytest.raises(FormatError):
        server.send(HELLO)  # the client's hello comes first
    with pytest.raises(FormatError):
        client.send(Login("a", bytes(32)))
    with pytest.raises(FormatError):
        client.send(HELLO)  # a server message
    with pytest.raises(FormatError):
        client.send(TextChat(0, "hi"))  # a UDP message
    client.send(ClientHello())
    with pytest.raises(FormatError):
        client.send(ClientHello())


def test_garbage_and_truncation() -> None:
    server = Handshake(Role.SERVER)
    server.receive_data(b"\x00\x01GARBAGE")
    with pytest.raises(FormatError):
        server.next_event()
    server = Handshake(Role.SERVER)
    with pytest.raises(FormatError):
        server.receive_data(bytes(5000))  # longer than any message
    server = Handshake(Role.SERVER)
    server.receive_data(ClientHello().encode()[:5])
    assert server.next_event() is NEED_DATA
    server.receive_data(b"")
    with pytest.raises(FormatError) as e:
        server.next_event()
    assert e.value.offset == 5
    server = Handshake(Role.SERVER)
    server.receive_data(b"")
    with pytest.raises(FormatError):
        server.receive_data(b"x")
    server = Handshake(Role.SERVER)
    server.receive_data(b"\x00\x00")
    with pytest.raises(FormatError):
        server.next_event()


def test_world_state_and_bundle_caps() -> None:
    client = Handshake(Role.CLIENT, ctx=Context(max_world_state=10), max_bundle=100)
    server = Handshake(Role.SERVER)
    deliver(client.send(ClientHello()), server)
    with pytest.raises(FormatError) as e:
        deliver(server.send(HELLO), client)  # a 300-byte bundle is over the cap
    assert "bundle_size" in e.value.path
    client = Handshake(Role.CLIENT, ctx=Context(max_world_state=10))
    server = Handshake(Role.SERVER)
    deliver(client.send(ClientHello()), server)
    deliver(server.send(HELLO), client)
    deliver(client.send(Login("al", bytes(32))), server)
    client.receive_data(server.send(OK)[:270])
    with pytest.raises(FormatError) as e:
        client.next_event()
    assert e.value.offset == 64 + 266


@given(st.binary(max_size=600), st.sampled_from([Role.CLIENT, Role.SERVER]))
def test_random_streams_raise_only_format_errors(data: bytes, role: Role) -> None:
    h = Handshake(role)
    if role is Role.CLIENT:
        h.send(ClientHello())
    try:
        h.receive_data(data)
        h.events()
    except FormatError:
        pass


def test_a_wrong_type_is_refused_from_its_header() -> None:
    """Garbage need not fill a whole message (up to 2047 bytes) before it is refused."""
    server = Handshake(Role.SERVER)
    server.receive_data(b"\xff\xff")  # type 31, where only a client hello (type 0) may come
    with pytest.raises(FormatError) as e:
        server.next_event()
    assert e.value.offset == 0 and e.value.path == "message.type"
    assert e.value.found == "31" and "type 0" in e.value.expected
