"""What the variant layouts share: the "is the character alive" switch of the level blocks,
the experience rule of a player, and the common names every game's objects answer to
(``quantity``, ``note``)."""

from __future__ import annotations

from typing import ClassVar, Protocol

from ....errors import FormatError
from . import Context


def alive(ctx: Context) -> bool:
    """The game writes no level (map, objects, monsters) for a dead character."""
    return not ctx.need("is_dead", "misc")


# -- the player: experience, level and stats as the games keep them together ----------------

# player_exp[] of Vanilla 3.x to 4.2 (src/player.c, the same table at 4.0.1 and 4.2.0),
# Anquestria (src/tables.c) and PWMAngband (src/common/util.c): the experience a level
# needs, before the race's factor. (PWMAngband's adv_exp divides by 100 before multiplying
# from the 20th entry on: every entry from there is a multiple of 100, so the same numbers.)
VANILLA_EXP = (10, 25, 45, 70, 100, 140, 200, 280, 380, 500, 650, 850, 1100, 1400, 1800, 2300,
               2900, 3600, 4400, 5400, 6800, 8400, 10200, 12500, 17500, 25000, 35000, 50000,
               75000, 100000, 150000, 200000, 275000, 350000, 450000, 550000, 700000, 850000,
               1000000, 1250000, 1500000, 1800000, 2100000, 2400000, 2700000, 3000000, 3500000,
               4000000, 4500000, 5000000)
PY_MAX_EXP = 99999999  # player.h of every game here
PY_MAX_LEVEL = 50


class _Levels(Protocol):
    """What :class:`Experience` reads and sets in a player model."""

    EXP_TABLE: ClassVar[tuple[int, ...]]
    EXP_FACTOR: ClassVar[bool]
    MAX_LEV_FROM_MAX_EXP: ClassVar[bool]
    exp: int
    max_exp: int
    lev: int
    max_lev: int
    stat_cur: list[int]
    stat_max: list[int]


def exp_needed(p: _Levels, level: int) -> int:
    """The experience the game asks for ``level`` (2 to 50): its table times the race's factor."""
    factor = getattr(p, "expfact", 100) if p.EXP_FACTOR else 100
    return p.EXP_TABLE[level - 2] * factor // 100


def _adjust_level(p: _Levels) -> None:
    """``adjust_level``: the maximum experience, then the level, then the highest level."""
    p.max_exp = max(p.max_exp, p.exp)
    while p.lev > 1 and p.exp < exp_needed(p, p.lev):
        p.lev -= 1
    while p.lev < PY_MAX_LEVEL and p.exp >= exp_needed(p, p.lev + 1):
        p.lev += 1
    p.max_lev = max(p.max_lev, p.lev)
    if p.MAX_LEV_FROM_MAX_EXP:
        while p.max_lev < PY_MAX_LEVEL and p.max_exp >= exp_needed(p, p.max_lev + 1):
            p.max_lev += 1


def _edited(p: _Levels, name: str) -> None:
    """:meth:`Experience.__edited__`: refuse what the game would not keep, then recompute.

    Two edits in one command that disagree (an experience, then a level outside
    its range) end with the experience moved: the edit's read-back refuses that.
    """
    if name in ("exp", "max_exp"):
        for field_name in ("exp", "max_exp"):
            value = getattr(p, field_name)
            if not 0 <= value <= PY_MAX_EXP:
                raise FormatError(None, f"player.{field_name}", f"an experience from 0 to {PY_MAX_EXP} "
                                  "(PY_MAX_EXP)", str(value))
        if name == "max_exp" and p.max_exp < p.exp:
            raise FormatError(None, "player.max_exp", f"at least the current experience {p.exp} (the "
                              "game raises the maximum to it)", str(p.max_exp))
        _adjust_level(p)
    elif name == "lev":
        if not 1 <= p.lev <= PY_MAX_LEVEL:
            raise FormatError(None, "player.lev", f"a level from 1 to {PY_MAX_LEVEL} (load.c rd_player: "
                              "'Invalid player level')", str(p.lev))
        if p.lev > 1 and p.exp < exp_needed(p, p.lev):
            p.exp = exp_needed(p, p.lev)
        elif p.lev < PY_MAX_LEVEL and p.exp >= exp_needed(p, p.lev + 1):
            p.exp = exp_needed(p, p.lev + 1) - 1
        _adjust_level(p)
    elif name in ("stat_cur", "stat_max"):
        for i, (cur, top) in enumerate(zip(p.stat_cur, p.stat_max)):
            if cur > top:
                if name == "stat_cur":
                    p.stat_max[i] = cur
                else:
                    p.stat_cur[i] = top


