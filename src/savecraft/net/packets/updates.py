"""The records inside an update message (type 7), each prefixed by its id byte.

0 player movement, 1 player logout, 2 player sprites, 3 player inventory,
4 player equipment (3 and 4 as NOTES.md settles them). Records are not
length-prefixed, so every record must be decodable to find the next one:

* record 2 carries ``numchar`` character options, a number known only from
  the world (the asset bundle). The project stores them as int32 each, like
  the character specification of a registration and the USER chunk
  (value << 8 | palette index); a decoder is given ``numchar`` in its
  :class:`~savecraft.net.packets.base.Context`;
* record 3's zlib stream ends itself, so what follows it is the next record.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from collections.abc import Iterable
from typing import Any, ClassVar, NoReturn

from ...binary import Reader
from ...compression import Deflated, inflate
from ...formats.tirnanog.save.model import InventoryItem
from .base import Context, bad

SLOTS = 32
MAX_INVENTORY_BYTES = 1 << 20  # inflated inventory list cap: 131072 (quantity, object) pairs

_MOVE = struct.Struct("<BIIHHBB")
MOVE_RECORD = _MOVE  # record id 0, user, map, x, y, direction, altitude: for readers of many at once
_USER = struct.Struct("<BI")
_EQUIP = struct.Struct(f"<BI{SLOTS}H")
_SLOTS = struct.Struct(f"<{SLOTS}H")


@dataclass(slots=True)
class MoveRecord:
    """0: a player moved (or was placed): where, facing where, at which altitude."""

    ID: ClassVar[int] = 0
    KIND: ClassVar[str] = "move"  # the tag in JSON
    user_id: int = 0
    map_id: int = 0
    x: int = 0
    y: int = 0
    direction: int = 0
    altitude: int = 0

    def encode(self) -> bytes:
        try:
            return _MOVE.pack(0, self.user_id, self.map_id, self.x, self.y, self.direction,
                              self.altitude)
        except (struct.error, TypeError):
            _range_error("move", (("user_id", self.user_id, 32), ("map_id", self.map_id, 32),
                                  ("x", self.x, 16), ("y", self.y, 16),
                                  ("direction", self.direction, 8),
                                  ("altitude", self.altitude, 8)))


@dataclass(slots=True)
class LogoutRecord:
    """1: a player left (logged out, or timed out)."""

    ID: ClassVar[int] = 1
    KIND: ClassVar[str] = "logout"  # the tag in JSON
    user_id: int = 0

    def encode(self) -> bytes:
        try:
            return _USER.pack(1, self.user_id)
        except (struct.error, TypeError):
            _range_error("logout", (("user_id", self.user_id, 32),))


@dataclass(slots=True)
class SpritesRecord:
    """2: what a player looks like: character options, 32 equipped objects, name."""

    ID: ClassVar[int] = 2
    KIND: ClassVar[str] = "sprites"  # the tag in JSON
    user_id: int = 0
    options: list[int] = field(default_factory=list)  # int32 each: value << 8 | palette
    equipped: list[int] = field(default_factory=lambda: [0] * SLOTS)
    name: str = ""

    def encode(self) -> bytes:
        if len(self.equipped) != SLOTS:
            bad("sprites.equipped", f"{SLOTS} slots", str(len(self.equipped)))
        raw = self.name.encode("utf-8", "surrogatepass")
        if b"\0" in raw:
            bad("sprites.name", "a name without NUL characters", repr(self.name))
        try:
            self.name.encode("utf-8")
            return (_USER.pack(2, self.user_id) + struct.pack(f"<{len(self.options)}i", *self.options)
                    + _SLOTS.pack(*self.equipped) + raw + b"\0")
        except UnicodeEncodeError:
            bad("sprites.name", "a name in valid UTF-8", repr(self.name))
        except (struct.error, TypeError):
            _range_error("sprites", [("user_id", self.user_id, 32)]
                         + [(f"options[{k}]", v, -32) for k, v in enumerate(self.options)]
                         + [(f"equipped[{k}]", v, 16) for k, v in enumerate(self.equipped)])


@dataclass(slots=True)
class InventoryRecord:
    """3: a player's inventory, a zlib stream of (u32 quantity, u32 object id) pairs."""

    ID: ClassVar[int] = 3
    KIND: ClassVar[str] = "inventory"  # the tag in JSON
    user_id: int = 0
    items: list[InventoryItem] = field(default_factory=list)
    encoding: Deflated = field(default_factory=Deflated, compare=False, repr=False)

    def content(self) -> bytes:
        flat = [v for it in self.items for v in (it.quantity, it.object_id)]
        try:
            return struct.pack(f"<{len(flat)}I", *flat)
        except (struct.error, TypeError):
            _range_error("inventory", [(f"items[{k // 2}]", v, 32) for k, v in enumerate(flat)])

    def encode(self) -> bytes:
        try:
            head = _USER.pack(3, self.user_id)
        except (struct.error, TypeError):
            _range_error("inventory", (("user_id", self.user_id, 32),))
        return head + self.encoding.compress(self.content())


