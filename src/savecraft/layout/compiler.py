"""From one record description, the four pieces of code that move its bytes.

A :class:`Struct` is declared once (the model class and its members in file
order) and compiled, on first use, into:

- a fast reader over raw bytes: runs of fixed fields are one
  ``unpack_from``, strings one ``find``; it gives up (raises) on anything
  unusual, and nothing it did is kept;
- a checked reader through a :class:`~savecraft.binary.Reader`: every
  problem is a :class:`~savecraft.errors.FormatError` with offset, field path,
  expected and found, and while spans are recorded each field (and each list
  element as a whole) gets its byte span, under the model's own paths;
- a fast writer that appends parts, and a checked writer through a
  :class:`~savecraft.binary.Writer` that names the field a bad value is in.

:meth:`Struct.read` runs the fast reader and, when it gives up or spans are
recorded, the checked one from the same start, so both always agree: the
checked reader is the definition, the fast one an optimisation of it, and
there is no second copy of the layout to drift. The C record program derived
from the same description (:mod:`.native`), where the extension is built, is
tried first; it answers None for anything it does not handle and the
generated code takes over.
"""

from __future__ import annotations

import ast
import dataclasses
import re
import struct
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from ..binary import Reader, Writer, cached_struct, join_path, plural, rename_spans, span_mark
from ..errors import FormatError
from .context import Context, LayoutError, NotCanonical
from .native import program_of
from .types import (
    Adapt,
    Array,
    Check,
    Columns,
    Computed,
    Const,
    EightBitText,
    Field,
    Int,
    Len,
    List,
    Member,
    Parallel,
    Range,
    Ref,
    Requires,
    SetCtx,
    Stored,
    Terminated,
    Type,
    Until,
    When,
    count_checked,
    count_fast,
)


class _Slow(Exception):
    """The fast path met something unusual: the checked path says exactly what."""


FAST_READ_ERRORS = (_Slow, struct.error, IndexError, ValueError, KeyError, TypeError, OverflowError)
FAST_WRITE_ERRORS = (_Slow, struct.error, IndexError, ValueError, KeyError, TypeError,
                     OverflowError, AttributeError)


_CS: dict[tuple[str, int], struct.Struct] = {}


def _cs(code: str, n: int) -> struct.Struct:
    """The compiled struct of ``n`` records of ``code``: one dict look-up when seen before (a
    table of 100,000 users asks for four per user)."""
    got = _CS.get((code, n))
    if got is None:
        got = cached_struct(f"<{n}{code}") if len(code) == 1 else cached_struct("<" + code * n)
        if len(_CS) < 4096:
            _CS[code, n] = got
    return got


def _read_cstr(r: Reader, name: str, most: int | None, encoding: str,
               eight_bit: str | None = None) -> str:
    start = r.pos
    if eight_bit is None:
        text = r.cstr(name, encoding)
    else:
        raw = r.cstr(name, "latin-1").encode("latin-1")  # every byte decodes: the bytes as stored
        try:
            text = raw.decode(encoding)
        except UnicodeDecodeError:
            try:
                text = EightBitText(raw.decode(eight_bit), eight_bit)
            except UnicodeDecodeError as exc:
                r.fail(name, f"a {encoding} or {eight_bit} string", f"byte 0x{raw[exc.start]:02X}",
                       at=start + exc.start)
    if most is not None and r.pos - start - 1 > most:
        r.fail(name, f"a string of at most {most} bytes (the game's buffer)",
               f"{r.pos - start - 1} bytes", at=start)
    return text


def _write_cstr(w: Writer, text: str, name: str, most: int | None, encoding: str,
                eight_bit: str | None = None) -> None:
    if not isinstance(text, str):
        raise FormatError(None, join_path(w.path, name), "a string", type(text).__name__)
    if eight_bit is not None and isinstance(text, EightBitText):
        encoding = text.encoding  # written back in the encoding it was read in
    try:
        raw = text.encode(encoding)
    except UnicodeEncodeError as exc:
        raise FormatError(None, join_path(w.path, name), f"text the game's encoding ({encoding}) "
                          "can store", repr(text[exc.start])) from None
    if (most is not None and len(raw) > most) or b"\0" in raw:
        raise FormatError(None, join_path(w.path, name),
                          f"text of at most {most} bytes without NUL" if most is not None
                          else "text without NUL",
                          f"{len(raw)} bytes" if b"\0" not in raw else "a NUL character")
    w.bytes(raw + b"\0", name)


def _exact(raw: bytes, n: int) -> bytes:
    """``raw`` when it is ``n`` bytes (a fast write gives up otherwise)."""
    if type(raw) is not bytes or len(raw) != n:
        raise _Slow
    return raw


def _note_items(r: Reader, n: int, size: int, fields: tuple[tuple[str, int, int], ...], name: str) -> None:
    """The spans of ``n`` fixed records at the reader's position, as reading each would note
    them: each record's, then each of its fields'."""
    sink = r.spans
    if sink is None or not n:
        return
    append, space = sink.log.entries.append, sink.space
    where, at = join_path(r.path, name), r.base + r.pos
    for k in range(n):
        item, a = f"{where}[{k}]", at + k * size
        append((space, a, size, item))
        for fname, off, fsize in fields:
            append((space, a + off, fsize, f"{item}.{fname}"))


def _check_len(values: Any, n: int, name: str, what: str) -> None:
    try:
        size = len(values)
    except TypeError:
        raise FormatError(None, name, f"{n} {what}", type(values).__name__) from None
    if size != n:
        raise FormatError(None, name, f"{n} {what}", str(size))


def _check_bytes(value: Any, name: str) -> None:
    if not isinstance(value, bytes | bytearray):
        raise FormatError(None, name, "bytes", type(value).__name__)


def _open(r: Reader) -> int:
    """Reserve the span entry of a whole element, so it stays before its fields (outer first)."""
    sink = r.spans
    if sink is None:
        return -1
    entries = sink.log.entries
    entries.append(("", 0, 0, ""))
    return len(entries) - 1


def _close(r: Reader, idx: int, start: int, name: str) -> None:
    if idx >= 0 and r.spans is not None:
        r.spans.log.entries[idx] = (r.spans.space, r.base + start, r.pos - start,
                                    join_path(r.path, name))


def _short(r: Reader, fields: tuple[tuple[str, int], ...], size: int, what: str, pre: str) -> None:
    """A record read whole (``Struct(..., whole=True)``) that the bytes left cannot hold: one
    problem naming the record, at the field where the bytes run out."""
    have = r.end - r.pos
    name, at = fields[0] if fields else ("", 0)
    for fname, off in fields:
        if have >= off:
            name, at = fname, off
    r.fail(pre + name, f"{plural(size, 'byte')} of {what}",
           f"the end of {r.what} after {plural(have, 'byte')}", at=r.pos + at)


_NOTHING = object()
_PEEKS: dict[int, Callable[..., Any]] = {}


def _peek(r: Reader, kind: Type) -> Any:
    """The value ``kind`` would read at the reader's position, without reading it (or a value
    equal to nothing when it cannot: the checked read that follows then says why)."""
    fn = _PEEKS.get(id(kind))
    if fn is None:
        e = Emitter(dict(_RUNTIME), "def pk(d, pos, end, ctx):", set())
        kind.fast_read(e, "v")
        e.line("return v")
        fn = _PEEKS[id(kind)] = e.define("<layout peek>")
    try:
        return fn(r.data, r.pos, r.end, None)
    except FAST_READ_ERRORS:
        return _NOTHING


_RUNTIME: dict[str, Any] = {
    "_Slow": _Slow, "_cs": _cs, "_read_cstr": _read_cstr, "_write_cstr": _write_cstr,
    "_check_len": _check_len, "_check_bytes": _check_bytes, "_open": _open, "_close": _close,
    "_mark": span_mark, "_rename": rename_spans, "_j": join_path,
    "_peek": _peek, "_Reader": Reader, "_exact": _exact, "_short": _short, "_note_items": _note_items, "_found": lambda v: _found(v),
    "FormatError": FormatError, "NotCanonical": NotCanonical, "LayoutError": LayoutError,
}


