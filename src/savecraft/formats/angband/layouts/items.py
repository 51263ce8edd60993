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

import struct
from collections.abc import Callable
from typing import Any
from dataclasses import dataclass, field

from ....binary import Reader, Writer, active_sink, cached_struct
from ....compiled import speedups
from ....errors import FormatError
from . import Context, NotCanonical

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


class _Slow(Exception):
    """The fast path met something unusual; the checked path says exactly what."""


_HEAD = struct.Struct("<HBHBB")  # mark, version, oidx, y, x
_MID = struct.Struct("<hBh")  # pval, number, weight
_BODY = struct.Struct("<B5h4B")  # effect, timeout, to_h, to_d, to_a, ac, dd, ds, origin, origin_depth
_TAIL = struct.Struct("<2h4H")  # held_m_idx, mimicking_m_idx, activation, time base/dice/sides


def _sizes(ctx: Context) -> tuple[int, int, int, int, int, int]:
    v = ctx.values
    try:
        return (v["of_size"], v["obj_mod_max"], v["brand_max"], v["slay_max"], v["curse_max"],
                v["elem_max"])
    except KeyError:
        raise _Slow from None


def _fast_str(d: bytes, pos: int, end: int, limit: int = NAME_MAX) -> tuple[str, int]:
    nul = d.find(b"\0", pos, end)
    if nul < 0 or nul - pos > limit:
        raise _Slow
    try:
        return d[pos:nul].decode("utf-8"), nul + 1
    except UnicodeDecodeError:
        raise _Slow from None


def _read_item_fast(r: Reader, ctx: Context) -> Item:
    """``read_item`` in a few struct calls: most of a 4.2 save is object records."""
    of, mm, bm, sm, cm, em = _sizes(ctx)
    d, pos, end = r.data, r.pos, r.end
    if pos + 7 > end:
        raise _Slow
    mark, version, oidx, y, x = _HEAD.unpack_from(d, pos)
    if mark != ITEM_MARK:
        raise _Slow
    tval, pos = _fast_str(d, pos + 7, end)
    sval, pos = _fast_str(d, pos, end)
    pval, number, weight = _MID.unpack_from(d, pos)
    artifact, pos = _fast_str(d, pos + 5, end)
    ego, pos = _fast_str(d, pos, end)
    effect, timeout, to_h, to_d, to_a, ac, dd, ds, origin, origin_depth = _BODY.unpack_from(d, pos)
    origin_race, pos = _fast_str(d, pos + 15, end)
    notice = d[pos]
    flags = d[pos + 1:pos + 1 + of]
    pos += 1 + of
    modifiers = list(cached_struct(f"<{mm}h").unpack_from(d, pos))
    pos += 2 * mm
    brands = slays = None
    curses = None
    if d[pos] > 1 or d[pos + 1 + (bm if d[pos] else 0)] > 1:
        raise _Slow  # a flag byte the writer would not write back (it writes 0 or 1)
    if d[pos]:
        brands = d[pos + 1:pos + 1 + bm]
        pos += bm
    pos += 1
    if d[pos]:
        slays = d[pos + 1:pos + 1 + sm]
        pos += sm
    pos += 1
    if d[pos] > 1:
        raise _Slow
    if d[pos]:
        c = cached_struct("<" + "BH" * cm).unpack_from(d, pos + 1)
        curses = [Curse(c[i], c[i + 1]) for i in range(0, 2 * cm, 2)]
        pos += 3 * cm
    pos += 1
    e = cached_struct("<" + "hB" * em).unpack_from(d, pos)
    el_res, el_flags = list(e[0::2]), bytes(e[1::2])
    pos += 3 * em
    held, mimic, activation, tb, td, ts = _TAIL.unpack_from(d, pos)
    note, pos = _fast_str(d, pos + 12, end, NOTE_MAX)
    if pos > end:
        raise _Slow
    r.pos = pos
    return Item(version, oidx, y, x, tval, sval, pval, number, weight, artifact, ego, effect,
                timeout, to_h, to_d, to_a, ac, dd, ds, origin, origin_depth, origin_race, notice,
                bytes(flags), modifiers, brands, slays, curses, el_res, el_flags, held, mimic, activation,
                tb, td, ts, note)


