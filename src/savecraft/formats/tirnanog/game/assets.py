"""Lazy inlined assets: read and inflated only when asked for.

Opening a game reads the header and the compressed section table; every
asset descriptor becomes an :class:`Asset` that remembers where its bytes are
(an offset into a :class:`Source`, which is ``bytes`` or an ``mmap``). The
first access to ``asset.value`` reads those bytes, inflates them when the
asset type is deflate-compressed, and decodes them. An asset that is never
looked at is written back from its original stored bytes, so a rebuild of an
untouched multi-gigabyte game never inflates anything.
"""

from __future__ import annotations

import mmap
import os
from collections.abc import Callable
from contextvars import ContextVar
from typing import IO, Any, ClassVar, Generic, TypeVar
import base64

from .... import limits
from ....binary import Buffer
from ....compression import Container, Deflated, digest, inflate
from ....errors import FormatError, Report
from ....layout import Context
from ....jsonmap import _bad, _dec_bytes, decoder, encoder

T = TypeVar("T")

EXTRACTED: ContextVar[dict[int, str] | None] = ContextVar("tng_extracted", default=None)
"""While ``savecraft extract`` writes a section's JSON: the assets and scripts (by ``id``) it wrote
as files of their own, with the file's name, so the JSON names the file instead of holding the
bytes twice (``extract.rebuild_game`` reads the files back in)."""


class Source:
    """The bytes of a game file: in memory, or memory-mapped from an open file."""

    __slots__ = ("_fh", "_map", "data", "name", "size")

    def __init__(self, data: Buffer | mmap.mmap, fh: IO[bytes] | None = None, name: str = "") -> None:
        self.data: Any = data
        self._fh = fh
        self._map = data if isinstance(data, mmap.mmap) else None
        self.name = name
        self.size = len(data)

    @classmethod
    def open(cls, path: str | os.PathLike[str]) -> Source:
        fh = open(path, "rb")
        try:
            size = os.fstat(fh.fileno()).st_size
            if size == 0:
                fh.close()
                return cls(b"", None, str(path))
            return cls(mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ), fh, str(path))
        except BaseException:
            fh.close()
            raise

    def __len__(self) -> int:
        return self.size

    def read(self, offset: int, length: int) -> bytes:
        if self.closed:
            raise FormatError(offset, self.name, "an open game file (read its assets before closing it)",
                              "a closed one")
        return bytes(self.data[offset : offset + length])

    @property
    def closed(self) -> bool:
        return self._fh is None and self._map is None and isinstance(self.data, mmap.mmap)

    def close(self) -> None:
        if self._map is not None:
            try:
                self._map.close()
            except BufferError:  # a memoryview still looks at it; the GC closes it later
                pass
            self._map = None
        if self._fh is not None:
            self._fh.close()
            self._fh = None


class AssetContext(Context):
    """What decoding an asset may need besides its bytes (names for scripts), and where problems go.

    A layout :class:`~savecraft.layout.Context`: structured assets read through their descriptions.
    """

    def __init__(self, report: Report | None = None,
                 names: Callable[[], Any] | None = None, header: Any = None) -> None:
        Context.__init__(self)
        self.report = report or Report(strict=True)
        self._names = names
        self.header = header
        self.tiles = 0  # map tiles decoded so far from this game (savecraft.limits "file_tiles")

    def reserve_tiles(self, tiles: int, offset: int, path: str) -> Callable[[], None]:
        """Charge a map's tiles to the game's budget before they are decoded; returns the refund."""
        limits.check("file_tiles", self.tiles + tiles, offset, path,
                     f"tiles in the maps decoded so far and this one ({self.tiles} + {tiles})")
        self.tiles += tiles

        def release() -> None:
            self.tiles -= tiles
        return release

    def script_names(self) -> Any:
        return self._names() if self._names is not None else None

    def s(self, offset: int) -> int:
        """String offsets do not move while an asset is only being re-encoded."""
        return offset

    def code(self, script: Any, path: str) -> bytes:
        from .bytecode import script_to_bytes
        return script_to_bytes(script, self.script_names(), path)


NO_CONTEXT = AssetContext()


