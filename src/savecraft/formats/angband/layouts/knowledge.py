"""Vanilla Angband 4.2 blocks of what the player knows: monster memory, object memory,
ignore settings and artifacts (``rd_*`` / ``wr_*`` of 4.2).

The object memory block also stores the sizes every later object record
uses (flag bytes, modifiers, elements, brands, slays, curses); they go into
the :class:`~.Context`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from ....binary import Reader, Writer
from . import BlockModel, Context, Layout, register_layout
from .items import NAME_MAX, Records, check_len, read_str, write_str

VANILLA = frozenset({"VNLA"})
GAME = "Vanilla 4.2"
END_OF_MONSTERS = "No more monsters"


def _layout(name: str, model: type, decode: object, encode: object) -> None:
    register_layout(Layout(name, 1, VANILLA, model, decode, encode, GAME,  # type: ignore[arg-type]
                           exact=True))


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


_KILLS = Records(MonsterKills, [("race", "s", NAME_MAX), ("pkills", "H"), ("thefts", "H")])


def _rd_monster_memory(r: Reader, ctx: Context) -> MonsterMemory:
    m = MonsterMemory(r.u8("mflag_size"))
    races = _KILLS.read(r, ctx, -1, END_OF_MONSTERS)
    if races is not None:
        m.races = races
    else:  # no C reader, or something unusual: field by field, for the exact error
        while True:
            name = read_str(r, f"races[{len(m.races)}].race")
            if name == END_OF_MONSTERS:
                break
            i = len(m.races)
            m.races.append(MonsterKills(name, r.u16(f"races[{i}].pkills"), r.u16(f"races[{i}].thefts")))
    ctx.set("mflag_size", m.mflag_size, "monster memory")
    return m


def _wr_monster_memory(m: MonsterMemory, w: Writer, ctx: Context) -> None:
    w.u8(m.mflag_size, "mflag_size")
    fast = _KILLS.write(w, ctx, m.races, END_OF_MONSTERS)
    for i, k in enumerate([] if fast else m.races):
        if k.race == END_OF_MONSTERS:
            from ....errors import FormatError
            raise FormatError(None, f"races[{i}].race", "a monster race name", repr(k.race))
        write_str(w, k.race, f"races[{i}].race")
        w.u16(k.pkills, f"races[{i}].pkills")
        w.u16(k.thefts, f"races[{i}].thefts")
    write_str(w, END_OF_MONSTERS, "end")
    ctx.set("mflag_size", m.mflag_size, "monster memory")


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


def _rd_object_memory(r: Reader, ctx: Context) -> ObjectMemory:
    n = r.u16("count")
    m = ObjectMemory()
    for name in _SIZES:
        setattr(m, name, r.u8(name))
    m.kinds = r.bytes(n, "kinds")
    for name in _SIZES:
        ctx.set(name, getattr(m, name), "object memory")
    return m


def _wr_object_memory(m: ObjectMemory, w: Writer, ctx: Context) -> None:
    w.u16(len(m.kinds), "count")
    for name in _SIZES:
        w.u8(getattr(m, name), name)
        ctx.set(name, getattr(m, name), "object memory")
    w.bytes(m.kinds, "kinds")


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


_KIND_NOTE = Records(KindNote, [("tval", "s", 79), ("sval", "s", 79), ("note", "s", 79)])
_RUNE_NOTE = Records(RuneNote, [("rune", "h"), ("note", "s", 79)])
_EGO = Records(EgoIgnore, [("everseen", "B"), ("itypes", "y", "itype_size")])


def _rd_notes(r: Reader, ctx: Context, path: str) -> list[KindNote]:
    n = r.count(r.u16(f"{path}_count"), 3, path, "note")
    fast = _KIND_NOTE.read(r, ctx, n)
    if fast is not None:
        return fast
    return [KindNote(read_str(r, f"{path}[{i}].tval", 79), read_str(r, f"{path}[{i}].sval", 79),
                     read_str(r, f"{path}[{i}].note", 79)) for i in range(n)]


def _wr_notes(notes: list[KindNote], w: Writer, ctx: Context, path: str) -> None:
    w.u16(len(notes), f"{path}_count")
    if _KIND_NOTE.write(w, ctx, notes):
        return
    for i, k in enumerate(notes):
        write_str(w, k.tval, f"{path}[{i}].tval", 79)
        write_str(w, k.sval, f"{path}[{i}].sval", 79)
        write_str(w, k.note, f"{path}[{i}].note", 79)


def _rd_ignore(r: Reader, ctx: Context) -> Ignore:
    m = Ignore(r.bytes(r.u8("levels_count"), "levels"))
    n = r.u16("ego_count")
    m.itype_size = r.u16("itype_size")
    r.count(n, 1 + m.itype_size, "egos", "ego")
    egos = _EGO.read(r, ctx, n, itype_size=m.itype_size)
    m.egos = egos if egos is not None else [
        EgoIgnore(r.u8(f"egos[{i}].everseen"), r.bytes(m.itype_size, f"egos[{i}].itypes"))
        for i in range(n)]
    m.aware_notes = _rd_notes(r, ctx, "aware_notes")
    m.unaware_notes = _rd_notes(r, ctx, "unaware_notes")
    n = r.count(r.u16("rune_notes_count"), 3, "rune_notes", "note")
    runes = _RUNE_NOTE.read(r, ctx, n)
    m.rune_notes = runes if runes is not None else [RuneNote(r.i16(f"rune_notes[{i}].rune"), read_str(r, f"rune_notes[{i}].note", 79))
                    for i in range(n)]
    return m


def _wr_ignore(m: Ignore, w: Writer, ctx: Context) -> None:
    w.u8(len(m.levels), "levels_count")
    w.bytes(m.levels, "levels")
    w.u16(len(m.egos), "ego_count")
    w.u16(m.itype_size, "itype_size")
    fast = _EGO.write(w, ctx, m.egos, itype_size=m.itype_size)
    for i, e in enumerate([] if fast else m.egos):
        w.u8(e.everseen, f"egos[{i}].everseen")
        check_len(e.itypes, m.itype_size, f"egos[{i}].itypes", "bytes (itype_size)")
        w.bytes(e.itypes, f"egos[{i}].itypes")
    _wr_notes(m.aware_notes, w, ctx, "aware_notes")
    _wr_notes(m.unaware_notes, w, ctx, "unaware_notes")
    w.u16(len(m.rune_notes), "rune_notes_count")
    fast = _RUNE_NOTE.write(w, ctx, m.rune_notes)
    for i, n in enumerate([] if fast else m.rune_notes):
        w.i16(n.rune, f"rune_notes[{i}].rune")
        write_str(w, n.note, f"rune_notes[{i}].note", 79)


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


_ARTIFACT = Records(ArtifactState, [("created", "B"), ("seen", "B"), ("everseen", "B"), ("unused", "B")])


def _rd_artifacts(r: Reader, ctx: Context) -> Artifacts:
    n = r.count(r.u16("count"), 4, "artifacts", "artifact")
    fast = _ARTIFACT.read(r, ctx, n)
    if fast is not None:
        return Artifacts(fast)
    raw = r.bytes(4 * n, "artifacts")
    return Artifacts([ArtifactState(*raw[i:i + 4]) for i in range(0, 4 * n, 4)])


def _wr_artifacts(m: Artifacts, w: Writer, ctx: Context) -> None:
    w.u16(len(m.artifacts), "count")
    fast = _ARTIFACT.write(w, ctx, m.artifacts)
    for i, a in enumerate([] if fast else m.artifacts):
        for name in ("created", "seen", "everseen", "unused"):
            w.u8(getattr(a, name), f"artifacts[{i}].{name}")


_layout("monster memory", MonsterMemory, _rd_monster_memory, _wr_monster_memory)
_layout("object memory", ObjectMemory, _rd_object_memory, _wr_object_memory)
_layout("ignore", Ignore, _rd_ignore, _wr_ignore)
_layout("artifacts", Artifacts, _rd_artifacts, _wr_artifacts)
