"""Mending a damaged Angband block savefile: what the game's loader would stumble on, and what it can do without.

The loaders of every game of the family (``try_load`` in Vanilla's
``savefile.c``, PWMAngband's ``src/server/savefile.c``) read block after block
until the file ends: a header (16-byte name, version, size, checksum), then
``size`` bytes and the padding. They never compare the checksum, but a block
that ends past the end of the file, a header that is not one, or a block its
loader cannot read ends the load ("Savefile is corrupted"). So the damage
players meet is a file cut short (a copy, a full disk, a crash while the game
wrote its temporary ``.new`` file), bytes overwritten (zeroed, flipped), or a
size field that no longer fits its data.

:func:`repair` works on the bytes alone (sans-IO) and decides, block by block:

* a block whose header and data are sound but whose checksum is not the sum of
  its bytes, and which its game's layout still reads exactly: its checksum is
  recomputed (a changed byte may have changed a value: it is said so);
* a size field that disagrees with the data, where the next block header shows
  where the data really ends and the stored checksum confirms it: the size is
  rebuilt;
* a block the game can do without (:data:`OPTIONAL`), damaged or cut short:
  it is dropped, and what it held is named as lost;
* anything else (the player, the gear, the dungeon, a block that cannot be
  named, blocks that were never written): not repaired, with the reason.

Every block before the damage is kept byte for byte; the result must validate
(the command checks it again before writing anything).
"""

from __future__ import annotations

from ...binary import cached_struct
from ...errors import Report
from ...registry import Repair
from .block import BLOCK_HEADER, NAME_SIZE, RawBlock, block_name, parse
from .sniffing import BLOCK_NAME, MAGIC, PWMG, byte_sum

_HEADER = cached_struct("<" + (BLOCK_HEADER.code or ""))  # a block header's values, as block.py declares them
HEAD = _HEADER.size
PAD = b"x"

# Blocks the game can load a character without, and what the player loses with each: the
# loaders fill only these from them and start empty without them (Vanilla 3.5 to 4.2,
# FAangband, PWMAngband player files alike).
OPTIONAL = {
    "description": "the savefile menu's line (the game writes it again on the next save)",
    "messages": "the message log",
    "history": "the character's history notes (level feelings, artifacts found, levels gained)",
}

# The order each game writes its blocks in (the ``savers`` table of its save.c or savefile.c),
# so that a file cut short says which blocks were never written.
SAVE_ORDERS = (
    ("Vanilla 4.2", ("description", "rng", "options", "messages", "monster memory",
                            "object memory", "quests", "player", "ignore", "misc", "artifacts",
                            "player hp", "player spells", "gear", "stores", "dungeon", "objects",
                            "monsters", "traps", "chunks", "history")),
    ("Vanilla 4.1", ("description", "rng", "options", "messages", "monster memory",
                     "object memory", "quests", "player", "ignore", "misc", "artifacts",
                     "player hp", "player spells", "gear", "stores", "dungeon", "objects",
                     "monsters", "traps", "chunks", "history")),
    ("Xygos 0.0.3", ("description", "rng", "options", "messages", "monster memory",
                     "object memory", "world", "quests", "player", "ignore", "misc", "artifacts",
                     "player hp", "player spells", "gear", "stores", "dungeon", "objects",
                     "monsters", "traps", "chunks", "history")),
    ("Vanilla 4.0", ("description", "rng", "options", "messages", "monster memory", "object memory",
                     "quests", "artifacts", "player", "ignore", "misc", "player hp", "player spells",
                     "gear", "stores", "dungeon", "objects", "monsters", "traps", "chunks", "history")),
    ("Vanilla 3.5", ("description", "rng", "options", "messages", "monster memory", "object memory",
                     "quests", "artifacts", "player", "squelch", "misc", "player hp", "player spells",
                     "inventory", "stores", "dungeon", "objects", "monsters", "ghost", "history")),
    ("PWMAngband", ("header", "description", "monster memory", "object memory", "player",
                                "ignore", "misc", "artifacts", "player hp", "player spells", "gear",
                                "dungeon", "objects", "traps", "history", "wild map", "home")),
)


