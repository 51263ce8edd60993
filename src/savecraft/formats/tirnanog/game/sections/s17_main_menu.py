"""Section type 17: the main menu (3 bytes, the intro cutscene only, when the menu is disabled; else 141)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from .....binary import Reader, Writer
from .common import (
    BuildContext,
    FontRef,
    ParseContext,
    SpriteRef,
    read_font,
    read_sprite,
    sref,
    write_font,
    write_sprite,
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


def decode(r: Reader, ctx: ParseContext) -> MainMenuSection:
    size = r.remaining
    intro = r.u24("main_menu.intro")
    if size == 3:
        return MainMenuSection(intro)
    if size != FULL_SIZE:
        ctx.report.error(r.offset - 3, "main_menu", f"3 or {FULL_SIZE} bytes", f"{size} bytes")
        if size < FULL_SIZE:
            return MainMenuSection(intro, None, r.rest())
    p = "main_menu."
    m = MenuDetails()
    m.music = r.u24(p + "music")
    m.movie = r.u24(p + "movie")
    m.background = read_sprite(r, p + "background")
    m.parallax_count = r.u8(p + "parallax_count")
    m.parallaxes = []
    for i in range(PARALLAXES):
        q = f"{p}parallaxes[{i}]"
        m.parallaxes.append(MenuParallax(r.i16(q + ".dx"), r.i16(q + ".dy"), r.u16(q + ".time"),
                                         read_sprite(r, q + ".sprite")))
    m.title_sprite = read_sprite(r, p + "title_sprite")
    m.flags = r.u8(p + "flags")
    m.title_color = r.u32(p + "title_color")
    m.title_shadow = r.u32(p + "title_shadow")
    m.title_font = read_font(r, p + "title_font")
    m.website = r.u24(p + "website")
    m.button_padding = r.u16(p + "button_padding")
    m.button_font = read_font(r, p + "button_font")
    m.button_count = r.u8(p + "button_count")
    m.buttons = []
    for i in range(BUTTONS):
        q = f"{p}buttons[{i}]"
        m.buttons.append(MenuButton(r.u32(q + ".color"), read_sprite(r, q + ".left"),
                                    read_sprite(r, q + ".background"), read_sprite(r, q + ".right")))
    m.chart_color = r.u32(p + "chart_color")
    m.chart_background = r.u32(p + "chart_background")
    return MainMenuSection(intro, m, r.rest())


def encode(s: MainMenuSection, w: Writer, ctx: BuildContext) -> None:
    w.u24(ctx.s(s.intro), "intro")
    m = s.menu
    if m is not None:
        if len(m.parallaxes) != PARALLAXES or len(m.buttons) != BUTTONS:
            w._bad("menu", f"{PARALLAXES} parallaxes and {BUTTONS} buttons",
                   f"{len(m.parallaxes)} and {len(m.buttons)}")
        w.u24(ctx.s(m.music), "music")
        w.u24(ctx.s(m.movie), "movie")
        write_sprite(w, m.background, "background")
        w.u8(m.parallax_count, "parallax_count")
        for i, px in enumerate(m.parallaxes):
            w.i16(px.dx, f"parallaxes[{i}].dx")
            w.i16(px.dy, f"parallaxes[{i}].dy")
            w.u16(px.time, f"parallaxes[{i}].time")
            write_sprite(w, px.sprite, f"parallaxes[{i}].sprite")
        write_sprite(w, m.title_sprite, "title_sprite")
        w.u8(m.flags, "flags")
        w.u32(m.title_color, "title_color")
        w.u32(m.title_shadow, "title_shadow")
        write_font(w, m.title_font, ctx, "title_font")
        w.u24(ctx.s(m.website), "website")
        w.u16(m.button_padding, "button_padding")
        write_font(w, m.button_font, ctx, "button_font")
        w.u8(m.button_count, "button_count")
        for i, b in enumerate(m.buttons):
            w.u32(b.color, f"buttons[{i}].color")
            write_sprite(w, b.left, f"buttons[{i}].left")
            write_sprite(w, b.background, f"buttons[{i}].background")
            write_sprite(w, b.right, f"buttons[{i}].right")
        w.u32(m.chart_color, "chart_color")
        w.u32(m.chart_background, "chart_background")
    w.bytes(s.trailing)
