"""PWMAngband player savefiles: the misc, gear, dungeon, objects, traps and home blocks.

Read as ``rd_player_misc``, ``rd_gear``, ``rd_player_dungeon``,
``rd_player_objects``, ``rd_player_traps`` and ``rd_home`` of PWMAngband's
``src/server/load.c`` read them, and as ``save.c`` writes them, for every savefile magic
(see :mod:`.pwmangband`: the object record's fields and index widths, the terrain runs'
width follow the magic). The object record and its lists serve the server file too
(:mod:`.pwmangband_server`).

Two things the player's file does not say are settled as follows:

* The ``SAVE_AS_STRINGS`` build option (object kinds, artifacts, egos,
  monster races and trap kinds as names instead of indexes): see
  :func:`.pwmangband.read_build`. The file is written by one build, so the
  first block that tells the builds apart fixes the build for the rest.
* Two sizes the player loader takes from the *server's* savefile: the number
  of square-info layers of the level map (``square_size``) and of trap flag
  bytes (``trf_size``). The writer writes ``SQUARE_SIZE`` layers, each
  covering the whole level, so the block's end says how many there are; and
  ``TRF_SIZE`` flag bytes per trap: two (``list-trap-flags.h`` has 8 flags
  and the count, 9 bits), which the sample's 7-byte traps block (the 5-byte
  end record and 2 flag bytes) confirms.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from ....binary import Reader, Writer, rename_spans, span_mark
from ....errors import FormatError
from ....lazy import lazy_module
from ....layout.native import program_of
from ....layout import (FAST_READ_ERRORS, I16, I32, U8, U16, U32, REST, Array, Bytes, CStr, Ctx, Custom, Field, List, Optional,
                        SetCtx, Struct, Switch, Tuple, When)
from . import BlockModel, Context, Layout, register_layout, register_struct
from .levels import check_rle, read_rle, rle_cover
from .pwmangband import (AS_NAMES, ENCODING, GAME, IS_TANGARIA, NAME_MAX, PWMG, V1_3, V1_4, V1_5, V1_6, V1_6_1,
                         magic, name_or_index, name_or_index_as, rd_name_or_index, read_build, since,
                         with_build, wr_name_or_index)
from .records import HeldQuantity, Quantity, alive

if TYPE_CHECKING:
    import numpy as np
else:  # only a level map read without the C walk needs it, not a small file's start-up
    np = lazy_module("numpy")

VARIANTS = ("PWMG",)  # the variant ids this module registers layouts for (see the package)

NOTE_MAX = 127  # the loader's 128-byte buffer for an inscription and an origin race
KIND_NAME_MAX = 255  # a tval or sval name, read into a MSG_LEN buffer
FINISHED_CODE = 0xFF  # ends the gear list
TRF_SIZE = 2  # FLAG_SIZE(TRF_MAX): 8 trap flags of list-trap-flags.h + the count
ITEM_VERSION = 1  # what wr_item writes first (the loader skips it)


def _layout(name: str, model: type, decode: object, encode: object) -> None:
    """``exact``, as the player file's code layouts (see :func:`.pwmangband._layout`)."""
    register_layout(Layout(name, 1, PWMG, model, decode, encode, GAME,  # type: ignore[arg-type]
                           exact=True))


def _sizes(ctx: Context) -> tuple[int, int, int, int, int, int]:
    """The object sizes the object memory block stored (flags, modifiers, elements, brands...)."""
    return tuple(ctx.need(name, "object memory") for name in  # type: ignore[return-value]
                 ("of_size", "obj_mod_max", "elem_max", "brand_max", "slay_max", "curse_max"))


# -- misc -----------------------------------------------------------------------------------


@dataclass(slots=True)
class RuneKnowledge:
    """What the character has learnt of object properties (the ``obj_k`` object)."""

    flags: bytes = b""
    modifiers: list[int] = field(default_factory=list)
    elements: list[tuple[int, int]] = field(default_factory=list)
    brands: bytes = b""
    slays: bytes = b""
    curses: list[int] = field(default_factory=list)
    ac: int = 0
    to_a: int = 0
    to_h: int = 0
    to_d: int = 0
    dd: int = 0
    ds: int = 0


@dataclass(slots=True)
class Misc(BlockModel):
    """Turn counters (``*_era`` and the turn: the game's two-word turns), birth options, the
    current quest (``quest_race`` killed ``quest_cur_num`` of ``quest_max_num`` times) and,
    for a living character, the rune knowledge.

    ``quest_race`` and ``poly_race`` are a monster race index (0: none) or, in a
    ``SAVE_AS_STRINGS`` build (``as_names``), its name ("": none).
    """

    KIND: ClassVar[str] = "misc-pwm"
    total_winner: int = 0
    noscore: int = 0
    is_dead: int = 0
    feeling: int = 0
    feeling_squares: int = 0
    game_turn_era: int = 0
    game_turn: int = 0
    player_turn_era: int = 0
    player_turn: int = 0
    active_turn_era: int = 0
    active_turn: int = 0
    quit_turn_era: int = 0
    quit_turn: int = 0
    ghost: int = 0
    lives: int = 0
    birth_force_descend: int = 0
    birth_no_recall: int = 0
    birth_no_artifacts: int = 0
    birth_feelings: int = 0
    birth_no_selling: int = 0
    birth_start_kit: int = 0
    birth_no_stores: int = 0
    birth_no_ghost: int = 0
    birth_fruit_bat: int = 0
    quest_race: int | str = 0
    quest_cur_num: int = 0
    quest_max_num: int = 0
    quest_timer: int = 0
    party: int = 0
    retire_timer: int = 0
    tim_mimic_what: int = 0
    poly_race: int | str = 0
    k_idx: int = 0
    knowledge: RuneKnowledge | None = None
    as_names: bool | None = None
    # Tangaria's (None in PWMAngband's files): its account.
    account_id: int | None = None
    account_name: str | None = None
    account_score: int | None = None
    supporter: int | None = None


