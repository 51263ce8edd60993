"""The compiled backend of record descriptions: a description turned into a C record program.

The C extension (:mod:`savecraft.compiled`) runs small record programs: one
field code per model slot (``B H h I i`` numbers, ``s`` a NUL-terminated
UTF-8 string with its limit, ``y`` bytes, ``l``/``c``/``C``+``L`` lists of
i16, ``T`` (i16, u8) pairs, ``r``/``n``/``N`` nested records and lists of
them, and two codes a format may lend a record: ``j`` one object and ``X`` an
object list of Angband). This module derives that program from a
:class:`~.compiler.Struct`, so the compiled path is a backend of the same one
description and never a second copy of a layout. A description that uses
anything the programs cannot express simply has no program; the generated
Python runs instead.

A program answers None for anything unusual (a string that is not UTF-8, a
count past the end): the generated code then reads the same bytes and gives
the same model or the exact error. Tests hold the two to each other.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..binary import active_sink
from ..compiled import speedups
from .context import Context
from .types import (
    I16,
    I32,
    U8,
    U16,
    U32,
    Array,
    Bytes,
    CStr,
    Ctx,
    Field,
    Int,
    Len,
    List,
    Prefix,
    Ref,
    SetCtx,
    Tuple,
)

if TYPE_CHECKING:
    from .compiler import Struct

_NUMBER = {id(U8): "B", id(U16): "H", id(I16): "h", id(U32): "I", id(I32): "i"}
_AVAILABLE = speedups is not None and hasattr(speedups, "record_program")
Spec = tuple[str, str, Any]  # (slot or "", code, argument: int, Context name or a sub-Program)


class Program:
    """The C program of one description, compiled per set of Context sizes it depends on."""

    def __init__(self, struct: Struct, specs: list[Spec], post: Callable[[Any, Context], None] | None,
                 checks: list[tuple[str, int, int]], size_names: tuple[str, ...]) -> None:
        self.struct = struct
        self.specs = specs
        self.post = post
        self.checks = checks
        self.size_names = size_names  # the six sizes the ``j``/``X`` codes read with
        self._ctx_names = tuple(_ctx_names(specs))
        self._compiled: dict[tuple[int, ...], object] = {}

    def compiled(self, ctx: Context) -> object | None:
        """The capsule for the sizes in ``ctx``; None while a size is unknown."""
        v = ctx.values
        try:
            key = tuple([v[n] for n in self.size_names]) + tuple([v[n] for n in self._ctx_names])
        except KeyError:
            return None
        prog = self._compiled.get(key)
        if prog is None:
            args = []
            for _, code, arg in self.specs:
                if isinstance(arg, Program):
                    sub = arg.compiled(ctx)
                    if sub is None:
                        return None
                    args.append(sub)
                elif isinstance(arg, str):
                    args.append(v[arg])
                else:
                    args.append(arg)
            sizes = tuple([v[n] for n in self.size_names]) if self.size_names else (0,) * 6
            cls = self.struct.cls
            prog = speedups.record_program(  # type: ignore[union-attr]
                cls, tuple(cls.__dict__[s] if s else None for s, _, _ in self.specs),
                "".join(c for _, c, _ in self.specs), tuple(args), sizes)
            if len(self._compiled) >= 64:  # files of many different sizes: keep memory bounded
                self._compiled.clear()
            self._compiled[key] = prog
        return prog

    def _valid(self, records: list[Any]) -> bool:
        for name, lo, hi in self.checks:
            for rec in records:
                if not lo <= getattr(rec, name) <= hi:
                    return False
        return True

    def read(self, data: Any, pos: int, end: int, ctx: Context, count: int,
             stop: Any = None) -> tuple[list[Any], int] | None:
        """``count`` records (or, with -1, those before ``stop`` in place of the first field)."""
        prog = self.compiled(ctx)
        if prog is None:
            return None
        got = speedups.read_records(prog, data, pos, end, count, stop)  # type: ignore[union-attr]
        if got is None or (self.checks and not self._valid(got[0])):
            return None
        if self.post is not None:
            for rec in got[0]:
                self.post(rec, ctx)
        return got  # type: ignore[no-any-return]

    def read_one(self, data: Any, pos: int, end: int, ctx: Context) -> tuple[Any, int] | None:
        if active_sink() is not None:
            return None
        got = self.read(data, pos, end, ctx, 1)
        return None if got is None else (got[0][0], got[1])

    def write(self, records: Any, ctx: Context, stop: Any = None) -> bytes | None:
        """The records' bytes, or None where the program cannot (the generated writer then
        writes them, or names what is wrong)."""
        if type(records) is not list or (self.checks and not self._valid(records)):
            return None
        prog = self.compiled(ctx)
        if prog is None:
            return None
        raw = speedups.write_records(prog, records, stop)  # type: ignore[union-attr]
        if raw is not None and self.post is not None:
            for rec in records:
                self.post(rec, ctx)
        return raw  # type: ignore[no-any-return]

    def write_one(self, model: Any, ctx: Context) -> bytes | None:
        return self.write([model], ctx)


def _ctx_names(specs: list[Spec]) -> list[str]:
    names: list[str] = []
    for _, _, arg in specs:
        if isinstance(arg, str):
            names.append(arg)
        elif isinstance(arg, Program):
            names.extend(arg._ctx_names)
    return names


def _count(count: Any) -> Any:
    """A program argument for a count: a number, a Context name, or None (not expressible)."""
    if isinstance(count, int):
        return count
    if isinstance(count, Ctx):
        return count.name
    return None


def program_of(struct: Struct) -> Program | None:
    """The C program of ``struct``, derived once; None without the extension or where the
    description uses what programs cannot express."""
    if not _AVAILABLE:
        return None
    cached = struct.__dict__.get("_program", False)
    if cached is not False:
        return cached  # type: ignore[no-any-return]
    prog = _derive(struct)
    struct.__dict__["_program"] = prog
    return prog


def _derive(struct: Struct) -> Program | None:
    if struct.native_code is not None:  # a record the extension reads with code of its own
        return None
    specs: list[Spec] = []
    checks: list[tuple[str, int, int]] = []
    post_lines: list[str] = []
    lens: dict[str, int] = {}
    for m in struct.members:
        if isinstance(m, Len):
            if m.kind is not U8 or m.most is None:
                return None
            lens[m.name] = m.most
            specs.append(("", "C", m.most))
            continue
        if isinstance(m, SetCtx):
            post_lines.append(f"ctx.set({m.name!r}, {_on_model(m.expr, struct)}, {struct.name!r})")
            continue
        if not isinstance(m, Field):
            return None
        spec = _field_spec(m, lens)
        if spec is None:
            return None
        specs.append(spec)
        if m.check is not None:
            checks.append((m.name, m.check.lo, m.check.hi))
        if m.export is not None:
            post_lines.append(f"ctx.set({m.export!r}, m.{m.name}, {struct.name!r})")
    if not specs:
        return None
    sizes: tuple[str, ...] = ()
    for m, (_, _, arg) in zip([m for m in struct.members if isinstance(m, Field | Len)], specs):
        if isinstance(arg, Program) and arg.size_names:
            sizes = arg.size_names
        elif isinstance(m, Field) and getattr(m.type, "native_code", None) is not None:
            sizes = m.type.native_sizes  # type: ignore[attr-defined]
    post = None
    if post_lines:
        ns: dict[str, Any] = {}
        exec(compile("def post(m, ctx):\n" + "\n".join("    " + line for line in post_lines),
                     f"<layout {struct.name} native>", "exec"), ns)
        post = ns["post"]
    return Program(struct, specs, post, checks, sizes)


def _field_spec(m: Field, lens: dict[str, int]) -> Spec | None:
    from .compiler import Struct

    t = m.type
    if isinstance(t, Int):
        code = _NUMBER.get(id(t))
        return None if code is None else (m.name, code, 0)
    if isinstance(t, CStr):
        if t.encoding != "utf-8" or t.most is None:
            return None
        return (m.name, "s", t.most)
    if isinstance(t, Bytes):
        arg = _count(t.size)
        return None if arg is None else (m.name, "y", arg)
    if isinstance(t, Array) and t.kind is I16 and not t.as_bytes:
        if isinstance(t.count, Ref) and t.count.name in lens:
            return (m.name, "L", 0)
        if isinstance(t.count, Prefix):
            p = t.count
            return (m.name, "c", 0) if p.kind is U8 and not p.bias and p.most is None else None
        arg = _count(t.count)
        return None if arg is None else (m.name, "l", arg)
    if isinstance(t, List):
        if isinstance(t.elem, Tuple) and [k for _, k in t.elem.parts] == [I16, U8]:
            arg = _count(t.count)
            return None if arg is None else (m.name, "T", arg)
        if isinstance(t.elem, Struct) and isinstance(t.count, Prefix):
            p = t.count
            sub = program_of(t.elem) if t.elem.native_code is None else None
            if sub is None or p.bias or p.most is not None or p.kind not in (U8, U16):
                return None
            return (m.name, "n" if p.kind is U8 else "N", sub)
        return None
    if isinstance(t, Struct):
        if t.native_code is not None:
            return (m.name, t.native_code, 0)
        sub = program_of(t)
        return None if sub is None else (m.name, "r", sub)
    return None


def _on_model(expr: str, struct: Struct) -> str:
    import ast

    names = set(struct.field_names())

    class _Rename(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.AST:
            if node.id in names:
                return ast.copy_location(ast.Attribute(ast.Name("m", ast.Load()), node.id, node.ctx), node)
            return node

    return ast.unparse(_Rename().visit(ast.parse(expr, mode="eval")))
