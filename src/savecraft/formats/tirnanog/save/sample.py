"""Realistic saves made by the code itself, for the demo, the tests and the benchmarks."""

from __future__ import annotations

import random

import numpy as np

from ....net.crypto import password_hash
from .model import (
    AddressFamily,
    ChunkList,
    DenyChunk,
    DenyEntry,
    Entity,
    GlobalsChunk,
    InventoryItem,
    MapChunk,
    NpcChunk,
    QuestsChunk,
    QuestState,
    RawChunk,
    SaveGame,
    Skill,
    UserChunk,
)
from .preview import encode_image
from .model import Preview

NAMES = ("Brigid", "Aoife", "Cian", "Niamh", "Oisin", "Fionn", "Saoirse", "Darragh", "Eabha", "Ronan")
EPOCH = 1_760_000_000  # a fixed "now" so samples are reproducible


def make_entity(rng: random.Random, attributes: int = 8, items: int = 5, skills: int = 2,
                quests: int = 2) -> Entity:
    return Entity(
        map=rng.randrange(4), direction=rng.randrange(8), x=rng.randrange(2048), y=rng.randrange(2048),
        behaviour=0, transport=rng.randrange(3), altitude=0,
        attributes=[rng.randrange(-10, 100) for _ in range(attributes)],
        inventory=[InventoryItem(rng.randrange(1, 20), rng.randrange(1, 500)) for _ in range(items)],
        skills=[Skill(rng.randrange(1, 10), rng.randrange(1, 500)) for _ in range(skills)],
        quests=[QuestState(rng.randrange(50), rng.random() < 0.5) for _ in range(quests)],
    )


def make_user(rng: random.Random, name: str, **entity_sizes: int) -> UserChunk:
    created = EPOCH - rng.randrange(10_000_000)
    return UserChunk(
        name=name, password_hash=password_hash(name.lower()), created=created,
        last_login=created + 3600, last_logout=created + 7200, last_seen=created + 7200,
        language=rng.choice(("en", "ga", "hu", "de")), flags=0,
        character_options=[rng.randrange(4) for _ in range(3)],
        equipped=[rng.randrange(300) if k < 6 else 0 for k in range(32)],
        belt=[rng.randrange(300) if k < 4 else 0 for k in range(32)],
        entity=make_entity(rng, **entity_sizes),
    )


def preview_picture() -> np.ndarray:
    """A small landscape: sky gradient, hills and a sun, so the PNG export shows something."""
    y, x = np.mgrid[0:256, 0:256]
    img = np.zeros((256, 256, 3), dtype=np.uint8)
    img[..., 0] = 40 + y // 3
    img[..., 1] = 90 + y // 4
    img[..., 2] = 200 - y // 4
    hills = y > 170 + (18 * np.sin(x / 23.0)).astype(int)
    img[hills] = (40, 140, 60)
    sun = (x - 190) ** 2 + (y - 60) ** 2 < 400
    img[sun] = (250, 220, 80)
    return img


def player_save(seed: int = 1) -> SaveGame:
    """A player's save: PRVW and exactly one USER."""
    rng = random.Random(seed)
    user = make_user(rng, "Brigid")
    return SaveGame(
        game_id="sample-world",
        preview=Preview(play_time=5 * 3600 + 17 * 60 + 9, image=encode_image(preview_picture())),
        chunks=ChunkList([GlobalsChunk([rng.randrange(100) for _ in range(6)]),
                QuestsChunk([-1, 0, -1, -1]), user]),
    )


def server_save(users: int = 10, seed: int = 2, attributes: int = 8, items: int = 5,
                maps: int = 1) -> SaveGame:
    """A server's save: many USERs, DENY, GLBL, QSTS, NPCs, changed maps (one unless asked
    for more: 64 x 64 object layers, runs of empty tiles between objects) and an unknown
    chunk, in the order a server writes them."""
    rng = random.Random(seed)
    chunks: list[object] = [
        DenyChunk([
            DenyEntry(AddressFamily.AF_INET, "192.0.2.17"),
            DenyEntry(AddressFamily.AF_INET6, "2001:db8::dead:beef"),
        ]),
        GlobalsChunk([rng.randrange(1000) for _ in range(12)]),
        QuestsChunk([rng.choice((-1, 0, 1, 2)) for _ in range(8)]),
    ]
    for k in range(users):
        name = NAMES[k % len(NAMES)] + (str(k // len(NAMES)) if k >= len(NAMES) else "")
        chunks.append(make_user(rng, name, attributes=attributes, items=items))
    for k in range(3):
        chunks.append(NpcChunk(npc_type=k + 1, spawner=k, entity=make_entity(rng, items=2, skills=0)))
    tiles = [0] * 64 * 64
    for k in range(0, len(tiles), 97):
        tiles[k] = 1 + k % 7
    chunks.append(MapChunk(map_id=1, tiles=tiles))
    for k in range(1, maps):  # their own random numbers: the rest of the save stays the same
        place = random.Random(seed * 1000 + k)
        tiles = [0] * 64 * 64
        for at in range(0, len(tiles), place.randrange(3, 60)):
            tiles[at] = place.randrange(1, 300)
        chunks.append(MapChunk(map_id=k + 1, tiles=tiles))
    chunks.append(RawChunk(magic=b"XTRA", data=b"kept as it is\0\x01\x02"))
    return SaveGame(game_id="sample-world", chunks=ChunkList(chunks))
