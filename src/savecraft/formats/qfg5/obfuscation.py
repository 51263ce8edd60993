"""The player-state obfuscation: each byte XORed with the (plain) byte after it.

NOTES.md: ``c[i] = p[i] ^ p[i+1]`` for i < 1095 and ``c[1095] = p[1095]``, so
decoding runs backwards from the last byte, which makes ``p[i]`` the XOR of
``c[i:]``: a reversed cumulative XOR.

Both directions work on the bytes as one little-endian integer, where a
right shift by 8 moves every byte onto the one before it: encoding is one
XOR with the shifted value, decoding a prefix scan of log2(n) shifts and
XORs. That is as fast as numpy for these 1096 bytes and keeps numpy (tens of
milliseconds to import) out of a small command's start-up.
"""

from __future__ import annotations


def deobfuscate(stored: bytes) -> bytes:
    n = len(stored)
    x = int.from_bytes(stored, "little")
    shift = 8
    while shift < 8 * n:
        x ^= x >> shift
        shift *= 2
    return x.to_bytes(n, "little")


def obfuscate(plain: bytes) -> bytes:
    p = int.from_bytes(plain, "little")
    return (p ^ (p >> 8)).to_bytes(len(plain), "little")
