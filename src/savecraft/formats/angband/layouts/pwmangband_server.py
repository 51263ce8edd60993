"""PWMAngband's server file and players file (variant ``PWMG``): the blocks of
``server_savers`` and ``account_savers`` in src/server/savefile.c, as ``save.c`` writes them and
``load.c`` reads them (``rd_misc``, ``rd_artifacts``, ``rd_stores``, ``rd_dungeon``,
``rd_objects``, ``rd_monsters``, ``rd_traps``, ``rd_parties``, ``rd_houses``, ``rd_arenas``,
``rd_wilderness``, ``rd_player_names``), for every savefile magic: fields that come and go with
the magic are conditions over the ``pwm_magic`` context entry (see :mod:`.pwmangband`).

The server writes its own "monster memory" (the races' lore, the player file's layout) and an
"object memory" that holds only the object sizes; the world's levels follow, each level's
objects, monsters and traps in its own block, then parties, houses, arenas, the wilderness and
(until 1.4.0.1, when they moved to the "players" file) the player names. These are registered
as the game :data:`GAME` ("PWMAngband server"), chosen for a PWMAngband file without a header
block by its magic, as the server loads it (``load_server_info``/``load_account_info``).

Objects, monsters and traps name kinds and races by index or, in a ``SAVE_AS_STRINGS``
build, by name: :func:`.pwmangband.read_build` tells which from the bytes, as for the player
file. Levels, stores and monsters hold lists of objects ended by a dummy record, read by the
player file's object reader (:mod:`.pwmangband_world`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import ClassVar

from ....binary import Reader, Writer
from ....errors import FormatError
from ....layout import (I16, I32, U8, U16, U32, Array, Bytes, Check, CStr, Ctx, Expr, Field, List, Prefix, Struct,
                        Switch, When)
from . import BlockModel, Context, Layout, register_layout, register_struct
from .levels import check_rle, read_rle
from .pwmangband import (ENCODING, MONSTER_MEMORY, NAME_MAX, PWMG, V1_3, V1_4, V1_5, magic, name_or_index_as,
                         rd_name_or_index, read_build, read_str, since, wr_name_or_index, write_str)
from ....layout.native import program_of
from .pwmangband_world import (ItemPair, Item, ObjectListReader, RecordsWriter, Trap, _until_end, item_record,
                               object_list_reader, pairs_reader, records_writer, write_pairs, check_build, check_feat_runs, feat_run, min_item,
                               read_feat_runs, read_object_list, read_pairs, read_trap_list,
                               write_block, write_object_list, write_pair)

VARIANTS = ("PWMG",)  # the variant ids this module registers layouts for (see the package)

GAME = "PWMAngband server"
OWNER_MAX = 19  # a party's owner: char owner[20]
STORE_ORDERS_1_1 = 6  # STORE_ORDERS before 1.3.0, when the count was not stored
STORE_ORDERS = 8  # STORE_ORDERS from 1.3.0; a count of one more says the orders have order_turn


def _layout(name: str, model: type, decode: object, encode: object) -> None:
    """``exact``, as the player file's code layouts (see :func:`.pwmangband._layout`)."""
    register_layout(Layout(name, 1, PWMG, model, decode, encode, GAME,  # type: ignore[arg-type]
                           exact=True))


# -- records declared once ------------------------------------------------------------------


@dataclass(slots=True)
class ObjectSizes(BlockModel):
    """The server's object memory: only the sizes (``wr_object_memory`` stops there without a
    player), which the object records of later blocks are laid out by."""

    KIND: ClassVar[str] = "object-sizes-pwm"
    of_size: int = 0
    obj_mod_max: int = 0
    elem_max: int = 0
    brand_max: int = 0
    slay_max: int = 0
    curse_max: int = 0


_SIZES = ("of_size", "obj_mod_max", "elem_max", "brand_max", "slay_max", "curse_max")
OBJECT_SIZES = Struct(ObjectSizes, [Field(n, U8, export=n) for n in _SIZES], name="object memory")


@dataclass(slots=True)
class ServerMisc(BlockModel):
    """The flavour and wilderness seeds, the game turn (``turn_era``/``turn``) and, before
    1.4.0, the next player id (later in the player names)."""

    KIND: ClassVar[str] = "server-misc-pwm"
    seed_flavor: int = 0
    seed_wild: int = 0
    turn_era: int = 0
    turn: int = 0
    player_id: int | None = None


SERVER_MISC = Struct(ServerMisc, [
    Field("seed_flavor", U32), Field("seed_wild", U32), Field("turn_era", U32), Field("turn", U32),
    When(f"not ({since(V1_4)})", [Field("player_id", I32)], "the player id before 1.4.0"),
], name="misc")


