"""Section type 17: the main menu (3 bytes, the intro cutscene only, when the menu is disabled; else 141)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from .....binary import Reader, Writer
from .common import (
    BuildContext,
    FontRef,
    Layout,
    ParseContext,
    SpriteRef,
    sref,
)

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


MENU_HEAD = Layout("main menu", [("music", "str"), ("movie", "str"), ("background", "sprite"),
                                 ("parallax_count", "u8")])
PARALLAX = Layout("menu parallax", [("dx", "i16"), ("dy", "i16"), ("time", "u16"), ("sprite", "sprite")])
MENU_TITLE = Layout("main menu title", [
    ("title_sprite", "sprite"), ("flags", "u8"), ("title_color", "u32"), ("title_shadow", "u32"),
    ("title_font", "font"), ("website", "str"), ("button_padding", "u16"), ("button_font", "font"),
    ("button_count", "u8"),
])
BUTTON = Layout("menu button", [("color", "u32"), ("left", "sprite"), ("background", "sprite"), ("right", "sprite")])
MENU_TAIL = Layout("main menu colours", [("chart_color", "u32"), ("chart_background", "u32")])
assert 3 + MENU_HEAD.size + 3 * PARALLAX.size + MENU_TITLE.size + 5 * BUTTON.size + MENU_TAIL.size == FULL_SIZE


def decode(r: Reader, ctx: ParseContext) -> MainMenuSection:
    size = r.remaining
    intro = r.u24("main_menu.intro")
    if size == 3:
        return MainMenuSection(intro)
    if size != FULL_SIZE:
        ctx.report.error(r.offset - 3, "main_menu", f"3 or {FULL_SIZE} bytes", f"{size} bytes")
        if size < FULL_SIZE:
            return MainMenuSection(intro, None, r.rest())
    m = MenuDetails(**MENU_HEAD.read(r, "main_menu"))
    m.parallaxes = [MenuParallax(**PARALLAX.read(r, f"main_menu.parallaxes[{i}]")) for i in range(PARALLAXES)]
    for k, v in MENU_TITLE.read(r, "main_menu").items():
        setattr(m, k, v)
    m.buttons = [MenuButton(**BUTTON.read(r, f"main_menu.buttons[{i}]")) for i in range(BUTTONS)]
    m.chart_color, m.chart_background = MENU_TAIL.read(r, "main_menu").values()
    return MainMenuSection(intro, m, r.rest())


def encode(s: MainMenuSection, w: Writer, ctx: BuildContext) -> None:
    w.u24(ctx.s(s.intro), "intro")
    m = s.menu
    if m is not None:
        if len(m.parallaxes) != PARALLAXES or len(m.buttons) != BUTTONS:
            w._bad("menu", f"{PARALLAXES} parallaxes and {BUTTONS} buttons",
                   f"{len(m.parallaxes)} and {len(m.buttons)}")
        MENU_HEAD.write(w, m, ctx, "menu")
        for i, px in enumerate(m.parallaxes):
            PARALLAX.write(w, px, ctx, f"menu.parallaxes[{i}]")
        MENU_TITLE.write(w, m, ctx, "menu")
        for i, b in enumerate(m.buttons):
            BUTTON.write(w, b, ctx, f"menu.buttons[{i}]")
        MENU_TAIL.write(w, m, ctx, "menu")
    w.bytes(s.trailing)
