"""Validate of a TirNanoG save finds every problem without decoding the chunks its scan checked.

The chunk scan reads each USER, NPC, DENY, GLBL and QSTS chunk through its
layout's skim (the fast reader's own acceptance, building nothing) or, where
the skim gives up, its checked reader (which names what is wrong). Validate
used to decode every such chunk again afterwards (1.6 s of 2.3 s for 50,000
players); it now decodes only the chunks the scan did not read through a
layout. These tests hold what that rests on: a chunk the scan kept decodes
without a problem, so the problems are the ones the full decode gave.
"""

from __future__ import annotations

import json
import random
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

import savecraft
from savecraft.binary import Reader
from savecraft.errors import FormatError
from savecraft.formats.tirnanog.save import codec, sample
from savecraft.formats.tirnanog.save.layouts import BODIES, HEAD_SIZE
from savecraft.layout import Context


def _wrap(content: bytes) -> bytes:
    return (codec.MAGIC + b"g".ljust(16, b"\0") + zlib.compress(content)
            + struct.pack("<I", zlib.crc32(content)))


def _chunks(content: bytes) -> list[bytes]:
    out, pos = [], 0
    while pos < len(content):
        size = struct.unpack_from("<I", content, pos + 4)[0]
        out.append(content[pos:pos + size])
        pos += size
    return out


@pytest.fixture(scope="module")
def content() -> bytes:
    """The inflated chunks of a server save with every kind of chunk (DENY, GLBL, QSTS, USER,
    NPC, MAP and one of no known kind)."""
    data = savecraft.build(sample.server_save(users=5, attributes=3, items=4))
    return zlib.decompress(data[32:-4])


def _mutants(body: bytes, rng: random.Random, n: int) -> list[bytes]:
    out = []
    for _ in range(n):
        b = bytearray(body)
        for _ in range(rng.randrange(1, 4)):
            b[rng.randrange(len(b))] = rng.choice([0, 1, 0xFF, rng.randrange(256)])
        if rng.random() < 0.2:
            b = b[: rng.randrange(len(b) + 1)]
        out.append(bytes(b))
    return out


def test_a_body_the_skim_accepts_is_read_without_a_problem_by_every_reader(content: bytes) -> None:
    """What validate now rests on, for each layout the scan skims: where the skim accepts a
    body to its end, the fast reader reads it to the same end and the checked reader (the
    definition) reads the same model; where it does not, the checked reader either names a
    problem or reads it (and the scan keeps what it read)."""
    rng = random.Random(23)
    seen: dict[bytes, list[int]] = {}
    for raw in _chunks(content):
        magic = raw[:4]
        if magic not in codec.CHECKED_BY_SCAN:
            continue
        layout = BODIES[magic]
        counts = seen.setdefault(magic, [0, 0])
        for chunk in [raw, *_mutants(raw, rng, 300)]:
            end = len(chunk)
            ends = layout.skim(chunk, HEAD_SIZE, end, Context()) == end
            counts[0 if ends else 1] += 1
            r = Reader(chunk, HEAD_SIZE)
            try:
                checked = layout.checked_only(r, Context())
            except FormatError:
                continue  # a problem named: the scan reports it and keeps the chunk as bytes
            if ends:
                model, pos = layout.fast_read_fn(chunk, HEAD_SIZE, end, Context())
                assert pos == end == r.pos and model == checked, (magic, chunk.hex())
    assert set(seen) == set(codec.CHECKED_BY_SCAN)
    # every layout was seen both accepted and refused by its skim
    assert all(ok and bad for ok, bad in seen.values()), seen


def test_validate_problems_are_the_full_decodes(content: bytes) -> None:
    """Old against new on 600 corrupted saves: the full decode validate made before would
    have added a problem for a chunk kept by the scan that does not decode; every such chunk
    decodes, so the problem lists (offset, path, expected, found) are the same."""
    rng = random.Random(5)
    with_problems = 0
    for _ in range(600):
        data = _wrap(_mutants(content, rng, 1)[0])
        result = savecraft.validate(data)
        with_problems += bool(result.problems)
        if result.model is None:
            continue
        chunks = result.model.chunks
        for i in range(len(chunks)):
            try:
                chunks.decoded(i)  # what the old validate ran on every chunk
            except Exception as exc:  # noqa: BLE001 (the old validate's problem)
                pytest.fail(f"chunk {i} was kept by the scan but does not decode: {exc!r} "
                            f"(payload {data.hex()})")
    assert with_problems > 100


def test_validate_reports_each_chunk_problem_with_its_place(tmp_path: Path) -> None:
    """The savecraft command on a save broken in several chunks names each place, as before."""
    save = sample.server_save(users=4, attributes=2, items=2)
    save.users[2].name = save.users[0].name  # a name used twice: the save's own check
    content = bytearray(zlib.decompress(savecraft.build(save)[32:-4]))
    starts = []
    pos = 0
    while pos < len(content):
        starts.append(pos)
        pos += struct.unpack_from("<I", content, pos + 4)[0]
    magics = [bytes(content[s:s + 4]) for s in starts]
    deny = starts[magics.index(b"DENY")]
    content[deny + HEAD_SIZE] = 7  # an address family that is neither 2 nor 10
    user = starts[magics.index(b"USER") + 1]
    # users[1]'s entity: one attribute more than its bytes hold (the count, 7 bytes before the lists)
    size = struct.unpack_from("<I", content, user + 4)[0]
    uraw = bytes(content[user:user + size])
    nul = uraw.index(b"\0", HEAD_SIZE + 68)
    numchar = uraw[HEAD_SIZE + 67]
    entity = nul + 1 + numchar * 4 + 128
    content[user + entity + 15] += 1  # attributes_count (after map, dir, x, y, 3 bytes)
    path = tmp_path / "broken.sav"
    path.write_bytes(_wrap(bytes(content)))
    done = subprocess.run([sys.executable, "-m", "savecraft", "validate", "--json", str(path)],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 1, done.stderr
    record = json.loads(done.stdout.splitlines()[0])
    got = [(p["offset"], p["path"]) for p in record["problems"]]
    assert got == [(deny + HEAD_SIZE, "deny.entries[0].family"),
                   (user + entity + 15, "users[1].entity.attributes"),
                   (None, "users[2].name")], record["problems"]


def test_the_scan_picks_each_users_name_and_flags_as_the_reader_reads_them() -> None:
    """The summary's and validate's names come from the scan's pick (no second pass over 50,000
    users): for every user the values the reader decodes, a banned one and a non-ASCII name too;
    a decoded (perhaps edited) user is read from its object."""
    save = sample.server_save(users=6, attributes=2, items=2)
    save.users[1].name = "Éadaoin ßeta"
    save.users[4].flags |= 1
    loaded = savecraft.parse(savecraft.build(save))
    chunks = loaded.chunks
    users = [i for i in range(len(chunks)) if chunks.magic(i) == b"USER"]
    picked = [chunks.picked_or_none(i) for i in users]
    assert picked == [(u.name, u.flags) for u in save.users]
    assert all(chunks.picked_or_none(i) is None for i in range(len(chunks)) if i not in users)
    loaded.users[2].name = "Renamed"  # decoded: its object is what the names say now
    assert chunks.picked_or_none(users[2]) is None
    info = savecraft.registry.get("tirnanog-save").info(loaded)
    assert info["users"] == [u.name for u in save.users[:2]] + ["Renamed"] + [u.name for u in save.users[3:]]
    assert info["banned_users"] == [save.users[4].name]
