"""Objects as Angband 4.2 stores them: one record per item, kinds, egos and artifacts by name.

Every object list in a 4.2 save (the gear, the stores, the floor, what
monsters carry) uses this record. Lists end with a "dummy" record of an
object that has no kind; the loader reads it whole and drops it, so the
model keeps it (``end``) to write the same bytes back.

How many flag bytes, modifiers, elements, brands, slays and curses a record
holds is not in the record: the "object memory" block stores those sizes
first (:class:`~.Context`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ....binary import Reader, Writer
from ....compiled import active
from ....errors import FormatError
from ....layout import (
    I16,
    U8,
    U16,
    Array,
    Bytes,
    Columns,
    Const,
    Context,
    CStr,
    Ctx,
    Field,
    List,
    Member,
    Optional,
    Struct,
)
from .shapes import object_list

ITEM_MARK = 0xFFFF
# rd_string buffer sizes of the loader: a longer string would be cut short.
NAME_MAX = 127
NOTE_MAX = 127


def read_str(r: Reader, name: str, limit: int = NAME_MAX) -> str:
    """A NUL-terminated UTF-8 string the loader reads into a buffer of ``limit`` + 1 bytes."""
    start = r.pos
    text = r.cstr(name)
    if r.pos - start - 1 > limit:
        r.fail(name, f"a string of at most {limit} bytes (the game's buffer)",
               f"{r.pos - start - 1} bytes", at=start)
    return text


def write_str(w: Writer, text: str, name: str, limit: int = NAME_MAX) -> None:
    raw = text.encode("utf-8")
    if len(raw) > limit or b"\0" in raw:
        raise FormatError(None, name, f"text of at most {limit} bytes without NUL",
                          f"{len(raw)} bytes" if len(raw) > limit else "a NUL character")
    w.bytes(raw + b"\0", name)


def check_len(values: object, n: int, name: str, what: str) -> None:
    size = len(values)  # type: ignore[arg-type]
    if size != n:
        raise FormatError(None, name, f"{n} {what} (the size the object memory block sets)",
                          f"{size}")


# Object bases whose kind names read after the base, as the game shows them.
KIND_PREFIX = {"amulet": "Amulet of", "ring": "Ring of", "potion": "Potion of", "scroll": "Scroll of",
               "rod": "Rod of", "wand": "Wand of", "staff": "Staff of", "mushroom": "Mushroom of"}


@dataclass(slots=True)
class Curse:
    power: int = 0
    timeout: int = 0


@dataclass(slots=True)
class Item:
    """One object record (``rd_item`` of 4.2): kind by tval/sval name, ego and artifact by name.

    ``el_res`` and ``el_flags`` are the resistance level and the flags of each
    element (acid, electricity, ...), in the game's element order.
    """

    version: int = 5
    oidx: int = 0
    y: int = 0
    x: int = 0
    tval: str = ""
    sval: str = ""
    pval: int = 0
    number: int = 0
    weight: int = 0
    artifact: str = ""
    ego: str = ""
    effect: int = 0
    timeout: int = 0
    to_h: int = 0
    to_d: int = 0
    to_a: int = 0
    ac: int = 0
    dd: int = 0
    ds: int = 0
    origin: int = 0
    origin_depth: int = 0
    origin_race: str = ""
    notice: int = 0
    flags: bytes = b""
    modifiers: list[int] = field(default_factory=list)
    brands: bytes | None = None
    slays: bytes | None = None
    curses: list[Curse] | None = None
    el_res: list[int] = field(default_factory=list)
    el_flags: bytes = b""
    held_m_idx: int = 0
    mimicking_m_idx: int = 0
    activation: int = 0
    time_base: int = 0
    time_dice: int = 0
    time_sides: int = 0
    inscription: str = ""

    @property
    def is_marker(self) -> bool:
        """The dummy record that ends a list: no kind (the loader's lookup fails)."""
        return not self.sval

    @property
    def name(self) -> str:
        """The object as a character sheet names it: "Amulet of Wisdom", "7 x Potion of Curing"."""
        base = self.sval or self.tval
        prefix = KIND_PREFIX.get(self.tval)
        if prefix and self.sval and not self.sval.startswith(prefix.split()[0]):
            base = f"{prefix} {self.sval}"
        elif self.tval.endswith(" book") and self.sval.startswith("["):
            base = f"{self.tval.title()} {self.sval}"
        extra = " ".join(p for p in (self.ego, self.artifact) if p)
        text = f"{base} {extra}" if extra else base
        if self.number > 1:
            text = f"{self.number} x {text}"
        if self.inscription:
            text += f" {{{self.inscription}}}"
        return text


_SIZES = ("of_size", "obj_mod_max", "brand_max", "slay_max", "curse_max", "elem_max")
_OBJECT_MEMORY = "object memory"

# The C object record writer (savecraft._native.records), or None.
_write_item_c: Callable[..., bytes | None] | None = None
if active("records"):
    from ...._native.records import write_item as _write_item_c


def _sizes(ctx: Context) -> tuple[int, ...] | None:
    """The six per-game array sizes an object record depends on, or None (not known yet)."""
    v = ctx.values
    try:
        return tuple([v[k] for k in _SIZES])
    except KeyError:
        return None


# Item's fields in the order of the record, which is the order the C reader fills them in.
_ITEM_SLOTS = ("version", "oidx", "y", "x", "tval", "sval", "pval", "number", "weight", "artifact",
               "ego", "effect", "timeout", "to_h", "to_d", "to_a", "ac", "dd", "ds", "origin",
               "origin_depth", "origin_race", "notice", "flags", "modifiers", "brands", "slays",
               "curses", "el_res", "el_flags", "held_m_idx", "mimicking_m_idx", "activation",
               "time_base", "time_dice", "time_sides", "inscription")


def _c_reader() -> Callable[..., tuple[Item, int] | None] | None:
    """The compiled record reader (:mod:`savecraft.compiled`), told once which classes to build."""
    if not active("records"):
        return None
    from ...._native.records import item_types, read_item

    item_types(Item, tuple(Item.__dict__[n] for n in _ITEM_SLOTS),
               Curse, (Curse.__dict__["power"], Curse.__dict__["timeout"]),
               ItemList, (ItemList.__dict__["items"], ItemList.__dict__["end"]))
    return read_item


def _native_read(d: Any, pos: int, end: int, ctx: Context) -> tuple[Item, int] | None:
    """The C backend of OBJECT: None for anything it does not handle (the generated code then
    reads it, or says exactly what is wrong)."""
    sizes = _sizes(ctx)
    if sizes is None or _read_item_c is None:
        return None
    return _read_item_c(d, pos, end, *sizes)


def _native_write(it: Item, ctx: Context) -> bytes | None:
    sizes = _sizes(ctx)
    if sizes is None or _read_item_c is None or _write_item_c is None:
        return None
    return _write_item_c(it, *sizes)


def _size(name: str) -> Ctx:
    return Ctx(name, _OBJECT_MEMORY)


CURSE = Struct(Curse, [Field("power", U8), Field("timeout", U16)])

# Runs of ``rd_item`` of 4.2 that the games built on it (Xygos, FAangband 2) store the same way
# around fields of their own: the record's start and kind, its combat values and origin, its
# powers, its elements, and its end (activation and inscription).
KIND_NAMES: list[Member] = [
    Const("mark", U16, ITEM_MARK, "0xFFFF, the start of an object record"),
    Field("version", U8), Field("oidx", U16), Field("y", U8), Field("x", U8),
    Field("tval", CStr(NAME_MAX)), Field("sval", CStr(NAME_MAX)),
]


def combat(after_origin_depth: Sequence[Member] = ()) -> list[Member]:
    """The combat values and where the object was found (with a game's fields after the depth)."""
    return [Field("to_h", I16), Field("to_d", I16), Field("to_a", I16), Field("ac", I16),
            Field("dd", U8), Field("ds", U8), Field("origin", U8), Field("origin_depth", U8),
            *after_origin_depth, Field("origin_race", CStr(NAME_MAX)), Field("notice", U8)]


POWERS: list[Member] = [
    Field("modifiers", Array(I16, _size("obj_mod_max"))),
    Field("brands", Optional(U8, Bytes(_size("brand_max")))),
    Field("slays", Optional(U8, Bytes(_size("slay_max")))),
]
ELEMENTS = Columns(_size("elem_max"), [("el_res", I16, False), ("el_flags", U8, True)])
ACTIVATION: list[Member] = [
    Field("held_m_idx", I16), Field("mimicking_m_idx", I16), Field("activation", U16),
    Field("time_base", U16), Field("time_dice", U16), Field("time_sides", U16),
    Field("inscription", CStr(NOTE_MAX)),
]


def object_record(cls: type, after_origin_depth: Sequence[Member] = (), **native: Any) -> Struct:
    """``rd_item``/``wr_item`` of 4.2 (with a game's fields after the origin depth)."""
    return Struct(cls, [
        *KIND_NAMES, Field("pval", I16), Field("number", U8), Field("weight", I16),
        Field("artifact", CStr(NAME_MAX)), Field("ego", CStr(NAME_MAX)),
        Field("effect", U8), Field("timeout", I16), *combat(after_origin_depth),
        Field("flags", Bytes(_size("of_size"))), *POWERS,
        Field("curses", Optional(U8, List(CURSE, _size("curse_max")))), ELEMENTS, *ACTIVATION,
    ], name="object", **native)


# The object record of 4.2, declared once.
OBJECT = object_record(Item, native_read=_native_read, native_write=_native_write, native_code="j",
                       native_sizes=_SIZES)


def read_item(r: Reader, ctx: Context, path: str) -> Item:
    return OBJECT.read(r, ctx, path)  # type: ignore[no-any-return]


def write_item(it: Item, w: Writer, ctx: Context, path: str) -> None:
    OBJECT.write(it, w, ctx, path)


@dataclass(slots=True)
class ItemList:
    """Objects up to the dummy record that ends the list (kept in ``end``)."""

    items: list[Item] = field(default_factory=list)
    end: Item = field(default_factory=Item)


ITEM_LIST = object_list(ItemList, OBJECT, native_code="X", native_sizes=_SIZES)


def read_item_list(r: Reader, ctx: Context, path: str) -> ItemList:
    return ITEM_LIST.read(r, ctx, path)  # type: ignore[no-any-return]


def write_item_list(lst: ItemList, w: Writer, ctx: Context, path: str) -> None:
    ITEM_LIST.write(lst, w, ctx, path)


_read_item_c = _c_reader()
