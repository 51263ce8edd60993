"""The file around the sections: header, compressed section block with its CRC, inlined assets.

Layout (NOTES.md): 64-byte header; u32 n; n bytes holding a zlib stream of
the section block and, last, the CRC-32 of the inflated block; then the
assets, map assets last. Asset offsets count from 68 + n. Bytes 56-59 hold
the CRC-32 of the whole file computed with those bytes zeroed.

The builder places every asset again: assets keep the order (and any bytes
in front of them) they had when read, new ones go after the others of their
kind, maps at the end; then every descriptor, size and both CRCs follow.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Any

from ....binary import Reader, Writer, active_sink, stream_space
from ....errors import FormatError, Report
from ....layout import U8, U24, U32, Context, Ctx, Field, List, Struct
from ....paths import Attr, Index, format_path, shown
from ..crc_stream import read_stream, write_stream
from .assets import Asset, AssetContext, Source
from .header import (
    CRC_OFFSET,
    HEADER_SIZE,
    EncryptedGameError,
    build_header,
    file_crc,
    parse_header,
)
from .model import Game, GameEncoding
from .refs import script_names
from .sections import CODECS, LAST_TYPE, MapsSection, StringsSection, opaque, section_name
from .sections.common import BuildContext, ParseContext, iter_assets, iter_values



@dataclass(slots=True)
class TableEntry:
    """Where a section's data is in the inflated section block, and its type."""

    offset: int = 0
    length: int = 0
    type: int = 0


@dataclass(slots=True)
class SectionTable:
    """The table at the start of the section block: one entry per section, in table order."""

    table: list[TableEntry] = field(default_factory=list)


TABLE_ENTRY = Struct(TableEntry, [Field("offset", U32), Field("length", U24), Field("type", U8)],
                     name="section table entry")
# As many entries as the first one's offset says (the table ends where the first section starts).
SECTION_TABLE = Struct(SectionTable, [Field("table", List(TABLE_ENTRY, Ctx("entries")))], name="section table")
SECTIONS_AT = HEADER_SIZE + 4  # the compressed block starts after the header and its size


def read_game(src: Source, report: Report | None = None, *, verify_file_crc: bool = True) -> Game:
    """Decode the header and every section; assets stay in the file until asked for."""
    report = report or Report(strict=True)
    data = src.data
    header = parse_header(data)
    if header.encrypted:
        raise EncryptedGameError(header)
    r = Reader(data, HEADER_SIZE, what="the file")
    n = r.u32("sections.size")
    if n < 4:
        r.fail("sections.size", "the size of a compressed section block and its 4-byte CRC", str(n),
               at=HEADER_SIZE)
    r.need(n, "sections", f"{n} bytes of compressed sections (the size at offset 0x40)")
    r.skip(n - 4, "sections")
    r.skip(4, "sections.crc")
    enc = GameEncoding()
    buf = read_stream(src.read(SECTIONS_AT, n - 4),
                      int.from_bytes(src.read(SECTIONS_AT + n - 4, 4), "little"), enc, report,
                      offset=SECTIONS_AT, crc_offset=SECTIONS_AT + n - 4, path="sections",
                      crc_path="sections.crc", what="the section block")
    game = Game(header, [], enc)
    game.source = src
    game.section_block = buf
    actx = AssetContext(report, game.script_names, header)
    pctx = ParseContext(src, SECTIONS_AT + n, header, report, actx)
    with stream_space("sections", buf, (SECTIONS_AT, n - 4)):
        _read_sections(buf, pctx, enc, game.sections)  # filled in place: later sections' scripts see the strings
    _name_assets(game)
    if pctx.past_end is not None:
        report.ends_early(len(src), pctx.past_end[0], pctx.past_end[1].path, "assets inside the file")
    if not game.sections or not isinstance(game.sections[0], StringsSection):
        report.error(None, "sections[0]", "the strings section (type 0) first", "another section" if
                     game.sections else "no sections")
    _read_gaps(game, list(pctx.assets()), src, SECTIONS_AT + n, report)
    if verify_file_crc:
        crc = file_crc(data)
        if crc != header.crc:
            report.error(CRC_OFFSET, "header.crc", f"0x{crc:08X} (CRC-32 of the file with this field zeroed)",
                         f"0x{header.crc:08X}")
    return game


def _name_assets(game: Game) -> None:
    """Give every asset the path the model names it by (``sections[29].objects[0].asset``), so
    problems found in it later carry the path that dumps, edits and diffs use.

    Only a section's own name can differ from its place in the list (``strings``, ``maps``):
    it is worked out once per section, and the rest is the walk's own path.
    """
    for k, section in enumerate(game.sections):
        prefix = format_path(shown(game, [Attr("sections"), Index(k)]))
        for path, asset in iter_values(section, Asset, prefix):
            asset.path = path


