"""A Quest for Glory 5 savegame as Python values, in file order.

The header's counts (inventory items, noise length) and every size field are
not stored: they follow from the lists and byte strings here and are written
by the codec, so adding an item or a dialogue room can never leave a stale
count behind. The player state is held decoded (the codec re-obfuscates it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

PLAYER_STATE_SIZE = 1096
ENGINE_STATE_SIZE = 1536
ROOM_COUNT = 133
BELT_SLOTS = 9
GLOBAL_ROOMS = (0, 900)  # current-room ids with no room data after them (900 is the world map)
NOISE_MIN, NOISE_MAX = 50, 150

# How the u32 before the room records counts objects. The reader accepts each and
# remembers which one a file used; the writer emits the first (NOTES.md: "total number
# of objects", read as every slot of every room, empty ones included).
TOTAL_RULES = ("slots", "objects", "rooms")


@dataclass(slots=True)
class InventoryItem:
    """One inventory entry; ``sprite_id`` (101xxx) is also the item's type."""

    sprite_id: int
    amount: int = 1
    unique: int = 0
    zapped: int = 0  # "applied zap spell on weapon"


@dataclass(slots=True)
class MessageState:
    """The two flags per dialogue line."""

    said: int = 0  # "this line has been said before"
    removed: int = 0  # "this line should not be present any longer"


@dataclass(slots=True)
class DialogueRoom:
    room: int
    messages: list[MessageState] = field(default_factory=list)


@dataclass(slots=True)
class GameObject:
    """An object in a room; ``data`` is its object-specific state, kept as bytes (never empty)."""

    KIND: ClassVar[str] = "object"
    type: int
    id: int
    data: bytes


@dataclass(slots=True)
class EmptySlot:
    """A slot written with data size 0: nothing follows it."""

    KIND: ClassVar[str] = "empty"


@dataclass(slots=True)
class RoomObjects:
    objects: list[GameObject | EmptySlot] = field(default_factory=list)


@dataclass(slots=True)
class Belt:
    """The nine belt item ids, which one is selected, and whether a belt item is selected at all."""

    items: list[int] = field(default_factory=lambda: [0] * BELT_SLOTS)
    selected: int = 0
    active: int = 0


@dataclass(slots=True)
class Equipment:
    """The five equipped item ids, by slot."""

    sword: int = 0
    shield: int = 0
    helmet: int = 0
    armour: int = 0
    amulet: int = 0


def empty_rooms() -> list[RoomObjects]:
    return [RoomObjects() for _ in range(ROOM_COUNT)]


@dataclass(slots=True)
class QfgSave:
    """The whole savegame. ``noise`` is the random filler after the header, kept as it was.

    ``room_data`` is empty and not written when ``current_room`` is 0 or 900.
    ``total_rule`` remembers how the file counted its objects (see TOTAL_RULES).
    """

    player_type: int = 0
    noise: bytes = bytes(NOISE_MIN)
    player_state: bytes = bytes(PLAYER_STATE_SIZE)
    inventory: list[InventoryItem] = field(default_factory=list)
    dialogue: list[DialogueRoom] = field(default_factory=list)
    rooms: list[RoomObjects] = field(default_factory=empty_rooms)
    engine_state: bytes = bytes(ENGINE_STATE_SIZE)
    hero: bytes = b""
    belt: Belt = field(default_factory=Belt)
    equipment: Equipment = field(default_factory=Equipment)
    map_state: bytes = b""
    current_room: int = 0
    room_data: bytes = b""
    total_rule: str = field(default=TOTAL_RULES[0], compare=False)

    @property
    def object_slots(self) -> int:
        return sum(len(r.objects) for r in self.rooms)

    @property
    def object_count(self) -> int:
        return sum(1 for r in self.rooms for o in r.objects if isinstance(o, GameObject))

    def objects_total(self, rule: str | None = None) -> int:
        """The value of the u32 before the room records under ``rule`` (default: the save's own)."""
        rule = rule or self.total_rule
        if rule == "objects":
            return self.object_count
        if rule == "rooms":
            return len(self.rooms)
        return self.object_slots
