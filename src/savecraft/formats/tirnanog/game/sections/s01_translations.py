"""Section type 1: one translation (it may appear once per language).

An 18-byte header names the language and points to the text asset (the
deflated, concatenated NUL-terminated UTF-8 texts; text 0 is the game's
title), followed by descriptors of the spoken speech (Ogg Vorbis, mono).
Text indices count texts in that asset; every language has the same number
of speech descriptors, a missing recording has length zero.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from .....binary import Reader, Writer
from .....layout import U32, Adapt, Bytes, Field, List, Struct, ToEnd
from ..assets import Asset, AssetContext, OggAsset
from .common import SREF32, BuildContext, ParseContext, descriptor, read_section, sref, tref, write_section
from .....errors import FormatError

TYPE = 1
@dataclass(slots=True)
class Texts:
    texts: list[str] = field(default_factory=list)
    trailing: bytes = b""  # bytes after the last NUL


class TextAsset(Asset[Texts]):
    WHAT = "text asset"
    REFS_STRINGS = False

    def decode(self, content: bytes, offset: int, ctx: AssetContext) -> Texts:
        parts = content.split(b"\0")
        trailing = parts.pop()
        texts = []
        r = Reader(content, path=self.path, what="the text asset")
        for i, p in enumerate(parts):
            r.skip(len(p) + 1, f"texts[{i}]")  # only a span, while spans are recorded
            try:
                texts.append(p.decode("utf-8"))
            except UnicodeDecodeError:
                ctx.report.error(offset, f"{self.path}.texts[{i}]", "UTF-8 text", repr(p[:20]))
                texts.append(p.decode("utf-8", "replace"))
        if trailing:
            ctx.report.error(offset, f"{self.path}.texts", "texts that end with a NUL byte",
                             f"{len(trailing)} bytes after the last one")
        return Texts(texts, trailing)

    def encode(self, value: Texts, ctx: Any) -> bytes:
        out = bytearray()
        for i, t in enumerate(value.texts):
            raw = t.encode("utf-8")
            if b"\0" in raw:
                raise FormatError(None, f"{self.path}.texts[{i}]", "a text without NUL characters", repr(t))
            out += raw + b"\0"
        return bytes(out + value.trailing)

    @classmethod
    def empty(cls) -> Texts:
        return Texts()

    @classmethod
    def value_type(cls) -> Any:
        return Texts


@dataclass(slots=True)
class Speech:
    name: int = sref()
    asset: OggAsset = field(default_factory=OggAsset)


@dataclass(slots=True)
class TranslationSection:
    KIND: ClassVar[str] = "translation"
    TYPE: ClassVar[int] = 1
    language: str = "en"  # ISO-639-1
    name_text: int = tref()  # the language's own name, a text index
    texts: TextAsset = field(default_factory=TextAsset)
    speech: list[Speech] = field(default_factory=list)
    trailing: bytes = b""

    def text(self, index: int) -> str | None:
        t = self.texts.value.texts
        return t[index] if 0 <= index < len(t) else None

    @property
    def title(self) -> str:
        return self.text(0) or ""


def _language_in(raw: bytes) -> str:
    return raw.decode("latin-1")  # an ISO-639-1 code is ASCII: decode() reports any other byte


def _language_out(language: str) -> bytes:
    raw = language.encode("latin-1", "replace")
    if len(raw) != 2:
        raise ValueError(repr(language))
    return raw


SPEECH = Struct(Speech, [Field("asset", descriptor(OggAsset)), Field("name", SREF32)], name="speech descriptor")
TRANSLATION = Struct(TranslationSection, [
    Field("language", Adapt(Bytes(2), _language_in, _language_out, "a 2-letter ISO-639-1 code")),
    Field("texts", descriptor(TextAsset)), Field("name_text", U32),
    Field("speech", List(SPEECH, ToEnd(16))),
], name="translation")


def decode(r: Reader, ctx: ParseContext) -> TranslationSection:
    at = r.offset
    if r.remaining >= 18 and (r.remaining - 18) % 16:
        ctx.report.error(r.offset + 18, f"{r.path}.speech", "16-byte speech descriptors",
                         f"{r.remaining - 18} bytes ({(r.remaining - 18) % 16} left over)")
    s: TranslationSection = read_section(TRANSLATION, r, ctx)
    if not s.language.isascii():
        ctx.report.error(at, f"{r.path}.language", "a 2-letter ISO-639-1 code",
                         repr(s.language.encode("latin-1")))
    return s


def encode(s: TranslationSection, w: Writer, ctx: BuildContext) -> None:
    write_section(TRANSLATION, s, w, ctx)
