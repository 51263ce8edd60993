"""Angband 3.1+/4.x savefiles, as the game really writes them: the ``angband-block`` format.

Layout (NOTES.md, checked against the real files in ``samples/angband-block``):
"Save" + a 4-byte variant id (``VNLA`` for Vanilla, ``FAAN`` for FAangband
and its offspring; PWMAngband writes 4 version bytes and then ``PWMG``),
then blocks until the end of the file, each a 16-byte
NUL-padded name, u32 version, u32 size, u32 checksum (the sum of the data
bytes modulo 2**32), ``size`` data bytes and 'x' bytes up to a multiple of 4.
There is no end block.

The ``description`` block is one NUL-terminated string that the game writes
for its savefile menu, "NAME, Llevel RACE CLASS" optionally followed by more
(", at DL5" in 4.2); it is decoded into those fields. Every other block is
decoded by the layout the table in :mod:`.layouts` has for (variant, name,
version) of the game the file turns out to be (:mod:`.decoding`), or kept as
bytes with the reason. Sizes, checksums and padding are computed on write.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
import importlib
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar, Union, get_args, get_type_hints

from ...binary import Reader, Writer, cached_struct
from ...errors import FormatError, Report
from ...fileio import atomic_write, ensure_dir
from ...layout import U32, Bytes, Field, Struct
from ...parts import load_part, read_part
from ...registry import Format, register
from ...lazy import lazy_module
from ...speed import gc_paused
from . import sheet
from .decoding import (Decoder, Found, Trials, choose_game, encode, file_context, pwm_file_kind,
                       pwm_server_game)
from .layouts import Context, character, layout_of, layout_type, loaded_models
from .sniffing import BLOCK_NAME, MAGIC, PWMG, byte_sum, is_block
from .vocabulary import (DungeonBlock, GearBlock, HeaderBlock, HistoryBlock, HomeBlock, MiscBlock,
                         PlayerBlock, StoresBlock, view_of)

_T = TypeVar("_T")


if TYPE_CHECKING:
    import orjson

    from ... import jsonmap
    from . import summary as summaries
    from .layouts import (
        anquestria,
        beleriand,
        faangband,
        faangband2,
        faangband_character,
        faangband_world,
        knowledge,
        narsil,
        narsil13,
        pwmangband,
        pwmangband_server,
        pwmangband_world,
        vanilla3,
        vanilla40,
        vanilla41,
        world,
        xygos,
    )
else:  # a file of one variant imports only its own layouts (savecraft.lazy)
    orjson = lazy_module("orjson")  # (only where JSON is written: extract)
    jsonmap = lazy_module("savecraft.jsonmap")
    summaries = lazy_module("savecraft.formats.angband.summary")
    anquestria = lazy_module("savecraft.formats.angband.layouts.anquestria")
    beleriand = lazy_module("savecraft.formats.angband.layouts.beleriand")
    faangband = lazy_module("savecraft.formats.angband.layouts.faangband")
    faangband2 = lazy_module("savecraft.formats.angband.layouts.faangband2")
    faangband_character = lazy_module("savecraft.formats.angband.layouts.faangband_character")
    faangband_world = lazy_module("savecraft.formats.angband.layouts.faangband_world")
    knowledge = lazy_module("savecraft.formats.angband.layouts.knowledge")
    narsil = lazy_module("savecraft.formats.angband.layouts.narsil")
    narsil13 = lazy_module("savecraft.formats.angband.layouts.narsil13")
    pwmangband = lazy_module("savecraft.formats.angband.layouts.pwmangband")
    pwmangband_server = lazy_module("savecraft.formats.angband.layouts.pwmangband_server")
    pwmangband_world = lazy_module("savecraft.formats.angband.layouts.pwmangband_world")
    vanilla3 = lazy_module("savecraft.formats.angband.layouts.vanilla3")
    vanilla40 = lazy_module("savecraft.formats.angband.layouts.vanilla40")
    vanilla41 = lazy_module("savecraft.formats.angband.layouts.vanilla41")
    world = lazy_module("savecraft.formats.angband.layouts.world")
    xygos = lazy_module("savecraft.formats.angband.layouts.xygos")

NAME_SIZE = 16
PAD = b"x"


@dataclass(slots=True)
class FileHeader:
    """The 8 bytes before the blocks, as stored (the model keeps both: magic, variant)."""

    magic: bytes = MAGIC
    variant: bytes = b"VNLA"


@dataclass(slots=True)
class BlockHeader:
    """A block's 28-byte header as stored: its NUL-padded name, version, data size and the byte
    sum of the data."""

    name: bytes = bytes(NAME_SIZE)
    version: int = 0
    size: int = 0
    checksum: int = 0


FILE_HEADER = Struct(FileHeader, [Field("magic", Bytes(4)), Field("variant", Bytes(4))], name="file header",
                     whole=True)
BLOCK_HEADER = Struct(BlockHeader, [Field("name", Bytes(NAME_SIZE)), Field("version", U32), Field("size", U32),
                                    Field("checksum", U32)], name="block header", whole=True)
_NO_CONTEXT = Context()  # the headers need no values from elsewhere
DESCRIPTION = "description"
VARIANTS = {"VNLA": "Vanilla Angband (or a game that writes its id: FAangband 2, Anquestria)",
            "FAAN": "FAangband 1 (or a variant of it)", "PWMG": "PWMAngband", "XyGs": "Xygos",
            "USIL": "NarSil or Beleriand", "ANGT": "Angstband"}

# "Asira, L7 Zebra Priest" / "Brand, L12 High-Elf Mage, at DL5"
_DESCRIPTION_RE = re.compile(
    r"(?P<name>.*?), L(?P<level>[1-9][0-9]*) (?P<race>[^,]+) (?P<cls>[^,\s]+)(?P<rest>,.*)?", re.S)


@dataclass(slots=True)
class Description:
    """The savefile-menu line, split into the fields the game builds it from.

    ``text`` is None when the line follows the pattern (the usual case);
    when it does not (a dead character's "NAME, dead (CAUSE)", a variant's
    own wording), it holds the whole line and the other fields are empty.
    """

    KIND: ClassVar[str] = "description"
    KEY: ClassVar[str] = ""  # one per file: matched by place, so a renamed character is a change
    version: int = 1
    name: str = ""
    level: int = 1
    race: str = ""
    character_class: str = ""
    rest: str = ""
    text: str | None = None
    # The game's 8-bit text: "latin-1" when the line's bytes are not UTF-8 (an older game's
    # accented letter, one byte). The line is shown decoded and written back in the same bytes.
    encoding: str = "utf-8"
    # True when the file's line is the one its decoded player (4.2) gives: then the
    # line is rebuilt from the player when written, so it follows name and level edits.
    from_player: bool = field(default=False, compare=False)

    @property
    def line(self) -> str:
        if self.text is not None:
            return self.text
        return f"{self.name}, L{self.level} {self.race} {self.character_class}{self.rest}"

    @classmethod
    def from_line(cls, line: str, version: int = 1, encoding: str = "utf-8") -> Description:
        m = _DESCRIPTION_RE.fullmatch(line)
        if m:
            d = cls(version, m["name"], int(m["level"]), m["race"], m["cls"], m["rest"] or "",
                    encoding=encoding)
            if d.line == line:
                return d
        return cls(version, text=line, encoding=encoding)


@dataclass(slots=True)
class RawBlock:
    """A block savecraft keeps as bytes, written back unchanged; ``reason`` says why it is not decoded.

    ``failed`` marks a block the file's own game has a layout for that did
    not read it: a fault :func:`check` reports (an edit cannot make one).
    """

    KIND: ClassVar[str] = "raw"
    name: str
    version: int = 1
    data: bytes = b""
    reason: str = field(default="", compare=False)
    failed: bool = field(default=False, compare=False)


Block = Union[  # (quoted: in modules imported for the first file of their variant)
    Description, RawBlock, character.Rng, character.Options, character.Messages, character.Quests,
    character.Player, character.Misc, character.PlayerHp, character.PlayerSpells,
    character.History, "knowledge.MonsterMemory", "knowledge.ObjectMemory", "knowledge.Ignore",
    "knowledge.Artifacts", "world.Gear", "world.Stores", "world.Dungeon", "world.Objects",
    "world.Monsters", "world.Traps", "world.Chunks", "pwmangband.Header",
    "pwmangband.MonsterMemory", "pwmangband.ObjectMemory", "pwmangband.Player",
    "pwmangband.Ignore", "pwmangband.Artifacts", "pwmangband.PlayerSpells", "pwmangband.WildMap",
    "pwmangband.History", "pwmangband_world.Misc", "pwmangband_world.Gear",
    "pwmangband_world.Dungeon", "pwmangband_world.Objects", "pwmangband_world.Traps",
    "pwmangband_world.Home", "pwmangband_server.ObjectSizes", "pwmangband_server.ServerMisc",
    "pwmangband_server.ServerArtifacts", "pwmangband_server.Stores", "pwmangband_server.Dungeons",
    "pwmangband_server.ServerObjects", "pwmangband_server.Monsters", "pwmangband_server.ServerTraps",
    "pwmangband_server.Parties", "pwmangband_server.Houses", "pwmangband_server.Arenas",
    "pwmangband_server.Wilderness", "pwmangband_server.PlayerNames", "faangband.Options", "faangband.MonsterMemory", "faangband.ObjectMemory",
    "faangband.Quests", "faangband.PlayerSpells", "faangband.Randarts", "faangband.Traps",
    "faangband.Squelch", "faangband.Artifacts", "faangband_character.Player",
    "faangband.Options1", "faangband.Squelch1", "faangband_character.Player1",
    "faangband_character.Misc", "faangband_character.History", "faangband_world.Inventory",
    "faangband_world.Stores", "faangband_world.Dungeon", "faangband_world.Objects",
    "faangband_world.Monsters", "faangband_world.Ghost", "vanilla40.Options",
    "vanilla40.MonsterMemory", "vanilla40.ObjectMemory", "vanilla40.Artifacts", "vanilla40.Player",
    "vanilla40.Ignore", "vanilla40.Misc", "vanilla40.Gear", "vanilla40.Stores",
    "vanilla40.Dungeon", "vanilla40.Objects", "vanilla40.Monsters", "vanilla40.Traps",
    "vanilla40.Chunks", "vanilla40.History", "anquestria.Options", "anquestria.MonsterMemory",
    "anquestria.ObjectMemory", "anquestria.Quests", "anquestria.Artifacts", "anquestria.Player",
    "anquestria.Squelch", "anquestria.Misc", "anquestria.Randarts", "anquestria.Inventory",
    "anquestria.Stores", "anquestria.Dungeon", "anquestria.Objects", "anquestria.Monsters", "anquestria.Ghost",
    "vanilla41.Options", "vanilla41.MonsterMemory", "vanilla41.Player", "vanilla41.Monsters",
    "vanilla41.Chunks", "xygos.World", "xygos.Quests", "xygos.Player", "xygos.PlayerHp", "xygos.Gear",
    "xygos.Stores", "xygos.Dungeon", "xygos.Objects", "xygos.Monsters", "xygos.Chunks",
    "vanilla3.Rng31", "vanilla3.Rng32", "vanilla3.Options1", "vanilla3.MonsterMemory1",
    "vanilla3.MonsterMemory3", "vanilla3.ObjectMemory2", "vanilla3.Player35",
    "vanilla3.Misc2", "vanilla3.Randarts1", "vanilla3.Randarts31", "vanilla3.Randarts3",
    "vanilla3.Inventory1", "vanilla3.Inventory4", "vanilla3.Inventory5", "vanilla3.Inventory6",
    "vanilla3.Stores1", "vanilla3.Stores4", "vanilla3.Stores5", "vanilla3.Stores6",
    "vanilla3.Objects1", "vanilla3.Objects4", "vanilla3.Objects5", "vanilla3.Objects6",
    "vanilla3.Dungeon", "vanilla3.Monsters1", "vanilla3.Monsters6", "vanilla3.Monsters7",
    "vanilla3.Ghost", "vanilla3.Player32", "vanilla3.Messages1", "vanilla3.Messages3", "vanilla3.History1",
    "vanilla3.Squelch1",
    "faangband2.Quests", "faangband2.Player", "faangband2.Misc", "faangband2.Gear",
    "faangband2.Stores", "faangband2.Dungeon", "faangband2.Objects", "faangband2.Monsters",
    "faangband2.Chunks", "narsil.MonsterMemory", "narsil.ObjectMemory", "narsil.Ignore", "narsil.Player",
    "narsil.Misc", "narsil.Gear", "narsil.Dungeon", "narsil.Objects", "narsil.Monsters", "narsil.Traps",
    "narsil.History", "narsil.MonsterGroups", "beleriand.MonsterMemory", "beleriand.Player",
    "beleriand.Gear", "beleriand.Objects", "beleriand.Chunks", "beleriand.Monsters", "beleriand.Locations",
    "narsil13.Misc", "narsil13.Gear", "narsil13.Dungeon", "narsil13.Objects", "narsil13.Monsters",
    "narsil13.Traps",
]


@dataclass(slots=True)
class BlockSave:
    """A 3.1+/4.x savefile: the variant id and the blocks in file order.

    ``magic`` is ``Save``, except in PWMAngband files, whose first four bytes
    are the game's version. ``trailing`` holds bytes after the last block that
    are not a block (only a damaged file has any); they are written back.
    The properties reach the decoded blocks by their names in the file, whichever
    game's model decoded them (:mod:`.vocabulary`), for paths such as
    ``player.au`` or ``gear.items[0].quantity`` that mean the same in every game.
    """

    variant: str = "VNLA"
    blocks: list[Block] = field(default_factory=list)
    magic: bytes = MAGIC
    trailing: bytes = b""
    # The game whose layouts decoded the blocks ("" when none did), and why: set when read.
    game: str = field(default="", compare=False)
    game_reason: str = field(default="", compare=False)

    def _find(self, cls: type[_T]) -> _T | None:
        for b in self.blocks:
            if isinstance(b, cls):
                return b
        return None

    def _view(self, view: str) -> Any:
        """The first decoded block that property ``view`` shows: found by the block's name in
        the file, whichever game's model decoded it, when the model answers the view's
        Protocol (:mod:`.vocabulary`). A new game's module needs nothing here."""
        known = _CLASS_VIEWS
        for b in self.blocks:
            cls = type(b)
            shows = known[cls] if cls in known else _class_view(cls)
            if shows == view:
                return b
        return None

    @classmethod
    def __path_views__(cls, name: str) -> dict[type, str]:
        """The model classes each property shows, for paths (``player.au``, not ``blocks[8].au``):
        every decoded block model registered so far whose block the properties find
        (:func:`savecraft.paths.views` asks; the properties' Protocol hints name no class)."""
        if name != "blocks":
            return {}
        models = loaded_models()
        if len(models) != _PATH_VIEWS[0]:
            views: dict[type, str] = {}
            for model in models:
                view = _class_view(model)
                if view is not None:
                    views[model] = view
            _PATH_VIEWS[:] = [len(models), views]
        return _PATH_VIEWS[1]  # type: ignore[no-any-return]

    @property
    def description(self) -> Description | None:
        return self._find(Description)

    @property
    def player(self) -> PlayerBlock | None:
        """The character: the ``player`` block of any game (``player.au``, ``player.exp``, ...)."""
        return self._view("player")  # type: ignore[no-any-return]

    @property
    def header(self) -> HeaderBlock | None:
        """PWMAngband's header block: the character's name, race and class."""
        return self._view("header")  # type: ignore[no-any-return]

    @property
    def misc(self) -> MiscBlock | None:
        return self._view("misc")  # type: ignore[no-any-return]

    @property
    def gear(self) -> GearBlock | None:
        """What the character carries: the ``gear`` block, or the 3.x games' ``inventory``
        (``gear.items[0].quantity``, ``gear.items[0].note`` in every game)."""
        return self._view("gear")  # type: ignore[no-any-return]

    @property
    def dungeon(self) -> DungeonBlock | None:
        return self._view("dungeon")  # type: ignore[no-any-return]

    @property
    def history(self) -> HistoryBlock | None:
        return self._view("history")  # type: ignore[no-any-return]

    @property
    def stores(self) -> StoresBlock | None:
        return self._view("stores")  # type: ignore[no-any-return]

    @property
    def home(self) -> HomeBlock | None:
        """PWMAngband's home block (the other games keep the home among the stores)."""
        return self._view("home")  # type: ignore[no-any-return]


