"""Everything ``validate`` checks beyond the bytes: references, indices, limits, scripts, handlers.

Each problem is reported with the path of the field that holds it (and an
offset where there is one); nothing here raises on bad data, so one run
lists every problem of a game.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ....errors import FormatError, Report
from .maps import SpriteRef as MapSpriteRef
from .model import Game
from .refs import NO_SPRITE, script_names, sprite_count
from .sections import CATEGORY_NAMES, MapsSection, StringsSection
from .sections.common import NOT_SET, EventHandler, SpriteRef, iter_values, walk_refs
from .assets import MediaAsset
from .bytecode import iter_scripts
from .maps import NPC_LAYER, SPAWNER_LAYER
from .script import assemble, decode as instructions
from .sections import (AtlasesSection, CraftingSection, NpcTypesSection, ObjectsSection,
    SpawnersSection, TileMetaSection)
from .sections.common import iter_assets
from .sections.sprites import MAX_FRAMES, MAX_SIZE, Sprite


def check_game(game: Game, report: Report) -> None:
    """Every check below, in order.

    An asset that does not decode fails again in every check that looks at it;
    the report lists it once (:meth:`Report.add` drops a problem already listed).
    Maps are checked one at a time (:func:`check_maps`), all their checks while
    each is decoded.
    """
    checker = check_refs(game, report)
    check_maps(game, report, checker)
    check_indices(game, report)
    check_limits(game, report)
    check_handlers(game, report)


class _Checker:
    """Checks one reference at a time against what the game holds (counts computed once)."""

    def __init__(self, game: Game, report: Report) -> None:
        self.game = game
        self.report = report
        strings = game.section(StringsSection)
        self.starts = set(strings.ref_offsets()) if strings is not None else {0}
        self.size = strings.ref_size() if strings is not None else 0
        text_counts = []
        for tr in game.translations:
            try:
                text_counts.append(len(tr.texts.value.texts))
            except FormatError as err:
                report.capture(err)
        self.has_texts = bool(text_counts)
        self.ntexts = min(text_counts) if text_counts else 0
        self.counts: dict[int, int | None] = {}

    def visit(self, kind: str, p: str, v: Any) -> None:
        report = self.report
        if kind == "string":
            if v in (0, NOT_SET) or v in self.starts:
                return
            if v >= self.size:
                report.error(None, p, f"a string index inside section 0 ({self.size} bytes)", str(v))
            else:
                report.error(None, p, "a string index at the start of a string", f"{v} (inside one)")
        elif kind == "text":
            if v != NOT_SET and self.has_texts and v >= self.ntexts:
                report.error(None, p, f"a text index below {self.ntexts} (texts in every translation)", str(v))
        elif kind == "sprite":
            if v.index == NO_SPRITE or v.category == 0xFF or v.index >= 0xFFF0:
                return
            if v.category not in self.counts:
                self.counts[v.category] = sprite_count(self.game, v.category)
            n = self.counts[v.category]
            if n is None:
                report.error(None, p + ".category", "a sprite category from 0 to 4", str(v.category))
            elif v.index >= n:
                cat = CATEGORY_NAMES.get(v.category, "?")
                report.error(None, p + ".index", f"a {cat} sprite index below {n}", str(v.index))


def check_refs(game: Game, report: Report) -> _Checker:
    """Every string, text and sprite reference against what the game holds (but the maps':
    :func:`check_maps`)."""
    checker = _Checker(game, report)
    for i, s in enumerate(game.sections):
        if isinstance(s, MapsSection):
            continue
        try:
            walk_refs(s, f"sections[{i}]", checker.visit, sprite_types=(SpriteRef, MapSpriteRef))
        except FormatError as err:
            report.capture(err)
    check_scripts(game, report, checker)
    return checker


def check_maps(game: Game, report: Report, checker: _Checker | None = None) -> None:
    """Every map, one at a time: its references, its layers' indices, its neighbours.

    A map is decoded, checked and (when the check decoded it) let go before the next one:
    what a validate holds stays one map, whatever the game's size, and each map is walked
    while it is in the cache. Checking all maps in each of three passes (references,
    indices, limits) held every decoded map at once and cost more per map the more maps
    there were (1.2-1.5x per map at 1,000 maps of 64 x 64 x 11 tiles than at 100).
    """
    checker = checker or _Checker(game, report)
    npcs = game.section(NpcTypesSection)
    spawners = game.section(SpawnersSection)
    n_tiles = sprite_count(game, 1) or 0
    limits = {NPC_LAYER: (len(npcs.npcs) if npcs else 0, "NPC type"),
              SPAWNER_LAYER: (len(spawners.spawners) if spawners else 0, "spawner")}
    for i, s in enumerate(game.sections):
        if not isinstance(s, MapsSection):
            continue
        names = {e.name for e in s.maps}
        for k, e in enumerate(s.maps):
            was_loaded = e.asset.loaded
            try:
                value = e.asset.value
                walk_refs(e, f"sections[{i}].maps[{k}]", checker.visit, sprite_types=(SpriteRef, MapSpriteRef))
            except FormatError as err:
                report.capture(err)
                continue
            layers = value.layers
            if layers.shape[0] != game.header.map_layers or layers.shape[1] != game.header.map_size:
                report.error(None, f"maps[{k}].layers",
                             f"{game.header.map_layers} layers of {game.header.map_size} x "
                             f"{game.header.map_size} (the header)", "x".join(map(str, layers.shape)))
            for li in range(layers.shape[0]):
                used = layers[li][layers[li] != NO_SPRITE]
                if not used.size:
                    continue
                top = int(used.max())
                n, what = limits.get(li, (n_tiles, "tile sprite"))
                if top >= n:
                    report.error(None, f"maps[{k}].layers[{li}]", f"{what} indices below {n}", str(top))
            for j, nb in enumerate(value.neighbours):
                if nb not in (0, NOT_SET) and nb not in names:
                    shown = game.string(nb)
                    report.error(None, f"maps[{k}].asset.neighbours[{j}]", "the name of a map in section 35",
                                 f"{nb} ({shown!r})" if shown is not None else str(nb))
            if not was_loaded:
                e.asset.unload()


def check_scripts(game: Game, report: Report, checker: _Checker | None = None) -> None:
    """The references inside bytecode, and the commands it calls against header byte 43."""
    checker = checker or _Checker(game, report)
    names = script_names(game)  # reference offsets, as the model's other fields hold them
    highest = game.header.highest_command
    for i, s in enumerate(game.sections):
        if isinstance(s, MapsSection):
            continue  # a map holds no script (maps.py): walking every map's value is a pass for nothing
        try:
            scripts = list(iter_scripts(s, f"sections[{i}]"))
        except FormatError as err:
            report.capture(err)
            continue
        for path, sc in scripts:
            try:
                code = sc.code if sc.code is not None else assemble(sc.text, names)
                found = instructions(code, path=path)
            except FormatError as err:
                where = err.path if err.path.startswith(path) else f"{path}.{err.path}" if err.path else path
                report.error(err.offset, where, err.expected, err.found)
                continue
            for ins in found:
                kind = ins.op.operands[0] if ins.op.operands else ""
                where = f"{path}@{ins.offset}.{ins.op.mnemonic}"
                if kind in ("str", "map"):
                    checker.visit("string", where, ins.args[0])
                elif kind == "text":
                    checker.visit("text", where, ins.args[0])
                elif kind == "spr":
                    checker.visit("sprite", where, SpriteRef(ins.args[0], ins.args[1]))
                elif kind == "obj":
                    checker.visit("sprite", where, SpriteRef(1, ins.args[0]))
                elif kind == "cmd" and ins.args[0] > highest:
                    report.error(None, where, f"a command up to {highest} (header byte 43)", str(ins.args[0]))


def check_indices(game: Game, report: Report) -> None:
    """Indices that are not references by field kind: atlases in frames, objects, speech counts (map
    tiles: :func:`check_maps`)."""
    atlases = game.section(AtlasesSection)
    n_atlas = len(atlases.entries) if atlases is not None else 0
    n_tiles = sprite_count(game, 1) or 0
    for i, s in enumerate(game.sections):
        for k, sp in enumerate(getattr(s, "sprites", [])):
            if not isinstance(sp, Sprite):
                continue
            try:
                anims = sp.asset.value.animations
            except FormatError as err:
                report.capture(err)
                continue
            if len(anims) != sp.directions:
                report.error(None, f"sections[{i}].sprites[{k}].directions",
                             f"{len(anims)} (the animation records in its sprite map)", str(sp.directions))
            for a, anim in enumerate(anims):
                for f, fr in enumerate(anim.frames):
                    if fr.atlas >= n_atlas:
                        report.error(None, f"sections[{i}].sprites[{k}].asset.animations[{a}].frames[{f}].atlas",
                                     f"an atlas index below {n_atlas}", str(fr.atlas))
                    if fr.operation > 5:
                        report.error(None, f"sections[{i}].sprites[{k}].asset.animations[{a}].frames[{f}].operation",
                                     "an atlas operation from 0 to 5", str(fr.operation))
    # translations: the same number of speech descriptors in every language
    tr = game.translations
    if tr:
        counts = {t.language: len(t.speech) for t in tr}
        if len(set(counts.values())) > 1:
            report.error(None, "translations", "the same number of speech assets in every language", str(counts))
        if len(counts) != len(tr):
            report.error(None, "translations", "one translation per language", ", ".join(t.language for t in tr))
    # media assets start with their format's magic
    for asset in game.assets():
        if isinstance(asset, MediaAsset) and asset.MAGICS and (asset.length or asset.loaded):
            try:
                head = asset.head(8)
            except FormatError as err:
                report.capture(err)
                continue
            if head and not any(head.startswith(m) for m in asset.MAGICS):
                report.warning(asset.file_offset if asset.file_offset >= 0 else None, asset.path,
                               f"a {asset.WHAT} (starting with {asset.MAGICS[0]!r})", repr(head))
    # object sprite indices
    objs = game.section(ObjectsSection)
    for k, o in enumerate(objs.objects if objs is not None else []):
        if o.sprite >= n_tiles:
            report.error(None, f"objects[{k}].sprite", f"a tile sprite index below {n_tiles}", str(o.sprite))
    tm = game.section(TileMetaSection)
    for k, t in enumerate(tm.tiles if tm is not None else []):
        if t.sprite >= n_tiles:
            report.error(None, f"tile_meta[{k}].sprite", f"a tile sprite index below {n_tiles}", str(t.sprite))
    cr = game.section(CraftingSection)
    for k, e in enumerate(cr.entries if cr is not None else []):
        try:
            recipes = e.asset.value.recipes
        except FormatError as err:
            report.capture(err)
            continue
        for r_, rc in enumerate(recipes):
            for j, v in [(-1, rc.product)] + [(j, ing.object) for j, ing in enumerate(rc.ingredients)]:
                if v != NO_SPRITE and v >= n_tiles:
                    where = "product" if j < 0 else f"ingredients[{j}].object"
                    report.error(None, f"crafting[{k}].asset.recipes[{r_}].{where}",
                                 f"an object sprite index below {n_tiles}", str(v))


def png_size(head: bytes) -> tuple[int, int] | None:
    """Width and height from a PNG's IHDR (its first 24 bytes), or None."""
    if len(head) >= 24 and head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR":
        return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")
    return None