def _size(name: str) -> Ctx:
    return Ctx(name, "object memory")


_RUNES = Struct(RuneKnowledge, [
    Field("flags", Bytes(_size("of_size"))), Field("modifiers", Array(I32, _size("obj_mod_max"))),
    Field("elements", List(Tuple(("res_level", I16), ("flags", U8)), _size("elem_max"))),
    Field("brands", Bytes(_size("brand_max"))), Field("slays", Bytes(_size("slay_max"))),
    Field("curses", Array(I16, _size("curse_max"))),
    *[Field(n, I16) for n in ("ac", "to_a", "to_h", "to_d")], Field("dd", U8), Field("ds", U8),
], name="rune knowledge")
MISC = Struct(Misc, [
    Field("total_winner", U16), Field("noscore", U8), Field("is_dead", U8), Field("feeling", I16),
    Field("feeling_squares", U16),
    *[Field(n, U32) for n in ("game_turn_era", "game_turn", "player_turn_era", "player_turn",
                              "active_turn_era", "active_turn", "quit_turn_era", "quit_turn")],
    Field("ghost", I16), Field("lives", U8),
    *[Field(n, U8) for n in ("birth_force_descend", "birth_no_recall", "birth_no_artifacts",
                             "birth_feelings", "birth_no_selling", "birth_start_kit", "birth_no_stores",
                             "birth_no_ghost", "birth_fruit_bat")],
    Field("quest_race", name_or_index(U16, numbers=False)),  # wr_race
    *[Field(n, I16) for n in ("quest_cur_num", "quest_max_num", "quest_timer")], Field("party", U8),
    Field("retire_timer", U16), Field("tim_mimic_what", I16),
    Field("poly_race", name_or_index(U16, numbers=False)), Field("k_idx", I16),
    When(IS_TANGARIA, [Field("account_id", U32), Field("account_name", CStr(NAME_MAX, ENCODING)),
                       Field("account_score", U32), Field("supporter", U8)], "Tangaria's account"),
    SetCtx("is_dead", "is_dead"),
    When("not is_dead", [Field("knowledge", _RUNES)], "rune knowledge exactly when the character is alive"),
], name="misc")


def _rd_misc(r: Reader, ctx: Context) -> Misc:
    def read_as(rr: Reader, _: bool) -> Misc:
        m: Misc = MISC.read(rr, ctx)
        return m

    m, build = read_build(r, ctx, "misc", read_as, lambda m: True)
    m.as_names = build
    return m


def _wr_misc(m: Misc, w: Writer, ctx: Context) -> None:
    with_build(ctx, bool(m.as_names), lambda: MISC.write(m, w, ctx))


# -- the object record ----------------------------------------------------------------------


# Every byte of a record whose optional parts (brands, slays, curses) are absent, but for the
# object memory sizes and the fields of later magics: the smallest record, for bounding counts.
# (place 9, tval/sval 2, pval..randart_seed 11, artifact/ego 2, effect..origin_depth 16,
# origin_race and notice 2, three "has" bytes, activation and time 12, note 1, creator and
# owner 8, ignore_protect..bypass_aware 5)
_ITEM_FIXED = 9 + 2 + 11 + 2 + 16 + 2 + 3 + 12 + 1 + 8 + 5


@dataclass(slots=True)
class CurseData:
    power: int = 0
    timeout: int = 0
    to_a: int = 0
    to_h: int = 0
    to_d: int = 0
    modifiers: list[int] = field(default_factory=list)


@dataclass(slots=True)
class Item(Quantity):
    """One object record (``rd_item``). ``tval``/``sval``, ``artifact`` and ``ego`` are
    indexes (artifact and ego: index + 1, 0 for none, 255 for "known to be none") or, in a
    ``SAVE_AS_STRINGS`` build, names. ``brands``, ``slays`` and ``curses`` are None when the
    object has none (the record then stores one 0 byte for them).

    By savefile magic: tval/sval are u8 before 1.4.0 and u16 after, artifact/ego u8 before
    1.6.0 and u16 after; ``level_req`` is stored from 1.3.0, ``origin_player`` from 1.5.0,
    ``worn_time`` from 1.6.1 (None where the file's magic does not store them)."""

    version: int = ITEM_VERSION
    iy: int = 0
    ix: int = 0
    wpos_y: int = 0
    wpos_x: int = 0
    wpos_depth: int = 0
    tval: int | str = 0
    sval: int | str = 0
    pval: int = 0
    number: int = 0
    weight: int = 0
    randart_seed: int = 0
    artifact: int | str = 0
    ego: int | str = 0
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
    curses: list[CurseData] | None = None
    elements: list[tuple[int, int]] = field(default_factory=list)
    held_m_idx: int = 0
    mimicking_m_idx: int = 0
    activation: int = 0
    time_base: int = 0
    time_dice: int = 0
    time_sides: int = 0
    note: str = ""
    creator: int = 0
    owner: int = 0
    level_req: int | None = 0
    ignore_protect: int = 0
    ordered: int = 0
    decay: int = 0
    bypass_aware: int = 0
    origin_player: str | None = None
    worn_time: int | None = None
    soulbound: int | None = None  # Tangaria's (None in PWMAngband's files)

    @property
    def is_marker(self) -> bool:
        """The "dummy" object the writer ends a list with: no kind (in a names build, the
        base name "none" and no kind name)."""
        return (self.tval, self.sval) in ((0, 0), ("none", ""))


