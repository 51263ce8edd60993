"""``sections`` and ``refs``: a TirNanoG game's section table, and its references resolved.

``savecraft sections game.tng`` lists the table (type, name, offset and size
in the inflated section block, records). ``savecraft refs game.tng [SECTION]``
prints every string, text and sprite reference of the chosen sections (by
number in the table or by name, e.g. ``npc_types``) as a person reads it:
``npc_types.npcs[0].name: 412 'npc_guard'``.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

import orjson

from ..cli import EXIT_OK, UsageError
from .. import registry
from ..errors import FormatError
from .files import read_file
from ..lazy import lazy_module

# The game-file package costs more than the rest of --help, which imports this module.
if TYPE_CHECKING:
    import savecraft.formats.tirnanog.game.info as info

    from ..formats.tirnanog import game as _game
    from ..formats.tirnanog.game import header, maps, refs, sections
    from ..formats.tirnanog.game.sections import common
else:  # imported on first use (savecraft.lazy): start-up does not need them
    info = lazy_module("savecraft.formats.tirnanog.game.info")
    _game = lazy_module("savecraft.formats.tirnanog.game")
    header = lazy_module("savecraft.formats.tirnanog.game.header")
    maps = lazy_module("savecraft.formats.tirnanog.game.maps")
    refs = lazy_module("savecraft.formats.tirnanog.game.refs")
    sections = lazy_module("savecraft.formats.tirnanog.game.sections")
    common = lazy_module("savecraft.formats.tirnanog.game.sections.common")


def require_game(data: Any, path: str, command: str) -> None:
    """A usage error (exit 2) unless ``data`` is a TirNanoG game, saying what the file is instead."""
    if header.sniff(bytes(data[:16])):
        return
    try:
        fmt = registry.detect(data)
        what = f"is {'an' if fmt.name[0] in 'aeiou' else 'a'} {fmt.name} file ({fmt.description})"
    except FormatError:
        what = "is in no format savecraft knows"
    raise UsageError(f"{path} {what}, not a TirNanoG game: {command} reads game files (.tng)")


def _open(path: str, command: str) -> _game.Game:
    data = read_file(path, mapped=True)  # a usage error when it cannot be read
    require_game(data, path, command)
    return _game.open_game(data if path == "-" else path)


def _pick(game: _game.Game, which: list[str]) -> list[int]:
    if not which:
        return list(range(len(game.sections)))
    out = []
    for w in which:
        if w.isdigit():
            k = int(w)
            if not 0 <= k < len(game.sections):
                raise UsageError(f"section {k}: the game has {len(game.sections)} sections (0 to "
                                 f"{len(game.sections) - 1})")
            out.append(k)
            continue
        found = [k for k, s in enumerate(game.sections) if sections.section_name(int(s.TYPE)) == w]
        if not found:
            names = sorted({sections.section_name(int(s.TYPE)) for s in game.sections})
            raise UsageError(f"no {w!r} section (this game has: {', '.join(names)})")
        out += found
    return out


def cmd_sections(args: argparse.Namespace) -> int:
    with _open(args.file, "sections") as game:
        block = game.section_block or b""
        records = []
        for k, s in enumerate(game.sections):
            off = int.from_bytes(block[8 * k : 8 * k + 4], "little")
            size = int.from_bytes(block[8 * k + 4 : 8 * k + 7], "little")
            if args.json:  # info --json's section record, with where the section is
                records.append({"index": k, "offset": off, "size_bytes": size, **info._record(s)})
            else:
                print(f"{k:3d}  offset 0x{off:06X}  {size:8d} bytes  type {info._line(s)}")
    if args.json:
        sys.stdout.buffer.write(orjson.dumps({"file": args.file, "sections": records},
                                             option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE))
    return EXIT_OK


def ref_record(game: _game.Game, kind: str, path: str, value: Any) -> dict[str, Any]:
    """One reference as data (docs/info-json.md's rules): what it points at, in separate fields."""
    rec: dict[str, Any] = {"path": path, "kind": kind}
    if kind == "string":
        rec["offset"] = None if value == common.NOT_SET else value
        rec["string"] = game.string(value) if value not in (0, common.NOT_SET) else None
    elif kind == "text":
        rec["index"] = None if value == common.NOT_SET else value
        rec["texts"] = {} if value == common.NOT_SET else {tr.language: tr.text(value) for tr in game.translations}
    elif kind == "sprite":
        rec["category"] = sections.CATEGORY_NAMES.get(value.category, str(value.category))
        rec["index"] = None if value.index == refs.NO_SPRITE else value.index
    rec["description"] = refs.describe(game, kind, value)
    return rec


def cmd_refs(args: argparse.Namespace) -> int:
    with _open(args.file, "refs") as game:
        records: list[dict[str, Any]] = []
        for k in _pick(game, args.sections):
            s = game.sections[k]
            base = f"{sections.section_name(int(s.TYPE))}[{k}]" if args.numbered else sections.section_name(int(s.TYPE))

            def visit(kind: str, path: str, value: Any) -> None:
                records.append(ref_record(game, kind, path, value))

            common.walk_refs(s, base, visit, sprite_types=(common.SpriteRef, maps.SpriteRef))
        if args.json:
            doc = {"file": args.file, "references": records}
            sys.stdout.buffer.write(orjson.dumps(doc, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE))
        else:
            for rec in records:
                print(f"{rec['path']}: {rec['description']}")
    return EXIT_OK


def register(sub: Any) -> None:
    p = sub.add_parser("sections", help="the section table of a TirNanoG game")
    p.add_argument("file", metavar="GAME.tng")
    p.add_argument("--json", action="store_true", help="print the table as JSON records: index, offset, "
                   "size_bytes (in the inflated block), then info --json's section record (docs/info-json.md)")
    p.set_defaults(func=cmd_sections)

    p = sub.add_parser("refs", help="every reference in a TirNanoG game, resolved to names and texts")
    p.add_argument("file", metavar="GAME.tng")
    p.add_argument("sections", nargs="*", metavar="SECTION", help="a number in the table or a name (default: all)")
    p.add_argument("--json", action="store_true", help="print the references as JSON records: path, kind, "
                   "offset/index, the string or texts, description (docs/info-json.md)")
    p.add_argument("--numbered", action="store_true", help="prefix paths with the section's place in the table")
    p.set_defaults(func=cmd_refs)