@dataclass(slots=True)
class ArtifactState:
    """``created``; who has it: ``owned`` (a flag, before 1.5.0) or ``owner`` (a player id)."""

    created: int = 0
    owned: int | None = None
    owner: int | None = None


@dataclass(slots=True)
class ServerArtifacts(BlockModel):
    KIND: ClassVar[str] = "server-artifacts-pwm"
    artifacts: list[ArtifactState] = field(default_factory=list)


SERVER_ARTIFACTS = Struct(ServerArtifacts, [
    Field("artifacts", List(Struct(ArtifactState, [
        Field("created", U8),
        When(f"not ({since(V1_5)})", [Field("owned", U8)], "owned before 1.5.0"),
        When(since(V1_5), [Field("owner", I32)], "the owner from 1.5.0 on")], name="artifact"),
        Prefix(U16, "count"))),
], name="artifacts")


@dataclass(slots=True)
class Party:
    """One of the MAX_PARTIES party slots (``num`` 0: unused); ``created_*`` the game turn."""

    name: str = ""
    owner: str = ""
    num: int = 0
    created_era: int = 0
    created_turn: int = 0


@dataclass(slots=True)
class Parties(BlockModel):
    KIND: ClassVar[str] = "parties-pwm"
    parties: list[Party] = field(default_factory=list)


PARTIES = Struct(Parties, [Field("parties", List(Struct(Party, [
    Field("name", CStr(NAME_MAX, ENCODING)), Field("owner", CStr(OWNER_MAX, ENCODING)), Field("num", I32),
    Field("created_era", U32), Field("created_turn", U32)], name="party"), Prefix(U16, "count")))],
    name="parties")


@dataclass(slots=True)
class House:
    """A house: its corners and door on its wilderness square, its price and its owner
    (``ownerid`` 0: for sale)."""

    x_1: int = 0
    y_1: int = 0
    x_2: int = 0
    y_2: int = 0
    door_y: int = 0
    door_x: int = 0
    wpos_y: int = 0
    wpos_x: int = 0
    price: int = 0
    ownerid: int = 0
    ownername: str = ""
    color: int = 0
    state: int = 0
    free: int = 0


@dataclass(slots=True)
class Houses(BlockModel):
    KIND: ClassVar[str] = "houses-pwm"
    houses: list[House] = field(default_factory=list)


HOUSES = Struct(Houses, [Field("houses", List(Struct(House, [
    *[Field(n, U8) for n in ("x_1", "y_1", "x_2", "y_2", "door_y", "door_x")],
    Field("wpos_y", I16), Field("wpos_x", I16), Field("price", I32), Field("ownerid", I32),
    Field("ownername", CStr(NAME_MAX, ENCODING)), Field("color", U8), Field("state", U8),
    Field("free", U8)], name="house"), Prefix(U16, "count")))], name="houses")


@dataclass(slots=True)
class Arena:
    x_1: int = 0
    y_1: int = 0
    x_2: int = 0
    y_2: int = 0
    wpos_y: int = 0
    wpos_x: int = 0
    wpos_depth: int = 0


@dataclass(slots=True)
class Arenas(BlockModel):
    KIND: ClassVar[str] = "arenas-pwm"
    arenas: list[Arena] = field(default_factory=list)


ARENAS = Struct(Arenas, [Field("arenas", List(Struct(Arena, [
    *[Field(n, U8) for n in ("x_1", "y_1", "x_2", "y_2")],
    *[Field(n, I16) for n in ("wpos_y", "wpos_x", "wpos_depth")]], name="arena"),
    Prefix(U16, "count")))], name="arenas")


@dataclass(slots=True)
class Wilderness(BlockModel):
    """Which wilderness squares have been generated, row by row from the north."""

    KIND: ClassVar[str] = "wilderness-pwm"
    radius: int = 0
    generated: bytes = b""


WILDERNESS = Struct(Wilderness, [
    Field("radius", U16), Field("generated", Bytes(Expr("(2 * radius + 1) ** 2"))),
], name="wilderness")


@dataclass(slots=True)
class PlayerName:
    """A character the server knows: its id, account, name, and the turn it died (0: alive)."""

    id: int = 0
    account: int = 0
    name: str = ""
    death_era: int = 0
    death_turn: int = 0


@dataclass(slots=True)
class PlayerNames(BlockModel):
    """Every character of the server; from 1.4.0, the next player id (``player_id``) first."""

    KIND: ClassVar[str] = "player-names-pwm"
    player_id: int | None = None
    players: list[PlayerName] = field(default_factory=list)


PLAYER_NAMES = Struct(PlayerNames, [
    When(since(V1_4), [Field("player_id", I32)], "the player id from 1.4.0 on"),
    Field("players", List(Struct(PlayerName, [
        Field("id", I32), Field("account", U32), Field("name", CStr(NAME_MAX, ENCODING)),
        Field("death_era", U32), Field("death_turn", U32)], name="player name"), Prefix(U32, "count"))),
], name="player_names")


