"""The sample game: opened lazily, rebuilt byte for byte, through JSON and back."""

from __future__ import annotations

import pytest

from savecraft import api, jsonmap
from savecraft.errors import FormatError, Report
from savecraft.formats.tirnanog.game import FORMAT, open_game
from savecraft.formats.tirnanog.game.sample import build_sample_game, sample_game
from savecraft.formats.tirnanog.game.sections import CODECS, RESERVED


@pytest.fixture(scope="module")
def data() -> bytes:
    return build_sample_game()


def test_every_section_type_is_present(data: bytes) -> None:
    game = open_game(data)
    types = {int(s.TYPE) for s in game.sections}
    assert set(CODECS) <= types
    assert any(t in RESERVED for t in types)
    assert len(game.translations) == 2


def test_unchanged_game_rebuilds_byte_for_byte(data: bytes) -> None:
    assert api.build(open_game(data)) == data
    game = api.load(data)
    for a in game.assets():  # decoding everything must not change a byte either
        a.value
    assert api.build(game) == data


def test_json_round_trip(data: bytes) -> None:
    game = api.load(data)
    text = jsonmap.dumps(game)
    again = jsonmap.loads(text)
    assert again == game
    assert api.build(again) == data


def test_model_equals_its_rebuilt_self(data: bytes) -> None:
    assert open_game(data) == sample_game()


def test_validate_is_clean(data: bytes) -> None:
    v = api.validate(data)
    assert v.ok, [str(p) for p in v.problems]
    assert v.format == "tirnanog-game"


def test_json_keeps_streams_no_level_reproduces_and_raw_bytecode(data: bytes) -> None:
    import zlib

    from savecraft.compression import Container, Deflated
    from savecraft.formats.tirnanog.game.bytecode import Script
    from savecraft.formats.tirnanog.game.sections import NpcTypesSection

    game = open_game(data)
    asset = game.require(NpcTypesSection).npcs[0].asset
    content = asset.content()
    c = zlib.compressobj(9, zlib.DEFLATED, 15, 1)  # memLevel 1: no standard level makes these bytes
    odd = c.compress(content) + c.flush()
    assert odd != zlib.compress(content)
    asset.value.handlers[1].script = Script(code=bytes([2, 0x40, 0, 0, 0]))  # does not disassemble
    content = asset.encode(asset.value, asset._ctx)
    c = zlib.compressobj(9, zlib.DEFLATED, 15, 1)
    odd = c.compress(content) + c.flush()
    asset.deflate = Deflated.from_stream(odd, content, Container.ZLIB)
    built = api.build(game)
    assert odd in built
    with pytest.raises(FormatError):  # strict: the bad script is the first problem
        jsonmap.dumps(api.load(built))
    text = jsonmap.dumps(FORMAT.parse(built, Report(strict=False)))  # validate mode keeps it as bytecode
    assert b'"bytecode"' in text and b'"original"' in text
    assert api.build(jsonmap.loads(text)) == built


def test_unknown_section_types_are_kept(data: bytes) -> None:
    from savecraft.formats.tirnanog.game.sections import OpaqueSection
    game = open_game(data)
    game.sections.insert(5, OpaqueSection(77, b"from a future editor"))
    built = api.build(game)
    v = api.validate(built)
    assert v.ok and any(p.severity == "warning" and "77" in p.found for p in v.problems)
    again = api.load(built)
    assert again.sections[5] == OpaqueSection(77, b"from a future editor")
    assert api.build(again) == built
    assert jsonmap.loads(jsonmap.dumps(again)) == again


def test_text_lookup_per_language(data: bytes) -> None:
    game = open_game(data)
    assert game.title == "Sample Quest"
    assert (game.text(3), game.text(3, "de"), game.text(3, "fr"), game.text(999)) == ("Guard", "Wache", None, None)
