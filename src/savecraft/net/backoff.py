"""Exponential backoff of NetQ resends, driven from outside through its public timeout.

NetQ resends every unacknowledged datagram once its timeout passes, at a
fixed interval. When the peer is merely slow (overloaded, not losing
datagrams), those resends add load exactly when there is none to spare,
and the slowdown feeds itself. So after every flush that resent something
the timeout doubles (up to ``MAX_TIMEOUT``); as soon as the peer
acknowledges something new it returns to its base, so a lossy but live link
keeps its quick recovery.
"""

from __future__ import annotations

from .netq import NetQ

MAX_TIMEOUT = 2.0


class ResendBackoff:
    __slots__ = ("_acked", "_resent", "base")

    def __init__(self, netq: NetQ) -> None:
        self.base = netq.resend_timeout
        self._resent = netq.stats.resent
        self._acked = netq.last_acked

    def update(self, netq: NetQ) -> None:
        """Call after each flush."""
        if netq.last_acked != self._acked:
            self._acked = netq.last_acked
            netq.resend_timeout = self.base
        resent = netq.stats.resent
        if resent != self._resent:
            self._resent = resent
            netq.resend_timeout = min(netq.resend_timeout * 2, MAX_TIMEOUT)


__all__ = ["MAX_TIMEOUT", "ResendBackoff"]
