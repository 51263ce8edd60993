"""The Angband modular savefile, version 2: the ``angband-modular`` format.

Layout (``angband-modular-savefile.md`` with NOTES.md): a 70-byte header
("Save", format version 2, status byte, 64-byte description), then blocks of
u16 vendor, u16 type, u16 version, u32 size, u32 checksum, ``size`` data
bytes and one 0 byte, then the end block (all five fields 0, then the 0
byte). Bytes after the end block are reported and kept.

The checksum (the sum of the data bytes modulo 2**32) and each block's size
are not stored in the model: they are verified on read and computed on
write, so they can never go stale. Blocks with a registered codec
(:mod:`.blocks`) are decoded; all others stay opaque bytes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import orjson

from ...binary import Reader, Writer, join_path, rename_spans, span_mark
from ...errors import FormatError, Report
from ...fileio import atomic_write, ensure_dir
from ...jsonmap import decoder, encoder
from ...layout import U8, U16, U32, Bytes, Context, Field, Struct
from ...parts import load_part, read_part
from ...registry import Format, register
from .blocks import BlockCodec, VariantHeader, codec_for, codec_named, codec_of
from .sniffing import MAGIC, MODULAR_VERSION, byte_sum, is_modular

DESCRIPTION_SIZE = 64


@dataclass(slots=True)
class FileHeader:
    """The 70 bytes before the blocks, as stored (the model keeps status and description)."""

    magic: bytes = MAGIC
    version: int = MODULAR_VERSION
    status: int = 0
    description: bytes = bytes(DESCRIPTION_SIZE)


@dataclass(slots=True)
class BlockHeader:
    """A block's identity, the size of its data and the byte sum of that data."""

    vendor: int = 0
    type: int = 0
    version: int = 0
    size: int = 0
    checksum: int = 0


FILE_HEADER = Struct(FileHeader, [Field("magic", Bytes(4)), Field("version", U8), Field("status", U8),
                                  Field("description", Bytes(DESCRIPTION_SIZE))], name="file header")
BLOCK_HEADER = Struct(BlockHeader, [Field("vendor", U16), Field("type", U16), Field("version", U16),
                                    Field("size", U32), Field("checksum", U32)], name="block header")
BLOCK_HEADER_SIZE = 14
_NO_CONTEXT = Context()
END_KEY = (0, 0, 0)
STATUS_DEAD = 0
TEXT_ENCODING = "latin-1"  # one byte per character: any 64 bytes decode, and encode back the same


@dataclass(slots=True)
class OpaqueBlock:
    """A block no codec is registered for: its identity and its data, untouched."""

    KIND: ClassVar[str] = "opaque"
    vendor: int
    type: int
    version: int
    data: bytes = b""

    @property
    def key(self) -> tuple[int, int, int]:
        return (self.vendor, self.type, self.version)


@dataclass(slots=True)
class DecodedBlock:
    """A block decoded by its registered codec; vendor, type and version come from the codec.

    In JSON it is ``{"codec": name, "vendor", "type", "version", "fields": {...}}``,
    the fields mapped by the one JSON mapping from the codec's model.
    """

    KIND: ClassVar[str] = "decoded"
    value: Any

    @property
    def codec(self) -> BlockCodec:
        return codec_of(self.value)

    @property
    def key(self) -> tuple[int, int, int]:
        return self.codec.key

    def __json_encode__(self) -> dict[str, Any]:
        c = self.codec
        return {"codec": c.name, "vendor": c.vendor, "type": c.type, "version": c.version,
                "fields": encoder(c.model)(self.value)}

    @classmethod
    def __json_decode__(cls, obj: Any, path: str) -> DecodedBlock:
        name = obj.get("codec") if isinstance(obj, dict) else None
        c = codec_named(name) if isinstance(name, str) else None
        if c is None:
            raise FormatError(None, f"{path}.codec", "the name of a registered block codec", repr(name))
        if "fields" not in obj:
            raise FormatError(None, f"{path}.fields", "the block's decoded fields", "nothing")
        return cls(decoder(c.model)(obj["fields"], f"{path}.fields"))


