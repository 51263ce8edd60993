"""The vocabulary of record descriptions: what one value is stored as.

Each type knows how to emit four pieces of Python source for the compiler
(:mod:`.compiler`): a fast read over raw bytes, a checked read through a
:class:`~savecraft.binary.Reader` (located errors, byte spans), a fast write
that appends to a list of parts, and a checked write through a
:class:`~savecraft.binary.Writer` (located errors). Nothing here reads or
writes bytes itself: the description is data, and the code that moves bytes
is generated from it once per layout, as construct's ``compile()`` and
jsonmap's decoders are.

Conventions of the generated code (see :class:`.compiler.Emitter`):

- fast read: locals ``d`` (the buffer), ``pos``, ``end``, ``ctx``; anything
  unusual raises (``_Slow`` or the exception the operation raises) and the
  checked read runs instead from the same start;
- checked read: locals ``r`` (a Reader), ``ctx``, ``pre`` (the field path
  prefix: ``""`` or ``"items[3]."``), so a field's name is ``pre + 'tval'``;
- fast write: locals ``ap`` (append to the parts), ``ctx``;
- checked write: locals ``w`` (a Writer), ``ctx``, ``pre``.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..binary import int_range

if TYPE_CHECKING:
    from .compiler import Emitter

_CODES: dict[str, tuple[str, int]] = {
    "u8": ("B", 1), "i8": ("b", 1), "u16": ("H", 2), "i16": ("h", 2), "u32": ("I", 4),
    "i32": ("i", 4), "u64": ("Q", 8), "i64": ("q", 8),
}


# The vocabulary's classes are plain dataclasses: every layout module builds dozens of them at
# import, and frozen ones with slots cost twice as much to define (start-up is a goal).

# -- where a number comes from -------------------------------------------------------------


@dataclass
class Ref:
    """A value an earlier member of the same record read (a field or a stored count)."""

    name: str


@dataclass
class Ctx:
    """A value an earlier layout stored in the :class:`~.context.Context` (``block`` names it
    in the message when it is missing)."""

    name: str
    block: str = ""


@dataclass
class Expr:
    """A number computed from earlier values: Python over earlier fields and ``ctx``
    (``"total - first_random"``)."""

    source: str


@dataclass
class Prefix:
    """A count stored just before the values it counts; the writer writes the list's length.

    ``name``: the count's own field path (default ``<field>_count``). ``most``: the
    largest count the game accepts, with ``expected`` saying so in its words.
    """

    kind: Int
    name: str | None = None
    most: int | None = None
    expected: str | None = None
    bias: int = 0  # stored as the count plus this (a monster list stores one more than it holds)

    def fast_read(self, e: Emitter, n: str) -> None:
        self.kind.fast_read(e, n)
        if self.bias:
            e.line(f"if {n} < {self.bias}: raise _Slow")
            e.line(f"{n} -= {self.bias}")
        if self.most is not None:
            e.line(f"if {n} > {self.most}: raise _Slow")

    def fast_write(self, e: Emitter, value: str) -> None:
        if self.most is not None:
            e.line(f"if len({value}) > {self.most}: raise _Slow")
        self.kind.fast_write(e, f"len({value}) + {self.bias}" if self.bias else f"len({value})")

    def checked_read(self, e: Emitter, n: str, field: str) -> None:
        at = e.tmp("at")
        name = e.sibling(self.name or f"{field}_count")
        e.line(f"{at} = r.pos")
        self.kind.checked_read(e, n, name)
        if self.bias:
            e.line(f"if {n} < {self.bias}: raise NotCanonical(_j(r.path, {name}) + ' is ' + str({n})"
                   f" + ', which the game writes back as {self.bias}')")
            e.line(f"{n} -= {self.bias}")
        if self.most is not None:
            exp = self.expected or f"at most {self.most}"
            e.line(f"if {n} > {self.most}: r.fail({name}, {exp!r}, str({n}), at={at})")

    def checked_write(self, e: Emitter, value: str, field: str) -> None:
        name = e.sibling(self.name or f"{field}_count")
        if self.most is not None:
            exp = self.expected or f"at most {self.most}"
            e.line(f"if len({value}) > {self.most}: "
                   f"raise FormatError(None, _j(w.path, pre + {field!r}), {exp!r}, str(len({value})))")
        self.kind.checked_write(e, f"len({value}) + {self.bias}" if self.bias else f"len({value})", name)


@dataclass
class Rest:
    """The values fill the rest of the bounds being read (a message's body after its fixed
    fields, bounded by its length): nothing is stored for the count, and the writer writes
    every value the model has."""


REST = Rest()

@dataclass
class ToEnd:
    """As many whole elements of ``size`` bytes as the rest of the bounds holds; fewer bytes
    left over are the next member's (a section's trailing bytes). The writer writes every
    element the model has. (``REST``: values that fill the rest exactly.)"""

    size: int


Count = int | Ref | Ctx | Expr | Prefix | Rest | ToEnd


def to_end_refused(count: Any) -> Any:
    """A count that is an expression over ``left`` (the bytes left to read) would mean "to the
    end" with no writer able to compute it: that is said as ``REST`` or ``ToEnd(size)``."""
    if isinstance(count, Expr) and re.search(r"\bleft\b", count.source):
        raise TypeError(f"a count over 'left' ({count.source!r}) means 'to the end': say REST "
                        "(the values fill the rest exactly) or ToEnd(size) (whole elements)")
    return count


def count_fast(e: Emitter, count: Count) -> str:
    """Source of the count's value in a fast read or write (Prefix handled by the caller)."""
    if isinstance(count, int):
        return str(count)
    if isinstance(count, Ref):
        return e.local(count.name)
    if isinstance(count, Ctx):
        return f"ctx.values[{count.name!r}]"
    if isinstance(count, Expr):
        return f"({e.expr(count.source)})"
    if isinstance(count, ToEnd):
        return f"({e.left} // {count.size})"
    raise TypeError(count)  # Rest is handled by each type: it is no number known beforehand


def count_checked(e: Emitter, count: Count) -> str:
    """Source of the count's value in a checked read or write: a missing Context value
    raises LayoutError naming the block it comes from."""
    if isinstance(count, Ctx):
        return f"ctx.need({count.name!r}, {count.block!r})"
    return count_fast(e, count)


# -- types ----------------------------------------------------------------------------------


