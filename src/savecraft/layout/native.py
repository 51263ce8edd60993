"""The compiled backend of record descriptions: a description turned into a C record program.

The C module ``savecraft._native.records`` (when :mod:`savecraft.compiled` says it is
active) runs small record programs: one field code per model slot (``B H h I i``
numbers, ``s`` a NUL-terminated UTF-8 string with its limit, ``y`` bytes, ``l``/``c``/``C``+``L``
lists of i16, ``j`` a list of i32, ``T`` (i16, u8) pairs, ``a`` a Latin-1 string, ``S`` a list of strings, ``r``/``n``/``N``/``M``/``R`` nested
records and lists of them (``R``: up to the end of the bytes), ``U`` records until a stop value, ``E``+``e`` records up to an end
record (:class:`~.types.Terminated`), ``G``+``g`` one list stored as two
(:class:`~.types.Parallel`), ``P``+``p`` two interleaved columns (:class:`~.types.Columns`),
``K`` a constant, ``?`` a "has" byte (:class:`~.types.Optional`), ``!`` fields stored when an
earlier field has (or has not) a value, ``~`` the same with the model's defaults where they
are not stored (a When with ``defaults``), and ``z`` a field whose condition does not hold
(:class:`~.types.When`)). A loader's :class:`~.types.Check` on the record's values is tested
on the record the program read (a record that fails it is read again by the generated code,
which names the problem); such a program is used only for whole records, never nested. This module derives that program from a
:class:`~.compiler.Struct`, so the compiled path is a backend of the same one description and
never a second copy of a layout. A description that uses anything the programs cannot express
simply has no program; the generated Python runs instead.

A condition on Context values alone (a dead character's missing level) is decided when the
program is compiled for a Context: the program holds the fields, or ``z`` for each, and the
answer is part of the key the compiled programs are kept under.

A program answers None for anything unusual (a string that is not UTF-8, a count past the
end, a "has" byte of 2): the generated code then reads the same bytes and gives the same
model or the exact error. Tests hold the two to each other.
"""

from __future__ import annotations

import ast
import builtins
import dataclasses
import inspect
import textwrap
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from operator import itemgetter
from typing import TYPE_CHECKING, Any

from ..binary import active_sink, cached_struct
from ..compiled import active
from .context import Context, LayoutError
from .types import (
    I16,
    I32,
    U8,
    U16,
    U32,
    Array,
    Bytes,
    Check,
    Columns,
    Const,
    Expr,
    CStr,
    Ctx,
    Field,
    Int,
    Len,
    List,
    Optional,
    Parallel,
    Prefix,
    Ref,
    Rest,
    SetCtx,
    Switch,
    Terminated,
    Tuple,
    Until,
    When,
)

if TYPE_CHECKING:
    from .._native.records import Program as Capsule  # (a name of the stub only)
    from .compiler import Struct

_NUMBER = {id(U8): "B", id(U16): "H", id(I16): "h", id(U32): "I", id(I32): "i"}
_KIND = {"u8": "B", "u16": "H", "i16": "h", "u32": "I", "i32": "i"}
_RANGE = {"B": (0, 0xFF), "H": (0, 0xFFFF), "h": (-0x8000, 0x7FFF), "I": (0, 0xFFFFFFFF),
          "i": (-0x80000000, 0x7FFFFFFF)}


def _number(t: Any) -> str | None:
    """The code of an integer type: one of the five, or an :class:`~.types.Int` subclass that
    reads as its kind does and only checks more when written (PWMAngband's ``Index``, which
    refuses a name: the C writer gives a non-int back to the generated writer, which says so)."""
    code = _NUMBER.get(id(t))
    if code is not None or not isinstance(t, Int):
        return code
    k = type(t)
    if k.fast_read is not Int.fast_read or k.checked_read is not Int.checked_read \
            or k.fast_write is not Int.fast_write:
        return None
    return _KIND.get(t.kind)
# The record machine of the C module, or None (then no description has a program).
_Buffer = bytes | bytearray | memoryview
_record_program: Callable[[type, tuple[Any, ...], str, tuple[Any, ...]], Capsule] | None = None
_read_records: Callable[[Capsule, _Buffer, int, int, int, Any],
                        tuple[list[Any], int] | None] | None = None
_write_records: Callable[[Capsule, list[Any], Any], bytes | None] | None = None
if active("records"):
    from .._native.records import read_records as _read_records
    from .._native.records import record_program as _record_program
    from .._native.records import write_records as _write_records
_AVAILABLE = _record_program is not None
_suspended = False  # see suspended()


@contextmanager
def suspended() -> Iterator[None]:
    """Inside, every program answers None, so the generated Python reads and writes
    everything: how a test holds the two paths to each other in one process (a new process
    with SAVECRAFT_PURE=1 also generates the code a description without a program gets)."""
    global _suspended
    was, _suspended = _suspended, True
    try:
        yield
    finally:
        _suspended = was