Block = OpaqueBlock | DecodedBlock


@dataclass(slots=True)
class ModularSave:
    """A modular v2 savefile: header fields, blocks in file order, bytes after the end block.

    ``description_padding`` is empty when the description is followed by
    zero bytes only (the normal case); otherwise it holds every byte after
    the text, so an odd file is rewritten as it was.
    """

    status: int = 1
    description: str = ""
    blocks: list[Block] = field(default_factory=list)
    trailing: bytes = b""
    description_padding: bytes = b""

    @property
    def dead(self) -> bool:
        return self.status == STATUS_DEAD

    @property
    def variant(self) -> VariantHeader | None:
        for b in self.blocks:
            if isinstance(b, DecodedBlock) and isinstance(b.value, VariantHeader):
                return b.value
        return None


def sniff(data: bytes) -> bool:
    return is_modular(data)


# -- parse ---------------------------------------------------------------------------------


def parse(data: bytes, report: Report) -> ModularSave:
    """Decode a whole file; in validate mode every problem is reported, then what was read is returned."""
    save = ModularSave()
    r = Reader(data, what="the file")
    try:
        _read_header(r, save, report)
        _read_blocks(r, save, report)
    except FormatError as err:
        report.capture(err)
    return save


def _read_header(r: Reader, save: ModularSave, report: Report) -> None:
    # under the model's paths (status, description; magic and version are constants of it)
    head: FileHeader = FILE_HEADER.read(r, _NO_CONTEXT)
    magic, version, status, desc = head.magic, head.version, head.status, head.description
    if magic != MAGIC:
        report.error(0, "magic", "the bytes 'Save' (83 97 118 101)", repr(magic))
    if version != MODULAR_VERSION:
        report.error(4, "version", "savefile format version 2", str(version))
    save.status = status
    save.description, save.description_padding = split_description(desc)


def split_description(raw: bytes) -> tuple[str, bytes]:
    text = raw.split(b"\0", 1)[0]
    rest = raw[len(text):]
    return text.decode(TEXT_ENCODING), (b"" if not rest.strip(b"\0") else rest)


def _read_blocks(r: Reader, save: ModularSave, report: Report) -> None:
    i = 0
    while True:
        name = f"blocks[{i}]"
        start = r.pos
        if r.at_end():
            r.fail(name, "a block header or the end block (vendor 0, type 0, version 0)",
                   "the end of the file")
        h: BlockHeader = BLOCK_HEADER.read(r, _NO_CONTEXT, name)
        vendor, type_, version, size, checksum = h.vendor, h.type, h.version, h.size, h.checksum
        if (vendor, type_, version) == END_KEY:
            _read_end(r, start, size, checksum, report)
            break
        body = r.sub(size, f"{name}.data", "the file")
        data = body.rest()
        total = byte_sum(data)
        if total != checksum:
            report.error(start + 10, f"{name}.checksum",
                         f"0x{total:08X} (the sum of the {size} data bytes)", f"0x{checksum:08X}")
        end = r.u8(f"{name}.terminator")
        if end != 0:
            report.error(r.pos - 1, f"{name}.terminator", "the 0 byte that ends a block", str(end))
        save.blocks.append(_decode_block(vendor, type_, version, data, start, name, report))
        if r.spans is not None:  # the block as a whole: header, data and terminator
            r.spans.add(r.base + start, r.pos - start, join_path(r.path, name))
        i += 1
    if not r.at_end():
        save.trailing = r.rest()
        report.warning(r.end - len(save.trailing), "trailing",
                       "the end of the file after the end block",
                       f"{len(save.trailing)} more bytes (kept as they are)")


