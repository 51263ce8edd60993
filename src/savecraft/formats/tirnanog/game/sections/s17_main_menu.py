"""Section type 17: the main menu (3 bytes, the intro cutscene only, when the menu is disabled; else 141)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar
from .....binary import Reader, Writer
from .....layout import I16, U8, U16, U32, Field, List, Struct
from .common import FONT, SPRITE, SREF, BuildContext, FontRef, ParseContext, SpriteRef, sref


TYPE = 17
FULL_SIZE = 141
PARALLAXES = 3
BUTTONS = 5


@dataclass(slots=True)
class MenuParallax:
    dx: int = 0
    dy: int = 0
    time: int = 0
    sprite: SpriteRef = field(default_factory=SpriteRef)


@dataclass(slots=True)
class MenuButton:
    color: int = 0xFFFFFFFF
    left: SpriteRef = field(default_factory=SpriteRef)
    background: SpriteRef = field(default_factory=SpriteRef)
    right: SpriteRef = field(default_factory=SpriteRef)


@dataclass(slots=True)
class MenuDetails:
    music: int = sref()
    movie: int = sref()
    background: SpriteRef = field(default_factory=SpriteRef)
    parallax_count: int = PARALLAXES
    parallaxes: list[MenuParallax] = field(default_factory=lambda: [MenuParallax() for _ in range(3)])
    title_sprite: SpriteRef = field(default_factory=SpriteRef)
    flags: int = 1  # bit 0: show the title text, bit 1: do not crop the background
    title_color: int = 0xFFFFFFFF
    title_shadow: int = 0xFF000000
    title_font: FontRef = field(default_factory=FontRef)
    website: int = sref()
    button_padding: int = 0
    button_font: FontRef = field(default_factory=FontRef)
    button_count: int = BUTTONS
    buttons: list[MenuButton] = field(default_factory=lambda: [MenuButton() for _ in range(5)])
    chart_color: int = 0xFF00FF00
    chart_background: int = 0x80000000


@dataclass(slots=True)
class MainMenuSection:
    KIND: ClassVar[str] = "main_menu"
    TYPE: ClassVar[int] = 17
    intro: int = sref()  # intro cutscene, a string index
    menu: MenuDetails | None = None  # None when the main menu is disabled
    trailing: bytes = b""


PARALLAX = Struct(MenuParallax, [Field("dx", I16), Field("dy", I16), Field("time", U16), Field("sprite", SPRITE)],
                  name="menu parallax")
BUTTON = Struct(MenuButton, [Field("color", U32), Field("left", SPRITE), Field("background", SPRITE),
                             Field("right", SPRITE)], name="menu button")
MENU = Struct(MenuDetails, [
    Field("music", SREF), Field("movie", SREF), Field("background", SPRITE), Field("parallax_count", U8),
    Field("parallaxes", List(PARALLAX, PARALLAXES)),
    Field("title_sprite", SPRITE), Field("flags", U8), Field("title_color", U32), Field("title_shadow", U32),
    Field("title_font", FONT), Field("website", SREF), Field("button_padding", U16), Field("button_font", FONT),
    Field("button_count", U8), Field("buttons", List(BUTTON, BUTTONS)),
    Field("chart_color", U32), Field("chart_background", U32),
], name="main menu")
INTRO = Struct(MainMenuSection, [Field("intro", SREF)], name="main menu intro")
assert 3 + MENU.min_size == FULL_SIZE


def decode(r: Reader, ctx: ParseContext) -> MainMenuSection:
    size = r.remaining
    s: MainMenuSection = INTRO.read(r, ctx)
    if size == 3:
        return s
    if size != FULL_SIZE:
        ctx.report.error(r.offset - 3, r.path, f"3 or {FULL_SIZE} bytes", f"{size} bytes")
        if size < FULL_SIZE:
            s.trailing = r.rest("trailing")
            return s
    s.menu = MENU.read(r, ctx, "menu")
    if r.remaining:
        s.trailing = r.rest("trailing")
    return s


def encode(s: MainMenuSection, w: Writer, ctx: BuildContext) -> None:
    INTRO.write(s, w, ctx)
    if s.menu is not None:
        MENU.write(s.menu, w, ctx, "menu")
    w.bytes(s.trailing, "trailing")
