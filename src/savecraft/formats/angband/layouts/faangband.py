"""FAangband 1 as Ponyband writes it (variant ``FAAN``): options, monster memory, object
memory, quests, player spells, randarts, squelch, artifacts and traps (Ponyband's
``src/load.c`` and ``save.c`` at the samples' commit 59f6ca5). FAangband 1.4 writes these
the same way; 1.2.0-1.3.3 write the options as version 1 (option bits and masks, not names)
and the squelch block as version 1 (the same bytes): :data:`OPTIONS_1`, :data:`SQUELCH_1`.

Rng, messages and player hp share Vanilla's layouts (:mod:`.character`); the
player, misc and history blocks are in :mod:`.faangband_character`, the
object-record blocks (inventory, stores, dungeon, objects, monsters, ghost)
in :mod:`.faangband_world`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from ....layout import (
    I16,
    U8,
    U16,
    U32,
    Adapt,
    Array,
    Bytes,
    Check,
    CStr,
    Ctx,
    Expr,
    Field,
    Len,
    List,
    Member,
    Prefix,
    Ref,
    Stored,
    Struct,
    Until,
)
from . import BlockModel, register_struct
from .character import FAANGBAND, _Option, _options_dict, _options_list
from .items import NAME_MAX

VARIANTS = ("FAAN",)  # the variant ids this module registers layouts for (see the package)

FAAN = frozenset({"FAAN"})
TERM_MAX = 8  # ANGBAND_TERM_MAX: window flags and masks stored per terminal
OPTION_WORDS = 8  # options version 1: 8 words of option bits, then 8 of masks


def _memory(name: str) -> Ctx:
    return Ctx(name, "object memory")


@dataclass(slots=True)
class _OptionsHead(BlockModel):
    """The values both forms of FAangband 1's options block store before the options."""

    autosave: int = 0
    autosave_freq: int = 0
    delay_factor: int = 0
    hitpoint_warn: int = 0
    panel_change: int = 0
    lazymove_delay: int = 0


@dataclass(slots=True)
class Options(_OptionsHead):
    KIND: ClassVar[str] = "options-faan"
    options: dict[str, int] = field(default_factory=dict)
    window_flags: list[int] = field(default_factory=list)
    window_masks: list[int] = field(default_factory=list)


@dataclass(slots=True)
class Options1(_OptionsHead):
    """The options block version 1 (FAangband 1.2.0-1.3.3, read by ``rd_options_1``): each
    option a bit of ``flags`` by its index (read where its bit of ``masks`` is set)."""

    KIND: ClassVar[str] = "options-faan-1"
    flags: list[int] = field(default_factory=lambda: [0] * OPTION_WORDS)
    masks: list[int] = field(default_factory=lambda: [0] * OPTION_WORDS)
    window_flags: list[int] = field(default_factory=lambda: [0] * TERM_MAX)
    window_masks: list[int] = field(default_factory=lambda: [0] * TERM_MAX)


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


@dataclass(slots=True)
class Quest:
    stage: int = 0
    unused: int = 0


@dataclass(slots=True)
class Quests(BlockModel):
    KIND: ClassVar[str] = "quests-faan"
    quests: list[Quest] = field(default_factory=list)


@dataclass(slots=True)
class PlayerSpells(BlockModel):
    KIND: ClassVar[str] = "player-spells-faan"
    spell_flags: bytes = b""
    spell_order: bytes = b""
    expansion: int = 0


@dataclass(slots=True)
class Randarts(BlockModel):
    """Ponyband's loader reads nothing here (``rd_randarts``): the block is empty."""

    KIND: ClassVar[str] = "randarts-faan"


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


@dataclass(slots=True)
class Squelch1(Squelch):
    """The squelch block version 1 (FAangband 1.2.0-1.3.3): the same bytes as version 2, the
    quality settings counted by their own byte (``TYPE_MAX`` of them, not ``Q_TV_MAX`` times
    ``SQUELCH_MAX``)."""

    KIND: ClassVar[str] = "squelch-faan-1"


@dataclass(slots=True)
class ArtifactState:
    created: int = 0
    seen: int = 0
    set_bonus: int = 0
    expansion: int = 0


@dataclass(slots=True)
class RandomArtifact:
    """A random artifact of this character: the whole record, as the game makes it, each field
    as ``rd_artifacts`` reads it (the activation's time and charge dice, then a byte per
    resist, stat, other bonus, slay and brand, as many as the object memory block says)."""

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
    time_base: int = 0
    time_dice: int = 0
    time_sides: int = 0
    charge_base: int = 0
    charge_dice: int = 0
    charge_sides: int = 0
    percent_res: bytes = b""
    bonus_stat: bytes = b""  # (the game reads a byte above 128 as negative)
    bonus_other: bytes = b""
    multiple_slay: bytes = b""
    multiple_brand: bytes = b""
    expansion: int = 0


@dataclass(slots=True)
class Artifacts(BlockModel):
    KIND: ClassVar[str] = "artifacts-faan"
    artifacts: list[ArtifactState] = field(default_factory=list)
    random: list[RandomArtifact] = field(default_factory=list)


_SPECIAL_OPTIONS = [Field("autosave", U8), Field("autosave_freq", I16), Field("delay_factor", U8),
                    Field("hitpoint_warn", U8), Field("panel_change", U8), Field("lazymove_delay", U16)]
