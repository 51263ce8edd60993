"""savecraft._native.records: record programs (see records.c for the field codes).
Use it through savecraft.compiled; savecraft.layout.native derives the programs."""

from typing import Any, NewType

VERSION: int

# A compiled record program (a capsule); only this module's functions take it.
Program = NewType("Program", object)

# A program: one field code per slot of cls (None where a code has no slot: C K ? ! ~ g), one
# argument per code: an int (a size, a limit), a Program (r n N), or a tuple (M S A K ? ! ~ P
# U E G g: programs, counts, limits, stop values, an attribute's name, a constant compared
# with, ~'s defaults).
def record_program(cls: type, slots: tuple[Any, ...], ops: str, args: tuple[Any, ...], /) -> Program: ...

# count records from pos (count < 0: those before `stop` in place of the first field; -2
# with `stop` an attribute's name: up to the first record whose attribute is true, that one
# included): (records, next pos), or None where the Python reader must take over.
def read_records(program: Program, data: bytes | bytearray | memoryview, pos: int, end: int,
                 count: int, stop: Any, /) -> tuple[list[Any], int] | None: ...

# The records' bytes, or None where the Python writer must take over (a record whose first
# field equals `stop` included).
def write_records(program: Program, records: list[Any], stop: Any = None, /) -> bytes | None: ...