# Item's fields in the order of the record, which is the order the C reader fills them in.
_ITEM_SLOTS = ("version", "oidx", "y", "x", "tval", "sval", "pval", "number", "weight", "artifact",
               "ego", "effect", "timeout", "to_h", "to_d", "to_a", "ac", "dd", "ds", "origin",
               "origin_depth", "origin_race", "notice", "flags", "modifiers", "brands", "slays",
               "curses", "el_res", "el_flags", "held_m_idx", "mimicking_m_idx", "activation",
               "time_base", "time_dice", "time_sides", "inscription")


def _c_reader() -> Callable[..., tuple[Item, int] | None] | None:
    """The compiled record reader (:mod:`savecraft.compiled`), told once which classes to build."""
    if speedups is None or not hasattr(speedups, "read_item"):
        return None
    speedups.item_types(Item, tuple(Item.__dict__[n] for n in _ITEM_SLOTS),
                        Curse, (Curse.__dict__["power"], Curse.__dict__["timeout"]),
                        ItemList, (ItemList.__dict__["items"], ItemList.__dict__["end"]))
    return speedups.read_item  # type: ignore[no-any-return]


FieldSpec = tuple[str, str] | tuple[str, str, "int | str | Records"]


class Records:
    """A repeated record for the C reader: a model class and, in file order, each of its fields
    as (slot, code, argument); the codes are those of ``record_program`` in ``_speedups.c``.

    An argument that is a string names a size an earlier block set in the
    :class:`~.Context` (``of_size``...). A field with no slot (``""``) is a
    count the model keeps as a list's length (code ``C``). :meth:`read` returns None whenever the
    C reader is absent or meets anything but the canonical common case; the
    caller then reads the same records with its Python code, which gives the
    same model or the exact error.
    """

    def __init__(self, cls: type, fields: list[FieldSpec]) -> None:
        self.cls = cls
        self.fields = fields
        self._compiled: dict[tuple[int, ...], object] = {}
        # What the compiled program depends on, found once: the names of Context sizes, here
        # and in the records this one nests (a parse asks for the key of ~35 record lists).
        self._sizes = tuple(self._size_names())

    def _size_names(self) -> list[str]:
        names: list[str] = []
        for f in self.fields:
            a = f[2] if len(f) > 2 else None
            if isinstance(a, str):
                names.append(a)
            elif isinstance(a, Records):
                names.extend(a._size_names())
        return names

    def _key(self, values: dict[str, int]) -> tuple[int, ...]:
        """The sizes this program (and the ones it nests) is compiled for."""
        return tuple([values.get(a, -1) for a in self._sizes])

    def program(self, values: dict[str, int]) -> object | None:
        """The compiled program for the sizes in ``values`` (the Context's and the block's own),
        or None (no C reader, a size unknown)."""
        if _read_item_c is None:
            return None
        v = values
        try:
            sizes = (v["of_size"], v["obj_mod_max"], v["brand_max"], v["slay_max"], v["curse_max"],
                     v["elem_max"])
        except KeyError:
            sizes = (0,) * 6
        key = sizes + self._key(values)
        prog = self._compiled.get(key)
        if prog is None:
            if -1 in key[6:] or (sizes == (0,) * 6 and self._has_items()):
                return None
            args = tuple(self._arg(f, values) for f in self.fields)
            if None in args:
                return None
            prog = speedups.record_program(  # type: ignore[union-attr]
                self.cls, tuple(self.cls.__dict__[f[0]] if f[0] else None for f in self.fields),
                "".join(f[1] for f in self.fields), args, sizes)
            if len(self._compiled) >= 64:  # files of many different sizes: keep memory bounded
                self._compiled.clear()
            self._compiled[key] = prog
        return prog

    def _has_items(self) -> bool:
        return any(f[1] in "jX" or (len(f) > 2 and isinstance(f[2], Records)
                                    and f[2]._has_items()) for f in self.fields)

    def _arg(self, f: FieldSpec, values: dict[str, int]) -> object:
        if len(f) < 3:
            return 0
        a = f[2]
        if isinstance(a, str):
            return values[a]
        if isinstance(a, Records):
            return a.program(values)
        return a

    def read(self, r: Reader, ctx: Context, count: int, stop: str | int | None = None,
             **sizes: int) -> list[Any] | None:
        """``count`` records, or None; with a count of -1, the records before ``stop``: a string
        in place of the first field (a string), or a byte in place of the first field (a u8).

        ``sizes`` adds sizes the block itself stored (a history's ``hist_size``). None too while
        byte spans are recorded (the studio, hexdump): the Python reader names every field's bytes.
        """
        if active_sink() is not None:
            return None
        prog = self.program({**ctx.values, **sizes} if sizes else ctx.values)
        if prog is None:
            return None
        got = speedups.read_records(prog, r.data, r.pos, r.end, count, stop)  # type: ignore[union-attr]
        if got is None:
            return None
        r.pos = got[1]
        return got[0]  # type: ignore[no-any-return]

    def write(self, w: Writer, ctx: Context, records: list[Any], stop: str | int | None = None,
              **sizes: int) -> bool:
        """Append ``records`` as the C writer encodes them; False (nothing written) where it
        cannot (no C writer, anything unusual, a first field equal to ``stop``, which would end
        the list when read back): the caller's Python writer then does, or says what is wrong."""
        prog = self.program({**ctx.values, **sizes} if sizes else ctx.values)
        if prog is None or type(records) is not list:
            return False
        raw = speedups.write_records(prog, records, stop)  # type: ignore[union-attr]
        if raw is None:
            return False
        w.buf += raw
        return True



