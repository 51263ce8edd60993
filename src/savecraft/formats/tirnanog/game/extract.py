"""``savecraft extract`` for games: every asset with its real extension, sections as JSON, scripts as text.

Assets are read one at a time from the file (never all at once), with a
progress bar on stderr when the game is large.
"""

from __future__ import annotations

import re

import sys
from pathlib import Path
from typing import Any

import orjson

from ....errors import FormatError
from ....fileio import atomic_write, ensure_dir
from ....jsonmap import encoder
from .assets import MediaAsset
from .bytecode import iter_scripts
from .model import Game
from .refs import resolve
from .sections import Section, section_name
from .sections.common import iter_assets

PROGRESS_OVER = 64 << 20  # show progress for games bigger than this


class Progress:
    """A one-line progress bar on stderr (only when there is a lot to do)."""

    def __init__(self, total: int, enabled: bool) -> None:
        self.total = max(total, 1)
        self.done = 0
        self.enabled = enabled
        self._shown = -1

    def add(self, n: int) -> None:
        self.done += n
        if not self.enabled:
            return
        pct = self.done * 100 // self.total
        if pct != self._shown:
            self._shown = pct
            bar = "#" * (pct // 4)
            sys.stderr.write(f"\rextracting [{bar:<25}] {pct:3d}%")
            sys.stderr.flush()

    def finish(self) -> None:
        if self.enabled:
            sys.stderr.write("\n")
            sys.stderr.flush()


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


def extract_game(game: Game, folder: Path) -> list[Path]:
    ensure_dir(folder)
    written: list[Path] = []
    total = sum(a.length for a in game.assets())
    progress = Progress(total, total > PROGRESS_OVER)
    p = folder / "header.json"
    atomic_write(p, orjson.dumps(encoder(type(game.header))(game.header), option=orjson.OPT_INDENT_2))
    written.append(p)
    enc = encoder(Section)
    seen: dict[str, int] = {}
    for s in game.sections:
        base = _section_label(s, seen)
        sub = folder / base
        for k, a in enumerate(iter_assets(s)):
            if isinstance(a, MediaAsset):
                if a.length == 0 and not a.loaded:
                    continue
                data = a.value
                if not data:
                    continue
                ensure_dir(sub)
                label = _asset_label(game, s, k)
                ap = sub / f"{k:04d}-{_safe(label)}{a.EXTENSION}"
                atomic_write(ap, data)
                written.append(ap)
            progress.add(a.length)
        doc = enc(s)
        _strip_media(doc)
        try:
            refs = resolve(game, s, "")
        except FormatError:
            refs = {}
        p = folder / f"{base}.json"
        atomic_write(p, orjson.dumps({"section": doc, "references": refs},
                                     option=orjson.OPT_INDENT_2 | orjson.OPT_SERIALIZE_NUMPY))
        written.append(p)
        for path, sc in iter_scripts(s):
            if sc.empty:
                continue
            ensure_dir(sub)
            sp = sub / f"{_script_file(path)}.asm"
            atomic_write(sp, (sc.text or f"; bytecode that does not disassemble\n; {sc.code!r}\n").encode())
            written.append(sp)
        written += _maps(game, s, sub)
    progress.finish()
    return written


def _strip_media(doc: Any) -> None:
    """Media bytes are written as files; the JSON says where instead of holding base64."""
    if isinstance(doc, dict):
        for k, v in list(doc.items()):
            if k == "asset" and isinstance(v, dict) and "value" in v and isinstance(v["value"], str):
                v["value"] = f"({len(v['value']) * 3 // 4} bytes, written as a file)"
            else:
                _strip_media(v)
    elif isinstance(doc, list):
        for x in doc:
            _strip_media(x)


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


def _maps(game: Game, s: Any, sub: Path) -> list[Path]:
    """Each map as a PNG picture and a Tiled .tmx with its tileset."""
    from . import render, tmx
    from .sections import MapsSection
    if not isinstance(s, MapsSection):
        return []
    out: list[Path] = []
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
            p = sub / f"{name}.png"
            atomic_write(p, render.to_png(picture))
            out.append(p)
            export = tmx.to_tmx(m, tiles, h.tile_width, h.tile_height, h.game_type,
                                tileset_name=f"{name}-tileset.png", title=game.string(e.name) or "")
            p = sub / f"{name}.tmx"
            atomic_write(p, export.tmx.encode("utf-8"))
            out.append(p)
            p = sub / f"{name}-tileset.png"
            atomic_write(p, export.tileset_png)
            out.append(p)
        except FormatError as err:
            sys.stderr.write(f"map {k}: not drawn: {err}\n")
    return out