_CLASS_VIEWS: dict[type, str | None] = {}
_PATH_VIEWS: list[Any] = [-1, {}]


def _class_view(cls: type) -> str | None:
    """The property that shows blocks of model class ``cls`` (by its layout's block name;
    none for a description or a raw block, which have no layout)."""
    view = _CLASS_VIEWS.get(cls)
    if cls not in _CLASS_VIEWS:
        layout = layout_type(cls)
        view = _CLASS_VIEWS[cls] = None if layout is None else view_of(cls, layout.name)
    return view


def block_name(block: Block) -> str:
    if isinstance(block, Description):
        return DESCRIPTION
    if isinstance(block, RawBlock):
        return block.name
    layout = layout_of(block)
    return layout.name if layout is not None else type(block).__name__


def block_version(block: Block) -> int:
    if isinstance(block, Description | RawBlock):
        return block.version
    layout = layout_of(block)
    return layout.version if layout is not None else 1


def sniff(data: bytes) -> bool:
    return is_block(data)


# -- parse -----------------------------------------------------------------------------------


def parse(data: bytes, report: Report, *, verify: bool = False) -> BlockSave:
    """The file's blocks, each decoded by its game's layout or kept raw with the reason.

    ``verify`` re-encodes the blocks of exact layouts too, to prove they write
    the same bytes back. Nothing asks for it in use: an exact decoder accepts
    only encodings its writer reproduces (see :mod:`.decoding`), which the
    tests hold it to over every real file and thousands of mutated blocks, and
    the fuzzing harness over millions; a validation that re-encoded everything
    again took 1.5x a parse for no finding.
    """
    # Thousands of records, none of them garbage: unless something was wrong (a caught
    # error may leave a reference cycle behind), they go straight to the oldest generation.
    # The game choice's trial reads are inside too: the decode takes up their models, and
    # left young they made the young collection on the way in cost a sixth of a small file's
    # parse.
    with gc_paused(keep=lambda: not report.problems):
        save, found = walk(data, report)
        trials: Trials = {}
        facts: dict[str, int] = {}
        why = ""
        if save.variant == PWMG.decode() and found and pwm_file_kind(found) != "player":
            game, why = pwm_server_game(data, found)  # the server and players files: by the magic
        else:
            because: list[str] = []
            game = choose_game(data, save.variant, found, trials, because, facts)
            why = "; ".join(because)
        save.game = game or ""
        save.game_reason = why
        decoder = Decoder(data, save.variant, game, report, verify=verify, trials=trials,
                          why=why if game is None else "", facts=facts)
        for f in found:
            save.blocks.append(_decode(data, f, decoder, report))
    d = save.description
    if d is not None and save.player is not None and d.text is None:
        line = _player_line(save, d)
        d.from_player = line is not None and line == d.line
    return save


