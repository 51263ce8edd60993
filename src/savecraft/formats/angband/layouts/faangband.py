"""FAangband 1 as Ponyband writes it (variant ``FAAN``): options, monster memory, object
memory, quests, player spells, randarts, squelch, artifacts and traps (Ponyband's
``src/load.c`` and ``save.c`` at the samples' commit 59f6ca5).

Rng, messages and player hp share Vanilla's layouts (:mod:`.character`); the
player, misc and history blocks are in :mod:`.faangband_character`, the
object-record blocks (inventory, stores, dungeon, objects, monsters, ghost)
in :mod:`.faangband_world`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from ....binary import Reader, Writer
from ....errors import FormatError
from . import BlockModel, Context, Layout, register_layout
from .character import FAANGBAND
from .items import check_len, read_str, write_str

FAAN = frozenset({"FAAN"})
TERM_MAX = 8  # ANGBAND_TERM_MAX: window flags and masks stored per terminal


def _layout(name: str, version: int, model: type, decode: object, encode: object) -> None:
    register_layout(Layout(name, version, FAAN, model, decode, encode, FAANGBAND))  # type: ignore[arg-type]


@dataclass(slots=True)
class Options(BlockModel):
    KIND: ClassVar[str] = "options-faan"
    autosave: int = 0
    autosave_freq: int = 0
    delay_factor: int = 0
    hitpoint_warn: int = 0
    panel_change: int = 0
    lazymove_delay: int = 0
    options: dict[str, int] = field(default_factory=dict)
    window_flags: list[int] = field(default_factory=list)
    window_masks: list[int] = field(default_factory=list)


def _rd_options(r: Reader, ctx: Context) -> Options:
    m = Options(r.u8("autosave"), r.i16("autosave_freq"), r.u8("delay_factor"), r.u8("hitpoint_warn"),
                r.u8("panel_change"), r.u16("lazymove_delay"))
    while True:
        at = r.pos
        name = read_str(r, f"options[{len(m.options)}].name", 19)
        if not name:
            break
        if name in m.options:
            r.fail("options", "each option once", f"{name!r} twice", at=at)
        m.options[name] = r.u8(f"options[{name}]")
    m.window_flags = list(r.array("u32", TERM_MAX, "window_flags"))
    m.window_masks = list(r.array("u32", TERM_MAX, "window_masks"))
    return m


def _wr_options(m: Options, w: Writer, ctx: Context) -> None:
    w.u8(m.autosave, "autosave")
    w.i16(m.autosave_freq, "autosave_freq")
    for name in ("delay_factor", "hitpoint_warn", "panel_change"):
        w.u8(getattr(m, name), name)
    w.u16(m.lazymove_delay, "lazymove_delay")
    for name, value in m.options.items():
        if not name:
            raise FormatError(None, "options", "option names that are not empty", "''")
        write_str(w, name, f"options[{name}]", 19)
        w.u8(value, f"options[{name}]")
    w.u8(0, "end")
    check_len(m.window_flags, TERM_MAX, "window_flags", "terminals")
    check_len(m.window_masks, TERM_MAX, "window_masks", "terminals")
    w.array("u32", m.window_flags, "window_flags")
    w.array("u32", m.window_masks, "window_masks")


@dataclass(slots=True)
class Lore:
    sights: int = 0
    deaths: int = 0
    pkills: int = 0
    tkills: int = 0
    wake: int = 0
    ignore: int = 0
    xtra1: int = 0
    xtra2: int = 0
    drop_gold: int = 0
    drop_item: int = 0
    cast_spell: int = 0
    blows: bytes = b""
    flags: bytes = b""
    spell_flags: bytes = b""
    max_num: int = 0
    later: bytes = b"\0\0\0"


@dataclass(slots=True)
class MonsterMemory(BlockModel):
    """What the player knows of each monster race, in the game's monster list order."""

    KIND: ClassVar[str] = "monster-memory-faan"
    rf_size: int = 0
    rsf_size: int = 0
    blows_max: int = 0
    races: list[Lore] = field(default_factory=list)


def _rd_monster_memory(r: Reader, ctx: Context) -> MonsterMemory:
    n = r.u16("count")
    m = MonsterMemory(r.u8("rf_size"), r.u8("rsf_size"), r.u8("blows_max"))
    r.count(n, 19 + m.blows_max + m.rf_size + m.rsf_size, "races", "race")
    for i in range(n):
        p = f"races[{i}]"
        lore = Lore()
        lore.sights, lore.deaths, lore.pkills, lore.tkills = r.array("i16", 4, f"{p}.sights")
        (lore.wake, lore.ignore, lore.xtra1, lore.xtra2, lore.drop_gold, lore.drop_item,
         lore.cast_spell) = r.array("u8", 7, f"{p}.wake")
        lore.blows = r.bytes(m.blows_max, f"{p}.blows")
        lore.flags = r.bytes(m.rf_size, f"{p}.flags")
        lore.spell_flags = r.bytes(m.rsf_size, f"{p}.spell_flags")
        lore.max_num = r.u8(f"{p}.max_num")
        lore.later = r.bytes(3, f"{p}.later")
        m.races.append(lore)
    return m


