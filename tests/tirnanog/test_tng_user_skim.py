"""The generated skim and pick of a USER chunk: as fast as arithmetic, and exactly as strict.

The load checks every USER chunk with the USER layout's picker (the skim, returning the name
and flags). It is generated as one function: the entity block skimmed in place (no call per
user), the stepped-over bytes bound-checked together, the counts' sum computed once. These
tests hold it to the fast reader: the skim accepts a chunk exactly when the fast reader reads
it, ends where it ends and picks the values it reads.
"""

from __future__ import annotations

import random
import struct
from dataclasses import dataclass, field
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from savecraft.layout import FAST_READ_ERRORS, U8, U16, Array, Check, Context, Field, Len, List, Ref, Struct
from savecraft.formats.tirnanog.save.codec import PICKED, encode_chunk
from savecraft.formats.tirnanog.save.layouts import HEAD_SIZE, NPC, USER
from savecraft.formats.tirnanog.save.sample import make_user


def _fast(layout: Struct, data: bytes, pos: int = 0) -> tuple[Any, int] | None:
    try:
        value, end = layout.fast_read_fn(data, pos, len(data), Context())
        return value, end
    except FAST_READ_ERRORS:
        return None


def _user_bytes(seed: int) -> bytes:
    rng = random.Random(seed)
    return encode_chunk(make_user(rng, f"user{seed}", attributes=3, items=2, skills=1, quests=2))


def test_the_user_pick_is_one_function_with_the_entity_skim_inlined() -> None:
    """No call to the entity block's skim per user (the cost the hand-written check avoided):
    the generated pick names no other generated function."""
    pick = USER.picker(PICKED[b"USER"])
    assert not [n for n in pick.__code__.co_names if n.startswith(("K_fs", "K_pk"))]
    raw = _user_bytes(1)
    (name, flags), end = pick(raw, HEAD_SIZE, len(raw), Context())
    fast = _fast(USER, raw, HEAD_SIZE)
    assert fast is not None
    value, fast_end = fast
    assert (name, flags, end) == (value.name, value.flags, fast_end) == (value.name, value.flags, len(raw))


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 50), at=st.integers(0, 400), byte=st.integers(0, 255),
       cut=st.integers(0, 40), grow=st.binary(max_size=12))
def test_the_user_skim_and_pick_accept_exactly_what_the_fast_reader_reads(
        seed: int, at: int, byte: int, cut: int, grow: bytes) -> None:
    """A USER chunk with one byte changed (a count, the name's NUL, a length), cut short or with
    bytes added: the skim and the pick end where the fast reader ends, or both give up with it."""
    raw = bytearray(_user_bytes(seed))
    raw[HEAD_SIZE + at % (len(raw) - HEAD_SIZE)] = byte
    data = bytes(raw[: len(raw) - cut] + grow)
    fast = _fast(USER, data, HEAD_SIZE)
    assert USER.skim(data, HEAD_SIZE, len(data), Context()) == (None if fast is None else fast[1])
    pick = USER.picker(PICKED[b"USER"])
    try:
        picked: tuple[tuple[object, ...], int] | None = pick(data, HEAD_SIZE, len(data), Context())
    except FAST_READ_ERRORS:
        picked = None
    assert picked == (None if fast is None else ((fast[0].name, fast[0].flags), fast[1]))


@settings(max_examples=150, deadline=None)
@given(counts=st.tuples(st.integers(0, 6), st.integers(0, 6), st.integers(0, 6), st.integers(0, 6)),
       extra=st.integers(-30, 30))
def test_the_npc_skim_checks_the_entity_counts_against_the_bytes_left(
        counts: tuple[int, int, int, int], extra: int) -> None:
    """The entity block's counts must fill the chunk: the sum computed once still refuses too
    many or too few bytes, as the fast reader does."""
    a, i, s, q = counts
    body = struct.pack("<II", 7, 9) + bytes(15) + struct.pack("<BHHH", a, i, s, q)
    data = body + bytes(max(0, a * 4 + i * 8 + s * 8 + q * 4 + extra))
    fast = _fast(NPC, data)
    assert (fast is not None) == (len(data) == len(body) + a * 4 + i * 8 + s * 8 + q * 4)
    assert NPC.skim(data, 0, len(data), Context()) == (None if fast is None else fast[1])


# -- a record nested in one that uses the same names: called, not inlined --------------------


@dataclass
class Inner:
    n: int = 0
    vals: list[int] = field(default_factory=list)


@dataclass
class Outer:
    n: int = 0
    tag: int = 0
    vals: list[int] = field(default_factory=list)
    inner: Inner = field(default_factory=Inner)


INNER = Struct(Inner, [Field("n", U8), Check("n < 5", "n", "fewer than 5", "n"),
                       Field("vals", Array(U16, Ref("n")))], name="inner")
OUTER = Struct(Outer, [Len("count", U8, ("vals",)), Field("n", U8), Field("tag", U8),
                       Field("vals", Array(U16, Ref("count"))), Field("inner", INNER)], name="outer")
OUTER_LIST = Struct(Outer, [Len("count", U8, ("vals",)), Field("n", U8), Field("tag", U8),
                            Field("vals", List(U16, Ref("count"))), Field("inner", INNER)], name="outer list")


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=40))
def test_a_skim_with_shared_names_and_hoisted_bounds_ends_where_the_fast_reader_ends(data: bytes) -> None:
    """Bytes stepped over by a count are bound-checked with the next read; a nested record whose
    names the outer one uses (``n``, ``vals``) is skimmed by a call: either way the skim's answer
    is the fast reader's, on any bytes."""
    for layout in (OUTER, OUTER_LIST):
        fast = _fast(layout, data)
        assert layout.skim(data, 0, len(data), Context()) == (None if fast is None else fast[1])
        try:
            picked: tuple[tuple[object, ...], int] | None = layout.picker(("tag",))(data, 0, len(data), Context())
        except FAST_READ_ERRORS:
            picked = None
        assert picked == (None if fast is None else ((fast[0].tag,), fast[1]))
