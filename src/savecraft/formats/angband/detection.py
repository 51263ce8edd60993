"""How the registry recognises the Angband savefiles before importing a plugin.

Three formats: the modular v2 saves, the block saves of 3.1 to 4.x (and
PWMAngband's), and the legacy saves from before 3.1, which have no magic at
all and so are tried last, after every other format's magic failed (the real
sniffer, :mod:`.legacy`, checks their two checksums over the whole file).
:mod:`.sniffing` holds the full rules; these pre-checks only look at the first
bytes. Imports nothing but the registry: every detection module is imported on
every detection, so it must cost nothing (see :mod:`savecraft.registry`).
"""

from __future__ import annotations

from ...registry import LAST, Plugin, starts_with


def _block(data: bytes) -> bool:
    # "Save" and a printable variant id, or PWMAngband's 4 version bytes and "PWMG".
    if len(data) < 8:
        return False
    return (bytes(data[:4]) == b"Save" and all(0x20 <= b <= 0x7E for b in data[4:8])) \
        or bytes(data[4:8]) == b"PWMG"


def _legacy(data: bytes) -> bool:
    # Four plain version bytes, content, two u32 checksums (the real sniffer
    # checks them): no magic, so only sizes and the other formats' magics rule out.
    return 20 <= len(data) <= 16 << 20 and bytes(data[:4]) != b"Save"


DETECTION = (
    Plugin("angband-modular", "savecraft.formats.angband.modular", starts_with(b"Save\x02"), order=300),
    Plugin("angband-block", "savecraft.formats.angband.block", _block,
           tables="savecraft.formats.angband.tables", order=400),
    Plugin("angband-legacy", "savecraft.formats.angband.legacy", _legacy, order=LAST),
)
