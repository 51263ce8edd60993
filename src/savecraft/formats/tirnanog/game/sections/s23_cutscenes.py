"""Section type 23: cutscenes (movies, music, slides, speech, subtitles and a script)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from .....binary import Reader, Writer
from .....layout import U8, U16, U24, U32, Field, List, Ref, Stored, Struct
from ..bytecode import Script
from .common import (
    FONT,
    SPRITE,
    SREF,
    BuildContext,
    FontRef,
    ParseContext,
    Script,
    SpriteRef,
    counted,
    script,
    script_of,
    sref,
    tref,
)
from .media import decode_media, encode_media, media_layout
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


SLIDE = Struct(Slide, [Field("start", U24), Field("fade_in", U24), Field("fade_out", U24), Field("end", U24),
                       Field("color", U32), Field("sprite", SPRITE)], name="slide")
SPEECH = Struct(SpeechCue, [Field("start", U24), Field("speech", SREF)], name="speech record")
SUBTITLE = Struct(Subtitle, [
    Field("start", U24), Field("fade_in", U24), Field("fade_out", U24), Field("end", U24), Field("color", U32),
    Field("x", U8), Field("y", U8), Field("align", U8), Field("font", FONT), Field("text", U24),
], name="subtitle")
# The script's size is in the header, before the records: the writer assembles the script for it.
CUTSCENE = Struct(Cutscene, [
    Field("movie_once", SREF), Field("music_once", SREF), Field("movie_loop", SREF), Field("music_loop", SREF),
    counted("slide_count", "slides", U16, "records"), counted("speech_count", "speech", U16, "records"),
    counted("subtitle_count", "subtitles", U16, "records"),
    Stored("script_size", U24, "len(ctx.code(script, 'script'))"),
    Field("slides", List(SLIDE, Ref("slide_count"))),
    Field("speech", List(SPEECH, Ref("speech_count"))),
    Field("subtitles", List(SUBTITLE, Ref("subtitle_count"))),
    Field("script", script_of(Ref("script_size"))),
], name="cutscene")

class CutsceneAsset(StructAsset[Cutscene]):
    WHAT = "cutscene"
    VALUE = Cutscene
    LAYOUT = CUTSCENE


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


LAYOUT = media_layout(CutscenesSection, CutsceneEntry, CutsceneAsset, "entries")


def decode(r: Reader, ctx: ParseContext) -> CutscenesSection:
    return decode_media(LAYOUT, r, ctx)  # type: ignore[no-any-return]


def encode(s: CutscenesSection, w: Writer, ctx: BuildContext) -> None:
    encode_media(LAYOUT, s, w, ctx)