for _struct in (MONSTER_MEMORY, OBJECT_SIZES, SERVER_MISC, SERVER_ARTIFACTS, PARTIES, HOUSES, ARENAS,
                WILDERNESS, PLAYER_NAMES):
    register_struct(_struct, _struct.name, 1, PWMG, GAME)


# -- the stores -----------------------------------------------------------------------------


@dataclass(slots=True)
class Store:
    owner: int = 0
    items: list[ItemPair] = field(default_factory=list)


@dataclass(slots=True)
class StoreOrder:
    """A player's order at the black market: what, and the turns it was placed and (1.6.2
    from build 3) ordered; turns are None where the file's magic does not store them."""

    order: str = ""
    turn_era: int | None = None
    turn: int | None = None
    order_turn_era: int | None = None
    order_turn: int | None = None


@dataclass(slots=True)
class Stores(BlockModel):
    """The stores' owners and stock, then the store orders; ``as_names`` as in the player file."""

    KIND: ClassVar[str] = "stores-pwm"
    stores: list[Store] = field(default_factory=list)
    orders: list[StoreOrder] = field(default_factory=list)
    as_names: bool | None = None


def _rd_stores_as(r: Reader, ctx: Context, as_names: bool) -> Stores:
    m = Stores(as_names=as_names)
    least = min_item(ctx)
    bound = pairs_reader(ctx) if r.spans is None else None
    n = r.count(r.u16("count"), 3, "stores", "store")
    for i in range(n):
        s = Store(r.u8(f"stores[{i}].owner"))
        k = r.count(r.i16(f"stores[{i}].count"), 2 * least, f"stores[{i}].items", "object")
        s.items = read_pairs(r, ctx, k, f"stores[{i}].items", bound)
        m.stores.append(s)
    version = magic(ctx)
    orders, timed = STORE_ORDERS_1_1, False
    if version >= V1_3:
        at = r.pos
        orders = r.u16("order_count")
        timed = orders == STORE_ORDERS + 1  # rd_stores_aux: "STORE_ORDERS+1 to tell ... order_turn"
        if timed:
            orders = STORE_ORDERS
        elif orders > STORE_ORDERS:  # the loader reads them into store_orders[STORE_ORDERS]
            r.fail("order_count", f"at most {STORE_ORDERS} orders (STORE_ORDERS)", str(orders), at=at)
    for i in range(orders):
        o = StoreOrder(read_str(r, f"orders[{i}].order"))
        if version >= V1_4:
            o.turn_era, o.turn = r.u32(f"orders[{i}].turn_era"), r.u32(f"orders[{i}].turn")
        if timed:
            o.order_turn_era = r.u32(f"orders[{i}].order_turn_era")
            o.order_turn = r.u32(f"orders[{i}].order_turn")
        m.orders.append(o)
    return m


def _rd_stores(r: Reader, ctx: Context) -> Stores:
    m, build = read_build(r, ctx, "stores", lambda rr, as_names: _rd_stores_as(rr, ctx, as_names),
                          lambda m: any(s.items for s in m.stores))
    m.as_names = build
    return m


def _wr_store_list(stores: list[Store], w: Writer, ctx: Context) -> None:
    fast = records_writer(ctx)
    w.u16(len(stores), "count")
    for i, s in enumerate(stores):
        w.u8(s.owner, f"stores[{i}].owner")
        w.i16(len(s.items), f"stores[{i}].count")
        write_pairs(s.items, w, ctx, f"stores[{i}].items", fast=fast)


def _wr_stores(m: Stores, w: Writer, ctx: Context) -> None:
    as_names = check_build(m.as_names, any(s.items for s in m.stores), "")
    write_block(ctx, as_names, lambda: _wr_store_list(m.stores, w, ctx))
    version = magic(ctx)
    timed = any(o.order_turn is not None for o in m.orders)
    if version >= V1_3:
        if timed and len(m.orders) != STORE_ORDERS:
            raise FormatError(None, "orders", f"{STORE_ORDERS} orders (with order turns)", str(len(m.orders)))
        w.u16(STORE_ORDERS + 1 if timed else len(m.orders), "order_count")
    elif len(m.orders) != STORE_ORDERS_1_1:
        raise FormatError(None, "orders", f"{STORE_ORDERS_1_1} orders (STORE_ORDERS)", str(len(m.orders)))
    for i, o in enumerate(m.orders):
        p = f"orders[{i}]"
        write_str(w, o.order, f"{p}.order")
        if (o.turn is not None) != (version >= V1_4) or (o.order_turn is not None) != timed:
            raise FormatError(None, f"{p}.turn", "turns as the file's magic stores them "
                              "(the turn from 1.4.0; order turns in every order or none)",
                              repr((o.turn, o.order_turn)))
        if o.turn is not None:
            w.u32(o.turn_era or 0, f"{p}.turn_era")
            w.u32(o.turn, f"{p}.turn")
        if o.order_turn is not None:
            w.u32(o.order_turn_era or 0, f"{p}.order_turn_era")
            w.u32(o.order_turn, f"{p}.order_turn")


