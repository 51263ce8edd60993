"""A small but complete game made by the code itself: every section type, real PNG atlases.

Used by the demo, the tests, the benchmarks and the multiplayer server. Two
languages, scripts in every place scripts go, NPCs, objects, quests and two
maps that lead to each other. Fonts, music, sounds and movies are tiny
placeholders that start with their real magics (SSFN2, Ogg). With a
``random.Random`` the counts and contents vary, for property tests.
"""

from __future__ import annotations

import io
import random
import struct

import numpy as np
from PIL import Image, ImageDraw

from .assets import FontAsset, OggAsset, PngAsset, TheoraAsset
from .bytecode import Script, canonical, iter_scripts
from .container import build_game
from .header import Header
from .maps import MapAsset as Map
from .maps import Parallax, PatrolPath
from .maps import SpriteRef as MapSprite
from .model import Game
from .refs import script_names
from .sections import (
    AlertsSection,
    AtlasesSection,
    AttributesSection,
    BackgroundsSection,
    CharacterOptionsSection,
    CharacterSpritesSection,
    ChoosersSection,
    CraftingSection,
    CreditsSection,
    CutscenesSection,
    DefaultActionsSection,
    DialogsSection,
    EquipmentSlotsSection,
    FontsSection,
    HudSection,
    MainMenuSection,
    MapsSection,
    MoviesSection,
    MusicSection,
    NpcTypesSection,
    ObjectsSection,
    OpaqueSection,
    PortraitSpritesSection,
    QuestsSection,
    SoundsSection,
    SpawnersSection,
    StartupSection,
    StringsSection,
    TileMetaSection,
    TileSpritesSection,
    TranslationSection,
    UiElementsSection,
    UiSpritesSection,
)
from .sections.common import Condition, EventHandler, FontRef, SpriteRef
from .sections.s01_translations import Speech, TextAsset, Texts
from .sections.s02_fonts import Font
from .sections.s03_music import Music
from .sections.s04_sounds import Sound
from .sections.s05_movies import Movie
from .sections.s06_atlases import Atlas
from .sections.s11_backgrounds import Background
from .sections.s16_ui_elements import UiFont
from .sections.s17_main_menu import MenuButton, MenuDetails, MenuParallax
from .sections.s18_hud import ProgressBar
from .sections.s19_equipment_slots import EquipmentSlot
from .sections.s20_alerts import Alert
from .sections.s21_credits import CreditCategory
from .sections.s22_choosers import Chooser, ChooserAsset, ChooserEntry, ChooserOption
from .sections.s23_cutscenes import (
    Cutscene,
    CutsceneAsset,
    CutsceneEntry,
    Slide,
    SpeechCue,
    Subtitle,
)
from .sections.s24_startup import StartupScript
from .sections.s25_attributes import Attribute
from .sections.s26_default_actions import DefaultAction
from .sections.s27_character_options import (
    CharacterOption,
    CharacterOptionAsset,
    CharacterOptionEntry,
    CharacterOptionGroup,
    StartItem,
)
from .sections.s28_npc_types import NpcAsset, NpcEntry, NpcItem, NpcType
from .sections.s29_spawners import Spawner, SpawnerAsset, SpawnerEntry, SpawnKind
from .sections.s30_dialogs import Dialog, DialogAsset, DialogEntry, DialogOption
from .sections.s31_objects import ObjectAsset, ObjectEntry, ObjectMeta, SpriteModifier
from .sections.s32_crafting import Crafting, CraftingAsset, CraftingEntry, Ingredient, Recipe
from .sections.s33_tile_meta import Movement, TileMeta
from .sections.s34_quests import Quest, QuestAsset, QuestEntry
from .sections.s35_maps import LazyMap, MapEntry
from .sections.scripts import ScriptAsset
from .sections.sprites import Animation, Frame, Sprite, SpriteMap, SpriteMapAsset

TILE = 32
ATLAS = 128
MAP_LOG2 = 4
LAYERS = 11
UNIQUE_ID = 0x54_4E_47_53_41_4D_50_01

