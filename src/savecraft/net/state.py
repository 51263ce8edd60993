"""The server's persistent state: a TirNanoG saved game, server variant.

Every registered player is one USER chunk; DENY lists refused addresses;
GLBL, QSTS, NPC and MAP chunks are kept and written back. The file is
written atomically (temporary file, fsync, rename) with the saved-game
codec, so a ``kill -9`` at any moment leaves either the previous or the new
file, never a torn one.

User ids on the wire are the 1-based position of the user's USER chunk
among the USER chunks (0 means "nobody" in chat and voice). Users are only
ever appended, so an id never changes while the file lives.
"""

from __future__ import annotations

import ipaddress
import time
from pathlib import Path
from typing import Any

from .. import api
from ..errors import FormatError, SavecraftError
from ..fileio import atomic_write
from ..formats.tirnanog.save.codec import build as build_save
from ..formats.tirnanog.save.codec import encode_chunk
from ..formats.tirnanog.save.model import (
    AddressFamily,
    ChunkList,
    DenyChunk,
    DenyEntry,
    GlobalsChunk,
    MapChunk,
    NpcChunk,
    QuestsChunk,
    SaveGame,
    UserChunk,
)
from .world import World

Address = ipaddress.IPv4Address | ipaddress.IPv6Address


class StateError(SavecraftError):
    """The state file cannot be used (unreadable, not a save, another world's save)."""