def check_limits(game: Game, report: Report) -> None:
    """What the spec limits beyond indices: header zeros, atlas and sprite sizes (map neighbours:
    :func:`check_maps`)."""
    h = game.header
    if h.sample_rate is None:
        report.warning(38, "header.sample_rate_code", "0 (44100 Hz, the one sample frequency the spec "
                       "defines)", str(h.sample_rate_code))
    _check_map_order(game, report)
    if h.reserved:
        report.error(46, "header.reserved", "zero", f"0x{h.reserved:04X}")
    if h.revision != 0:
        report.warning(32, "header.revision", "file format revision 0", str(h.revision))
    atlas_dims: list[tuple[int, int] | None] = []
    atlases = game.section(AtlasesSection)
    for k, a in enumerate(atlases.entries if atlases is not None else []):
        try:
            dims = png_size(a.asset.head(24))
        except FormatError as err:
            report.capture(err)
            dims = None
        atlas_dims.append(dims)
        if dims is not None and h.atlas_size and (dims[0] > h.atlas_size or dims[1] > h.atlas_size):
            report.warning(None, f"atlases[{k}]", f"an atlas of at most {h.atlas_size} x {h.atlas_size} (header)",
                           f"{dims[0]} x {dims[1]}")
    for i, s in enumerate(game.sections):
        for k, sp in enumerate(getattr(s, "sprites", [])):
            if not isinstance(sp, Sprite):
                continue
            p = f"sections[{i}].sprites[{k}]"
            if not 1 <= sp.directions <= 8:
                report.error(None, p + ".directions", "1 to 8 directions", str(sp.directions))
            try:
                anims = sp.asset.value.animations
            except FormatError:
                continue  # reported by check()
            for ai, anim in enumerate(anims):
                q = f"{p}.asset.animations[{ai}]"
                if anim.width > MAX_SIZE or anim.height > MAX_SIZE:
                    report.error(None, q, f"a sprite of at most {MAX_SIZE} x {MAX_SIZE}", f"{anim.width} x {anim.height}")
                if not 1 <= len(anim.frames) <= MAX_FRAMES:
                    report.error(None, q + ".frames", f"1 to {MAX_FRAMES} frames", str(len(anim.frames)))
                for f, fr in enumerate(anim.frames):
                    dims = atlas_dims[fr.atlas] if fr.atlas < len(atlas_dims) else None
                    if dims is not None and (fr.x + fr.width > dims[0] or fr.y + fr.height > dims[1]):
                        report.error(None, f"{q}.frames[{f}]",
                                     f"a rectangle inside atlas {fr.atlas} ({dims[0]} x {dims[1]})",
                                     f"{fr.width} x {fr.height} at ({fr.x}, {fr.y})")
    for tr in game.translations:
        if len(tr.language) != 2 or not tr.language.isalpha() or not tr.language.islower():
            report.warning(None, f"translation[{tr.language}].language", "an ISO-639-1 code (two lower-case letters)",
                           repr(tr.language))