TILES = ("grass", "water", "sand", "stone", "tree", "coin", "sword", "potion")
OBJECTS = ("coin", "sword", "potion")  # tile sprites that are objects (indices 5, 6, 7)
COLORS = {"grass": (60, 160, 60), "water": (40, 90, 200), "sand": (220, 200, 120), "stone": (130, 130, 130),
          "tree": (20, 100, 30), "coin": (240, 200, 30), "sword": (190, 190, 210), "potion": (200, 40, 80)}

TEXTS_EN = ["Sample Quest", "English", "Welcome to the village!", "Guard", "Merchant", "Wolf",
            "Coin", "Sword", "Potion", "Health", "Gold", "Strength", "Level", "Hero class", "Warrior",
            "A strong fighter", "Mage", "A wise caster", "Wolves in the forest", "Drive the wolves away.",
            "Smithy", "Forge a sword.", "Village", "Forest", "Hello traveller.", "Yes", "No",
            "Not enough gold", "Quest completed", "Inventory full"]
TEXTS_DE = ["Beispielabenteuer", "Deutsch", "Willkommen im Dorf!", "Wache", "Händler", "Wolf",
            "Münze", "Schwert", "Trank", "Gesundheit", "Gold", "Stärke", "Stufe", "Heldenklasse", "Krieger",
            "Ein starker Kämpfer", "Magier", "Ein weiser Zauberer", "Wölfe im Wald", "Vertreibe die Wölfe.",
            "Schmiede", "Schmiede ein Schwert.", "Dorf", "Wald", "Hallo Reisender.", "Ja", "Nein",
            "Nicht genug Gold", "Aufgabe erledigt", "Inventar voll"]
T = {name: i for i, name in enumerate(("title", "language", "welcome", "guard", "merchant", "wolf", "coin",
                                          "sword", "potion", "health", "gold", "strength", "level", "class",
                                          "warrior", "warrior_desc", "mage", "mage_desc", "quest", "quest_desc",
                                          "smithy", "smithy_desc", "village", "forest", "hello", "yes", "no",
                                          "no_gold", "quest_done", "full"))}


def png(img: object) -> bytes:
    buf = io.BytesIO()
    img.save(buf, format="PNG", optimize=False)  # type: ignore[attr-defined]
    return buf.getvalue()


