"""The TCP handshake as a state machine, in the manner of h11: bytes in, events out.

One :class:`Handshake` per connection, on either side. Feed it what the
socket reads with :meth:`Handshake.receive_data` (``b""`` when the peer
closed), take events with :meth:`Handshake.next_event`, and turn your own
messages into bytes with :meth:`Handshake.send`. Both directions move the
same state, so a message out of turn (from the peer or from you) is refused:

    AWAIT_CLIENT_HELLO --ClientHello--> AWAIT_SERVER_HELLO
    AWAIT_SERVER_HELLO --ServerHello--> AWAIT_REQUEST     (--Error--> CLOSED)
    AWAIT_REQUEST --BundleRequest--> AWAIT_BUNDLE --AssetBundle--> CLOSED
    AWAIT_REQUEST --Register|Login--> AWAIT_ANSWER
    AWAIT_ANSWER --LoginOk--> LOGGED_IN (then UDP)   --Error--> AWAIT_REQUEST (try again)

A bad or out-of-order message from the peer raises
:class:`~savecraft.errors.FormatError` with its offset in the stream; the
buffer never holds more than the message the state allows (2047 bytes, the
login OK plus ``Context.max_world_state``, or the announced bundle and
``max_bundle``), so a peer cannot make it grow without bound.
"""

from __future__ import annotations

from enum import Enum
from typing import Final

from ..errors import FormatError
from .packets.base import DEFAULT_CONTEXT, HEADER_SIZE, MAX_LENGTH, Context, Message, Role, decode
from .packets.handshake import (
    AssetBundle,
    BundleRequest,
    ClientHello,
    Error,
    Login,
    LoginOk,
    Register,
    ServerHello,
)


class HandshakeState(str, Enum):
    AWAIT_CLIENT_HELLO = "awaiting the client's hello"
    AWAIT_SERVER_HELLO = "awaiting the server's hello"
    AWAIT_REQUEST = "awaiting a bundle request, a registration or a login"
    AWAIT_BUNDLE = "awaiting the asset bundle"
    AWAIT_ANSWER = "awaiting login OK or an error"
    LOGGED_IN = "logged in (the session goes on over UDP)"
    CLOSED = "closed"


S = HandshakeState

# (state, message class) -> next state. The sender is the side whose turn it is.
TRANSITIONS: Final[dict[tuple[HandshakeState, type], HandshakeState]] = {
    (S.AWAIT_CLIENT_HELLO, ClientHello): S.AWAIT_SERVER_HELLO,
    (S.AWAIT_SERVER_HELLO, ServerHello): S.AWAIT_REQUEST,
    (S.AWAIT_SERVER_HELLO, Error): S.CLOSED,
    (S.AWAIT_REQUEST, BundleRequest): S.AWAIT_BUNDLE,
    (S.AWAIT_REQUEST, Register): S.AWAIT_ANSWER,
    (S.AWAIT_REQUEST, Login): S.AWAIT_ANSWER,
    (S.AWAIT_BUNDLE, AssetBundle): S.CLOSED,
    (S.AWAIT_ANSWER, LoginOk): S.LOGGED_IN,
    (S.AWAIT_ANSWER, Error): S.AWAIT_REQUEST,
}

TURN: Final[dict[HandshakeState, Role]] = {
    S.AWAIT_CLIENT_HELLO: Role.CLIENT,
    S.AWAIT_SERVER_HELLO: Role.SERVER,
    S.AWAIT_REQUEST: Role.CLIENT,
    S.AWAIT_BUNDLE: Role.SERVER,
    S.AWAIT_ANSWER: Role.SERVER,
}


class NeedData:
    """Event: more bytes are needed before the next message."""

    def __repr__(self) -> str:
        return "NEED_DATA"


class ConnectionClosed:
    """Event: the peer closed the connection between messages."""

    def __repr__(self) -> str:
        return "CONNECTION_CLOSED"


NEED_DATA: Final = NeedData()
CONNECTION_CLOSED: Final = ConnectionClosed()

