"""What section codecs share: contexts, references, descriptors and repeated records.

A section codec is a module with ``TYPE``, a model dataclass (``KIND`` names
it in JSON), ``decode(r, ctx)`` and ``encode(section, w, ctx)``. Fields that
hold references carry ``metadata={"ref": ...}`` ("string", "text"); sprite
references are :class:`SpriteRef` values. :mod:`..refs` walks those to show
names and to check every index, and the builder uses them to move string
offsets when strings are renamed.
"""

from __future__ import annotations

import dataclasses
import struct
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

from .....binary import Reader, Record, Writer, join_path
from .....errors import Report
from ..assets import Asset, AssetContext, MediaAsset, Source
from ..bytecode import Script, script_from_bytes, script_to_bytes
from ..header import Header

A = TypeVar("A", bound=Asset[Any])
T = TypeVar("T")

NOT_SET = 0xFFFFFF


def sref(default: int = 0) -> Any:
    """A string index: a byte offset into section 0."""
    return field(default=default, metadata={"ref": "string"})


def srefs() -> Any:
    return field(default_factory=list, metadata={"ref": "string"})


def tref(default: int = 0) -> Any:
    """A text index: the number of a string in each translation's text asset."""
    return field(default=default, metadata={"ref": "text"})


@dataclass(slots=True)
class SpriteRef:
    """A sprite: category (section type - 7) and record index in that section."""

    category: int = 0
    index: int = 0xFFFF

    @property
    def is_set(self) -> bool:
        return self.index != 0xFFFF and self.category != 0xFF


def read_sprite(r: Reader, name: str) -> SpriteRef:
    c = r.u8(name)
    return SpriteRef(c, r.u16(name))


def write_sprite(w: Writer, s: SpriteRef, name: str = "") -> None:
    w.u8(s.category, name)
    w.u16(s.index, name)


_SPRITE = struct.Struct("<BH")


def read_sprites(r: Reader, n: int, name: str) -> list[SpriteRef]:
    """``n`` 3-byte sprite references in one pass."""
    r.count(n, 3, name, "sprite")
    raw = r.bytes(3 * n, name)
    return [SpriteRef(c, i) for c, i in _SPRITE.iter_unpack(raw)]


def write_sprites(w: Writer, items: list[SpriteRef], name: str = "") -> None:
    for k, sp in enumerate(items):
        write_sprite(w, sp, f"{name}[{k}]")


@dataclass(slots=True)
class FontRef:
    style: int = 0
    size: int = 16
    font: int = sref()


def read_font(r: Reader, name: str) -> FontRef:
    st = r.u8(name)
    sz = r.u8(name)
    return FontRef(st, sz, r.u24(name))


def write_font(w: Writer, f: FontRef, ctx: BuildContext, name: str = "") -> None:
    w.u8(f.style, name)
    w.u8(f.size, name)
    w.u24(ctx.s(f.font), name)


@dataclass(slots=True)
class Condition:
    """1 byte relation (or type), 3 bytes attribute string index, 4 bytes value."""

    relation: int = 0
    attribute: int = sref()
    value: int = 0


COND = Record("condition", [("relation", "u8"), ("attribute", "u24"), ("value", "i32")])
DESCRIPTOR = Record("asset descriptor", [("offset", "u64"), ("length", "u32"), ("name", "u32")])


def read_conditions(r: Reader, n: int, name: str) -> list[Condition]:
    r.count(n, 8, name)
    return [Condition(*r.record(COND, f"{name}[{i}]")) for i in range(n)]


def write_conditions(w: Writer, items: list[Condition], ctx: BuildContext, name: str) -> None:
    for i, c in enumerate(items):
        w.record(COND, (c.relation, ctx.s(c.attribute), c.value), f"{name}[{i}]")


@dataclass(slots=True)
class EventHandler:
    """An event handler: event code, its parameter and its script."""

    event: int = 0
    parameter: int = 0
    script: Script = field(default_factory=Script)


def read_handlers(r: Reader, n: int, ctx: AssetContext, name: str) -> list[EventHandler]:
    out = []
    for i in range(n):
        p = f"{name}[{i}]"
        ev = r.u8(p + ".event")
        param = r.u24(p + ".parameter")
        size = r.u24(p + ".size")
        at = r.offset
        code = r.bytes(size, p + ".script")
        out.append(EventHandler(ev, param, script_from_bytes(code, ctx.script_names(), offset=at,
                                                              path=join_path(r.path, p + ".script"),
                                                              report=ctx.report)))
    return out


def write_handlers(w: Writer, items: list[EventHandler], ctx: BuildContext, name: str) -> None:
    for i, h in enumerate(items):
        p = f"{name}[{i}]"
        code = ctx.code(h.script, p)
        w.u8(h.event, p + ".event")
        w.u24(h.parameter, p + ".parameter")
        w.u24(len(code), p + ".size")
        w.bytes(code)


