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

from collections.abc import Sequence
from dataclasses import dataclass, field

from ....binary import Reader, Writer
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


_OBJECT_MEMORY = "object memory"


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


def object_record(cls: type, after_origin_depth: Sequence[Member] = ()) -> Struct:
    """``rd_item``/``wr_item`` of 4.2 (with a game's fields after the origin depth)."""
    return Struct(cls, [
        *KIND_NAMES, Field("pval", I16), Field("number", U8), Field("weight", I16),
        Field("artifact", CStr(NAME_MAX)), Field("ego", CStr(NAME_MAX)),
        Field("effect", U8), Field("timeout", I16), *combat(after_origin_depth),
        Field("flags", Bytes(_size("of_size"))), *POWERS,
        Field("curses", Optional(U8, List(CURSE, _size("curse_max")))), ELEMENTS, *ACTIVATION,
    ], name="object")


# The object record of 4.2, declared once (its C program is derived from it: layout.native).
OBJECT = object_record(Item)


def read_item(r: Reader, ctx: Context, path: str) -> Item:
    return OBJECT.read(r, ctx, path)  # type: ignore[no-any-return]


def write_item(it: Item, w: Writer, ctx: Context, path: str) -> None:
    OBJECT.write(it, w, ctx, path)


@dataclass(slots=True)
class ItemList:
    """Objects up to the dummy record that ends the list (kept in ``end``)."""

    items: list[Item] = field(default_factory=list)
    end: Item = field(default_factory=Item)


ITEM_LIST = object_list(ItemList, OBJECT)


def read_item_list(r: Reader, ctx: Context, path: str) -> ItemList:
    return ITEM_LIST.read(r, ctx, path)  # type: ignore[no-any-return]


def write_item_list(lst: ItemList, w: Writer, ctx: Context, path: str) -> None:
    ITEM_LIST.write(lst, w, ctx, path)