def read_item(r: Reader, ctx: Context, path: str) -> Item:
    """The C reader, else a few struct calls; where either meets anything unusual, the checked
    reader, which says exactly what (or reads the same Item: all three agree)."""
    start = r.pos
    if _read_item_c is not None:
        try:
            sizes = _sizes(ctx)
        except _Slow:
            return _read_item_checked(r, ctx, path)
        got = _read_item_c(r.data, start, r.end, *sizes)
        if got is None:
            return _read_item_checked(r, ctx, path)
        r.pos = got[1]
        return got[0]
    try:
        return _read_item_fast(r, ctx)
    except (_Slow, struct.error, IndexError):
        r.pos = start
    return _read_item_checked(r, ctx, path)


def _flag(r: Reader, name: str) -> bool:
    """A "has ..." byte: the loader takes any non-zero value, the writer writes 1."""
    value = r.u8(name)
    if value > 1:
        raise NotCanonical(f"{name} is {value}, which the game writes back as 1")
    return bool(value)


def _read_item_checked(r: Reader, ctx: Context, path: str) -> Item:
    at = r.pos
    mark = r.u16(f"{path}.mark")
    if mark != ITEM_MARK:
        r.fail(f"{path}.mark", "0xFFFF, the start of an object record", f"0x{mark:04X}", at=at)
    it = Item()
    it.version = r.u8(f"{path}.version")
    it.oidx = r.u16(f"{path}.oidx")
    it.y = r.u8(f"{path}.y")
    it.x = r.u8(f"{path}.x")
    it.tval = read_str(r, f"{path}.tval")
    it.sval = read_str(r, f"{path}.sval")
    it.pval = r.i16(f"{path}.pval")
    it.number = r.u8(f"{path}.number")
    it.weight = r.i16(f"{path}.weight")
    it.artifact = read_str(r, f"{path}.artifact")
    it.ego = read_str(r, f"{path}.ego")
    it.effect = r.u8(f"{path}.effect")
    it.timeout, it.to_h, it.to_d, it.to_a, it.ac = r.array("i16", 5, f"{path}.timeout")
    it.dd = r.u8(f"{path}.dd")
    it.ds = r.u8(f"{path}.ds")
    it.origin = r.u8(f"{path}.origin")
    it.origin_depth = r.u8(f"{path}.origin_depth")
    it.origin_race = read_str(r, f"{path}.origin_race")
    it.notice = r.u8(f"{path}.notice")
    it.flags = r.bytes(ctx.need("of_size", "object memory"), f"{path}.flags")
    it.modifiers = list(r.array("i16", ctx.need("obj_mod_max", "object memory"), f"{path}.modifiers"))
    if _flag(r, f"{path}.has_brands"):
        it.brands = r.bytes(ctx.need("brand_max", "object memory"), f"{path}.brands")
    if _flag(r, f"{path}.has_slays"):
        it.slays = r.bytes(ctx.need("slay_max", "object memory"), f"{path}.slays")
    if _flag(r, f"{path}.has_curses"):
        n = ctx.need("curse_max", "object memory")
        it.curses = [Curse(r.u8(f"{path}.curses[{i}].power"), r.u16(f"{path}.curses[{i}].timeout"))
                     for i in range(n)]
    n = ctx.need("elem_max", "object memory")
    pairs = [(r.i16(f"{path}.el_res[{i}]"), r.u8(f"{path}.el_flags[{i}]")) for i in range(n)]
    it.el_res = [a for a, _ in pairs]
    it.el_flags = bytes(b for _, b in pairs)
    it.held_m_idx = r.i16(f"{path}.held_m_idx")
    it.mimicking_m_idx = r.i16(f"{path}.mimicking_m_idx")
    it.activation, it.time_base, it.time_dice, it.time_sides = r.array("u16", 4, f"{path}.activation")
    it.inscription = read_str(r, f"{path}.inscription", NOTE_MAX)
    return it