def _wr_monster_memory(m: MonsterMemory, w: Writer, ctx: Context) -> None:
    w.u16(len(m.races), "count")
    w.array("u8", [m.rf_size, m.rsf_size, m.blows_max], "rf_size")
    for i, lore in enumerate(m.races):
        p = f"races[{i}]"
        w.array("i16", [lore.sights, lore.deaths, lore.pkills, lore.tkills], f"{p}.sights")
        w.array("u8", [lore.wake, lore.ignore, lore.xtra1, lore.xtra2, lore.drop_gold, lore.drop_item,
                       lore.cast_spell], f"{p}.wake")
        for name, size in (("blows", m.blows_max), ("flags", m.rf_size), ("spell_flags", m.rsf_size)):
            check_len(getattr(lore, name), size, f"{p}.{name}", "bytes")
            w.bytes(getattr(lore, name), f"{p}.{name}")
        w.u8(lore.max_num, f"{p}.max_num")
        w.bytes(lore.later, f"{p}.later", size=3)


@dataclass(slots=True)
class KindMemory:
    flags: int = 0
    seen: int = 0
    expansion: int = 0


@dataclass(slots=True)
class ObjectMemory(BlockModel):
    """Sizes later blocks use, then per object kind: aware 1, tried 2, effect known 4, squelch 8."""

    KIND: ClassVar[str] = "object-memory-faan"
    of_size: int = 0
    cf_size: int = 0
    if_size: int = 0
    max_p_res: int = 0
    a_max: int = 0
    max_p_bonus: int = 0
    max_p_slay: int = 0
    max_p_brand: int = 0
    kinds: list[KindMemory] = field(default_factory=list)


_SIZES = ("of_size", "cf_size", "if_size", "max_p_res", "a_max", "max_p_bonus", "max_p_slay",
          "max_p_brand")


def _rd_object_memory(r: Reader, ctx: Context) -> ObjectMemory:
    n = r.u16("count")
    m = ObjectMemory()
    for name in _SIZES:
        setattr(m, name, r.u8(name))
        ctx.set(name, getattr(m, name), "object memory")
    r.count(n, 6, "kinds", "kind")
    m.kinds = [KindMemory(r.u8(f"kinds[{i}].flags"), r.u8(f"kinds[{i}].seen"), r.u32(f"kinds[{i}].expansion"))
               for i in range(n)]
    return m


def _wr_object_memory(m: ObjectMemory, w: Writer, ctx: Context) -> None:
    w.u16(len(m.kinds), "count")
    for name in _SIZES:
        w.u8(getattr(m, name), name)
        ctx.set(name, getattr(m, name), "object memory")
    for i, k in enumerate(m.kinds):
        w.u8(k.flags, f"kinds[{i}].flags")
        w.u8(k.seen, f"kinds[{i}].seen")
        w.u32(k.expansion, f"kinds[{i}].expansion")


@dataclass(slots=True)
class Quest:
    stage: int = 0
    unused: int = 0


@dataclass(slots=True)
class Quests(BlockModel):
    KIND: ClassVar[str] = "quests-faan"
    quests: list[Quest] = field(default_factory=list)


def _rd_quests(r: Reader, ctx: Context) -> Quests:
    n = r.count(r.u16("count"), 4, "quests", "quest")
    return Quests([Quest(r.u16(f"quests[{i}].stage"), r.u16(f"quests[{i}].unused")) for i in range(n)])


def _wr_quests(m: Quests, w: Writer, ctx: Context) -> None:
    w.u16(len(m.quests), "count")
    for i, q in enumerate(m.quests):
        w.u16(q.stage, f"quests[{i}].stage")
        w.u16(q.unused, f"quests[{i}].unused")


@dataclass(slots=True)
class PlayerSpells(BlockModel):
    KIND: ClassVar[str] = "player-spells-faan"
    spell_flags: bytes = b""
    spell_order: bytes = b""
    expansion: int = 0


def _rd_spells(r: Reader, ctx: Context) -> PlayerSpells:
    n = r.u16("count")
    return PlayerSpells(r.bytes(n, "spell_flags"), r.bytes(n, "spell_order"), r.u32("expansion"))


def _wr_spells(m: PlayerSpells, w: Writer, ctx: Context) -> None:
    check_len(m.spell_order, len(m.spell_flags), "spell_order", "entries (one per spell flag)")
    w.u16(len(m.spell_flags), "count")
    w.bytes(m.spell_flags, "spell_flags")
    w.bytes(m.spell_order, "spell_order")
    w.u32(m.expansion, "expansion")


