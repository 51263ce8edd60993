"""Vanilla Angband 4.2 blocks of what the player knows: monster memory, object memory,
ignore settings and artifacts (``rd_*`` / ``wr_*`` of 4.2).

The object memory block also stores the sizes every later object record
uses (flag bytes, modifiers, elements, brands, slays, curses); they go into
the :class:`~.Context`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from ....layout import I16, U8, U16, Bytes, CStr, Ctx, Field, Len, List, Member, Prefix, Ref, Struct, Until
from . import BlockModel, register_struct
from .character import EIGHT_BIT
from .items import NAME_MAX

VARIANTS = ("VNLA",)  # the variant ids this module registers layouts for (see the package)

VANILLA = frozenset({"VNLA"})
GAME = "Vanilla 4.2"
END_OF_MONSTERS = "No more monsters"


@dataclass(slots=True)
class MonsterKills:
    race: str = ""
    pkills: int = 0
    thefts: int = 0


@dataclass(slots=True)
class MonsterMemory(BlockModel):
    """Kill and theft counts by monster race name (4.2 keeps the rest of the lore elsewhere)."""

    KIND: ClassVar[str] = "monster-memory-4.2"
    mflag_size: int = 0
    races: list[MonsterKills] = field(default_factory=list)


_KILLS = Struct(MonsterKills, [Field("race", CStr(NAME_MAX)), Field("pkills", U16),
                               Field("thefts", U16)], name="monster kills")
MONSTER_MEMORY = Struct(MonsterMemory, [
    Field("mflag_size", U8, export="mflag_size"),
    Field("races", Until(_KILLS, CStr(NAME_MAX), END_OF_MONSTERS)),
], name="monster memory")


@dataclass(slots=True)
class ObjectMemory(BlockModel):
    """Per object kind: aware (1), tried (2), ignored when aware (4), seen (8), ignored unaware (16)."""

    KIND: ClassVar[str] = "object-memory-4.2"
    of_size: int = 0
    obj_mod_max: int = 0
    elem_max: int = 0
    brand_max: int = 0
    slay_max: int = 0
    curse_max: int = 0
    kinds: bytes = b""


_SIZES = ("of_size", "obj_mod_max", "elem_max", "brand_max", "slay_max", "curse_max")
OBJECT_MEMORY = Struct(ObjectMemory, [
    Len("count", U16, ("kinds",)),
    *[Field(name, U8, export=name) for name in _SIZES],
    Field("kinds", Bytes(Ref("count"))),
], name="object memory")


@dataclass(slots=True)
class EgoIgnore:
    everseen: int = 0
    itypes: bytes = b""


@dataclass(slots=True)
class KindNote:
    """An auto-inscription for an object kind, named by tval and kind name."""

    tval: str = ""
    sval: str = ""
    note: str = ""


@dataclass(slots=True)
class RuneNote:
    rune: int = 0
    note: str = ""


@dataclass(slots=True)
class Ignore(BlockModel):
    KIND: ClassVar[str] = "ignore-4.2"
    levels: bytes = b""
    itype_size: int = 0
    egos: list[EgoIgnore] = field(default_factory=list)
    aware_notes: list[KindNote] = field(default_factory=list)
    unaware_notes: list[KindNote] = field(default_factory=list)
    rune_notes: list[RuneNote] = field(default_factory=list)


# An auto-inscription is what the player typed: 8-bit text is kept as read (see character.py).
_KIND_NOTE = Struct(KindNote, [Field("tval", CStr(79)), Field("sval", CStr(79)),
                                Field("note", CStr(79, eight_bit=EIGHT_BIT))], name="kind note")
_RUNE_NOTE = Struct(RuneNote, [Field("rune", I16), Field("note", CStr(79, eight_bit=EIGHT_BIT))],
                    name="rune note")
EGO = Struct(EgoIgnore, [Field("everseen", U8), Field("itypes", Bytes(Ctx("itype_size", "ignore")))],
             name="ego ignore")


def ignore_members(kind_note: Struct) -> list[Member]:
    """``rd_ignore`` of 4.2 up to the rune inscriptions: ignore levels, ego ignoring, and the
    auto-inscriptions of kinds (aware, then unaware) as a game stores them (``kind_note``)."""
    return [
        Len("levels_count", U8, ("levels",)), Field("levels", Bytes(Ref("levels_count"))),
        Len("ego_count", U16, ("egos",)), Field("itype_size", U16, export="itype_size"),
        Field("egos", List(EGO, Ref("ego_count"))),
        Field("aware_notes", List(kind_note, Prefix(U16))),
        Field("unaware_notes", List(kind_note, Prefix(U16))),
    ]


IGNORE = Struct(Ignore, [*ignore_members(_KIND_NOTE), Field("rune_notes", List(_RUNE_NOTE, Prefix(U16)))],
                name="ignore")


@dataclass(slots=True)
class ArtifactState:
    created: int = 0
    seen: int = 0
    everseen: int = 0
    unused: int = 0


@dataclass(slots=True)
class Artifacts(BlockModel):
    """Per artifact (in the game's artifact.txt order): created, seen, ever seen."""

    KIND: ClassVar[str] = "artifacts-4.2"
    artifacts: list[ArtifactState] = field(default_factory=list)


_ARTIFACT = Struct(ArtifactState, [Field("created", U8), Field("seen", U8), Field("everseen", U8),
                                    Field("unused", U8)], name="artifact")
ARTIFACTS = Struct(Artifacts, [Field("artifacts", List(_ARTIFACT, Prefix(U16, "count")))],
                   name="artifacts")

for _struct in (MONSTER_MEMORY, OBJECT_MEMORY, IGNORE, ARTIFACTS):
    register_struct(_struct, _struct.name, 1, VANILLA, GAME)