_CURSE = Struct(CurseData, [
    *[Field(n, I16) for n in ("power", "timeout", "to_a", "to_h", "to_d")],
    Field("modifiers", Array(I16, _size("obj_mod_max")))], name="curse")


def _item_record(wide_kind: bool, wide_art: bool, as_names: bool) -> Struct:
    """``wr_item``: the object record of every magic, declared once, as one build stores it
    (``as_names``) with the index widths of the file's magic: tval and sval u16 from 1.4.0
    (beta 8, ``wr_tval_sval``; u8 before), artifact and ego u16 from 1.6.0 (``wr_artifact``,
    ``wr_ego``). So in an indexes build the record's fixed fields up to ``origin_depth`` are
    one run, read in one unpack; :func:`item_record` gives the one a block's records are of."""
    kind = name_or_index_as(as_names, U16 if wide_kind else U8, numbers=False, limit=KIND_NAME_MAX)
    art = name_or_index_as(as_names, U16 if wide_art else U8)
    return Struct(Item, [
        Field("version", U8), Field("iy", U8), Field("ix", U8),
        *[Field(n, I16) for n in ("wpos_y", "wpos_x", "wpos_depth")],
        Field("tval", kind), Field("sval", kind),
        Field("pval", I32), Field("number", U8), Field("weight", I16), Field("randart_seed", I32),
        Field("artifact", art), Field("ego", art),
        Field("effect", U8), *[Field(n, I16) for n in ("timeout", "to_h", "to_d", "to_a", "ac")],
        Field("dd", U8), Field("ds", U8), Field("origin", U8), Field("origin_depth", I16),
        Field("origin_race", CStr(NOTE_MAX, ENCODING)), Field("notice", U8),
        Field("flags", Bytes(_size("of_size"))), Field("modifiers", Array(I32, _size("obj_mod_max"))),
        Field("brands", Optional(U8, Bytes(_size("brand_max")))),
        Field("slays", Optional(U8, Bytes(_size("slay_max")))),
        Field("curses", Optional(U8, List(_CURSE, _size("curse_max")))),
        Field("elements", List(Tuple(("res_level", I16), ("flags", U8)), _size("elem_max"))),
        Field("held_m_idx", I16), Field("mimicking_m_idx", I16), Field("activation", U16),
        *[Field(n, I16) for n in ("time_base", "time_dice", "time_sides")],
        Field("note", CStr(NOTE_MAX, ENCODING)), Field("creator", I32), Field("owner", I32),
        When(since(V1_3), [Field("level_req", U8)], "level_req from 1.3.0 on"),
        Field("ignore_protect", U8), Field("ordered", U8), Field("decay", I16), Field("bypass_aware", U8),
        When(IS_TANGARIA, [Field("soulbound", U8)], "Tangaria's soulbound"),
        When(since(V1_5), [Field("origin_player", CStr(NOTE_MAX, ENCODING))], "origin_player from 1.5.0 on"),
        When(since(V1_6_1), [Field("worn_time", U16)], "worn_time from 1.6.1 on"),
    ], name="object")


_ITEMS = {key: _item_record(*key) for key in
          [(False, False, False), (False, False, True), (True, False, False), (True, False, True),
           (True, True, False), (True, True, True)]}


def item_record(ctx: Context) -> Struct:
    """The object record of the file's magic and of the build the Context's ``pwm_as_names``
    entry says (set for the whole block by :func:`.pwmangband.read_build` and the writers)."""
    version = magic(ctx)
    return _ITEMS[version >= V1_4, version >= V1_6, bool(ctx.values.get(AS_NAMES))]


def read_item(r: Reader, ctx: Context, as_names: bool, path: str) -> Item:
    """One object record of the file's build (``as_names``), alone. The blocks' readers read
    their records with :func:`item_record` directly: :func:`.pwmangband.read_build` sets the build in
    the Context once for the whole block."""
    it: Item = with_build(ctx, as_names, lambda: item_record(ctx).read(r, ctx, path))
    return it


def write_item(it: Item, w: Writer, ctx: Context, as_names: bool, path: str) -> None:
    with_build(ctx, as_names, lambda: item_record(ctx).write(it, w, ctx, path))


def write_block(ctx: Context, as_names: bool, write: Callable[[], None]) -> None:
    """A block's records written with its build set in the Context once (``with_build``)."""
    with_build(ctx, as_names, write)