class PlayerStore:
    """Users, denied addresses and world chunks of one hosted world, backed by one file."""

    def __init__(self, path: str | Path, world: World) -> None:
        self.path = Path(path)
        self.world = world
        self.save_game = self._load_or_create()
        self.users: list[UserChunk] = list(self.save_game.users)
        self.by_name: dict[str, int] = {}
        for i, u in enumerate(self.users):
            self.by_name.setdefault(_key(u.name), i + 1)
        self.deny: set[Address] = set()
        for d in self.save_game.chunks.of_kind(DenyChunk):
            for e in d.entries:
                try:
                    self.deny.add(ipaddress.ip_address(e.address))
                except ValueError:
                    continue
        self.dirty = False
        self.writes = 0
        self._uid_of: dict[int, int] = {id(u): i + 1 for i, u in enumerate(self.users)}
        self._encoded: dict[int, bytes] = {}
        self._touched: set[int] = set()
        # Where the world chunks (GLBL, QSTS, NPC, MAP) sit, for each login's world state;
        # users are only ever appended, so this is found once, not once per login.
        self._world_at: list[int] = []
        self._world_scanned = 0

    # -- loading -------------------------------------------------------------------------
    def _load_or_create(self) -> SaveGame:
        if not self.path.exists():  # the folder must exist: savecraft makes no folders above a file
            save = self.new_save()
            atomic_write(self.path, build_save(save))
            return save
        try:
            model = api.load(self.path)
        except FormatError as err:
            raise StateError(f"{self.path}: not a usable server state: {err}") from None
        except SavecraftError as err:
            raise StateError(f"{self.path}: {err}") from None
        if not isinstance(model, SaveGame):
            raise StateError(f"{self.path}: not a TirNanoG saved game "
                             f"(found a {type(model).__name__})")
        if model.game_id != self.world.game_id:
            raise StateError(f"{self.path}: saved for world {model.game_id!r}, "
                             f"not {self.world.game_id!r}")
        model.preview = None  # a server keeps no preview (the spec: it skips PRVW)
        for cls, make in ((GlobalsChunk, self._globals), (QuestsChunk, self._quests)):
            if not model.chunks.of_kind(cls):
                model.chunks.insert(0, make())
        return model

    def _globals(self) -> GlobalsChunk:
        return GlobalsChunk([a.default for a in self.world.global_attributes])

    def _quests(self) -> QuestsChunk:
        return QuestsChunk([-1] * self.world.quest_count)

    def new_save(self) -> SaveGame:
        """An empty server state for the world: GLBL defaults, no quest completed, no user."""
        return SaveGame(game_id=self.world.game_id,
                        chunks=ChunkList([self._globals(), self._quests()]))

    # -- users ---------------------------------------------------------------------------
    def find(self, name: str) -> tuple[int, UserChunk] | None:
        uid = self.by_name.get(_key(name))
        if uid is None:
            return None
        return uid, self.users[uid - 1]

    def user(self, uid: int) -> UserChunk | None:
        if 1 <= uid <= len(self.users):
            return self.users[uid - 1]
        return None

    def add_user(self, user: UserChunk) -> int:
        self.save_game.chunks.append(user)
        self.users.append(user)
        uid = len(self.users)
        self.by_name[_key(user.name)] = uid
        self._uid_of[id(user)] = uid
        self.dirty = True
        return uid

    def denied(self, host: str) -> bool:
        try:
            return ipaddress.ip_address(host.split("%", 1)[0]) in self.deny
        except ValueError:
            return False

    # -- DENY: refused addresses --------------------------------------------------------
    def deny_add(self, spec: str) -> list[str]:
        """Refuse an address or range (``10.0.0.7``, ``10.0.0.0/24``); the addresses added.

        The DENY chunk holds single addresses (NOTES.md has no ranges), so a
        range is stored as its addresses, at most ``MAX_DENY_RANGE`` of them:
        the file means the same to any reader of the format.
        """
        added: list[str] = []
        chunk = self._deny_chunk(create=True)
        assert chunk is not None
        for ip in deny_range(spec):
            if ip not in self.deny:
                self.deny.add(ip)
                family = AddressFamily.AF_INET if ip.version == 4 else AddressFamily.AF_INET6
                chunk.entries.append(DenyEntry(family, str(ip)))
                added.append(str(ip))
        if added:
            self.dirty = True
        return added

    def deny_remove(self, spec: str) -> list[str]:
        """Accept an address or range again; the addresses removed."""
        gone = {ip for ip in deny_range(spec) if ip in self.deny}
        if not gone:
            return []
        self.deny -= gone
        chunk = self._deny_chunk(create=False)
        if chunk is not None:
            chunk.entries[:] = [e for e in chunk.entries if _ip(e.address) not in gone]
        self.dirty = True
        return sorted(str(ip) for ip in gone)

    def deny_list(self) -> list[str]:
        return [str(ip) for ip in sorted(self.deny, key=lambda a: (a.version, int(a)))]

    def _deny_chunk(self, create: bool) -> DenyChunk | None:
        chunks = self.save_game.chunks
        found = chunks.first(DenyChunk)
        if found is None and create:
            found = DenyChunk([])
            chunks.insert(0, found)  # where the spec lists it; every chunk's index moves
            self._world_at, self._world_scanned = [], 0
        return found

    @property
    def quests(self) -> QuestsChunk:
        found = self.save_game.quests
        assert found is not None  # loading or creating the state puts one in
        return found

    def client_state(self, user: UserChunk) -> ChunkList:
        """The world state of a login OK: GLBL, QSTS, NPCs, changed maps and exactly this USER."""
        chunks = self.save_game.chunks
        if self._world_scanned > len(chunks):  # chunks were removed: look again from the start
            self._world_at, self._world_scanned = [], 0
        for i in range(self._world_scanned, len(chunks)):
            if chunks.magic(i) in (b"GLBL", b"QSTS", b"NPC\0", b"MAP\0"):
                self._world_at.append(i)
        self._world_scanned = len(chunks)
        keep = [chunks[i] for i in self._world_at]
        return ChunkList(keep[:2] + [user] + keep[2:])

    def touch(self, uid: int) -> None:
        """User ``uid`` changed: its chunk is encoded again at the next snapshot."""
        self._touched.add(uid)

    # -- writing -------------------------------------------------------------------------
    def snapshot(self) -> bytes:
        """The whole file as it is now (see :meth:`freeze`)."""
        return build_save(self.freeze())

    def freeze(self) -> SaveGame:
        """A consistent copy of the state, made of bytes only, taken in the caller's thread.

        Building the file from it (compression, CRC) touches nothing the server
        changes, so the server does that in a worker thread, off its event loop.

        A server save holds every player ever registered, most of them not
        online; each user's chunk is encoded once and reused until
        :meth:`touch` says it changed, so a save costs what the players who
        played since the last one cost, not what all of them do.
        """
        chunks = self.save_game.chunks
        parts: list[tuple[bytes, int]] = []
        uid_of = self._uid_of
        cache = self._encoded
        touched = self._touched
        for i in range(len(chunks)):
            raw = chunks.raw_or_none(i)
            if raw is None:
                chunk = chunks[i]
                uid = uid_of.get(id(chunk)) if isinstance(chunk, UserChunk) else None
                if uid is not None and uid not in touched and uid in cache:
                    raw = cache[uid]
                else:
                    raw = encode_chunk(chunk, f"chunks[{i}]")
                    if uid is not None:
                        cache[uid] = raw
            parts.append((raw, 0))
        touched.clear()
        return SaveGame(game_id=self.save_game.game_id,
                        chunks=ChunkList.pending(parts, _never_decoded))

    def write(self, data: bytes | SaveGame | None = None) -> int:
        """Write the state atomically (a frozen copy is built here); returns the size written."""
        if data is None:
            data = self.snapshot()
        elif isinstance(data, SaveGame):
            data = build_save(data)
        atomic_write(self.path, data)
        self.dirty = False
        self.writes += 1
        return len(data)


MAX_DENY_RANGE = 4096  # addresses one DENY range may add (a /20 of IPv4, a /116 of IPv6)


def deny_range(spec: str) -> list[Address]:
    """The addresses of ``ADDR`` or ``ADDR/PREFIX``; ValueError (one line) when not one."""
    try:
        net = ipaddress.ip_network(spec.strip(), strict=False)
    except ValueError:
        raise ValueError(f"{spec!r} is not an IP address or address/prefix range") from None
    if net.num_addresses > MAX_DENY_RANGE:
        raise ValueError(f"{spec}: {net.num_addresses} addresses, more than the "
                         f"{MAX_DENY_RANGE} one range may deny (DENY holds single addresses)")
    return list(net)


def _ip(text: str) -> Address | None:
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


def _never_decoded(raw: bytes, offset: int) -> Any:  # a snapshot is only ever written
    raise AssertionError("a snapshot's chunks are not decoded")


def _key(name: str) -> str:
    return name.casefold()


def now() -> int:
    return int(time.time())


__all__ = ["MapChunk", "NpcChunk", "PlayerStore", "StateError", "now"]