@dataclass(slots=True)
class EquipmentRecord:
    """4: the 32 equipped object sprites of a player."""

    ID: ClassVar[int] = 4
    KIND: ClassVar[str] = "equipment"  # the tag in JSON
    user_id: int = 0
    equipped: list[int] = field(default_factory=lambda: [0] * SLOTS)

    def encode(self) -> bytes:
        if len(self.equipped) != SLOTS:
            bad("equipment.equipped", f"{SLOTS} slots", str(len(self.equipped)))
        try:
            return _EQUIP.pack(4, self.user_id, *self.equipped)
        except (struct.error, TypeError):
            _range_error("equipment", [("user_id", self.user_id, 32)]
                         + [(f"equipped[{k}]", v, 16) for k, v in enumerate(self.equipped)])


UpdateRecord = MoveRecord | LogoutRecord | SpritesRecord | InventoryRecord | EquipmentRecord
RECORD_TYPES: tuple[type, ...] = (MoveRecord, LogoutRecord, SpritesRecord, InventoryRecord,
                                  EquipmentRecord)


def _range_error(record: str, fields: Iterable[tuple[str, Any, int]]) -> NoReturn:
    for name, v, bits in fields:
        lo, hi = (0, (1 << bits) - 1) if bits > 0 else (-(1 << (-bits - 1)), (1 << (-bits - 1)) - 1)
        if not isinstance(v, int) or not lo <= v <= hi:
            kind = f"u{bits}" if bits > 0 else f"i{-bits}"
            bad(f"update.{record}.{name}", f"an integer from {lo} to {hi} ({kind})", repr(v))
    bad(f"update.{record}", "values that fit the record", "a value that does not")


def decode_records(r: Reader, ctx: Context) -> list[UpdateRecord]:
    """Every record up to the end of the message; each one's bytes are checked."""
    data = r.data
    pos = r.pos
    end = r.end
    out: list[UpdateRecord] = []
    append = out.append
    move_unpack = _MOVE.unpack_from
    while pos < end:
        rid = data[pos]
        k = len(out)
        if rid == 0:
            if end - pos < 15:
                r.fail(f"records[{k}]", "a 15-byte movement record",
                       f"the end of the message after {end - pos} bytes", at=pos)
            _, u, m, x, y, d, a = move_unpack(data, pos)
            append(MoveRecord(u, m, x, y, d, a))
            pos += 15
        elif rid == 1:
            if end - pos < 5:
                r.fail(f"records[{k}]", "a 5-byte logout record",
                       f"the end of the message after {end - pos} bytes", at=pos)
            append(LogoutRecord(_USER.unpack_from(data, pos)[1]))
            pos += 5
        elif rid == 2:
            if ctx.numchar is None:
                r.fail(f"records[{k}].options", "the world's number of character options "
                       "(Context.numchar) to read a sprites record", "none given", at=pos)
            r.pos = pos + 1
            user = r.u32(f"records[{k}].user_id")
            r.count(ctx.numchar, 4, f"records[{k}].options", "option")
            options = list(r.array("i32", ctx.numchar, f"records[{k}].options"))
            equipped = list(r.array("u16", SLOTS, f"records[{k}].equipped"))
            name = r.cstr(f"records[{k}].name")
            append(SpritesRecord(user, options, equipped, name))
            pos = r.pos
        elif rid == 3:
            r.pos = pos + 1
            user = r.u32(f"records[{k}].user_id")
            stream = bytes(data[r.pos:end])
            inflated = inflate(stream, offset=r.offset, path=f"{r.path}.records[{k}].items",
                               limit=MAX_INVENTORY_BYTES)
            content = inflated.data
            if len(content) % 8:
                r.fail(f"records[{k}].items", "whole (quantity, object id) pairs of 8 bytes",
                       f"{len(content)} bytes inflated")
            flat = struct.unpack(f"<{len(content) // 4}I", content)
            items = [InventoryItem(flat[j], flat[j + 1]) for j in range(0, len(flat), 2)]
            compressed = stream[:inflated.consumed]
            append(InventoryRecord(user, items,
                                   Deflated.from_stream(compressed, content, inflated.container)))
            pos = r.pos + inflated.consumed
        elif rid == 4:
            if end - pos < _EQUIP.size:
                r.fail(f"records[{k}]", f"a {_EQUIP.size}-byte equipment record",
                       f"the end of the message after {end - pos} bytes", at=pos)
            v = _EQUIP.unpack_from(data, pos)
            append(EquipmentRecord(v[1], list(v[2:])))
            pos += _EQUIP.size
        else:
            r.fail(f"records[{k}].kind", "a record id from 0 to 4", str(rid), at=pos)
    r.pos = pos
    return out
