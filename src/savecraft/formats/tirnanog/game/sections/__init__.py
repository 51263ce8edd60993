"""One module per section type, like fontTools' ``ttLib.tables``: ``CODECS[type]`` decodes and encodes it.

Types 12-15 are reserved and types above 35 unknown: both are kept as
:class:`~.opaque.OpaqueSection` bytes.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, Union

from . import (
    opaque,
    s00_strings,
    s01_translations,
    s02_fonts,
    s03_music,
    s04_sounds,
    s05_movies,
    s06_atlases,
    s07_ui_sprites,
    s08_tile_sprites,
    s09_character_sprites,
    s10_portrait_sprites,
    s11_backgrounds,
    s16_ui_elements,
    s17_main_menu,
    s18_hud,
    s19_equipment_slots,
    s20_alerts,
    s21_credits,
    s22_choosers,
    s23_cutscenes,
    s24_startup,
    s25_attributes,
    s26_default_actions,
    s27_character_options,
    s28_npc_types,
    s29_spawners,
    s30_dialogs,
    s31_objects,
    s32_crafting,
    s33_tile_meta,
    s34_quests,
    s35_maps,
)
from .common import SpriteRef
from .opaque import OpaqueSection
from .s00_strings import StringsSection
from .s01_translations import TranslationSection
from .s02_fonts import FontsSection
from .s03_music import MusicSection
from .s04_sounds import SoundsSection
from .s05_movies import MoviesSection
from .s06_atlases import AtlasesSection
from .s07_ui_sprites import UiSpritesSection
from .s08_tile_sprites import TileSpritesSection
from .s09_character_sprites import CharacterSpritesSection
from .s10_portrait_sprites import PortraitSpritesSection
from .s11_backgrounds import BackgroundsSection
from .s16_ui_elements import UiElementsSection
from .s17_main_menu import MainMenuSection
from .s18_hud import HudSection
from .s19_equipment_slots import EquipmentSlotsSection
from .s20_alerts import AlertsSection
from .s21_credits import CreditsSection
from .s22_choosers import ChoosersSection
from .s23_cutscenes import CutscenesSection
from .s24_startup import StartupSection
from .s25_attributes import AttributesSection
from .s26_default_actions import DefaultActionsSection
from .s27_character_options import CharacterOptionsSection
from .s28_npc_types import NpcTypesSection
from .s29_spawners import SpawnersSection
from .s30_dialogs import DialogsSection
from .s31_objects import ObjectsSection
from .s32_crafting import CraftingSection
from .s33_tile_meta import TileMetaSection
from .s34_quests import QuestsSection
from .s35_maps import MapsSection

MODULES: tuple[ModuleType, ...] = (
    s00_strings, s01_translations, s02_fonts, s03_music, s04_sounds, s05_movies, s06_atlases,
    s07_ui_sprites, s08_tile_sprites, s09_character_sprites, s10_portrait_sprites, s11_backgrounds,
    s16_ui_elements, s17_main_menu, s18_hud, s19_equipment_slots, s20_alerts, s21_credits, s22_choosers,
    s23_cutscenes, s24_startup, s25_attributes, s26_default_actions, s27_character_options, s28_npc_types,
    s29_spawners, s30_dialogs, s31_objects, s32_crafting, s33_tile_meta, s34_quests, s35_maps,
)
CODECS: dict[int, ModuleType] = {m.TYPE: m for m in MODULES}
RESERVED = (12, 13, 14, 15)
LAST_TYPE = 35

Section = Union[
    StringsSection, TranslationSection, FontsSection, MusicSection, SoundsSection, MoviesSection,
    AtlasesSection, UiSpritesSection, TileSpritesSection, CharacterSpritesSection, PortraitSpritesSection,
    BackgroundsSection, UiElementsSection, MainMenuSection, HudSection, EquipmentSlotsSection, AlertsSection,
    CreditsSection, ChoosersSection, CutscenesSection, StartupSection, AttributesSection,
    DefaultActionsSection, CharacterOptionsSection, NpcTypesSection, SpawnersSection, DialogsSection,
    ObjectsSection, CraftingSection, TileMetaSection, QuestsSection, MapsSection, OpaqueSection,
]

SECTION_NAMES: dict[int, str] = {m.TYPE: m.__name__.rsplit(".", 1)[1][4:] for m in MODULES}
for _t in RESERVED:
    SECTION_NAMES[_t] = "reserved"


def section_type(section: Any) -> int:
    return int(section.TYPE)


def section_name(type_: int) -> str:
    return SECTION_NAMES.get(type_, "unknown")


SPRITE_SECTIONS = {0: 7, 1: 8, 2: 9, 3: 10}  # sprite category -> section type; 4: backgrounds (11)
CATEGORY_NAMES = {0: "ui", 1: "tiles", 2: "characters", 3: "portraits", 4: "backgrounds"}

__all__ = [
    "opaque",
    "CATEGORY_NAMES",
    "CODECS",
    "LAST_TYPE",
    "MODULES",
    "RESERVED",
    "SECTION_NAMES",
    "SPRITE_SECTIONS",
    "AlertsSection",
    "AtlasesSection",
    "AttributesSection",
    "BackgroundsSection",
    "CharacterOptionsSection",
    "CharacterSpritesSection",
    "ChoosersSection",
    "CraftingSection",
    "CreditsSection",
    "CutscenesSection",
    "DefaultActionsSection",
    "DialogsSection",
    "EquipmentSlotsSection",
    "FontsSection",
    "HudSection",
    "MainMenuSection",
    "MapsSection",
    "MoviesSection",
    "MusicSection",
    "NpcTypesSection",
    "ObjectsSection",
    "OpaqueSection",
    "PortraitSpritesSection",
    "QuestsSection",
    "Section",
    "SoundsSection",
    "SpawnersSection",
    "SpriteRef",
    "StartupSection",
    "StringsSection",
    "TileMetaSection",
    "TileSpritesSection",
    "TranslationSection",
    "UiElementsSection",
    "UiSpritesSection",
    "section_name",
    "section_type",
]