class _Ref:
    """An argument that is a Context value (a size the object memory block set)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name


_CTX_EXPRS: dict[str, Callable[[Context], Any]] = {}


def _ctx_expr(source: str) -> Callable[[Context], Any]:
    """An expression over the Context as a function, one per source (so that the programs of
    one description share it in their keys)."""
    fn = _CTX_EXPRS.get(source)
    if fn is None:
        fn = _CTX_EXPRS[source] = eval(compile(f"lambda ctx: ({source})", "<layout count>", "eval"), {})
    return fn


class _CtxCount:
    """An argument that is a count computed from Context values alone (resolved when compiled;
    its value is part of the key the compiled programs are kept under)."""

    __slots__ = ("fn",)

    def __init__(self, fn: Callable[[Context], Any]) -> None:
        self.fn = fn


class _FieldAt:
    """An argument that is the place of an earlier field's code (resolved when compiled)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name


class _When:
    """Fields stored when a condition on Context values holds: their codes, or ``z`` for each."""

    __slots__ = ("holds", "then", "other")

    def __init__(self, holds: Callable[[Context], bool], then: list[Spec], other: list[Spec]) -> None:
        self.holds = holds
        self.then = then
        self.other = other


# (slot or "", code, argument: an int, a _Ref, a sub-Program, a _When, or a tuple of such and
# constants)
Spec = tuple[str, str, Any]