def walk(data: bytes, report: Report) -> tuple[BlockSave, list[Found]]:
    """The container alone: header, block headers, checksums, padding; no block decoded."""
    save = BlockSave()
    r = Reader(data, what="the file")
    found: list[Found] = []
    try:
        head: FileHeader = FILE_HEADER.read(r, _NO_CONTEXT)  # under the model's paths: magic, variant
        magic, variant = head.magic, head.variant
        save.magic = magic
        if variant != PWMG and magic != MAGIC:
            report.error(0, "magic", "the bytes 'Save' (83 97 118 101; the loader's "
                         "check_header: 'incorrect file header')", repr(magic))
        if not all(0x20 <= b <= 0x7E for b in variant):
            report.error(4, "variant", "a 4-letter ASCII variant id such as 'VNLA'", repr(variant))
        save.variant = variant.decode("latin-1")
        while not r.at_end():
            f = _read_block(r, len(found), report)
            if f is None:
                save.trailing = data[r.pos:]
                break
            found.append(f)
    except FormatError as err:
        report.capture(err)
    return save, found


def _read_block(r: Reader, index: int, report: Report) -> Found | None:
    """One block's header, data checksum and padding; None where garbage starts instead.

    A name that is empty or not printable is not a block: rather than read
    every following 28 bytes as another broken block (a file of zeros would
    give a million problems), the walk stops and reports the rest once.
    """
    start = r.pos
    if r.spans is None:  # a sound block in a few calls; anything else is read again, checked
        f = _sound_block(r.data, start, r.end, index)
        if f is not None:
            r.pos = f.data_start + f.size + (-f.size % 4)
            return f
    path = f"blocks[{index}]"
    head: BlockHeader = BLOCK_HEADER.read_item(r, _NO_CONTEXT, path)
    raw_name, version, size, checksum = head.name, head.version, head.size, head.checksum
    text = raw_name.split(b"\0", 1)[0]
    if not text or not all(0x20 <= b <= 0x7E for b in text):
        rest = r.end - start
        report.error(start, f"{path}.name", "a block name in printable ASCII (the loader has a "
                     "reader for no other: 'Savefile block can't be read')",
                     f"{raw_name!r}; the {rest} bytes from here are kept unread")
        r.pos = start
        return None
    if raw_name[15]:  # next_blockheader: "Savefile is corrupted -- block header mangled"
        report.error(start + 15, f"{path}.name", "a NUL 16th byte (the loader's 'block header "
                     "mangled' check)", f"0x{raw_name[15]:02X}")
    elif raw_name[len(text):].strip(b"\0"):  # cut off by the loader's my_strcpy: not read
        report.warning(start + len(text), f"{path}.name", "NUL bytes after the block name",
                       repr(raw_name[len(text):]))
    data_start = r.pos
    if size > r.end - data_start:  # load_block reads fewer bytes than the size: the load fails
        raise FormatError(data_start, f"{path}.data",
                          f"{size} bytes (the loader's 'Savefile is corrupted -- couldn't load "
                          f"block {text.decode('latin-1')}'; savecraft repair can say what is "
                          "left to save)", f"the end of the file after {r.end - data_start} bytes")
    r.skip(size, f"{path}.data")
    total = byte_sum(memoryview(r.data)[data_start:data_start + size])
    if total != checksum:  # the game writes it, and no loader compares it: a sign, not a refusal
        report.warning(start + 24, f"{path}.checksum",
                       f"0x{total:08X} (the sum of the {size} data bytes; the game's loader does "
                       "not check it, savecraft repair recomputes it)", f"0x{checksum:08X}")
    pad = -size % 4
    at = r.pos
    padding = r.bytes(pad, f"{path}.padding")
    if padding != PAD * pad:  # skipped unread by the loader (next_blockheader rounds the size up)
        report.warning(at, f"{path}.padding", f"{pad} 'x' bytes up to a multiple of 4", repr(padding))
    return Found(index, start, text.decode("latin-1"), version, data_start, size)