@dataclass(slots=True)
class Randarts(BlockModel):
    """Ponyband's loader reads nothing here (``rd_randarts``): the block is empty."""

    KIND: ClassVar[str] = "randarts-faan"


def _rd_randarts(r: Reader, ctx: Context) -> Randarts:
    return Randarts()


def _wr_randarts(m: Randarts, w: Writer, ctx: Context) -> None:
    return None


@dataclass(slots=True)
class Trap:
    kind: int = 0
    y: int = 0
    x: int = 0
    xtra: int = 0
    flags: bytes = b""


@dataclass(slots=True)
class Traps(BlockModel):
    KIND: ClassVar[str] = "traps-faan"
    trf_size: int = 0
    traps: list[Trap] = field(default_factory=list)
    expansion: int = 0


def _rd_traps(r: Reader, ctx: Context) -> Traps:
    m = Traps(r.u8("trf_size"))
    n = r.count(r.i16("count"), 4 + m.trf_size, "traps", "trap")
    for i in range(n):
        kind, y, x, xtra = r.array("u8", 4, f"traps[{i}]")
        m.traps.append(Trap(kind, y, x, xtra, r.bytes(m.trf_size, f"traps[{i}].flags")))
    m.expansion = r.u32("expansion")
    return m


def _wr_traps(m: Traps, w: Writer, ctx: Context) -> None:
    w.u8(m.trf_size, "trf_size")
    w.i16(len(m.traps), "count")
    for i, t in enumerate(m.traps):
        w.array("u8", [t.kind, t.y, t.x, t.xtra], f"traps[{i}]")
        check_len(t.flags, m.trf_size, f"traps[{i}].flags", "bytes (trf_size)")
        w.bytes(t.flags, f"traps[{i}].flags")
    w.u32(m.expansion, "expansion")


@dataclass(slots=True)
class EgoSquelch:
    flags: int = 0
    expansion: int = 0


@dataclass(slots=True)
class Inscription:
    kind_index: int = 0
    text: str = ""


@dataclass(slots=True)
class Squelch(BlockModel):
    """Quality squelch settings, per ego item squelch (1) and seen (2), auto-inscriptions."""

    KIND: ClassVar[str] = "squelch-faan"
    quality: bytes = b""
    egos: list[EgoSquelch] = field(default_factory=list)
    inscriptions: list[Inscription] = field(default_factory=list)


def _rd_squelch(r: Reader, ctx: Context) -> Squelch:
    m = Squelch(r.bytes(r.u8("quality_count"), "quality"))
    n = r.count(r.u16("ego_count"), 5, "egos", "ego")
    m.egos = [EgoSquelch(r.u8(f"egos[{i}].flags"), r.u32(f"egos[{i}].expansion")) for i in range(n)]
    n = r.count(r.u16("inscription_count"), 3, "inscriptions", "inscription")
    m.inscriptions = [Inscription(r.i16(f"inscriptions[{i}].kind_index"),
                                  read_str(r, f"inscriptions[{i}].text", 79)) for i in range(n)]
    return m


def _wr_squelch(m: Squelch, w: Writer, ctx: Context) -> None:
    w.u8(len(m.quality), "quality_count")
    w.bytes(m.quality, "quality")
    w.u16(len(m.egos), "ego_count")
    for i, e in enumerate(m.egos):
        w.u8(e.flags, f"egos[{i}].flags")
        w.u32(e.expansion, f"egos[{i}].expansion")
    w.u16(len(m.inscriptions), "inscription_count")
    for i, ins in enumerate(m.inscriptions):
        w.i16(ins.kind_index, f"inscriptions[{i}].kind_index")
        write_str(w, ins.text, f"inscriptions[{i}].text", 79)


@dataclass(slots=True)
class ArtifactState:
    created: int = 0
    seen: int = 0
    set_bonus: int = 0
    expansion: int = 0


@dataclass(slots=True)
class RandomArtifact:
    """A random artifact of this character: the whole record, as the game makes it."""

    name: str = ""
    tval: int = 0
    sval: int = 0
    pval: int = 0
    to_h: int = 0
    to_d: int = 0
    to_a: int = 0
    dd: int = 0
    ds: int = 0
    ac: int = 0
    weight: int = 0
    cost: int = 0
    flags_obj: bytes = b""
    flags_curse: bytes = b""
    level: int = 0
    rarity: int = 0
    created: int = 0
    seen: int = 0
    effect: int = 0
    time: list[int] = field(default_factory=lambda: [0, 0, 0])
    charge: list[int] = field(default_factory=lambda: [0, 0, 0])
    bonuses: bytes = b""  # percent resists, stat, other bonuses, slay and brand multiples
    expansion: int = 0


