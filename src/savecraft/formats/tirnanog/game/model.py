"""The game as Python values: the header, the sections in table order, and how it was stored."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ....errors import FormatError
from ..crc_stream import StreamEncoding
from .assets import Asset, AssetContext, Source
from .header import Header
from .sections import (
    AttributesSection,
    CharacterOptionsSection,
    MapsSection,
    Section,
    StringsSection,
    TranslationSection,
)
from .sections.common import iter_assets

S = TypeVar("S")


@dataclass(slots=True, eq=False)
class GameEncoding(StreamEncoding):
    """How the section block and the asset area were stored, for a byte-exact rewrite."""

    section_buffer: bytes | None = None  # the inflated block, kept only when its layout is not canonical
    tail: bytes = b""  # bytes after the last asset (bytes in front of an asset are kept in its ``gap``)


@dataclass
class Game:
    """A TirNanoG game file. Sections are decoded; assets load on first use (see :mod:`.assets`)."""

    header: Header = field(default_factory=Header)
    sections: list[Section] = field(default_factory=list)
    encoding: GameEncoding = field(default_factory=GameEncoding, compare=False)

    def __post_init__(self) -> None:
        # Not fields (not part of the value, not in JSON): the file this game was read from,
        # the inflated section block as read, and the names scripts were disassembled with.
        self.source: Source | None = None
        self.section_block: bytes | None = None
        self.names_cache: dict[bool, Any] = {}
        ctx = AssetContext(names=self.script_names, header=self.header)
        for a in self.assets():
            if a._src is None:
                a._ctx = ctx

    # -- lookups --------------------------------------------------------------------
    def section(self, cls: type[S]) -> S | None:
        """The first section of a type (None when the game has none)."""
        for s in self.sections:
            if type(s) is cls:
                return s
        return None

    def sections_of(self, cls: type[S]) -> list[S]:
        return [s for s in self.sections if type(s) is cls]

    def require(self, cls: type[S]) -> S:
        s = self.section(cls)
        if s is None:
            raise FormatError(None, "sections", f"a {getattr(cls, 'KIND', cls.__name__)} section",
                              "none in this game")
        return s

    @property
    def strings(self) -> StringsSection:
        return self.require(StringsSection)

    @property
    def translations(self) -> list[TranslationSection]:
        return self.sections_of(TranslationSection)

    @property
    def attributes(self) -> AttributesSection | None:
        """Section 25."""
        return self.section(AttributesSection)

    @property
    def character_options(self) -> CharacterOptionsSection | None:
        """Section 27."""
        return self.section(CharacterOptionsSection)

    @property
    def maps(self) -> MapsSection | None:
        return self.section(MapsSection)

    @property
    def title(self) -> str:
        tr = self.translations
        return tr[0].title if tr else ""

    def text(self, index: int, language: str | None = None) -> str | None:
        """A translatable text in one language (the first translation when none is named)."""
        for tr in self.translations:
            if language is None or tr.language == language:
                return tr.text(index)
        return None

    def string(self, offset: int) -> str | None:
        s = self.section(StringsSection)
        return s.get(offset) if s is not None else None

    def assets(self) -> Iterator[Asset[Any]]:
        for s in self.sections:
            yield from iter_assets(s)

    def script_names(self) -> Any:
        """Names for the disassembler (string, sound and sprite indices); None without :mod:`.script`."""
        from .refs import script_names
        return script_names(self)

    # -- what the multiplayer server needs ----------------------------------------------
    def asset_bundle_range(self) -> tuple[int, int]:
        """File offsets [64, first map asset) - or to the end of the file - sent as the asset bundle."""
        if self.source is None:
            raise FormatError(None, "source", "a game opened from bytes or a file", "a game built in memory")
        end = len(self.source)
        m = self.maps
        if m is not None:
            starts = [e.asset.file_offset for e in m.maps if e.asset.file_offset >= 0 and e.asset.length]
            if starts:
                end = min(end, min(starts))
        return 64, end

    def map_asset_bytes(self, map_index: int) -> bytes:
        """The inflated map asset of map ``map_index`` (its place in section 35)."""
        m = self.maps
        if m is None or not 0 <= map_index < len(m.maps):
            raise FormatError(None, f"maps[{map_index}]", f"a map index below {0 if m is None else len(m.maps)}",
                              str(map_index))
        return m.maps[map_index].asset.content()

    # -- lifetime --------------------------------------------------------------------
    def close(self) -> None:
        if self.source is not None:
            self.source.close()

    def __enter__(self) -> Game:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __json_prepare__(self) -> None:
        if self.encoding.deflate.original is not None and self.section_block is not None:
            self.encoding.deflate.settle(self.section_block)