class Program:
    """The C program of one description, compiled per set of Context values it depends on."""

    def __init__(self, struct: Struct, specs: list[Spec], post: Callable[[Any, Context], None] | None,
                 checks: list[tuple[str, int, int]],
                 tests: tuple[Callable[[Any, Context], bool], ...] = (),
                 write_tests: tuple[Callable[[Any, Context], bool], ...] = ()) -> None:
        self.struct = struct
        self.specs = specs
        self.post = post
        self.checks = checks
        # the record's loader checks (Check), each over the record read and the Context: a
        # record that fails one is the generated code's to read (and to name the problem)
        self.tests = tests
        self.write_tests = write_tests  # (those the writer makes: a record failing one is the generated writer's)
        names: list[str] = []
        whens: list[Callable[[Context], bool]] = []
        _depends(specs, names, whens)
        self._names = tuple(dict.fromkeys(names))  # (a stock pair's two objects: the same sizes)
        self._whens = tuple(dict.fromkeys(whens))
        self._key: Callable[[dict[str, Any]], Any] | None = itemgetter(*self._names) if self._names else None
        self._compiled: dict[Any, Capsule | bool] = {}
        self.complete = True  # every field of the class is one of the program's (see _derive)
        # The exported numbers the record starts with and its own later fields depend on
        # (unpacker, ((Context name, field, code), ...)), or None: see _derive.
        self.peek: tuple[Any, tuple[tuple[str, str, str], ...]] | None = None
        self.rest = False  # its last member is a list up to the end of the bytes (R)

    def compiled(self, ctx: Context) -> Capsule | None:
        """The capsule for the values in ``ctx``; None while one is unknown."""
        if _suspended:
            return None
        try:
            try:
                key: Any = self._key(ctx.values) if self._key is not None else ()
            except KeyError:  # (a name missing is part of the key as None: a size only a field
                # of another magic needs, under a condition that does not hold; a program that
                # does need it compiles to none, see _resolve)
                key = ("missing", *[ctx.values.get(n) for n in self._names])
            if self._whens:
                key = (key, tuple([holds(ctx) for holds in self._whens]))
        except (KeyError, LayoutError):
            return None
        prog = self._compiled.get(key)
        if prog is None:
            prog = self._compile(ctx)
            if len(self._compiled) >= 64:  # files of many different sizes: keep memory bounded
                self._compiled.clear()
            # (False: no program for these values, a case of a Switch that has none: not
            # tried again for every record)
            self._compiled[key] = False if prog is None else prog
            return prog
        return None if prog is False else prog  # type: ignore[return-value]

    def _compile(self, ctx: Context) -> Capsule | None:
        specs = _flat(self.specs, ctx)
        at: dict[str, int] = {}
        for i, (slot, _, _) in enumerate(specs):
            at.setdefault(slot, i)
        try:
            args = tuple(_resolve(arg, ctx, at) for _, _, arg in specs)
        except _NoProgram:
            return None
        cls = self.struct.cls
        assert _record_program is not None  # (program_of made none without it)
        return _record_program(cls, tuple(_slot(cls, s) if s else None for s, _, _ in specs),
                               "".join(c for _, c, _ in specs), args)

    def _stops(self, stop: Any) -> bool:
        """Whether ``stop`` can stand in place of the first field (a string, or a u8)."""
        return _starts_with_u8(self) if type(stop) is int else \
            type(stop) is str and self.specs[0][1] == "s"

    def _valid(self, records: list[Any], ctx: Context, writing: bool = False) -> bool:
        for name, lo, hi in self.checks:
            for rec in records:
                if not lo <= getattr(rec, name) <= hi:
                    return False
        for test in self.write_tests if writing else self.tests:
            for rec in records:
                if not test(rec, ctx):
                    return False
        return True

    def read(self, data: Any, pos: int, end: int, ctx: Context, count: int,
             stop: Any = None) -> tuple[list[Any], int] | None:
        """``count`` records (or, with -1, those before ``stop`` in place of the first field)."""
        if count < 0 and not self._stops(stop):
            return None
        if self.peek is not None and not self._peek(data, pos, end, ctx, count):
            return None
        if self.rest and count != 1:
            return None
        prog = self.compiled(ctx)
        if prog is None:
            return None
        assert _read_records is not None
        got = _read_records(prog, data, pos, end, count, stop)
        if got is None or ((self.checks or self.tests) and not self._valid(got[0], ctx)):
            return None
        if self.post is not None:
            for rec in got[0]:
                self.post(rec, ctx)
        return got

    def bound(self, ctx: Context) -> Callable[..., tuple[list[Any], int] | None] | None:
        """A reader of ``count`` records from ``pos`` with the program compiled for the values
        ``ctx`` holds now, for a loop over many records under values that do not change in it
        (a block's object list): the capsule is looked up once, not per record, which costs
        more than reading the record (the key's conditions are evaluated each time). None
        where a read notes spans or no program compiles for these values. A count of -2 with
        ``stop`` an attribute's name reads up to the first record whose attribute is true,
        that one included (an object list up to its end record, in one call)."""
        if active_sink() is not None or self.peek is not None or self.rest:
            return None
        prog = self.compiled(ctx)
        if prog is None:
            return None
        assert _read_records is not None
        read_records, checks, post, valid = _read_records, self.checks or self.tests, self.post, self._valid

        def read(data: Any, pos: int, end: int, count: int, stop: Any = None) -> tuple[list[Any], int] | None:
            got = read_records(prog, data, pos, end, count, stop)
            if got is None or (checks and not valid(got[0], ctx)):
                return None
            if post is not None:
                for rec in got[0]:
                    post(rec, ctx)
            return got
        return read

    def _peek(self, data: Any, pos: int, end: int, ctx: Context, count: int) -> bool:
        """One record's leading exported numbers put in the Context before it is read (as
        its reader puts them there after them)."""
        assert self.peek is not None
        unpack, fields = self.peek
        if count != 1 or pos + unpack.size > end:
            return False
        for (name, _, _), value in zip(fields, unpack.unpack_from(data, pos)):
            ctx.set(name, value, self.struct.name)
        return True

    def _peek_model(self, records: list[Any], ctx: Context) -> bool:
        """The same for one record written: its leading exported numbers from the model."""
        assert self.peek is not None
        if len(records) != 1 or type(records[0]) is not self.struct.cls:
            return False
        values: list[int] = []
        for _, f, code in self.peek[1]:
            v = getattr(records[0], f, None)
            if type(v) is not int or not _RANGE[code][0] <= v <= _RANGE[code][1]:
                return False  # (the writer names what is wrong)
            values.append(v)
        for (name, _, _), v in zip(self.peek[1], values):
            ctx.set(name, v, self.struct.name)
        return True
    def stores_nothing(self, ctx: Context) -> bool:
        """Whether the record stores no byte under the Context's values (every field's
        condition fails: a part of a record that a later magic added): its fields are then
        None, or their defaults where the record does not store them at all."""
        return all(code in "zD" for _, code, _ in _flat(self.specs, ctx))

    def bound_write(self, ctx: Context) -> Callable[[list[Any]], bytes | None] | None:
        """A writer of a list of records with the program compiled for the values ``ctx``
        holds now (see :meth:`bound`): the bytes of them all in one call, or None where the
        program cannot (the generated writer then writes them, or names what is wrong)."""
        prog = self.compiled(ctx)
        if prog is None:
            return None
        assert _write_records is not None
        write_records, tested, post, valid = _write_records, self.checks or self.write_tests, self.post, self._valid

        def write(records: list[Any]) -> bytes | None:
            if tested and not valid(records, ctx, writing=True):
                return None
            raw = write_records(prog, records, None)
            if raw is not None and post is not None:
                for rec in records:
                    post(rec, ctx)
            return raw
        return write

    def read_one(self, data: Any, pos: int, end: int, ctx: Context) -> tuple[Any, int] | None:
        if active_sink() is not None:
            return None
        got = self.read(data, pos, end, ctx, 1)
        return None if got is None else (got[0][0], got[1])

    def write(self, records: Any, ctx: Context, stop: Any = None) -> bytes | None:
        """The records' bytes, or None where the program cannot (the generated writer then
        writes them, or names what is wrong)."""
        if type(records) is not list or \
                ((self.checks or self.write_tests) and not self._valid(records, ctx, writing=True)):
            return None
        if self.peek is not None and not self._peek_model(records, ctx):
            return None
        if self.rest and len(records) != 1:
            return None
        prog = self.compiled(ctx)
        if prog is None:
            return None
        assert _write_records is not None
        raw = _write_records(prog, records, stop)
        if raw is not None and self.post is not None:
            for rec in records:
                self.post(rec, ctx)
        return raw

    def write_one(self, model: Any, ctx: Context) -> bytes | None:
        return self.write([model], ctx)


class _NoProgram(Exception):
    """A nested program has no capsule for this Context."""


# The argument of a field whose type, for the Context values a program is compiled with, no
# code expresses (the name case of a Switch on the build): that compile gives no program.
_UNEXPRESSED = object()