def min_item(ctx: Context) -> int:
    of, mods, elems = _sizes(ctx)[:3]
    return _ITEM_FIXED + of + 4 * mods + 3 * elems


@dataclass(slots=True)
class ItemPair(HeldQuantity):
    """An object and the player's knowledge of it (``known``), as the writer stores each one."""

    item: Item = field(default_factory=Item)
    known: Item = field(default_factory=Item)


def read_pair(r: Reader, ctx: Context, path: str) -> ItemPair:
    """An object and its known copy, in the build the Context's ``pwm_as_names`` says."""
    at = r.pos
    read = item_record(ctx).read
    item = read(r, ctx, f"{path}.item")
    if item.is_marker:
        r.fail(f"{path}.item.tval", "an object (the game refuses an object of no kind here)",
               "the end-of-list record", at=at)
    return ItemPair(item, read(r, ctx, f"{path}.known"))


def _fast_pairs(r: Reader, ctx: Context, most: int, items: list[ItemPair],
                bound: Callable[..., tuple[list[Item], int] | None] | None = None) -> Item | None:
    """Objects and their known copies read straight from the bytes with the record's generated
    fast reader (no Reader step per record), for a read that notes no spans: up to ``most``
    pairs (-1: up to the end record, which is returned) appended to ``items``, ``r`` moved past
    each whole pair. It stops at anything unusual (a record the fast reader gives up on, the
    end record where an object must be, too few bytes left): the caller's checked loop then
    reads on from there, and gives the same model or the located problem."""
    if r.spans is not None:
        return None
    record = item_record(ctx)
    if bound is None:  # (else the program bound once for the block's lists: see pairs_reader)
        prog = program_of(record)
        bound = prog.bound(ctx) if prog is not None else None
    if bound is not None:
        return _program_pairs(r, bound, min_item(ctx), most, items)
    read, d, stop, pos = record.fast_read_fn, r.data, r.end, r.pos
    least = min_item(ctx)
    item: Item
    known: Item
    try:
        while most < 0 or len(items) < most:
            if pos + least > stop:
                return None
            item, pos = read(d, pos, stop, ctx)
            if item.is_marker:
                if most >= 0 or pos > stop:
                    return None
                r.pos = pos
                return item
            known, pos = read(d, pos, stop, ctx)
            if pos > stop:
                return None
            items.append(ItemPair(item, known))
            r.pos = pos
    except FAST_READ_ERRORS:
        pass
    return None


def _program_pairs(r: Reader, read: Callable[..., tuple[list[Item], int] | None],
                   least: int, most: int, items: list[ItemPair]) -> Item | None:
    """:func:`_fast_pairs` with the record's C program compiled once for the block: a pair
    (the object and its known copy) in one call, an object at a time where the first of two is
    the end record or two do not read. It stops where the program gives up, as the fast reader
    does."""
    d, stop, pos = r.data, r.end, r.pos
    if most < 0:  # a list up to its end record: every record in one call
        end = _until_end(read, d, pos, stop, items)
        if end is not None:
            r.pos = end[1]
            return end[0]
    left = most - len(items)
    if left > 0 and pos + 2 * left * least <= stop:  # a stock: every pair in one call
        got = read(d, pos, stop, 2 * left)
        if got is not None and not any(it.is_marker for it in got[0][::2]):
            recs = got[0]
            items += [ItemPair(recs[k], recs[k + 1]) for k in range(0, len(recs), 2)]
            r.pos = got[1]
            return None
    while most < 0 or len(items) < most:
        if pos + least > stop:
            return None
        got = read(d, pos, stop, 2)
        if got is not None and not got[0][0].is_marker:
            (item, known), pos = got
        elif most >= 0:
            return None
        else:  # (the end record, or an object of the last bytes: one record at a time)
            got = read(d, pos, stop, 1)
            if got is None:
                return None
            (item,), pos = got
            if item.is_marker:
                r.pos = pos
                return item
            got = read(d, pos, stop, 1)
            if got is None:
                return None
            (known,), pos = got
        items.append(ItemPair(item, known))
        r.pos = pos
    return None


def _until_end(read: Callable[..., tuple[list[Item], int] | None], d: bytes, pos: int, stop: int,
               items: list[ItemPair]) -> tuple[Item, int] | None:
    """The pairs of an object list and its end record (``wr_dummy_item``) read by the record's
    program in one call (``read`` a bound program), appended to ``items``: the end record and
    the position after it, or None (nothing appended) where the program gives up or the first
    record of no kind is in the place of a known copy (the pair loop then reads one by one)."""
    got = read(d, pos, stop, -2, "is_marker")
    if got is None:
        return None
    recs, after = got
    if not len(recs) % 2 or not recs[-1].is_marker:
        return None
    items += [ItemPair(recs[k], recs[k + 1]) for k in range(0, len(recs) - 1, 2)]
    return recs[-1], after


def pairs_reader(ctx: Context) -> Callable[..., tuple[list[Item], int] | None] | None:
    """The object record's C program bound for a block's many lists (see :func:`read_pairs`)."""
    prog = program_of(item_record(ctx))
    return prog.bound(ctx) if prog is not None else None