# -- the levels -----------------------------------------------------------------------------


@dataclass(slots=True)
class Level:
    """A level the server keeps (``wr_level``): where it is, its size, how many players are on
    it, the turn it was made, its connecting stairs (``up_y``...), the terrain as the game's
    run-length pairs, and each square-info layer as (count, byte) pairs."""

    wpos_y: int = 0
    wpos_x: int = 0
    wpos_depth: int = 0
    height: int = 0
    width: int = 0
    players: int = 0
    generated_era: int = 0
    generated_turn: int = 0
    up_y: int = 0
    up_x: int = 0
    down_y: int = 0
    down_x: int = 0
    rand_y: int = 0
    rand_x: int = 0
    feat: bytes = b""
    info: list[bytes] = field(default_factory=list)


@dataclass(slots=True)
class Dungeons(BlockModel):
    KIND: ClassVar[str] = "dungeons-pwm"
    square_size: int = 0
    levels: list[Level] = field(default_factory=list)


_LEVEL_HEAD = Struct(Level, [
    *[Field(n, I16) for n in ("wpos_y", "wpos_x", "wpos_depth")], Field("height", U16),
    Field("width", U16), Field("players", I16), Field("generated_era", U32),
    Field("generated_turn", U32), *[Field(n, U8) for n in ("up_y", "up_x", "down_y", "down_x",
                                                            "rand_y", "rand_x")]], name="level")


def _rd_dungeons(r: Reader, ctx: Context) -> Dungeons:
    m = Dungeons(r.u8("square_size"))
    run = feat_run(ctx)
    n = r.count(r.u32("count"), 27, "levels", "level")
    for i in range(n):
        p = f"levels[{i}]"
        lv = _LEVEL_HEAD.read(r, ctx, p)
        cells = lv.height * lv.width
        lv.feat = read_feat_runs(r, cells, f"{p}.feat", run)
        lv.info = [read_rle(r, cells, f"{p}.info[{k}]") for k in range(m.square_size)]
        m.levels.append(lv)
    return m


def _wr_dungeons(m: Dungeons, w: Writer, ctx: Context) -> None:
    w.u8(m.square_size, "square_size")
    w.u32(len(m.levels), "count")
    run = feat_run(ctx)
    for i, lv in enumerate(m.levels):
        p = f"levels[{i}]"
        cells = lv.height * lv.width
        _LEVEL_HEAD.write(lv, w, ctx, p)
        check_feat_runs(lv.feat, cells, f"{p}.feat", run)
        w.bytes(lv.feat, f"{p}.feat")
        if len(lv.info) != m.square_size:
            raise FormatError(None, f"{p}.info", f"{m.square_size} layers (square_size)", str(len(lv.info)))
        for k, runs in enumerate(lv.info):
            check_rle(runs, cells, f"{p}.info[{k}]")
            w.bytes(runs, f"{p}.info[{k}]")


# -- each level's objects -------------------------------------------------------------------


@dataclass(slots=True)
class LevelObjects:
    """The objects on one level, then the dummy record that ends them (``end``)."""

    wpos_y: int = 0
    wpos_x: int = 0
    wpos_depth: int = 0
    items: list[ItemPair] = field(default_factory=list)
    end: Item = field(default_factory=Item)


@dataclass(slots=True)
class ServerObjects(BlockModel):
    KIND: ClassVar[str] = "server-objects-pwm"
    levels: list[LevelObjects] = field(default_factory=list)
    as_names: bool | None = None


def _rd_objects_as(r: Reader, ctx: Context, as_names: bool) -> ServerObjects:
    m = ServerObjects(as_names=as_names)
    n = r.count(r.u32("count"), 6 + min_item(ctx), "levels", "level")
    for i in range(n):
        lv = LevelObjects(r.i16(f"levels[{i}].wpos_y"), r.i16(f"levels[{i}].wpos_x"),
                          r.i16(f"levels[{i}].wpos_depth"))
        lv.items, lv.end = read_object_list(r, ctx, f"levels[{i}].items", f"levels[{i}].end")
        m.levels.append(lv)
    return m


def _rd_objects(r: Reader, ctx: Context) -> ServerObjects:
    m, build = read_build(r, ctx, "objects", lambda rr, as_names: _rd_objects_as(rr, ctx, as_names),
                          lambda m: bool(m.levels))
    m.as_names = build
    return m


