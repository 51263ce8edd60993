"""What section codecs share: contexts, references, descriptors and repeated records.

A section codec is a module with ``TYPE``, a model dataclass (``KIND`` names
it in JSON), its records declared once as :mod:`savecraft.layout`
descriptions, and ``decode(r, ctx)`` / ``encode(section, w, ctx)`` that run
them (plus the reports a description cannot make: a count other than the
documented one, a reserved field not zero). The stored types every section
uses are here: a string index (``SREF``), a sprite, a font, a condition, an
event handler, a script and an asset descriptor. Fields that hold references
carry ``metadata={"ref": ...}`` ("string", "text"); sprite references are
:class:`SpriteRef` values. :mod:`..refs` walks those to show names and to
check every index, and the builder moves string offsets when strings are
renamed (``BuildContext.s``, which ``SREF`` writes through).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

from .....binary import Reader, Writer
from .....errors import Report
from .....layout import (
    I32,
    U8,
    U16,
    U24,
    U32,
    U64,
    Adapt,
    Array,
    Bytes,
    Context,
    Field,
    Int,
    Len,
    Prefix,
    Ref,
    Struct,
    Tuple,
)
from ..assets import Asset, AssetContext, MediaAsset, Source
from ..bytecode import Script, script_from_bytes, script_support, script_to_bytes
from ..header import Header
from ..spriteref import SpriteRef as SpriteRef  # (declared below the sections: maps use it too)

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
class FontRef:
    style: int = 0
    size: int = 16
    font: int = sref()


@dataclass(slots=True)
class Condition:
    """1 byte relation (or type), 3 bytes attribute string index, 4 bytes value."""

    relation: int = 0
    attribute: int = sref()
    value: int = 0


@dataclass(slots=True)
class EventHandler:
    """An event handler: event code, its parameter and its script."""

    event: int = 0
    parameter: int = 0
    script: Script = field(default_factory=Script)


# -- the stored forms the sections share (record descriptions, savecraft.layout) ---------------


def counted(name: str, of: str, kind: Int = U8, noun: str = "entries") -> Len:
    """A stored count of the list ``of`` (written from its length): more than the count field
    holds is refused naming the list, as "at most 255 entries"."""
    most = (1 << 8 * kind.min_size) - 1
    return Len(name, kind, [of], most, f"at most {most} {noun}")


def prefix(kind: Int, name: str, noun: str = "entries") -> Prefix:
    """A count stored just before its list, refused past what it holds naming the list (as
    "at most 255 options")."""
    most = (1 << 8 * kind.min_size) - 1
    return Prefix(kind, name, most, f"at most {most} {noun}")


def _moved(offset: int, ctx: Any, path: str | None) -> int:
    """A string index as the builder writes it: moved when strings were renamed."""
    return int(ctx.s(offset))


# A string index (a byte offset into section 0): stored as read, moved on write.
SREF = Adapt(U24, None, _moved, "a string index", ctx=True)
SREF32 = Adapt(U32, None, _moved, "a string index", ctx=True)
SPRITE = Struct(SpriteRef, [Field("category", U8), Field("index", U16)], name="sprite")
FONT = Struct(FontRef, [Field("style", U8), Field("size", U8), Field("font", SREF)], name="font")
CONDITION = Struct(Condition, [Field("relation", U8), Field("attribute", SREF), Field("value", I32)],
                   name="condition")


def _script_in(code: bytes, ctx: Any, where: tuple[int, str] | None) -> Script:
    """Bytecode to a script; on the fast path (no place to report at) bytecode that does not
    disassemble sends the read to the checked path, which reports it where it is."""
    if where is None:
        sc = script_from_bytes(code, ctx.script_names())
        if sc.code is not None and script_support():
            raise ValueError("bytecode that disassembles")
        return sc
    return script_from_bytes(code, ctx.script_names(), offset=where[0], path=where[1], report=ctx.report)


def _script_out(script: Script, ctx: Any, path: str | None) -> bytes:
    return bytes(ctx.code(script, path or ""))


def script(size: Int, name: str = "size") -> Adapt:
    """A script stored as its bytecode after its size (``size``, stored under ``name``)."""
    return Adapt(Array(U8, Prefix(size, name), as_bytes=True), _script_in, _script_out,
                 "a script", ctx=True)


def script_of(size: Ref) -> Adapt:
    """A script whose size is stored elsewhere (``size``, a value read before it)."""
    return Adapt(Bytes(size), _script_in, _script_out, "a script", ctx=True)


SCRIPT24 = script(U24)
HANDLER = Struct(EventHandler, [Field("event", U8), Field("parameter", U24), Field("script", SCRIPT24)],
                 name="event handler")

_DESCRIPTORS: dict[type, Adapt] = {}


def descriptor(cls: type[Asset[Any]]) -> Adapt:
    """An asset descriptor's offset (u64, from the asset area) and length (u32), as the asset
    they point to (a lazy one, shared by descriptors that point to the same bytes); the
    writer stores where the builder placed it."""
    got = _DESCRIPTORS.get(cls)
    if got is None:
        def dec(place: tuple[int, int], ctx: Any, where: tuple[int, str] | None) -> Asset[Any]:
            asset: Asset[Any] = ctx.asset(cls, place[0], place[1], where[1] if where else "",
                                          where[0] if where else 0)
            return asset

        def enc(asset: Asset[Any], ctx: Any, path: str | None) -> tuple[int, int]:
            return ctx.place(asset)  # type: ignore[no-any-return]

        got = _DESCRIPTORS[cls] = Adapt(Tuple(("offset", U64), ("length", U32), sibling=True), dec, enc,
                                        f"a {cls.WHAT} descriptor", ctx=True)
    return got


def read_section(layout: Struct, r: Reader, ctx: ParseContext) -> Any:
    """A section through its description; bytes after what it describes are kept in ``trailing``."""
    section = layout.read(r, ctx)
    if r.remaining:
        section.trailing = r.rest("trailing")
    return section


def write_section(layout: Struct, section: Any, w: Writer, ctx: BuildContext) -> None:
    layout.write(section, w, ctx)
    w.bytes(section.trailing, "trailing")


# -- contexts ---------------------------------------------------------------------------


class ParseContext(Context):
    """Everything a section decoder needs: the file (for assets), the header, the report.

    A layout :class:`~savecraft.layout.Context`, so the section descriptions read through it.
    """

    def __init__(self, src: Source, asset_base: int, header: Header, report: Report,
                 actx: AssetContext) -> None:
        Context.__init__(self)
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

    def script_names(self) -> Any:
        return self.actx.script_names()


class BuildContext(Context):
    """Where the builder put each asset, and how string offsets moved."""

    def __init__(self, header: Header, strings_map: dict[int, int] | None = None,
                 names: Any = None) -> None:
        Context.__init__(self)
        self.header = header
        self.places: dict[int, tuple[int, int]] = {}
        self.strings_map = strings_map
        self.names = names
        self._codes: dict[int, tuple[Script, bytes]] = {}

    @property
    def strings_unchanged(self) -> bool:
        return self.strings_map is None

    def s(self, offset: int) -> int:
        """A string index after strings were renamed (unchanged when strings were not)."""
        if self.strings_map is None:
            return offset
        return self.strings_map.get(offset, offset)

    def code(self, script: Script, path: str) -> bytes:
        """A script's bytecode; assembled once per build (a cutscene stores its size before its
        records, so its description asks for it twice)."""
        got = self._codes.get(id(script))
        if got is None or got[0] is not script:
            got = self._codes[id(script)] = (script, script_to_bytes(script, self.names, path))
        return got[1]

    def place(self, asset: Asset[Any]) -> tuple[int, int]:
        return self.places[id(asset)]


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
    "CONDITION",
    "FONT",
    "HANDLER",
    "NOT_SET",
    "SCRIPT24",
    "SPRITE",
    "SREF",
    "SREF32",
    "Any",
    "BuildContext",
    "Condition",
    "EventHandler",
    "FontRef",
    "ParseContext",
    "Script",
    "SpriteRef",
    "counted",
    "descriptor",
    "iter_assets",
    "prefix",
    "read_section",
    "script",
    "script_of",
    "script_to_bytes",
    "sref",
    "srefs",
    "tref",
    "walk_refs",
    "write_section",
]
