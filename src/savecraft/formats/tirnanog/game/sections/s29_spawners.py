"""Section type 29: spawners (deflated: 6-byte header, then 21-byte NPC kind records)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from .....binary import Reader, Writer
from .....layout import I32, U8, U16, U24, Field, List, Struct
from .common import SPRITE, SREF, BuildContext, ParseContext, SpriteRef, prefix, sref
from .media import decode_media, encode_media, media_layout
from .structured import StructAsset

TYPE = 29


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


SPAWN_KIND = Struct(SpawnKind, [
    Field("required_attribute", SREF), Field("relation", U8), Field("required_value", I32),
    Field("provided_attribute", SREF), Field("provided_value", I32), Field("spawn_animation", SPRITE),
    Field("npc", SPRITE),
], name="spawned NPC kind")
SPAWNER = Struct(Spawner, [Field("max_npcs", U8), Field("respawn", U24),
                           Field("kinds", List(SPAWN_KIND, prefix(U16, "kind_count", "kinds")))], name="spawner")

class SpawnerAsset(StructAsset[Spawner]):
    WHAT = "spawner"
    VALUE = Spawner
    LAYOUT = SPAWNER


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


LAYOUT = media_layout(SpawnersSection, SpawnerEntry, SpawnerAsset, "spawners")


def decode(r: Reader, ctx: ParseContext) -> SpawnersSection:
    return decode_media(LAYOUT, r, ctx)  # type: ignore[no-any-return]


def encode(s: SpawnersSection, w: Writer, ctx: BuildContext) -> None:
    encode_media(LAYOUT, s, w, ctx)