class Asset(Generic[T]):
    """One inlined asset, decoded on first use.

    Subclasses set ``COMPRESSED`` (deflate-compressed in the file, as the
    formats this specification defines are) and implement ``decode`` and
    ``encode`` between the stored content and the value.
    ``hint`` is the asset's original offset (relative to the end of the
    section block) and ``gap`` any bytes that stood in front of it: the
    builder uses them to put an unchanged asset back where it was.
    """

    COMPRESSED: ClassVar[bool] = True
    WHAT: ClassVar[str] = "asset"
    REFS_STRINGS: ClassVar[bool] = True  # content holds string offsets (re-encoded when strings move)

    __slots__ = (
        "_ctx",
        "_loaded",
        "_src",
        "_value",
        "deflate",
        "file_offset",
        "gap",
        "hint",
        "length",
        "path",
        "trailing",
        "was_empty",
    )

    def __init__(self, value: T | None = None, *, hint: int | None = None) -> None:
        self._value = value
        self._loaded = True
        self._src: Source | None = None
        self._ctx: AssetContext = NO_CONTEXT
        self.file_offset = -1
        self.length = 0
        self.hint = hint
        self.gap = b""
        self.deflate = Deflated()
        self.path = ""
        self.trailing = b""  # bytes after the deflate stream inside the stored asset
        self.was_empty = False  # stored as zero bytes (no stream at all): kept so while the value is empty

    @classmethod
    def lazy(cls, src: Source, ctx: AssetContext, rel_offset: int, file_offset: int, length: int,
             path: str) -> Asset[T]:
        a = cls.__new__(cls)
        Asset.__init__(a, None, hint=rel_offset)
        a._loaded = False
        a._src = src
        a._ctx = ctx
        a.file_offset = file_offset
        a.length = length
        a.path = path
        return a

    # -- subclass hooks -------------------------------------------------------------
    def decode(self, content: bytes, offset: int, ctx: AssetContext) -> T:
        raise NotImplementedError

    def encode(self, value: T, ctx: Any) -> bytes:
        raise NotImplementedError

    @classmethod
    def empty(cls) -> T:
        raise NotImplementedError

    # -- access ---------------------------------------------------------------------
    @property
    def loaded(self) -> bool:
        return self._loaded

    def stored(self) -> bytes:
        """The asset's bytes exactly as stored in the file (compressed when the type is)."""
        if self._src is None:
            raise FormatError(None, self.path, "an asset read from a file", "a new asset")
        end = self.file_offset + self.length
        if self.file_offset < 0 or end > len(self._src):
            raise FormatError(self.file_offset, self.path,
                              f"an asset inside the file ({len(self._src)} bytes)",
                              f"{self.length} bytes at 0x{self.file_offset:X}, ending at 0x{end:X}")
        return self._src.read(self.file_offset, self.length)

    def head(self, n: int) -> bytes:
        """The first ``n`` stored bytes, without reading the rest (for magics)."""
        if self._loaded:
            return self.encode(self._get(), self._ctx)[:n]
        if self._src is None or self.file_offset + min(n, self.length) > len(self._src):
            return self.stored()[:n]
        return self._src.read(self.file_offset, min(n, self.length))

    def content(self) -> bytes:
        """The stored bytes, inflated for compressed types (reads the file when not yet loaded)."""
        if not self._loaded:
            return self._read_content()[0]
        return self.encode(self._get(), self._ctx)

    def _read_content(self) -> tuple[bytes, bytes]:
        stored = self.stored()
        if not self.COMPRESSED:
            return stored, stored
        if not stored:
            self.was_empty = True
            return b"", stored
        inf = inflate(stored, offset=self.file_offset, path=self.path)
        self.deflate = Deflated.from_stream(stored[: inf.consumed], inf.data, inf.container)
        if inf.trailing:
            self.trailing = inf.trailing
            self._ctx.report.warning(self.file_offset + inf.consumed, self.path,
                                     "the asset to end with its deflate stream",
                                     f"{len(inf.trailing)} more bytes (kept)")
        return inf.data, stored

    def _get(self) -> T:
        if not self._loaded:
            content, _ = self._read_content()
            self._value = self.decode(content, self.file_offset, self._ctx)
            self._loaded = True
        if self._value is None:
            self._value = self.empty()
        return self._value

    @property
    def value(self) -> T:
        return self._get()

    @value.setter
    def value(self, v: T) -> None:
        self._value = v
        self._loaded = True

    def unload(self) -> None:
        """Forget the decoded value of an asset read from a file: it is decoded again when asked
        for (a check that went through every map lets each go, so it holds one at a time)."""
        if self._src is not None and self.file_offset >= 0:
            self._value = None
            self._loaded = False

    def stored_for_build(self, ctx: Any) -> bytes:
        """The bytes to write: the original ones while nothing can have changed them."""
        if not self._loaded and (not self.REFS_STRINGS or ctx.strings_unchanged):
            return self.stored()
        value = self._get()
        content = self.encode(value, ctx)
        if not self.COMPRESSED:
            return content
        if self.was_empty and value == self.empty():
            return b""  # a zero-length asset, not a deflate stream of nothing
        return self.deflate.compress(content) + self.trailing

    # -- equality and JSON -----------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Asset) or type(other) is not type(self):
            return NotImplemented
        if (not self._loaded and not other._loaded and self._src is other._src
                and self.file_offset == other.file_offset and self.length == other.length):
            return True
        return bool(self._get() == other._get())

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        state = "loaded" if self._loaded else f"{self.length} bytes at 0x{self.file_offset:X}"
        return f"{type(self).__name__}({state})"

    def json_value(self, value: T) -> Any:
        return encoder(self.value_type())(value)

    @classmethod
    def value_from_json(cls, obj: Any, path: str) -> T:
        return decoder(cls.value_type())(obj, path)  # type: ignore[no-any-return]

    @classmethod
    def value_type(cls) -> Any:
        raise NotImplementedError

    def __json_encode__(self) -> Any:
        files = EXTRACTED.get()
        name = files.get(id(self)) if files else None
        out: dict[str, Any]
        if name is not None:
            out = {"file": name}  # the value is that file's bytes (not read again here)
        else:
            value = self._get()
            if self.COMPRESSED and self.deflate.original is not None:
                # Before the value is dumped: a map still holds its original RLE stream here,
                # so re-encoding the asset for this check reuses it instead of encoding the tiles.
                self.deflate.settle(self.encode(value, self._ctx))
            out = {"value": self.json_value(value)}
        if self.hint is not None:
            out["offset"] = self.hint
        if self.gap:
            out["gap"] = _b64(self.gap)
        if self.was_empty:
            out["empty"] = True
        if self.COMPRESSED:
            d = self.deflate
            out["deflate"] = {"container": d.container.value, "level": d.level}
            if d.original is not None:  # no level reproduces it: the stream itself, and what it holds
                out["deflate"]["original"] = _b64(d.original)
                if d.content_digest is not None:
                    out["deflate"]["digest"] = _b64(d.content_digest)
            if self.trailing:
                out["trailing"] = _b64(self.trailing)
        return out

    @classmethod
    def __json_decode__(cls, obj: Any, path: str) -> Asset[T]:
        if not isinstance(obj, dict) or "value" not in obj:
            raise _bad(path, f"an object with a value ({cls.WHAT})", obj)
        a = cls(cls.value_from_json(obj["value"], path + ".value"))
        hint = obj.get("offset")
        if hint is not None and (not isinstance(hint, int) or hint < 0):
            raise _bad(path + ".offset", "a non-negative integer", hint)
        a.hint = hint
        if obj.get("gap"):
            a.gap = _dec_bytes(obj["gap"], path + ".gap")
        a.was_empty = obj.get("empty") is True
        d = obj.get("deflate")
        if isinstance(d, dict):
            try:
                container = Container(d.get("container", "zlib"))
            except ValueError:
                raise _bad(path + ".deflate.container", "zlib, raw or gzip", d.get("container")) from None
            level = d.get("level")
            orig = d.get("original")
            dig = d.get("digest")
            a.deflate = Deflated(container, level if isinstance(level, int) else None,
                                 _dec_bytes(orig, path + ".deflate.original") if orig else None,
                                 _dec_bytes(dig, path + ".deflate.digest") if dig else None)
        if obj.get("trailing"):
            a.trailing = _dec_bytes(obj["trailing"], path + ".trailing")
        return a