_WINDOWS = [Field("window_flags", Array(U32, TERM_MAX)), Field("window_masks", Array(U32, TERM_MAX))]
OPTIONS_1 = Struct(Options1, [
    *_SPECIAL_OPTIONS, Field("flags", Array(U32, OPTION_WORDS)), Field("masks", Array(U32, OPTION_WORDS)),
    *_WINDOWS,
], name="options")  # (registered by faangband13)
OPTIONS = Struct(Options, [
    *_SPECIAL_OPTIONS,
    Field("options", Adapt(Until(Struct(_Option, [Field("name", CStr(19)), Field("value", U8)],
                                        name="option"), CStr(19), ""),
                           _options_dict, _options_list, "each option once")),
    *_WINDOWS,
], name="options")

MONSTER_MEMORY = Struct(MonsterMemory, [
    Len("count", U16, ("races",)), Field("rf_size", U8, export="rf_size"),
    Field("rsf_size", U8, export="rsf_size"), Field("blows_max", U8, export="blows_max"),
    Field("races", List(Struct(Lore, [
        Field("sights", I16), Field("deaths", I16), Field("pkills", I16), Field("tkills", I16),
        Field("wake", U8), Field("ignore", U8), Field("xtra1", U8), Field("xtra2", U8),
        Field("drop_gold", U8), Field("drop_item", U8), Field("cast_spell", U8),
        Field("blows", Bytes(Ctx("blows_max", "monster memory"))),
        Field("flags", Bytes(Ctx("rf_size", "monster memory"))),
        Field("spell_flags", Bytes(Ctx("rsf_size", "monster memory"))), Field("max_num", U8),
        Field("later", Bytes(3))], name="lore"), Ref("count"))),
], name="monster memory")

_SIZES = ("of_size", "cf_size", "if_size", "max_p_res", "a_max", "max_p_bonus", "max_p_slay",
          "max_p_brand")
OBJECT_MEMORY = Struct(ObjectMemory, [
    Len("count", U16, ("kinds",)), *[Field(n, U8, export=n) for n in _SIZES],
    Field("kinds", List(Struct(KindMemory, [Field("flags", U8), Field("seen", U8),
                                            Field("expansion", U32)], name="kind"), Ref("count"))),
], name="object memory")

QUESTS = Struct(Quests, [Field("quests", List(
    Struct(Quest, [Field("stage", U16), Field("unused", U16)], name="quest"), Prefix(U16, "count")))],
    name="quests")

PLAYER_SPELLS = Struct(PlayerSpells, [
    Len("count", U16, ("spell_flags", "spell_order")), Field("spell_flags", Bytes(Ref("count"))),
    Field("spell_order", Bytes(Ref("count"))), Field("expansion", U32),
], name="player spells")

RANDARTS = Struct(Randarts, [], name="randarts")  # Ponyband's loader reads nothing here

TRAPS = Struct(Traps, [
    Field("trf_size", U8, export="trf_size"),
    Field("traps", List(Struct(Trap, [
        Field("kind", U8), Field("y", U8), Field("x", U8), Field("xtra", U8),
        Field("flags", Bytes(Ctx("trf_size", "traps")))], name="trap"), Prefix(I16, "count"))),
    Field("expansion", U32),
], name="traps")

_SQUELCH_MEMBERS: list[Member] = [
    Len("quality_count", U8, ("quality",)), Field("quality", Bytes(Ref("quality_count"))),
    Field("egos", List(Struct(EgoSquelch, [Field("flags", U8), Field("expansion", U32)], name="ego"),
                       Prefix(U16, "ego_count"))),
    Field("inscriptions", List(Struct(Inscription, [Field("kind_index", I16), Field("text", CStr(79))],
                                      name="inscription"), Prefix(U16, "inscription_count"))),
]
SQUELCH = Struct(Squelch, _SQUELCH_MEMBERS, name="squelch")
SQUELCH_1 = Struct(Squelch1, _SQUELCH_MEMBERS, name="squelch")  # (registered by faangband13)

ARTIFACTS = Struct(Artifacts, [
    Stored("total", U16, "len(artifacts) + len(random)"),
    Stored("first_random", U16, "len(artifacts)"),
    Check("first_random <= total", "first_random", "at most the total", "first_random"),
    Field("artifacts", List(Struct(ArtifactState, [
        Field("created", U8), Field("seen", U8), Field("set_bonus", U8), Field("expansion", U32)],
        name="artifact"), Ref("first_random"))),
    Field("random", List(Struct(RandomArtifact, [
        Field("name", CStr(NAME_MAX)), Field("tval", U8), Field("sval", U8), Field("pval", U16),
        Field("to_h", U16), Field("to_d", U16), Field("to_a", U16), Field("dd", U8), Field("ds", U8),
        Field("ac", U16), Field("weight", U16), Field("cost", U32),
        Field("flags_obj", Bytes(_memory("of_size"))), Field("flags_curse", Bytes(_memory("cf_size"))),
        Field("level", U8), Field("rarity", U8), Field("created", U8), Field("seen", U8),
        Field("effect", U8), *[Field(f"{n}_{d}", U16) for n in ("time", "charge") for d in ("base", "dice", "sides")],
        Field("percent_res", Bytes(_memory("max_p_res"))), Field("bonus_stat", Bytes(_memory("a_max"))),
        Field("bonus_other", Bytes(_memory("max_p_bonus"))), Field("multiple_slay", Bytes(_memory("max_p_slay"))),
        Field("multiple_brand", Bytes(_memory("max_p_brand"))), Field("expansion", U32)], name="random artifact"),
        Expr("total - first_random"))),
], name="artifacts")


for _struct, _version in ((OPTIONS, 2), (MONSTER_MEMORY, 1), (OBJECT_MEMORY, 1), (QUESTS, 1),
                          (PLAYER_SPELLS, 1), (RANDARTS, 1), (SQUELCH, 2), (ARTIFACTS, 1), (TRAPS, 1)):
    register_struct(_struct, _struct.name, _version, FAAN, FAANGBAND)
