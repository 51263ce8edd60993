"""The dungeon level an Angband savefile stores, drawn as the game draws it (render-map, the studio).

Held against the real files: Aduial (Vanilla 4.2.1, "at DL81"), the 4.0.1 Mage
("at DL77"), Lorenz (4.2.2+), a dead character (no level kept), a PWMAngband player
file (the server keeps its levels) and Ponyband (a 3.x-era level, drawn with the game's
own data folder's terrain list).
"""

from __future__ import annotations

import asyncio
import io
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import savecraft
from savecraft.errors import SavecraftError
from savecraft.formats.angband import mapview
from savecraft.formats.angband.layouts.levels import read_rle  # noqa: F401  (the format's RLE)
from tests.samples import SAMPLES, real_samples

ROOT = Path(__file__).resolve().parents[2]
ADUIAL = SAMPLES / "angband-block-variants" / "vanilla-4.2_Aduial.sav"
MAGE = SAMPLES / "angband-block-variants" / "vanilla-4.0.1_Mage.sav"
LORENZ = SAMPLES / "angband-block-more" / "angband_4.2.2+_Lorenz.sav"
DEAD = SAMPLES / "angband-block-more" / "angband_4.2.1_Maxwell-ada4e7b-dead.sav"
PWM = SAMPLES / "angband-block-variants" / "pwmangband-1.3.0b1_Archy.sav"
PONY = SAMPLES / "angband-block" / "ponyband_Asira.sav"

pytestmark = real_samples


def _block(save: Any, name: str) -> Any:
    return next(b for b in save.blocks if getattr(b, "name", None) == name)


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "NO_COLOR": "1"}
    return subprocess.run([sys.executable, "-m", "savecraft", *args], capture_output=True, env=env,
                          cwd=cwd, timeout=300)


def test_the_stored_level_is_the_dungeon_block_drawn_square_by_square() -> None:
    save = savecraft.load(ADUIAL)
    dungeon = _block(save, "dungeon")
    level = mapview.level_map(save)
    assert (level.depth, level.width, level.height) == (81, dungeon.cave.width, dungeon.cave.height)
    assert level.cells[dungeon.py][dungeon.px] == ("@", "w")  # the player where the save puts them
    flat = [c for row in level.cells for c in row]
    assert ("<", "w") in flat and (">", "w") in flat  # stairs, as the game draws them
    assert flat.count(("#", "W")) > 1000  # granite, light slate in 4.2's terrain.txt
    monsters = [m for m in _block(save, "monsters").cave.monsters if m.race]
    placed = {(m.y, m.x) for m in monsters} - {(dungeon.py, dungeon.px)}
    assert sum(1 for y, x in placed if level.cells[y][x] == ("M", "R")) == len(placed) > 10
    objects = _block(save, "objects").cave.objects.items
    squares = [(o.y, o.x) for o in objects]
    piles = {sq for sq in squares if squares.count(sq) > 1}
    for obj in objects:
        sq = (obj.y, obj.x)
        if sq not in placed and sq != (dungeon.py, dungeon.px):  # a monster or the player stands above
            assert level.cells[obj.y][obj.x] == (("&", "w") if sq in piles else mapview.OBJECTS[obj.tval])
    text = level.text().splitlines()
    assert len(text) == level.height and max(map(len, text)) <= level.width


def test_the_known_level_is_what_the_character_has_seen() -> None:
    save = savecraft.load(ADUIAL)
    stored, known = mapview.level_map(save), mapview.level_map(save, known=True)
    seen = sum(1 for row in known.cells for g, _ in row if g != " ")
    assert 0 < seen < sum(1 for row in stored.cells for g, _ in row if g != " ")
    # An object the character saw but did not learn is the game's "unknown item": a red '*'.
    assert ("*", "r") in {c for row in known.cells for c in row}


def test_layers_can_be_left_out() -> None:
    save = savecraft.load(ADUIAL)
    bare = mapview.level_map(save, layers={0})
    assert not {("@", "w"), ("M", "R")} & {c for row in bare.cells for c in row}
    only_player = mapview.level_map(save, layers={3})
    assert [c for row in only_player.cells for c in row if c != (" ", "w")] == [("@", "w")]


def test_vanilla_40_counts_objects_and_races_by_number() -> None:
    save = savecraft.load(MAGE)
    level = mapview.level_map(save)
    assert level.depth == 77 and level.game == "Vanilla 4.0"
    cells = {c for row in level.cells for c in row}
    assert ("?", "w") in cells or ("$", "y") in cells  # its floor holds scrolls (25) and gold (32)
    dungeon = _block(save, "dungeon")
    assert level.cells[dungeon.py][dungeon.px] == ("@", "w")


