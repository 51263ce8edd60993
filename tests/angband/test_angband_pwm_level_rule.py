"""PWMAngband's level rule and its dungeon's common ``depth`` path, on real player files.

PWMAngband's ``adjust_level`` (src/server/player.c, the same from 7e62df8 to 1941cee) raises
the highest level (``max_lev``) only when the level passes it, and ``rd_player`` raises it to
the level; nothing raises it from the maximum experience (Vanilla 4.2's ``adjust_level``
does). The player's depth is ``p->wpos.depth``, which the dungeon block stores
(``rd_player_dungeon``): ``dungeon.depth`` is the common path to it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from savecraft.errors import Report
from savecraft.formats.angband import block
from tests.samples import SAMPLES, real_samples

PWM12 = SAMPLES / "angband-block-more" / "pwmangband_1.2.0b2_Brainiac.pwmg"
BUILT = next(p / "data" / "angband-built" for p in Path(__file__).resolve().parents
             if (p / "data" / "angband-built").is_dir())
SAVETEST = BUILT / "pwmangband-1.6.2" / "Savetest"
real = real_samples


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "savecraft", *args], capture_output=True, text=True,
                          timeout=120)


def _player(path: Path) -> tuple[int, int, int, int]:
    p = block.parse(path.read_bytes(), Report(strict=True)).player
    assert p is not None
    return p.lev, p.max_lev, p.exp, p.max_exp


@real
def test_a_higher_maximum_experience_leaves_the_highest_level_as_the_game_does(tmp_path: Path) -> None:
    # The game's description line: "Builder, L36 Dwarf Telepath, at DL68"; the file keeps
    # max_lev 37 (a level lost to drained experience, once).
    assert _player(PWM12) == (36, 37, 769208, 769208)
    out = tmp_path / "Brainiac"
    done = _run("edit", str(PWM12), "--set", "player.max_exp=5000000", "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert _player(out) == (36, 37, 769208, 5000000)  # not 48 (Vanilla's rule)
    diff = _run("diff", str(PWM12), str(out))
    assert [line.split(":")[0].strip() for line in diff.stdout.splitlines()] == ["player.max_exp"]


@real
def test_experience_that_passes_the_highest_level_raises_it(tmp_path: Path) -> None:
    out = tmp_path / "Brainiac"
    # 40 needs player_exp[38] = 1,000,000 times the Dwarf Telepath's expfact (see the file).
    p = block.parse(PWM12.read_bytes(), Report(strict=True)).player
    assert p is not None
    need = 1000000 * getattr(p, "expfact") // 100
    done = _run("edit", str(PWM12), "--set", f"player.exp={need}", "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert _player(out) == (40, 40, need, need)


@real
def test_the_dungeon_answers_depth_where_the_game_keeps_it(tmp_path: Path) -> None:
    save = block.parse(PWM12.read_bytes(), Report(strict=True))
    assert save.dungeon is not None and save.dungeon.depth == 68  # "at DL68"
    out = tmp_path / "Brainiac"
    done = _run("edit", str(PWM12), "--set", "dungeon.depth=5", "-o", str(out))
    assert done.returncode == 0, done.stderr
    diff = _run("diff", str(PWM12), str(out))
    assert "dungeon.level.wpos_depth: 68 -> 5" in diff.stdout
    assert len(diff.stdout.strip().splitlines()) == 1
    a, b = PWM12.read_bytes(), out.read_bytes()
    assert len(a) == len(b) and sum(x != y for x, y in zip(a, b)) <= 6  # the value, the block sum


def test_a_character_in_the_town_is_at_depth_0() -> None:
    """The 1.6.2 character walked five steps in the starting town (Hobbiton)."""
    save = block.parse(SAVETEST.read_bytes(), Report(strict=True))
    assert save.dungeon is not None and save.dungeon.depth == 0
    doc = json.loads(_run("info", "--json", str(SAVETEST)).stdout)
    assert doc["depth"] == 0