def _wr_objects(m: ServerObjects, w: Writer, ctx: Context) -> None:
    as_names = check_build(m.as_names, bool(m.levels), "")
    w.u32(len(m.levels), "count")

    def write() -> None:
        fast = records_writer(ctx)
        for i, lv in enumerate(m.levels):
            for name in ("wpos_y", "wpos_x", "wpos_depth"):
                w.i16(getattr(lv, name), f"levels[{i}].{name}")
            path = f"levels[{i}].items"
            write_object_list(lv.items, lv.end, w, ctx, path, f"{path}.end", fast)
    write_block(ctx, as_names, write)


# -- each level's monsters ------------------------------------------------------------------


@dataclass(slots=True)
class Blow:
    """A monster blow: ``method`` (index + 1; 0: none, and nothing else stored), effect, dice."""

    method: int = 0
    effect: int = 0
    dice: int = 0
    sides: int = 0


@dataclass(slots=True)
class Monster:
    """One monster (``wr_monster``). ``race`` and ``original_race``: a race index or, in a
    ``SAVE_AS_STRINGS`` build, its name. By magic: ``midx``, ``original_race``, ``mflag`` and
    the group fields from 1.4.0, ``camouflage`` before it; ``feat`` is u8 before 1.3.0."""

    midx: int | None = None
    race: int | str = 0
    original_race: int | str | None = None
    y: int = 0
    x: int = 0
    wpos_y: int = 0
    wpos_x: int = 0
    wpos_depth: int = 0
    hp: int = 0
    maxhp: int = 0
    mspeed: int = 0
    energy: int = 0
    m_timed: list[int] = field(default_factory=list)
    mflag: bytes | None = None
    known_flags: bytes = b""
    known_res_levels: list[int] = field(default_factory=list)
    camouflage: int | None = None
    mimicked_k_idx: int = 0
    feat: int = 0
    ac: int = 0
    blows: list[Blow] = field(default_factory=list)
    level: int = 0
    clone: int = 0
    origin: int = 0
    mimicked: int = 0
    held: list[ItemPair] = field(default_factory=list)
    held_end: Item = field(default_factory=Item)
    primary_group: int | None = None
    primary_role: int | None = None
    summon_group: int | None = None
    summon_role: int | None = None


@dataclass(slots=True)
class LevelMonsters:
    wpos_y: int = 0
    wpos_x: int = 0
    wpos_depth: int = 0
    monsters: list[Monster] = field(default_factory=list)


@dataclass(slots=True)
class Monsters(BlockModel):
    """The monsters of every level the server keeps; ``mflag_size`` from 1.4.0."""

    KIND: ClassVar[str] = "monsters-pwm"
    mflag_size: int | None = None
    levels: list[LevelMonsters] = field(default_factory=list)
    as_names: bool | None = None


MFLAG_SIZE = "pwm_mflag_size"  # the block's mflag_size, for its monsters' records (1.4.0 on)
_RACE_GONE = "a monster race (rd_monster: 'Monster race no longer exists!')"

_BLOW = Struct(Blow, [
    Field("method", U8),
    When("method != 0", [Field("effect", U8), Field("dice", U8), Field("sides", U8)],
         "effect and dice exactly when the blow has a method", defaults=True)], name="blow")


def _monster_records(as_names: bool) -> tuple[Struct, Struct]:
    """``wr_monster`` as one build stores it (``as_names``), declared once: the record up to
    the objects the monster holds, and after them the group fields (1.4.0 on); the objects
    between are the object lists' (:func:`.pwmangband_world.read_object_list`). By magic:
    ``midx``, ``original_race``, ``mflag`` and the groups from 1.4.0, ``camouflage`` before
    it; ``feat`` u8 before 1.3.0, u16 after."""
    race = name_or_index_as(as_names, U16, numbers=False)
    head = Struct(Monster, [
        When(since(V1_4), [Field("midx", U16)], "midx exactly from 1.4.0 on"),
        Field("race", race),
        # a race index 0 or no name: what the loader refuses; in a names build the offset is
        # after the name (the Check steps back a fixed 2 bytes, an index's)
        Check("race not in (0, '', 'none')", "race", _RACE_GONE, "repr(race)", back=0 if as_names else 2),
        When(since(V1_4), [Field("original_race", race)], "original_race exactly from 1.4.0 on"),
        Field("y", U8), Field("x", U8), *[Field(n, I16) for n in ("wpos_y", "wpos_x", "wpos_depth")],
        Field("hp", I32), Field("maxhp", I32), Field("mspeed", U8), Field("energy", I32),
        Field("m_timed", Array(I16, Prefix(U8))),
        When(since(V1_4), [Field("mflag", Bytes(Ctx(MFLAG_SIZE, "the monsters block")))],
             "mflag exactly from 1.4.0 on"),
        Field("known_flags", Bytes(Ctx("of_size", "object memory"))),
        Field("known_res_levels", Array(I16, Ctx("elem_max", "object memory"))),
        When(f"not {since(V1_4)}", [Field("camouflage", U8)], "camouflage exactly before 1.4.0"),
        Field("mimicked_k_idx", I16),
        Field("feat", Switch(f"1 if {since(V1_3)} else 0", {0: U8, 1: U16})),
        Field("ac", I16), Field("blows", List(_BLOW, Ctx("blows_max", "monster memory"))),
        Field("level", I16), Field("clone", U8), Field("origin", U8), Field("mimicked", U16),
    ], name="monster")
    groups = Struct(Monster, [
        When(since(V1_4), [Field("primary_group", U16), Field("primary_role", U8), Field("summon_group", U16),
                           Field("summon_role", U8)], "the group fields exactly from 1.4.0 on"),
    ], name="monster")
    return head, groups