class Emitter:
    """Source lines of one generated function, and the names they use."""

    def __init__(self, ns: dict[str, Any], header: str, fields: set[str]) -> None:
        # ``left`` in expressions: the bytes left to read (readers only)
        self.left = "(end - pos)" if "d, pos, end" in header else "(r.end - r.pos)" \
            if header.startswith("def cr") else "0"
        self.ns = ns
        self.lines = [header]
        self.depth = 1
        self.n = 0
        self.field = ""
        self.fields = fields
        # Names of locals in use (a nested record's skim is inlined only when it shares none)
        self.taken: set[str] = set(fields)
        # Set for a reader that builds something else than the model from the same description
        # (JSON objects): ``build(cls)`` is called where the model's class would be.
        self.build: Callable[[type], Any] | None = None

    def line(self, text: str) -> None:
        self.lines.append("    " * self.depth + text)

    @contextmanager
    def indented(self) -> Iterator[None]:
        self.depth += 1
        try:
            yield
        finally:
            self.depth -= 1

    def tmp(self, prefix: str) -> str:
        self.n += 1
        return f"_{prefix}{self.n}"

    def const(self, value: Any, prefix: str) -> str:
        for k, v in self.ns.items():
            if k.startswith("K_") and v is value and type(v) is type(value):
                return k
        name = f"K_{prefix}{len(self.ns)}"
        self.ns[name] = value
        return name

    def struct(self, code: str) -> str:
        return self.const(cached_struct("<" + code), "S")

    def local(self, name: str) -> str:
        """The generated local of a member: a stored size may be named by its path
        (``hero.size``)."""
        return "v_" + name.replace(".", "__")

    def sibling(self, name: str) -> str:
        return f"pre + {name!r}"

    def is_record(self, elem: Type) -> bool:
        return isinstance(elem, Struct)

    def native_lists(self, elem: Type) -> tuple[str, str] | None:
        """Names of the compiled list reader and writer of ``elem`` (see :mod:`.native`)."""
        prog = program_of(elem) if isinstance(elem, Struct) and self.build is None else None
        if prog is None:
            return None
        return self.const(prog.read, "nr"), self.const(prog.write, "nw")

    def fast_reader(self, elem: Type) -> str:
        assert isinstance(elem, Struct), "lists of this type are read in one step"
        if self.build is not None:
            return self.const(elem.built_read_fn(self.build), "fb")
        return self.const(elem.fast_read_fn, "fr")

    def skipper(self, elem: Type) -> str:
        assert isinstance(elem, Struct)
        return self.const(elem.fast_skip_fn, "fs")

    def span_fields(self, elem: Type) -> tuple[tuple[str, int, int], ...] | None:
        """Each stored field of a fixed record (name, offset, size), when its checked read
        notes exactly those spans (fields of single values; no arrays, no nested records)."""
        if not isinstance(elem, Struct) or elem.code is None:
            return None
        out, at = [], 0
        for m in elem.members:
            if isinstance(m, Computed) or isinstance(m, Check) and not m.on_read:
                continue
            if not isinstance(m, Field | Stored):
                return None
            t = _fixed_type(m)
            if t.code is None or t.width != 1 or isinstance(t, Struct | Adapt):
                return None
            size = struct.calcsize("<" + t.code)
            out.append((m.name, at, size))
            at += size
        return tuple(out)

    def cls_const(self, cls: type) -> str:
        """The name of what builds a record of ``cls`` in a fast read (the class itself)."""
        return self.const(cls if self.build is None else self.build(cls), "cls")

    def fast_writer(self, elem: Type) -> str:
        assert isinstance(elem, Struct)
        return self.const(elem.fast_write_fn, "fw")

    def first_field(self, elem: Type) -> str:
        """The model field an end value stands in place of ("" when the record starts with a
        constant, which can never equal it)."""
        assert isinstance(elem, Struct)
        return elem.first_field if isinstance(elem.members[0], Field) else ""

    def element_read(self, elem: Type, lst: str, name: str) -> None:
        """One list element, checked, its whole span noted before its fields."""
        x, s, st = self.tmp("x"), self.tmp("s"), self.tmp("st")
        self.line(f"{s} = _open(r)")
        self.line(f"{st} = r.pos")
        self.line("try:")
        with self.indented():
            if isinstance(elem, Struct):
                self.line(f"{x} = {self.const(elem.checked_read_fn, 'cr')}(r, ctx, {name} + '.')")
            else:
                elem.checked_read(self, x, name)
        self.line("finally:")
        self.line(f"    _close(r, {s}, {st}, {name})")
        self.line(f"{lst}.append({x})")

    def element_write(self, elem: Type, x: str, name: str) -> None:
        if isinstance(elem, Struct):
            self.line(f"{self.const(elem.checked_write_fn, 'cw')}({x}, w, ctx, {name} + '.')")
        else:
            elem.checked_write(self, x, name)

    def expr(self, source: str) -> str:
        """``source`` with the record's field names turned into the generated locals."""
        tree = ast.parse(source, mode="eval")
        fields = self.fields
        left = ast.parse(self.left, mode="eval").body

        class _Rename(ast.NodeTransformer):
            def visit_Name(self, node: ast.Name) -> ast.AST:
                if node.id in fields:
                    return ast.copy_location(ast.Name(f"v_{node.id}", node.ctx), node)
                if node.id == "left":
                    return ast.copy_location(left, node)
                return node

        return ast.unparse(_Rename().visit(tree))

    def define(self, title: str) -> Any:
        name = self.lines[0].removeprefix("def ").split("(")[0]
        if len(self.lines) == 1:  # a record of no bytes (a block the game leaves empty)
            self.lines.append("    pass")
        exec(compile("\n".join(self.lines), title, "exec"), self.ns)
        return self.ns[name]


_AP = re.compile(r"\bap\b")


def _straight(e: Emitter) -> None:
    """A packer whose pieces are all appended at the top level (no loop or condition appends
    one) adds them up instead of joining a list: a message of a few fields is one expression."""
    top = "    ap("
    # (``ap`` passed on, to a nested record's writer in a loop, is an append too)
    if any(_AP.search(line) and not line.startswith(top) for line in e.lines[3:-1]):
        return
    out, pieces = e.lines[:1], list[str]()
    for line in e.lines[3:-1]:
        if line.startswith(top):
            pieces.append(f"_p{len(pieces)}")
            out.append(f"    {pieces[-1]} = {line[len(top):-1]}")
        else:
            out.append(line)
    out.append(f"    return {' + '.join(pieces) or repr(b'')}")
    e.lines[:] = out


def _run_of(member: Member) -> Type | None:
    """The member's type when it can join a run of fixed fields read in one unpack."""
    if isinstance(member, Field | Const) and member.type.code is not None:
        return member.type
    if isinstance(member, Len | Stored) and member.kind.code is not None:
        return member.kind
    return None


