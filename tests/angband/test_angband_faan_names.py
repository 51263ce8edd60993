"""Race and class by name for the games that store them as indexes: FAangband 1.2.0 to 1.4.5,
Ponyband, Anquestria. The names are the games' own (``N:index:name`` of lib/edit/p_race.txt and
p_class.txt), held by the player model of each game per game the file is read as; ``info``
shows them where the file has no description block naming them (1.2.0 to 1.3.3, Anquestria)
or one that does not (a dead character's).

Held against the game's own words: its character dump (``Race    : Hobbit``), the description
block it wrote for the same character alive (its menu line), and the character screens the
folders' READMEs quote.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from savecraft import api
from savecraft.formats.angband import sheet
from savecraft.formats.angband.layouts import anquestria, faangband13, faangband14, faangband_character, registered
from tests.samples import SAMPLES, real_samples
from .support import info_json as _info

BUILT = next(p / "data" / "angband-built" for p in Path(__file__).resolve().parents
             if (p / "data" / "angband-built").is_dir())

# (character dump, the files the game wrote for that character alive and dead)
DUMPED = [
    ("faangband-1.2.1/Luthien-dump.txt", "Luthien.sav", "Luthien-dead.sav"),
    ("faangband-1.3.3/Idril-dump.txt", "Idril.sav", "Idril-dead.sav"),
    ("faangband-1.4.5/Tuor-dump.txt", "Tuor.sav", "Tuor-dead.sav"),
]


def _dump_says(dump: Path) -> tuple[str, str]:
    """The race and class the game's character dump names (`` Race    : Hobbit   ...``)."""
    text = dump.read_text(encoding="latin-1")
    race = re.search(r"^ Race\s*: (\S+)", text, re.M)
    klass = re.search(r"^ Class\s*: (\S+)", text, re.M)
    assert race is not None and klass is not None
    return race.group(1), klass.group(1)


@pytest.mark.parametrize(("dump", "alive", "dead"), DUMPED, ids=[d for d, _, _ in DUMPED])
def test_info_names_the_race_and_class_the_games_dump_names(dump: str, alive: str, dead: str) -> None:
    race, klass = _dump_says(BUILT / dump)
    for name in (alive, dead):
        doc = _info((BUILT / dump).with_name(name))  # `savecraft info --json` in a subprocess
        assert (doc["race"], doc["class"]) == (race, klass), name
        assert "race_index" not in doc and "class_index" not in doc
        if "summary" in doc:  # no description block (1.2, 1.3): the line built from the blocks
            assert f" {race} {klass}," in doc["summary"]


def test_the_summary_line_of_a_file_without_description_names_them() -> None:
    # 1.3.3 writes no description block: the line is built from the decoded blocks.
    doc = _info(BUILT / "faangband-1.3.3" / "Idril-dead.sav")
    assert doc["summary"] == "Idril, L1 Hobbit Rogue, dead (Quitting)"


DESCRIBED = [pytest.param(BUILT / "faangband-1.4.5" / "Tuor.sav", id="Tuor.sav"),
             pytest.param(BUILT / "ponyband-59f6ca5" / "Mint.sav", id="Mint.sav"),
             *[pytest.param(SAMPLES / "angband-block" / n, id=n, marks=real_samples)
               for n in ("ponyband_Asira.sav", "ponyband_Clever_Sparkle.sav", "ponyband_PLAYER.sav")]]


@pytest.mark.parametrize("path", DESCRIBED)
def test_the_names_by_index_are_those_the_games_own_menu_line_gives(path: Path) -> None:
    """A living character's description block (the game's words) names its race and class:
    the model's names of the indexes the player block stores are the same, in every file of
    FAangband 1.4 and Ponyband that has one."""
    save = api.load(path)
    d, p = save.description, save.player
    assert d is not None and d.text is None and isinstance(p, faangband_character.Player)
    assert save.game is not None
    assert p.RACE_NAMES[save.game][p.prace] == d.race
    assert p.CLASS_NAMES[save.game][p.pclass] == d.character_class


def test_ponyband_dead_character_is_named_as_the_screen_showed_her() -> None:
    # "a new female Earth Pony Warrior named Mint" (the README); the dead file's menu line
    # names no race or class.
    doc = _info(BUILT / "ponyband-59f6ca5" / "Mint-dead.sav")
    assert (doc["name"], doc["race"], doc["class"], doc["state"]) == ("Mint", "Earth Pony", "Warrior", "dead")


def test_faangband_and_ponyband_have_their_own_lists() -> None:
    names = faangband_character.Player.RACE_NAMES
    # the same index 0: FAangband's Easterling, Ponyband's Earth Pony
    assert names["FAangband 1.4"][0] == names["FAangband 1.2.0-1.3.3"][0] == "Easterling"
    assert names["FAangband 1 (Ponyband)"][0] == "Earth Pony"
    assert faangband_character.Player.CLASS_NAMES["FAangband 1.4"][8] == "Assassin"
    assert len(faangband_character.Player.CLASS_NAMES["FAangband 1 (Ponyband)"]) == 7


@real_samples
def test_anquestria_sample_is_named_and_vanilla_3_keeps_its_own_names() -> None:
    doc = _info(SAMPLES / "angband-block-variants" / "anquestria-3.2_PLAYER.sav")
    assert (doc["race"], doc["class"]) == ("Alicorn or Griffon", "Paladin")
    # Vanilla 3.2's player model is a subclass of Anquestria's: its names stay Vanilla's
    doc = _info(BUILT / "vanilla-3.2.0" / "vanilla-3.2.0_Brin.sav")
    assert (doc["race"], doc["class"]) == ("High-Elf", "Mage")


def test_an_index_past_the_games_list_is_shown_as_stored() -> None:
    save = api.load(BUILT / "faangband-1.3.3" / "Idril.sav")
    p = save.player
    assert isinstance(p, faangband_character.Player)
    p.prace = len(faangband_character.FA_RACES)  # one past the last race
    got = sheet.character_sheet(save)
    assert (got["race"], got["class"], got["race_index"], got["class_index"]) == (None, "Rogue", 14, 3)
    line = sheet.summary_line(got)
    assert line is not None and "Rogue" in line


def test_every_game_named_by_the_models_is_a_game_files_are_read_as() -> None:
    assert faangband13.GAME and faangband14.GAME  # (registered when imported)
    for model in (faangband_character.Player, anquestria.Player):
        for game in (*model.RACE_NAMES, *model.CLASS_NAMES):
            assert registered(game), game
