"""``disasm``, ``asm`` and ``render-map``: TirNanoG scripts and maps from the command line.

``disasm`` reads raw bytecode (as ``extract`` writes it, or any file) and
prints assembly text; ``asm`` turns that text back into bytecode. With
``--game``, string, sound, map and sprite numbers are shown as (and read
from) the names in that game. ``render-map`` draws a map of a game as PNG,
and with ``--tmx`` also writes it as a Tiled map with its tileset.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..cli import EXIT_OK, UsageError
from ..errors import FormatError
from . import output
from .argtypes import whole
from .files import load_file, read_file
from ..errors import SavecraftError
from .tng import require_game
from ..lazy import lazy_module

if TYPE_CHECKING:
    from ..formats.angband import mapview, sniffing
    from ..formats.tirnanog.game import render, script, tmx
else:  # imported on first use (savecraft.lazy): --help imports this module for its parsers only
    script = lazy_module("savecraft.formats.tirnanog.game.script")
    mapview = lazy_module("savecraft.formats.angband.mapview")
    sniffing = lazy_module("savecraft.formats.angband.sniffing")
    render = lazy_module("savecraft.formats.tirnanog.game.render")
    tmx = lazy_module("savecraft.formats.tirnanog.game.tmx")


def _names(game_path: str | None, command: str) -> Any:
    if game_path is None:
        return None

    game = _load_game(game_path, f"{command} --game")
    names = getattr(game, "script_names", None)
    result = names() if callable(names) else None
    return result if isinstance(result, script.ScriptNames) else None


def _load_game(path: str, command: str, data: Any = None) -> Any:
    """The game model of ``path`` (whose bytes a caller may have read already), read once; a
    usage error when it is not a TirNanoG game."""
    if data is None:
        data = read_file(path, mapped=True)
    require_game(data, path, command)
    return load_file(path, data=data)[1]


def _write(args: argparse.Namespace, data: bytes) -> None:
    output.write(args, args.output or "-", data)


def cmd_disasm(args: argparse.Namespace) -> int:
    code = read_file(args.file)
    if args.offset is not None or args.length is not None:
        start = args.offset or 0
        end = len(code) if args.length is None else start + args.length
        if start < 0 or end > len(code) or end < start:
            raise UsageError(f"{args.file}: bytes {start} to {end} are not inside its "
                             f"{len(code)} bytes")
        code = code[start:end]
        base = start
    else:
        base = 0
    text = script.disassemble(code, _names(args.game, "disasm"), offset=base)
    _write(args, text.encode("utf-8"))
    return EXIT_OK


def cmd_asm(args: argparse.Namespace) -> int:
    raw = read_file(args.input)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FormatError(exc.start, "", "UTF-8 assembly text", f"byte 0x{raw[exc.start]:02X}") \
            from None
    code = script.assemble(text, _names(args.game, "asm"))
    if args.output in (None, "-") and sys.stdout.isatty():
        raise UsageError("bytecode is binary: give -o FILE (or pipe it)")
    _write(args, code)
    return EXIT_OK


def _layers(spec: str | None) -> list[int] | None:
    if spec is None:
        return None
    try:
        return [int(x) for x in spec.split(",") if x.strip()]
    except ValueError:
        raise UsageError(f"--layers: expected numbers separated by commas, found {spec!r}") \
            from None


def _scale(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 < value <= 16:
        raise argparse.ArgumentTypeError(f"must be more than 0 and at most 16, not {text}")
    return value


def _angband_map(args: argparse.Namespace, data: Any) -> int:
    """``render-map`` of an Angband savefile: its current level, as the game draws it."""
    if args.map is not None or args.layers or args.tmx:
        raise UsageError(f"{args.file}: an Angband savefile holds one level: render-map takes no "
                         "MAP, --layers or --tmx for it (see --known, --gamedata, --text)")
    save = load_file(args.file, data=data)[1]
    gamedata = mapview.GameData.read(args.gamedata) if args.gamedata else None
    try:
        level = mapview.level_map(save, known=args.known, data=gamedata)
    except SavecraftError as err:
        raise UsageError(f"{args.file}: {err}") from None
    if args.text:
        output.write(args, args.output, (level.text() + "\n").encode("utf-8"))
    else:
        output.write(args, args.output, mapview.to_png(level, max(4, min(64, round(12 * args.scale)))))
    return EXIT_OK


def cmd_render_map(args: argparse.Namespace) -> int:
    data = read_file(args.file, mapped=True)
    if sniffing.is_block(data):
        return _angband_map(args, data)
    if args.map is None:
        raise UsageError(f"{args.file}: give the map to draw (its number in section 35, or its name)")
    game = _load_game(args.file, "render-map", data)
    index, m = render.game_map(game, args.map)
    tiles = render.game_tiles(game)
    h = game.header
    picture = render.render_map(m, tiles, h.tile_width, h.tile_height, h.game_type,
                                _layers(args.layers), args.scale)
    output.write(args, args.output, render.to_png(picture))
    if args.tmx:
        if args.tmx == "-":
            raise UsageError("--tmx writes two files (the map and its tileset): give it a file name")
        dest = Path(args.tmx)
        sheet = dest.with_suffix(".tileset.png")
        title = game.string(game.maps.maps[index].name) or ""
        out = tmx.to_tmx(m, tiles, h.tile_width, h.tile_height, h.game_type,
                         tileset_name=sheet.name, title=title)
        output.write(args, str(sheet), out.tileset_png)
        output.write(args, args.tmx, out.tmx.encode("utf-8"))
    return EXIT_OK


def register(sub: Any) -> None:
    p = sub.add_parser("disasm", help="TirNanoG script bytecode as assembly text")
    p.add_argument("file", help="a bytecode file ('-' for stdin)")
    output.add_output(p, help="write here instead of standard output ('-', the default)")
    p.add_argument("--game", metavar="GAME.tng",
                   help="show names from this game's strings (default: none, numbers are shown)")
    p.add_argument("--offset", type=whole(0), help="start of the script in the file "
                   "(decimal or hex: 0x100; default: 0)")
    p.add_argument("--length", type=whole(0), help="size of the script in bytes (decimal or hex; "
                   "default: to the end of the file)")
    p.set_defaults(func=cmd_disasm)

    p = sub.add_parser("asm", help="TirNanoG assembly text back to bytecode")
    p.add_argument("input", metavar="IN.asm", help="assembly text ('-' for stdin)")
    output.add_output(p, metavar="OUT.bin",
                      help="the bytecode file ('-' for standard output, the default when piped)")
    p.add_argument("--game", metavar="GAME.tng",
                   help="read names from this game's strings (default: none, only numbers are read)")
    p.set_defaults(func=cmd_asm)

    p = sub.add_parser("render-map", help="a map of a TirNanoG game, or the dungeon level of an "
                       "Angband savefile, as PNG (or Tiled .tmx, or text)")
    p.add_argument("file", metavar="FILE", help="a TirNanoG game (.tng) or an Angband savefile")
    p.add_argument("map", metavar="MAP", nargs="?",
                   help="a game's map: its number in section 35, or its name (an Angband savefile "
                   "holds one level: none)")
    output.add_output(p, required=True, metavar="MAP.png",
                      help="the picture to write ('-' for standard output)")
    p.add_argument("--layers", help="layers to draw, e.g. 0,1,2 (default: every tile layer)")
    p.add_argument("--scale", type=_scale, default=1.0,
                   help="draw tiles this much bigger or smaller, more than 0 and at most 16 "
                   "(e.g. 0.25 for a big map; default: 1)")
    p.add_argument("--tmx", metavar="MAP.tmx",
                   help="also write a Tiled map and its tileset (default: the picture only)")
    p.add_argument("--known", action="store_true",
                   help="Angband: the level as the character knows it, as the game's map shows it "
                   "(default: the level as stored, every square, object and monster)")
    p.add_argument("--gamedata", metavar="DIR",
                   help="Angband: the game's lib/gamedata folder, for monsters' glyphs and colours "
                   "and any game's terrain (default: Vanilla 4.0-4.2's terrain, monsters as M)")
    p.add_argument("--text", action="store_true",
                   help="Angband: the level as text, a character a square (default: PNG)")
    p.set_defaults(func=cmd_render_map)