_HEADER = cached_struct("<" + (BLOCK_HEADER.code or ""))  # the header's values in one unpack


def _sound_block(data: bytes, start: int, end: int, index: int) -> Found | None:
    """The block at ``start`` when nothing about it is wrong (name, size, checksum, padding)."""
    if start + 28 > end:
        return None
    raw_name, version, size, checksum = _HEADER.unpack_from(data, start)
    data_start = start + 28
    pad = -size % 4
    if data_start + size + pad > end or not BLOCK_NAME.fullmatch(raw_name):
        return None
    if byte_sum(memoryview(data)[data_start:data_start + size]) != checksum or \
            data[data_start + size:data_start + size + pad] != PAD * pad:
        return None
    return Found(index, start, raw_name.rstrip(b"\0").decode("latin-1"), version, data_start, size)


def _decode(data: bytes, f: Found, decoder: Decoder, report: Report) -> Block:
    if f.name == DESCRIPTION:
        raw = data[f.data_start:f.data_start + f.size]
        return _decode_description(raw, f.version, f.data_start, f"blocks[{f.index}]", report)
    got = decoder.decode(f)
    if got.model is not None:
        return got.model  # type: ignore[no-any-return]
    return RawBlock(f.name, f.version, data[f.data_start:f.data_start + f.size], got.reason, got.failed)


