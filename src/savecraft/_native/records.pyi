"""savecraft._native.records: record programs and Angband object records (see records.c).
Use it through savecraft.compiled; savecraft.layout.native derives the programs."""

from typing import Any, NewType

VERSION: int

# A compiled record program (a capsule); only this module's functions take it.
Program = NewType("Program", object)

# The Item, Curse and ItemList classes object records are read into, each with its slot
# descriptors (Item's 37 in record order; Curse's power, timeout; ItemList's items, end).
def item_types(item: type, item_slots: tuple[Any, ...], curse: type, curse_slots: tuple[Any, ...],
               item_list: type, list_slots: tuple[Any, ...], /) -> None: ...

# One object record at pos, with the six sizes of the object memory block (of_size,
# obj_mod_max, brand_max, slay_max, curse_max, elem_max): (Item, next pos), or None
# where the Python reader must take over.
def read_item(data: bytes | bytearray | memoryview, pos: int, end: int, of_size: int,
              obj_mod_max: int, brand_max: int, slay_max: int, curse_max: int, elem_max: int,
              /) -> tuple[Any, int] | None: ...

# An Item back to its record's bytes, or None where the Python writer must take over.
def write_item(item: Any, of_size: int, obj_mod_max: int, brand_max: int, slay_max: int,
               curse_max: int, elem_max: int, /) -> bytes | None: ...

# A program: one field code per slot of cls (None for a C count), one argument per code
# (an int, or a Program for r/n/N), and the six object sizes the j/X codes read with.
def record_program(cls: type, slots: tuple[Any, ...], ops: str, args: tuple[Any, ...],
                   sizes: tuple[int, ...], /) -> Program: ...

# count records from pos (count < 0: those before `stop` in place of the first field):
# (records, next pos), or None where the Python reader must take over.
def read_records(program: Program, data: bytes | bytearray | memoryview, pos: int, end: int,
                 count: int, stop: Any, /) -> tuple[list[Any], int] | None: ...

# The records' bytes, or None where the Python writer must take over (a record whose first
# field equals `stop` included).
def write_records(program: Program, records: list[Any], stop: Any = None, /) -> bytes | None: ...