def _depends(specs: list[Spec], names: list[str], whens: list[Callable[[Context], bool]]) -> None:
    """The Context names and conditions the programs of ``specs`` are compiled with."""
    def arg_deps(arg: Any) -> None:
        if isinstance(arg, _Ref):
            names.append(arg.name)
        elif isinstance(arg, _CtxCount):
            whens.append(arg.fn)  # (a key part like a condition's: its value)
        elif isinstance(arg, Program):
            names.extend(arg._names)
            whens.extend(arg._whens)
        elif isinstance(arg, _When):
            whens.append(arg.holds)
            _depends(arg.then, names, whens)
            _depends(arg.other, names, whens)
        elif isinstance(arg, tuple):
            for a in arg:
                arg_deps(a)

    for _, _, arg in specs:
        arg_deps(arg)


def _flat(specs: list[Spec], ctx: Context) -> list[Spec]:
    """``specs`` with each condition on the Context decided."""
    out: list[Spec] = []
    for spec in specs:
        arg = spec[2]
        if isinstance(arg, _When):
            out.extend(_flat(arg.then if arg.holds(ctx) else arg.other, ctx))
        else:
            out.append(spec)
    return out


def _resolve(arg: Any, ctx: Context, at: dict[str, int]) -> Any:
    if arg is _UNEXPRESSED:
        raise _NoProgram
    if isinstance(arg, _Ref):
        if arg.name not in ctx.values:
            raise _NoProgram
        return ctx.values[arg.name]
    if isinstance(arg, Program):
        sub = arg.compiled(ctx)
        if sub is None:
            raise _NoProgram
        return sub
    if isinstance(arg, _FieldAt):
        return at[arg.name]
    if isinstance(arg, _CtxCount):
        n = arg.fn(ctx)
        if type(n) is not int or n < 0:
            raise _NoProgram
        return n
    if isinstance(arg, tuple):
        return tuple(_resolve(a, ctx, at) for a in arg)
    return arg


def _count(count: Any, lens: dict[str, int] | None = None) -> Any:
    """A program argument for a count: a number, a Context value or an expression over the
    Context alone (decided when compiled: a fork's stat count), -1 (what the record's count, a
    Len, says), or None (not expressible)."""
    if isinstance(count, int):
        return count
    if isinstance(count, Ctx):
        return _Ref(count.name)
    if isinstance(count, Expr):
        tree = ast.parse(count.source, mode="eval").body
        if {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} <= {"ctx"}:
            return _CtxCount(_ctx_expr(count.source))
    if isinstance(count, Ref) and lens is not None and count.name in lens:
        return -1
    return None


def program_of(struct: Struct) -> Program | None:
    """The C program of ``struct``, derived once; None without the extension or where the
    description uses what programs cannot express."""
    prog = _program(struct)
    return prog if prog is not None and prog.complete else None


def _sub(struct: Struct) -> Program | None:
    """The program of a record read inside another's: none where it peeks its own sizes
    (the outer program would be compiled with the sizes from before them), nor with Checks
    (see :func:`_nested`)."""
    prog = program_of(struct)
    return None if prog is None or prog.peek is not None or prog.rest else _nested(prog)


def _program(struct: Struct, placeholders: frozenset[str] | None = None) -> Program | None:
    """The program of ``struct``, also one that leaves some of its class's fields unset (a
    pass of a :class:`~.types.Parallel`, which only the ``G``/``g`` codes read).

    ``placeholders``: the fields another pass fills (or, empty, every field this one does not
    store: a pass whose records only lend theirs), which the record gets as None instead of
    their defaults: a gear entry's known copy defaulted to a new 37-field object, made for
    each of the 40 entries in both passes and then overwritten (a tenth of a 4.2 parse)."""
    if not _AVAILABLE:
        return None
    key = "_program" if placeholders is None else ("_program", placeholders)
    cache = struct.__dict__.setdefault("_programs", {})
    cached = cache.get(key, False)
    if cached is not False:
        return cached  # type: ignore[no-any-return]
    prog = _derive(struct, placeholders)
    cache[key] = prog
    return prog


def _inline(struct: Struct) -> bool:
    """A record of fixed values with a constant (a message whose type it is): the generated
    code reads it in one unpack where it is used (a batch of 40 movement records), faster than
    a call into a program per record; it gets no program."""
    from .compiler import _run_of

    return any(isinstance(m, Const) for m in struct.members) and all(
        isinstance(m, Field | Const) and _run_of(m) is not None
        and not (isinstance(m, Field) and (m.check is not None or m.export is not None))
        for m in struct.members)