def read_pairs(r: Reader, ctx: Context, n: int, path: str,
               bound: Callable[..., tuple[list[Item], int] | None] | None = None) -> list[ItemPair]:
    """``n`` objects and their known copies (a home's or a store's stock): read fast where no
    spans are noted, from the first unusual record on one by one, checked; ``bound``: the
    record's program bound for the block (:func:`pairs_reader`), for a block of many lists."""
    items: list[ItemPair] = []
    _fast_pairs(r, ctx, n, items, bound)
    items += [read_pair(r, ctx, f"{path}[{i}]") for i in range(len(items), n)]
    return items


RecordsWriter = Callable[[list[Any]], "bytes | None"]


def records_writer(ctx: Context) -> RecordsWriter | None:
    """The object record's C program bound to the Context's values for a block's writes (many
    records in one call), or None where it has none for them."""
    prog = program_of(item_record(ctx))
    return prog.bound_write(ctx) if prog is not None else None


def write_pairs(pairs: list[ItemPair], w: Writer, ctx: Context, path: str, end: Item | None = None,
                fast: RecordsWriter | None = None) -> bool:
    """Objects and their known copies (then ``end``, the end record of a list), written in one
    call of the record's program (``fast``, or bound here) where it can: True. Otherwise the
    pairs one by one, through the checked writer that names a problem (an object of no
    kind), and not ``end``: False."""
    write = fast if fast is not None else records_writer(ctx)
    if write is not None and not any(p.item.is_marker for p in pairs) and (end is None or end.is_marker):
        recs = [x for p in pairs for x in (p.item, p.known)]
        if end is not None:
            recs.append(end)
        raw = write(recs)
        if raw is not None:
            w.buf += raw
            return True
    for i, p in enumerate(pairs):
        write_pair(p, w, ctx, f"{path}[{i}]")
    return False


def write_pair(p: ItemPair, w: Writer, ctx: Context, path: str) -> None:
    if p.item.is_marker:
        raise FormatError(None, f"{path}.item.tval", "an object of some kind", "no kind")
    write = item_record(ctx).write
    write(p.item, w, ctx, f"{path}.item")
    write(p.known, w, ctx, f"{path}.known")


def check_build(as_names: bool | None, depends: bool, path: str) -> bool:
    """The build a block is written for: a block holding names or indexes must say which."""
    if as_names is None and depends:
        raise FormatError(None, f"{path}as_names", "true or false (the block holds names or indexes)",
                          "null")
    return bool(as_names)


# -- gear -----------------------------------------------------------------------------------


@dataclass(slots=True)
class GearItem(ItemPair):
    """``slot``: the equipment slot the object is wielded in, or the body's slot count (13
    for the sample's race) for an object in the pack or quiver."""

    slot: int = 0


# ``wr_gear``'s entry: the slot, then the object and its known copy, of each object record;
# the list ends with FINISHED_CODE in place of a slot (read by the record's C program in one
# call up to it, see _fast_gear; the checked loop of _rd_gear_as reads what it does not).
_GEAR = {key: Struct(GearItem, [Field("slot", U8), Field("item", rec), Field("known", rec)], name="gear entry")
         for key, rec in _ITEMS.items()}


def _gear_record(ctx: Context) -> Struct:
    """The gear entry's declaration for the Context's savefile magic and build."""
    version = magic(ctx)
    return _GEAR[version >= V1_4, version >= V1_6, bool(ctx.values.get(AS_NAMES))]


def _gear_program(ctx: Context) -> Callable[..., tuple[list[GearItem], int] | None] | None:
    """The gear entry's C program bound for the block (see :meth:`.native.Program.bound`)."""
    prog = program_of(_gear_record(ctx))
    return prog.bound(ctx) if prog is not None else None


def _gear_writer(ctx: Context) -> RecordsWriter | None:
    """The same program bound for the block's write (see :meth:`.native.Program.bound_write`)."""
    prog = program_of(_gear_record(ctx))
    return prog.bound_write(ctx) if prog is not None else None


@dataclass(slots=True)
class Gear(BlockModel):
    """What the character carries, in the game's order; ``as_names`` as in :class:`Misc`
    (None for an empty list, which both builds write the same)."""

    KIND: ClassVar[str] = "gear-pwm"
    items: list[GearItem] = field(default_factory=list)
    as_names: bool | None = None


def _fast_gear(r: Reader, ctx: Context, least: int, items: list[GearItem]) -> bool:
    """The gear's slots and pairs read with the programs compiled once for the block, where no
    spans are noted: the whole list and its end code in one call of the gear entry's (True),
    else up to the first unusual record a pair at a time (the checked loop of
    :func:`_rd_gear_as` reads on from there)."""
    whole = _gear_program(ctx) if r.spans is None else None
    if whole is not None:
        entries = whole(r.data, r.pos, r.end, -1, FINISHED_CODE)
        if entries is not None and not any(g.item.is_marker for g in entries[0]):
            items += entries[0]
            r.pos = entries[1]
            return True
    prog = program_of(item_record(ctx)) if r.spans is None else None
    read = prog.bound(ctx) if prog is not None else None
    if read is None:
        return False
    d, stop, pos = r.data, r.end, r.pos
    while pos < stop and d[pos] != FINISHED_CODE and pos + 1 + 2 * least <= stop:
        got = read(d, pos + 1, stop, 2)
        if got is None or got[0][0].is_marker:
            return False
        (item, known), after = got
        items.append(GearItem(item, known, d[pos]))
        r.pos = pos = after
    return False