def _read_end(r: Reader, start: int, size: int, checksum: int, report: Report) -> None:
    if size:
        report.error(start + 6, "end.size", "0 in the end block", str(size))
    if checksum:
        report.error(start + 10, "end.checksum", "0 in the end block", f"0x{checksum:08X}")
    end = r.u8("end.terminator")
    if end != 0:
        report.error(r.pos - 1, "end.terminator", "the 0 byte that ends the end block", str(end))


def _decode_block(vendor: int, type_: int, version: int, data: bytes, start: int, name: str,
                  report: Report) -> Block:
    codec = codec_for(vendor, type_, version)
    if codec is None:
        return OpaqueBlock(vendor, type_, version, data)
    reader = Reader(data, base=start + BLOCK_HEADER_SIZE, path=name, what=f"the {codec.name} block")
    mark = span_mark(reader)
    try:
        value = codec.decode(reader)
    except FormatError as err:
        report.capture(err)  # named at the block: the model keeps it opaque
        return OpaqueBlock(vendor, type_, version, data)
    w = Writer(name)
    codec.encode(value, w)
    if w.getvalue() != data:
        report.warning(start, name, f"a {codec.name} block that its codec writes back the same",
                       "a different encoding (kept as opaque bytes)")
        return OpaqueBlock(vendor, type_, version, data)
    rename_spans(reader, mark, "", "value")  # decoded: its fields are the model's blocks[i].value.*
    return DecodedBlock(value)


# -- build ---------------------------------------------------------------------------------


def description_bytes(save: ModularSave) -> bytes:
    try:
        raw = save.description.encode(TEXT_ENCODING)
    except UnicodeEncodeError:
        raw = b"\xff" * (DESCRIPTION_SIZE + 1)
    if len(raw) > DESCRIPTION_SIZE or b"\0" in raw:
        raise FormatError(None, "description",
                          f"at most {DESCRIPTION_SIZE} Latin-1 characters, none of them NUL",
                          repr(save.description[:80]))
    if save.description_padding:
        raw += save.description_padding
        if len(raw) != DESCRIPTION_SIZE:
            raise FormatError(None, "description_padding",
                              f"{DESCRIPTION_SIZE} bytes with the description", f"{len(raw)} bytes")
        return raw
    return raw + bytes(DESCRIPTION_SIZE - len(raw))


def block_payload(block: Block, name: str) -> tuple[tuple[int, int, int], bytes]:
    if isinstance(block, DecodedBlock):
        codec = block.codec
        w = Writer(name)
        codec.encode(block.value, w)
        return codec.key, w.getvalue()
    return block.key, block.data


def build(save: ModularSave) -> bytes:
    w = Writer()
    FILE_HEADER.write(FileHeader(MAGIC, MODULAR_VERSION, save.status, description_bytes(save)), w, _NO_CONTEXT,
                      "header")
    for i, block in enumerate(save.blocks):
        name = f"blocks[{i}]"
        key, data = block_payload(block, name)
        if key == END_KEY:
            raise FormatError(None, name, "a block other than vendor 0, type 0, version 0 "
                              "(that marks the end block)", "0/0/0")
        BLOCK_HEADER.write(BlockHeader(*key, len(data), byte_sum(data)), w, _NO_CONTEXT, name)
        w.bytes(data)
        w.u8(0)
    BLOCK_HEADER.write(BlockHeader(), w, _NO_CONTEXT, "end")
    w.u8(0)
    w.bytes(save.trailing)
    return w.getvalue()


# -- registry glue ---------------------------------------------------------------------------


def block_label(block: Block) -> str:
    vendor, type_, version = block.key
    if isinstance(block, DecodedBlock):
        return block.codec.name
    return f"vendor {vendor} type {type_} v{version}"


