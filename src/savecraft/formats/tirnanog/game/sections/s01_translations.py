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

from .....binary import Reader, Record, Writer
from ..assets import Asset, AssetContext, OggAsset
from .common import BuildContext, ParseContext, sref, tref

TYPE = 1
TRANSLATION_HEAD = Record("translation header", [("language", "bytes[2]"), ("offset", "u64"), ("length", "u32"),
                                                 ("name_text", "u32")])


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
        for i, p in enumerate(parts):
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
                from .....errors import FormatError
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


def decode(r: Reader, ctx: ParseContext) -> TranslationSection:
    at = r.offset
    lang_raw, rel, length, name_text = r.record(TRANSLATION_HEAD, "translation")
    try:
        lang = lang_raw.decode("ascii")
    except UnicodeDecodeError:
        ctx.report.error(at, "translation.language", "a 2-letter ISO-639-1 code", repr(lang_raw))
        lang = lang_raw.decode("latin-1")
    texts = ctx.asset(TextAsset, rel, length, f"translation[{lang}].texts", at + 2)
    if r.remaining % 16:
        ctx.report.error(r.offset, f"translation[{lang}].speech", "16-byte speech descriptors",
                         f"{r.remaining} bytes ({r.remaining % 16} left over)")
    speech = []
    for i in range(r.remaining // 16):
        asset, tail = ctx.descriptor(r, OggAsset, f"translation[{lang}].speech[{i}]")
        speech.append(Speech(tail, asset))
    return TranslationSection(lang, name_text, texts, speech, r.rest())


def encode(s: TranslationSection, w: Writer, ctx: BuildContext) -> None:
    lang = s.language.encode("latin-1", "replace")
    if len(lang) != 2:
        w._bad("language", "a 2-letter ISO-639-1 code", repr(s.language))
    off, length = ctx.place(s.texts)
    w.record(TRANSLATION_HEAD, (lang, off, length, s.name_text), "translation")
    for i, sp in enumerate(s.speech):
        ctx.descriptor(w, sp.asset, ctx.s(sp.name), f"speech[{i}]")
    w.bytes(s.trailing)