EVENT_NAMES = ("click", "touch", "leave", "approach", "action1", "action2", "action3", "action4", "action5",
               "action6", "action7", "action8", "action9", "using object1", "using object2", "using object3",
               "timer", "sell", "buy")
TIMER_CODES = 13  # 0 = 1/10 s ... 12 = 1 hour
OBJECT_EVENTS = 17  # the object table's handler types are 0-16


def iter_handlers(obj: Any, path: str = "") -> Iterator[tuple[str, EventHandler]]:
    """Every event handler inside a model (entering structured assets), with its path."""
    return iter_values(obj, EventHandler, path, into_assets=True)


def check_handlers(game: Game, report: Report) -> None:
    """Event codes 0-18; the parameter by code: an object (13-15, tile sprites), a timer code (16), else 0."""
    n_tiles = sprite_count(game, 1) or 0
    for i, s in enumerate(game.sections):
        if isinstance(s, MapsSection):
            continue  # a map holds no event handler (maps.py)
        try:
            handlers = list(iter_handlers(s, f"sections[{i}]"))
        except FormatError as err:
            report.capture(err)
            continue
        # Objects (section 31) allow types 0-16: sell and buy are events of NPCs, not objects.
        top = OBJECT_EVENTS - 1 if int(getattr(s, "TYPE", -1)) == 31 else len(EVENT_NAMES) - 1
        for path, h in handlers:
            if h.event > top:
                report.error(None, path + ".event", f"an event code from 0 to {top}", str(h.event))
            elif 13 <= h.event <= 15:
                if h.parameter >= n_tiles:
                    report.error(None, path + ".parameter", f"an object sprite index below {n_tiles} (on using an "
                                 "object)", str(h.parameter))
            elif h.event == 16:
                if h.parameter >= TIMER_CODES:
                    report.error(None, path + ".parameter", f"a timer interval code from 0 to {TIMER_CODES - 1}",
                                 str(h.parameter))
            elif h.event not in (2, 3) and h.parameter:
                report.warning(None, path + ".parameter", f"zero (on {EVENT_NAMES[h.event]})", str(h.parameter))


def _check_map_order(game: Game, report: Report) -> None:
    """Map assets come last in the file (NOTES.md): say which map starts before another asset ends.

    The file is still rebuilt byte for byte while nothing moves; an edit that
    changes an asset's size lays the assets out again, maps last.
    """
    ends: list[tuple[int, str]] = []
    maps: list[tuple[int, str]] = []
    for s in game.sections:
        is_map = isinstance(s, MapsSection)
        for a in iter_assets(s):
            if a.hint is None or not a.length:
                continue
            if is_map:
                maps.append((a.hint, a.path))
            else:
                ends.append((a.hint + a.length, a.path))
    if not maps or not ends:
        return
    last_end, last_path = max(ends)
    first, first_path = min(maps)
    if first < last_end:
        report.error(None, first_path, "map assets after every other asset (they come last in the file)",
                     f"a map at asset offset 0x{first:X}, before the end of {last_path} (0x{last_end:X})")