def _derive(struct: Struct, placeholders: frozenset[str] | None = None) -> Program | None:
    if _inline(struct):
        return None
    specs: list[Spec] = []
    checks: list[tuple[str, int, int]] = []
    post_lines: list[str] = []
    lens: dict[str, int] = {}
    seen: set[str] = set()
    counted: tuple[str, ...] = ()  # the lists the last count is of (one count at a time)
    tests: list[Callable[[Any, Context], bool]] = []
    write_tests: list[Callable[[Any, Context], bool]] = []
    ints: set[str] = set()  # the fields read as numbers so far (a When's "not x" is "x == 0")
    for m in struct.members:
        if isinstance(m, Check):
            test = _check_test(m, struct)
            if test is None:
                return None
            if m.on_read:
                tests.append(test)
            if m.on_write:
                write_tests.append(test)
            continue
        if isinstance(m, Len):
            code = _NUMBER.get(id(m.kind))
            if code not in ("B", "H", "I") or not set(counted) <= seen:
                return None
            lens[m.name] = m.most if m.most is not None else m.kind.hi
            counted = tuple(m.of)
            arrays = [f for f in struct.members if isinstance(f, Field) and f.name in m.of
                      and isinstance(f.type, Array) and f.type.kind is I16]
            if code == "B" and m.most is not None and len(arrays) == len(m.of):
                specs.append(("", "C", m.most))  # (then L lists)
            else:
                specs.append(("", "Q", (lens[m.name], code, _FieldAt(m.of[0]))))
            continue
        if isinstance(m, SetCtx):
            post_lines.append(f"ctx.set({m.name!r}, {_on_model(m.expr, struct)}, {struct.name!r})")
            continue
        got = _member_specs(m, lens, seen, struct.cls, ints)
        if got is None:
            return None
        specs.extend(got)
        if isinstance(m, Field):
            if m.check is not None:
                checks.append((m.name, m.check.lo, m.check.hi))
            if m.export is not None:
                post_lines.append(f"ctx.set({m.export!r}, m.{m.name}, {struct.name!r})")
        seen.update(s for s, _, _ in got if s)
        ints.update(s for s, c, _ in got if s and c in "BHhIi")
    if not specs:
        return None
    # A list up to the end of the bytes (R) is a record's last member, and the record is read
    # alone (never inside another's program, never several in one call): the end is then the
    # bounds the generated reader would read it to.
    rest = any(code == "R" for _, code, _ in _every_spec(specs))
    if rest and (specs[-1][1] != "R" or any(code == "R" for _, code, _ in specs[:-1])):
        return None
    # A value the record itself puts in the Context (an export, a SetCtx) is set after the
    # program has read the record, but a program is compiled with the Context values from
    # before it: a later member sized by that value (a trap list's traps by its own
    # ``trf_size``) would be read with the previous record's value. No program, then.
    # Unless those values are the record's leading numbers (a trap list's ``trf_size``): one
    # record alone is then read with them peeked from its first bytes (written with them taken
    # from the model), and the program is never part of another's.
    own = {m.export for m in struct.members if isinstance(m, Field) and m.export is not None} | \
        {m.name for m in struct.members if isinstance(m, SetCtx)}
    peek: list[tuple[str, str, str]] = []
    if own:
        names: list[str] = []
        _depends(specs, names, [])
        if own & set(names):
            peek = _leading_exports(struct)
            if not own & set(names) <= {name for name, _, _ in peek}:
                return None
    slots = {s for s, _, _ in _every_spec(specs) if s}
    cls = struct.cls
    if not all(type(_slot(cls, s)).__name__ == "member_descriptor" for s in slots):
        return None  # (a field that is no slot: a program fills slots)
    post = None
    if post_lines:
        ns: dict[str, Any] = {}
        exec(compile("def post(m, ctx):\n" + "\n".join("    " + line for line in post_lines),
                     f"<layout {struct.name} native>", "exec"), ns)
        post = ns["post"]
    complete = True
    if dataclasses.is_dataclass(cls):  # a field the record does not store: its default (D)
        for f in dataclasses.fields(cls):
            if f.name in slots:
                continue
            if not f.init or type(_slot(cls, f.name)).__name__ != "member_descriptor":
                complete = False
            elif placeholders is not None and (not placeholders or f.name in placeholders):
                specs.append((f.name, "D", (None, 0)))  # (filled by the other pass)
            elif f.default is not dataclasses.MISSING:
                specs.append((f.name, "D", (f.default, 0)))
            elif f.default_factory is not dataclasses.MISSING:
                specs.append((f.name, "D", (f.default_factory, 1)))
            else:
                complete = False
    prog = Program(struct, specs, post, checks, tuple(tests), tuple(write_tests))
    prog.rest = rest
    if peek:
        prog.peek = (cached_struct("<" + "".join(code for _, _, code in peek)), tuple(peek))
    # every field of the class is set by the program (a record from C would otherwise lack
    # one, where the generated reader calls the class)
    prog.complete = complete
    return prog


def _leading_exports(struct: Struct) -> list[tuple[str, str, str]]:
    """The Context names, fields and codes of the plain numbers a record starts with that
    it exports (with nothing before them that could fail)."""
    out: list[tuple[str, str, str]] = []
    for m in struct.members:
        if not isinstance(m, Field) or m.export is None or m.check is not None:
            break
        code = _NUMBER.get(id(m.type))
        if code is None:
            break
        out.append((m.export, m.name, code))
    return out
def _check_test(m: Check, struct: Struct) -> Callable[[Any, Context], bool] | None:
    """A Check as a test of a record (``m`` the record): its expression over the record's
    fields and ``ctx``, or None where it names anything else (``left``...). Tested on what a
    read gives where the loader makes it (``on_read``), before the C writer writes where the
    writer makes it too (``on_write``): a record failing it is the generated code's, which
    names the problem as the description says."""
    names = {n.id for n in ast.walk(ast.parse(m.expr, mode="eval")) if isinstance(n, ast.Name)}
    if not names <= set(struct.field_names()) | {"ctx"} | set(dir(builtins)):
        return None
    test: Callable[[Any, Context], bool] = eval(
        compile(f"lambda m, ctx: bool({_on_model(m.expr, struct)})", "<layout check>", "eval"), {})
    return test


