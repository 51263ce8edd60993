"""``savecraft extract`` for games: every asset with its real extension, sections as JSON, scripts as
text; and ``savecraft build DIR``, which reads such a folder back (after edits to its files).

Assets are read one at a time from the file (never all at once), with a
progress bar on a terminal (stderr) while a large game is written.
"""

from __future__ import annotations

import base64
import hashlib
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from ....errors import FormatError
from ....fileio import atomic_write, ensure_dir
from ....jsonmap import decoder, encoder
from ....parts import PART, load_part, read_part
from .assets import EXTRACTED, MediaAsset
from .bytecode import iter_scripts, script_to_bytes
from .header import Header
from .model import Game, GameEncoding
from .refs import resolve
from .sections import Section, section_name
from .sections.common import iter_assets
from .... import console
from . import render, tmx
from .maps import MapAsset
from .sections import MapsSection


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)[:80] or "unnamed"


def _section_label(s: Any, seen: dict[str, int]) -> str:
    """``06-atlases``: the section type as the spec numbers it, then its name.

    A type that appears more than once (translations, one per language) gets
    its language, or a running number, so every section has its own name.
    """
    label = f"{int(s.TYPE):02d}-{section_name(int(s.TYPE))}"
    language = getattr(s, "language", None)
    if isinstance(language, str) and language:
        label += f"-{_safe(language)}"
    n = seen.get(label, 0)
    seen[label] = n + 1
    return label if n == 0 else f"{label}-{n + 1}"


def _script_file(path: str) -> str:
    """``entries[0].asset.script`` -> ``entries-0-asset-script``."""
    return _safe(re.sub(r"\[(\d+)\]", r"-\1", path).replace(".", "-"))


HEADER_FILE = "header.json"
LAYOUT_FILE = "game-file.json"  # the section files in table order, how the file was stored, the views


def extract_game(game: Game, folder: Path) -> list[Path]:
    """Write the game's parts; :func:`rebuild_game` reads the folder back, byte for byte when unchanged.

    ``header.json`` holds the header's fields; ``game-file.json`` the section files in table
    order, how the section block was stored (compression, CRC, bytes after the assets) and a
    digest of each map picture; one JSON per section holds its fields, where each media asset
    names its file (``{"file": "06-atlases/0000-atlas.png", "offset": 805}``: the offset is
    where it stood, so an unchanged asset goes back there) and each script its ``.asm`` file.
    A bar on a terminal (:func:`savecraft.console.progress`) follows the asset bytes written.
    """
    with console.progress("extracting", sum(a.length for a in game.assets()), unit="bytes") as advance:
        return _write_parts(game, folder, advance)