def _decode_description(data: bytes, version: int, at: int, path: str, report: Report) -> Block:
    if not data:
        report.warning(at, f"{path}.data", "one NUL-terminated string filling the description block",
                       "an empty block (kept as it is)")
        return RawBlock(DESCRIPTION, version, data, "empty")
    nul = data.find(b"\0")
    if nul != len(data) - 1:
        report.error(at + (nul if nul >= 0 else len(data)), f"{path}.data",
                     "one NUL-terminated string filling the description block",
                     "no NUL" if nul < 0 else f"{len(data) - nul - 1} bytes after the NUL")
        return RawBlock(DESCRIPTION, version, data, "not one NUL-terminated string")
    try:
        return Description.from_line(data[:-1].decode("utf-8"), version)
    except UnicodeDecodeError:  # the game's 8-bit text: every byte is a Latin-1 letter
        return Description.from_line(data[:-1].decode("latin-1"), version, "latin-1")


# -- build -----------------------------------------------------------------------------------


def description_line(save: BlockSave, d: Description) -> str:
    """The menu line as the game would write it now: the decoded player's name, level, depth.

    The game rebuilds this line from the character on every save, so an edit
    of the player's name or level shows in it. Only a line that matched the
    player when read follows it (``from_player``); any other (a dead
    character's, another version's wording, PWMAngband's account line) is
    written as it is.
    """
    if not d.from_player or d.text is not None:
        return d.line
    return _player_line(save, d) or d.line


