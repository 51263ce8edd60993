"""TirNanoG game files (``.tng``): the ``tirnanog-game`` format.

:func:`open_game` is the lazy way in (header and section table only; assets
on first use, from an mmap when given a path). The registry's ``parse``
checks more up front: the whole-file CRC, and, in validate mode, every asset
and every reference.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ....errors import FormatError, Report
from ....registry import Format, register
from .assets import Asset, MediaAsset, Source
from .container import build_game, read_game
from .header import EncryptedGameError, GameType, Header, game_type_name, parse_header, sniff
from .model import Game
from .sections import SECTION_NAMES
from ....lazy import lazy_module
from .refs import describe
from .sections.common import SpriteRef
from .sections.s35_maps import LazyMap

if TYPE_CHECKING:
    from . import checks
    import savecraft.formats.tirnanog.game.info as _info
    from . import pictures
    from . import spanning
    from . import summary as _summary
else:  # imported on first use (savecraft.lazy): start-up does not need them
    checks = lazy_module("savecraft.formats.tirnanog.game.checks")
    _info = lazy_module("savecraft.formats.tirnanog.game.info")
    pictures = lazy_module("savecraft.formats.tirnanog.game.pictures")
    spanning = lazy_module("savecraft.formats.tirnanog.game.spanning")
    _summary = lazy_module("savecraft.formats.tirnanog.game.summary")


def open_game(source: str | os.PathLike[str] | bytes | bytearray | memoryview, *,
              report: Report | None = None, verify_crc: bool = False) -> Game:
    """Open a game lazily: reads the header and the section table, nothing else.

    A path is memory-mapped, so even a multi-gigabyte game opens at once;
    close it with ``game.close()`` (or use it as a context manager).
    """
    if isinstance(source, bytes | bytearray | memoryview):
        src = Source(bytes(source))
    else:
        try:
            src = Source.open(source)
        except OSError as exc:
            raise FormatError(None, str(source), "a readable file", exc.strerror or str(exc)) from None
    try:
        return read_game(src, report or Report(strict=True), verify_file_crc=verify_crc)
    except BaseException:
        src.close()
        raise


def parse(data: bytes, report: Report) -> Game:
    """The registry's parse: the whole-file CRC too (``api.validate`` then runs :func:`check`)."""
    return read_game(Source(data), report, verify_file_crc=True)


def build(game: Game) -> bytes:
    return build_game(game)


def check(game: Game, report: Report) -> None:
    """Every asset decodes, every reference points at something that exists."""
    for a in game.assets():
        if isinstance(a, MediaAsset | LazyMap):
            continue  # media are stored as they are (their magics are checked below); maps: check_maps
        try:
            a.value
        except FormatError as err:
            report.capture(err)
    checks.check_game(game, report)


def _span_adapter() -> Any:
    """The span-recording hook, imported only when spans are recorded (hexdump, the studio)."""
    return spanning.adapter()


def info(game: Game) -> dict[str, Any]:
    return _info.summary(game)


def extract(game: Game, folder: Path) -> list[Path]:
    from .extract import extract_game
    return extract_game(game, folder)


def rebuild(folder: Path) -> Game:
    from .extract import rebuild_game
    return rebuild_game(folder)

def _studio_summary(model: Any) -> dict[str, Any]:
    """The studio's overview of this file (imported only when the studio asks)."""
    return _summary.summary(model)


def _pictures() -> Any:
    """The studio's pictures of a game: maps, atlases, sprites, scripts (imported when asked)."""
    return pictures


def _references(model: Any) -> tuple[Any, tuple[type, ...]]:
    """How the studio names a reference of this game (a string offset by its string, a sprite
    by what uses it), and the record that is a reference as a whole (a sprite reference)."""
    def name(kind: str, value: Any) -> str | None:
        try:
            return describe(model, kind, value)
        except (FormatError, LookupError, TypeError, ValueError):
            return None
    return name, (SpriteRef,)


FORMAT = register(Format(
    name="tirnanog-game",
    description="TirNanoG game file",
    model=Game,
    sniff=sniff,
    parse=parse,
    build=build,
    info=info,
    extract=extract,
    rebuild=rebuild,
    check=check,
    suffixes=(".tng",),
    summary=_studio_summary,
    spans=_span_adapter,
    pictures=_pictures,
    references=_references,
))

__all__ = [
    "FORMAT",
    "SECTION_NAMES",
    "Asset",
    "EncryptedGameError",
    "Game",
    "GameType",
    "Header",
    "MediaAsset",
    "build",
    "build_game",
    "game_type_name",
    "open_game",
    "parse",
    "parse_header",
]
