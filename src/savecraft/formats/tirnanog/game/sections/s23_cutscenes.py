"""Section type 23: cutscenes (movies, music, slides, speech, subtitles and a script)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from .....binary import Reader, Record, Writer
from ..assets import AssetContext
from ..bytecode import Script
from .common import (
    BuildContext,
    FontRef,
    ParseContext,
    SpriteRef,
    read_script,
    sref,
    tref,
)
from .media import decode_media, encode_media
from .structured import StructAsset

TYPE = 23
CUTSCENE_HEAD = Record("cutscene header", [
    ("movie_once", "u24"), ("music_once", "u24"), ("movie_loop", "u24"), ("music_loop", "u24"),
    ("slide_count", "u16"), ("speech_count", "u16"), ("subtitle_count", "u16"), ("script_size", "u24"),
])
SLIDE = Record("slide", [
    ("start", "u24"), ("fade_in", "u24"), ("fade_out", "u24"), ("end", "u24"), ("color", "u32"),
    ("category", "u8"), ("index", "u16"),
])
SPEECH = Record("speech record", [("start", "u24"), ("speech", "u24")])
SUBTITLE = Record("subtitle", [
    ("start", "u24"), ("fade_in", "u24"), ("fade_out", "u24"), ("end", "u24"), ("color", "u32"), ("x", "u8"),
    ("y", "u8"), ("align", "u8"), ("font_style", "u8"), ("font_size", "u8"), ("font", "u24"), ("text", "u24"),
])


@dataclass(slots=True)
class Slide:
    start: int = 0
    fade_in: int = 0
    fade_out: int = 0
    end: int = 0
    color: int = 0xFF000000
    sprite: SpriteRef = field(default_factory=SpriteRef)


@dataclass(slots=True)
class SpeechCue:
    start: int = 0
    speech: int = sref()


@dataclass(slots=True)
class Subtitle:
    start: int = 0
    fade_in: int = 0
    fade_out: int = 0
    end: int = 0
    color: int = 0xFFFFFFFF
    x: int = 50  # percent
    y: int = 90
    align: int = 1  # 0 left, 1 centre, 2 right
    font: FontRef = field(default_factory=FontRef)
    text: int = tref()


@dataclass(slots=True)
class Cutscene:
    movie_once: int = sref()
    music_once: int = sref()
    movie_loop: int = sref()
    music_loop: int = sref()
    slides: list[Slide] = field(default_factory=list)
    speech: list[SpeechCue] = field(default_factory=list)
    subtitles: list[Subtitle] = field(default_factory=list)
    script: Script = field(default_factory=Script)
    trailing: bytes = b""


class CutsceneAsset(StructAsset[Cutscene]):
    WHAT = "cutscene"
    VALUE = Cutscene

    def read(self, r: Reader, ctx: AssetContext) -> Cutscene:
        mo, mu, lo, lu, ns, nsp, nsub, size = r.record(CUTSCENE_HEAD, "header")
        c = Cutscene(mo, mu, lo, lu)
        r.count(ns, SLIDE.size, "slides")
        for i in range(ns):
            start, fin, fout, end, color, cat, idx = r.record(SLIDE, f"slides[{i}]")
            c.slides.append(Slide(start, fin, fout, end, color, SpriteRef(cat, idx)))
        r.count(nsp, SPEECH.size, "speech")
        c.speech = [SpeechCue(*r.record(SPEECH, f"speech[{i}]")) for i in range(nsp)]
        r.count(nsub, SUBTITLE.size, "subtitles")
        for i in range(nsub):
            start, fin, fout, end, color, x, y, align, fs, fz, font, text = r.record(SUBTITLE, f"subtitles[{i}]")
            c.subtitles.append(Subtitle(start, fin, fout, end, color, x, y, align, FontRef(fs, fz, font), text))
        c.script = read_script(r, size, ctx, "script")
        return c

    def write(self, w: Writer, c: Cutscene, ctx: Any) -> None:
        code = ctx.code(c.script, "script")
        for name, items in (("slides", c.slides), ("speech", c.speech), ("subtitles", c.subtitles)):
            w.check_count(items, 0xFFFF, name, "records")
        w.record(CUTSCENE_HEAD, (ctx.s(c.movie_once), ctx.s(c.music_once), ctx.s(c.movie_loop),
                                 ctx.s(c.music_loop), len(c.slides), len(c.speech), len(c.subtitles), len(code)),
                 "header")
        for i, s in enumerate(c.slides):
            w.record(SLIDE, (s.start, s.fade_in, s.fade_out, s.end, s.color, s.sprite.category, s.sprite.index),
                     f"slides[{i}]")
        for i, sp in enumerate(c.speech):
            w.record(SPEECH, (sp.start, ctx.s(sp.speech)), f"speech[{i}]")
        for i, t in enumerate(c.subtitles):
            w.record(SUBTITLE, (t.start, t.fade_in, t.fade_out, t.end, t.color, t.x, t.y, t.align, t.font.style,
                                t.font.size, ctx.s(t.font.font), t.text), f"subtitles[{i}]")
        w.bytes(code)


@dataclass(slots=True)
class CutsceneEntry:
    name: int = sref()
    asset: CutsceneAsset = field(default_factory=CutsceneAsset)


@dataclass(slots=True)
class CutscenesSection:
    KIND: ClassVar[str] = "cutscenes"
    TYPE: ClassVar[int] = 23
    entries: list[CutsceneEntry] = field(default_factory=list)
    trailing: bytes = b""


def decode(r: Reader, ctx: ParseContext) -> CutscenesSection:
    return decode_media(r, ctx, CutscenesSection, CutsceneEntry, CutsceneAsset, "cutscenes")


def encode(s: CutscenesSection, w: Writer, ctx: BuildContext) -> None:
    encode_media(s.entries, "name", w, ctx, "cutscenes")
    w.bytes(s.trailing)