def _gain(p: _Levels, value: int) -> None:
    p.exp = value
    p.max_exp = max(p.max_exp, value)


class Experience:
    """What the games keep together in a player: experience, its maximum, the level.

    ``experience`` sets current and maximum experience together, the way the
    game gains it (the maximum never falls below the current value).

    An edit by path (``savecraft edit --set player.exp=...``) calls
    :meth:`__edited__` with the field's name, which recomputes what the game
    recomputes (``adjust_level`` of 4.2's player.c, ``check_experience`` of
    the 3.x games): the maximum experience follows the current one up, and
    the level (and the highest level) follows the experience through the
    game's ``player_exp`` table times the race's ``expfact`` percentage.
    Setting ``lev`` sets the experience to the least that level needs when
    it had less (or to one point below the next level when it had more), as
    the game's debug command to gain levels does. A stat's current value
    above its maximum raises the maximum (``player_stat_inc``); a maximum
    below the current value lowers it (a permanent drain).

    A game whose table differs says so: ``EXP_TABLE`` (FAangband's own),
    ``EXP_FACTOR`` False where the level ignores the race's factor (FAangband
    1 compares the table alone), ``MAX_LEV_FROM_MAX_EXP`` False where the
    highest level follows only levels reached (PWMAngband).
    """

    __slots__ = ()
    EXP_TABLE: ClassVar[tuple[int, ...]] = VANILLA_EXP
    EXP_FACTOR: ClassVar[bool] = True
    MAX_LEV_FROM_MAX_EXP: ClassVar[bool] = True
    exp: int
    max_exp: int
    lev: int
    max_lev: int
    stat_cur: list[int]
    stat_max: list[int]

    @property
    def experience(self: _Levels) -> int:
        return self.exp

    @experience.setter
    def experience(self: _Levels, value: int) -> None:
        _gain(self, value)

    def __edited__(self: _Levels, name: str) -> None:
        """Bring the values the game keeps with field ``name`` into line after an edit of it."""
        _edited(self, name)


# -- objects: how many, and the inscription ---------------------------------------------------


class _Counted(Protocol):
    number: int


def _set_number(obj: _Counted, value: int) -> None:
    obj.number = value


class Quantity:
    """``quantity``: how many objects the stack holds (the record's ``number``)."""

    __slots__ = ()
    number: int

    @property
    def quantity(self) -> int:
        return self.number

    @quantity.setter
    def quantity(self, value: int) -> None:
        _set_number(self, value)


class Inscribed:
    """``note``: the object's inscription, for the records that store it as ``inscription``."""

    __slots__ = ()
    inscription: str

    @property
    def note(self) -> str:
        return self.inscription

    @note.setter
    def note(self, value: str) -> None:
        _set_inscription(self, value)


class _Noted(Protocol):
    inscription: str


def _set_inscription(obj: _Noted, value: str) -> None:
    obj.inscription = value


class _Object(Protocol):
    @property
    def quantity(self) -> int: ...

    @quantity.setter
    def quantity(self, value: int) -> None: ...

    @property
    def note(self) -> str: ...

    @note.setter
    def note(self, value: str) -> None: ...


class _Holds(Protocol):
    @property
    def item(self) -> _Object: ...


class HeldQuantity:
    """``quantity`` and ``note`` of a list entry that wraps one object (its slot and the object).

    Only the object changes: where a game also stores the player's knowledge of
    it (PWMAngband's ``known``), that copy keeps its own count and inscription,
    as the game writes them (its known copies in the real files count 1 and
    carry no inscription whatever the object holds).
    """

    __slots__ = ()

    @property
    def quantity(self: _Holds) -> int:
        return self.item.quantity

    @quantity.setter
    def quantity(self: _Holds, value: int) -> None:
        self.item.quantity = value

    @property
    def note(self: _Holds) -> str:
        return self.item.note

    @note.setter
    def note(self: _Holds, value: str) -> None:
        self.item.note = value