class _Block:
    """One block as the repair walk found it; ``fix`` is what happens to it."""

    __slots__ = ("start", "name", "version", "data_start", "size", "checksum", "fix")

    def __init__(self, start: int, name: str, version: int, data_start: int, size: int,
                 checksum: int, fix: str = "") -> None:
        self.start, self.name, self.version = start, name, version
        self.data_start, self.size, self.checksum, self.fix = data_start, size, checksum, fix

    def data(self, buf: bytes) -> bytes:
        return buf[self.data_start:self.data_start + self.size]


def _sound(buf: bytes, at: int) -> _Block | None:
    """The block at ``at`` when its name, size, checksum and padding all hold."""
    if at + HEAD > len(buf):
        return None
    raw, version, size, checksum = _HEADER.unpack_from(buf, at)
    ds, pad = at + HEAD, -size % 4
    if not BLOCK_NAME.fullmatch(raw) or ds + size + pad > len(buf):
        return None
    if buf[ds + size:ds + size + pad] != PAD * pad or byte_sum(buf[ds:ds + size]) != checksum:
        return None
    return _Block(at, raw.rstrip(b"\0").decode("latin-1"), version, ds, size, checksum)


def _next_sound(buf: bytes, at: int) -> _Block | None:
    """The first sound block from ``at`` on, at a multiple of 4 (where every block starts)."""
    at += -at % 4
    while at + HEAD <= len(buf):
        b = _sound(buf, at)
        if b is not None:
            return b
        at += 4
    return None


def _true_size(buf: bytes, ds: int, nxt: int, checksum: int) -> int | None:
    """The size that ends the data (and its padding) just before ``nxt`` and sums to ``checksum``."""
    for pad in range(4):
        size = nxt - ds - pad
        if size >= 0 and -size % 4 == pad and buf[ds + size:nxt] == PAD * pad \
                and byte_sum(buf[ds:ds + size]) == checksum:
            return size
    return None


def _written_after(names: list[str], cut: str, game: str) -> list[str]:
    """The blocks ``game`` writes after ``cut`` (the file's game, as its blocks before the cut
    tell); when that is not known, those every save order the file's blocks fit writes after it."""
    afters = []
    for known, order in SAVE_ORDERS:
        if game and known != game:
            continue
        at = [order.index(n) for n in [*names, cut] if n in order]
        if len(at) == len(names) + 1 and at == sorted(at):
            afters.append(order[order.index(cut) + 1:])
    if not afters:
        return []
    return [n for n in afters[0] if all(n in a for a in afters[1:])]