def _write_parts(game: Game, folder: Path, advance: Callable[[int], None]) -> list[Path]:
    ensure_dir(folder)
    written: list[Path] = []
    p = folder / HEADER_FILE
    atomic_write(p, orjson.dumps(encoder(type(game.header))(game.header), option=orjson.OPT_INDENT_2))
    written.append(p)
    game.__json_prepare__()  # the section block's compression as a level where one reproduces it
    enc = encoder(Section)
    seen: dict[str, int] = {}
    section_files: list[str] = []
    views: dict[str, str] = {}
    for s in game.sections:
        base = _section_label(s, seen)
        sub = folder / base
        files: dict[int, str] = {}  # what this section's JSON names instead of holding it
        for k, a in enumerate(iter_assets(s)):
            if isinstance(a, MediaAsset) and id(a) not in files:
                # content(): an asset not yet read is read without being kept in the model
                data = a.content() if a.length or a.loaded else b""
                if data:
                    ensure_dir(sub)
                    ap = sub / f"{k:04d}-{_safe(_asset_label(game, s, k))}{a.EXTENSION}"
                    atomic_write(ap, data)
                    written.append(ap)
                    files[id(a)] = ap.relative_to(folder).as_posix()
            advance(a.length)
        for path, sc in iter_scripts(s):
            if sc.empty or id(sc) in files:
                continue
            ensure_dir(sub)
            sp = sub / f"{_script_file(path)}.asm"
            if sc.code is None:
                atomic_write(sp, sc.text.encode("utf-8"))
                files[id(sc)] = sp.relative_to(folder).as_posix()
            else:  # kept as bytecode in the JSON: this file only shows it
                atomic_write(sp, (f"; bytecode that does not disassemble, kept as it is in {base}.json "
                                  f"(edits here are not read back)\n; {sc.code!r}\n").encode())
            written.append(sp)
        token = EXTRACTED.set(files)
        try:
            doc = enc(s)
        finally:
            EXTRACTED.reset(token)
        try:
            refs = resolve(game, s, "")
        except FormatError:
            refs = {}
        p = folder / f"{base}.json"
        atomic_write(p, orjson.dumps({"section": doc, "references": refs},
                                     option=orjson.OPT_INDENT_2 | orjson.OPT_SERIALIZE_NUMPY))
        written.append(p)
        section_files.append(p.name)
        for view, digest in _maps(game, s, sub):
            views[view.relative_to(folder).as_posix()] = digest
            written.append(view)
    p = folder / LAYOUT_FILE
    atomic_write(p, orjson.dumps({"sections": section_files,
                                  "encoding": encoder(GameEncoding)(game.encoding),
                                  "views": views}, option=orjson.OPT_INDENT_2))
    written.append(p)
    return written


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def rebuild_game(folder: Path) -> Game:
    """The game an :func:`extract_game` folder describes, with whatever was edited in its files.

    Section JSON files are read with the one strict JSON mapping; a media asset's value is its
    file's bytes, a script's text its ``.asm`` file, and a ``.tmx`` that was changed (in Tiled)
    gives its map's tiles, NPCs, spawners and patrol paths. The ``references`` of a section file
    and the map pictures are views for people: an edited picture is refused rather than
    silently left out.
    """
    layout = _read_json(folder, LAYOUT_FILE)
    if not isinstance(layout, dict) or set(layout) != {"sections", "encoding", "views"}:
        raise FormatError(None, LAYOUT_FILE, "an object with sections, encoding and views "
                          "(written by this savecraft's extract)", _shown(layout))
    names, views = layout["sections"], layout["views"]
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise FormatError(None, f"{LAYOUT_FILE}: sections", "the list of the section files in table order",
                          _shown(names))
    if not isinstance(views, dict) or not all(isinstance(v, str) for v in views.values()):
        raise FormatError(None, f"{LAYOUT_FILE}: views", "an object of file names and SHA-256 digests",
                          _shown(views))
    edited_maps: list[tuple[str, bytes]] = []
    for name, digest in views.items():
        path = folder / _member(name, f"{LAYOUT_FILE}: views")
        data = path.read_bytes() if path.is_file() else None
        if data is None or _digest(data) == digest:
            continue
        if name.endswith(".tmx"):
            edited_maps.append((name, data))
            continue
        raise FormatError(None, name, "the picture as extracted: map pictures are views (edit the map's "
                          ".tmx in Tiled, or its layers in the maps section's JSON)", "an edited file")
    header = decoder(Header)(_read_json(folder, HEADER_FILE), f"{HEADER_FILE}: header")
    encoding = decoder(GameEncoding)(layout["encoding"], f"{LAYOUT_FILE}: encoding")
    sections: list[Section] = []
    section_dec = decoder(Section)
    for name in names:
        doc = _read_json(folder, _member(name, f"{LAYOUT_FILE}: sections"))
        if not isinstance(doc, dict) or "section" not in doc or not set(doc) <= {"section", "references"}:
            raise FormatError(None, name, "an object with the section (and its references)", _shown(doc))
        body = _read_parts(folder, doc["section"], name, "section")
        sections.append(section_dec(body, f"{name}: section"))
    game = Game(header, sections, encoding)
    for name, data in edited_maps:
        _read_tmx(game, names, name, data)
    _assemble_scripts(game, folder, [Path(n).stem for n in names])
    return game


def _read_tmx(game: Game, names: list[str], name: str, data: bytes) -> None:
    """An edited ``35-maps/KKKK-label.tmx``: its tiles, NPCs, spawners and patrol paths into map KKKK."""
    where = Path(name)
    number = where.name[:4]
    section_file = f"{where.parent.as_posix()}.json"
    if not number.isdigit() or section_file not in names:
        raise FormatError(None, name, "a map file named as extracted (SECTION/KKKK-name.tmx)", repr(name))
    section = game.sections[names.index(section_file)]
    k = int(number)
    if not isinstance(section, MapsSection) or k >= len(section.maps):
        raise FormatError(None, name, f"a map of {section_file}", f"map {k}")
    value = section.maps[k].asset.value
    if not isinstance(value, MapAsset):
        raise FormatError(None, name, "a decoded map", type(value).__name__)
    tmx.apply_tmx(value, data, game.header.tile_width, game.header.tile_height, name=name)


