"""Shared pieces of the server, client, end-to-end and fault tests: a world, a running server.

Every socket is on 127.0.0.1 with a port the OS picks; every test body runs
under an overall timeout.
"""

from __future__ import annotations

import asyncio
import functools
import socket
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from savecraft.net.certs import ensure_server_context
from savecraft.net.client import ClientSession, login
from savecraft.net.server import GameServer, ServerConfig
from savecraft.net.state import PlayerStore
from savecraft.net.world import World, world_from_bytes

TIMEOUT = 30.0


def free_port() -> int:
    """A loopback TCP port nobody listens on (for a server started by its command line)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@functools.lru_cache(maxsize=1)
def sample_game_bytes() -> bytes:
    from savecraft.formats.tirnanog.game.sample import build_sample_game

    return build_sample_game()


def sample_world() -> World:
    return world_from_bytes(sample_game_bytes(), "sample.tng")


def write_world(folder: Path) -> Path:
    p = folder / "world.tng"
    p.write_bytes(sample_game_bytes())
    return p


# the sample world: 1 option group of 2 options; attributes: 2 primary, 1 variable, 1 calculated
SPEC = [1 << 8 | 3, 20, 15, 0, 0]


def run(body: Callable[[], Awaitable[Any]], timeout: float = TIMEOUT) -> Any:
    async def bounded() -> Any:
        return await asyncio.wait_for(body(), timeout)
    return asyncio.run(bounded())


@asynccontextmanager
async def running_server(folder: Path, world: World | None = None,
                         **config: Any) -> AsyncIterator[GameServer]:
    world = world or sample_world()
    folder.mkdir(parents=True, exist_ok=True)  # savecraft makes no folders above the state file
    state = folder / "state.sav"
    store = PlayerStore(state, world)
    tls, _, _ = ensure_server_context(state)
    # (tests register many players from 127.0.0.1; the limits are tested on their own)
    config.setdefault("registrations_per_address", 0)
    config.setdefault("registrations_per_minute", 0)
    server = GameServer(world, store, tls, ServerConfig(**config))
    await server.start()
    try:
        yield server
    finally:
        await server.stop("test over")


async def player(server: GameServer, name: str, password: str = "pw", *,
                 register: bool = True, spec: list[int] | None = None) -> ClientSession:
    sess = await login("127.0.0.1", server.tcp_port, name, password,
                       register=(spec or SPEC) if register else None)
    sess.run(0.02)
    return sess


async def until(cond: Callable[[], bool], timeout: float = 5.0, step: float = 0.02) -> bool:
    """Wait until ``cond()`` holds; False when it did not within ``timeout``."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while loop.time() < end:
        if cond():
            return True
        await asyncio.sleep(step)
    return cond()


class ServerThread:
    """A server on its own event loop in a thread, so a CLI command can run its own loop."""

    def __init__(self, folder: Path, world_bytes: bytes | None = None) -> None:
        self.folder = folder
        self.world_bytes = world_bytes
        self.ready = threading.Event()
        self.server: GameServer | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        async def body() -> None:
            world = world_from_bytes(self.world_bytes) if self.world_bytes else None
            async with running_server(self.folder, world) as server:
                self.server = server
                self.loop = asyncio.get_running_loop()
                self._stop = asyncio.Event()
                self.ready.set()
                await self._stop.wait()

        run(body, timeout=120)

    def __enter__(self) -> GameServer:
        self.thread.start()
        assert self.ready.wait(20)
        assert self.server is not None
        return self.server

    def __exit__(self, *exc: object) -> None:
        assert self.loop is not None and self._stop is not None
        self.loop.call_soon_threadsafe(self._stop.set)
        self.thread.join(30)
