"""savecraft._native.bytewise: byte sums and the repeated-key XOR (see bytewise.c).
Use it through savecraft.compiled."""

VERSION: int

# data XOR key repeated over it (ValueError for an empty key).
def xor_repeat(data: bytes | bytearray | memoryview, key: bytes | bytearray | memoryview, /) -> bytes: ...

# The unsigned sum of the bytes modulo 2**32.
def byte_sum(data: bytes | bytearray | memoryview, /) -> int: ...