def _player_line(save: BlockSave, d: Description) -> str | None:
    """``NAME, L<level> RACE CLASS[, at DL<depth>]`` from the blocks the game builds it from.

    4.2 stores race and class by name in its player block; the older games
    store indexes into their data files, which savecraft does not have, so
    their race and class words are the line's own (an edit cannot change them).
    The depth follows the dungeon block where the line shows one. None when
    the player block does not hold a name and a level (PWMAngband's: its line
    names the account).
    """
    p = save.player
    name, level = getattr(p, "full_name", None), getattr(p, "lev", None)
    if not isinstance(name, str) or not isinstance(level, int):
        return None
    rest = d.rest
    dungeon = next((b for b in save.blocks if block_name(b) == "dungeon" and not isinstance(b, RawBlock)),
                   None)  # whichever game's level block: each has a ``depth``
    depth = getattr(dungeon, "depth", None)
    if rest.startswith(", at DL") and isinstance(depth, int):
        rest = f", at DL{depth}"
    if isinstance(p, character.Player):
        return character.description_line(p, rest)
    return f"{name}, L{level} {d.race} {d.character_class}{rest}"


def block_data(block: Block, save: BlockSave | None = None, ctx: Context | None = None,
               path: str = "") -> bytes:
    if isinstance(block, Description):
        line = description_line(save, block) if save is not None else block.line
        try:
            return line.encode(block.encoding) + b"\0"
        except (UnicodeEncodeError, LookupError):
            raise FormatError(None, f"{path}.line", f"text the game's {block.encoding} can write",
                              repr(line)) from None
    if isinstance(block, RawBlock):
        return block.data
    return encode(block, ctx if ctx is not None else Context(), path)