def info(save: ModularSave) -> dict[str, Any]:
    """The summary (docs/info-json.md): one value per key, the blocks as records."""
    out: dict[str, Any] = {
        "savefile_description": save.description,  # not "description": info --json uses that key
        "status": save.status,
        "dead": save.dead,
    }
    h = save.variant
    if h is not None:
        out["variant"] = h.variant
        out["variant_version"] = h.version_text
    out["blocks"] = []
    for b in save.blocks:
        vendor, type_, version = b.key
        name = b.codec.name if isinstance(b, DecodedBlock) else None  # None: kept opaque
        out["blocks"].append({"name": name, "vendor": vendor, "type": type_, "version": version,
                              "payload_bytes": len(block_payload(b, "")[1])})
    out["trailing_bytes"] = len(save.trailing)
    return out


HEADER_FILE = "file-header.json"


def extract(save: ModularSave, folder: Path) -> list[Path]:
    """``file-header.json`` (the header's fields and the block files in order), then one file per
    block: ``.json`` when decoded, ``.bin`` when opaque; ``trailing.bin`` for bytes after the end.

    :func:`rebuild` reads the folder back, after edits to its files.
    """
    ensure_dir(folder)
    written = []
    files: list[dict[str, Any]] = []
    for i, block in enumerate(save.blocks):
        if isinstance(block, DecodedBlock):
            p = folder / f"{i:03d}-{block.codec.name}.json"
            atomic_write(p, orjson.dumps(block.__json_encode__(), option=orjson.OPT_INDENT_2))
            files.append({"file": p.name})
        else:
            vendor, type_, version = block.key
            p = folder / f"{i:03d}-vendor{vendor}-type{type_}-v{version}.bin"
            atomic_write(p, block.data)
            files.append({"file": p.name, "vendor": vendor, "type": type_, "version": version})
        written.append(p)
    if save.trailing:
        p = folder / "trailing.bin"
        atomic_write(p, save.trailing)
        written.append(p)
    head = {"status": save.status, "dead": save.dead, "description": save.description,
            "description_padding": encoder(bytes)(save.description_padding), "files": files}
    p = folder / HEADER_FILE
    atomic_write(p, orjson.dumps(head, option=orjson.OPT_INDENT_2))
    return [p, *written]


def rebuild(folder: Path) -> ModularSave:
    """The save an :func:`extract` folder describes, with whatever was edited in its files."""
    head = load_part(folder / HEADER_FILE)
    files = head.get("files") if isinstance(head, dict) else None
    if not isinstance(files, list):
        raise FormatError(None, f"{HEADER_FILE}.files", "the list of the folder's block files "
                          "(written by this savecraft's extract)", "nothing")
    blocks: list[Block] = []
    for k, entry in enumerate(files):
        if not isinstance(entry, dict) or not isinstance(entry.get("file"), str):
            raise FormatError(None, f"{HEADER_FILE}.files[{k}]", "an object naming a block file",
                              repr(entry)[:60])
        path = folder / Path(entry["file"]).name
        if path.suffix == ".bin":
            blocks.append(decoder(OpaqueBlock)({**{n: entry.get(n) for n in ("vendor", "type", "version")},
                                                 "data": encoder(bytes)(read_part(path))}, path.name))
        else:
            blocks.append(DecodedBlock.__json_decode__(load_part(path), path.name))
    trailing = folder / "trailing.bin"
    return ModularSave(status=decoder(int)(head.get("status"), f"{HEADER_FILE}.status"),
                       description=decoder(str)(head.get("description"), f"{HEADER_FILE}.description"),
                       blocks=blocks, trailing=read_part(trailing) if trailing.is_file() else b"",
                       description_padding=decoder(bytes)(head.get("description_padding", ""),
                                                          f"{HEADER_FILE}.description_padding"))


FORMAT = register(Format(
    name="angband-modular",
    description="Angband modular savefile, version 2",
    model=ModularSave,
    sniff=sniff,
    parse=parse,
    build=build,
    info=info,
    extract=extract,
    rebuild=rebuild,
    validate_by_building=True,
    suffixes=(".sav",),
))
