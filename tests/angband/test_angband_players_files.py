"""Real files the games wrote and load: no false alarm, and ``info`` says what each holds.

Every file here is in /work/shared/samples (its README says which game wrote it and where it
comes from); the tests run the installed ``savecraft`` command on them, as a user would.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest

from savecraft import api, jsonmap
from savecraft.formats.angband import block
from tests.samples import SAMPLES, real_samples
from .support import run_savecraft as _run, info_json as _info

MORE = SAMPLES / "angband-block-more"
DEAD = MORE / "angband_4.2.1_Maxwell-ada4e7b-dead.sav"
VARIS = MORE / "angband_4.0.2_Varis-2a7034d.sav"
SERVER = MORE / "pwmangband_1.3.0b1_server.pwmg"
PLAYERS = MORE / "pwmangband_1.6.0_players.pwmg"
SIL = MORE / "sil_1.3.0_Vexxious.sav"
real = real_samples


GOOD = sorted(p for p in SAMPLES.glob("angband-block*/*")
              if "truncated" not in p.name and not p.name.startswith("sil_"))


@real
@pytest.mark.parametrize("path", GOOD, ids=lambda p: p.name)
def test_every_real_block_file_validates(path: Path) -> None:
    out = _run("validate", str(path))
    assert out.returncode == 0, out.stdout + out.stderr
    assert "error" not in out.stdout


@real
def test_dead_character_validates_and_shows_what_killed_it() -> None:
    doc = _info(DEAD)
    assert (doc["name"], doc["race"], doc["class"], doc["level"]) == ("Zaechus I", "High-Elf", "Ranger", 2)
    assert doc["hit_points"] == {"current": -1, "max": 18}  # as the game stores a dead character
    assert (doc["state"], doc["dead"]) == ("dead", "a grey mold")
    assert doc["character"] == "Zaechus I, dead (a grey mold)"


@real
def test_vanilla40_race_and_class_from_their_indexes() -> None:
    doc = _info(VARIS)
    assert (doc["race"], doc["class"], doc["state"]) == ("Human", "Ranger", "alive")


@real
def test_pwmangband_server_file_summary() -> None:
    doc = _info(SERVER)
    assert doc["pwmangband_file"] == "server"
    assert doc["players"] == ["PowerWyrm", "DarkGod", "Archy"] and doc["player_count"] == 3
    assert (doc["house_count"], doc["houses_owned"], doc["arena_count"]) == (285, 1, 0)
    assert doc["wilderness_radius"] == 43 and doc["parties"] == []
    assert doc["not_decoded"] == [] and doc["game"] == "PWMAngband server"
    assert api.validate(SERVER.read_bytes()).problems == []


@real
def test_pwmangband_players_file_summary() -> None:
    doc = _info(PLAYERS)  # 1.6: the current player id comes before the names
    assert (doc["pwmangband_file"], doc["player_id"], doc["players"]) == \
        ("players", 7, ["Ganja", "Sebastian II"])


@real
def test_sil_is_recognised_and_refused_as_sil() -> None:
    out = _run("validate", str(SIL))
    assert out.returncode == 1
    assert "a Sil savefile (version 1.3.0;" in out.stdout + out.stderr
    info = _run("info", "--json", str(SIL))
    assert json.loads(info.stdout)["game"] == "Sil" and info.returncode == 1
    legacy = _run("info", "--json", str(SAMPLES / "angband-legacy" / "minimal_PLAYER.sav"))
    assert json.loads(legacy.stdout)["game"] == "Angband"


def _with_description(data: bytes, line: bytes) -> bytes:
    """``data`` with its description block's text replaced by ``line`` (header recomputed by hand:
    these bytes are laid out here, not by savecraft's writer)."""
    size = int.from_bytes(data[28:32], "little")
    end = 36 + size + (-size % 4)
    body = line + b"\0"
    head = b"description".ljust(16, b"\0") + struct.pack("<III", 1, len(body), sum(body))
    return data[:8] + head + body + b"x" * (-len(body) % 4) + data[end:]


@real
def test_description_in_the_games_8bit_text_round_trips() -> None:
    """One Latin-1 byte (an older game's 'é') is the game's text, not a problem: it is shown
    decoded, dumps and builds back to the same bytes, and validates."""
    data = _with_description(VARIS.read_bytes(), b"Var\xe9s, L50 Human Ranger, at DL98")
    result = api.validate(data)
    assert result.ok and result.problems == []
    save = api.parse(data)
    assert save.description.line == "Varés, L50 Human Ranger, at DL98"
    assert save.description.encoding == "latin-1"
    assert api.build(save) == data
    assert api.build(jsonmap.loads(jsonmap.dumps(save))) == data  # dump, then build
    utf8 = _with_description(VARIS.read_bytes(), "Varés, L50 Human Ranger, at DL98".encode())
    assert api.parse(utf8).description.encoding == "utf-8" and api.build(api.parse(utf8)) == utf8


@real
@pytest.mark.parametrize("path, name, offset", [
    (MORE / "angband_4.0.2_Aralorn-Copy-truncated131072.sav", "Aralorn", "0x0001F4C0"),
    (SAMPLES / "angband-truncated" / "vanilla-4.0.1_half-written.sav", "Alkis", "0x00000F6C")])
def test_truncated_real_files_show_what_is_readable_then_the_damage(path: Path, name: str,
                                                                   offset: str) -> None:
    out = _run("info", "--json", str(path))
    assert out.returncode == 1 and f"offset {offset}:" in out.stderr
    doc = json.loads(out.stdout)
    assert doc["name"] == name and doc["game"] == "Vanilla 4.0"
    assert all(b["decoded"] for b in doc["blocks"])  # every block before the cut
    assert len(out.stderr.strip().splitlines()) == 1  # one line, no traceback


@real
def test_info_says_which_game_a_vnla_file_was_read_as_and_why() -> None:
    doc = _info(SAMPLES / "angband-block-variants" / "vanilla-4.2_Aduial.sav")
    assert doc["game"] == "Vanilla 4.2"
    assert doc["game_reason"].startswith("its player block reads exactly with the Vanilla 4.2 layout; "
                                         "read as Vanilla 4.2.1-4.2.6")
    assert "FAangband 2" in doc["variant_name"]  # VNLA is not Vanilla's alone
    cut = _run("info", "--json", str(SAMPLES / "angband-truncated" / "vanilla-4.0.1_half-written.sav"))
    assert json.loads(cut.stdout)["game_reason"].startswith("the file has no player block, and "
                                                            "Vanilla 4.0's layouts read 6 of the 6")