def _nested(sub: Program | None) -> Program | None:
    """A program usable inside another's: none with Checks (they are tested on the records a
    read returns or a write is given, not on records nested in them)."""
    return None if sub is None or sub.tests or sub.write_tests else sub


def _slot(cls: type, name: str) -> Any:
    """The descriptor of the slot ``name`` of ``cls`` (its own, or a base class's)."""
    for k in cls.__mro__:
        if name in k.__dict__:
            return k.__dict__[name]
    return None


def _every_spec(specs: list[Spec]) -> list[Spec]:
    out: list[Spec] = []
    for spec in specs:
        if isinstance(spec[2], _When):
            out.extend(_every_spec(spec[2].then))
            out.extend(_every_spec(spec[2].other))
        else:
            out.append(spec)
    return out


def _member_specs(m: Any, lens: dict[str, int], seen: set[str], cls: type | None = None,
                  ints: set[str] | None = None) -> list[Spec] | None:
    """The codes of one member, or None where programs cannot express it."""
    from .compiler import Struct

    if isinstance(m, Field):
        return _field_specs(m, lens)
    if isinstance(m, Const):
        code = _NUMBER.get(id(m.type))
        return None if code is None or type(m.value) is not int else [("", "K", (m.value, code))]
    if isinstance(m, Columns):
        if len(m.columns) != 2 or _count(m.count) is None:
            return None
        bits = 0
        for j, (_, kind, as_bytes) in enumerate(m.columns):
            if kind is not U8 and (kind is not I16 or as_bytes):
                return None
            bits |= ((kind is I16) | (as_bytes << 1)) << (2 * j)
        return [(m.columns[0][0], "P", (_count(m.count), bits)), (m.columns[1][0], "p", 0)]
    if isinstance(m, Terminated):
        elem = m.elem
        sub = _sub(elem) if isinstance(elem, Struct) else None
        if sub is None or not isinstance(elem, Struct):
            return None
        return [(m.name, "E", (sub, m.is_end, _end_fields(sub, _emptiness(elem.cls, m.is_end)))),
                (m.end, "e", 0)]
    if isinstance(m, Parallel):
        if len(m.passes) != 2 or m.first is not U8 or type(m.stop) is not int:
            return None
        # (the first pass's records are the model's, given the second's fields by g; the
        # second's only lend theirs)
        lent = frozenset(f.name for f in m.passes[1].members if isinstance(f, Field))
        subs = [_nested(_program(m.passes[0], lent)), _nested(_program(m.passes[1], frozenset()))]
        if any(s is None or s.peek is not None or not _starts_with_u8(s) for s in subs):
            return None
        return [(m.name, "G", (subs[0], m.stop)), ("", "g", (subs[1], m.stop, _FieldAt(m.name)))]
    if isinstance(m, When):
        return _when_specs(m, lens, seen, cls, ints)
    return None


def _emptiness(cls: type, name: str) -> list[tuple[str, bool]] | None:
    """The fields whose emptiness the property ``name`` of ``cls`` tests, where it is just
    that: ``return not self.<field>`` (the end record of an object list: no kind name), or
    ``return self.<a> == 0 and self.<b> == 0`` (4.0's object of no kind, a trap at (0, 0)):
    each field with whether it is compared with 0 (then it must be a number: ``not x`` and
    ``x == 0`` agree on ints only). The C code then tests the fields itself instead of
    calling the property for every record."""

    prop = getattr(cls, name, None)
    if not isinstance(prop, property) or prop.fget is None:
        return None
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(prop.fget)))
    except (OSError, TypeError, SyntaxError):
        return None
    fn = tree.body[0]
    if not isinstance(fn, ast.FunctionDef):
        return None
    body = [b for b in fn.body if not (isinstance(b, ast.Expr) and isinstance(b.value, ast.Constant))]
    if len(body) != 1 or not isinstance(body[0], ast.Return) or body[0].value is None:
        return None
    expr = body[0].value
    terms = expr.values if isinstance(expr, ast.BoolOp) and isinstance(expr.op, ast.And) else [expr]

    def own(node: ast.expr) -> str | None:
        ok = isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self"
        return node.attr if ok else None  # type: ignore[attr-defined]

    out: list[tuple[str, bool]] = []
    for t in terms:
        if isinstance(t, ast.UnaryOp) and isinstance(t.op, ast.Not) and own(t.operand) is not None:
            out.append((own(t.operand), False))  # type: ignore[arg-type]
        elif isinstance(t, ast.Compare) and len(t.ops) == 1 and isinstance(t.ops[0], ast.Eq) \
                and own(t.left) is not None and isinstance(t.comparators[0], ast.Constant) \
                and type(t.comparators[0].value) is int and t.comparators[0].value == 0:
            out.append((own(t.left), True))  # type: ignore[arg-type]
        else:
            return None
    return out