def _assemble_scripts(game: Game, folder: Path, stems: list[str]) -> None:
    """Assemble every script once here, so that a mistake in one is reported by its ``.asm`` file
    and line (the build would name only the script's place in the model)."""
    names = game.script_names()
    for s, stem in zip(game.sections, stems):
        for path, sc in iter_scripts(s):
            if sc.code is not None or not sc.text:
                continue
            try:
                script_to_bytes(sc, names)
            except FormatError as err:
                asm = f"{stem}/{_script_file(path)}.asm"
                where = asm if (folder / asm).is_file() else f"{stem}.json: section.{path}"
                raise FormatError(None, f"{where}: {err.path}" if err.path else where, err.expected,
                                  err.found) from None


def _read_parts(folder: Path, obj: Any, file: str, path: str) -> Any:
    """The section's JSON with the files it names read in: a media asset's bytes, a script's text."""
    if isinstance(obj, list):
        return [_read_parts(folder, x, file, f"{path}[{i}]") for i, x in enumerate(obj)]
    if not isinstance(obj, dict):
        return obj
    if set(obj) == {"asm"}:
        where = f"{file}: {path}.asm"
        data = _read(folder, _member(obj["asm"], where), where)
        try:
            return data.decode("utf-8").replace("\r\n", "\n")
        except UnicodeDecodeError as exc:
            raise FormatError(exc.start, str(obj["asm"]), "assembly text in UTF-8", "other bytes") from None
    out = {k: _read_parts(folder, v, file, f"{path}.{k}") for k, v in obj.items()}
    if "file" in obj and "value" not in obj:  # a media asset written as a file of its own
        where = f"{file}: {path}.file"
        out["value"] = base64.b64encode(_read(folder, _member(out.pop("file"), where), where)).decode("ascii")
    return out


def _member(name: Any, where: str) -> str:
    """A file the folder's JSON names: a relative path inside the folder, nothing else."""
    if not isinstance(name, str) or not name:
        raise FormatError(None, where, "the name of a file in the extract folder", _shown(name))
    rel = Path(name)
    if rel.is_absolute() or ".." in rel.parts:
        raise FormatError(None, where, "a file inside the extract folder", repr(name))
    return name


def _read(folder: Path, name: str, where: str) -> bytes:
    return read_part(folder / name, name, f"{PART} (named by {where})")


def _read_json(folder: Path, name: str) -> Any:
    return load_part(folder / name, name)


def _shown(v: Any) -> str:
    text = repr(v)
    return text if len(text) <= 60 else text[:57] + "..."


def _asset_label(game: Game, s: Any, k: int) -> str:
    for attr in ("entries", "speech"):
        items = getattr(s, attr, None)
        if isinstance(items, list) and k < len(items) + (1 if attr == "speech" else 0):
            idx = k - 1 if attr == "speech" else k
            if 0 <= idx < len(items):
                name = getattr(items[idx], "name", 0)
                got = game.string(name) if isinstance(name, int) and name else None
                if got:
                    return got
    return {6: "atlas", 5: "movie", 3: "music"}.get(int(s.TYPE), "asset")  # atlases have no names


def _maps(game: Game, s: Any, sub: Path) -> list[tuple[Path, str]]:
    """Each map as a PNG picture and a Tiled .tmx with its tileset: the files written, each with
    the digest of its bytes (taken here, not by reading the file back)."""
    if not isinstance(s, MapsSection):
        return []
    out: list[tuple[Path, str]] = []
    h = game.header
    tiles = render.game_tiles(game)
    for k, e in enumerate(s.maps):
        name = f"{k:04d}-{_safe(game.string(e.name) or f'map{k}')}"
        ensure_dir(sub)
        try:
            _, m = render.game_map(game, k)
            # A big map is drawn smaller rather than not at all (the picture is capped).
            scale = render.fit_scale(m.size, h.tile_width, h.tile_height, h.game_type)
            if scale < 1:
                sys.stderr.write(f"map {k}: drawn at scale {scale:.3f} to stay within "
                                 f"{render.MAX_PIXELS >> 20} megapixels\n")
            picture = render.render_map(m, tiles, h.tile_width, h.tile_height, h.game_type,
                                        scale=scale)
            _view(out, sub / f"{name}.png", render.to_png(picture))
            export = tmx.to_tmx(m, tiles, h.tile_width, h.tile_height, h.game_type,
                                tileset_name=f"{name}-tileset.png", title=game.string(e.name) or "")
            _view(out, sub / f"{name}.tmx", export.tmx.encode("utf-8"))
            _view(out, sub / f"{name}-tileset.png", export.tileset_png)
        except FormatError as err:
            sys.stderr.write(f"map {k}: not drawn: {err}\n")
    return out


def _view(out: list[tuple[Path, str]], path: Path, data: bytes) -> None:
    atomic_write(path, data)
    out.append((path, _digest(data)))