def build(save: BlockSave) -> bytes:
    w = Writer()
    variant = save.variant.encode("latin-1", errors="replace")
    if len(variant) != 4 or not all(0x20 <= b <= 0x7E for b in variant):
        raise FormatError(None, "variant", "a 4-letter ASCII variant id", repr(save.variant))
    if len(save.magic) != 4 or (variant != PWMG and save.magic != MAGIC):
        raise FormatError(None, "magic", "'Save' (or 4 version bytes before 'PWMG')", repr(save.magic))
    FILE_HEADER.write(FileHeader(save.magic, variant), w, _NO_CONTEXT, "header")
    ctx = file_context(save.variant, save.magic, save.game)
    for i, block in enumerate(save.blocks):
        path = f"blocks[{i}]"
        name = block_name(block).encode("ascii", errors="replace")
        if not name or len(name) > NAME_SIZE or b"\0" in name:
            raise FormatError(None, f"{path}.name", f"1 to {NAME_SIZE} ASCII characters", repr(name))
        if isinstance(block, Description) and "\0" in block.line:
            raise FormatError(None, path, "a description without NUL characters", repr(block.line))
        data = block_data(block, save, ctx, path)
        BLOCK_HEADER.write(BlockHeader(name.ljust(NAME_SIZE, b"\0"), block_version(block), len(data),
                                       byte_sum(data)), w, _NO_CONTEXT, path)
        w.bytes(data)
        w.bytes(PAD * (-len(data) % 4))
    w.bytes(save.trailing)
    return w.getvalue()


# -- registry glue ---------------------------------------------------------------------------


def info(save: BlockSave) -> dict[str, Any]:
    """The character sheet, then the file's blocks, as docs/info-json.md lays a summary out."""
    out: dict[str, Any] = {}
    d = save.description
    if d is not None:
        out["character"] = d.line
        if d.text is None and save.player is None:
            out["name"] = d.name
            out["level"] = d.level
            out["race"] = d.race
            out["class"] = d.character_class
    found = sheet.character_sheet(save)
    line = sheet.summary_line(found) if d is None else None
    if line is not None:  # no description block: the line from the decoded blocks
        out["summary"] = line
    out.update(found)
    if save.variant == PWMG.decode():
        out["savefile_magic"] = ".".join(str(b) for b in save.magic)
        kind = "player"
        if save.blocks and block_name(save.blocks[0]) != "header":
            kind = "players" if {block_name(b) for b in save.blocks} == {"player_names"} else "server"
        out.update(sheet.pwm_player_summary(save) if kind == "player"
                   else sheet.pwm_server_summary(save, kind))
    out["variant"] = save.variant
    out["variant_name"] = VARIANTS.get(save.variant)
    out["game"] = save.game or None
    out["game_reason"] = save.game_reason or None
    out["blocks"] = [{"name": block_name(b), "version": block_version(b),
                      "decoded": not isinstance(b, RawBlock),
                      "raw_bytes": len(b.data) if isinstance(b, RawBlock) else None}
                     for b in save.blocks]
    out["not_decoded"] = [{"name": b.name, "version": b.version, "reason": b.reason or "not decoded"}
                          for b in save.blocks if isinstance(b, RawBlock)]
    out["trailing_bytes"] = len(save.trailing)
    return out


def _safe(name: str) -> str:
    return "".join(ch if ch.isalnum() else "_" for ch in name)


HEADER_FILE = "file-header.json"


