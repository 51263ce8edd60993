"""Savefiles made by the code itself: a modular v2 save (no real one exists) and a block save.

The modular sample carries the example "header" block (vendor 0, type 1,
version 1) and opaque blocks laid out like the real game's, plus one block
from a made-up patch vendor, to show that unknown blocks survive a rewrite.
Seeded, so every run makes the same bytes.
"""

from __future__ import annotations

import random

from .block import Block, BlockSave, Description, RawBlock
from .blocks import VariantHeader
from .modular import DecodedBlock, ModularSave, OpaqueBlock

# (type, name, size) of the opaque blocks in the modular sample, after the header block.
MODULAR_LAYOUT = ((2, "rng", 256), (3, "options", 640), (4, "messages", 1800), (5, "player", 460),
                  (6, "inventory", 900), (7, "stores", 6000), (8, "dungeon", 2500))
PATCH_VENDOR = 77  # a patch author's vendor id: a block no codec knows


def modular_save(seed: int = 4, description: str = "Asira, L7 Zebra Priest, in the Town",
                 status: int = 1) -> ModularSave:
    rng = random.Random(seed)
    blocks: list[DecodedBlock | OpaqueBlock] = [DecodedBlock(VariantHeader("Vanilla", 3, 0, 6, 0))]
    for type_, _name, size in MODULAR_LAYOUT:
        blocks.append(OpaqueBlock(0, type_, 1, rng.randbytes(size)))
    blocks.append(OpaqueBlock(PATCH_VENDOR, 1, 2, b"auto-pickup list\0" + rng.randbytes(40)))
    return ModularSave(status=status, description=description, blocks=blocks)


BLOCK_LAYOUT = (("rng", 1, 256), ("options", 2, 647), ("messages", 1, 500), ("player", 2, 460),
                ("inventory", 1, 679), ("stores", 1, 3000), ("dungeon", 1, 1050), ("history", 1, 8))


def block_save(seed: int = 31, description: str = "Brand, L12 High-Elf Mage, at DL5") -> BlockSave:
    rng = random.Random(seed)
    blocks: list[Block] = [Description.from_line(description)]
    for name, version, size in BLOCK_LAYOUT:
        blocks.append(RawBlock(name, version, rng.randbytes(size)))
    return BlockSave("VNLA", blocks)