def _rd_gear_as(r: Reader, ctx: Context, as_names: bool) -> Gear:
    m = Gear(as_names=as_names)
    least = min_item(ctx)
    if _fast_gear(r, ctx, least, m.items):
        return m
    while True:
        p = f"items[{len(m.items)}]"
        code = r.u8(f"{p}.slot")
        if code == FINISHED_CODE:
            return m
        r.need(2 * least, p, "an object and its known copy")
        pair = read_pair(r, ctx, p)
        m.items.append(GearItem(pair.item, pair.known, code))


def _rd_gear(r: Reader, ctx: Context) -> Gear:
    m, build = read_build(r, ctx, "gear", lambda rr, as_names: _rd_gear_as(rr, ctx, as_names),
                          lambda m: bool(m.items))
    m.as_names = build
    return m


def _wr_gear(m: Gear, w: Writer, ctx: Context) -> None:
    as_names = check_build(m.as_names, bool(m.items), "")

    def write() -> None:
        whole = _gear_writer(ctx)
        if whole is not None and not any(g.slot == FINISHED_CODE or g.item.is_marker for g in m.items):
            raw = whole(m.items)
            if raw is not None:
                w.buf += raw
                w.u8(FINISHED_CODE, "end")
                return
        fast = records_writer(ctx)
        for i, g in enumerate(m.items):
            if g.slot == FINISHED_CODE:
                raise FormatError(None, f"items[{i}].slot", "a slot below 255 (255 ends the list)", "255")
            w.u8(g.slot, f"items[{i}].slot")
            raw = fast([g.item, g.known]) if fast is not None and not g.item.is_marker else None
            if raw is None:  # (the checked writer: says what is wrong, and where)
                write_pair(g, w, ctx, f"items[{i}]")
            else:
                w.buf += raw
        w.u8(FINISHED_CODE, "end")
    write_block(ctx, as_names, write)


# -- home -----------------------------------------------------------------------------------


@dataclass(slots=True)
class Home(BlockModel):
    """The character's home (``rd_home``): its owner index and the objects stored there."""

    KIND: ClassVar[str] = "home-pwm"
    owner: int = 0
    items: list[ItemPair] = field(default_factory=list)
    as_names: bool | None = None


def _rd_home_as(r: Reader, ctx: Context, as_names: bool) -> Home:
    m = Home(r.u8("owner"))
    n = r.count(r.i16("count"), 2 * min_item(ctx), "items", "object")
    m.items = read_pairs(r, ctx, n, "items")
    m.as_names = as_names
    return m


def _rd_home(r: Reader, ctx: Context) -> Home:
    m, build = read_build(r, ctx, "home", lambda rr, as_names: _rd_home_as(rr, ctx, as_names),
                          lambda m: bool(m.items))
    m.as_names = build
    return m


def _wr_home(m: Home, w: Writer, ctx: Context) -> None:
    as_names = check_build(m.as_names, bool(m.items), "")
    w.u8(m.owner, "owner")
    w.i16(len(m.items), "count")

    def write() -> None:
        write_pairs(m.items, w, ctx, "items")
    write_block(ctx, as_names, write)


# -- objects on the player's level ----------------------------------------------------------


@dataclass(slots=True)
class Objects(BlockModel):
    """The objects the player knows of on the current level, then the end record (``end``);
    nothing for a dead character."""

    KIND: ClassVar[str] = "objects-pwm"
    items: list[ItemPair] | None = None
    end: Item | None = None
    as_names: bool | None = None


ObjectListReader = Callable[[Reader, str, str], tuple[list[ItemPair], Item]]


def object_list_reader(ctx: Context) -> ObjectListReader:
    """:func:`read_object_list` for many short lists under one Context (each monster's held
    objects, mostly none): the record's program compiled and the smallest record's size
    taken once for the block, not for each list."""
    prog = program_of(item_record(ctx))
    bound = prog.bound(ctx) if prog is not None else None
    least = min_item(ctx)

    def read(r: Reader, path: str, end: str) -> tuple[list[ItemPair], Item]:
        if bound is None or r.spans is not None:
            return read_object_list(r, ctx, path, end)
        items: list[ItemPair] = []
        done = _program_pairs(r, bound, least, -1, items)
        if done is not None:
            return items, done
        return read_object_list(r, ctx, path, end, items)
    return read


def read_object_list(r: Reader, ctx: Context, path: str, end: str,
                     items: list[ItemPair] | None = None) -> tuple[list[ItemPair], Item]:
    """Objects and their known copies up to the dummy record (``wr_dummy_item``), which the
    model keeps as ``end`` (its spans too: read as the next element, noted under ``end``), in
    the build the Context's ``pwm_as_names`` says; after ``items``, where a fast read stopped."""
    if items is None:
        items = []
        done = _fast_pairs(r, ctx, -1, items)
        if done is not None:
            return items, done
    least = min_item(ctx)
    read = item_record(ctx).read
    while True:
        p = f"{path}[{len(items)}]"
        r.need(least, p, "an object or the end-of-list record")
        mark = span_mark(r)
        item = read(r, ctx, f"{p}.item")
        if item.is_marker:
            rename_spans(r, mark, f"{p}.item", end)
            return items, item
        items.append(ItemPair(item, read(r, ctx, f"{p}.known")))