def extract(save: BlockSave, folder: Path) -> list[Path]:
    """``file-header.json`` (the file's own fields and its blocks in order), then one file per
    block: ``.json`` when decoded (a description also shows its menu ``line``), ``.bin`` otherwise.

    :func:`rebuild` reads the folder back, after edits to its files.
    """
    ensure_dir(folder)
    written = []
    files = []
    for i, block in enumerate(save.blocks):
        stem = f"{i:02d}-{_safe(block_name(block))}"
        entry: dict[str, Any] = {"file": "", "kind": type(block).KIND, "name": block_name(block)}
        if isinstance(block, RawBlock):
            p = folder / f"{stem}.bin"
            atomic_write(p, block.data)
            entry["version"] = block.version
        else:
            p = folder / f"{stem}.json"
            doc = jsonmap.encoder(type(block))(block)
            if isinstance(block, Description):
                doc = {"line": block.line, **doc}
            atomic_write(p, orjson.dumps(doc, default=jsonmap.DUMP_DEFAULT,  # (8-bit text)
                                         option=orjson.OPT_INDENT_2 | jsonmap.DUMP_OPTIONS))
        entry["file"] = p.name
        files.append(entry)
        written.append(p)
    head = {**jsonmap.encoder(BlockSave)(BlockSave(save.variant, [], save.magic, save.trailing, save.game)),
            "files": files}
    del head["blocks"]
    p = folder / HEADER_FILE
    atomic_write(p, orjson.dumps(head, option=orjson.OPT_INDENT_2))
    return [p, *written]


def rebuild(folder: Path) -> BlockSave:
    """The save an :func:`extract` folder describes, with whatever was edited in its files."""
    head = load_part(folder / HEADER_FILE)
    files = head.pop("files", None) if isinstance(head, dict) else None
    if not isinstance(files, list):
        raise FormatError(None, f"{HEADER_FILE}.files", "the list of the folder's block files "
                          "(written by this savecraft's extract)", "nothing")
    save: BlockSave = jsonmap.decoder(BlockSave)({**head, "blocks": []}, HEADER_FILE)
    dec = jsonmap.decoder(get_args(get_type_hints(BlockSave)["blocks"])[0])  # Block, its names resolved
    for k, entry in enumerate(files):
        where = f"{HEADER_FILE}.files[{k}]"
        if not isinstance(entry, dict) or not isinstance(entry.get("file"), str):
            raise FormatError(None, where, "an object naming a block file", repr(entry)[:60])
        path = folder / Path(entry["file"]).name
        if path.suffix == ".bin":
            data = read_part(path, expected="a block's bytes")
            save.blocks.append(RawBlock(str(entry.get("name", "")), int(entry.get("version", 1)), data))
            continue
        doc = load_part(path)
        if isinstance(doc, dict):
            doc.pop("line", None)  # shown for people; the fields are what is built
            doc = {jsonmap.KIND: entry.get("kind"), **doc}
        save.blocks.append(dec(doc, path.name))
    return save


def check(save: BlockSave, report: Report) -> None:
    """Blocks the file's own game cannot read (its loader's "couldn't load block"), and the
    loader's checks on decoded values (:mod:`.sheet`). A block named twice is only a warning:
    the loader reads both, the later one last, but a path by name reaches the first."""
    seen: set[str] = set()
    for i, b in enumerate(save.blocks):
        name = block_name(b)
        if name in seen:
            report.warning(None, f"blocks[{i}].name", "a block name not used before", repr(name))
        seen.add(name)
        if isinstance(b, RawBlock) and b.failed:
            report.error(None, f"blocks[{i}]", f"a {name!r} block its game's layout reads (the "
                         "loader's 'Savefile is corrupted -- couldn't load block' check)", b.reason)
    sheet.check_consistency(save, report)


def _studio_summary(model: Any) -> dict[str, Any]:
    """The studio's overview of this file (imported only when the studio asks)."""
    return summaries.summary(model)


def _studio_field_hint(path: str, value: Any) -> dict[str, str] | None:
    """A field as the game shows it and the game's limits for it, for the studio's tree."""
    return summaries.field_hint(path, value)


FORMAT = register(Format(
    name="angband-block",
    description="Angband 3.1+/4.x savefile, named blocks",
    model=BlockSave,
    sniff=sniff,
    parse=parse,
    build=build,
    info=info,
    extract=extract,
    rebuild=rebuild,
    check=check,
    validate_by_building=False,  # parse already re-encodes every decoded block
    suffixes=(".sav",),
    repair=lambda data: importlib.import_module(f"{__package__}.repair").repair(data),
    summary=_studio_summary,
    field_hint=_studio_field_hint,
    pictures=lambda: importlib.import_module(f"{__package__}.pictures"),  # the level, when asked
))