def test_the_games_own_data_gives_monsters_their_glyphs(tmp_path: Path) -> None:
    """monster.txt names each race's base and colour; monster_base.txt the base's glyph."""
    save = savecraft.load(ADUIAL)
    races = sorted({m.race for m in _block(save, "monsters").cave.monsters if m.race})
    (tmp_path / "monster_base.txt").write_text("name:dragon\nglyph:d\n\nname:person\nglyph:p\n")
    (tmp_path / "monster.txt").write_text("".join(
        f"name:{r}\nbase:{'dragon' if k % 2 else 'person'}\ncolor:{'g' if k % 2 else 'b'}\n\n"
        for k, r in enumerate(races)))
    data = mapview.GameData.read(tmp_path)
    level = mapview.level_map(save, data=data)
    dungeon = _block(save, "dungeon")
    for m in _block(save, "monsters").cave.monsters:
        if m.race and (m.y, m.x) != (dungeon.py, dungeon.px):
            k = races.index(m.race)
            assert level.cells[m.y][m.x] == (("d", "g") if k % 2 else ("p", "b"))


def test_a_dead_character_and_a_pwmangband_player_have_no_level() -> None:
    with pytest.raises(SavecraftError, match="dead character"):
        mapview.level_map(savecraft.load(DEAD))
    with pytest.raises(SavecraftError, match="PWMAngband savefile stores no level map"):
        mapview.level_map(savecraft.load(PWM))


def test_a_3x_era_level_needs_the_games_terrain_list(tmp_path: Path) -> None:
    save = savecraft.load(PONY)
    with pytest.raises(SavecraftError, match="--gamedata"):
        mapview.level_map(save)
    # The 3.x data files' form ("N:index:name", "G:glyph:colour"), with every index the level uses.
    feats = set(_block(save, "dungeon").feat[1::2])
    (tmp_path / "terrain.txt").write_text("".join(f"N:{f}:feature {f}\nG:{'#' if f else '.'}:w\n\n"
                                                  for f in sorted(feats)))
    level = mapview.level_map(save, data=mapview.GameData.read(tmp_path))
    dungeon = _block(save, "dungeon")
    assert (level.width, level.height) == (dungeon.width, dungeon.height)
    assert level.cells[dungeon.py][dungeon.px] == ("@", "w")
    with pytest.raises(SavecraftError, match="without --known"):
        mapview.level_map(save, known=True, data=mapview.GameData.read(tmp_path))


def test_render_map_as_a_user_runs_it(tmp_path: Path) -> None:
    from PIL import Image

    r = run("render-map", str(ADUIAL), "-o", "level.png", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    level = mapview.level_map(savecraft.load(ADUIAL))
    img = Image.open(tmp_path / "level.png")
    assert img.size == (level.width * mapview.CELL, level.height * mapview.CELL)
    r = run("render-map", str(LORENZ), "--known", "--text", "-o", "-")
    assert r.returncode == 0 and b"@" in r.stdout
    r = run("render-map", str(DEAD), "-o", str(tmp_path / "dead.png"))
    assert r.returncode == 2 and b"dead character" in r.stderr and not (tmp_path / "dead.png").exists()
    r = run("render-map", str(ADUIAL), "0", "-o", str(tmp_path / "x.png"))
    assert r.returncode == 2 and b"holds one level" in r.stderr
    r = run("render-map", str(PONY), "-o", str(tmp_path / "p.png"))
    assert r.returncode == 2 and b"--gamedata" in r.stderr


def test_render_map_of_a_game_still_needs_its_map(tmp_path: Path) -> None:
    from savecraft.formats.tirnanog.game.sample import build_sample_game

    game = tmp_path / "game.tng"
    game.write_bytes(build_sample_game())
    r = run("render-map", str(game), "-o", str(tmp_path / "m.png"))
    assert r.returncode == 2 and b"give the map" in r.stderr
    assert run("render-map", str(game), "0", "-o", str(tmp_path / "m.png")).returncode == 0
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "NO_COLOR": "1"}
    piped = subprocess.run([sys.executable, "-m", "savecraft", "render-map", "-", "0", "-o",
                            str(tmp_path / "piped.png")], input=game.read_bytes(), capture_output=True,
                           env=env, timeout=300)  # the game read from standard input once, not twice
    assert piped.returncode == 0, piped.stderr
    assert (tmp_path / "piped.png").read_bytes() == (tmp_path / "m.png").read_bytes()


def test_the_studio_lists_and_draws_the_level(tmp_path: Path) -> None:
    from aiohttp import ClientSession
    from aiohttp.test_utils import TestServer
    from PIL import Image

    from savecraft.studio.documents import Workspace
    from savecraft.studio.server import HEADER, make_app

    token = "test-token-0123456789"

    async def main() -> None:
        ws = Workspace()
        ws.open_path(ADUIAL)
        server = TestServer(make_app(ws, token), host="127.0.0.1")
        await server.start_server()
        try:
            async with ClientSession(headers={HEADER: token}) as s:
                async with s.get(server.make_url("/api/doc/d1/pictures"), timeout=60) as r:
                    pics = await r.json()
                assert [p["name"] for p in pics] == ["level", "level-known"]
                assert [layer["name"] for layer in pics[0]["layers"]] == list(mapview.LAYERS)
                async with s.get(server.make_url("/api/doc/d1/picture/level"),
                                 params={"layers": "0,3"}, timeout=60) as r:
                    assert r.status == 200
                    png = await r.read()
                img = Image.open(io.BytesIO(png))
                assert img.size == (pics[0]["width"], pics[0]["height"])
        finally:
            await server.close()

    asyncio.run(main())
