"""The multiplayer step of ``savecraft demo``: a real server, two bots, the saved state.

Generates the sample world, hosts it on a free loopback port, runs two
bots through a short session (register, walk, see each other, chat, one
logs out, the other is logged out when the server stops) and returns the
server's state file, which the demo then shows with ``info``.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from ..fileio import atomic_write, ensure_dir
from ..formats.tirnanog.game.sample import build_sample_game
from .certs import ensure_server_context
from .client import describe_bundle, fetch_bundle, login
from .server import GameServer, ServerConfig, run
from .state import PlayerStore
from .world import load_world

STATE_NAME = "tirnanog-server-state.sav"
WORLD_NAME = "tirnanog-server-world.tng"


async def _session(folder: Path, say: list[str]) -> Path:
    world_path = folder / WORLD_NAME
    atomic_write(world_path, build_sample_game())
    state = folder / STATE_NAME
    for old in (state, *folder.glob(STATE_NAME + ".*.pem")):
        old.unlink(missing_ok=True)
    world = load_world(world_path)
    store = PlayerStore(state, world)
    tls, _, _ = ensure_server_context(state)
    server = GameServer(world, store, tls, ServerConfig(host="127.0.0.1", port=0))
    await server.start()
    port = server.tcp_port
    say.append(f"server: world {world.game_id!r} on 127.0.0.1:{port} (TLS) and UDP {port}")
    try:
        hello, bundle, _ = await fetch_bundle("127.0.0.1", port)
        info = describe_bundle(hello, bundle)
        say.append(f"bots: asset bundle {len(bundle)} bytes, {info.map_count} maps, "
                   f"{len(info.option_counts)} character option groups")
        a = await login("127.0.0.1", port, "Brigid", "demo", register=info.default_character(0))
        b = await login("127.0.0.1", port, "Cian", "demo", register=info.default_character(1))
        a.run(0.02)
        b.run(0.02)
        for step in range(4):
            a.move(0, 4 + step, 5, direction=2)
            b.move(1, 10, 3 + step, direction=0)
            await asyncio.sleep(0.05)
        a.chat("Dia dhuit, Cian!")
        await asyncio.sleep(0.3)
        seen = a.players.get(2)
        if seen is not None:
            say.append(f"Brigid sees player 2 at map {seen.map_id} ({seen.x},{seen.y})")
        for uid, text in b.chat_lines:
            say.append(f"Cian hears player {uid}: {text}")
        await a.logout()
        await asyncio.sleep(0.15)
        say.append(f"Brigid logged out; Cian sees {len(b.players)} other players")
        b.close()  # still logged in when the server stops: logged out and saved then
    finally:
        await server.stop("demo over")
    say.append(f"server: stopped, {len(store.users)} players saved in {state.name}")
    return state


def write_samples(folder: Path) -> list[Path]:
    ensure_dir(folder)
    lines: list[str] = []
    state: Path = run(asyncio.wait_for, _session(folder, lines), 15.0)
    # The stopped server's self-signed TLS identity is not a sample: kept, `validate` of the
    # folder would fail on it (and a private key has no business in a folder of samples).
    for pem in folder.glob(STATE_NAME + ".*.pem"):
        pem.unlink(missing_ok=True)
    for line in lines:
        print(f"  net: {line}")
    return [state]


__all__ = ["write_samples"]
