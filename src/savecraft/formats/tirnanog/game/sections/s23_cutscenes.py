"""Section type 23: cutscenes (movies, music, slides, speech, subtitles and a script)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from .....binary import Reader, Writer
from ..assets import AssetContext
from ..bytecode import Script
from .common import (
    BuildContext,
    FontRef,
    ParseContext,
    SpriteRef,
    read_font,
    read_script,
    read_sprite,
    sref,
    tref,
    write_font,
    write_sprite,
)
from .media import decode_media, encode_media
from .structured import StructAsset

TYPE = 23


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
        c = Cutscene(r.u24("movie_once"), r.u24("music_once"), r.u24("movie_loop"), r.u24("music_loop"))
        ns, nsp, nsub = r.u16("slide_count"), r.u16("speech_count"), r.u16("subtitle_count")
        size = r.u24("script_size")
        r.count(ns, 19, "slides")
        for i in range(ns):
            p = f"slides[{i}]"
            c.slides.append(Slide(r.u24(p), r.u24(p), r.u24(p), r.u24(p), r.u32(p), read_sprite(r, p)))
        r.count(nsp, 6, "speech")
        for i in range(nsp):
            c.speech.append(SpeechCue(r.u24(f"speech[{i}]"), r.u24(f"speech[{i}]")))
        r.count(nsub, 27, "subtitles")
        for i in range(nsub):
            p = f"subtitles[{i}]"
            c.subtitles.append(Subtitle(r.u24(p), r.u24(p), r.u24(p), r.u24(p), r.u32(p), r.u8(p), r.u8(p),
                                        r.u8(p), read_font(r, p + ".font"), r.u24(p + ".text")))
        c.script = read_script(r, size, ctx, "script")
        return c

    def write(self, w: Writer, c: Cutscene, ctx: Any) -> None:
        code = ctx.code(c.script, "script")
        for v in (c.movie_once, c.music_once, c.movie_loop, c.music_loop):
            w.u24(ctx.s(v), "header")
        for name, items in (("slides", c.slides), ("speech", c.speech), ("subtitles", c.subtitles)):
            if len(items) > 0xFFFF:
                w._bad(name, "at most 65535 records", str(len(items)))
            w.u16(len(items), name)
        w.u24(len(code), "script_size")
        for i, s in enumerate(c.slides):
            p = f"slides[{i}]"
            for v in (s.start, s.fade_in, s.fade_out, s.end):
                w.u24(v, p)
            w.u32(s.color, p)
            write_sprite(w, s.sprite, p)
        for i, sp in enumerate(c.speech):
            w.u24(sp.start, f"speech[{i}]")
            w.u24(ctx.s(sp.speech), f"speech[{i}]")
        for i, t in enumerate(c.subtitles):
            p = f"subtitles[{i}]"
            for v in (t.start, t.fade_in, t.fade_out, t.end):
                w.u24(v, p)
            w.u32(t.color, p)
            w.u8(t.x, p)
            w.u8(t.y, p)
            w.u8(t.align, p)
            write_font(w, t.font, ctx, p + ".font")
            w.u24(t.text, p + ".text")
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