def _end_fields(sub: Program, fields: list[tuple[str, bool]] | None) -> int | tuple[int, ...]:
    """The places in ``sub`` of the fields an end record is known by (see :func:`_emptiness`),
    or -1 (the C code then asks the property)."""
    names = [s for s, _, _ in sub.specs]
    if not fields or len(sub.specs) > 63 or any(code == "W" for _, code, _ in sub.specs):
        return -1  # (a condition on the Context flattens into codes: places known only then)
    out: list[int] = []
    for name, zero in fields:
        if name not in names:
            return -1
        at = names.index(name)
        if zero and sub.specs[at][1] not in _KIND.values():
            return -1
        out.append(at)
    return out[0] if len(out) == 1 else tuple(out)


def _when_specs(m: When, lens: dict[str, int], seen: set[str], cls: type | None = None,
                ints: set[str] | None = None) -> list[Spec] | None:
    """A When: decided by Context values when compiled, or by an earlier field (``!``)."""

    if m.flag is not None or m.by_model:
        return None
    then: list[Spec] = []
    for f in m.fields:
        if not isinstance(f, Field) or f.check is not None or f.export is not None:
            return None
        got = _field_specs(f, lens)
        if got is None:
            return None
        then.extend(got)
    tree = ast.parse(m.expr, mode="eval").body
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    if names <= {"ctx"} and not m.defaults:
        holds = eval(compile(f"lambda ctx: bool({m.expr})", "<layout when>", "eval"), {})
        other = [(s, "z", 0) for s, _, _ in _every_spec(then) if s]
        return [("", "W", _When(holds, then, other))]
    if ints and isinstance(tree, ast.Name | ast.UnaryOp) and not any(s[1] == "W" for s in then):
        # a number's truth: "x" is "x != 0", "not x" is "x == 0" (only for a number: "" is false too)
        name = tree if isinstance(tree, ast.Name) else tree.operand
        if isinstance(name, ast.Name) and name.id in ints and (
                isinstance(tree, ast.Name) or isinstance(tree.op, ast.Not)):
            op: ast.cmpop = ast.NotEq() if isinstance(tree, ast.Name) else ast.Eq()
            tree = ast.Compare(ast.Name(name.id, ast.Load()), [op], [ast.Constant(0)])
    if isinstance(tree, ast.Compare) and len(tree.ops) == 1 and isinstance(tree.ops[0], ast.Eq | ast.NotEq) \
            and isinstance(tree.left, ast.Name) and tree.left.id in seen \
            and isinstance(tree.comparators[0], ast.Constant) and not any(s[1] == "W" for s in then):
        negated = int(isinstance(tree.ops[0], ast.NotEq))
        if m.defaults:  # (absent: the model's defaults; the condition alone says what is stored)
            dflt = _plain_defaults(cls, then)
            if dflt is None:
                return None
            return [("", "~", (_FieldAt(tree.left.id), tree.comparators[0].value, negated, len(then), dflt)),
                    *then]
        return [("", "!", (_FieldAt(tree.left.id), tree.comparators[0].value, negated, len(then))), *then]
    return None


def _plain_defaults(cls: type | None, specs: list[Spec]) -> tuple[Any, ...] | None:
    """The defaults of the fields a When with ``defaults`` governs, for ``~``: plain fields
    only, each with a default that is a value (not None: then the model would say whether
    they are stored, which ``~`` does not ask; not a factory: one object for every record)."""
    if cls is None or not dataclasses.is_dataclass(cls):
        return None
    fields = {f.name: f for f in dataclasses.fields(cls)}
    out: list[Any] = []
    for slot, code, _ in specs:
        f = fields.get(slot)
        if f is None or code not in "BHhIi" or f.default is dataclasses.MISSING or f.default is None \
                or type(f.default) not in (int, str, bytes):
            return None
        out.append(f.default)
    return tuple(out)


def _field_specs(m: Field, lens: dict[str, int]) -> list[Spec] | None:
    from .compiler import Struct

    t = m.type
    if isinstance(t, Switch):
        return _switch_specs(m, t, lens)
    if isinstance(t, Optional):
        if t.flag is not U8:
            return None
        inner = _field_spec(Field(m.name, t.inner), lens)
        return None if inner is None else [("", "?", 0), inner]
    if isinstance(t, List) and isinstance(t.count, Prefix) and t.index is None and not lens:
        p = t.count
        code = _NUMBER.get(id(p.kind))
        strings = isinstance(t.elem, CStr) and t.elem.encoding == "utf-8" and t.elem.most is not None
        if code in ("B", "H", "I") and not p.bias and (strings or code == "I" or p.most is not None):
            # (a count of the list after it, as a Len's, where n/N do not serve: a u32, a most,
            # strings (Xygos's store owners); no Len before it in the record, whose lists the
            # count would be taken for)
            most = p.most if p.most is not None else p.kind.hi
            count: Spec = ("", "Q", (most, code, _FieldAt(m.name)))
            if strings:
                assert isinstance(t.elem, CStr)
                return [count, (m.name, "S", (-1, _limit(t.elem)))]
            sub = _sub(t.elem) if isinstance(t.elem, Struct) else None
            return None if sub is None else [count, (m.name, "M", (sub, -1))]
    spec = _field_spec(m, lens)
    return None if spec is None else [spec]


