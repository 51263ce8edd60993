"""Pre-3.1 Angband savefiles: recognised, named, and refused (the ``angband-legacy`` format).

Before 3.1, Angband (and the variants of that era) wrote four plain version
bytes (major, minor, patch, and a random "extra" byte that seeds the
encoding), then every following byte XOR-chained to the byte before it:
``stored[i] = value[i] ^ stored[i-1]``. The file ends with two u32 checksums,
both encoded the same way: the sum of the decoded bytes after the version
bytes (``v_check``), then the sum of the stored bytes after the version
bytes, that first checksum included (``x_check``).

savecraft does not decode these files (their layout changed with almost
every release), but it must not call them "unknown" either. Sil (and Sil-Q)
kept writing this format long after Angband left it; a Sil file is told apart
by what its loader reads first (``rd_savefile_new_aux`` of Sil 1.3's
``load.c``): 8 spare bytes after ``sf_saves``, then ``rd_randomizer`` strips
8 more before ``Rand_place`` (below 64), where Angband's randomizer has a u16
and ``Rand_place`` at byte 26 and the state, never 16 zero bytes, from byte 28. The sniffer
accepts a file only when both checksums hold, which no other format's
bytes do by accident; parsing then raises
:class:`~savecraft.errors.UnsupportedFormatError` naming the version.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass
from typing import Any

from ...errors import Report, UnsupportedFormatError
from ...registry import Format, register
from .sniffing import byte_sum

VERSION_BYTES = 4
MIN_SIZE = VERSION_BYTES + 8 + 8  # version, some content, two checksums
RAND_DEG = 64  # the randomizer's state words: Rand_place is below it
MAX_SIZE = 16 << 20  # far above any real one; keeps sniffing other big files cheap


@dataclass(slots=True)
class LegacyHeader:
    """What savecraft reads of a legacy savefile before refusing it."""

    major: int
    minor: int
    patch: int
    extra: int
    saved_at: int  # sf_when: Unix time of the save (decoded bytes 8-11)
    times_saved: int  # sf_saves (decoded bytes 14-15)
    game: str = "Angband"  # "Sil" when the bytes after the header are laid out as Sil writes them

    @property
    def version(self) -> str:
        return f"{self.major}.{self.minor}.{self.patch}"


@dataclass(slots=True)
class LegacySave:
    """The model of a format savecraft refuses: the file's bytes, as they were."""

    data: bytes = b""


def _u32(b: bytes, at: int) -> int:
    return int.from_bytes(b[at:at + 4], "little")


def identify(data: bytes) -> LegacyHeader | None:
    """The header of a pre-3.1 savefile whose two checksums hold, else None.

    Every file no magic claims reaches this sniffer, so it stays cheap and
    light: the XOR chain is undone with one big-integer XOR (no numpy import
    at start-up), the sums by :func:`.sniffing.byte_sum`.
    """
    if not MIN_SIZE <= len(data) <= MAX_SIZE or data[:4] == b"Save":
        return None
    stored = bytes(data)
    n = len(stored)
    chained = (int.from_bytes(stored[VERSION_BYTES:], "little")
               ^ int.from_bytes(stored[VERSION_BYTES - 1:-1], "little"))
    decoded = stored[:VERSION_BYTES] + chained.to_bytes(n - VERSION_BYTES, "little")
    v_check = byte_sum(memoryview(decoded)[VERSION_BYTES:n - 8])
    x_check = byte_sum(memoryview(stored)[VERSION_BYTES:n - 4])
    if _u32(decoded, n - 8) != v_check or _u32(decoded, n - 4) != x_check or not x_check:
        return None  # (all-zero content would "match" too: not evidence of anything)
    sil = n >= 34 + 8 and not any(decoded[16:32]) and int.from_bytes(decoded[32:34], "little") < RAND_DEG
    return LegacyHeader(
        int(data[0]), int(data[1]), int(data[2]), int(data[3]),
        saved_at=_u32(decoded, 8),
        times_saved=int.from_bytes(decoded[14:16], "little"),
        game="Sil" if sil else "Angband",
    )


def sniff(data: bytes) -> bool:
    return identify(data) is not None


class LegacySaveRefused(UnsupportedFormatError):
    """A pre-3.1 savefile, refused; ``model`` is the file, so ``savecraft info`` still shows what it is."""

    def __init__(self, save: LegacySave, header: LegacyHeader) -> None:
        what = (f"a Sil savefile (version {header.version}; Sil writes the XOR-chained format of "
                "pre-3.1 Angband, not Angband's block format)" if header.game == "Sil"
                else f"a pre-3.1 Angband savefile (version {header.version})")
        super().__init__(None, "", f"{what}, which savecraft does not decode")
        self.model = save


def parse(data: bytes, report: Report) -> LegacySave:
    """Always refuses: with a message naming the version when the file is one."""
    header = identify(data)
    if header is None:
        raise UnsupportedFormatError(
            None, "", "a pre-3.1 Angband savefile (4 version bytes, XOR-chained data, two checksums)",
            "checksums that do not match")
    raise LegacySaveRefused(LegacySave(bytes(data)), header)


def build(save: LegacySave) -> bytes:
    return save.data


def _when(ts: int) -> str | None:
    """A Unix time as ISO 8601 UTC (docs/info-json.md), None for none."""
    if ts <= 0:
        return None
    return _dt.datetime.fromtimestamp(ts, _dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def info(save: LegacySave) -> dict[str, Any]:
    """What the header says (docs/info-json.md); every field null when the checksums do not hold."""
    header = identify(save.data)
    return {
        "decoded": False,  # recognised only: savecraft does not decode these files
        "game": header.game if header else None,
        "version": header.version if header else None,
        "version_major": header.major if header else None,
        "version_minor": header.minor if header else None,
        "version_patch": header.patch if header else None,
        "xor_seed": header.extra if header else None,
        "saved_at": _when(header.saved_at) if header else None,
        "save_count": header.times_saved if header else None,
        "file_bytes": len(save.data),
    }


FORMAT = register(Format(
    name="angband-legacy",
    description="pre-3.1 Angband savefile, recognised and not decoded",
    model=LegacySave,
    sniff=sniff,
    parse=parse,
    build=build,
    info=info,
))