def write_object_list(items: list[ItemPair], end: Item, w: Writer, ctx: Context, path: str,
                      end_path: str, fast: RecordsWriter | None = None) -> None:
    """The objects, then the end record (``wr_dummy_item``), in the Context's build (in one
    call of the record's program, ``fast`` or bound here, where it can)."""
    if write_pairs(items, w, ctx, path, end, fast):
        return
    if not end.is_marker:
        raise FormatError(None, f"{end_path}.tval", "the end-of-list record (no kind)", repr(end.tval))
    item_record(ctx).write(end, w, ctx, end_path)


def _rd_objects_as(r: Reader, ctx: Context, as_names: bool) -> Objects:
    items, end = read_object_list(r, ctx, "items", "end")
    return Objects(items, end=end, as_names=as_names)


def _rd_objects(r: Reader, ctx: Context) -> Objects:
    if not alive(ctx):
        return Objects()
    m, build = read_build(r, ctx, "objects", lambda rr, as_names: _rd_objects_as(rr, ctx, as_names),
                          lambda m: True)
    m.as_names = build
    return m


def _wr_objects(m: Objects, w: Writer, ctx: Context) -> None:
    if alive(ctx) != (m.items is not None and m.end is not None):
        raise FormatError(None, "items", "objects exactly when the character is alive", repr(m.items))
    if m.items is None or m.end is None:
        return
    as_names, items, end = check_build(m.as_names, True, ""), m.items, m.end
    write_block(ctx, as_names, lambda: write_object_list(items, end, w, ctx, "items", "end"))


# -- traps ----------------------------------------------------------------------------------


@dataclass(slots=True)
class Trap:
    """``kind``: the trap kind index (0: none) or, in a names build, its description."""

    kind: int | str = 0
    y: int = 0
    x: int = 0
    power: int = 0
    timeout: int = 0
    flags: bytes = bytes(TRF_SIZE)


@dataclass(slots=True)
class Traps(BlockModel):
    """The traps the player knows of on the current level, up to the record at (0, 0) that
    ends the list (``end``); nothing for a dead character."""

    KIND: ClassVar[str] = "traps-pwm"
    traps: list[Trap] | None = None
    end: Trap | None = None
    as_names: bool | None = None


def read_trap(r: Reader, as_names: bool, p: str, flags: int = TRF_SIZE) -> Trap:
    """One trap record (``wr_trap``); ``flags``: TRF_SIZE, which the server file stores."""
    t = Trap(rd_name_or_index(r, as_names, f"{p}.kind", "u8"))
    t.y, t.x, t.power, t.timeout = (r.u8(f"{p}.{n}") for n in ("y", "x", "power", "timeout"))
    t.flags = r.bytes(flags, f"{p}.flags")
    return t


def read_trap_list(r: Reader, as_names: bool, path: str, end: str, flags: int = TRF_SIZE
                   ) -> tuple[list[Trap], Trap]:
    """Traps up to the dummy at (0, 0) (``rd_level_traps``), which the model keeps as ``end``
    (its spans too: read as the next element, noted under ``end``)."""
    traps: list[Trap] = []
    while True:
        p, mark = f"{path}[{len(traps)}]", span_mark(r)
        t = read_trap(r, as_names, p, flags)
        if t.y == 0 and t.x == 0:
            rename_spans(r, mark, p, end)
            return traps, t
        traps.append(t)


def _rd_traps_as(r: Reader, as_names: bool) -> Traps:
    traps, end = read_trap_list(r, as_names, "traps", "end")
    return Traps(traps, end=end, as_names=as_names)


def _rd_traps(r: Reader, ctx: Context) -> Traps:
    if not alive(ctx):
        return Traps()
    m, build = read_build(r, ctx, "traps", _rd_traps_as,
                          lambda m: bool(m.traps) or bool(m.end and m.end.kind))
    m.as_names = build
    return m


def _wr_traps(m: Traps, w: Writer, ctx: Context) -> None:
    if alive(ctx) != (m.traps is not None and m.end is not None):
        raise FormatError(None, "traps", "traps exactly when the character is alive", repr(m.traps))
    if m.traps is None or m.end is None:
        return
    as_names = check_build(m.as_names, bool(m.traps) or bool(m.end.kind), "")
    for i, t in enumerate([*m.traps, m.end]):
        p = f"traps[{i}]" if i < len(m.traps) else "end"
        if (t.y == 0 and t.x == 0) != (i == len(m.traps)):
            raise FormatError(None, f"{p}.y", "(0, 0) only for the end record", f"({t.y}, {t.x})")
        wr_name_or_index(w, t.kind, as_names, f"{p}.kind", "u8")
        w.array("u8", [t.y, t.x, t.power, t.timeout], f"{p}.y")
        w.bytes(t.flags, f"{p}.flags", size=TRF_SIZE)


# -- the player's view of the level ---------------------------------------------------------


def feat_run(ctx: Context) -> int:
    """The size of one terrain run: u8 count and the feature, u16 from 1.3.0 (u8 before)."""
    return 3 if magic(ctx) >= V1_3 else 2


