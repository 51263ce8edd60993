"""From the model side: random values of each record type encode and decode back to themselves.

The strategies are derived from the dataclasses' type hints (small integers
that fit every field, short lists, lists of fixed size kept at their size),
so a field added to a model is covered without touching this file.
"""

from __future__ import annotations

import dataclasses
import typing
from dataclasses import replace
from typing import Any

from hypothesis import given, reject
from hypothesis import strategies as st

from savecraft.binary import Reader, Writer
from savecraft.errors import FormatError, Report
from savecraft.formats.tirnanog.game.assets import AssetContext
from savecraft.formats.tirnanog.game.bytecode import Script
from savecraft.formats.tirnanog.game.header import Header
from savecraft.formats.tirnanog.game.sections import s18_hud, s20_alerts
from savecraft.formats.tirnanog.game.sections.common import BuildContext, ParseContext
from savecraft.formats.tirnanog.game.sections.s22_choosers import ChooserAsset
from savecraft.formats.tirnanog.game.sections.s23_cutscenes import CutsceneAsset
from savecraft.formats.tirnanog.game.sections.s27_character_options import CharacterOptionAsset
from savecraft.formats.tirnanog.game.sections.s28_npc_types import NpcAsset
from savecraft.formats.tirnanog.game.sections.s29_spawners import SpawnerAsset
from savecraft.formats.tirnanog.game.sections.s30_dialogs import DialogAsset
from savecraft.formats.tirnanog.game.sections.s31_objects import ObjectAsset, ObjectMeta
from savecraft.formats.tirnanog.game.sections.s32_crafting import CraftingAsset
from savecraft.formats.tirnanog.game.sections.s34_quests import QuestAsset
from savecraft.formats.tirnanog.game.sections.sprites import SpriteMapAsset

SCRIPTS = st.sampled_from([Script(), Script(text="    PUSH8 1\n    POP a\n    END\n"),
                           Script(text="    FNC0 market\n    END\n")])


def strategy(tp: Any, default_len: int | None = None) -> st.SearchStrategy[Any]:
    if tp is int:
        return st.integers(0, 127)
    if tp is str:
        return st.sampled_from(["g", "c", "a"])
    if tp is bytes:
        return st.just(b"")
    if tp is Script:
        return SCRIPTS
    origin = typing.get_origin(tp)
    if origin is list:
        (item,) = typing.get_args(tp)
        if default_len and default_len > 3:
            return st.lists(strategy(item), min_size=default_len, max_size=default_len)
        return st.lists(strategy(item), max_size=3)
    if dataclasses.is_dataclass(tp):
        hints = typing.get_type_hints(tp)
        kwargs = {}
        for f in dataclasses.fields(tp):
            n = None
            if f.default_factory is not dataclasses.MISSING:  # type: ignore[misc]
                d = f.default_factory()  # type: ignore[misc]
                n = len(d) if isinstance(d, list) else None
            kwargs[f.name] = strategy(hints[f.name], n)
        return st.builds(tp, **kwargs)
    raise TypeError(tp)


def roundtrip_asset(cls: Any, value: Any) -> None:
    a = cls()
    a.path = "asset"
    ctx = AssetContext(Report(strict=True))
    try:
        content = a.encode(value, ctx)
    except FormatError:
        reject()
    assert a.decode(content, 0, ctx) == value


ASSETS = [NpcAsset, DialogAsset, SpawnerAsset, CraftingAsset, QuestAsset, CutsceneAsset, CharacterOptionAsset,
          SpriteMapAsset]


@given(st.data())
def test_structured_assets_from_random_values(data: st.DataObject) -> None:
    cls = data.draw(st.sampled_from(ASSETS))
    roundtrip_asset(cls, data.draw(strategy(cls.VALUE if hasattr(cls, "VALUE") else cls.value_type())))


@given(strategy(ObjectMeta))
def test_object_meta_from_random_values(o: ObjectMeta) -> None:
    o = replace(o, collision_mask=bytes(i % 3 for i in range(o.mask_width * o.mask_height)))
    roundtrip_asset(ObjectAsset, o)


@given(st.data())
def test_chooser_from_random_values(data: st.DataObject) -> None:
    from savecraft.formats.tirnanog.game.sections.s22_choosers import Chooser, ChooserOption
    chooser = data.draw(strategy(Chooser))
    fixed = []
    for o in chooser.options:
        if o.position & 0x7F == 13:
            fixed.append(replace(o, sprites=[], rect=[1, 2, 3, 4]))
        else:
            fixed.append(replace(o, sprites=[1, 2, 3], rect=[], rect_padding=0))
    chooser.options = fixed
    assert all(isinstance(o, ChooserOption) for o in fixed)
    roundtrip_asset(ChooserAsset, chooser)


@given(st.data())
def test_fixed_sections_from_random_values(data: st.DataObject) -> None:
    mod = data.draw(st.sampled_from([s18_hud, s20_alerts]))
    cls = mod.HudSection if mod is s18_hud else mod.AlertsSection
    value = data.draw(strategy(cls))
    w = Writer()
    try:
        mod.encode(value, w, BuildContext(Header()))
    except FormatError:
        reject()
    report = Report(strict=False)
    ctx = ParseContext(None, 0, Header(), report, AssetContext(report))  # type: ignore[arg-type]
    again = mod.decode(Reader(w.getvalue()), ctx)
    assert again == value
