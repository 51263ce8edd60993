"""Which layouts decode the blocks of one file, and the walk that decodes and encodes them.

The game that wrote a file is not named in it (Vanilla 4.0 and 4.2 both say
``VNLA`` and version 1 for most blocks), so it is recognised: the first game
in the layout table whose "player" layout reads the file's player block
exactly (with what the blocks before it say, where it needs that) is the file's game (or, when that block is damaged or its game has
no player layout, the game whose layouts read the most blocks, all of its
blocks but at most one), and only that game's layouts are used. A block
that game has no layout for, or that its layout does not read exactly
(bytes left over, a value the game's loader refuses, a re-encoding that is
not the same bytes) stays raw with the reason.

Re-encoding every block to prove it writes the same bytes back costs as
much as decoding it, so it is done only where it proves something: for a
layout that is not ``exact``, and for every layout when ``verify`` asks
(the tests do). An ``exact`` layout's decoder reads only canonical encodings
and refuses any other (:class:`~.layouts.NotCanonical`), which is the same
proof by construction; the tests re-encode every real file to hold it to it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...binary import Reader, Writer, active_sink, join_path, not_recording
from ...errors import FormatError, Report
from ...layout import Struct
from ...layout.reads import context_reads, needed_reads
from .layouts import Context, Layout, LayoutError, NotCanonical, game_context, games_for, layout_of, layouts_for

ANCHOR = "player"

# Every savefile_magic PWMAngband's history has (git log of src/server/savefile.c), for the
# reason a file gives: which releases wrote it.
PWM_MAGIC_RELEASES = {
    bytes((1, 1, 12, 3)): "1.2.0 beta 2",
    bytes((1, 3, 0, 1)): "1.3.0 to 1.4.0 beta 13",
    bytes((1, 4, 0, 0)): "1.4.0 beta 14",
    bytes((1, 4, 0, 1)): "1.4.0 (from November 2020)",
    bytes((1, 5, 0, 0)): "1.5.0 alpha",
    bytes((1, 5, 0, 1)): "1.5.0 beta",
    bytes((1, 5, 0, 2)): "1.5.0 beta 5 to 1.5.x",
    bytes((1, 6, 0, 0)): "1.6.0",
    bytes((1, 6, 1, 0)): "1.6.1",
    bytes((1, 6, 2, 0)): "1.6.2",
}
# PWMAngband's first 4 bytes are its ``savefile_magic`` (src/server/savefile.c), and its loader
# (check_header) loads a file only when they equal its own: they change with the layout, not
# with every release (1.2.0 beta 2 writes 1.1.12.3). So the bytes, not a trial read, pick the
# layouts, as the game does: one set of PWMAngband layouts, whose fields come and go with the
# magic (the ``pwm_magic`` context entry, see :func:`file_context`); bytes of no magic in this
# table leave every block raw.
PWM_GAME = "PWMAngband"
PWM_LAYOUTS_BY_MAGIC = {magic: PWM_GAME for magic in PWM_MAGIC_RELEASES}
PWM_MAGIC = "pwm_magic"  # the Context entry (pwmangband.MAGIC): the magic as one number


def file_context(variant: str, magic: bytes, game: str | None = None) -> Context:
    """The context the first block is read and written in: what the file header says that
    layouts depend on (PWMAngband's savefile magic, as 0x01060200 for 1.6.2.0), and what the
    game the file is read as says (a fork writing PWMAngband's header: Tangaria's ``pwm_fork``)."""
    ctx = Context()
    if variant == "PWMG" and len(magic) == 4:
        ctx.set(PWM_MAGIC, int.from_bytes(magic, "big"), "the file header")
    for name, value in game_context(variant, game).items():
        ctx.set(name, value, "the game")
    return ctx


def pwm_file_kind(found: list[Found]) -> str:
    """Which of PWMAngband's files this is, by its blocks, as the game knows by the file it
    opens: a player file starts with "header" (player_savers), the players file holds only
    "player_names", the server file the rest of server_savers (parties, houses, arenas...)."""
    names = [f.name for f in found]
    if names[:1] == ["header"]:
        return "player"
    if names and set(names) == {"player_names"}:
        return "players"
    return "server"


PWM_SERVER_GAME = "PWMAngband server"  # the layouts of server_savers and account_savers


def pwm_server_game(data: bytes, found: list[Found]) -> tuple[str | None, str]:
    """The game of a PWMAngband server or players file (no header block): its layouts are
    chosen by the savefile magic, as load_server_info and load_account_info take only files of
    their own magic; and why (for ``info``)."""
    kind = pwm_file_kind(found)
    game, why = header_game(data, "PWMG")
    if game is None:
        return None, why
    magic = bytes(data[:4])
    return PWM_SERVER_GAME, (f"a PWMAngband {kind} file (no header block) of savefile magic "
                             f"{'.'.join(str(b) for b in magic)}, which PWMAngband "
                             f"{PWM_MAGIC_RELEASES[magic]} writes")


def header_game(data: bytes, variant: str) -> tuple[str | None, str]:
    """The game the file's header alone names (PWMAngband's savefile magic), and when its
    layouts are not known, why not; ``(None, "")`` where the header names no game."""
    if variant != "PWMG":
        return None, ""
    magic = bytes(data[:4])
    game = PWM_LAYOUTS_BY_MAGIC.get(magic)
    if game is not None:
        return game, ""
    shown = ".".join(str(b) for b in magic)
    release = PWM_MAGIC_RELEASES.get(magic)
    known = ", ".join(".".join(str(b) for b in m) for m in PWM_LAYOUTS_BY_MAGIC)
    return None, (f"PWMAngband savefile magic {shown}" + (f" (written by PWMAngband {release})" if release
                  else "") + f": the game loads only files with its own magic, and savecraft has "
                  f"the layouts of magic {known} only")


@dataclass(slots=True)
class Found:
    """A block as the walk found it: its header and where its data lies in the file."""

    index: int
    start: int
    name: str
    version: int
    data_start: int
    size: int


# What trial reads left, by (block index, the layout's decode function, the values before the
# read of the Context entries that layout's description may look at: see
# :func:`savecraft.layout.reads.context_reads`; all of them, as a frozenset of items, for a
# layout that may look at any): how the read ended (one of the TRIAL_* outcomes), the model
# (None unless it read the block exactly), and what the read changed in the context (values
# and sources it set, entries it removed; a read that fails may have set some). A decode is a
# function of the bytes and of the context entries it looks at, so a block read once with one
# decoder and those entries is never read again: not by another game that registers the same
# description (NarSil 1.3 and 1.4 share most blocks) or gives it a context differing only in
# entries it does not look at (the ``faan_game`` of FAangband 1.x, which most blocks ignore),
# not by the next step of the game choice, not by the Decoder (which takes only exact reads,
# and only while no spans are recorded: a trial names no bytes).
TrialKey = tuple[int, Any, Any]
Trials = dict[TrialKey, tuple[str, Any, dict[str, int], dict[str, str], tuple[str, ...]]]
TRIAL_OK = "ok"  # read the whole block
TRIAL_SHORT = "short"  # read a record, with bytes of the block left over
TRIAL_FORMAT = "format"  # a FormatError: bytes the layout refuses
TRIAL_CANON = "not canonical"  # bytes its writer would not write back the same way
TRIAL_NEEDS = "needs"  # a LayoutError: a value an earlier block stores is missing


def choose_game(data: bytes, variant: str, found: list[Found], trials: Trials | None = None,
                because: list[str] | None = None, facts: dict[str, int] | None = None) -> str | None:
    """The game whose player layout reads the player block; failing that (a damaged or
    hand-made player block, a file cut short before it, a game without a player layout),
    the game whose layouts read
    the most blocks, provided they read all they claim but at most one.

    Both ways read blocks in trials; given ``trials``, every trial read is kept there (see
    :data:`Trials`), so no block is read twice with one decoder in one context, and the
    :class:`Decoder` takes up the chosen game's reads instead of reading again. ``because``
    receives the reason, for ``info`` (several games write one variant id: ``VNLA``);
    ``facts`` what the chosen player block tells the blocks before it (its model's
    ``context_facts``: the options block of Vanilla 4.2 by release), for the decoder's context.
    """
    said = because if because is not None else []
    cache: Trials = trials if trials is not None else {}
    named, why = header_game(data, variant)
    if why:
        return None
    anchor = next((f for f in found if f.name == ANCHOR), None)
    games: list[str] = []
    # No player block (a file cut short before it): the blocks before the cut decide, below.
    if named is not None:  # PWMAngband: the magic names the game, read with the magic in the Context
        # (then a fork that writes the same header, if PWMAngband's own player layout fails)
        mine = layouts_for(variant, anchor.name, anchor.version) if anchor is not None else []
        for layout in sorted(mine, key=lambda lay: lay.game != named):
            games.append(layout.game)
            if anchor is not None and _reads(data, layout, anchor,
                                             file_context(variant, data[:4], layout.game), cache):
                shown = ".".join(str(b) for b in data[:4])
                said.append(f"its player block reads exactly with the {layout.game} layout"
                            + (f" of savefile magic {shown}, which PWMAngband "
                               f"{PWM_MAGIC_RELEASES[bytes(data[:4])]} writes" if layout.game == named
                               else f" (a fork writing {named}'s savefile magic {shown}; {named}'s own "
                               "player layout does not read it)"))
                return layout.game
        games = [g for g in games if g == named]
    else:
        anchors = [lay for lay in (layouts_for(variant, anchor.name, anchor.version) if anchor is not None else ())
                   if named is None or lay.game == named]
        games += [lay.game for lay in anchors]
        # Block versions first, as a loader decides (no reader for a block: "can't be read"): the
        # player layouts of the games with a layout for every block of the file are read first,
        # and another game's only when none of them reads it.
        full = _covering(variant, found) if len(anchors) > 1 else set(games)
        covering = [lay for lay in anchors if lay.game in full]
        for pool in (covering, [lay for lay in anchors if lay not in covering]):
            # (a player layout that needs a size an earlier block stores gets that game's earlier blocks'
            # context; two games sharing the player layout, NarSil 1.3 and 1.4, are told apart by
            # reading every block, in _among)
            # (what each game's read of the blocks before the player block left: the decoder takes
            # the chosen game's instead of reading those blocks again)
            models = {lay.game: m for lay in pool if anchor is not None
                      and (m := _anchor_read(data, variant, found, anchor, lay, cache)) is not None}
            readers = list(models)
            if readers and anchor is not None:
                game, why = _among(data, variant, found, readers, cache)
                if not why and pool is covering and len(covering) == 1 and len(anchors) > 1:
                    why = (f"; of the {len(anchors)} games with a layout for this player block, only {game} "
                           "has one for every block name and version in the file")
                # A game whose releases write the same blocks says which release the block fits.
                reason = getattr(models[game], "release_reason", None)
                detail = reason() if callable(reason) else ""
                # (what the chosen player block tells the blocks before it: the model whose
                # release_reason this is, where its game has releases to tell apart)
                told = getattr(getattr(reason, "__self__", None), "context_facts", None)
                if facts is not None and callable(told):
                    facts.update(told())
                said.append(f"its player block reads exactly with the {game} layout"
                            + (f" (and the {named} savefile magic says so)" if named else "") + why
                            + (f"; {detail}" if detail else ""))
                return game
    for f in found:
        games += [lay.game for lay in layouts_for(variant, f.name, f.version) if lay.game not in games]
    if named is not None:
        games = [named] if named in games else []
    best, best_read, best_known = None, 0, 0
    tied = False
    for game in games:
        ctx, read, known = file_context(variant, data[:4], game), 0, 0
        for f in found:
            mine = layouts_for(variant, f.name, f.version, game)
            known += bool(mine)
            for lay in mine:
                if _reads(data, lay, f, ctx, cache):
                    read += 1
                    break
        if known >= 3 and read >= known - 1:
            if read > best_read:
                best, best_read, best_known = game, read, known
                tied = False
            elif read == best_read:
                tied = True  # two games read as much: a guess, which is not shown as a fact
    if tied:
        return None
    if best is not None:
        said.append(("the file has no player block" if anchor is None else
                     "no layout reads its player block") + f", and {best}'s layouts read "
                    f"{best_read} of the {best_known} blocks they have a layout for")
    elif named is not None and anchor is not None:
        said.append(_why_not(data, variant, named, anchor))
    return best


def _covering(variant: str, found: list[Found]) -> set[str]:
    """The games with a layout for every block name and version in the file."""
    games: set[str] | None = None
    for key in {(f.name, f.version) for f in found}:
        mine = set(games_for(variant, *key))
        games = mine if games is None else games & mine
        if not games:
            break
    return games or set()


def _among(data: bytes, variant: str, found: list[Found], readers: list[str],
           cache: Trials | None = None) -> tuple[str, str]:
    """Which of the games whose player layout reads the player block wrote the file, and why
    (nothing to say for one). Where several do (Vanilla 3.1 and 3.2 write the same versions;
    NarSil 1.3 and 1.4 share the player layout), trial reads of every block: the game whose
    layouts fail on the fewest of the blocks they have a layout for, then read the most (the
    first, on a tie).

    The games are read best first, a block at a time: the one that has failed on the fewest
    blocks so far reads its next block (the first of them, on a tie). Failures only add up, so
    once a game has read all its blocks failing on ``n``, a game that has failed on more than
    ``n`` cannot be chosen and is read no further: the file's own game is read whole (which its
    decode takes up again, from ``cache``) and another game only up to the first block that
    tells them apart, unless the file's own game fails on blocks too. The outcome is what
    reading every block under every game gives."""
    if len(readers) == 1:
        return readers[0], ""
    cache = cache if cache is not None else {}
    # Each game's blocks with its layouts for them, its context, how far it has read and how
    # many of them it failed on. (A game that reads a block stays the best: it reads on.)
    plans = [[(f, mine) for f in found if (mine := layouts_for(variant, f.name, f.version, game))]
             for game in readers]
    ctxs = [file_context(variant, data[:4], game) for game in readers]
    n = len(readers)
    at, fails, done = [0] * n, [0] * n, [False] * n
    least: int | None = None  # the fewest failures of a game that has read all its blocks
    while True:
        i = -1
        for k in range(n):
            if not done[k] and (least is None or fails[k] <= least) and (i < 0 or fails[k] < fails[i]):
                i = k
        if i < 0:
            break
        plan, ctx = plans[i], ctxs[i]
        while at[i] < len(plan):
            f, mine = plan[at[i]]
            at[i] += 1
            if not (_reads(data, mine[0], f, ctx, cache) if len(mine) == 1
                    else any(_reads(data, lay, f, ctx, cache) for lay in mine)):
                fails[i] += 1
                break
        if at[i] == len(plan):
            done[i] = True
            least = fails[i] if least is None else min(least, fails[i])
    best, best_key, best_read, best_known = readers[0], (1, 0), -1, 0
    for i, game in enumerate(readers):
        if not done[i]:
            continue  # failed on more blocks than a game that read all of its own
        key = (-fails[i], len(plans[i]) - fails[i])
        if best_read < 0 or key > best_key:
            best, best_key, best_read, best_known = game, key, key[1], len(plans[i])
    others = [g for g in readers if g != best]
    return best, (f"; {', '.join(others)} {'writes' if len(others) == 1 else 'write'} the same block "
                  f"versions, and trial reads of every block settle it: {best}'s layouts read "
                  f"{best_read} of the {best_known} blocks they have a layout for")


def _why_not(data: bytes, variant: str, game: str, f: Found) -> str:
    """Why the game the header names does not read the file's player block (a file of another
    game writing the same header: a fork), for the reason every block stays raw with."""
    shown = ".".join(str(b) for b in data[:4])
    for layout in layouts_for(variant, f.name, f.version, game):
        with not_recording():
            r = Reader(data, f.data_start, f.data_start + f.size, path=f"blocks[{f.index}]")
            try:
                layout.decode(r, file_context(variant, data[:4]))
            except (FormatError, LayoutError) as exc:
                found = str(exc.problems[0]) if isinstance(exc, FormatError) else str(exc)
                return (f"the {game} player layout of savefile magic {shown} does not read its "
                        f"player block ({found}); a file of another game with {game}'s header?")
            if not r.at_end():
                return (f"the {game} player layout of savefile magic {shown} leaves {r.remaining} "
                        f"bytes of its player block unread; a file of another game with {game}'s "
                        "header?")
    return f"no {game} layout reads its player block"


def _reads(data: bytes, layout: Layout, f: Found, ctx: Context, cache: Trials | None = None) -> bool:
    return _attempt(data, layout, f, ctx, cache)[0] == TRIAL_OK


def _anchor_read(data: bytes, variant: str, found: list[Found], anchor: Found, layout: Layout,
                 cache: Trials | None = None) -> Any:
    """The player block as ``layout`` reads it whole, or None; a player layout that needs a
    size an earlier block stores (Beleriand's languages, sized by its monster memory block)
    gets the context its own game's layouts of the blocks before it set. ``cache`` keeps
    (and gives back) the trial reads, as ``choose_game``'s ``trials``."""
    # (in what the game says: a fork's fields are conditions over it, FAangband 1.4's)
    first = file_context(variant, data[:4], layout.game)
    names = _looks_at(layout)
    needs = _needs(layout)
    absent = [n for n in names if n not in first.values and n in needs] if names is not None else []
    if not absent:
        how, model = _attempt(data, layout, anchor, first, cache)
        if how != TRIAL_NEEDS:  # else a value an earlier block stores: read those first
            return model if how == TRIAL_OK else None
        absent = []
    ctx = file_context(variant, data[:4], layout.game)
    for f in found:
        if f is anchor:
            break
        for lay in layouts_for(variant, f.name, f.version, layout.game):
            if _reads(data, lay, f, ctx, cache):
                break
    if absent and names is not None and any(ctx.values.get(n, _ABSENT) != first.values.get(n, _ABSENT)
                                            for n in names if n not in absent):
        # (the blocks before changed a value the layout may look at: the read in the file's
        # context alone decides after all, as below)
        how, model = _attempt(data, layout, anchor, first, cache)
        if how != TRIAL_NEEDS:
            return model if how == TRIAL_OK else None
    # A layout that only needs (a Ctx count, ctx.need) entries the file's context lacks, and
    # finds every other entry it may look at as there, reads in that context as in this one up
    # to the first of them, and there stops for want of it (TRIAL_NEEDS: this read decides),
    # unless it fails before (so does this one) or never looks at them (this one reads the
    # same): so that read is not made.
    how, model = _attempt(data, layout, anchor, ctx, cache)
    return model if how == TRIAL_OK else None


_NEEDS: dict[Any, frozenset[str]] = {}


def _needs(layout: Layout) -> frozenset[str]:
    """The context entries ``layout``'s decoder looks at only as needs (see needed_reads)."""
    got = _NEEDS.get(layout.decode)
    if got is None:
        struct = getattr(layout.decode, "__self__", None)
        got = needed_reads(struct) if isinstance(struct, Struct) and layout.decode == struct.read else frozenset()
        _NEEDS[layout.decode] = got
    return got


def _trial(data: bytes, layout: Layout, f: Found, ctx: Context,
           cache: Trials | None = None) -> tuple[bool, Any]:
    """Whether ``layout`` reads the whole block (and what it read)."""
    how, model = _attempt(data, layout, f, ctx, cache)
    return how == TRIAL_OK, model


def trial_key(f: Found, layout: Layout, ctx: Context) -> TrialKey:
    """What a trial read of block ``f`` is a function of: its bytes, the decoder, and the values
    of the context entries the decoder may look at (all of them where that is not known)."""
    names = _looks_at(layout)
    if names is None:
        return f.index, layout.decode, frozenset(ctx.values.items())
    get = ctx.values.get
    return f.index, layout.decode, tuple([get(n, _ABSENT) for n in names])


_ABSENT: Any = object()  # the value of an entry not in the context (no stored number is it)
_LOOKS_AT: dict[Any, tuple[str, ...] | None] = {}


def _looks_at(layout: Layout) -> tuple[str, ...] | None:
    """The names of the context entries ``layout``'s decoder may look at, in a fixed order; None
    when it may look at any (a decoder that is not a record description's reader)."""
    try:
        return _LOOKS_AT[layout.decode]
    except KeyError:
        pass
    struct = getattr(layout.decode, "__self__", None)
    names = context_reads(struct) if isinstance(struct, Struct) and layout.decode == struct.read else None
    got = tuple(sorted(names)) if names is not None else None
    _LOOKS_AT[layout.decode] = got
    return got


def _replay(ctx: Context, kept: tuple[str, Any, dict[str, int], dict[str, str], tuple[str, ...]]) -> None:
    """Make in ``ctx`` the changes the kept trial read made in its context."""
    ctx.values.update(kept[2])
    ctx.source.update(kept[3])
    for name in kept[4]:
        ctx.values.pop(name, None)
        ctx.source.pop(name, None)


def _attempt(data: bytes, layout: Layout, f: Found, ctx: Context,
             cache: Trials | None = None) -> tuple[str, Any]:
    """How ``layout``'s read of the block ends (a TRIAL_* outcome) and what it read (None
    unless the whole block); ``ctx`` is left as the read leaves it. Given ``cache``, a read
    made before with the same decoder and context is not made again: its outcome and the
    context it left are taken from there."""
    key: Any = None
    if cache is not None:
        key = trial_key(f, layout, ctx)
        kept = cache.get(key)
        if kept is not None:
            _replay(ctx, kept)
            return kept[0], kept[1]
        before, sources = ctx.values.copy(), ctx.source.copy()
    if active_sink() is None:  # (the usual case: no spans to keep out, no scope to enter)
        how, model = _read_whole(data, layout, f, ctx)
    else:
        with not_recording():  # a trial: only the read that is kept names bytes
            how, model = _read_whole(data, layout, f, ctx)
    if how != TRIAL_OK:
        model = None
    if cache is not None:
        values, source = ctx.values, ctx.source
        cache[key] = (how, model, _changed(values, before), _changed(source, sources),
                      tuple(before.keys() - values.keys()))
    return how, model


def _read_whole(data: bytes, layout: Layout, f: Found, ctx: Context) -> tuple[str, Any]:
    """One trial read of block ``f``: how it ends, and what it read."""
    r = Reader(data, f.data_start, f.data_start + f.size)
    try:
        model = layout.decode(r, ctx)
    except NotCanonical:
        return TRIAL_CANON, None
    except LayoutError:
        return TRIAL_NEEDS, None
    except FormatError:
        return TRIAL_FORMAT, None
    return (TRIAL_OK if r.at_end() else TRIAL_SHORT), model


def _changed(after: dict[str, Any], before: dict[str, Any]) -> dict[str, Any]:
    """The entries of ``after`` that ``before`` does not have with the same value."""
    if after == before:  # (most blocks set nothing: one comparison in C)
        return {}
    try:
        return dict(after.items() - before.items())
    except TypeError:  # (a value that cannot be hashed)
        return {n: v for n, v in after.items() if n not in before or before[n] != v}


@dataclass(slots=True)
class Decoded:
    """The outcome for one block: a model, or the reason it stays raw (and whether that is a fault)."""

    model: Any = None
    reason: str = ""
    failed: bool = False


class Decoder:
    """Decodes blocks in file order, carrying the context earlier blocks set."""

    def __init__(self, data: bytes, variant: str, game: str | None, report: Report,
                 verify: bool = True, trials: Trials | None = None, why: str = "",
                 facts: dict[str, int] | None = None) -> None:
        self.data = data
        self.why = why  # when given: why no block of this file has a layout (not a fault)
        # Trial reads of choose_game, used where the context is the same as the trial's was
        # (a decode is a function of the bytes and the context) and no spans are recorded.
        self.trials = trials if trials and active_sink() is None else None
        # (the blocks a trial read whole: the others need no key made)
        self._tried = {key[0] for key, kept in self.trials.items() if kept[0] == TRIAL_OK} \
            if self.trials else set()
        self.variant = variant
        self.game = game
        self.report = report
        self.verify = verify
        self.ctx = file_context(variant, data[:4], game)
        self.enc_ctx = file_context(variant, data[:4], game)
        for name, value in (facts or {}).items():  # what the player block tells earlier blocks
            self.ctx.set(name, value, "player")
            self.enc_ctx.set(name, value, "player")
        self._layouts: dict[tuple[str, int], list[Layout]] = {}

    def layouts(self, f: Found) -> list[Layout]:
        if self.game is None:
            return []
        got = self._layouts.get((f.name, f.version))
        if got is None:
            got = layouts_for(self.variant, f.name, f.version, self.game)
            self._layouts[f.name, f.version] = got
        return got

    def decode(self, f: Found) -> Decoded:
        layouts = self.layouts(f)
        if not layouts:
            unknown = self.why or header_game(self.data, self.variant)[1]
            if unknown:
                why = unknown
            elif self.game is None:
                why = (f"no layout for variant {self.variant!r} reads this file's player block"
                       if any(layouts_for(self.variant, ANCHOR, v) for v in range(1, 9))
                       else f"no layouts for variant {self.variant!r}")
            else:
                why = f"no {self.game} layout for {f.name!r} version {f.version}"
            return Decoded(reason=why)
        path = f"blocks[{f.index}]"
        end = f.data_start + f.size
        why = ""
        for layout in layouts:
            trial = self.trials.get(trial_key(f, layout, self.ctx)) \
                if self.trials is not None and f.index in self._tried else None
            if trial is not None and trial[0] == TRIAL_OK and layout.exact and not self.verify:
                # The choice read it whole, and it is exact by construction: nothing can fail.
                _replay(self.ctx, trial)
                self.enc_ctx.values.update(self.ctx.values)
                self.enc_ctx.source.update(self.ctx.source)
                return Decoded(trial[1])
            # A layout that fails must leave no trace: a later block that depends on
            # this one must then stay raw too, as building it would have no sizes.
            saved = (self.ctx.values.copy(), self.ctx.source.copy(),
                     self.enc_ctx.values.copy(), self.enc_ctx.source.copy())
            try:
                if trial is not None and trial[0] == TRIAL_OK:
                    model = trial[1]
                    _replay(self.ctx, trial)
                else:
                    r = Reader(self.data, f.data_start, end, path=path, what=f"the {f.name!r} block")
                    model = layout.decode(r, self.ctx)
                    if not r.at_end():
                        r.fail("", f"the end of the block ({layout.game} layout)",
                               f"{r.remaining} more bytes")
                if self.verify or not layout.exact:
                    w = Writer(path)
                    layout.encode(model, w, self.enc_ctx)
                    same = w.getvalue() == self.data[f.data_start:end]
                else:  # exact by construction; its encoder would have set what its decoder did
                    same = True
                    self.enc_ctx.values.update(self.ctx.values)
                    self.enc_ctx.source.update(self.ctx.source)
            except NotCanonical:
                same = False
            except LayoutError as exc:
                why = f"the {layout.game} layout needs {exc}"
                self.report.warning(f.data_start, path, f"the {layout.game} {f.name!r} layout", why)
                self._restore(saved)
                continue
            except FormatError as err:
                p = err.problems[0]
                why = f"the {layout.game} layout does not fit: {p}"
                self.report.warning(p.offset, p.path, p.expected, p.found)
                self._restore(saved)
                continue
            if not same:
                why = f"the {layout.game} layout does not write the same bytes back"
                self.report.warning(f.data_start, path, "a layout that writes the block back exactly", why)
                self._restore(saved)
                continue
            return Decoded(model)
        return Decoded(reason=why, failed=True)

    def _restore(self, saved: tuple[dict[str, int], dict[str, str], dict[str, int], dict[str, str]]) -> None:
        self.ctx.values, self.ctx.source, self.enc_ctx.values, self.enc_ctx.source = saved


def encode(model: Any, ctx: Context, path: str) -> bytes:
    """A decoded block's bytes (``ctx`` carries sizes from the blocks before it)."""
    layout = layout_of(model)
    if layout is None:
        raise FormatError(None, path, "a block model with a registered layout", type(model).__name__)
    w = Writer(path)
    try:
        layout.encode(model, w, ctx)
    except LayoutError as exc:
        raise FormatError(None, path, f"the {layout.game} {layout.name!r} layout's inputs",
                          f"missing {exc}") from None
    except FormatError as err:
        p = err.problems[0]
        if p.path.startswith(path):
            raise
        raise FormatError(p.offset, join_path(path, p.path), p.expected, p.found) from None
    return w.getvalue()