_MONSTERS = {as_names: _monster_records(as_names) for as_names in (False, True)}
_EMPTY_HANDED: dict[tuple[bool, int], Struct] = {}


def _empty_handed(ctx: Context, as_names: bool) -> Struct:
    """``wr_monster`` of a monster that holds nothing, composed of the two parts' members
    with the end record between (``wr_dummy_item`` right after the record: no held object):
    a level's monsters holding nothing, the common case, are one C call of its program (see
    :func:`_fast_monsters`). Not a second layout: the same members, the held list's empty
    case, one per build and object record."""
    item = item_record(ctx)
    key = (as_names, id(item))
    got = _EMPTY_HANDED.get(key)
    if got is None:
        head, groups = _MONSTERS[as_names]
        got = _EMPTY_HANDED[key] = Struct(Monster, [*head.members, Field("held_end", item), *groups.members],
                                          name="monster")
    return got


def _rd_monster(r: Reader, ctx: Context, as_names: bool, p: str, held: ObjectListReader) -> Monster:
    head, groups = _MONSTERS[as_names]
    m: Monster = head.read(r, ctx, p)
    m.held, m.held_end = held(r, f"{p}.held", f"{p}.held_end")
    g: Monster = groups.read(r, ctx, p)
    m.primary_group, m.primary_role, m.summon_group, m.summon_role = \
        g.primary_group, g.primary_role, g.summon_group, g.summon_role
    return m


def _wr_monster(m: Monster, w: Writer, ctx: Context, as_names: bool, p: str,
                fast: tuple[RecordsWriter | None, RecordsWriter | None, RecordsWriter | None] = (None, None, None)
                ) -> None:
    """One monster; ``fast``: the C programs of its two parts and of the object record, bound
    for the block (:func:`_monster_writers`), each used where it can write the records."""
    head, groups = _MONSTERS[as_names]
    raw = fast[0]([m]) if fast[0] is not None else None
    if raw is None:
        head.write(m, w, ctx, p)
    else:
        w.buf += raw
    write_object_list(m.held, m.held_end, w, ctx, f"{p}.held", f"{p}.held.end", fast[2])
    raw = fast[1]([m]) if fast[1] is not None else None
    if raw is None:
        groups.write(m, w, ctx, p)
    else:
        w.buf += raw


def _monster_writers(ctx: Context, as_names: bool
                     ) -> tuple[RecordsWriter | None, RecordsWriter | None, RecordsWriter | None]:
    """The monster record's two parts and the object record as C programs bound for a block."""
    progs = [program_of(s) for s in _MONSTERS[as_names]]
    parts = [p.bound_write(ctx) if p is not None else None for p in progs]
    return parts[0], parts[1], records_writer(ctx)


def _rd_monsters_as(r: Reader, ctx: Context, as_names: bool) -> Monsters:
    m = Monsters(as_names=as_names)
    if magic(ctx) >= V1_4:
        m.mflag_size = r.u8("mflag_size")
    with _mflag_size(ctx, m.mflag_size):
        _rd_levels(r, ctx, as_names, m)
    return m


@contextmanager
def _mflag_size(ctx: Context, size: int | None) -> Iterator[None]:
    """The block's ``mflag_size`` in the Context while its monsters are read or written (their
    record's ``mflag`` bytes), taken away after."""
    if size is None:
        yield
        return
    ctx.values[MFLAG_SIZE] = size
    try:
        yield
    finally:
        del ctx.values[MFLAG_SIZE]