class Struct(Type):
    """A record: a model class and its members in file order (see :mod:`.types`).

    ``name`` names the record in messages and as the source of the Context
    values it sets; ``env``, names its expressions may use besides its fields.
    ``whole``: a record of fixed size the game reads in one piece (a file's or a block's
    header): too few bytes for it is one problem naming the record ("28 bytes of block
    header") at the field where they run out. Where the C extension is built, the record's
    program (:mod:`.native`, derived from the same members) is tried first.
    """

    def __init__(self, cls: type, members: Sequence[Member], *, name: str | None = None,
                 env: dict[str, Any] | None = None, whole: bool = False) -> None:
        self.cls = cls
        # Names the expressions of ``Computed``, ``Stored``, ``Check``... may use beyond the
        # record's fields and ``ctx`` (an enum the stored number is seen as).
        self.env = dict(env or {})
        self.members = tuple(members)
        self.name = name or cls.__name__
        self.min_size = sum(_member_min(m) for m in self.members)
        self.whole = whole
        if whole and self._offsets() is None:
            raise TypeError(f"{self.name}: only a record of fixed-size members is read whole")
        self._whole_size = self.min_size if whole else 0  # every member's size, fixed
        self._gen: dict[str, Any] = {}
        self._built: dict[Any, Any] = {}
        self._ns: dict[str, Any] | None = None
        self._fast: tuple[Any, Any] | None = None
        self._packer: Callable[[Any, Context], bytes] | None = None
        firsts = [m.name for m in self.members if isinstance(m, Field)]
        self.first_field = firsts[0] if firsts else ""
        # A record of plain fixed fields is itself fixed: lists of it are one unpack.
        plain = [m for m in self.members if isinstance(m, Field) and m.type.code is not None
                 and m.check is None and m.export is None]
        if plain and len(plain) == len(self.members) and self._construct().startswith("K_cls(v_"):
            self.code = "".join(m.type.code or "" for m in plain)
            self.width = sum(m.type.width for m in plain)
        # A record whose bytes are fixed and can hold no value the fast reader refuses (fields
        # and stored values without checks, values computed from them) is skipped by its size.
        self.skip_size: int | None = None
        stored = [m for m in self.members if not isinstance(m, Computed)
                  and not (isinstance(m, Check) and not m.on_read)]
        fixed = [m for m in stored if isinstance(m, Field | Stored) and _is_fixed(m)]
        if fixed and len(fixed) == len(stored):
            self.skip_size = sum(struct.calcsize("<" + (_fixed_type(m).code or "")) for m in fixed)
            if self.code is None and isinstance(self.cls, type) and dataclasses.is_dataclass(self.cls) \
                    and sorted(self._init()) == sorted(self.field_names()) \
                    and all(isinstance(_fixed_type(m), Int) for m in fixed):
                self.code = "".join(_fixed_type(m).code or "" for m in fixed)
                self.width = len(fixed)

    def __repr__(self) -> str:
        return f"Struct({self.name})"

    def describe(self) -> str:
        return self.name

    def _offsets(self) -> tuple[tuple[str, int], ...] | None:
        """Each stored member's name and offset in a record of fixed-size members (None for
        any other record)."""
        out, at = [], 0
        for m in self.members:
            if isinstance(m, Computed | Check | SetCtx | Requires):
                continue
            if not isinstance(m, Field | Const | Len | Stored):
                return None
            size = (m.kind if isinstance(m, Len | Stored) else m.type).fixed_size()
            if size is None:
                return None
            out.append((m.name, at))
            at += size
        return tuple(out)

    def offset_of(self, name: str) -> int:
        """Where the stored member ``name`` starts in a record of fixed-size members (a check
        a format makes after the read reports its problem there)."""
        offsets = dict(self._offsets() or ())
        if name not in offsets:
            raise KeyError(f"{self.name}: no fixed member {name!r}")
        return offsets[name]

    # -- the model's fields ----------------------------------------------------------------
    def field_names(self) -> list[str]:
        out: list[str] = []
        for m in self.members:
            if isinstance(m, Field):
                out.append(m.name)
            elif isinstance(m, Columns):
                out.extend(c[0] for c in m.columns)
            elif isinstance(m, Terminated):
                out.extend((m.name, m.end))
            elif isinstance(m, When):
                out.extend(f.name for f in m.fields if isinstance(f, Field | Computed))
                if m.flag is not None:
                    out.append(m.flag)
            elif isinstance(m, Parallel | Computed):
                out.append(m.name)
        return out

    # -- as a fixed run inside another record (only when ``code`` is set) -------------------
    # A record of fixed fields, or of fixed stored values and fields computed from them (a word
    # split into an id and a flag), is read inline from the unpacked values: its fields'
    # expressions are substituted into one constructor call.
    def from_flat(self, e: Emitter, flat: list[str]) -> str:
        env: dict[str, str] = {}
        k = 0
        for m in self.members:
            if isinstance(m, Field | Stored):
                t = _fixed_type(m)
                env[m.name] = t.from_flat(e, flat[k:k + t.width])
                k += t.width
            elif isinstance(m, Computed):
                env[m.name] = _substitute(m.expr, env)
        return f"{e.cls_const(self.cls)}({', '.join(env[n] for n in self._init())})"

    def _on(self, value: str) -> dict[str, str]:
        return {n: f"{value}.{n}" for n in self.field_names()}

    def to_flat(self, e: Emitter, value: str) -> list[str]:
        out: list[str] = []
        for m in self.members:
            if isinstance(m, Field):
                out.extend(m.type.to_flat(e, f"{value}.{m.name}"))
            elif isinstance(m, Stored):
                out.extend(m.kind.to_flat(e, _substitute(m.write, self._on(value))))
        return out

    def check_flat(self, e: Emitter, value: str) -> None:
        for m in self.members:
            if isinstance(m, Field):
                m.type.check_flat(e, f"{value}.{m.name}")
            elif isinstance(m, Check) and m.on_write:
                e.line(f"if not ({_substitute(m.expr, self._on(value))}): raise _Slow")

    def _init(self) -> list[str]:
        return [f.name for f in dataclasses.fields(self.cls) if f.init]

    def _construct(self) -> str:
        names = self.field_names()
        init = [f.name for f in dataclasses.fields(self.cls) if f.init] \
            if dataclasses.is_dataclass(self.cls) else []
        if init and sorted(init) == sorted(names):
            return f"K_cls({', '.join('v_' + n for n in init)})"
        return f"K_cls({', '.join(f'{n}=v_{n}' for n in names)})"

    # -- compiling -----------------------------------------------------------------------------
    _GENERATORS = {"fr": ("def fr(d, pos, end, ctx):", "_gen_fast_read"),
                   "cr": ("def cr(r, ctx, pre):", "_gen_checked_read"),
                   "fs": ("def fs(d, pos, end, ctx):", "_gen_fast_skip"),
                   "fw": ("def fw(m, ap, ctx):", "_gen_fast_write"),
                   "cw": ("def cw(m, w, ctx, pre):", "_gen_checked_write")}

    def _generated(self, kind: str) -> Any:
        """One generated function, compiled the first time it is needed: a load compiles only
        the fast readers it runs (compiling costs ~0.3 ms a function, a file's start-up)."""
        fn = self._gen.get(kind)
        if fn is None:
            if self._ns is None:
                self._ns = {**self.env, **_RUNTIME}
                self._ns["K_cls"] = self.cls
            header, gen = self._GENERATORS[kind]
            fn = getattr(self, gen)(Emitter(self._ns, header, self._known())).define(f"<layout {self.name}>")
            self._gen[kind] = fn
        return fn

    def _compile(self) -> tuple[Any, Any, Any, Any]:
        """The four generated functions (without the native backend)."""
        return (self._generated("fr"), self._generated("cr"), self._generated("fw"),
                self._generated("cw"))

    def source(self) -> str:
        """The generated code, for reading (what :meth:`read` and :meth:`write` run)."""
        ns: dict[str, Any] = {}
        known = self._known()
        parts = [self._gen_fast_read(Emitter(ns, "def fr(d, pos, end, ctx):", known)),
                 self._gen_checked_read(Emitter(ns, "def cr(r, ctx, pre):", known)),
                 self._gen_fast_write(Emitter(ns, "def fw(m, ap, ctx):", known)),
                 self._gen_checked_write(Emitter(ns, "def cw(m, w, ctx, pre):", known))]
        return "\n\n".join("\n".join(p.lines) for p in parts)

    def _known(self) -> set[str]:
        """Names generated code may refer to (fields and stored counts)."""
        members = [*self.members, *[f for m in self.members if isinstance(m, When) for f in m.fields]]
        return set(self.field_names()) | {m.name for m in members if isinstance(m, Len | Const | Stored)}

    def _runs(self) -> list[list[Member] | Member]:
        out: list[list[Member] | Member] = []
        run: list[Member] = []
        for m in self.members:
            if _run_of(m) is not None:
                run.append(m)
                continue
            if run:
                out.append(run)
                run = []
            out.append(m)
        if run:
            out.append(run)
        return out

    def _gen_fast_read(self, e: Emitter) -> Emitter:
        for item in self._runs():
            if isinstance(item, list):
                self._fast_run(e, item)
            else:
                self._fast_member(e, item)
        e.line(f"return {self._construct()}, pos")
        return e

    def _fast_run(self, e: Emitter, item: list[Member], unused: Callable[[Member], bool] | None = None,
                  skip: int = 0) -> None:
        """A run of fixed members: one unpack, then each member's value and checks (but for the
        ``unused`` ones, in a skim, which may also step ``skip`` bytes before the run: one bound
        check for both)."""
        code = "".join(_run_of(m).code or "" for m in item)  # type: ignore[union-attr]
        size = struct.calcsize("<" + code)
        e.line(f"if pos + {skip + size} > end: raise _Slow")
        if unused is not None:  # a skim: each row of values it uses unpacked alone, where it is
            at, start = skip, skip
            group: list[Member] = []
            for m in [*item, None]:
                t = _run_of(m) if m is not None else None
                if group and (m is None or unused(m)):
                    self._skim_group(e, group, start)
                    group = []
                if m is None or t is None:
                    break
                if not unused(m):
                    if not group:
                        start = at
                    group.append(m)
                at += struct.calcsize("<" + (t.code or ""))
            e.line(f"pos += {skip + size}")
            return
        e.line(f"_t = {e.struct(code)}.unpack_from(d, pos)")
        e.line(f"pos += {size}")
        k = 0
        for m in item:
            t = _run_of(m)
            assert t is not None
            e.field = m.name  # type: ignore[union-attr]
            value = t.from_flat(e, [f"_t[{k + j}]" for j in range(t.width)])
            k += t.width
            self._fast_after(e, m, value)

    def _skim_group(self, e: Emitter, group: list[Member], start: int) -> None:
        """A row of a run's values a skim uses, unpacked in one step at ``pos + start``: straight
        into their locals when each is one plain number (no tuple kept, no indexing)."""
        st = e.struct("".join(_run_of(g).code or "" for g in group))  # type: ignore[union-attr]
        at = f"pos + {start}" if start else "pos"
        plain = all(isinstance(g, Field | Len | Stored) and (t := _run_of(g)) is not None and t.width == 1
                    and t.from_flat(e, ["_x"]) == "_x" for g in group)
        if plain:
            names = [e.local(g.name) for g in group]  # type: ignore[union-attr]
            if all(_run_of(g).code == "B" for g in group):  # type: ignore[union-attr]
                for k, name in enumerate(names):  # bytes: indexing, cheaper than a call
                    e.line(f"{name} = d[pos + {start + k}]")
            else:
                e.line(f"{', '.join(names)}, = {st}.unpack_from(d, {at})")
            for g in group:
                e.field = g.name  # type: ignore[union-attr]
                if isinstance(g, Field | Len):
                    self._fast_checks(e, g)
            return
        e.line(f"_t = {st}.unpack_from(d, {at})")
        k = 0
        for g in group:
            gt = _run_of(g)
            assert gt is not None
            e.field = g.name  # type: ignore[union-attr]
            self._fast_after(e, g, gt.from_flat(e, [f"_t[{k + j}]" for j in range(gt.width)]))
            k += gt.width

    def _stepped(self, e: Emitter, m: Member) -> str | None:
        """``count * size``: the bytes of a list or array of fixed elements a skim steps over,
        when its count is a stored unsigned count of this record (never negative): added to the
        bytes stepped over with one bound check for all of them, as the fast reader's own checks
        (this one's first) would refuse the same records."""
        if not isinstance(m, Field) or not isinstance(m.type, Array | List):
            return None
        t = m.type
        if not isinstance(t.count, Ref):
            return None
        if isinstance(t, List):
            size = t.elem.fixed_size() if t.index is None and t._rest_count() is None else None
        else:
            size = t.kind.min_size
        count = next((c for c in self.members if isinstance(c, Len) and c.name == t.count.name), None)
        if size is None or count is None or count.kind.lo < 0:
            return None
        return f"{e.local(count.name)} * {size}"

    def _shared_sums(self, e: Emitter) -> set[str]:
        """Sums of stored values (``a * 4 + b * 8``) that two of this record's read checks, or a
        check and the bytes of the lists they count, both use: a skim computes each once. Only
        sums of the ``v_`` locals a skim assigns once (never ``pos``, ``end``)."""
        seen: dict[str, int] = {}

        def plain(node: ast.expr) -> bool:
            return isinstance(node, ast.BinOp) and all(
                isinstance(n, ast.BinOp | ast.Constant | ast.operator | ast.Load)
                or isinstance(n, ast.Name) and n.id.startswith("v_") for n in ast.walk(node))

        for m in self.members:
            if isinstance(m, Check) and m.on_read:
                tree = ast.parse(e.expr(m.expr), mode="eval").body
                if isinstance(tree, ast.Compare) and len(tree.comparators) == 1:
                    for side in (tree.left, tree.comparators[0]):
                        if plain(side):
                            seen[ast.unparse(side)] = seen.get(ast.unparse(side), 0) + 1
        steps = [step for m in self.members if (step := self._stepped(e, m)) is not None]
        if steps:
            text = " + ".join(steps)
            seen[text] = seen.get(text, 0) + 1
        return {text for text, n in seen.items() if n > 1}

    @staticmethod
    def _inlinable(e: Emitter, sub: Struct) -> bool:
        """A nested record of no fixed size is skimmed in place (no call per record) when none
        of its names is one this function already uses, nor its names of values another's."""
        return sub.fixed_size() is None and not sub._known() & e.taken and \
            all(e.ns.get(k, v) is v for k, v in sub.env.items())

    @staticmethod
    def _inline(e: Emitter, sub: Struct, pending: int, counted: list[str]) -> None:
        """The lines of ``sub``'s skim here, carrying the bytes stepped over before it."""
        known = sub._known()
        e.ns.update(sub.env)
        inner = Emitter(e.ns, "def fs(d, pos, end, ctx):", known)
        inner.depth, inner.n, inner.build = e.depth, e.n, e.build
        inner.taken = e.taken | known
        sub._gen_fast_skip(inner, inline=True, carry=(pending, counted))
        e.lines.extend(inner.lines[1:])
        e.n = inner.n
        e.taken = inner.taken

    def _gen_fast_skip(self, e: Emitter, pick: tuple[str, ...] = (), inline: bool = False,
                       carry: tuple[int, list[str]] = (0, [])) -> Emitter:
        """The fast reader without the values nothing reads again: where the record ends when
        the fast reader would read it (it raises where that one gives up). Lists, arrays and
        nested records are stepped over; what a count, a check or an expression uses is read.
        ``pick``: the fields whose values it returns too (see :meth:`picker`); ``inline``: the
        lines only, set in a skim of a record holding this one (no return), ``carry`` the bytes
        it stepped over just before.

        Bytes stepped over are added up (fixed sizes, and lists of fixed elements by their
        counts) and bound-checked once, before the next value read (with a run's own check);
        a nested record of no fixed size is skimmed in place (:meth:`_inlined`): the skim of a
        USER chunk runs as one function with two unpacks and three bound checks."""
        subs: dict[str, list[str]] = {}
        for name in pick:
            first, _, rest = name.partition(".")
            subs.setdefault(first, [])
            if rest:
                subs[first].append(rest)
        needed = self._needed() | set(subs)

        def free(m: Member) -> bool:
            return isinstance(m, Field) and m.name not in needed and m.check is None and m.export is None

        shared = self._shared_sums(e)
        hoisted: dict[str, str] = {}  # a sum of stored values -> the local it was computed into

        def sum_of(text: str) -> str:
            """``text``, or the local already holding it (computed here when it is shared)."""
            if text in hoisted:
                return hoisted[text]
            if text in shared:
                hoisted[text] = e.tmp("sum")
                e.line(f"{hoisted[text]} = {text}")
                return hoisted[text]
            return text

        pending = carry[0]  # bytes of values stepped over, not yet added (one step for a row of them)
        counted: list[str] = list(carry[1])  # lists stepped over by their counts, not yet added

        def flush(before_run: bool = False) -> int:
            """Add what was stepped over; before a run, the fixed part is left to the run's
            own check (returned)."""
            nonlocal pending
            fixed = pending
            pending = 0
            if counted:
                step = sum_of(" + ".join(counted))
                e.line(f"pos += {step if before_run or not fixed else f'{step} + {fixed}'}")
                counted.clear()
                if before_run:
                    return fixed
                e.line("if pos > end: raise _Slow")
                return 0
            if before_run:
                return fixed
            if fixed:
                e.line(f"if pos + {fixed} > end: raise _Slow")
                e.line(f"pos += {fixed}")
            return 0

        for item in self._runs():
            if isinstance(item, Check) and not item.on_read:  # the writer's: nothing to read
                continue
            if isinstance(item, list) and all(free(m) for m in item):
                pending += struct.calcsize("<" + "".join(_run_of(m).code or "" for m in item))  # type: ignore[union-attr]
            elif isinstance(item, Field) and free(item) and item.type.fixed_size() is not None:
                pending += item.type.fixed_size() or 0
            elif not isinstance(item, list) and free(item) and (step := self._stepped(e, item)) is not None:
                counted.append(step)
            elif isinstance(item, list):
                skip = flush(before_run=True)
                self._fast_run(e, item, lambda m: free(m) and _run_of(m).fixed_size() is not None,  # type: ignore[union-attr]
                               skip)
            elif isinstance(item, Check):
                flush()
                tree = ast.parse(e.expr(item.expr), mode="eval").body
                texts = [ast.unparse(side) for side in (getattr(tree, "left", tree), *getattr(tree, "comparators", ()))]
                if isinstance(tree, ast.Compare) and len(texts) == 2 and (set(texts) & shared):
                    sides = [sum_of(text) for text in texts]  # a local, or the side in brackets
                    sides = [side if side.startswith("_sum") else f"({side})" for side in sides]
                    op = ast.unparse(ast.Compare(ast.Name("a"), tree.ops, [ast.Name("b")]))[2:-2]
                    e.line(f"if not ({sides[0]} {op} {sides[1]}): raise _Slow")
                else:
                    self._fast_member(e, item)
            elif free(item) and isinstance(item.type, Struct) and self._inlinable(e, item.type):  # type: ignore[union-attr]
                self._inline(e, item.type, pending, counted)  # type: ignore[union-attr]
                pending = 0
                counted.clear()
            else:
                flush()
                if isinstance(item, Field) and subs.get(item.name) and isinstance(item.type, Struct):
                    sub = item.type.picker(tuple(subs[item.name]), e.build)
                    e.line(f"{e.local(item.name)}, pos = {e.const(sub, 'pk')}(d, pos, end, ctx)")
                elif free(item):
                    assert isinstance(item, Field)
                    e.field = item.name
                    item.type.fast_skip(e)
                else:
                    self._fast_member(e, item)
        flush()
        if inline:
            return e
        if not pick:
            e.line("return pos")
            return e
        out = []
        for name in pick:
            first, _, rest = name.partition(".")
            out.append(f"{e.local(first)}[{subs[first].index(rest)}]" if rest else e.local(first))
        e.line(f"return ({', '.join(out)},), pos")
        return e

    def picker(self, names: tuple[str, ...], build: Callable[[type], Any] | None = None
               ) -> Callable[..., tuple[tuple[Any, ...], int]]:
        """``pick(d, pos, end, ctx) -> (values, end)``: the skim that also returns the values of
        ``names`` (``"entity.x"``: a field of a nested record), in that order. A few values of
        thousands of records (a table's columns) read without building the records; records
        inside a value picked whole are built by ``build(cls)`` when given (tuples, say)."""
        key = (names, build)
        fn = self._built.get(key)
        if fn is None:
            ns = dict(_RUNTIME)
            ns["K_cls"] = self.cls if build is None else build(self.cls)
            e = Emitter(ns, "def pk(d, pos, end, ctx):", self._known())
            e.build = build
            fn = self._built[key] = self._gen_fast_skip(e, names).define(f"<layout {self.name} pick>")
        return fn  # type: ignore[no-any-return]

    def pick_from(self, record: Any, names: tuple[str, ...], build: Callable[[type], Any] | None = None
                  ) -> tuple[Any, ...]:
        """The values :meth:`picker` returns for ``names``, taken from a record already decoded
        (one the picker gave up on and the checked reader read, or one edited in memory), so a
        caller has one shape of answer whichever way the record came."""
        def rebuilt(value: Any) -> Any:
            if isinstance(value, list):
                return [rebuilt(v) for v in value]
            if build is not None and dataclasses.is_dataclass(value) and not isinstance(value, type):
                return build(type(value))(*(rebuilt(getattr(value, f.name))
                                            for f in dataclasses.fields(value) if f.init))
            return value

        def pick(struct: Struct, obj: Any, name: str) -> Any:
            first, _, rest = name.partition(".")
            member = next(m for m in struct.members if getattr(m, "name", None) == first)
            if isinstance(member, Len):  # a count is the length of what it counts
                return len(getattr(obj, member.of[0]))
            value = getattr(obj, first)
            if rest:
                assert isinstance(member, Field) and isinstance(member.type, Struct)
                return pick(member.type, value, rest)
            return rebuilt(value)

        return tuple(pick(self, record, name) for name in names)

    def _needed(self) -> set[str]:
        """Names a reader's expression, reference or check in this record mentions, which a
        skim must still read (a check only the writer makes needs nothing)."""
        words: set[str] = set()

        def walk(obj: Any) -> None:
            if isinstance(obj, Struct) and obj is not self or isinstance(obj, Check) and not obj.on_read:
                return
            if isinstance(obj, Ref):
                words.add(obj.name)
            for attr in ("expr", "found", "explain", "source", "arg"):
                text = getattr(obj, attr, None)
                if isinstance(text, str):
                    words.update(n.id for n in ast.walk(ast.parse(text, mode="eval"))
                                 if isinstance(n, ast.Name))
            if isinstance(obj, list | tuple):
                for x in obj:
                    walk(x)
            elif isinstance(obj, dict):
                for x in obj.values():
                    walk(x)
            elif hasattr(obj, "__dict__") and not callable(obj):
                for x in vars(obj).values():
                    if isinstance(x, Type | list | tuple | dict | Ref) or dataclasses.is_dataclass(x):
                        walk(x)

        for m in self.members:
            walk(m)
        return words

    def _fast_after(self, e: Emitter, m: Member, value: str) -> None:
        """Assign a member read by a run, then its checks."""
        if isinstance(m, Const):
            e.line(f"if {value} != {e.const(m.value, 'c')}: raise _Slow")
            return
        assert isinstance(m, Field | Len | Stored)
        e.line(f"{e.local(m.name)} = {value}")
        if isinstance(m, Field | Len):
            self._fast_checks(e, m)

    def _fast_checks(self, e: Emitter, m: Field | Len) -> None:
        v = e.local(m.name)
        if isinstance(m, Len):
            if m.most is not None and m.most < m.kind.hi:
                e.line(f"if {v} > {m.most}: raise _Slow")
            return
        if m.check is not None:
            e.line(f"if not {m.check.lo} <= {v} <= {m.check.hi}: raise _Slow")
        if m.export is not None:
            e.line(f"ctx.set({m.export!r}, {v}, {self.name!r})")

    def _fast_member(self, e: Emitter, m: Member) -> None:
        if isinstance(m, Check):
            if m.on_read:
                e.line(f"if not ({e.expr(m.expr)}): raise _Slow")
            return
        if isinstance(m, Computed):
            e.line(f"{e.local(m.name)} = {e.expr(m.expr)}")
            return
        if isinstance(m, SetCtx | Requires):
            self._context_member(e, m)
            return
        if isinstance(m, When):
            e.line(f"if {e.expr(m.expr)}:")
            with e.indented():
                for f in m.fields:
                    self._fast_member(e, f)
            self._when_absent(e, m)
            return
        if isinstance(m, Parallel):  # each stored list is an Until over its pass
            lists = [e.tmp("lst") for _ in m.passes]
            for lst, (p, end) in zip(lists, self._passes(m)):
                Until(p, m.first, m.stop, end).fast_read(e, lst)
            self._merge_passes(e, m, lists)
            return
        if isinstance(m, Columns):
            n, flat = e.tmp("n"), e.tmp("flat")
            code = "".join(c[1].code or "" for c in m.columns)
            size = struct.calcsize("<" + code)
            e.line(f"{n} = {count_fast(e, m.count)}")
            e.line(f"if {n} < 0 or pos + {n} * {size} > end: raise _Slow")
            e.line(f"{flat} = _cs({code!r}, {n}).unpack_from(d, pos)")
            e.line(f"pos += {n} * {size}")
            k = len(m.columns)
            for j, (fname, _, as_bytes) in enumerate(m.columns):
                make = "bytes" if as_bytes else "list"
                e.line(f"{e.local(fname)} = {make}({flat}[{j}::{k}])")
            return
        if isinstance(m, Terminated):
            lst, x = e.tmp("lst"), e.tmp("x")
            fn = e.fast_reader(m.elem)
            e.line(f"{lst} = []")
            e.line("while True:")
            e.line(f"    {x}, pos = {fn}(d, pos, end, ctx)")
            e.line(f"    if {x}.{m.is_end}:")
            e.line(f"        {e.local(m.end)} = {x}")
            e.line("        break")
            e.line(f"    {lst}.append({x})")
            e.line(f"{e.local(m.name)} = {lst}")
            return
        if isinstance(m, Len):
            e.field = m.name
            m.kind.fast_read(e, e.local(m.name))
            self._fast_checks(e, m)
            return
        if isinstance(m, Stored):
            m.kind.fast_read(e, e.local(m.name))
            return
        assert isinstance(m, Field | Const)
        e.field = m.name
        if isinstance(m, Const):
            v = e.tmp("c")
            m.type.fast_read(e, v)
            e.line(f"if {v} != {e.const(m.value, 'c')}: raise _Slow")
            return
        m.type.fast_read(e, e.local(m.name))
        self._fast_checks(e, m)

    def _when_absent(self, e: Emitter, m: When) -> None:
        """The ``else`` of a When: None for each field, or (with a flag) the model's defaults."""
        if m.flag is not None:
            e.line(f"    {e.local(m.flag)} = True")
        e.line("else:")
        with e.indented():
            defaults = {f.name: f for f in dataclasses.fields(self.cls)} if m.flag or m.defaults else {}
            for f in m.fields:
                if not isinstance(f, Field | Computed | Stored | Len):
                    continue
                d = defaults.get(f.name)
                if d is None:
                    e.line(f"{e.local(f.name)} = None")
                elif d.default is not dataclasses.MISSING:
                    e.line(f"{e.local(f.name)} = {e.const(d.default, 'dflt')}")
                else:
                    e.line(f"{e.local(f.name)} = {e.const(d.default_factory, 'dflt')}()")
            if m.flag is not None:
                e.line(f"{e.local(m.flag)} = False")

    def _when_present(self, e: Emitter, m: When) -> str:
        """Source of "the model says the fields are stored"."""
        if m.flag is not None:
            return f"bool({e.local(m.flag)})"
        fields = [f for f in m.fields if isinstance(f, Field)]
        if m.defaults:
            nones = {f.name for f in dataclasses.fields(self.cls) if f.default is None}
            fields = [f for f in fields if f.name in nones]
            if not fields:  # nothing in the model says: the condition decides alone
                return f"bool({e.expr(m.expr)})"
        return "(" + " and ".join(f"{e.local(f.name)} is not None" for f in fields) + ")"

    @staticmethod
    def _passes(m: Parallel) -> list[tuple[Any, str]]:
        return list(zip(m.passes, m.ends))

    def _merge_passes(self, e: Emitter, m: Parallel, lists: list[str]) -> None:
        """The elements of the first list get the fields each later list holds for them."""
        for lst in lists[1:]:
            e.line(f"if len({lst}) != len({lists[0]}): raise LayoutError({m.mismatch!r})")
        for p, lst in zip(m.passes[1:], lists[1:]):
            a, b = e.tmp("a"), e.tmp("b")
            e.line(f"for {a}, {b} in zip({lists[0]}, {lst}):")
            for fname in p.field_names():
                e.line(f"    {a}.{fname} = {b}.{fname}")
        e.line(f"{e.local(m.name)} = {lists[0]}")

    def _context_member(self, e: Emitter, m: SetCtx | Requires) -> None:
        """SetCtx and Requires, which every reader and writer runs the same way."""
        if isinstance(m, SetCtx):
            e.line(f"ctx.set({m.name!r}, {e.expr(m.expr)}, {self.name!r})")
        else:
            e.line(f"if not ({e.expr(m.expr)}): raise LayoutError({m.reason!r})")

    def _gen_checked_read(self, e: Emitter) -> Emitter:
        if self.whole:
            size = self._whole_size
            e.line(f"if r.end - r.pos < {size}: _short(r, {e.const(self._offsets(), 'at')}, {size}, "
                   f"{self.name!r}, pre)")
        for m in self.members:
            self._checked_member(e, m)
        e.line(f"return {self._construct()}")
        return e

    def _checked_member(self, e: Emitter, m: Member) -> None:
        if isinstance(m, Check):
            if m.on_read:
                exp = e.expr(m.explain) if m.explain is not None else repr(m.expected)
                at = f", at=r.pos - {m.back}" if m.back else ""
                e.line(f"if not ({e.expr(m.expr)}): r.fail({e.sibling(m.field)}, {exp}, "
                       f"str({e.expr(m.found)}){at})")
            return
        if isinstance(m, Computed):
            e.line(f"{e.local(m.name)} = {e.expr(m.expr)}")
            return
        if isinstance(m, SetCtx | Requires):
            self._context_member(e, m)
            return
        if isinstance(m, When):
            e.line(f"if {e.expr(m.expr)}:")
            with e.indented():
                for f in m.fields:
                    self._checked_member(e, f)
            self._when_absent(e, m)
            return
        if isinstance(m, Parallel):
            lists = [e.tmp("lst") for _ in m.passes]
            for lst, (p, end) in zip(lists, self._passes(m)):
                e.field = m.name
                Until(p, m.first, m.stop, end).checked_read(e, lst, e.sibling(m.name))
            self._merge_passes(e, m, lists)
            return
        if isinstance(m, Columns):
            n, i = e.tmp("n"), e.tmp("i")
            size = sum(c[1].min_size for c in m.columns)
            e.line(f"{n} = {count_checked(e, m.count)}")
            e.line(f"r.count({n}, {size}, pre + {m.columns[0][0]!r})")
            cols = [e.tmp("col") for _ in m.columns]
            # each column's span is the whole interleaved run, before its elements' spans
            marks = [e.tmp("s") for _ in m.columns]
            st = e.tmp("st")
            e.line(f"{st} = r.pos")
            for mark in marks:
                e.line(f"{mark} = _open(r)")
            for c in cols:
                e.line(f"{c} = []")
            e.line("try:")
            with e.indented():
                e.line(f"for {i} in range({n}):")
                with e.indented():
                    for c, (fname, kind, _) in zip(cols, m.columns):
                        x = e.tmp("x")
                        kind.checked_read(e, x, f"pre + {fname + '['!r} + str({i}) + ']'")
                        e.line(f"{c}.append({x})")
            e.line("finally:")
            with e.indented():
                for mark, (fname, _, _) in zip(marks, m.columns):
                    e.line(f"_close(r, {mark}, {st}, pre + {fname!r})")
            for c, (fname, _, as_bytes) in zip(cols, m.columns):
                e.line(f"{e.local(fname)} = {'bytes' if as_bytes else 'list'}({c})")
            return
        if isinstance(m, Terminated):
            lst, mark = e.tmp("lst"), e.tmp("mark")
            e.line(f"{lst} = []")
            e.line("while True:")
            with e.indented():
                e.line(f"{mark} = _mark(r)")
                name = f"pre + {m.name + '['!r} + str(len({lst})) + ']'"
                e.element_read(m.elem, lst, name)
                e.line(f"if {lst}[-1].{m.is_end}:")
                e.line(f"    {e.local(m.end)} = {lst}.pop()")
                e.line(f"    _rename(r, {mark}, {name}, pre + {m.end!r})")  # the model keeps it as end
                e.line("    break")
            e.line(f"{e.local(m.name)} = {lst}")
            return
        e.field = m.name
        name = e.sibling(m.name)
        if isinstance(m, Stored):
            m.kind.checked_read(e, e.local(m.name), name)
            return
        if isinstance(m, Len):
            at = e.tmp("at")
            e.line(f"{at} = r.pos")
            m.kind.checked_read(e, e.local(m.name), name)
            if m.most is not None:
                exp = m.expected or f"at most {m.most}"
                e.line(f"if {e.local(m.name)} > {m.most}: "
                       f"r.fail({name}, {exp!r}, str({e.local(m.name)}), at={at})")
            return
        at = e.tmp("at")
        if isinstance(m, Const):
            v = e.tmp("c")
            e.line(f"{at} = r.pos")
            m.type.checked_read(e, v, name)
            if m.lenient:
                e.line(f"if {v} != {e.const(m.value, 'c')}: raise NotCanonical(_j(r.path, {name}) + "
                       f"' is ' + _found({v}) + ', which the game writes back as ' + _found({e.const(m.value, 'c')}))")
            else:
                e.line(f"if {v} != {e.const(m.value, 'c')}: "
                       f"r.fail({name}, {m.expected!r}, _found({v}), at={at})")
            return
        v = e.local(m.name)
        if m.check is not None:
            e.line(f"{at} = r.pos")
        m.type.checked_read(e, v, name)
        if m.check is not None:
            e.line(f"if not {m.check.lo} <= {v} <= {m.check.hi}: "
                   f"r.fail({name}, {m.check.expected!r}, str({v}), at={at})")
        if m.export is not None:
            e.line(f"ctx.set({m.export!r}, {v}, {self.name!r})")

    def _gen_fast_write(self, e: Emitter) -> Emitter:
        for fname in self.field_names():
            e.line(f"{e.local(fname)} = m.{fname}")
        for item in self._runs():
            if isinstance(item, list):
                code = "".join(_run_of(m).code or "" for m in item)  # type: ignore[union-attr]
                flat: list[str] = []
                for m in item:
                    t = _run_of(m)
                    assert t is not None
                    e.field = m.name  # type: ignore[union-attr]
                    value = self._write_value(e, m)
                    t.check_flat(e, value) if not isinstance(m, Len) else None
                    flat.extend(t.to_flat(e, value))
                e.line(f"ap({e.struct(code)}.pack({', '.join(flat)}))")
            else:
                self._fast_write_member(e, item)
        return e

    def _write_value(self, e: Emitter, m: Member) -> str:
        """The value a member writes, with the checks a fast write makes first."""
        if isinstance(m, Stored):
            e.line(f"{e.local(m.name)} = {e.expr(m.write)}")
            return e.local(m.name)
        if isinstance(m, Const):
            return e.const(m.value, "c")
        if isinstance(m, Len):
            v = e.local(m.name)
            e.line(f"{v} = len({e.local(m.of[0])})")
            for other in m.of[1:]:
                e.line(f"if len({e.local(other)}) != {v}: raise _Slow")
            if m.most is not None:
                e.line(f"if {v} > {m.most}: raise _Slow")
            return v
        assert isinstance(m, Field)
        v = e.local(m.name)
        if m.check is not None:
            e.line(f"if not {m.check.lo} <= {v} <= {m.check.hi}: raise _Slow")
        if m.export is not None:
            e.line(f"ctx.set({m.export!r}, {v}, {self.name!r})")
        return v

    def _fast_write_member(self, e: Emitter, m: Member) -> None:
        if isinstance(m, Check):  # a loader's check on what was read; the writer writes the model
            if m.on_write:
                e.line(f"if not ({e.expr(m.expr)}): raise _Slow")
            return
        if isinstance(m, Computed):
            return
        if isinstance(m, SetCtx | Requires):
            self._context_member(e, m)
            return
        if isinstance(m, When):
            present = self._when_present(e, m)
            if not m.by_model:
                e.line(f"if bool({e.expr(m.expr)}) != {present}: raise _Slow")
            e.line(f"if {present}:")
            with e.indented():
                for f in m.fields:
                    self._fast_write_member(e, f)
            return
        if isinstance(m, Parallel):
            for p, end in self._passes(m):
                Until(p, m.first, m.stop, end).fast_write(e, e.local(m.name))
            return
        if isinstance(m, Columns):
            n = e.tmp("n")
            code = "".join(c[1].code or "" for c in m.columns)
            e.line(f"{n} = {count_fast(e, m.count)}")
            for fname, _, _ in m.columns:
                e.line(f"if len({e.local(fname)}) != {n}: raise _Slow")
            cols = ", ".join(e.local(c[0]) for c in m.columns)
            e.line(f"ap(_cs({code!r}, {n}).pack(*[_v for _r in zip({cols}) for _v in _r]))")
            return
        if isinstance(m, Terminated):
            x = e.tmp("x")
            fn = e.fast_writer(m.elem)
            e.line(f"for {x} in {e.local(m.name)}:")
            e.line(f"    if {x}.{m.is_end}: raise _Slow")
            e.line(f"    {fn}({x}, ap, ctx)")
            e.line(f"if not {e.local(m.end)}.{m.is_end}: raise _Slow")
            e.line(f"{fn}({e.local(m.end)}, ap, ctx)")
            return
        e.field = m.name
        value = self._write_value(e, m)
        kind = m.kind if isinstance(m, Len | Stored) else m.type
        kind.fast_write(e, value)

    def _gen_checked_write(self, e: Emitter) -> Emitter:
        for fname in self.field_names():
            e.line(f"{e.local(fname)} = m.{fname}")
        for m in self.members:
            self._checked_write_member(e, m)
        return e

    def _checked_write_member(self, e: Emitter, m: Member) -> None:
        if isinstance(m, Check):
            if m.on_write:
                e.line(f"if not ({e.expr(m.expr)}): raise FormatError(None, _j(w.path, pre + "
                       f"{m.field!r}), {m.expected!r}, str({e.expr(m.found)}))")
            return
        if isinstance(m, Computed):
            return
        if isinstance(m, SetCtx | Requires):
            self._context_member(e, m)
            return
        if isinstance(m, When):
            present = self._when_present(e, m)
            named = [f.name for f in m.fields if isinstance(f, Field)]
            first = m.flag or next((n for n in named if f"{e.local(n)} is" in present), named[0])
            if not m.by_model:
                e.line(f"if bool({e.expr(m.expr)}) != {present}: raise FormatError(None, "
                       f"_j(w.path, pre + {first!r}), {m.expected!r}, repr({present}))")
            e.line(f"if {present}:")
            with e.indented():
                for f in m.fields:
                    self._checked_write_member(e, f)
            return
        if isinstance(m, Parallel):
            for p, end in self._passes(m):
                Until(p, m.first, m.stop, end).checked_write(e, e.local(m.name), e.sibling(m.name))
            return
        if isinstance(m, Columns):
            n = e.tmp("n")
            e.line(f"{n} = {count_checked(e, m.count)}")
            for fname, _, _ in m.columns:
                e.line(f"_check_len({e.local(fname)}, {n}, _j(w.path, pre + {fname!r}), 'entries')")
            i = e.tmp("i")
            e.line(f"for {i} in range({n}):")
            with e.indented():
                for fname, kind, _ in m.columns:
                    kind.checked_write(e, f"{e.local(fname)}[{i}]", f"pre + {fname + '['!r} + str({i}) + ']'")
            return
        if isinstance(m, Terminated):
            i, x = e.tmp("i"), e.tmp("x")
            e.line(f"for {i}, {x} in enumerate({e.local(m.name)}):")
            with e.indented():
                e.line(f"if {x}.{m.is_end}: raise FormatError(None, _j(w.path, pre + {m.name + '['!r} + "
                       f"str({i}) + ']'), {('a record that does not end the list (' + m.expected_end + ' does)')!r}, "
                       "'the end record')")
                e.element_write(m.elem, x, f"pre + {m.name + '['!r} + str({i}) + ']'")
            end = e.local(m.end)
            e.line(f"if not {end}.{m.is_end}: raise FormatError(None, _j(w.path, pre + {m.end!r}), "
                   f"{m.expected_end!r}, 'a record that does not end the list')")
            e.element_write(m.elem, end, f"pre + {m.end!r}")
            return
        e.field = m.name
        name = e.sibling(m.name)
        if isinstance(m, Stored):
            e.line(f"{e.local(m.name)} = {e.expr(m.write)}")
            m.kind.checked_write(e, e.local(m.name), name)
            return
        if isinstance(m, Const):
            m.type.checked_write(e, e.const(m.value, "c"), name)
            return
        if isinstance(m, Len):
            v = e.local(m.name)
            e.line(f"{v} = len({e.local(m.of[0])})")
            if m.most is not None:
                exp = m.expected or f"at most {m.most}"
                e.line(f"if {v} > {m.most}: raise FormatError(None, _j(w.path, pre + {m.of[0]!r}), "
                       f"{exp!r}, str({v}))")
            for other in m.of[1:]:
                e.line(f"_check_len({e.local(other)}, {v}, _j(w.path, pre + {other!r}), "
                       f"{f'entries (one per entry of {m.of[0]})'!r})")
            m.kind.checked_write(e, v, name)
            return
        v = e.local(m.name)
        if m.check is not None:
            e.line(f"if type({v}) is int and not {m.check.lo} <= {v} <= {m.check.hi}: "
                   f"raise FormatError(None, _j(w.path, {name}), {m.check.expected!r}, str({v}))")
        m.type.checked_write(e, v, name)
        if m.export is not None:
            e.line(f"ctx.set({m.export!r}, {v}, {self.name!r})")

    # -- as a member type of another record ---------------------------------------------------
    def _fast_functions(self) -> tuple[Any, Any]:
        """The fast reader and writer, behind the native backend when there is one."""
        if self._fast is None:
            native_read: Callable[..., tuple[Any, int] | None] | None = None
            native_write: Callable[[Any, Context], bytes | None] | None = None
            # One record of fixed fields is one generated unpack (or pack): faster than a call
            # into its C program, which serves lists of it (a parallax: 0.9 us against 1.4 us).
            prog = program_of(self) if self.code is None else None
            if prog is not None:
                native_read, native_write = prog.read_one, prog.write_one
            fr: Any = self._generated("fr") if native_read is None else None
            fw: Any = self._generated("fw") if native_write is None else None
            if native_read is not None:
                def fr(d: Any, pos: int, end: int, ctx: Context) -> tuple[Any, int]:
                    got = native_read(d, pos, end, ctx)
                    return self._generated("fr")(d, pos, end, ctx) if got is None else got
            if native_write is not None:
                def fw(m: Any, ap: Callable[[bytes], None], ctx: Context) -> None:
                    raw = native_write(m, ctx)
                    if raw is None:
                        self._generated("fw")(m, ap, ctx)
                    else:
                        ap(raw)
            self._fast = (fr, fw)
        return self._fast

    @property
    def fast_read_fn(self) -> Callable[..., tuple[Any, int]]:
        return self._fast_functions()[0]  # type: ignore[no-any-return]

    @property
    def fast_skip_fn(self) -> Callable[..., int]:
        return self._generated("fs")  # type: ignore[no-any-return]

    def built_read_fn(self, build: Callable[[type], Any]) -> Callable[..., tuple[Any, int]]:
        """The fast reader with ``build(cls)`` in place of each record's class (the same
        description read into JSON objects, say); nested records are read the same way."""
        fn = self._built.get(build)
        if fn is None:
            ns = dict(_RUNTIME)
            ns["K_cls"] = build(self.cls)
            e = Emitter(ns, "def fr(d, pos, end, ctx):", self._known())
            e.build = build
            fn = self._built[build] = self._gen_fast_read(e).define(f"<layout {self.name} built>")
        return fn  # type: ignore[no-any-return]

    def skim(self, data: Any, pos: int, end: int, ctx: Context) -> int | None:
        """Where the record at ``pos`` ends when the fast reader reads it without giving up
        (None otherwise), building nothing: a structure check as cheap as arithmetic."""
        try:
            got: int = self.fast_skip_fn(data, pos, end, ctx)
        except FAST_READ_ERRORS:
            return None
        return got if got <= end else None

    @property
    def checked_read_fn(self) -> Callable[..., Any]:
        return self._generated("cr")  # type: ignore[no-any-return]

    @property
    def fast_write_fn(self) -> Callable[..., None]:
        return self._fast_functions()[1]  # type: ignore[no-any-return]

    @property
    def checked_write_fn(self) -> Callable[..., None]:
        return self._generated("cw")  # type: ignore[no-any-return]

    def _flat_fields(self) -> list[tuple[Member, Type]] | None:
        """Members and types of a record that is one run of fixed values (fields with no check,
        constants) with no native backend: a case of a union is then read and written inline,
        one unpack or pack, instead of through a call per record."""
        flat: list[tuple[Member, Type]] = []
        for m in self.members:
            t = _run_of(m)
            if t is None or isinstance(m, Len | Stored) or (isinstance(m, Field) and (m.check or m.export)):
                return None
            flat.append((m, t))
        if not flat or program_of(self) is not None:
            return None
        return flat

    def fast_read(self, e: Emitter, target: str) -> None:
        flat = self._flat_fields()
        if flat is None:
            e.line(f"{target}, pos = {e.fast_reader(self)}(d, pos, end, ctx)")
            return
        code = "".join(t.code or "" for _, t in flat)
        size = struct.calcsize("<" + code)
        tup = e.tmp("t")
        e.line(f"if pos + {size} > end: raise _Slow")
        e.line(f"{tup} = {e.struct(code)}.unpack_from(d, pos)")
        e.line(f"pos += {size}")
        k, values = 0, {}
        for m, t in flat:
            value = t.from_flat(e, [f"{tup}[{k + j}]" for j in range(t.width)])
            k += t.width
            if isinstance(m, Const):
                e.line(f"if {value} != {e.const(m.value, 'c')}: raise _Slow")
            else:
                values[m.name] = value  # type: ignore[union-attr]
        init = [f.name for f in dataclasses.fields(self.cls) if f.init] \
            if dataclasses.is_dataclass(self.cls) else []
        args = ", ".join(values[n] for n in init) if init == list(values) else \
            ", ".join(f"{n}={v}" for n, v in values.items())
        e.line(f"{target} = {e.const(self.cls if e.build is None else e.build(self.cls), 'cls')}({args})")

    def fixed_size(self) -> int | None:
        return self.skip_size if self.code is None else super().fixed_size()

    def fast_skip(self, e: Emitter) -> None:
        if self.fixed_size() is not None:
            super().fast_skip(e)
        else:
            e.line(f"pos = {e.skipper(self)}(d, pos, end, ctx)")

    def checked_read(self, e: Emitter, target: str, name: str) -> None:
        tmp = e.tmp("one")
        e.line(f"{tmp} = []")
        e.element_read(self, tmp, name)
        e.line(f"{target} = {tmp}[0]")

    def fast_write(self, e: Emitter, value: str) -> None:
        flat = self._flat_fields()
        if flat is not None:
            e.line(f"ap({self._flat_pack(e, value, flat)})")
            return
        if self.code is not None and program_of(self) is None:  # packed inline
            super().fast_write(e, value)
            return
        e.line(f"{e.const(self.fast_write_fn, 'fw')}({value}, ap, ctx)")

    def _flat_pack(self, e: Emitter, value: str, flat: list[tuple[Member, Type]]) -> str:
        """The one ``pack`` expression of a record of fixed values (after its checks)."""
        parts: list[str] = []
        for m, t in flat:
            if isinstance(m, Const):
                parts.append(e.const(m.value, "c"))
                continue
            v = f"{value}.{m.name}"  # type: ignore[union-attr]
            t.check_flat(e, v)
            parts.extend(t.to_flat(e, v))
        code = "".join(t.code or "" for _, t in flat)
        return f"{e.struct(code)}.pack({', '.join(parts)})"

    def checked_write(self, e: Emitter, value: str, name: str) -> None:
        e.element_write(self, value, name)

    # -- the public face -----------------------------------------------------------------------
    def read(self, r: Reader, ctx: Context, path: str = "") -> Any:
        """One record at the reader's position: fast unless spans are recorded or it meets
        anything unusual, then checked (the same model, or the located error)."""
        if r.spans is None:
            fast = self._fast  # (a small record read a thousand times: no property on the way)
            try:
                model, pos = (fast[0] if fast is not None else self.fast_read_fn)(r.data, r.pos, r.end, ctx)
            except FAST_READ_ERRORS:
                pass
            else:
                if pos <= r.end:
                    r.pos = pos
                    return model
        return self.checked_read_fn(r, ctx, path + "." if path else "")

    def read_item(self, r: Reader, ctx: Context, path: str) -> Any:
        """The record that begins the item ``path`` (a block's header, its data after it): read
        as :meth:`read` does; while spans are recorded, the record's span is noted under
        ``path`` before its fields' and marked as an item's, which a span map widens over the
        item's parts read after it (``path.data``)."""
        sink = r.spans
        if sink is None:
            return self.read(r, ctx, path)
        start = r.pos
        if self.whole and r.end - start < self._whole_size:  # the one problem, no span
            return self.checked_read_fn(r, ctx, path + ".")
        idx = _open(r)
        sink.log.items.append(idx)
        try:
            return self.checked_read_fn(r, ctx, path + ".")
        finally:
            _close(r, idx, start, path)

    def write(self, model: Any, w: Writer, ctx: Context, path: str = "") -> None:
        """Append the record: fast, or (for a value the fast writer refuses) checked, which
        writes the same bytes or names the field and what it needs."""
        parts: list[bytes] = []
        try:
            self.fast_write_fn(model, parts.append, ctx)
        except FAST_WRITE_ERRORS:
            self.checked_write_fn(model, w, ctx, path + "." if path else "")
            return
        w.buf += b"".join(parts)

    def pack(self, model: Any, ctx: Context, path: str = "") -> bytes:
        """The record's bytes: as :meth:`write`, for a caller that wants them alone (a message
        body). A record of fixed values only is one ``struct.pack`` call, generated once."""
        try:
            return self.packer(model, ctx)
        except FAST_WRITE_ERRORS:
            return self.pack_checked(model, ctx, path)

    @property
    def packer(self) -> Callable[[Any, Context], bytes]:
        """The generated fast packer: it raises one of FAST_WRITE_ERRORS on anything unusual,
        where :meth:`pack_checked` gives the bytes or names the field."""
        packer = self._packer
        if packer is None:
            packer = self._packer = self._make_packer()
        return packer

    def pack_checked(self, model: Any, ctx: Context, path: str = "") -> bytes:
        w = Writer()
        self.checked_write_fn(model, w, ctx, path + "." if path else "")
        return bytes(w.buf)

    def encoder(self, ctx: Context, fallback: Callable[[Any], bytes]) -> Callable[[Any], bytes]:
        """A function of the model alone giving its bytes: the generated packer, and
        ``fallback(model)`` (the checked path) where the packer gives up; fit to be a model
        class's ``encode`` method (the hot messages of a protocol: one call, one pack)."""
        packer = self.packer
        ns: dict[str, Any] = {"_pk": packer, "_ctx": ctx, "_fb": fallback, "_E": FAST_WRITE_ERRORS}
        if self._flat_fields() is not None or program_of(self) is not None:
            exec("def enc(m):\n    try:\n        return _pk(m, _ctx)\n    except _E:\n        return _fb(m)\n", ns)
            return ns["enc"]  # type: ignore[no-any-return]
        src = self._packer_source()
        body = "\n".join("    " + line for line in src[1:])
        ns.update(self._ns or {})
        exec(f"def enc(m, ctx=_ctx):\n    try:\n{body}\n    except _E:\n        return _fb(m)\n", ns)
        return ns["enc"]  # type: ignore[no-any-return]

    def _packer_source(self) -> list[str]:
        if self._ns is None:
            self._ns = {**self.env, **_RUNTIME}
            self._ns["K_cls"] = self.cls
        e = Emitter(self._ns, "def pk(m, ctx):", self._known())
        e.line("_parts = []")
        e.line("ap = _parts.append")
        self._gen_fast_write(e)
        e.line("return b''.join(_parts)")
        _straight(e)
        return e.lines

    def _make_packer(self) -> Callable[[Any, Context], bytes]:
        if program_of(self) is not None:
            fw = self.fast_write_fn

            def packer(model: Any, ctx: Context) -> bytes:
                parts: list[bytes] = []
                fw(model, parts.append, ctx)
                return b"".join(parts)
            return packer
        if self._ns is None:
            self._ns = {**self.env, **_RUNTIME}
            self._ns["K_cls"] = self.cls
        e = Emitter(self._ns, "def pk(m, ctx):", self._known())
        flat = self._flat_fields()
        if flat is not None:
            e.line(f"return {self._flat_pack(e, 'm', flat)}")
        else:  # the fast writer's code, its pieces gathered here
            e.lines[:] = self._packer_source()
        return e.define(f"<layout {self.name} pack>")  # type: ignore[no-any-return]

    def checked_only(self, r: Reader, ctx: Context, path: str = "") -> Any:
        """The checked reader alone (tests hold the fast one to it)."""
        return self.checked_read_fn(r, ctx, path + "." if path else "")