def read_feat_runs(r: Reader, cells: int, name: str, run: int) -> bytes:
    """The (u8 count, feature) runs that fill ``cells`` squares, as stored: the first runs
    whose counts add up to ``cells`` or more (the counts of the whole runs before the block's
    end added up at once, as :func:`.levels.read_rle` does for its pairs)."""
    if cells <= 0:
        return r.bytes(0, name)
    if rle_cover is not None:  # the C walk: numpy's import alone costs a small file's start-up
        covering = rle_cover(r.data, r.pos, r.end, cells, run)
        if covering >= 0:
            return r.bytes(run * covering, name)
    whole = (r.end - r.pos) // run
    counts = np.frombuffer(r.data, np.uint8, count=whole * run, offset=r.pos)[::run] if whole else \
        np.zeros(0, np.uint8)
    done = np.cumsum(counts, dtype=np.int64)
    k = int(np.searchsorted(done, cells))  # the first run at which the counts reach ``cells``
    if k >= len(done):
        r.fail(name, f"{run}-byte runs covering {cells} squares",
               f"{int(done[-1]) if len(done) else 0} squares before the end of the block")
    return r.bytes(run * (k + 1), name)


def check_feat_runs(runs: bytes, cells: int, name: str, run: int) -> None:
    """Refuse runs that do not just cover ``cells`` squares: what :func:`read_feat_runs` would
    not read back (the counts added up at once)."""

    raw = bytes(runs)
    if rle_cover is not None and cells > 0 and rle_cover(raw, 0, len(raw), cells, run) * run == len(raw):
        return  # the runs just cover the squares (counted by the C walk)
    whole = len(raw) // run
    done, k = 0, 0
    if cells > 0 and whole:
        total = np.cumsum(np.frombuffer(raw, np.uint8, count=whole * run)[::run], dtype=np.int64)
        j = int(np.searchsorted(total, cells))
        done, k = (int(total[j]), run * (j + 1)) if j < whole else (int(total[-1]), run * whole)
    if done < cells or k != len(raw):
        raise FormatError(None, name, f"{run}-byte runs that just cover {cells} squares",
                          f"{len(runs)} bytes covering {done}")


@dataclass(slots=True)
class PlayerLevel:
    """The level as the player knows it: where it is in the world (``wpos_*``, depth 0 for
    the surface), where the player stands, the terrain as the run-length pairs the game
    wrote (u8 count, then the feature: u16 from 1.3.0, u8 before) and each square-info layer as (count, byte) pairs."""

    wpos_y: int = 0
    wpos_x: int = 0
    wpos_depth: int = 0
    py: int = 0
    px: int = 0
    height: int = 0
    width: int = 0
    feat: bytes = b""
    info: list[bytes] = field(default_factory=list)


@dataclass(slots=True)
class Dungeon(BlockModel):
    """The player's level (``rd_player_dungeon``), None for a dead character.

    ``depth`` is the common path to where the character is (0: the surface):
    the game keeps it as the player's world position, ``p->wpos.depth``, which
    this block stores as ``level.wpos_depth``.
    """

    KIND: ClassVar[str] = "dungeon-pwm"
    level: PlayerLevel | None = None

    @property
    def present(self) -> bool:
        """False for a dead character's block, which the game leaves empty (no depth then)."""
        return self.level is not None

    @property
    def depth(self) -> int:
        if self.level is None:
            raise AttributeError("depth: a dead character's dungeon block holds no level")
        return self.level.wpos_depth

    @depth.setter
    def depth(self, value: int) -> None:
        if self.level is None:
            raise AttributeError("depth: a dead character's dungeon block holds no level")
        self.level.wpos_depth = value


def _read_feat(r: Reader, arg: tuple[int, int], name: str) -> bytes:
    """The terrain runs: ``arg`` is (the level's squares, the size of one run)."""
    return read_feat_runs(r, arg[0], name, arg[1])


def _check_feat(runs: bytes, arg: tuple[int, int], path: str) -> None:
    check_feat_runs(runs, arg[0], path, arg[1])


# ``rd_player_dungeon``: where the level is, where the player stands, its size, the terrain
# runs (u8 count, then the feature: u16 from 1.3.0, u8 before) and the square-info layers:
# SQUARE_SIZE of them, a size the player file does not store, so as many as the block holds
# (none on a level of no squares).
_LEVEL = Struct(PlayerLevel, [
    *[Field(n, I16) for n in ("wpos_y", "wpos_x", "wpos_depth", "py", "px")],
    Field("height", U16), Field("width", U16),
    Field("feat", Custom(_read_feat, _check_feat, f"(height * width, 3 if {since(V1_3)} else 2)")),
    When("height * width", [Field("info", List(Custom(read_rle, check_rle, "height * width"), REST))],
         "square-info layers on a level of some squares", defaults=True),
], name="level")
DUNGEON = Struct(Dungeon, [
    When("not ctx.need('is_dead', 'misc')", [Field("level", _LEVEL)],
         "a level exactly when the character is alive"),
], name="dungeon")


_layout("misc", Misc, _rd_misc, _wr_misc)
_layout("gear", Gear, _rd_gear, _wr_gear)
register_struct(DUNGEON, "dungeon", 1, PWMG, GAME)
_layout("objects", Objects, _rd_objects, _wr_objects)
_layout("traps", Traps, _rd_traps, _wr_traps)
_layout("home", Home, _rd_home, _wr_home)