def _switch_specs(m: Field, t: Switch, lens: dict[str, int]) -> list[Spec] | None:
    """A Switch on Context values alone (a file's magic, a block's build: an index's width, an
    index or a name) is decided when the program is compiled, as a When on them is: a chain of
    conditions, one per case; a case no code expresses (a name the game's data must hold)
    compiles to no program, and the generated code reads those records."""

    if t.peek is not None:
        return None
    tree = ast.parse(t.expr, mode="eval").body
    if not {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} <= {"ctx"}:
        return None
    tag = eval(compile(f"lambda ctx: ({t.expr})", "<layout switch>", "eval"), {})
    specs: list[Spec] = [(m.name, "X", _UNEXPRESSED)]  # (no case, no default: the Python's error)
    if t.default is not None:
        specs = _field_specs(Field(m.name, t.default), lens) or [(m.name, "X", _UNEXPRESSED)]
    for key, case in reversed(list(t.cases.items())):
        then = _field_specs(Field(m.name, case), lens) or [(m.name, "X", _UNEXPRESSED)]
        if any(code == "?" for _, code, _ in then):
            return None
        holds = (lambda k: lambda ctx: tag(ctx) == k)(key)
        specs = [("", "W", _When(holds, then, specs))]
    return specs


def _field_spec(m: Field, lens: dict[str, int]) -> Spec | None:
    from .compiler import Struct

    t = m.type
    if isinstance(t, Int):
        code = _number(t)
        return None if code is None else (m.name, code, 0)
    if isinstance(t, CStr):
        if t.most is None:  # (a record with a string of any length: a chat message, read alone,
            return None     # is read faster by the generated code than through a program call)
        if t.encoding == "latin-1" and t.eight_bit is None:
            return (m.name, "a", _limit(t))
        return (m.name, "s", _limit(t)) if t.encoding == "utf-8" else None
    if isinstance(t, Bytes):
        arg = _count(t.size, lens)
        return None if arg is None else (m.name, "y", arg)
    if isinstance(t, Array) and t.kind is I16 and not t.as_bytes:
        if isinstance(t.count, Ref) and t.count.name in lens:
            return (m.name, "L", 0)
        if isinstance(t.count, Prefix):
            p = t.count
            return (m.name, "c", 0) if p.kind is U8 and not p.bias and p.most is None else None
        arg = _count(t.count)
        return None if arg is None else (m.name, "l", arg)
    if isinstance(t, Array) and t.kind is I32 and not t.as_bytes:
        arg = _count(t.count)
        return None if arg is None else (m.name, "j", arg)
    if isinstance(t, List):
        count = _count(t.count, lens)
        if isinstance(t.elem, Tuple) and [k for _, k in t.elem.parts] == [I16, U8]:
            return None if count is None or count == -1 else (m.name, "T", count)
        if isinstance(t.elem, CStr):
            e = t.elem
            if e.most is None or count is None:
                return None
            if e.encoding == "latin-1" and e.eight_bit is None:  # (the text of PWMAngband's files)
                return (m.name, "A", (count, _limit(e)))
            return (m.name, "S", (count, _limit(e))) if e.encoding == "utf-8" else None
        if isinstance(t.elem, Struct) and t.index is None:
            sub = _sub(t.elem)
            if sub is None:
                return None
            if isinstance(t.count, Rest):  # (up to the end of the bytes: see _derive)
                return (m.name, "R", sub) if any(c not in "DKz" for _, c, _ in sub.specs) else None
            if count is not None:
                return (m.name, "M", (sub, count))
            if isinstance(t.count, Prefix):
                p = t.count
                if p.bias or p.most is not None or p.kind not in (U8, U16):
                    return None
                return (m.name, "n" if p.kind is U8 else "N", sub)
        return None
    if isinstance(t, Until):
        sub = _sub(t.elem) if isinstance(t.elem, Struct) else None
        if sub is None:
            return None
        if type(t.stop) is str and isinstance(t.first, CStr) and t.first.encoding == "utf-8" \
                and t.first.most is not None:
            return (m.name, "U", (sub, t.stop, _limit(t.first)))
        if type(t.stop) is int and t.first is U8 and _starts_with_u8(sub):
            return (m.name, "U", (sub, t.stop, 0))
        return None
    if isinstance(t, Struct):
        sub = _sub(t)
        return None if sub is None else (m.name, "r", sub)
    return None


def _limit(t: CStr) -> int:
    """The most bytes of a string."""
    assert t.most is not None
    return t.most


def _starts_with_u8(prog: Program) -> bool:
    """Whether a stop byte can stand in place of the program's first field."""
    _, code, arg = prog.specs[0]
    return code == "B" or (code == "K" and arg[1] == "B")


def _on_model(expr: str, struct: Struct) -> str:

    names = set(struct.field_names())

    class _Rename(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.AST:
            if node.id in names:
                return ast.copy_location(ast.Attribute(ast.Name("m", ast.Load()), node.id, node.ctx), node)
            return node

    return ast.unparse(_Rename().visit(ast.parse(expr, mode="eval")))