def _b64(b: bytes) -> str:
    return base64.b64encode(b).decode("ascii")


class MediaAsset(Asset[bytes]):
    """An asset in a standard format (PNG, Ogg, Theora, SSFN): stored as is."""

    COMPRESSED = False
    REFS_STRINGS = False
    WHAT = "media"
    EXTENSION: ClassVar[str] = ".bin"
    MAGICS: ClassVar[tuple[bytes, ...]] = ()

    def decode(self, content: bytes, offset: int, ctx: AssetContext) -> bytes:
        return content

    def encode(self, value: bytes, ctx: Any) -> bytes:
        return bytes(value)

    @classmethod
    def empty(cls) -> bytes:
        return b""

    @classmethod
    def value_type(cls) -> Any:
        return bytes

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, MediaAsset) or type(other) is not type(self):
            return NotImplemented
        if not self._loaded and not other._loaded and self._src is not None and other._src is not None:
            if self.length != other.length:
                return False
            if self._src is other._src and self.file_offset == other.file_offset:
                return True
            return digest(self.stored()) == digest(other.stored())
        return self._get() == other._get()

    __hash__ = None


class PngAsset(MediaAsset):
    WHAT = "PNG image"
    EXTENSION = ".png"
    MAGICS = (b"\x89PNG\r\n\x1a\n",)


class OggAsset(MediaAsset):
    WHAT = "Ogg Vorbis audio"
    EXTENSION = ".ogg"
    MAGICS = (b"OggS",)


class TheoraAsset(MediaAsset):
    WHAT = "Ogg Theora movie"
    EXTENSION = ".ogv"
    MAGICS = (b"OggS",)


class FontAsset(MediaAsset):
    WHAT = "SSFN2 font"
    EXTENSION = ".sfn"
    MAGICS = (b"SFN2", b"\x1f\x8b")  # plain or gzipped, as SSFN allows