def _fast_raw(text: str, limit: int = NAME_MAX) -> bytes:
    raw = text.encode("utf-8")
    if len(raw) > limit or b"\0" in raw:
        raise _Slow
    return raw + b"\0"


def _pack_item(it: Item, ctx: Context) -> bytes:
    of, mm, bm, sm, cm, em = _sizes(ctx)
    if (len(it.flags) != of or len(it.modifiers) != mm or len(it.el_res) != em
            or len(it.el_flags) != em
            or (it.brands is not None and len(it.brands) != bm)
            or (it.slays is not None and len(it.slays) != sm)
            or (it.curses is not None and len(it.curses) != cm)):
        raise _Slow
    parts = [
        _HEAD.pack(ITEM_MARK, it.version, it.oidx, it.y, it.x), _fast_raw(it.tval), _fast_raw(it.sval),
        _MID.pack(it.pval, it.number, it.weight), _fast_raw(it.artifact), _fast_raw(it.ego),
        _BODY.pack(it.effect, it.timeout, it.to_h, it.to_d, it.to_a, it.ac, it.dd, it.ds, it.origin,
                   it.origin_depth),
        _fast_raw(it.origin_race), bytes((it.notice,)), bytes(it.flags),
        cached_struct(f"<{mm}h").pack(*it.modifiers),
    ]
    for value in (it.brands, it.slays):
        parts.append(b"\0" if value is None else b"\1" + bytes(value))
    if it.curses is None:
        parts.append(b"\0")
    else:
        parts.append(b"\1" + cached_struct("<" + "BH" * cm).pack(
            *[v for c in it.curses for v in (c.power, c.timeout)]))
    parts.append(cached_struct("<" + "hB" * em).pack(*[v for e in zip(it.el_res, it.el_flags) for v in e]))
    parts.append(_TAIL.pack(it.held_m_idx, it.mimicking_m_idx, it.activation, it.time_base,
                            it.time_dice, it.time_sides))
    parts.append(_fast_raw(it.inscription, NOTE_MAX))
    return b"".join(parts)


def write_item(it: Item, w: Writer, ctx: Context, path: str) -> None:
    if _read_item_c is not None:
        try:
            raw = speedups.write_item(it, *_sizes(ctx))  # type: ignore[union-attr]
        except _Slow:
            raw = None
        if raw is not None:
            w.buf += raw
            return
    try:
        w.bytes(_pack_item(it, ctx))
        return
    except (_Slow, struct.error, TypeError, ValueError, AttributeError):
        pass
    _write_item_checked(it, w, ctx, path)