def read_script(r: Reader, size: int, ctx: AssetContext, name: str) -> Script:
    at = r.offset
    return script_from_bytes(r.bytes(size, name), ctx.script_names(), offset=at, path=join_path(r.path, name),
                             report=ctx.report)


# -- contexts ---------------------------------------------------------------------------


class ParseContext:
    """Everything a section decoder needs: the file (for assets), the header, the report."""

    def __init__(self, src: Source, asset_base: int, header: Header, report: Report,
                 actx: AssetContext) -> None:
        self.src = src
        self.asset_base = asset_base
        self.header = header
        self.report = report
        self.actx = actx
        self._cache: dict[tuple[type, int, int], Asset[Any]] = {}
        # The furthest end of an asset past the end of the file, and the first such asset:
        # reported once for all of them (a truncated file), by the container.
        self.past_end: tuple[int, Asset[Any]] | None = None

    def asset(self, cls: type[A], rel: int, length: int, path: str, at: int) -> A:
        """An asset from a descriptor; one outside the file is remembered for one report."""
        fo = rel + self.asset_base
        key = (cls, fo, length)
        a = self._cache.get(key)
        if a is None:
            a = cls.lazy(self.src, self.actx, rel, fo, length, path)
            self._cache[key] = a
        if fo + length > len(self.src) and length:
            end = fo + length
            self.past_end = (max(end, self.past_end[0]), self.past_end[1]) if self.past_end else (end, a)
        return a  # type: ignore[return-value]

    def assets(self) -> Iterable[Asset[Any]]:
        """Every asset the descriptors read so far point to (one object per place in the file)."""
        return self._cache.values()

    def descriptor(self, r: Reader, cls: type[A], path: str) -> tuple[A, int]:
        """An asset descriptor (u64 offset, u32 length, u32 name); returns the asset and the name field."""
        at = r.offset
        rel, length, tail = r.record(DESCRIPTOR, path)
        return self.asset(cls, rel, length, path, at), tail


class BuildContext:
    """Where the builder put each asset, and how string offsets moved."""

    def __init__(self, header: Header, strings_map: dict[int, int] | None = None,
                 names: Any = None) -> None:
        self.header = header
        self.places: dict[int, tuple[int, int]] = {}
        self.strings_map = strings_map
        self.names = names

    @property
    def strings_unchanged(self) -> bool:
        return self.strings_map is None

    def s(self, offset: int) -> int:
        """A string index after strings were renamed (unchanged when strings were not)."""
        if self.strings_map is None:
            return offset
        return self.strings_map.get(offset, offset)

    def code(self, script: Script, path: str) -> bytes:
        return script_to_bytes(script, self.names, path)

    def place(self, asset: Asset[Any]) -> tuple[int, int]:
        return self.places[id(asset)]

    def descriptor(self, w: Writer, asset: Asset[Any], tail: int, path: str) -> None:
        off, length = self.place(asset)
        w.record(DESCRIPTOR, (off, length, tail), path)


# -- generic walks over models ------------------------------------------------------------


_LEAVES = (int, str, bytes, bool, tuple, SpriteRef)


def iter_values(obj: Any, kind: type[T] | tuple[type, ...], path: str = "", *,
                into_assets: bool = False) -> Iterator[tuple[str, T]]:
    """Every value of a type inside a model, with its path, in field order.

    The one walk over models: it descends into dataclasses and lists, and
    into the values of structured assets when ``into_assets`` (which loads
    them; media assets are never entered).
    """
    if isinstance(obj, kind):
        yield path, obj  # type: ignore[misc]
        return
    if isinstance(obj, Asset):
        if into_assets and not isinstance(obj, MediaAsset):
            yield from iter_values(obj.value, kind, path, into_assets=True)
        return
    if isinstance(obj, list):
        if obj and isinstance(obj[0], _LEAVES) and not isinstance(obj[0], kind):
            return
        for i, x in enumerate(obj):
            yield from iter_values(x, kind, f"{path}[{i}]", into_assets=into_assets)
        return
    plan = None if isinstance(obj, type) else _field_plan(type(obj))
    if plan is not None:
        for name, _ in plan:
            v = getattr(obj, name)
            if v is not None and (not isinstance(v, _LEAVES) or isinstance(v, kind)):
                yield from iter_values(v, kind, f"{path}.{name}" if path else name, into_assets=into_assets)


def iter_assets(obj: Any) -> Iterator[Asset[Any]]:
    """Every asset a section holds, in field order (never loads one)."""
    for _, a in iter_values(obj, Asset):
        yield a


Visit = Callable[[str, str, int], None]