def _read_sections(buf: bytes, ctx: ParseContext, enc: GameEncoding, out: list[Any]) -> None:
    report = ctx.report
    if len(buf) < 8:
        raise FormatError(0, "sections.table", "a section table of 8-byte entries", f"{len(buf)} bytes")
    first = int.from_bytes(buf[:4], "little")
    if first % 8 or not 8 <= first <= len(buf):
        raise FormatError(0, "sections.table[0].offset",
                          f"a multiple of 8 within the {len(buf)}-byte section block (the table's size)",
                          str(first))
    sink = active_sink()
    pos = first
    canonical = True
    for i, entry in enumerate(_table(buf, first)):  # (with spans while recording)
        off, length, t = entry.offset, entry.length, entry.type
        name = section_name(t)
        end = off + length
        if off != pos:
            canonical = False
        pos = end
        if off < first or end > len(buf):
            report.error(i * 8, f"sections.table[{i}]",
                         f"a {name} section inside the {len(buf)}-byte section block after the table",
                         f"{length} bytes at 0x{off:X}")
            off, end = min(max(off, first), len(buf)), min(end, len(buf))
            if end < off:
                end = off
        r = Reader(buf, off, end, path=f"sections[{i}]", what=f"the {name} section")
        if sink is not None:
            sink.add(off, end - off, f"sections[{i}]")
        mod = CODECS.get(t)
        if mod is None:
            if t > LAST_TYPE:
                report.warning(i * 8 + 7, f"sections.table[{i}].type", f"a section type up to {LAST_TYPE}",
                               f"{t} (kept as opaque bytes)")
            out.append(opaque.decode(r, ctx, t))
            continue
        try:
            out.append(mod.decode(r, ctx))
        except FormatError as err:
            report.capture(err)
            out.append(opaque.OpaqueSection(t, bytes(buf[off:end])))
    if not canonical or pos != len(buf):
        enc.section_buffer = buf
        report.note("the section block is not laid out in table order (kept as it is)")