class Type:
    """What one value is stored as. ``code``: the struct code when the value is fixed in size
    and needs nothing but its bytes (so runs of them are read in one ``unpack_from``);
    ``width``: how many values that code unpacks to."""

    code: str | None = None
    width: int = 1
    min_size: int = 0

    def describe(self) -> str:
        return type(self).__name__

    # Values unpacked by ``code`` (the ``width`` of them, as source expressions) to the model's value.
    def from_flat(self, e: Emitter, flat: list[str]) -> str:
        return flat[0]

    def to_flat(self, e: Emitter, value: str) -> list[str]:
        """The source expressions ``code`` packs, from the model's value (a fast write)."""
        return [value]

    def check_flat(self, e: Emitter, value: str) -> None:
        """Fast-write checks that packing alone would not make (lengths of arrays)."""

    def fast_read(self, e: Emitter, target: str) -> None:
        size = struct.calcsize("<" + self.code) if self.code else 0
        st = e.struct(self.code or "")
        e.line(f"if pos + {size} > end: raise _Slow")
        if self.width == 1 and self.from_flat(e, ["_t[0]"]) == "_t[0]":
            e.line(f"{target} = {st}.unpack_from(d, pos)[0]")
        else:
            e.line(f"_t = {st}.unpack_from(d, pos)")
            e.line(f"{target} = {self.from_flat(e, [f'_t[{i}]' for i in range(self.width)])}")
        e.line(f"pos += {size}")

    def fast_write(self, e: Emitter, value: str) -> None:
        self.check_flat(e, value)
        e.line(f"ap({e.struct(self.code or '')}.pack({', '.join(self.to_flat(e, value))}))")

    def fixed_size(self) -> int | None:
        """The size of every value, when it is fixed and the fast reader takes any bytes."""
        return struct.calcsize("<" + self.code) if self.code is not None else None

    def fast_skip(self, e: Emitter) -> None:
        """Step over the value as the fast reader would read it (its checks kept), building
        nothing: by its size when that is fixed, otherwise by reading it."""
        size = self.fixed_size()
        if size is None:
            self.fast_read(e, e.tmp("skip"))
            return
        e.line(f"if pos + {size} > end: raise _Slow")
        e.line(f"pos += {size}")

    def checked_read(self, e: Emitter, target: str, name: str) -> None:
        raise NotImplementedError

    def checked_write(self, e: Emitter, value: str, name: str) -> None:
        raise NotImplementedError