def repair(data: bytes) -> Repair:
    """What is damaged in ``data``, what mending it means and loses, and the mended bytes."""
    buf = bytes(data)
    out = Repair()
    if len(buf) < 8 or not (buf[:4] == MAGIC and all(0x20 <= b <= 0x7E for b in buf[4:8])
                            or buf[4:8] == PWMG):
        out.refused = ("the file's 8-byte header ('Save' and a variant id, or PWMAngband's magic "
                       "and 'PWMG') is damaged: the game would refuse the file, and savecraft "
                       "cannot tell which game wrote it")
        return out
    blocks: list[_Block] = []
    dropped: list[tuple[_Block | None, int, int, str]] = []  # block (None: unnamed), from, to, why
    cut_at: int | None = None  # where the file ends inside a block the game needs
    cut_block = ""
    pos = 8
    while pos < len(buf):
        b = _sound(buf, pos)
        if b is not None:
            blocks.append(b)
            pos = b.data_start + b.size + (-b.size % 4)
            continue
        if pos + HEAD > len(buf):
            out.damage.append(f"offset 0x{pos:08X}: the file ends {len(buf) - pos} bytes into a "
                              "block header")
            out.actions.append(f"cut the {len(buf) - pos} bytes of the unfinished block header")
            buf = buf[:pos]  # nothing of a block is in them; the blocks missing are checked below
            break
        raw, version, size, checksum = _HEADER.unpack_from(buf, pos)
        ds = pos + HEAD
        if not BLOCK_NAME.fullmatch(raw):
            nxt = _next_sound(buf, pos + 4)
            end = nxt.start if nxt is not None else len(buf)
            out.damage.append(f"offset 0x{pos:08X}: {end - pos} bytes that are no block "
                              "(zeroed or overwritten, header included)")
            dropped.append((None, pos, end, "no block header"))
            pos = end
            continue
        name = raw.rstrip(b"\0").decode("latin-1")
        pad = -size % 4
        fits = ds + size + pad <= len(buf)
        if fits and buf[ds + size:ds + size + pad] == PAD * pad and \
                (_sound(buf, ds + size + pad) is not None or ds + size + pad == len(buf)) and \
                _true_size(buf, ds, ds + size + pad, checksum) is None:  # (a size off by its padding)
            total = byte_sum(buf[ds:ds + size])
            out.damage.append(f"offset 0x{pos + 24:08X}: block {name!r}: checksum 0x{checksum:08X}, "
                              f"but its {size} bytes sum to 0x{total:08X}")
            blocks.append(_Block(pos, name, version, ds, size, total, "checksum"))
            pos = ds + size + pad
            continue
        nxt = _next_sound(buf, ds)
        true = _true_size(buf, ds, nxt.start, checksum) if nxt is not None else None
        if true is not None and nxt is not None:
            out.damage.append(f"offset 0x{pos + 20:08X}: block {name!r}: size {size}, but its data "
                              f"ends after {true} bytes (where the next block starts, and its "
                              "checksum agrees)")
            blocks.append(_Block(pos, name, version, ds, true, checksum, "size"))
            pos = nxt.start
            continue
        if not fits and nxt is None:
            have = max(0, len(buf) - ds)
            out.damage.append(f"offset 0x{ds:08X}: block {name!r} needs {size} bytes, the file ends "
                              f"after {have}: it was cut short")
            if name in OPTIONAL:
                dropped.append((_Block(pos, name, version, ds, have, checksum), pos, len(buf),
                                "cut short"))
            else:
                cut_at, cut_block = pos, name
            break
        end = nxt.start if nxt is not None else len(buf)
        out.damage.append(f"offset 0x{pos:08X}: block {name!r}: its size ({size}) and data do not "
                          f"agree, and no size fits the {end - ds} bytes before "
                          + ("the next block" if nxt is not None else "the end of the file"))
        dropped.append((_Block(pos, name, version, ds, end - ds, checksum), pos, end, "damaged"))
        pos = end
    gone = {d[0].name for d in dropped if d[0] is not None}
    missing = [n for n in _never_written(buf, blocks) if n not in gone] if cut_at is None else []
    if missing and not all(n in OPTIONAL for n in missing):
        last = blocks[-1] if blocks else None
        where = f"after block {last.name!r}" if last is not None else "after its header"
        out.damage.append(f"the file ends {where}: the blocks the game writes after it "
                          f"({', '.join(missing)}) are not there")
        out.refused = (f"the file ends {where}, before blocks the game cannot load a character "
                       f"without ({', '.join(n for n in missing if n not in OPTIONAL)}): they were "
                       "never written (a savefile the game was still writing, or a copy cut "
                       "short), so there is nothing to rebuild them from")
        return out
    if not out.damage:
        return out
    if missing:
        out.lost.extend(f"block {n!r}: {OPTIONAL[n]} (never written)" for n in missing)
    # A checksum that disagreed: the block stays when its game's layout still reads it exactly.
    _check_layouts(buf, blocks, dropped, out)
    names = [b.name for b in blocks] + [d[0].name for d in dropped if d[0] is not None]
    if cut_at is not None:
        after = _written_after(names, cut_block, _game(buf, blocks))
        also = f"; the blocks the game writes after it ({', '.join(after)}) are not there either" \
            if after else ""
        out.refused = (f"the file ends inside block {cut_block!r} (offset 0x{cut_at:08X}), which the "
                       f"game cannot load a character without{also}: what is missing was never "
                       "written (a savefile the game was still writing, or a copy cut short), so "
                       "there is nothing to rebuild it from")
        return out
    for blk, start, end, why in dropped:
        if blk is None:
            out.refused = (f"offset 0x{start:08X}: {end - start} bytes hold no block header, so the "
                           "block there cannot be named; savecraft cannot tell whether the game can "
                           "do without it")
            return out
        if blk.name not in OPTIONAL:
            out.refused = (f"block {blk.name!r} at offset 0x{start:08X} is {why}, and the game cannot "
                           f"load a character without it: there is no sound copy to rebuild it from")
            return out
    return _mend(buf, blocks, dropped, out)