def _write_item_checked(it: Item, w: Writer, ctx: Context, path: str) -> None:
    w.u16(ITEM_MARK, f"{path}.mark")
    w.u8(it.version, f"{path}.version")
    w.u16(it.oidx, f"{path}.oidx")
    w.u8(it.y, f"{path}.y")
    w.u8(it.x, f"{path}.x")
    write_str(w, it.tval, f"{path}.tval")
    write_str(w, it.sval, f"{path}.sval")
    w.i16(it.pval, f"{path}.pval")
    w.u8(it.number, f"{path}.number")
    w.i16(it.weight, f"{path}.weight")
    write_str(w, it.artifact, f"{path}.artifact")
    write_str(w, it.ego, f"{path}.ego")
    w.u8(it.effect, f"{path}.effect")
    for name in ("timeout", "to_h", "to_d", "to_a", "ac"):
        w.i16(getattr(it, name), f"{path}.{name}")
    w.u8(it.dd, f"{path}.dd")
    w.u8(it.ds, f"{path}.ds")
    w.u8(it.origin, f"{path}.origin")
    w.u8(it.origin_depth, f"{path}.origin_depth")
    write_str(w, it.origin_race, f"{path}.origin_race")
    w.u8(it.notice, f"{path}.notice")
    check_len(it.flags, ctx.need("of_size", "object memory"), f"{path}.flags", "flag bytes")
    w.bytes(it.flags, f"{path}.flags")
    check_len(it.modifiers, ctx.need("obj_mod_max", "object memory"), f"{path}.modifiers", "modifiers")
    w.array("i16", it.modifiers, f"{path}.modifiers")
    for name, key in (("brands", "brand_max"), ("slays", "slay_max")):
        value = getattr(it, name)
        w.u8(int(value is not None), f"{path}.has_{name}")
        if value is not None:
            check_len(value, ctx.need(key, "object memory"), f"{path}.{name}", name)
            w.bytes(value, f"{path}.{name}")
    w.u8(int(it.curses is not None), f"{path}.has_curses")
    if it.curses is not None:
        check_len(it.curses, ctx.need("curse_max", "object memory"), f"{path}.curses", "curses")
        for i, c in enumerate(it.curses):
            w.u8(c.power, f"{path}.curses[{i}].power")
            w.u16(c.timeout, f"{path}.curses[{i}].timeout")
    n = ctx.need("elem_max", "object memory")
    check_len(it.el_res, n, f"{path}.el_res", "elements")
    check_len(it.el_flags, n, f"{path}.el_flags", "elements")
    for i, (level, flags) in enumerate(zip(it.el_res, it.el_flags)):
        w.i16(level, f"{path}.el_res[{i}]")
        w.u8(flags, f"{path}.el_flags[{i}]")
    w.i16(it.held_m_idx, f"{path}.held_m_idx")
    w.i16(it.mimicking_m_idx, f"{path}.mimicking_m_idx")
    for name in ("activation", "time_base", "time_dice", "time_sides"):
        w.u16(getattr(it, name), f"{path}.{name}")
    write_str(w, it.inscription, f"{path}.inscription", NOTE_MAX)


@dataclass(slots=True)
class ItemList:
    """Objects up to the dummy record that ends the list (kept in ``end``)."""

    items: list[Item] = field(default_factory=list)
    end: Item = field(default_factory=Item)


def read_item_list(r: Reader, ctx: Context, path: str) -> ItemList:
    out = ItemList()
    while True:
        it = read_item(r, ctx, f"{path}.items[{len(out.items)}]")
        if it.is_marker:
            out.end = it
            return out
        out.items.append(it)


def write_item_list(lst: ItemList, w: Writer, ctx: Context, path: str) -> None:
    for i, it in enumerate(lst.items):
        if it.is_marker:
            raise FormatError(None, f"{path}.items[{i}].sval", "an object kind name (an empty "
                              "one ends the list)", "''")
        write_item(it, w, ctx, f"{path}.items[{i}]")
    if not lst.end.is_marker:
        raise FormatError(None, f"{path}.end.sval", "an empty kind name (the end marker)",
                          repr(lst.end.sval))
    write_item(lst.end, w, ctx, f"{path}.end")


_read_item_c = _c_reader()
