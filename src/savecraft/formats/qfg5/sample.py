"""Realistic savegames made by the code itself (no real QfG5 savegame was available).

The values follow the spec's descriptions: inventory sprite ids in the 101xxx
range, a noise length between 50 and 150, 133 rooms of which a few hold
objects (and some empty slots), a current room with data. Seeded, so every
run makes the same bytes.
"""

from __future__ import annotations

import random

from .model import (
    BELT_SLOTS,
    ENGINE_STATE_SIZE,
    NOISE_MAX,
    NOISE_MIN,
    PLAYER_STATE_SIZE,
    Belt,
    DialogueRoom,
    EmptySlot,
    Equipment,
    GameObject,
    InventoryItem,
    MessageState,
    QfgSave,
    RoomObjects,
    empty_rooms,
)

SWORD, SHIELD, HELMET, ARMOUR, AMULET = 101010, 101020, 101030, 101040, 101050


def _player_state(rng: random.Random) -> bytes:
    """Characteristics (u16 each) up front, skills after, zeros for the rest of the instance."""
    state = bytearray(PLAYER_STATE_SIZE)
    for i in range(40):
        state[2 * i : 2 * i + 2] = rng.randrange(5, 300).to_bytes(2, "little")
    for i in range(100, 300):
        state[i] = rng.randrange(0, 4)
    return bytes(state)


def _object(rng: random.Random) -> GameObject | EmptySlot:
    if rng.random() < 0.15:
        return EmptySlot()
    return GameObject(rng.choice((1, 2, 3, 7)), rng.randrange(1, 5000), rng.randbytes(rng.randrange(4, 48)))


def qfg5_save(seed: int = 5, items: int = 12, dialogue_rooms: int = 6, busy_rooms: int = 25) -> QfgSave:
    rng = random.Random(seed)
    inventory = [InventoryItem(101000 + rng.randrange(0, 400), rng.randrange(1, 20), rng.randrange(2),
                               rng.randrange(2)) for _ in range(items)]
    dialogue = [DialogueRoom(rng.randrange(100, 1000), [MessageState(rng.randrange(2), rng.randrange(2))
                                                         for _ in range(rng.randrange(1, 12))])
                for _ in range(dialogue_rooms)]
    rooms = empty_rooms()
    for i in rng.sample(range(len(rooms)), busy_rooms):
        rooms[i] = RoomObjects([_object(rng) for _ in range(rng.randrange(1, 8))])
    return QfgSave(
        player_type=rng.randrange(4),
        noise=rng.randbytes(rng.randrange(NOISE_MIN, NOISE_MAX + 1)),
        player_state=_player_state(rng),
        inventory=inventory,
        dialogue=dialogue,
        rooms=rooms,
        engine_state=bytes(rng.randrange(0, 3) for _ in range(ENGINE_STATE_SIZE)),
        hero=rng.randbytes(180),
        belt=Belt([inventory[i % items].sprite_id if i < items else 0 for i in range(BELT_SLOTS)], 2, 1),
        equipment=Equipment(SWORD, SHIELD, HELMET, ARMOUR, AMULET),
        map_state=rng.randbytes(300),
        current_room=rng.choice((210, 330, 510)),
        room_data=rng.randbytes(96),
    )
