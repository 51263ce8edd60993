"""Section type 29: spawners (deflated: 6-byte header, then 21-byte NPC kind records)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from .....binary import Reader, Record, Writer
from ..assets import AssetContext
from .common import BuildContext, ParseContext, SpriteRef, sref
from .media import decode_media, encode_media
from .structured import StructAsset

TYPE = 29
KIND = Record("spawned NPC kind", [
    ("required_attribute", "u24"), ("relation", "u8"), ("required_value", "i32"), ("provided_attribute", "u24"),
    ("provided_value", "i32"), ("spawn_category", "u8"), ("spawn_index", "u16"), ("npc_category", "u8"),
    ("npc_index", "u16"),
])


@dataclass(slots=True)
class SpawnKind:
    required_attribute: int = sref()
    relation: int = 0
    required_value: int = 0
    provided_attribute: int = sref()
    provided_value: int = 0
    spawn_animation: SpriteRef = field(default_factory=SpriteRef)
    npc: SpriteRef = field(default_factory=SpriteRef)


@dataclass(slots=True)
class Spawner:
    max_npcs: int = 1
    respawn: int = 6000  # 1/100 s
    kinds: list[SpawnKind] = field(default_factory=list)
    trailing: bytes = b""


class SpawnerAsset(StructAsset[Spawner]):
    WHAT = "spawner"
    VALUE = Spawner

    def read(self, r: Reader, ctx: AssetContext) -> Spawner:
        s = Spawner(r.u8("max_npcs"), r.u24("respawn"))
        n = r.u16("kind_count")
        r.count(n, KIND.size, "kinds")
        for i in range(n):
            ra, rel, rv, pa, pv, sc, si, nc, ni = r.record(KIND, f"kinds[{i}]")
            s.kinds.append(SpawnKind(ra, rel, rv, pa, pv, SpriteRef(sc, si), SpriteRef(nc, ni)))
        return s

    def write(self, w: Writer, s: Spawner, ctx: Any) -> None:
        w.u8(s.max_npcs, "max_npcs")
        w.u24(s.respawn, "respawn")
        w.check_count(s.kinds, 0xFFFF, "kinds", "kinds")
        w.u16(len(s.kinds))
        for i, k in enumerate(s.kinds):
            w.record(KIND, (ctx.s(k.required_attribute), k.relation, k.required_value, ctx.s(k.provided_attribute),
                            k.provided_value, k.spawn_animation.category, k.spawn_animation.index,
                            k.npc.category, k.npc.index), f"kinds[{i}]")


@dataclass(slots=True)
class SpawnerEntry:
    name: int = sref()
    asset: SpawnerAsset = field(default_factory=SpawnerAsset)


@dataclass(slots=True)
class SpawnersSection:
    KIND: ClassVar[str] = "spawners"
    TYPE: ClassVar[int] = 29
    spawners: list[SpawnerEntry] = field(default_factory=list)
    trailing: bytes = b""


def decode(r: Reader, ctx: ParseContext) -> SpawnersSection:
    return decode_media(r, ctx, SpawnersSection, SpawnerEntry, SpawnerAsset, "spawners")


def encode(s: SpawnersSection, w: Writer, ctx: BuildContext) -> None:
    encode_media(s.spawners, "name", w, ctx, "spawners")
    w.bytes(s.trailing)
