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
from typing import Any, ClassVar

from ...binary import Reader, Writer, join_path
from ...compression import Deflated, inflate
from ...formats.tirnanog.save.model import InventoryItem
from ...layout import (
    I32,
    REST,
    U8,
    U16,
    U32,
    Array,
    Check,
    Const,
    CStr,
    Expr,
    Field,
    List,
    Range,
    Struct,
    Switch,
    Type,
)
from ...layout import Context as LayoutContext
from ...layout.compiler import Emitter
from .base import bad

SLOTS = 32
MAX_INVENTORY_BYTES = 1 << 20  # inflated inventory list cap: 131072 (quantity, object) pairs


def _id(value: int, name: str) -> Const:
    """The record's id byte, the first byte of every record (what the union is told by)."""
    return Const("id", U8, value, f"{value} (a {name} record)")


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
        return _encode(MOVE, self)


MOVE = Struct(MoveRecord, [_id(0, "movement"), Field("user_id", U32), Field("map_id", U32),
                           Field("x", U16), Field("y", U16), Field("direction", U8),
                           Field("altitude", U8)], name="move")
# The same bytes as one struct, for readers of many moves at once (the load test's bots): the
# description's fixed fields, after the id byte.
MOVE_RECORD = struct.Struct("<B" + "".join(m.type.code or "" for m in MOVE.members[1:]
                                            if isinstance(m, Field)))


@dataclass(slots=True)
class LogoutRecord:
    """1: a player left (logged out, or timed out)."""

    ID: ClassVar[int] = 1
    KIND: ClassVar[str] = "logout"  # the tag in JSON
    user_id: int = 0

    def encode(self) -> bytes:
        return _encode(LOGOUT, self)


LOGOUT = Struct(LogoutRecord, [_id(1, "logout"), Field("user_id", U32)], name="logout")


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
        return _encode(SPRITES, self)


SPRITES = Struct(SpritesRecord, [
    # Records are not length-prefixed: without the world's option count this one cannot be
    # delimited, so the message is refused where the record starts.
    Check("'numchar' in ctx.values", "options", "the world's number of character options "
          "(Context.numchar) to read a sprites record", "'none given'"),
    _id(2, "sprites"), Field("user_id", U32),
    # As many as the world has (the reader is given it); the writer writes the options it has.
    Field("options", Array(I32, Expr("ctx.values['numchar'] if 'numchar' in ctx.values else len(options)"))),
    Field("equipped", Array(U16, SLOTS)), Field("name", CStr()),
], name="sprites")


@dataclass(slots=True)
class InventoryRecord:
    """3: a player's inventory, a zlib stream of (u32 quantity, u32 object id) pairs.

    The one record not declared as a description: its items are a zlib stream that ends
    itself (so it tells where the next record starts), and its compressed bytes are kept
    (``encoding``) so that an unchanged record is sent again byte for byte. Its head is a
    description; the stream is read by :func:`_inventory_record` and written by :meth:`encode`.
    """

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
            for k, v in enumerate(flat):
                if not isinstance(v, int) or not 0 <= v <= 0xFFFFFFFF:
                    bad(f"update.inventory.items[{k // 2}]", "an integer from 0 to 4294967295 (u32)",
                        repr(v))
            raise

    def encode(self) -> bytes:
        head = _encode(_INVENTORY_HEAD, self)
        return head + self.encoding.compress(self.content())


@dataclass(slots=True)
class _Head:
    user_id: int = 0


_INVENTORY_HEAD = Struct(_Head, [_id(3, "inventory"), Field("user_id", U32)], name="inventory")


@dataclass(slots=True)
class EquipmentRecord:
    """4: the 32 equipped object sprites of a player."""

    ID: ClassVar[int] = 4
    KIND: ClassVar[str] = "equipment"  # the tag in JSON
    user_id: int = 0
    equipped: list[int] = field(default_factory=lambda: [0] * SLOTS)

    def encode(self) -> bytes:
        return _encode(EQUIPMENT, self)


EQUIPMENT = Struct(EquipmentRecord, [_id(4, "equipment"), Field("user_id", U32),
                                     Field("equipped", Array(U16, SLOTS))], name="equipment")


_NO_CONTEXT = LayoutContext()


def _encode(layout: Struct, record: Any) -> bytes:
    """A record's bytes from its description: fast, or checked (naming the bad field)."""
    return layout.pack(record, _NO_CONTEXT, f"update.{layout.name}")


@dataclass(slots=True)
class _UnknownRecord:
    """Not a record: what the union reads for an id no record has, to say so where it is."""

    id: int = 0


class _InventoryType(Type):
    """The inventory record as a member of the records list (see :class:`InventoryRecord`)."""

    cls = InventoryRecord
    min_size = 6

    def fast_read(self, e: Emitter, target: str) -> None:
        e.line("raise _Slow")  # rare: the checked reader reads it, with its zlib stream

    def checked_read(self, e: Emitter, target: str, name: str) -> None:
        e.line(f"{target} = {e.const(_inventory_record, 'inv')}(r, ctx, {name})")

    def fast_write(self, e: Emitter, value: str) -> None:
        e.line(f"ap({value}.encode())")

    def checked_write(self, e: Emitter, value: str, name: str) -> None:
        e.line(f"w.bytes({value}.encode(), {name})")


def _inventory_record(r: Reader, ctx: LayoutContext, name: str) -> InventoryRecord:
    head = _INVENTORY_HEAD.read(r, ctx, name)
    items_path = join_path(name, "items")
    inflated = inflate(bytes(r.data[r.pos:r.end]), offset=r.offset, path=join_path(r.path, items_path),
                       limit=MAX_INVENTORY_BYTES)
    content = inflated.data
    if len(content) % 8:
        r.fail(items_path, "whole (quantity, object id) pairs of 8 bytes", f"{len(content)} bytes inflated")
    stream = r.bytes(inflated.consumed, items_path)  # the stream ends itself: the next record follows
    flat = struct.unpack(f"<{len(content) // 4}I", content)
    items = [InventoryItem(flat[j], flat[j + 1]) for j in range(0, len(flat), 2)]
    return InventoryRecord(head.user_id, items, Deflated.from_stream(stream, content, inflated.container))


UpdateRecord = MoveRecord | LogoutRecord | SpritesRecord | InventoryRecord | EquipmentRecord
RECORD_TYPES: tuple[type, ...] = (MoveRecord, LogoutRecord, SpritesRecord, InventoryRecord,
                                  EquipmentRecord)
# The records of an update message, up to its end: a union told by the id byte each starts with.
RECORDS = List(Switch("", {0: MOVE, 1: LOGOUT, 2: SPRITES, 3: _InventoryType(), 4: EQUIPMENT},
                      peek=U8, default=Struct(_UnknownRecord, [
                          Field("id", U8, check=Range(0, 4, "a record id from 0 to 4"))], name="record")),
               REST)