def _rd_levels(r: Reader, ctx: Context, as_names: bool, m: Monsters) -> None:
    held = object_list_reader(ctx)
    fast = _fast_monsters(r, ctx, as_names)
    n = r.count(r.u32("count"), 8, "levels", "level")
    for i in range(n):
        p = f"levels[{i}]"
        lv = LevelMonsters(r.i16(f"{p}.wpos_y"), r.i16(f"{p}.wpos_x"), r.i16(f"{p}.wpos_depth"))
        at = r.pos
        limit = r.u16(f"{p}.limit")
        if limit < 1:  # wr_monsters_aux stores one more than the monsters it writes
            r.fail(f"{p}.limit", "the monster count plus one (at least 1)", str(limit), at=at)
        lv.monsters = fast(r, limit - 1) if fast is not None else []
        lv.monsters += [_rd_monster(r, ctx, as_names, f"{p}.monsters[{j}]", held)
                        for j in range(len(lv.monsters), limit - 1)]
        m.levels.append(lv)


def _fast_monsters(r: Reader, ctx: Context, as_names: bool) -> Callable[[Reader, int], list[Monster]] | None:
    """A reader of a level's monsters through the C programs of the monster record's two
    parts and of the object record (each compiled once for the block), where no spans are
    noted: three calls a monster (its record up to the objects it holds, those objects up to
    their end record, its group fields), up to ``n`` monsters or the first a program gives up
    on (a race the loader refuses, a record that does not read), from which the checked
    :func:`_rd_monster` reads on and names the problem. None where a part has no program."""
    if r.spans is not None:
        return None
    parts = [program_of(s) for s in _MONSTERS[as_names]]
    item = program_of(item_record(ctx))
    if parts[0] is None or parts[1] is None or item is None:
        return None
    head, groups, objects = parts[0].bound(ctx), parts[1].bound(ctx), item.bound(ctx)
    if head is None or groups is None or objects is None:
        return None
    # (before 1.4.0 the group fields are not stored: None, as the head's record holds them)
    no_groups = parts[1].stores_nothing(ctx) and all(
        getattr(Monster(), f) is None for f in ("primary_group", "primary_role", "summon_group", "summon_role"))

    empty = program_of(_empty_handed(ctx, as_names))
    whole = empty.bound(ctx) if empty is not None else None

    def read(r: Reader, n: int) -> list[Monster]:
        d, stop, out = r.data, r.end, list[Monster]()
        run = whole is not None  # (try the rest as monsters holding nothing, in one call)
        again = False
        while len(out) < n:
            if run and whole is not None:  # up to the first that holds something
                again = _empty_handed_run(whole, r, n - len(out), out)
                if len(out) == n:
                    break
            got = head(d, r.pos, stop, 1)
            if got is None:
                break
            (mon,), pos = got
            held: list[ItemPair] = []
            end = _until_end(objects, d, pos, stop, held)
            if end is None:
                break
            if no_groups:
                r.pos = end[1]
            else:
                got = groups(d, end[1], stop, 1)
                if got is None:
                    break
                (g,), r.pos = got
                mon.primary_group, mon.primary_role, mon.summon_group, mon.summon_role = \
                    g.primary_group, g.primary_role, g.summon_group, g.summon_role
            mon.held, mon.held_end = held, end[0]
            out.append(mon)
            run = again  # (after a monster that holds something, the rest in one call again)
        return out
    return read


def _empty_handed_run(read: Callable[..., tuple[list[Monster], int] | None], r: Reader, n: int,
                      out: list[Monster]) -> bool:
    """Up to ``n`` monsters read as monsters holding nothing (:func:`_empty_handed`), appended
    to ``out`` up to the first that holds an object (its "end record" is an object: the caller
    reads that one as the monster that it is, and calls again for the rest). The records
    after one that holds something are misread and may not read at all: then one call a
    monster, up to it. False where the program gives up on a monster that holds nothing (the
    caller reads the rest a monster at a time, and names the problem)."""
    got = read(r.data, r.pos, r.end, n)
    if got is None:
        after = r.pos
        while n > 0:
            one = read(r.data, after, r.end, 1)
            if one is None or not one[0][0].held_end.is_marker:
                r.pos = after
                return one is not None
            out.append(one[0][0])
            after, n = one[1], n - 1
        r.pos = after
        return False
    mons, after = got
    k = next((i for i, m in enumerate(mons) if not m.held_end.is_marker), len(mons))
    if k < len(mons):  # where the k monsters before it end
        if k == 0:
            return True
        again = read(r.data, r.pos, r.end, k)
        if again is None:
            return False
        mons, after = again
    out += mons
    r.pos = after
    return k < n


def _rd_monsters(r: Reader, ctx: Context) -> Monsters:
    m, build = read_build(r, ctx, "monsters", lambda rr, as_names: _rd_monsters_as(rr, ctx, as_names),
                          lambda m: any(lv.monsters for lv in m.levels))
    m.as_names = build
    return m