HandshakeEvent = Message | AssetBundle | NeedData | ConnectionClosed
DEFAULT_MAX_BUNDLE = 256 * 1024 * 1024


class Handshake:
    """One TCP connection's handshake, seen from ``our_role``."""

    __slots__ = ("our_role", "their_role", "ctx", "max_bundle", "state", "hello", "attempts",
                 "_buf", "_consumed", "_peer_closed")

    def __init__(self, our_role: Role, *, ctx: Context = DEFAULT_CONTEXT,
                 max_bundle: int = DEFAULT_MAX_BUNDLE) -> None:
        self.our_role = our_role
        self.their_role = Role.SERVER if our_role is Role.CLIENT else Role.CLIENT
        self.ctx = ctx
        self.max_bundle = max_bundle
        self.state = HandshakeState.AWAIT_CLIENT_HELLO
        self.hello: ServerHello | None = None  # the server's hello, once sent or received
        self.attempts = 0  # registrations and logins tried on this connection
        self._buf = bytearray()
        self._consumed = 0  # stream offset of the first buffered byte
        self._peer_closed = False

    @property
    def our_turn(self) -> bool:
        return TURN.get(self.state) is self.our_role

    @property
    def their_turn(self) -> bool:
        return TURN.get(self.state) is self.their_role

    # -- state --------------------------------------------------------------------------
    def _advance(self, msg: Message | AssetBundle, sender: Role, offset: int | None) -> None:
        nxt = TRANSITIONS.get((self.state, type(msg)))
        if nxt is None or TURN.get(self.state) is not sender:
            expected = [str(getattr(c, "NAME")) for (s, c) in TRANSITIONS if s is self.state] \
                if TURN.get(self.state) is sender else []
            want = (" or ".join(expected) + f" from the {sender.value}") if expected \
                else f"nothing from the {sender.value} ({self.state.value})"
            raise FormatError(offset, "handshake", want, f"{msg.NAME}")
        if isinstance(msg, ServerHello):
            self.hello = msg
        elif isinstance(msg, Register | Login):
            self.attempts += 1
        self.state = nxt

    def close(self) -> None:
        """We close the connection (e.g. the client cannot play the advertised game)."""
        self.state = HandshakeState.CLOSED

    # -- sending -------------------------------------------------------------------------
    def send(self, msg: Message | AssetBundle) -> bytes:
        """The bytes for one of our messages; refuses one the state does not allow."""
        if isinstance(msg, AssetBundle):
            size = self.hello.bundle_size if self.hello is not None else None
            if len(msg.data) != size:
                raise FormatError(None, "asset_bundle.data",
                                  f"{size} bytes, as the hello announced", f"{len(msg.data)} bytes")
        elif self.our_role not in msg.SENDERS:
            raise FormatError(None, "handshake", f"a message the {self.our_role.value} sends",
                              msg.NAME)
        self._advance(msg, self.our_role, None)
        return msg.encode()

    # -- receiving -----------------------------------------------------------------------
    def _limit(self) -> int:
        if not self.their_turn:
            return 0
        if self.state is HandshakeState.AWAIT_BUNDLE:
            assert self.hello is not None
            return self.hello.bundle_size + 4
        if self.state is HandshakeState.AWAIT_ANSWER:
            return LoginOk.SIZE + self.ctx.max_world_state
        return MAX_LENGTH

    def receive_data(self, data: bytes | bytearray | memoryview) -> None:
        """Bytes read from the socket; ``b""`` means the peer closed its side."""
        if not data:
            self._peer_closed = True
            return
        if self._peer_closed:
            raise FormatError(self._consumed + len(self._buf), "handshake",
                              "no data after the end of the stream", f"{len(data)} bytes")
        self._buf += data
        limit = self._limit()
        if len(self._buf) > limit:
            self._refuse_extra(limit)

    def _refuse_extra(self, limit: int) -> None:
        if limit == 0:
            raise FormatError(self._consumed, "handshake",
                              f"nothing from the {self.their_role.value} ({self.state.value})",
                              f"{len(self._buf)} bytes")
        raise FormatError(self._consumed, "handshake",
                          f"at most {limit} bytes from the {self.their_role.value} "
                          f"({self.state.value})", f"{len(self._buf)} bytes")

    def next_event(self) -> HandshakeEvent:
        """The next complete event from the peer, NEED_DATA, or CONNECTION_CLOSED."""
        buf = self._buf
        if not buf:
            return CONNECTION_CLOSED if self._peer_closed else NEED_DATA
        off = self._consumed
        if not self.their_turn:
            raise FormatError(off, "handshake",
                              f"nothing from the {self.their_role.value} ({self.state.value})",
                              f"{len(buf)} bytes")
        if self.state is HandshakeState.AWAIT_BUNDLE:
            assert self.hello is not None
            need = self.hello.bundle_size + 4
            if len(buf) < need:
                return self._short(need)
            bundle = AssetBundle.decode(bytes(buf[:need]), self.hello.bundle_size, off)
            self._advance(bundle, self.their_role, off)
            self._eat(need)
            return bundle
        if len(buf) < HEADER_SIZE:
            return self._short(HEADER_SIZE)
        word = buf[0] | buf[1] << 8
        msg_type, length = word & 0x1F, word >> 5
        allowed = self._allowed_types()
        if msg_type not in allowed:
            # Refused from its 2-byte header: garbage need not fill a message first.
            names = " or ".join(sorted({str(getattr(c, "NAME")) for (st, c) in TRANSITIONS
                                        if st is self.state}))
            raise FormatError(off, "message.type",
                              f"{names} from the {self.their_role.value} "
                              f"(type {' or '.join(map(str, sorted(allowed)))})", str(msg_type))
        if length < HEADER_SIZE:
            raise FormatError(off, "message.length", "a length of at least 2 (the header)",
                              str(length))
        total = length
        if msg_type == LoginOk.TYPE and length == LoginOk.SIZE:
            if len(buf) < LoginOk.SIZE:
                return self._short(LoginOk.SIZE)
            n = int.from_bytes(buf[266:270], "little")
            if n > self.ctx.max_world_state:
                raise FormatError(off + 266, "login_ok.state_size",
                                  f"a world state of at most {self.ctx.max_world_state} bytes",
                                  str(n))
            total = LoginOk.SIZE + n
        if len(buf) < total:
            return self._short(total)
        msg = decode(bytes(buf[:total]), sender=self.their_role, ctx=self.ctx, offset=off)
        self._advance(msg, self.their_role, off)
        if isinstance(msg, ServerHello) and msg.bundle_size > self.max_bundle:
            raise FormatError(off + 56, "server_hello.bundle_size",
                              f"an asset bundle of at most {self.max_bundle} bytes",
                              str(msg.bundle_size))
        self._eat(total)
        return msg

    def events(self) -> list[Message | AssetBundle | ConnectionClosed]:
        """Every complete event available now (stops at NEED_DATA)."""
        out: list[Message | AssetBundle | ConnectionClosed] = []
        while True:
            ev = self.next_event()
            if isinstance(ev, NeedData):
                return out
            out.append(ev)
            if isinstance(ev, ConnectionClosed):
                self.state = HandshakeState.CLOSED
                return out

    def _allowed_types(self) -> set[int]:
        """The packet types the peer may send in this state."""
        return {int(getattr(c, "TYPE")) for (st, c) in TRANSITIONS
                if st is self.state and hasattr(c, "TYPE")}

    def _short(self, need: int) -> NeedData:
        if self._peer_closed:
            raise FormatError(self._consumed + len(self._buf), "handshake",
                              f"{need} bytes of the {self.state.value.split(' ', 1)[1]}",
                              f"the end of the stream after {len(self._buf)} bytes")
        return NEED_DATA

    def _eat(self, n: int) -> None:
        del self._buf[:n]
        self._consumed += n


__all__ = [
    "CONNECTION_CLOSED", "ConnectionClosed", "Handshake", "HandshakeEvent", "HandshakeState",
    "NEED_DATA", "NeedData", "TRANSITIONS", "TURN",
]