def _check_layouts(buf: bytes, blocks: list[_Block], dropped: list[tuple[_Block | None, int, int, str]],
                   out: Repair) -> None:
    """Move a checksum-damaged block its layout no longer reads to ``dropped``."""
    if not any(b.fix == "checksum" for b in blocks):
        return

    trial = _assemble(buf, blocks)
    save = parse(trial, Report(strict=False))
    failed = {block_name(b) for b in save.blocks if isinstance(b, RawBlock) and b.failed}
    for b in list(blocks):
        if b.fix == "checksum" and b.name in failed:
            blocks.remove(b)
            dropped.append((b, b.start, b.data_start + b.size + (-b.size % 4),
                            "damaged (its game's layout no longer reads it)"))


def _never_written(buf: bytes, blocks: list[_Block]) -> list[str]:
    """The blocks the file's game writes after its last one, when its game and order are known:
    a file cut at a block boundary is read by the loader without complaint, but lacks them."""
    if not blocks:
        return []
    game = _game(buf, blocks)
    order = dict(SAVE_ORDERS).get(game)
    names = [b.name for b in blocks]
    if order is None or not all(n in order for n in names):
        return []
    return list(order[order.index(names[-1]) + 1:])


def _game(buf: bytes, blocks: list[_Block]) -> str:
    """The game whose layouts read the sound blocks ("" when none does)."""
    return parse(_assemble(buf, blocks), Report(strict=False)).game


def _assemble(buf: bytes, blocks: list[_Block]) -> bytes:
    parts = [buf[:8]]
    for b in sorted(blocks, key=lambda b: b.start):
        data = b.data(buf)
        parts.append(_HEADER.pack(b.name.encode("latin-1").ljust(NAME_SIZE, b"\0"), b.version, len(data),
                                  byte_sum(data)))
        parts.append(data + PAD * (-len(data) % 4))
    return b"".join(parts)


def _mend(buf: bytes, blocks: list[_Block], dropped: list[tuple[_Block | None, int, int, str]],
          out: Repair) -> Repair:
    for b in blocks:
        if b.fix == "checksum":
            out.actions.append(f"block {b.name!r}: recompute its checksum (its game's layout still "
                               "reads every byte; a changed byte may have changed a value, which "
                               "stays as it is)")
        elif b.fix == "size":
            out.actions.append(f"block {b.name!r}: rebuild its size ({b.size} bytes)")
    for blk, start, end, why in dropped:
        assert blk is not None  # unnamed regions were refused above
        out.actions.append(f"block {blk.name!r} ({why}): drop it; the game loads the character "
                           "without it")
        out.lost.append(f"block {blk.name!r}: {OPTIONAL[blk.name]} ({end - start} bytes from offset "
                        f"0x{start:08X})")
    out.data = _assemble(buf, blocks)
    return out