def draw_tile_atlas(rng: random.Random | None = None) -> bytes:
    """Atlas 0: the tiles and objects, 32 x 32 each, four to a row."""
    img = Image.new("RGBA", (ATLAS, ATLAS), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    for i, name in enumerate(TILES):
        x, y = (i % 4) * TILE, (i // 4) * TILE
        c = COLORS[name]
        if rng is not None:
            c = tuple(min(255, max(0, v + rng.randrange(-30, 31))) for v in c)  # type: ignore[assignment]
        if name in OBJECTS:
            d.ellipse((x + 8, y + 8, x + 23, y + 23), fill=c + (255,), outline=(0, 0, 0, 255))
        elif name == "tree":
            d.rectangle((x + 13, y + 18, x + 18, y + 31), fill=(100, 60, 20, 255))
            d.ellipse((x + 4, y + 2, x + 27, y + 22), fill=c + (255,))
        else:
            d.rectangle((x, y, x + TILE - 1, y + TILE - 1), fill=c + (255,))
            for k in range(6):
                px, py = x + (k * 11) % TILE, y + (k * 7) % TILE
                d.point((px, py), fill=tuple(max(0, v - 40) for v in c) + (255,))
    return png(img)


def draw_figure_atlas() -> bytes:
    """Atlas 1: characters (two frames), portraits and UI pieces."""
    img = Image.new("RGBA", (ATLAS, ATLAS), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    for k, color in enumerate(((200, 50, 50), (50, 50, 200))):  # hero, guard: 2 frames each
        for f in range(2):
            x, y = (2 * k + f) * TILE, 0
            d.ellipse((x + 10, y + 2, x + 21, y + 13), fill=(240, 200, 160, 255))
            d.rectangle((x + 9, y + 14, x + 22, y + 25), fill=color + (255,))
            d.line((x + 12, y + 26, x + 12 - 2 * f, y + 31), fill=(40, 40, 40, 255), width=2)
            d.line((x + 19, y + 26, x + 19 + 2 * f, y + 31), fill=(40, 40, 40, 255), width=2)
    for k in range(2):  # portraits 32 x 32
        x, y = k * TILE, TILE
        d.rectangle((x, y, x + 31, y + 31), fill=(80, 60, 40, 255))
        d.ellipse((x + 6, y + 4, x + 25, y + 27), fill=(240, 200, 160, 255))
        d.arc((x + 10, y + 12, x + 21, y + 23), 20, 160, fill=(0, 0, 0, 255))
    for k, color in enumerate(((90, 90, 90), (120, 120, 160), (90, 90, 90), (200, 180, 60))):
        x, y = k * TILE, 2 * TILE  # UI: button left, middle, right, navigator
        d.rounded_rectangle((x, y + 8, x + 31, y + 23), 4, fill=color + (255,))
    return png(img)


def draw_background() -> bytes:
    img = Image.new("RGB", (64, 48), (30, 30, 80))
    d = ImageDraw.Draw(img)
    d.polygon([(0, 48), (20, 20), (40, 48)], fill=(60, 60, 90))
    d.polygon([(25, 48), (48, 14), (64, 40), (64, 48)], fill=(70, 70, 100))
    d.ellipse((48, 4, 58, 14), fill=(250, 250, 200))
    return png(img)


def ssfn2_placeholder(name: str) -> bytes:
    """A tiny file with an SSFN2 header (magic, size) and the font's name; not a usable font."""
    body = name.encode() + b"\0" * 8
    return b"SFN2" + struct.pack("<I", 8 + len(body)) + body


def ogg_placeholder(kind: bytes, serial: int) -> bytes:
    """One Ogg page ('OggS', version 0, BOS) holding a codec identification header."""
    packet = kind
    header = struct.pack("<4sBBqIIIB", b"OggS", 0, 2, 0, serial, 0, 0, 1) + bytes([len(packet)])
    return header + packet


def vorbis(serial: int, channels: int) -> bytes:
    return ogg_placeholder(b"\x01vorbis" + struct.pack("<IBIiii", 0, channels, 44100, 0, 128000, 0) + b"\xb8\x01",
                           serial)


def theora(serial: int) -> bytes:
    return ogg_placeholder(b"\x80theora\x03\x02\x01" + bytes(35), serial)


def sprite_map(anims: list[Animation]) -> SpriteMapAsset:
    return SpriteMapAsset(SpriteMap(anims))


def one_frame(atlas: int, x: int, y: int, w: int = TILE, h: int = TILE, op: int = 0) -> SpriteMapAsset:
    return sprite_map([Animation(w, h, 0, 0, [Frame(atlas, op, x, y, w, h, 0, 0)])])


def walking(atlas: int, x: int) -> SpriteMapAsset:
    """Four directions of a two-frame walk; west is the east frames flipped (an atlas operation)."""
    anims = []
    for direction, op in ((0, 0), (2, 2), (4, 0), (6, 4)):
        frames = [Frame(atlas, op, x + f * TILE, 0, TILE, TILE, 0, 0) for f in range(2)]
        anims.append(Animation(TILE, TILE, direction, 2, frames))
    return sprite_map(anims)


def sample_game(rng: random.Random | None = None) -> Game:
    """The sample game as a model (nothing is read from a file)."""
    strings = StringsSection([""])
    S = strings.add

    def script(text: str) -> Script:
        return Script(text=text)

    n_extra_npcs = rng.randrange(0, 4) if rng else 1
    n_extra_maps = rng.randrange(0, 2) if rng else 0
    header = Header(game_id="tngsample", game_type=0, tile_width=TILE, tile_height=TILE, map_size_log2=MAP_LOG2,
                    atlas_size_log2=7, unique_id=UNIQUE_ID if rng is None else rng.getrandbits(64),
                    highest_command=43)
    for name in ("hp", "gold", "strength", "level", "mp"):
        S(name)
    snd_coin, snd_step = S("snd_coin"), S("snd_step")
    mus_theme = S("mus_theme")
    mov_intro = S("mov_intro")
    font_main = S("font_main")
    speech_hello = S("speech_hello")
    village, forest = S("village"), S("forest")
    extra_maps = [S(f"cave{i}") for i in range(n_extra_maps)]

    texts_en, texts_de = list(TEXTS_EN), list(TEXTS_DE)
    if rng is not None:
        for _ in range(rng.randrange(0, 5)):
            word = "".join(rng.choice("abcdefghijklmnopqrstuvwxyzäöü ") for _ in range(rng.randrange(1, 12)))
            texts_en.append(word)
            texts_de.append(word.upper())
    en = TranslationSection("en", T["language"], TextAsset(Texts(texts_en)),
                            [Speech(speech_hello, OggAsset(vorbis(1, 1)))])
    de = TranslationSection("de", T["language"], TextAsset(Texts(texts_de)), [Speech(speech_hello, OggAsset(b""))])

    fonts = FontsSection([Font(font_main, FontAsset(ssfn2_placeholder("Sample Sans")))])
    music = MusicSection([Music(mus_theme, OggAsset(vorbis(2, 2)))])
    sounds = SoundsSection([Sound(snd_coin, OggAsset(vorbis(3, 1))), Sound(snd_step, OggAsset(vorbis(4, 1)))])
    movies = MoviesSection([Movie(mov_intro, TheoraAsset(theora(5)))])
    atlases = AtlasesSection([Atlas(0, PngAsset(draw_tile_atlas(rng))), Atlas(0, PngAsset(draw_figure_atlas()))])
    ui = UiSpritesSection([Sprite(0, 1, one_frame(1, k * TILE, 2 * TILE, TILE, TILE)) for k in range(4)])
    tiles = TileSpritesSection([Sprite(0, 1, one_frame(0, (i % 4) * TILE, (i // 4) * TILE)) for i in range(len(TILES))])
    chars = CharacterSpritesSection([Sprite(0, 4, walking(1, 0)), Sprite(0, 4, walking(1, 2 * TILE))])
    portraits = PortraitSpritesSection([Sprite(0, 1, one_frame(1, k * TILE, TILE)) for k in range(2)])
    backgrounds = BackgroundsSection([Background(S("bg_title"), PngAsset(draw_background()))])

    def ui_sprite(i: int) -> SpriteRef:
        return SpriteRef(0, i)

    font = FontRef(0, 16, font_main)
    ui_elements = UiElementsSection([0xFFFFFFFF - k for k in range(10)], [UiFont(k % 3, 12 + k, font_main) for k in range(6)],
                                    [snd_coin, snd_step, snd_coin], [ui_sprite(k % 4) for k in range(12)])
    intro = S("intro")
    main_menu = MainMenuSection(intro, MenuDetails(
        music=mus_theme, movie=mov_intro, background=SpriteRef(4, 0),
        parallaxes=[MenuParallax(1, 0, 100, ui_sprite(3)), MenuParallax(-1, 0, 50, SpriteRef(0, 0xFFFF)),
                    MenuParallax(0, 0, 0, SpriteRef(0, 0xFFFF))],
        title_sprite=ui_sprite(3), flags=1, title_font=FontRef(1, 32, font_main), website=S("https://example.org/sample"),
        button_padding=4, button_font=font,
        buttons=[MenuButton(0xFFFFFFFF, ui_sprite(0), ui_sprite(1), ui_sprite(2)) for _ in range(5)]))
    hud = HudSection(navigator=ui_sprite(3), action_buttons=ui_sprite(1), itembar_background=ui_sprite(1),
                     itembar_foreground=ui_sprite(2), items=8, item_width=32, item_height=32, item_left=4,
                     item_top=4, item_gap=2, handheld_gap=8, statusbar_combined=0,
                     statusbar_background=ui_sprite(1), statusbar_foreground=ui_sprite(2),
                     inventory_icon=ui_sprite(3), inventory_pressed=ui_sprite(3), slot_width=32, slot_height=32,
                     slot_left=2, slot_top=2, count_font=font, slot_background=ui_sprite(1),
                     slot_selected=ui_sprite(2), equipment_background=SpriteRef(4, 0),
                     progress_bars=[ProgressBar(0, 8, 8, strings.find("hp"), strings.find("strength"), ui_sprite(2), ui_sprite(1))])
    slots = EquipmentSlotsSection([EquipmentSlot(8 + 36 * (k % 4), 8 + 36 * (k // 4)) for k in range(8)])
    alerts = AlertsSection(font, 300, 50, 250, [Alert(0xFF00FFFF, snd_coin, T["quest_done"]),
                                               Alert(0xFF0000FF, 0, T["no_gold"]), Alert(0xFFFFFFFF, 0, T["full"])])
    credits = CreditsSection(mus_theme, SpriteRef(4, 0), 0xFFFFFFFF, FontRef(1, 24, font_main), 0xFFCCCCCC, font,
                             [CreditCategory("g", [S("Brigid")]), CreditCategory("c", [S("savecraft"), S("Cian")]),
                              CreditCategory("t", [S("Niamh")])])

    chooser = ChoosersSection([ChooserEntry(S("chooser_class"), ChooserAsset(Chooser(10, 20, 4, 4, [
        ChooserOption(0, [0, 1, 2], provided=Condition(0, strings.find("strength"), 5)),
        ChooserOption(1 | 0x80, [0, 1, 2], required1=Condition(2, 0, 1)),
        ChooserOption(13, [], [10, 10, 40, 30], 0, provided=Condition(0, strings.find("mp"), 5)),
    ])))])
    cutscenes = CutscenesSection([CutsceneEntry(intro, CutsceneAsset(Cutscene(
        mov_intro, mus_theme, 0, 0,
        [Slide(0, 50, 250, 300, 0xFF000000, SpriteRef(4, 0))], [SpeechCue(100, speech_hello)],
        [Subtitle(100, 20, 280, 300, 0xFFFFFFFF, 50, 90, 1, font, T["welcome"])],
        script("PUSHMUS mus_theme\nFNC1 music\nEND\n"))))])
    startup = StartupSection([
        StartupScript(0, ScriptAsset(script("PUSH8 0\nFNC1 alert\nEND\n"))),
        StartupScript(6000, ScriptAsset(script("PUSHA gold\nPUSH8 1\nADD\nPOPA gold\nEND\n"))),
    ])
    attrs = AttributesSection(100, 20, 4, strings.find("mp"), strings.find("strength"), strings.find("hp"),
                              strings.find("level"), [
        Attribute(0, strings.find("hp"), T["health"]),
        Attribute(0, strings.find("strength"), T["strength"]),
        Attribute(1, strings.find("gold"), T["gold"], 10, script("PUSHA gold\nPUSH8 0\nLT\nJZ done\nPUSH8 0\nPOPA gold\ndone:\nEND\n")),
        Attribute(2, strings.find("level"), T["level"], 0, script("PUSHA strength\nPUSH8 10\nDIV\nPUSH8 1\nADD\nEND\n")),
        Attribute(3, S("world_day"), 0xFFFFFF, 1, script("END\n")),
        Attribute(4, S("world_danger"), 0xFFFFFF, 0, script("PUSHA world_day\nPUSH8 7\nMOD\nEND\n")),
    ])
    actions = DefaultActionsSection([DefaultAction(strings.find("strength") if k < 3 else 0,
                                                   ScriptAsset(script(f"PUSH8 {k}\nPOP a\nEND\n")))
                                     for k in range(header.default_actions)])
    char_opts = CharacterOptionsSection([CharacterOptionEntry(S("class"), CharacterOptionAsset(CharacterOptionGroup(
        T["class"], SpriteRef(0xFF, 0xFFFF), [
            CharacterOption(T["warrior"], T["warrior_desc"], [Condition(0xFF, strings.find("strength"), 8)],
                            [StartItem(1, SpriteRef(1, 6))], [SpriteRef(2, 0), SpriteRef(3, 0)]),
            CharacterOption(T["mage"], T["mage_desc"], [Condition(0xFF, strings.find("mp"), 10)],
                            [StartItem(2, SpriteRef(1, 7))], [SpriteRef(2, 0), SpriteRef(3, 1)]),
        ])))])
    guard = NpcType(T["guard"], 0, 100, 200, 0, [Condition(0xFF, strings.find("hp"), 50)], [],
                    [SpriteRef(2, 1), SpriteRef(3, 1)],
                    [EventHandler(0, 0, script("PUSHDLG dlg_greet\nPUSH16 300\nFNC2 dialog\nPUSH8 0\n"
                                               "PUSHQST quest_wolves\nFNC2 quest\nEND\n")),
                     EventHandler(16, 2, script("PUSH8 1\nFNC1 south\nEND\n"))])
    merchant = NpcType(T["merchant"], 1, 80, 500, 1, [], [NpcItem(100, 5, 60, SpriteRef(1, 7)),
                                                        NpcItem(50, 1, 0, SpriteRef(1, 6))],
                       [SpriteRef(2, 0), SpriteRef(3, 0)], [EventHandler(0, 0, script("FNC0 market\nEND\n"))])
    npc_list = [NpcEntry(S("npc_guard"), NpcAsset(guard)), NpcEntry(S("npc_merchant"), NpcAsset(merchant)),
                NpcEntry(S("npc_wolf"), NpcAsset(NpcType(T["wolf"], 2, 150, 100, 0, [], [], [SpriteRef(2, 0)])))]
    for i in range(n_extra_npcs):
        npc_list.append(NpcEntry(S(f"npc_villager{i}"), NpcAsset(NpcType(
            T["guard"], i % 3, 90 + i, 300, 0, [], [], [SpriteRef(2, i % 2)],
            [EventHandler(1, 0, script(f"PUSH8 {i}\nFNC1 north\nEND\n"))]))))
    npcs = NpcTypesSection(npc_list)
    spawners = SpawnersSection([SpawnerEntry(S("spawn_wolves"), SpawnerAsset(Spawner(3, 6000, [
        SpawnKind(strings.find("level"), 2, 1, strings.find("hp"), 30, SpriteRef(0, 3), SpriteRef(2, 0))])))])
    S("dlg_greet")
    dialogs = DialogsSection([DialogEntry(strings.find("dlg_greet"), DialogAsset(Dialog(
        T["guard"], T["hello"], speech_hello, SpriteRef(3, 1), 1,
        [DialogOption(0, 0, 0, strings.find("gold"), 5, 0, T["yes"]),
         DialogOption(strings.find("gold"), 2, 10, 0, 0, 0, T["no"])])))])

    def obj_meta(title: int, price: int, handlers: list[EventHandler], equip: int = 0) -> ObjectMeta:
        return ObjectMeta(title, 1, 1, 0xFF, SpriteRef(1, 5), snd_coin, price, 5, 1, SpriteRef(0xFF, 0xFFFF), 0,
                          SpriteRef(0xFF, 0xFFFF), 0, equip, b"\x01", sounds=[snd_coin],
                          required=[Condition(2, strings.find("level"), 1)] if equip else [],
                          modifiers=[Condition(1, strings.find("strength"), 3)] if equip else [],
                          sprite_modifiers=[SpriteModifier(0xFFFFFF, [SpriteRef(2, 0)] + [SpriteRef() for _ in range(39)])] if equip else [],
                          handlers=handlers)
    objects = ObjectsSection([
        ObjectEntry(5, 0, ObjectAsset(obj_meta(T["coin"], 1, [EventHandler(1, 0, script(
            "PUSHSND snd_coin\nFNC1 sound\nPUSHA gold\nPUSH8 1\nADD\nPOPA gold\nFNC0 remove\nEND\n"))]))),
        ObjectEntry(6, 0, ObjectAsset(obj_meta(T["sword"], 50, [EventHandler(13, 7, script("PUSH8 1\nPOP b\nEND\n"))], 1))),
        ObjectEntry(7, 0, ObjectAsset(obj_meta(T["potion"], 10, [EventHandler(0, 0, script(
            "PUSHA hp\nPUSH8 20\nADD\nPOPA hp\nEND\n"))]))),
    ])
    crafting = CraftingSection([CraftingEntry(S("craft_smithy"), CraftingAsset(Crafting(
        T["smithy"], T["smithy_desc"], snd_coin, SpriteRef(3, 0), 1,
        [Recipe(1, 6, [Ingredient(3, 5), Ingredient(0, 7)] + [Ingredient() for _ in range(14)])])))])
    tile_meta = TileMetaSection([TileMeta(0, [Movement(100, snd_step), Movement(0, 0), Movement(100, 0)]),
                                 TileMeta(1, [Movement(0, 0), Movement(80, 0), Movement(100, 0)]),
                                 TileMeta(2, [Movement(90, snd_step), Movement(0, 0), Movement(100, 0)])])
    S("quest_wolves")
    quests = QuestsSection([QuestEntry(strings.find("quest_wolves"), QuestAsset(Quest(0, T["quest"], T["quest_desc"],
                                       script("PUSHA gold\nPUSH8 50\nADD\nPOPA gold\nEND\n"))))])

    size = 1 << MAP_LOG2
    map_names = [village, forest] + extra_maps

    def make_map(k: int) -> Map:
        layers = np.full((LAYERS, size, size), 0xFFFF, dtype=np.uint16)
        layers[0] = 0 if k % 2 == 0 else 2
        layers[0, size // 2, :] = 3  # a stone road across
        layers[0, :2, :2] = 1
        layers[3, 3, 3:6] = 4  # trees
        layers[4, 5, 5] = 5  # a coin (object)
        layers[4, 6, 7] = 7
        layers[5, 4, 4] = k % 3  # an NPC
        layers[6, 10, 10] = 0  # a spawner
        if rng is not None:
            for _ in range(rng.randrange(0, 20)):
                layer = rng.choice([i for i in range(LAYERS) if i not in (5, 6)])  # 5, 6: NPCs, spawners
                layers[layer, rng.randrange(size), rng.randrange(size)] = rng.randrange(len(TILES))
        neighbours = [0] * 6
        neighbours[2] = map_names[(k + 1) % len(map_names)]  # east leads on
        neighbours[5] = map_names[(k - 1) % len(map_names)]  # and back
        return Map(title=T["village"] if k == 0 else T["forest"], neighbours=neighbours, daylight_length=20 + k,
                   daylight_sprite=MapSprite(4, 0), music=mus_theme,
                   parallaxes=[Parallax(True, 10, 50, 0, 0, 100, MapSprite(4, 0))] if k == 0 else [],
                   patrol_paths=[PatrolPath(0, [(2, 2), (2, 8), (8, 8), (8, 2)])], layers=layers)
    maps = MapsSection([MapEntry(name, LazyMap(make_map(k))) for k, name in enumerate(map_names)])

    sections = [strings, en, de, fonts, music, sounds, movies, atlases, ui, tiles, chars, portraits, backgrounds,
                OpaqueSection(12, b"reserved section, kept as it is"), ui_elements, main_menu, hud, slots, alerts,
                credits, chooser, cutscenes, startup, attrs, actions, char_opts, npcs, spawners, dialogs, objects,
                crafting, tile_meta, quests, maps]
    game = Game(header, sections)  # type: ignore[arg-type]
    names = script_names(game)
    for _, sc in list(iter_scripts(game.sections)):
        sc.text, sc.code = (lambda c: (c.text, c.code))(canonical(sc, names))
    return game


def build_sample_game(rng: random.Random | None = None) -> bytes:
    """The sample game file's bytes."""
    return build_game(sample_game(rng))