class Int(Type):
    """A little-endian integer: ``u8 i8 u16 i16 u24 u32 i32 u64 i64``."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        if kind == "u24":
            self.code = None
            self.min_size = 3
        else:
            self.code, self.min_size = _CODES[kind]
        self.lo, self.hi = int_range(kind)

    def describe(self) -> str:
        return self.kind

    def fixed_size(self) -> int | None:
        return 3 if self.kind == "u24" else super().fixed_size()

    def fast_read(self, e: Emitter, target: str) -> None:
        if self.kind == "u24":
            e.line("if pos + 3 > end: raise _Slow")
            e.line(f"{target} = int.from_bytes(d[pos:pos + 3], 'little')")
            e.line("pos += 3")
        elif self.kind == "u8":
            e.line("if pos >= end: raise _Slow")
            e.line(f"{target} = d[pos]")
            e.line("pos += 1")
        else:
            super().fast_read(e, target)

    def fast_write(self, e: Emitter, value: str) -> None:
        if self.kind == "u24":
            e.line(f"ap({value}.to_bytes(3, 'little'))")
        else:
            super().fast_write(e, value)

    def checked_read(self, e: Emitter, target: str, name: str) -> None:
        e.line(f"{target} = r.{self.kind}({name})")

    def checked_write(self, e: Emitter, value: str, name: str) -> None:
        e.line(f"w.{self.kind}({value}, {name})")


U8, I8, U16, I16, U24, U32, I32, U64, I64 = (
    Int(k) for k in ("u8", "i8", "u16", "i16", "u24", "u32", "i32", "u64", "i64"))


class Bytes(Type):
    """``size`` bytes kept as they are (a fixed size, or one an earlier value gives)."""

    def __init__(self, size: int | Ref | Ctx | Expr | Rest) -> None:
        self.size = to_end_refused(size)
        if isinstance(size, int):
            self.code = f"{size}s"
            self.min_size = size

    def describe(self) -> str:
        return f"bytes[{self.size}]" if isinstance(self.size, int) else "bytes"

    def from_flat(self, e: Emitter, flat: list[str]) -> str:
        return flat[0]

    def check_flat(self, e: Emitter, value: str) -> None:
        e.line(f"if len({value}) != {self.size}: raise _Slow")

    def fast_read(self, e: Emitter, target: str) -> None:
        n = e.tmp("n")
        e.line(f"{n} = {'end - pos' if isinstance(self.size, Rest) else count_fast(e, self.size)}")
        e.line(f"if pos + {n} > end: raise _Slow")
        e.line(f"{target} = bytes(d[pos:pos + {n}])")
        e.line(f"pos += {n}")

    def fast_skip(self, e: Emitter) -> None:
        if isinstance(self.size, Rest):
            e.line("pos = end")
            return
        n = e.tmp("n")
        e.line(f"{n} = {count_fast(e, self.size)}")
        e.line(f"if {n} < 0 or pos + {n} > end: raise _Slow")
        e.line(f"pos += {n}")

    def fast_write(self, e: Emitter, value: str) -> None:
        if isinstance(self.size, Rest):
            e.line(f"if type({value}) is not bytes: raise _Slow")
        else:
            e.line(f"if type({value}) is not bytes or len({value}) != {count_fast(e, self.size)}: raise _Slow")
        e.line(f"ap({value})")

    def checked_read(self, e: Emitter, target: str, name: str) -> None:
        size = "r.end - r.pos" if isinstance(self.size, Rest) else count_checked(e, self.size)
        e.line(f"{target} = r.bytes({size}, {name})")

    def checked_write(self, e: Emitter, value: str, name: str) -> None:
        if isinstance(self.size, Rest):
            e.line(f"_check_bytes({value}, _j(w.path, {name}))")
        else:
            e.line(f"_check_len({value}, {count_checked(e, self.size)}, _j(w.path, {name}), 'bytes')")
        e.line(f"w.bytes({value}, {name})")


class EightBitText(str):
    """Text a game stored in its 8-bit encoding (bytes that are not UTF-8), shown decoded.

    An older game writes what the player typed, byte for byte: a Latin-1 ``\xe9`` in a
    name is "\u00e9" to the player. The same "\u00e9" may also be stored as UTF-8
    (``\xc3\xa9``), so the text alone cannot say which bytes to write back: this
    subclass remembers the encoding the bytes were read in (``encoding``), and a
    :class:`CStr` writes it back in that encoding, so the round trip is byte for byte.
    A plain ``str`` is written as UTF-8.
    """

    encoding: str

    def __new__(cls, text: str, encoding: str) -> EightBitText:
        self = super().__new__(cls, text)
        self.encoding = encoding
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (EightBitText, (str(self), self.encoding))


class CStr(Type):
    """A NUL-terminated string of at most ``most`` bytes before the NUL (the game's buffer).

    ``encoding``: the game's own. Bytes that do not decode are an error of the
    file (found: the byte); a game that stores 8-bit text declares its 8-bit
    encoding, so its text round-trips byte for byte.

    ``eight_bit``: for a game whose text is UTF-8 but whose files may hold text an older
    release (or the player's terminal) wrote in an 8-bit encoding: bytes that are not
    valid in ``encoding`` are read in ``eight_bit`` instead, as an :class:`EightBitText`
    that is written back in it. Valid text stays a plain ``str``, read and written as
    before (so a layout stays ``exact``: each of the two readings has one writing).
    """

    min_size = 1

    def __init__(self, most: int | None = None, encoding: str = "utf-8",
                 eight_bit: str | None = None) -> None:
        self.most = most
        self.encoding = encoding
        self.eight_bit = eight_bit

    def describe(self) -> str:
        return f"string (at most {self.most} bytes)" if self.most is not None else "string"

    def fast_read(self, e: Emitter, target: str) -> None:
        # Bytes that do not decode raise UnicodeDecodeError (a ValueError): the checked
        # reader then reads them, in ``eight_bit`` where the layout declares one.
        n = e.tmp("nul")
        e.line(f"{n} = d.find(b'\\0', pos, end)")
        limit = f" or {n} - pos > {self.most}" if self.most is not None else ""
        e.line(f"if {n} < 0{limit}: raise _Slow")
        e.line(f"{target} = d[pos:{n}].decode({self.encoding!r})")
        e.line(f"pos = {n} + 1")

    def fast_write(self, e: Emitter, value: str) -> None:
        raw = e.tmp("raw")
        if self.eight_bit is not None:  # 8-bit text is written by the checked writer
            e.line(f"if type({value}) is not str: raise _Slow")
        e.line(f"{raw} = {value}.encode({self.encoding!r})")
        limit = f"len({raw}) > {self.most} or " if self.most is not None else ""
        e.line(f"if {limit}b'\\0' in {raw}: raise _Slow")
        e.line(f"ap({raw})")
        e.line("ap(b'\\0')")

    def checked_read(self, e: Emitter, target: str, name: str) -> None:
        e.line(f"{target} = _read_cstr(r, {name}, {self.most!r}, {self.encoding!r}, {self.eight_bit!r})")

    def checked_write(self, e: Emitter, value: str, name: str) -> None:
        e.line(f"_write_cstr(w, {value}, {name}, {self.most!r}, {self.encoding!r}, {self.eight_bit!r})")


class Array(Type):
    """Numbers of one kind, as a list: a fixed count, or one from an earlier value, the
    Context or a prefix."""

    def __init__(self, kind: Int, count: Count, *, as_bytes: bool = False) -> None:
        assert kind.code is not None, "arrays of u24 are not supported"
        self.kind = kind
        self.count = to_end_refused(count)
        self.as_bytes = as_bytes
        if isinstance(count, int):
            self.code = f"{count}{kind.code}"
            self.width = count
            self.min_size = count * kind.min_size
        elif isinstance(count, Prefix):
            self.min_size = count.kind.min_size

    def describe(self) -> str:
        return f"{self.kind.kind}[{self.count if isinstance(self.count, int) else ''}]"

    def _make(self, seq: str) -> str:
        return f"bytes({seq})" if self.as_bytes else f"list({seq})"

    def from_flat(self, e: Emitter, flat: list[str]) -> str:
        if not flat:
            return "b''" if self.as_bytes else "[]"
        first = flat[0]
        try:  # flat[i] is "_t[k]": take the slice of the unpacked tuple in one step
            k = int(first[first.index("[") + 1:-1])
        except ValueError:
            return self._make("(" + ", ".join(flat) + ",)")
        return self._make(f"{first[:first.index('[')]}[{k}:{k + len(flat)}]")

    def to_flat(self, e: Emitter, value: str) -> list[str]:
        return [f"*{value}"]

    def check_flat(self, e: Emitter, value: str) -> None:
        e.line(f"if len({value}) != {self.count}: raise _Slow")

    def fast_read(self, e: Emitter, target: str) -> None:
        n = e.tmp("n")
        size = self.kind.min_size
        if isinstance(self.count, Prefix):
            self.count.fast_read(e, n)
        elif isinstance(self.count, Rest):
            if size == 1:
                e.line(f"{n} = end - pos")
            else:
                e.line(f"if (end - pos) % {size}: raise _Slow")
                e.line(f"{n} = (end - pos) // {size}")
        else:
            e.line(f"{n} = {count_fast(e, self.count)}")
        if not isinstance(self.count, Rest):
            e.line(f"if {n} < 0 or pos + {n} * {size} > end: raise _Slow")
        if self.kind.code == "B":  # bytes are already the numbers: a slice
            e.line(f"{target} = {self._make(f'd[pos:pos + {n}]')}")
        else:
            e.line(f"{target} = {self._make(f'_cs({self.kind.code!r}, {n}).unpack_from(d, pos)')}")
        e.line(f"pos += {n} * {size}")

    def fast_skip(self, e: Emitter) -> None:
        n = e.tmp("n")
        size = self.kind.min_size
        if isinstance(self.count, Rest):  # whole values to the end, as the reader takes them
            if size > 1:
                e.line(f"if (end - pos) % {size}: raise _Slow")
            e.line("pos = end")
            return
        if isinstance(self.count, Prefix):
            self.count.fast_read(e, n)
        else:
            e.line(f"{n} = {count_fast(e, self.count)}")
        e.line(f"if {n} < 0 or pos + {n} * {size} > end: raise _Slow")
        e.line(f"pos += {n} * {size}")

    def fast_write(self, e: Emitter, value: str) -> None:
        if isinstance(self.count, Prefix):
            self.count.fast_write(e, value)
        elif not (isinstance(self.count, Rest)):
            e.line(f"if len({value}) != {count_fast(e, self.count)}: raise _Slow")
        if self.kind.code == "B":  # bytes() refuses a number past 255 (ValueError): checked path
            e.line(f"ap(bytes({value}))")
        else:
            e.line(f"ap(_cs({self.kind.code!r}, len({value})).pack(*{value}))")

    def checked_read(self, e: Emitter, target: str, name: str) -> None:
        n = e.tmp("n")
        if isinstance(self.count, Prefix):
            self.count.checked_read(e, n, e.field)
        elif isinstance(self.count, Rest):
            size = self.kind.min_size
            e.line(f"if (r.end - r.pos) % {size}: r.fail({name}, "
                   f"{f'a whole number of {self.kind.kind} values'!r}, str(r.end - r.pos) + ' bytes')")
            e.line(f"{n} = (r.end - r.pos) // {size}")
        else:
            e.line(f"{n} = {count_checked(e, self.count)}")
        e.line(f"{target} = {self._make(f'r.array({self.kind.kind!r}, {n}, {name})')}")

    def checked_write(self, e: Emitter, value: str, name: str) -> None:
        if isinstance(self.count, Prefix):
            self.count.checked_write(e, value, e.field)
        elif not (isinstance(self.count, Rest)):
            e.line(f"_check_len({value}, {count_checked(e, self.count)}, _j(w.path, {name}), 'entries')")
        e.line(f"w.array({self.kind.kind!r}, list({value}), {name})")


class Tuple(Type):
    """A few fixed numbers kept together as a tuple (a pair of a level and its flags)."""

    def __init__(self, *parts: tuple[str, Int], sibling: bool = False) -> None:
        self.parts = parts
        # True: the parts are named beside the field, as the record's own (an asset descriptor's
        # offset and length next to the asset they point to, whose path names the asset's bytes).
        self.sibling = sibling
        self.code = "".join(k.code or "" for _, k in parts)
        self.width = len(parts)
        self.min_size = sum(k.min_size for _, k in parts)

    def from_flat(self, e: Emitter, flat: list[str]) -> str:
        return "(" + ", ".join(flat) + ",)"

    def to_flat(self, e: Emitter, value: str) -> list[str]:
        return [f"*{value}"]

    def check_flat(self, e: Emitter, value: str) -> None:
        e.line(f"if len({value}) != {self.width}: raise _Slow")

    def checked_read(self, e: Emitter, target: str, name: str) -> None:
        names = [e.tmp("p") for _ in self.parts]
        for (pname, kind), tmp in zip(self.parts, names):
            kind.checked_read(e, tmp, self._part(e, name, pname))
        e.line(f"{target} = ({', '.join(names)},)")

    def checked_write(self, e: Emitter, value: str, name: str) -> None:
        e.line(f"_check_len({value}, {self.width}, _j(w.path, {name}), 'values')")
        for i, (pname, kind) in enumerate(self.parts):
            kind.checked_write(e, f"{value}[{i}]", self._part(e, name, pname))

    def _part(self, e: Emitter, name: str, part: str) -> str:
        return e.sibling(part) if self.sibling else f"{name} + '.{part}'"


class Optional(Type):
    """A "has ..." flag, then the value when it is set (None when not).

    The game reads any non-zero flag as set and writes 1, so a flag above 1
    would not survive a rebuild: the read refuses it (NotCanonical)."""

    def __init__(self, flag: Int, inner: Type, flag_name: str | None = None) -> None:
        self.flag = flag
        self.inner = inner
        self.flag_name = flag_name
        self.min_size = flag.min_size

    def _fname(self, e: Emitter) -> str:
        return e.sibling(self.flag_name or f"has_{e.field}")

    def fast_read(self, e: Emitter, target: str) -> None:
        f = e.tmp("f")
        self.flag.fast_read(e, f)
        e.line(f"if {f} > 1: raise _Slow")
        e.line(f"if {f}:")
        with e.indented():
            self.inner.fast_read(e, target)
        e.line("else:")
        e.line(f"    {target} = None")

    def fast_write(self, e: Emitter, value: str) -> None:
        e.line(f"if {value} is None:")
        with e.indented():
            self.flag.fast_write(e, "0")
        e.line("else:")
        with e.indented():
            self.flag.fast_write(e, "1")
            self.inner.fast_write(e, value)

    def checked_read(self, e: Emitter, target: str, name: str) -> None:
        f = e.tmp("f")
        self.flag.checked_read(e, f, self._fname(e))
        e.line(f"if {f} > 1: raise NotCanonical(_j(r.path, {self._fname(e)}) + ' is ' + str({f})"
               " + ', which the game writes back as 1')")
        e.line(f"if {f}:")
        with e.indented():
            self.inner.checked_read(e, target, name)
        e.line("else:")
        e.line(f"    {target} = None")

    def checked_write(self, e: Emitter, value: str, name: str) -> None:
        self.flag.checked_write(e, f"int({value} is not None)", self._fname(e))
        e.line(f"if {value} is not None:")
        with e.indented():
            self.inner.checked_write(e, value, name)


class List(Type):
    """Records (or tuples) one after another: a fixed count, or one from an earlier value,
    the Context or a prefix."""

    def __init__(self, elem: Type, count: Count, *, index: str | None = None) -> None:
        self.elem = elem
        self.count = to_end_refused(count)
        # The Context name each element's index is set under while it is read or written (a
        # store whose layout depends on which store it is).
        self.index = index
        if isinstance(count, Prefix):
            self.min_size = count.kind.min_size
        elif isinstance(count, int):
            self.min_size = count * elem.min_size

    def describe(self) -> str:
        return f"list of {self.elem.describe()}"

    def _rest_read(self, e: Emitter, target: str, fast: bool, name: str = "") -> None:
        """Elements until the bounds end (``Rest``): each element says where it ends."""
        lst, x = e.tmp("lst"), e.tmp("x")
        e.line(f"{lst} = []")
        if fast:
            e.line("while pos < end:")
            with e.indented():
                if e.is_record(self.elem):
                    e.line(f"{x}, pos = {e.fast_reader(self.elem)}(d, pos, end, ctx)")
                else:
                    self.elem.fast_read(e, x)
                e.line(f"{lst}.append({x})")
        else:
            e.line("while r.pos < r.end:")
            with e.indented():
                e.element_read(self.elem, lst, f"{name} + '[' + str(len({lst})) + ']'")
        e.line(f"{target} = {lst}")

    def _fast_count(self, e: Emitter, n: str) -> None:
        if isinstance(self.count, Prefix):
            self.count.fast_read(e, n)
        else:
            e.line(f"{n} = {count_fast(e, self.count)}")
        e.line(f"if {n} < 0 or pos + {n} * {max(self.elem.min_size, 1)} > end: raise _Slow")

    def _rest_count(self) -> int | None:
        """The element size when the list fills the rest of the bounds with fixed records: its
        count is then known before reading (one unpack, not a record at a time)."""
        if isinstance(self.count, Rest) and self.elem.code is not None and self.index is None:
            return struct.calcsize("<" + self.elem.code)
        return None

    def fast_read(self, e: Emitter, target: str) -> None:
        size = self._rest_count()
        if isinstance(self.count, Rest) and size is None:
            self._rest_read(e, target, True)
            return
        n = e.tmp("n")
        if size is not None:
            e.line(f"if (end - pos) % {size}: raise _Slow")
            e.line(f"{n} = (end - pos) // {size}")
        else:
            self._fast_count(e, n)
        if self.elem.code is not None and self.index is None:  # fixed: one unpack for the list
            size = struct.calcsize("<" + self.elem.code)
            flat = e.tmp("flat")
            e.line(f"{flat} = _cs({self.elem.code!r}, {n}).unpack_from(d, pos)")
            e.line(f"pos += {n} * {size}")
            k = self.elem.width
            if isinstance(self.elem, Tuple):
                e.line(f"{target} = list(zip(*[iter({flat})] * {k})) if {n} else []")
            else:
                x = e.tmp("x")
                item = self.elem.from_flat(e, [f"{flat}[{x} + {j}]" for j in range(k)])
                e.line(f"{target} = [{item} for {x} in range(0, {n} * {k}, {k})]")
            return
        lst, x = e.tmp("lst"), e.tmp("x")
        native = e.native_lists(self.elem) if self.index is None else None
        if native is not None:
            got = e.tmp("got")
            e.line(f"{got} = {native[0]}(d, pos, end, ctx, {n})")
            e.line(f"if {got} is not None:")
            e.line(f"    {lst}, pos = {got}")
            e.line("else:")
            e.depth += 1
        e.line(f"{lst} = []")
        e.line(f"for _i in range({n}):")
        with e.indented():
            if self.index is not None:
                e.line(f"ctx.values[{self.index!r}] = _i")
            if e.is_record(self.elem):
                e.line(f"{x}, pos = {e.fast_reader(self.elem)}(d, pos, end, ctx)")
            else:
                self.elem.fast_read(e, x)
            e.line(f"{lst}.append({x})")
        if native is not None:
            e.depth -= 1
        e.line(f"{target} = {lst}")

    def fast_skip(self, e: Emitter) -> None:
        size = self.elem.fixed_size()
        rest = self._rest_count()
        if rest is not None:  # fixed records to the end: whole ones, as the reader takes them
            e.line(f"if (end - pos) % {rest}: raise _Slow")
            e.line("pos = end")
            return
        if self.index is not None or isinstance(self.count, Rest) or \
                (size is None and not e.is_record(self.elem)):
            self.fast_read(e, e.tmp("skip"))
            return
        n = e.tmp("n")
        self._fast_count(e, n)  # (checks the bytes are there for elements of the least size)
        if size is not None:
            if size > max(self.elem.min_size, 1):
                e.line(f"if pos + {n} * {size} > end: raise _Slow")
            e.line(f"pos += {n} * {size}")
            return
        e.line(f"for _i in range({n}):")
        e.line(f"    pos = {e.skipper(self.elem)}(d, pos, end, ctx)")

    def fast_write(self, e: Emitter, value: str) -> None:
        if isinstance(self.count, Prefix):
            self.count.fast_write(e, value)
        elif not (isinstance(self.count, Rest | ToEnd)):
            e.line(f"if len({value}) != {count_fast(e, self.count)}: raise _Slow")
        x = e.tmp("x")
        native = e.native_lists(self.elem) if self.index is None else None
        if native is not None:
            raw = e.tmp("raw")
            e.line(f"{raw} = {native[1]}({value}, ctx)")
            e.line(f"if {raw} is not None:")
            e.line(f"    ap({raw})")
            e.line("else:")
            e.depth += 1
        e.line(f"for _i, {x} in enumerate({value}):")
        with e.indented():
            if self.index is not None:
                e.line(f"ctx.values[{self.index!r}] = _i")
            if e.is_record(self.elem) and self.elem.code is None:
                e.line(f"{e.fast_writer(self.elem)}({x}, ap, ctx)")
            else:
                self.elem.fast_write(e, x)
        if native is not None:
            e.depth -= 1

    def checked_read(self, e: Emitter, target: str, name: str) -> None:
        size = self._rest_count()
        if isinstance(self.count, Rest) and size is None:
            self._rest_read(e, target, False, name)
            return
        n, lst, i = e.tmp("n"), e.tmp("lst"), e.tmp("i")
        if size is not None:
            e.line(f"if (r.end - r.pos) % {size}: r.fail({name}, "
                   f"{f'whole {self.elem.describe()} records of {size} bytes'!r}, "
                   "str(r.end - r.pos) + ' bytes')")
            e.line(f"{n} = (r.end - r.pos) // {size}")
        elif isinstance(self.count, Prefix):
            self.count.checked_read(e, n, e.field)
        else:
            e.line(f"{n} = {count_checked(e, self.count)}")
        e.line(f"r.count({n}, {max(self.elem.min_size, 1)}, {name})")
        # the whole list's span (an empty one too), before its elements' spans, as arrays have
        s, st = e.tmp("s"), e.tmp("st")
        e.line(f"{s} = _open(r)")
        e.line(f"{st} = r.pos")
        fields = e.span_fields(self.elem) if self.index is None else None
        if fields is not None and self.elem.code is not None:
            # records of fixed values that no check refuses: one unpack, and their spans (each
            # element's, then each field's) noted in one loop
            size = struct.calcsize("<" + self.elem.code)
            k, flat, x = self.elem.width, e.tmp("flat"), e.tmp("x")
            e.line(f"{flat} = _cs({self.elem.code!r}, {n}).unpack_from(r.data, r.pos)")
            item = self.elem.from_flat(e, [f"{flat}[{x} + {j}]" for j in range(k)])
            e.line(f"{target} = [{item} for {x} in range(0, {n} * {k}, {k})]")
            e.line(f"_note_items(r, {n}, {size}, {e.const(fields, 'fields')}, {name})")
            e.line(f"r.pos += {n} * {size}")
            e.line(f"_close(r, {s}, {st}, {name})")
            return
        e.line(f"{lst} = []")
        e.line("try:")
        with e.indented():
            e.line(f"for {i} in range({n}):")
            with e.indented():
                if self.index is not None:
                    e.line(f"ctx.values[{self.index!r}] = {i}")
                e.element_read(self.elem, lst, f"{name} + '[' + str({i}) + ']'")
        e.line("finally:")
        e.line(f"    _close(r, {s}, {st}, {name})")
        e.line(f"{target} = {lst}")

    def checked_write(self, e: Emitter, value: str, name: str) -> None:
        if isinstance(self.count, Prefix):
            self.count.checked_write(e, value, e.field)
        elif not (isinstance(self.count, Rest | ToEnd)):
            e.line(f"_check_len({value}, {count_checked(e, self.count)}, _j(w.path, {name}), 'entries')")
        i, x = e.tmp("i"), e.tmp("x")
        e.line(f"for {i}, {x} in enumerate({value}):")
        with e.indented():
            if self.index is not None:
                e.line(f"ctx.values[{self.index!r}] = {i}")
            e.element_write(self.elem, x, f"{name} + '[' + str({i}) + ']'")


class Switch(Type):
    """One of several layouts: a tagged union. The tag is ``expr`` (Python over earlier fields,
    ``ctx`` and ``left``), or with ``peek`` the value that type reads next (not consumed: the
    chosen layout reads it again, as a record's first field). ``default``: the layout for every
    other tag. A writer whose cases are all records picks the case by the model's class."""

    def __init__(self, expr: str, cases: dict[Any, Type], *, default: Type | None = None,
                 peek: Type | None = None) -> None:
        self.expr = expr
        self.cases = cases
        self.default = default
        self.peek = peek
        every = [*cases.values(), *([default] if default is not None else [])]
        self.min_size = min((t.min_size for t in every), default=0)
        self._every = every

    def _dispatch(self, e: Emitter, tag: str, emit: Callable[[Type], None]) -> None:
        for k, (value, t) in enumerate(self.cases.items()):
            e.line(f"{'if' if k == 0 else 'elif'} {tag} == {e.const(value, 'case')}:")
            with e.indented():
                emit(t)
        e.line("else:")
        with e.indented():
            if self.default is not None:
                emit(self.default)
            else:
                e.line(f"raise LayoutError('no layout for ' + repr({tag}))")

    def _by_class(self, e: Emitter, value: str, emit: Callable[[Type], None], fast: bool = False) -> bool:
        classes = [getattr(t, "cls", None) for t in self._every]
        if None in classes or len(set(classes)) != len(classes):
            return False
        for k, t in enumerate(self._every):
            e.line(f"{'if' if k == 0 else 'elif'} type({value}) is {e.const(t.cls, 'cls')}:")  # type: ignore[attr-defined]
            with e.indented():
                emit(t)
        e.line("else:")
        if fast:
            e.line("    raise _Slow")
        else:
            e.line(f"    raise FormatError(None, _j(w.path, pre), 'one of the record types', "
                   f"type({value}).__name__)")
        return True

    def fast_read(self, e: Emitter, target: str) -> None:
        tag = e.tmp("tag")
        if self.peek is not None:
            keep = e.tmp("keep")
            e.line(f"{keep} = pos")
            self.peek.fast_read(e, tag)
            e.line(f"pos = {keep}")
        else:
            e.line(f"{tag} = {e.expr(self.expr)}")
        self._dispatch(e, tag, lambda t: t.fast_read(e, target))

    def checked_read(self, e: Emitter, target: str, name: str) -> None:
        tag = e.tmp("tag")
        if self.peek is not None:
            e.line(f"{tag} = _peek(r, {e.const(self.peek, 'peek')})")
        else:
            e.line(f"{tag} = {e.expr(self.expr)}")
        self._dispatch(e, tag, lambda t: t.checked_read(e, target, name))

    def fast_write(self, e: Emitter, value: str) -> None:
        if not self._by_class(e, value, lambda t: t.fast_write(e, value), fast=True):
            tag = e.tmp("tag")
            e.line(f"{tag} = {e.expr(self.expr)}")
            self._dispatch(e, tag, lambda t: t.fast_write(e, value))

    def checked_write(self, e: Emitter, value: str, name: str) -> None:
        if not self._by_class(e, value, lambda t: t.checked_write(e, value, name)):
            tag = e.tmp("tag")
            e.line(f"{tag} = {e.expr(self.expr)}")
            self._dispatch(e, tag, lambda t: t.checked_write(e, value, name))


class Until(Type):
    """Records until a stored value in place of the first field ends the list (a name that is
    empty, a slot byte of 0xFF). The end value is read under ``end``."""

    def __init__(self, elem: Type, first: Type, stop: Any, end: str = "end") -> None:
        self.elem = elem
        self.first = first
        self.stop = stop
        self.end = end
        self.min_size = first.min_size

    def fast_read(self, e: Emitter, target: str) -> None:
        lst, x, s, at = e.tmp("lst"), e.tmp("x"), e.tmp("s"), e.tmp("at")
        fn = e.fast_reader(self.elem)
        stop = e.const(self.stop, "stop")
        native = e.native_lists(self.elem)
        if native is not None:
            got = e.tmp("got")
            e.line(f"{got} = {native[0]}(d, pos, end, ctx, -1, {stop})")
            e.line(f"if {got} is not None:")
            e.line(f"    {lst}, pos = {got}")
            e.line("else:")
            e.depth += 1
        e.line(f"{lst} = []")
        e.line("while True:")
        with e.indented():
            e.line(f"{at} = pos")
            self.first.fast_read(e, s)
            e.line(f"if {s} == {stop}: break")
            e.line(f"{x}, pos = {fn}(d, {at}, end, ctx)")
            e.line(f"{lst}.append({x})")
        if native is not None:
            e.depth -= 1
        e.line(f"{target} = {lst}")

    def fast_write(self, e: Emitter, value: str) -> None:
        x = e.tmp("x")
        stop = e.const(self.stop, "stop")
        first = e.first_field(self.elem)
        native = e.native_lists(self.elem)
        if native is not None:
            raw = e.tmp("raw")
            e.line(f"{raw} = {native[1]}({value}, ctx, {stop})")
            e.line(f"if {raw} is not None:")
            e.line(f"    ap({raw})")
            e.line("else:")
            e.depth += 1
        e.line(f"for {x} in {value}:")
        with e.indented():
            if first:
                e.line(f"if {x}.{first} == {stop}: raise _Slow")
            e.line(f"{e.fast_writer(self.elem)}({x}, ap, ctx)")
        if native is not None:
            e.depth -= 1
        self.first.fast_write(e, stop)

    def checked_read(self, e: Emitter, target: str, name: str) -> None:
        lst, s, at = e.tmp("lst"), e.tmp("s"), e.tmp("at")
        stop = e.const(self.stop, "stop")
        # the whole list's span (its end marker included), before its elements', as lists have
        whole, st = e.tmp("whole"), e.tmp("st")
        e.line(f"{whole} = _open(r)")
        e.line(f"{st} = r.pos")
        e.line(f"{lst} = []")
        e.line("try:")
        with e.indented():
            e.line("while True:")
            with e.indented():
                e.line(f"{at} = r.pos")
                e.line(f"{s} = _peek(r, {e.const(self.first, 'first')})")
                e.line(f"if {s} == {stop}:")
                with e.indented():
                    self.first.checked_read(e, s, e.sibling(self.end))
                    e.line("break")
                e.element_read(self.elem, lst, f"{name} + '[' + str(len({lst})) + ']'")
        e.line("finally:")
        e.line(f"    _close(r, {whole}, {st}, {name})")
        e.line(f"{target} = {lst}")

    def checked_write(self, e: Emitter, value: str, name: str) -> None:
        i, x = e.tmp("i"), e.tmp("x")
        stop = e.const(self.stop, "stop")
        first = e.first_field(self.elem)
        e.line(f"for {i}, {x} in enumerate({value}):")
        with e.indented():
            if first:
                e.line(f"if {x}.{first} == {stop}: raise FormatError(None, _j(w.path, {name} + '[' + "
                       f"str({i}) + '].{first}'), 'a value other than ' + repr({stop}) + "
                       "' (which ends the list)', repr(" + stop + "))")
            e.element_write(self.elem, x, f"{name} + '[' + str({i}) + ']'")
        self.first.checked_write(e, stop, e.sibling(self.end))


class Adapt(Type):
    """A stored type seen as another model value (pairs as a dict).

    ``decode`` may raise ValueError with what was found: the checked read
    reports it at the value's start, with ``expected``. ``total``: ``decode`` takes every
    value (text in an 8-bit encoding), so a skim steps over the stored value by its size.

    With ``ctx=True`` the functions also get the Context and where the value
    is, for values only the format's context can resolve (an index into
    another section, an asset a descriptor points to, a script to
    disassemble): ``decode(raw, ctx, where)`` with ``where`` None on the fast
    path and ``(offset, path)`` on the checked one (a decoder that would
    report a problem raises ValueError without a place, and the checked path
    runs), and ``encode(value, ctx, path)`` likewise (None, or the path).
    ``decode=None``: the stored value is the model's (only the writer adapts).
    """

    def __init__(self, inner: Type, decode: Callable[..., Any] | None, encode: Callable[..., Any],
                 expected: str, *, ctx: bool = False, total: bool = False) -> None:
        self.inner = inner
        self.decode = decode
        self.encode = encode
        self.expected = expected
        self.ctx = ctx
        self.total = total
        self.min_size = inner.min_size
        if total and inner.code is not None and inner.width == 1:  # joins runs of fixed fields
            self.code = inner.code

    def fixed_size(self) -> int | None:
        return self.inner.fixed_size() if self.total else None

    def from_flat(self, e: Emitter, flat: list[str]) -> str:
        return f"{e.const(self.decode, 'dec')}({self.inner.from_flat(e, flat)})"

    def to_flat(self, e: Emitter, value: str) -> list[str]:
        v = f"{e.const(self.encode, 'enc')}({value})"
        if isinstance(self.inner, Bytes):  # packing would pad or cut bytes of another length
            v = f"_exact({v}, {self.inner.size})"
        return self.inner.to_flat(e, v)

    def describe(self) -> str:
        return self.inner.describe()

    def fast_read(self, e: Emitter, target: str) -> None:
        self.inner.fast_read(e, target)
        if self.decode is not None:
            extra = ", ctx, None" if self.ctx else ""
            e.line(f"{target} = {e.const(self.decode, 'dec')}({target}{extra})")

    def fast_write(self, e: Emitter, value: str) -> None:
        v = e.tmp("v")
        extra = ", ctx, None" if self.ctx else ""
        e.line(f"{v} = {e.const(self.encode, 'enc')}({value}{extra})")
        self.inner.fast_write(e, v)

    def checked_read(self, e: Emitter, target: str, name: str) -> None:
        if self.decode is None:
            self.inner.checked_read(e, target, name)
            return
        at, raw = e.tmp("at"), e.tmp("raw")
        e.line(f"{at} = r.pos")
        self.inner.checked_read(e, raw, name)
        extra = f", ctx, (r.base + {at}, _j(r.path, {name}))" if self.ctx else ""
        e.line("try:")
        e.line(f"    {target} = {e.const(self.decode, 'dec')}({raw}{extra})")
        e.line("except ValueError as _exc:")
        e.line(f"    r.fail({name}, {self.expected!r}, str(_exc), at={at})")

    def checked_write(self, e: Emitter, value: str, name: str) -> None:
        v = e.tmp("v")
        extra = f", ctx, _j(w.path, {name})" if self.ctx else ""
        e.line("try:")
        e.line(f"    {v} = {e.const(self.encode, 'enc')}({value}{extra})")
        e.line("except FormatError:")
        e.line("    raise")
        e.line("except (ValueError, TypeError, AttributeError) as _exc:")
        e.line(f"    raise FormatError(None, _j(w.path, {name}), {self.expected!r}, str(_exc)) from None")
        self.inner.checked_write(e, v, name)


class Custom(Type):
    """Bytes whose extent only the format's own code can find (a run-length map that ends when
    its runs cover the level): ``read(reader, arg, name) -> bytes`` reads them (raising
    FormatError where they are wrong) and ``check(value, arg, path)`` refuses a value the game
    would not read back. ``arg``: Python over earlier fields (``"height * width"``)."""

    def __init__(self, read: Callable[[Any, Any, str], bytes], check: Callable[[bytes, Any, str], None],
                 arg: str = "None") -> None:
        self.read = read
        self.check = check
        self.arg = arg

    def fast_read(self, e: Emitter, target: str) -> None:
        rd = e.tmp("rd")
        e.line(f"{rd} = _Reader(d, pos, end)")
        e.line(f"{target} = {e.const(self.read, 'rd')}({rd}, {e.expr(self.arg)}, '')")
        e.line(f"pos = {rd}.pos")

    def fast_write(self, e: Emitter, value: str) -> None:
        e.line(f"{e.const(self.check, 'chk')}({value}, {e.expr(self.arg)}, '')")
        e.line(f"ap(bytes({value}))")

    def checked_read(self, e: Emitter, target: str, name: str) -> None:
        e.line(f"{target} = {e.const(self.read, 'rd')}(r, {e.expr(self.arg)}, {name})")

    def checked_write(self, e: Emitter, value: str, name: str) -> None:
        e.line(f"{e.const(self.check, 'chk')}({value}, {e.expr(self.arg)}, _j(w.path, {name}))")
        e.line(f"w.bytes({value}, {name})")


# -- members of a record ---------------------------------------------------------------------


@dataclass
class Range:
    """A check the game makes: the value within ``lo``..``hi``; ``expected`` in the game's words."""

    lo: int
    hi: int
    expected: str


@dataclass
class Field:
    """A model field: its name (the model's attribute and the path), how it is stored, the
    check the game makes on it, and the Context name the value is exported under."""

    name: str
    type: Type
    check: Range | None = None
    export: str | None = None


@dataclass
class Len:
    """A stored count of the lists ``of`` (all the same length), not a model field: the
    reader passes it to them (``Ref(name)``), the writer derives it from their length."""

    name: str
    kind: Int
    of: Sequence[str]
    most: int | None = None
    expected: str | None = None


@dataclass
class Stored:
    """A stored value that is not a model field: the reader keeps it for later members
    (``Ref(name)``, expressions, :class:`Computed` fields), the writer stores ``write``
    (Python over the fields). Usually a number; any fixed type (a packed word whose bits
    are two model fields)."""

    name: str
    kind: Type
    write: str


@dataclass
class Const:
    """A stored value the game requires (a marker, reserved bytes): read and checked,
    written as ``value``; not a model field."""

    name: str
    type: Type
    value: Any
    expected: str
    # True: the game reads other values too (any non-zero "more" flag) but writes ``value``, so
    # another value is not an error of the file, only one a rebuild would change (NotCanonical).
    lenient: bool = False


@dataclass
class Check:
    """A check the game's loader makes on values already read (``expr``, Python over earlier
    fields and ``ctx``); otherwise the file is wrong at ``field``: ``expected``, found
    ``found`` (Python, evaluated like ``expr``)."""

    expr: str
    field: str
    expected: str
    found: str
    # True: the writer refuses a model for which ``expr`` does not hold, too (a value the
    # layout has no room for); ``on_read`` False: only then (``m`` is the model being written).
    on_write: bool = False
    on_read: bool = True
    # The reader's message: ``explain`` (Python, evaluated like ``found``) instead of
    # ``expected`` when the expectation names the values read ("3 items in 24 bytes"), and
    # the offset ``back`` bytes before the position, at a value read earlier (a count).
    explain: str | None = None
    back: int = 0


@dataclass
class Computed:
    """A model field that is not stored but follows from what is (``expr``, Python over
    earlier fields, ``ctx`` and ``left``): which of a game's builds wrote the block."""

    name: str
    expr: str


@dataclass
class Columns:
    """Records of a few numbers whose columns the model keeps as separate fields (each
    element's resistance and flags, stored interleaved)."""

    count: Count
    columns: Sequence[tuple[str, Int, bool]]  # (field, kind, kept as bytes)


@dataclass
class SetCtx:
    """After the members before it: ``ctx.set(name, <expr>)``; ``expr`` is Python over
    earlier fields (by name) and ``ctx``."""

    name: str
    expr: str


@dataclass
class Terminated:
    """Records until one of them is the end record (``is_end``, a property of the model),
    which the model keeps in ``end`` to write the same bytes back."""

    name: str
    elem: Type
    end: str
    is_end: str
    expected_end: str


@dataclass
class When:
    """Fields stored only when ``expr`` holds (Python over earlier fields and ``ctx``); None in
    the model otherwise. The writer refuses a model whose fields disagree with ``expr``."""

    expr: str
    fields: Sequence[Any]  # members (Field, Stored, Computed, Check...)
    expected: str
    # A model that keeps a bool of whether the fields are stored (``present``) instead of None;
    # absent fields then hold their defaults.
    flag: str | None = None
    # True: absent fields hold the model's defaults, and the fields whose default is None say
    # whether the model has them (a dead character's dungeon: zeros, and no map).
    defaults: bool = False
    # True: the writer writes the fields when the model has them, whatever ``expr`` says (one
    # writer serving two games' readers, one of which stores the fields).
    by_model: bool = False


@dataclass
class Requires:
    """The layout applies only when ``expr`` holds; otherwise a LayoutError with ``reason``
    (the block stays as it is, with the reason)."""

    expr: str
    reason: str


@dataclass
class Parallel:
    """One model list stored as several lists one after the other, each holding some fields of
    every element (the gear: every object, then every known copy) and each ended by ``stop`` in
    place of its first field (read under ``ends``). ``passes`` are records over the model's
    element class, each declaring its own fields; the lists must have one length
    (``mismatch`` says so, as a LayoutError)."""

    name: str
    passes: Sequence[Any]  # Struct, one per stored list
    first: Type
    stop: Any
    ends: Sequence[str]
    mismatch: str


Member = (Field | Len | Stored | Const | Columns | SetCtx | Terminated | When | Requires | Parallel
          | Check | Computed)
