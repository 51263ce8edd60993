"""Angband 3.1+/4.x savefiles, as the game really writes them: the ``angband-block`` format.

Layout (NOTES.md, checked against the real files in ``samples/angband-block``):
"Save" + a 4-byte variant id (``VNLA`` for Vanilla, ``FAAN`` for FAangband
and its offspring), then blocks until the end of the file, each a 16-byte
NUL-padded name, u32 version, u32 size, u32 checksum (the sum of the data
bytes modulo 2**32), ``size`` data bytes and 'x' bytes up to a multiple of 4.
There is no end block.

The ``description`` block is one NUL-terminated string that the game writes
for its savefile menu, "NAME, Llevel RACE CLASS" optionally followed by more
(", at DL5" in 4.2); it is decoded into those fields. Every other block is
named and kept as bytes. Sizes, checksums and padding are computed on write.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import orjson

from ...binary import Reader, Record, Writer
from ...errors import FormatError, Report
from ...fileio import atomic_write, ensure_dir
from ...jsonmap import encoder
from ...registry import Format, register
from .sniffing import MAGIC, byte_sum, is_block

NAME_SIZE = 16
PAD = b"x"
FILE_HEADER = Record("file header", [("magic", "bytes[4]"), ("variant", "bytes[4]")])
BLOCK_HEADER = Record("block header", [
    ("name", "bytes[16]"), ("version", "u32"), ("size", "u32"), ("checksum", "u32"),
])
DESCRIPTION = "description"
VARIANTS = {"VNLA": "Vanilla Angband", "FAAN": "FAangband (or a variant of it)"}

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
    version: int = 1
    name: str = ""
    level: int = 1
    race: str = ""
    character_class: str = ""
    rest: str = ""
    text: str | None = None

    @property
    def line(self) -> str:
        if self.text is not None:
            return self.text
        return f"{self.name}, L{self.level} {self.race} {self.character_class}{self.rest}"

    @classmethod
    def from_line(cls, line: str, version: int = 1) -> Description:
        m = _DESCRIPTION_RE.fullmatch(line)
        if m:
            d = cls(version, m["name"], int(m["level"]), m["race"], m["cls"], m["rest"] or "")
            if d.line == line:
                return d
        return cls(version, text=line)


@dataclass(slots=True)
class RawBlock:
    """A block savecraft names but does not decode; its data is written back unchanged."""

    KIND: ClassVar[str] = "raw"
    name: str
    version: int = 1
    data: bytes = b""


Block = Description | RawBlock


@dataclass(slots=True)
class BlockSave:
    """A 3.1+/4.x savefile: the variant id and the blocks in file order."""

    variant: str = "VNLA"
    blocks: list[Block] = field(default_factory=list)

    @property
    def description(self) -> Description | None:
        for b in self.blocks:
            if isinstance(b, Description):
                return b
        return None


def block_name(block: Block) -> str:
    return DESCRIPTION if isinstance(block, Description) else block.name


def sniff(data: bytes) -> bool:
    return is_block(data)


# -- parse -----------------------------------------------------------------------------------


def parse(data: bytes, report: Report) -> BlockSave:
    save = BlockSave()
    r = Reader(data, what="the file")
    try:
        magic, variant = r.record(FILE_HEADER, "header")
        if magic != MAGIC:
            report.error(0, "header.magic", "the bytes 'Save' (83 97 118 101)", repr(magic))
        if not all(0x20 <= b <= 0x7E for b in variant):
            report.error(4, "header.variant", "a 4-letter ASCII variant id such as 'VNLA'", repr(variant))
        save.variant = variant.decode("latin-1")
        i = 0
        while not r.at_end():
            save.blocks.append(_read_block(r, f"blocks[{i}]", report))
            i += 1
    except FormatError as err:
        report.capture(err)
    return save


def _read_block(r: Reader, path: str, report: Report) -> Block:
    start = r.pos
    raw_name, version, size, checksum = r.record(BLOCK_HEADER, path)
    text = raw_name.split(b"\0", 1)[0]
    if not text or not all(0x20 <= b <= 0x7E for b in text):
        report.error(start, f"{path}.name", "a block name in printable ASCII", repr(raw_name))
    elif raw_name[len(text):].strip(b"\0"):
        report.error(start + len(text), f"{path}.name", "NUL bytes after the block name",
                     repr(raw_name[len(text):]))
    name = text.decode("latin-1")
    data = r.sub(size, f"{path}.data", "the file").rest()
    total = byte_sum(data)
    if total != checksum:
        report.error(start + 24, f"{path}.checksum",
                     f"0x{total:08X} (the sum of the {size} data bytes)", f"0x{checksum:08X}")
    pad = -size % 4
    at = r.pos
    padding = r.bytes(pad, f"{path}.padding")
    if padding != PAD * pad:
        report.error(at, f"{path}.padding", f"{pad} 'x' bytes up to a multiple of 4", repr(padding))
    if name == DESCRIPTION:
        return _decode_description(data, version, start + BLOCK_HEADER.size, path, report)
    return RawBlock(name, version, data)


def _decode_description(data: bytes, version: int, at: int, path: str, report: Report) -> Block:
    nul = data.find(b"\0")
    if nul != len(data) - 1:
        report.error(at + (nul if nul >= 0 else len(data)), f"{path}.data",
                     "one NUL-terminated string filling the description block",
                     "no NUL" if nul < 0 else f"{len(data) - nul - 1} bytes after the NUL")
        return RawBlock(DESCRIPTION, version, data)
    try:
        line = data[:-1].decode("utf-8")
    except UnicodeDecodeError as exc:
        report.warning(at + exc.start, f"{path}.data", "UTF-8 text",
                       f"byte 0x{data[exc.start]:02X} (the block is kept as bytes)")
        return RawBlock(DESCRIPTION, version, data)
    return Description.from_line(line, version)


# -- build -----------------------------------------------------------------------------------


def block_data(block: Block) -> bytes:
    if isinstance(block, Description):
        return block.line.encode("utf-8") + b"\0"
    return block.data


def build(save: BlockSave) -> bytes:
    w = Writer()
    variant = save.variant.encode("latin-1", errors="replace")
    if len(variant) != 4 or not all(0x20 <= b <= 0x7E for b in variant):
        raise FormatError(None, "variant", "a 4-letter ASCII variant id", repr(save.variant))
    w.record(FILE_HEADER, (MAGIC, variant), "header")
    for i, block in enumerate(save.blocks):
        path = f"blocks[{i}]"
        name = block_name(block).encode("ascii", errors="replace")
        if not name or len(name) > NAME_SIZE or b"\0" in name:
            raise FormatError(None, f"{path}.name", f"1 to {NAME_SIZE} ASCII characters", repr(name))
        if isinstance(block, Description) and "\0" in block.line:
            raise FormatError(None, path, "a description without NUL characters", repr(block.line))
        data = block_data(block)
        w.record(BLOCK_HEADER, (name, block.version, len(data), byte_sum(data)), path)
        w.bytes(data)
        w.bytes(PAD * (-len(data) % 4))
    return w.getvalue()


# -- registry glue ---------------------------------------------------------------------------


def info(save: BlockSave) -> dict[str, Any]:
    out: dict[str, Any] = {}
    d = save.description
    if d is not None:
        out["character"] = d.line
        if d.text is None:
            out["name"] = d.name
            out["level"] = d.level
            out["race"] = d.race
            out["class"] = d.character_class
    known = VARIANTS.get(save.variant)
    out["variant"] = f"{save.variant} ({known})" if known else save.variant
    out["blocks"] = [f"{block_name(b)} v{b.version}: {len(block_data(b))} bytes" for b in save.blocks]
    return out


def _safe(name: str) -> str:
    return "".join(ch if ch.isalnum() else "_" for ch in name)


def extract(save: BlockSave, folder: Path) -> list[Path]:
    """``file-header.json``, then one file per block: ``.json`` for the description, ``.bin`` otherwise."""
    ensure_dir(folder)
    p = folder / "file-header.json"
    atomic_write(p, orjson.dumps({"variant": save.variant}, option=orjson.OPT_INDENT_2))
    written = [p]
    enc = encoder(Description)
    for i, block in enumerate(save.blocks):
        stem = f"{i:02d}-{_safe(block_name(block))}"
        if isinstance(block, Description):
            p = folder / f"{stem}.json"
            doc = {"line": block.line, **enc(block)}
            atomic_write(p, orjson.dumps(doc, option=orjson.OPT_INDENT_2))
        else:
            p = folder / f"{stem}.bin"
            atomic_write(p, block.data)
        written.append(p)
    return written


def check(save: BlockSave, report: Report) -> None:
    """Blocks named twice (the game would read only one)."""
    seen: set[str] = set()
    for i, b in enumerate(save.blocks):
        name = block_name(b)
        if name in seen:
            report.error(None, f"blocks[{i}].name", "a block name not used before", repr(name))
        seen.add(name)


FORMAT = register(Format(
    name="angband-block",
    description="Angband 3.1+/4.x savefile, named blocks",
    model=BlockSave,
    sniff=sniff,
    parse=parse,
    build=build,
    info=info,
    extract=extract,
    check=check,
    validate_by_building=True,
    suffixes=(".sav",),
))
