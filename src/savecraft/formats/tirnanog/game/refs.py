"""References resolved for people, and the names scripts are shown with.

String indices become the string they point to, text indices the text in
each language, sprite references their category's name (and, for tiles that
are objects, the object's name). :mod:`.checks` walks the same references to
check them against what exists.
"""

from __future__ import annotations

from typing import Any

from ....errors import FormatError
from .maps import SpriteRef as MapSpriteRef
from .model import Game
from .script import ScriptNames
from .sections import CATEGORY_NAMES, SPRITE_SECTIONS, BackgroundsSection, StringsSection
from .sections.common import NOT_SET, SpriteRef, walk_refs
from .sections import ObjectsSection

NO_SPRITE = 0xFFFF


class _Names(ScriptNames):
    """The strings as they are now, and the names they had when read (so renamed ones still assemble)."""

    def __init__(self, strings: dict[int, str], aliases: dict[str, int], texts: dict[int, str]) -> None:
        super().__init__(strings, texts)
        self.aliases = aliases

    def string_index(self, name: str) -> int | None:
        v = super().string_index(name)
        return v if v is not None else self.aliases.get(name)


def script_names(game: Game, *, for_build: bool = False) -> ScriptNames | None:
    """Names for scripts, by reference offsets (as the model holds them) or, for building, file offsets.

    Either way a name the string had when read (before a rename) still
    assembles, to the same string's offset.
    """
    s = game.section(StringsSection)
    if s is None:
        return None
    key = (tuple(s.strings), tuple(s.layout), tuple(s.original))
    cached = game.names_cache.get(for_build)
    if cached is not None and cached[0] == key:
        return cached[1]  # type: ignore[no-any-return]
    offsets = s.offsets() if for_build else s.ref_offsets()
    aliases: dict[str, int] = {}
    for i, old in enumerate(s.original):
        if i < len(offsets) and old:
            aliases.setdefault(old, offsets[i])
    texts: dict[int, str] = {}  # not the translations: opening must not inflate the text asset
    names = _Names(dict(zip(offsets, s.strings)), aliases, texts)
    game.names_cache[for_build] = (key, names)
    return names


# -- resolving ------------------------------------------------------------------------------


def sprite_count(game: Game, category: int) -> int | None:
    """How many records the section of a sprite category holds (None: no such category)."""
    if category == 4:
        sec: Any = game.section(BackgroundsSection)
        return len(sec.entries) if sec is not None else 0
    t = SPRITE_SECTIONS.get(category)
    if t is None:
        return None
    for s in game.sections:
        if int(s.TYPE) == t:
            return len(getattr(s, "sprites", []))
    return 0


def describe(game: Game, kind: str, value: Any) -> str:
    """One reference as a person reads it."""
    if kind == "string":
        if value == 0:
            return "0 (none)"
        if value == NOT_SET:
            return "not set"
        s = game.string(value)
        return f"{value} {s!r}" if s is not None else f"{value} (no string starts here)"
    if kind == "text":
        if value == NOT_SET:
            return "not set"
        parts = []
        for tr in game.translations:
            t = tr.text(value)
            parts.append(f"{tr.language}: {t!r}" if t is not None else f"{tr.language}: (none)")
        return f"text {value} (" + ", ".join(parts) + ")"
    if kind == "sprite":
        cat = CATEGORY_NAMES.get(value.category, f"category {value.category}")
        if value.index == NO_SPRITE:
            return f"{cat} sprite: none"
        n = sprite_count(game, value.category)
        if n is not None and value.index >= n:
            return f"{cat} sprite {value.index} (missing: the section has {n})"
        if value.category == 1:
            title = _object_title(game, value.index)
            if title:
                return f"{cat} sprite {value.index} (object {title!r})"
        return f"{cat} sprite {value.index}"
    return str(value)


def _object_title(game: Game, sprite: int) -> str | None:
    objs = game.section(ObjectsSection)
    entry = objs.by_sprite(sprite) if objs is not None else None
    tr = game.translations
    if entry is None or not tr:
        return None
    try:
        return tr[0].text(entry.asset.value.title)
    except FormatError:
        return None


def resolve(game: Game, obj: Any, path: str = "") -> dict[str, str]:
    """Every reference inside ``obj`` (a section, an asset value), path -> readable text."""
    out: dict[str, str] = {}

    def visit(kind: str, p: str, v: Any) -> None:
        out[p] = describe(game, kind, v)

    walk_refs(obj, path, visit, sprite_types=(SpriteRef, MapSpriteRef))
    return out
