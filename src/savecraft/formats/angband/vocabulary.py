"""The names every Angband game's blocks answer to, whichever game wrote the file.

``BlockSave.player``, ``.gear`` and the other properties find a block by the
name the file gives it (``player``; ``gear`` or, in the 3.x games and
FAangband, ``inventory``), decoded by whichever game's layout read it. What
they return is typed by what all those models share, as Protocols: a new
game's module gives its models these fields (or properties of these names
where its record stores them under another name) and the paths
``player.au``, ``player.exp``, ``gear.items[0].quantity``,
``gear.items[0].note`` and the others work on its files without a change
anywhere else. A game's own fields add paths; they never rename these.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol
import dataclasses

# The property of BlockSave that shows a block, by the block's name in the file.
VIEW_OF_BLOCK = {
    "player": "player", "gear": "gear", "inventory": "gear", "dungeon": "dungeon",
    "history": "history", "stores": "stores", "misc": "misc", "header": "header", "home": "home",
}


class PlayerBlock(Protocol):
    """The character: gold, experience and level, stats, hit and spell points (every game)."""

    au: int
    exp: int
    max_exp: int
    lev: int
    max_lev: int
    stat_cur: list[int]
    stat_max: list[int]
    chp: int
    mhp: int
    csp: int
    msp: int

    @property
    def experience(self) -> int: ...


class GearEntry(Protocol):
    """One carried object: where it is (``slot``), how many, its inscription."""

    slot: int

    @property
    def item(self) -> Any: ...

    @property
    def quantity(self) -> int: ...

    @quantity.setter
    def quantity(self, value: int) -> None: ...

    @property
    def note(self) -> str: ...

    @note.setter
    def note(self, value: str) -> None: ...


class GearBlock(Protocol):
    """What the character carries (the ``gear`` block, or ``inventory`` in the 3.x games)."""

    @property
    def items(self) -> Sequence[GearEntry]: ...


class DungeonBlock(Protocol):
    """Where the character is: ``depth`` (0: the town; FAangband: its stage)."""

    @property
    def depth(self) -> int: ...


class HistoryBlock(Protocol):
    """The character's history: one entry per event the game noted."""

    @property
    def entries(self) -> Sequence[Any]: ...


class StoresBlock(Protocol):
    """The town's stores, in the game's store order (the home is one of them)."""

    @property
    def stores(self) -> Sequence[Any]: ...


class MiscBlock(Protocol):
    """Whether the character is dead, and whether it won."""

    is_dead: int
    total_winner: int


class HomeBlock(Protocol):
    """PWMAngband's home block: the objects kept at home."""

    @property
    def items(self) -> Sequence[Any]: ...


class HeaderBlock(Protocol):
    """PWMAngband's header block: the character's name, race and class."""

    full_name: str
    race: str
    character_class: str


# Each view's Protocol: a block is shown through the view only when its model answers it.
PROTOCOL_OF_VIEW: dict[str, type] = {
    "player": PlayerBlock, "gear": GearBlock, "dungeon": DungeonBlock, "history": HistoryBlock,
    "stores": StoresBlock, "misc": MiscBlock, "home": HomeBlock, "header": HeaderBlock,
}
_MEMBERS: dict[type, frozenset[str]] = {}
_ANSWERS: dict[tuple[type, type], bool] = {}


def members(proto: type) -> frozenset[str]:
    """The names a Protocol of this module asks for: its fields and its properties."""
    found = _MEMBERS.get(proto)
    if found is None:
        names = set(vars(proto).get("__annotations__", {}))
        names |= {n for n, v in vars(proto).items() if isinstance(v, property)}
        found = _MEMBERS[proto] = frozenset(n for n in names if not n.startswith("_"))
    return found


def answers(cls: type, proto: type) -> bool:
    """Whether instances of the model class ``cls`` have every name ``proto`` asks for
    (dataclass fields, slots and properties alike), but those its game does not store at all,
    which the model names in ``NOT_STORED`` (Xygos keeps no spell points): their paths are then
    reported missing by name, never renamed."""
    key = (cls, proto)
    ok = _ANSWERS.get(key)
    if ok is None:
        fields = {f.name for f in dataclasses.fields(cls)} if dataclasses.is_dataclass(cls) else set()
        absent: frozenset[str] = getattr(cls, "NOT_STORED", frozenset())
        ok = _ANSWERS[key] = all(n in fields or hasattr(cls, n) or n in absent for n in members(proto))
    return ok


def view_of(cls: type, block_name: str) -> str | None:
    """The BlockSave property that shows a block of this name and model class, or None."""
    view = VIEW_OF_BLOCK.get(block_name)
    if view is None or not answers(cls, PROTOCOL_OF_VIEW[view]):
        return None
    return view


def object_name(entry: Any) -> str | None:
    """A carried object's name as the character sheet shows it, where the file names its kind
    (4.2 stores kinds by name; the older games store indexes into data files savecraft does
    not have, so None)."""
    name = getattr(entry, "name", None)
    return name if isinstance(name, str) else None
