"""The player-state obfuscation: each byte XORed with the (plain) byte after it.

NOTES.md: ``c[i] = p[i] ^ p[i+1]`` for i < 1095 and ``c[1095] = p[1095]``, so
decoding runs backwards from the last byte, which makes ``p[i]`` the XOR of
``c[i:]``: a reversed cumulative XOR, one numpy call each way.
"""

from __future__ import annotations

import numpy as np


def deobfuscate(stored: bytes) -> bytes:
    c = np.frombuffer(stored, np.uint8)
    if not len(c):
        return b""
    return np.bitwise_xor.accumulate(c[::-1])[::-1].tobytes()


def obfuscate(plain: bytes) -> bytes:
    p = np.frombuffer(plain, np.uint8)
    c = p.copy()
    c[:-1] ^= p[1:]
    return c.tobytes()