def _table(buf: bytes, first: int) -> list[TableEntry]:
    """The section table's entries: the ``first`` bytes of the section block."""
    ctx = Context()
    ctx.set("entries", first // TABLE_ENTRY.min_size, "the section table")
    table: SectionTable = SECTION_TABLE.read(Reader(buf, 0, first, path="sections"), ctx)
    return table.table


def _read_gaps(game: Game, assets: list[Asset[Any]], src: Source, base: int, report: Report) -> None:
    """Remember bytes between assets, and after the last one, for a byte-exact rewrite."""
    spans: dict[int, Asset[Any]] = {}
    for a in assets:
        if a.length and a.file_offset >= 0 and a.file_offset + a.length <= len(src):
            prev = spans.get(a.file_offset)
            if prev is None or prev.length < a.length:
                spans[a.file_offset] = a
    pos = base
    for off in sorted(spans):
        a = spans[off]
        if off > pos:
            a.gap = src.read(pos, off - pos)
        elif off < pos:
            report.warning(off, a.path, f"an asset that starts after the previous one ends (0x{pos:X})",
                           f"one at 0x{off:X}")
        pos = max(pos, off + a.length)
    if pos < len(src):
        game.encoding.tail = src.read(pos, len(src) - pos)


# -- building --------------------------------------------------------------------------------


def _is_map_section(s: Any) -> bool:
    return isinstance(s, MapsSection)


def layout_assets(game: Game, ctx: BuildContext) -> list[bytes]:
    """Place every asset; returns the asset area as pieces (gaps included) in file order.

    While every asset still fits where it was read (same offsets, gaps and
    overlapping bytes), the area is rebuilt exactly as it was, whatever its
    order (map assets not last, assets sharing bytes); otherwise the assets
    are laid out again, in their old order with maps last and new ones after
    the others of their kind.
    """
    items: list[tuple[tuple[int, int, int, int], Asset[Any], bytes]] = []
    seen: set[int] = set()
    seq = 0
    for s in game.sections:
        is_map = 1 if _is_map_section(s) else 0
        for a in iter_assets(s):
            if id(a) in seen:
                continue
            seen.add(id(a))
            stored = a.stored_for_build(ctx)
            hint = a.hint
            key = (is_map, 1 if hint is None else 0, hint or 0, seq)
            seq += 1
            items.append((key, a, stored))
    in_place = _place_as_read([(a, stored) for _, a, stored in items], ctx)
    if in_place is not None:
        return in_place
    ctx.places.clear()
    items.sort(key=lambda x: x[0])
    pieces: list[bytes] = []
    pos = 0
    same: dict[tuple[int, int], list[tuple[bytes, int]]] = {}
    for _, a, stored in items:
        if not stored:
            ctx.places[id(a)] = (a.hint or 0, 0)
            continue
        if a.hint is not None:
            bucket = same.setdefault((a.hint, len(stored)), [])
            dup = next((p for b, p in bucket if b == stored), None)
            if dup is not None:
                ctx.places[id(a)] = (dup, len(stored))
                continue
        if a.gap:
            pieces.append(a.gap)
            pos += len(a.gap)
        ctx.places[id(a)] = (pos, len(stored))
        if a.hint is not None:
            same[(a.hint, len(stored))].append((stored, pos))
        pieces.append(stored)
        pos += len(stored)
    return pieces


def _place_as_read(items: list[tuple[Asset[Any], bytes]], ctx: BuildContext) -> list[bytes] | None:
    """The asset area with every asset at its original offset, or None when one no longer fits.

    Each asset goes back to ``hint`` (its offset when read) behind the ``gap``
    bytes read in front of it; an asset that overlaps bytes already placed
    must agree with them. A new asset (no hint), a gap that no longer matches,
    or overlapping bytes that now differ mean the old layout cannot hold the
    new content: the caller lays the area out afresh.
    """
    order = sorted(range(len(items)), key=lambda k: (items[k][0].hint or 0, -len(items[k][1]), k))
    area = bytearray()
    for k in order:
        a, stored = items[k]
        if a.hint is None:
            if stored:
                return None
            ctx.places[id(a)] = (0, 0)
            continue
        h = a.hint
        if not stored:
            ctx.places[id(a)] = (h, 0)
            continue
        if a.gap:
            if h != len(area) + len(a.gap):
                return None
            area += a.gap
        elif h > len(area):
            return None
        end = h + len(stored)
        shared = min(end, len(area)) - h
        if area[h : h + shared] != stored[:shared]:
            return None
        area += stored[shared:]
        ctx.places[id(a)] = (h, len(stored))
    return [bytes(area)]


def section_block(game: Game, ctx: BuildContext) -> bytes:
    """The inflated section block: the table, then each section's data in table order."""
    datas = []
    for i, s in enumerate(game.sections):
        w = Writer(f"sections[{i}]")
        mod = CODECS.get(int(s.TYPE)) if not isinstance(s, opaque.OpaqueSection) else opaque
        assert mod is not None
        mod.encode(s, w, ctx)
        if len(w) >= 1 << 24:
            raise FormatError(None, f"sections[{i}]", "a section of at most 16 MiB", f"{len(w)} bytes")
        datas.append(w.getvalue())
    orig = game.encoding.section_buffer
    if orig is not None and _matches(orig, datas, game):
        return orig
    entries = []
    pos = TABLE_ENTRY.min_size * len(datas)
    for s, d in zip(game.sections, datas):
        t = int(s.TYPE)
        if not 0 <= t < 256:
            raise FormatError(None, "sections", "a section type from 0 to 255", str(t))
        entries.append(TableEntry(pos, len(d), t))
        pos += len(d)
    counts = Context()
    counts.set("entries", len(entries), "the section table")
    return SECTION_TABLE.pack(SectionTable(entries), counts, "sections") + b"".join(datas)


def _matches(orig: bytes, datas: list[bytes], game: Game) -> bool:
    if len(orig) < 8:
        return False
    first = int.from_bytes(orig[:4], "little")
    if first != TABLE_ENTRY.min_size * len(datas) or first > len(orig):
        return False
    for e, d, s in zip(_table(orig, first), datas, game.sections):
        if e.type != int(s.TYPE) or orig[e.offset : e.offset + e.length] != d:
            return False
    return True


def build_game(game: Game) -> bytes:
    strings = game.section(StringsSection)
    remap = strings.remap() if strings is not None else None
    ctx = BuildContext(game.header, remap, script_names(game, for_build=True))
    pieces = layout_assets(game, ctx)
    block = section_block(game, ctx)
    enc = game.encoding
    stored = write_stream(block, enc)
    out = bytearray(build_header(game.header))
    out += len(stored).to_bytes(4, "little")
    out += stored
    for p in pieces:
        out += p
    out += enc.tail
    struct.pack_into("<I", out, CRC_OFFSET, file_crc(out))
    return bytes(out)