def _found(v: Any) -> str:
    if isinstance(v, int):
        return f"0x{v:X}" if v > 9 else str(v)
    return repr(v)


def _substitute(source: str, env: dict[str, str]) -> str:
    """``source`` with each name in ``env`` replaced by its expression."""
    tree = ast.parse(source, mode="eval")

    class _Sub(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.AST:
            if node.id in env:
                return ast.parse(env[node.id], mode="eval").body
            return node

    return ast.unparse(_Sub().visit(tree))


def _fixed_type(m: Field | Stored) -> Type:
    return m.type if isinstance(m, Field) else m.kind


def _is_fixed(m: Field | Stored) -> bool:
    """A member of fixed size whose every value the fast reader takes."""
    t = _fixed_type(m)
    if isinstance(m, Field) and (m.check is not None or m.export is not None):
        return False
    return t.code is not None and (not isinstance(t, Struct) or t.skip_size is not None)


def _member_min(m: Member) -> int:
    if isinstance(m, Field | Const):
        return m.type.min_size
    if isinstance(m, Len | Stored):
        return m.kind.min_size
    if isinstance(m, Columns):
        return m.count * sum(c[1].min_size for c in m.columns) if isinstance(m.count, int) else 0
    if isinstance(m, Terminated):
        return m.elem.min_size
    if isinstance(m, Parallel):
        return len(m.passes) * m.first.min_size
    return 0


__all__ = ["Struct", "Emitter", "FAST_READ_ERRORS", "FAST_WRITE_ERRORS", "Range", "Int", "Array",
           "List", "Adapt"]