def walk_refs(obj: Any, path: str, visit: Callable[[str, str, Any], None],
              *, into_assets: bool = True, sprite_types: tuple[type, ...] = (SpriteRef,)) -> None:
    """Call ``visit(kind, path, value)`` for every reference in ``obj``.

    ``kind`` is "string", "text" or "sprite" (value a sprite reference). Assets
    are entered (loading them) when ``into_assets``.
    """
    if isinstance(obj, Asset):
        if into_assets:
            walk_refs(obj.value, path, visit, sprite_types=sprite_types)
        return
    if isinstance(obj, sprite_types):
        visit("sprite", path, obj)
        return
    if isinstance(obj, list):
        for i, x in enumerate(obj):
            if isinstance(x, int | str | bytes | tuple):
                continue
            walk_refs(x, f"{path}[{i}]", visit, into_assets=into_assets, sprite_types=sprite_types)
        return
    plan = _field_plan(type(obj))
    if plan is None:
        return
    for name, kind in plan:
        v = getattr(obj, name)
        if kind is not None:
            p = f"{path}.{name}" if path else name
            if isinstance(v, list):
                for i, x in enumerate(v):
                    visit(kind, f"{p}[{i}]", x)
            else:
                visit(kind, p, v)
        elif isinstance(v, Asset | list) or (dataclasses.is_dataclass(v) and not isinstance(v, type)):
            walk_refs(v, f"{path}.{name}" if path else name, visit, into_assets=into_assets,
                      sprite_types=sprite_types)


_PLANS: dict[type, tuple[tuple[str, str | None], ...] | None] = {}


def _field_plan(cls: type) -> tuple[tuple[str, str | None], ...] | None:
    """(field name, reference kind) of a dataclass, worked out once per class (None: not one).

    ``dataclasses.fields`` builds a new tuple and reads every field's metadata on each
    call; the reference walk of a game with a thousand maps made it once per object.
    """
    try:
        return _PLANS[cls]
    except KeyError:
        pass
    plan = (tuple((f.name, f.metadata.get("ref")) for f in dataclasses.fields(cls))
            if dataclasses.is_dataclass(cls) else None)
    _PLANS[cls] = plan
    return plan


__all__ = [
    "NOT_SET",
    "Any",
    "BuildContext",
    "Condition",
    "EventHandler",
    "FontRef",
    "ParseContext",
    "Script",
    "SpriteRef",
    "iter_assets",
    "read_conditions",
    "read_font",
    "read_handlers",
    "read_script",
    "read_sprite",
    "read_sprites",
    "script_to_bytes",
    "sref",
    "srefs",
    "tref",
    "walk_refs",
    "write_conditions",
    "write_font",
    "write_handlers",
    "write_sprite",
    "write_sprites",
]


class Layout:
    """A fixed layout whose fields are scalars, string indices, sprites (3 bytes) and fonts (5 bytes).

    Declared once and compiled to one :class:`Record`; :meth:`read` gives the
    dataclass fields as keyword arguments, :meth:`values` flattens a model
    back (moving string indices through ``ctx.s`` when strings were renamed).
    Kinds: a Record scalar type (``u8``, ``u16``, ``i16``, ``u32``...), ``str``
    (u24 string index), ``sprite`` and ``font``.
    """

    def __init__(self, name: str, fields: list[tuple[str, str]]) -> None:
        self.fields = fields
        flat: list[tuple[str, str]] = []
        for n, kind in fields:
            if kind == "sprite":
                flat += [(n + ".category", "u8"), (n + ".index", "u16")]
            elif kind == "font":
                flat += [(n + ".style", "u8"), (n + ".size", "u8"), (n + ".font", "u24")]
            elif kind == "str":
                flat.append((n, "u24"))
            else:
                flat.append((n, kind))
        self.record = Record(name, flat)

    @property
    def size(self) -> int:
        return self.record.size

    def read(self, r: Reader, path: str = "") -> dict[str, Any]:
        v = r.record(self.record, path)
        out: dict[str, Any] = {}
        k = 0
        for n, kind in self.fields:
            if kind == "sprite":
                out[n] = SpriteRef(v[k], v[k + 1])
                k += 2
            elif kind == "font":
                out[n] = FontRef(v[k], v[k + 1], v[k + 2])
                k += 3
            else:
                out[n] = v[k]
                k += 1
        return out

    def values(self, obj: Any, ctx: Any) -> list[Any]:
        out: list[Any] = []
        for n, kind in self.fields:
            v = getattr(obj, n)
            if kind == "sprite":
                out += (v.category, v.index)
            elif kind == "font":
                out += (v.style, v.size, ctx.s(v.font))
            elif kind == "str":
                out.append(ctx.s(v))
            else:
                out.append(v)
        return out

    def write(self, w: Writer, obj: Any, ctx: Any, path: str = "") -> None:
        w.record(self.record, self.values(obj, ctx), path)