def _wr_monsters(m: Monsters, w: Writer, ctx: Context) -> None:
    as_names = check_build(m.as_names, any(lv.monsters for lv in m.levels), "")
    if (m.mflag_size is not None) != (magic(ctx) >= V1_4):
        raise FormatError(None, "mflag_size", "a size exactly from 1.4.0 on", repr(m.mflag_size))
    if m.mflag_size is not None:
        w.u8(m.mflag_size, "mflag_size")
    w.u32(len(m.levels), "count")

    def write() -> None:
        fast = _monster_writers(ctx, as_names)
        empty = program_of(_empty_handed(ctx, as_names))
        whole = empty.bound_write(ctx) if empty is not None else None
        for i, lv in enumerate(m.levels):
            p = f"levels[{i}]"
            for name in ("wpos_y", "wpos_x", "wpos_depth"):
                w.i16(getattr(lv, name), f"{p}.{name}")
            w.u16(len(lv.monsters) + 1, f"{p}.limit")
            j, mons, runs = 0, lv.monsters, whole
            while j < len(mons):
                # a run of monsters that hold nothing (their lists ended as the game ends them):
                # one call
                k = j
                while runs is not None and k < len(mons) and type(mons[k].held) is list \
                        and not mons[k].held and mons[k].held_end.is_marker:
                    k += 1
                raw = runs(mons[j:k]) if runs is not None and k > j else None
                if raw is not None:
                    w.buf += raw
                    j = k
                    continue
                if k > j:
                    runs = None  # (refused: the rest of the level a monster at a time, checked)
                _wr_monster(mons[j], w, ctx, as_names, f"{p}.monsters[{j}]", fast)
                j += 1
    with _mflag_size(ctx, m.mflag_size):
        write_block(ctx, as_names, write)


# -- each level's traps ---------------------------------------------------------------------


@dataclass(slots=True)
class LevelTraps:
    """The traps on one level, then the zeroed record that ends them (``end``)."""

    wpos_y: int = 0
    wpos_x: int = 0
    wpos_depth: int = 0
    traps: list[Trap] = field(default_factory=list)
    end: Trap = field(default_factory=Trap)


@dataclass(slots=True)
class ServerTraps(BlockModel):
    KIND: ClassVar[str] = "server-traps-pwm"
    trf_size: int = 0
    levels: list[LevelTraps] = field(default_factory=list)
    as_names: bool | None = None


def _rd_traps_as(r: Reader, as_names: bool) -> ServerTraps:
    m = ServerTraps(r.u8("trf_size"), as_names=as_names)
    n = r.count(r.u32("count"), 6 + 5, "levels", "level")
    for i in range(n):
        p = f"levels[{i}]"
        lv = LevelTraps(r.i16(f"{p}.wpos_y"), r.i16(f"{p}.wpos_x"), r.i16(f"{p}.wpos_depth"))
        lv.traps, lv.end = read_trap_list(r, as_names, f"{p}.traps", f"{p}.end", m.trf_size)
        m.levels.append(lv)
    return m


def _rd_traps(r: Reader, ctx: Context) -> ServerTraps:
    m, build = read_build(r, ctx, "traps", _rd_traps_as,
                          lambda m: any(lv.traps or lv.end.kind for lv in m.levels))
    m.as_names = build
    return m


def _wr_traps(m: ServerTraps, w: Writer, ctx: Context) -> None:
    as_names = check_build(m.as_names, any(lv.traps or lv.end.kind for lv in m.levels), "")
    w.u8(m.trf_size, "trf_size")
    w.u32(len(m.levels), "count")
    for i, lv in enumerate(m.levels):
        p = f"levels[{i}]"
        for name in ("wpos_y", "wpos_x", "wpos_depth"):
            w.i16(getattr(lv, name), f"{p}.{name}")
        for j, t in enumerate([*lv.traps, lv.end]):
            q = f"{p}.traps[{j}]" if j < len(lv.traps) else f"{p}.end"
            if (t.y == 0 and t.x == 0) != (j == len(lv.traps)):
                raise FormatError(None, f"{q}.y", "(0, 0) only for the end record", f"({t.y}, {t.x})")
            wr_name_or_index(w, t.kind, as_names, f"{q}.kind", "u8")
            w.array("u8", [t.y, t.x, t.power, t.timeout], f"{q}.y")
            w.bytes(t.flags, f"{q}.flags", size=m.trf_size)


_layout("stores", Stores, _rd_stores, _wr_stores)
_layout("dungeons", Dungeons, _rd_dungeons, _wr_dungeons)
_layout("objects", ServerObjects, _rd_objects, _wr_objects)
_layout("monsters", Monsters, _rd_monsters, _wr_monsters)
_layout("traps", ServerTraps, _rd_traps, _wr_traps)
