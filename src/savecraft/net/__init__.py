"""The TirNanoG multiplayer protocol, sans I/O (``docs/tirnanog-protocol.md``).

* :mod:`.packets` - every message as a dataclass: ``msg.encode()`` and
  :func:`~.packets.decode`;
* :mod:`.session` - the TCP handshake state machine (:class:`~.session.Handshake`);
* :mod:`.netq` - reliable ordered delivery over UDP (:class:`~.netq.NetQ`) and
  map fragment reassembly (:class:`~.netq.MapAssembler`);
* :mod:`.crypto` - the session XOR (:class:`~.crypto.SessionCipher`), the plain
  UDP hello, OTP and password checks in constant time.

None of these opens a socket, reads a clock or sleeps: the server and the
client pass bytes and the time in, and send what comes out.
"""

from __future__ import annotations

from .crypto import SessionCipher, otp_matches, parse_plain, plain_datagram, same_secret
from .netq import MapAssembler, NetQ, QueueFull
from .packets import Context, Message, Role, decode
from .session import Handshake, HandshakeState

__all__ = [
    "Context", "Handshake", "HandshakeState", "MapAssembler", "Message", "NetQ", "QueueFull",
    "Role", "SessionCipher", "decode", "otp_matches", "parse_plain", "plain_datagram",
    "same_secret",
]