@dataclass(slots=True)
class Artifacts(BlockModel):
    KIND: ClassVar[str] = "artifacts-faan"
    artifacts: list[ArtifactState] = field(default_factory=list)
    random: list[RandomArtifact] = field(default_factory=list)


def _bonus_size(ctx: Context) -> int:
    return sum(ctx.need(n, "object memory") for n in
               ("max_p_res", "a_max", "max_p_bonus", "max_p_slay", "max_p_brand"))


def _rd_artifacts(r: Reader, ctx: Context) -> Artifacts:
    total, first_random = r.u16("total"), r.u16("first_random")
    if first_random > total:
        r.fail("first_random", f"at most the total ({total})", str(first_random), at=r.pos - 2)
    of, cf = ctx.need("of_size", "object memory"), ctx.need("cf_size", "object memory")
    bonus = _bonus_size(ctx)
    r.count(first_random, 7, "artifacts", "artifact")
    m = Artifacts()
    for i in range(first_random):
        created, seen, set_bonus = r.array("u8", 3, f"artifacts[{i}]")
        m.artifacts.append(ArtifactState(created, seen, set_bonus, r.u32(f"artifacts[{i}].expansion")))
    for i in range(first_random, total):
        p = f"random[{i - first_random}]"
        a = RandomArtifact(read_str(r, f"{p}.name"), r.u8(f"{p}.tval"), r.u8(f"{p}.sval"))
        a.pval, a.to_h, a.to_d, a.to_a = r.array("u16", 4, f"{p}.pval")
        a.dd, a.ds = r.array("u8", 2, f"{p}.dd")
        a.ac, a.weight = r.array("u16", 2, f"{p}.ac")
        a.cost = r.u32(f"{p}.cost")
        a.flags_obj = r.bytes(of, f"{p}.flags_obj")
        a.flags_curse = r.bytes(cf, f"{p}.flags_curse")
        a.level, a.rarity, a.created, a.seen, a.effect = r.array("u8", 5, f"{p}.level")
        a.time = list(r.array("u16", 3, f"{p}.time"))
        a.charge = list(r.array("u16", 3, f"{p}.charge"))
        a.bonuses = r.bytes(bonus, f"{p}.bonuses")
        a.expansion = r.u32(f"{p}.expansion")
        m.random.append(a)
    return m


def _wr_artifacts(m: Artifacts, w: Writer, ctx: Context) -> None:
    w.u16(len(m.artifacts) + len(m.random), "total")
    w.u16(len(m.artifacts), "first_random")
    for i, a in enumerate(m.artifacts):
        w.array("u8", [a.created, a.seen, a.set_bonus], f"artifacts[{i}]")
        w.u32(a.expansion, f"artifacts[{i}].expansion")
    of, cf = ctx.need("of_size", "object memory"), ctx.need("cf_size", "object memory")
    bonus = _bonus_size(ctx)
    for i, ra in enumerate(m.random):
        p = f"random[{i}]"
        write_str(w, ra.name, f"{p}.name")
        w.array("u8", [ra.tval, ra.sval], f"{p}.tval")
        w.array("u16", [ra.pval, ra.to_h, ra.to_d, ra.to_a], f"{p}.pval")
        w.array("u8", [ra.dd, ra.ds], f"{p}.dd")
        w.array("u16", [ra.ac, ra.weight], f"{p}.ac")
        w.u32(ra.cost, f"{p}.cost")
        w.bytes(ra.flags_obj, f"{p}.flags_obj", size=of)
        w.bytes(ra.flags_curse, f"{p}.flags_curse", size=cf)
        w.array("u8", [ra.level, ra.rarity, ra.created, ra.seen, ra.effect], f"{p}.level")
        check_len(ra.time, 3, f"{p}.time", "values")
        check_len(ra.charge, 3, f"{p}.charge", "values")
        w.array("u16", ra.time, f"{p}.time")
        w.array("u16", ra.charge, f"{p}.charge")
        w.bytes(ra.bonuses, f"{p}.bonuses", size=bonus)
        w.u32(ra.expansion, f"{p}.expansion")


_layout("options", 2, Options, _rd_options, _wr_options)
_layout("monster memory", 1, MonsterMemory, _rd_monster_memory, _wr_monster_memory)
_layout("object memory", 1, ObjectMemory, _rd_object_memory, _wr_object_memory)
_layout("quests", 1, Quests, _rd_quests, _wr_quests)
_layout("player spells", 1, PlayerSpells, _rd_spells, _wr_spells)
_layout("randarts", 1, Randarts, _rd_randarts, _wr_randarts)
_layout("squelch", 2, Squelch, _rd_squelch, _wr_squelch)
_layout("artifacts", 1, Artifacts, _rd_artifacts, _wr_artifacts)
_layout("traps", 1, Traps, _rd_traps, _wr_traps)
