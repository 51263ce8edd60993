"""TirNanoG script bytecode as assembly text, and back to the same bytes.

The syntax (``docs/tirnanog-scripts.md``): one instruction per line, a
mnemonic then its operands separated by commas; jump targets are labels
(``L0012:`` on a line of its own, named after the byte offset they mark);
``;`` starts a comment. References are shown by name when a
:class:`ScriptNames` knows them and the name leads back to the same index;
otherwise as numbers, which the assembler always accepts::

    L0000:
        PUSHA hp
        PUSH8 10
        LT
        JZ L000F
        PUSHSND snd_coin
        FNC1 sound
    L000F:
        END

Text produced by :func:`disassemble` is canonical: assembling it and
disassembling the result gives the same text, and assembling gives the
original bytes. Bad bytecode (an unknown opcode, an operand cut short, a jump
outside the script or into the middle of an instruction) raises
:class:`~savecraft.errors.FormatError` with the offset; bad text raises it
with the line number.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ....errors import FormatError
from .script_ops import (
    BY_MNEMONIC,
    COMMAND_BY_CODE,
    COMMAND_BY_NAME,
    LOCAL_VARIABLES,
    OPCODES,
    OPERAND_SIZE,
    SPRITE_CATEGORIES,
    Op,
)

INDENT = "    "
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-/]*\Z")
_NUMBER = re.compile(r"[-+]?(?:0[xX][0-9a-fA-F]+|\d+)\Z")
_LABEL_DEF = re.compile(r"\s*([A-Za-z_.$@][A-Za-z0-9_.$@]*)\s*:")


class ScriptNames:
    """Names for the numbers in scripts, and the numbers for names.

    ``strings`` maps string indices (byte offsets into section 0) to the
    strings there, which are the internal names of attributes, sounds, maps
    and so on; ``texts`` maps text indices to a translated text (shown as a
    comment only); ``sprites`` maps (category, index) to a name. A name is
    used in text only if it leads back to the same number, so text with
    names always assembles to the original bytes.
    """

    def __init__(
        self,
        strings: Mapping[int, str] | None = None,
        texts: Mapping[int, str] | None = None,
        sprites: Mapping[tuple[int, int], str] | None = None,
    ) -> None:
        self.strings: dict[int, str] = dict(strings or {})
        self.texts: dict[int, str] = dict(texts or {})
        self.sprites: dict[tuple[int, int], str] = dict(sprites or {})
        self._string_index: dict[str, int] | None = None
        self._sprite_index: dict[str, tuple[int, int]] | None = None

    @classmethod
    def from_string_table(cls, table: bytes, **kw: Mapping[object, str]) -> ScriptNames:
        """Names from the raw strings section: NUL-terminated strings at their offsets."""
        strings: dict[int, str] = {}
        pos = 0
        for raw in table.split(b"\0")[:-1] if table.endswith(b"\0") else table.split(b"\0"):
            strings[pos] = raw.decode("utf-8", "replace")
            pos += len(raw) + 1
        return cls(strings, **kw)  # type: ignore[arg-type]

    def string_name(self, index: int) -> str | None:
        name = self.strings.get(index)
        if not name or self.string_index(name) != index:
            return None
        return name

    def string_index(self, name: str) -> int | None:
        if self._string_index is None:
            rev: dict[str, int] = {}
            for k in sorted(self.strings):
                rev.setdefault(self.strings[k], k)
            self._string_index = rev
        return self._string_index.get(name)

    def sprite_name(self, category: int, index: int) -> str | None:
        name = self.sprites.get((category, index))
        if not name or self.sprite_index(name) != (category, index):
            return None
        return name

    def sprite_index(self, name: str) -> tuple[int, int] | None:
        if self._sprite_index is None:
            rev: dict[str, tuple[int, int]] = {}
            for k in sorted(self.sprites):
                rev.setdefault(self.sprites[k], k)
            self._sprite_index = rev
        return self._sprite_index.get(name)

    def text(self, index: int) -> str | None:
        return self.texts.get(index)


@dataclass(slots=True)
class Instruction:
    offset: int
    op: Op
    args: tuple[int, ...]  # operand values in byte order; cases: the targets


# -- decoding --------------------------------------------------------------------------


def decode(code: bytes, *, offset: int = 0, path: str = "") -> list[Instruction]:
    """Split bytecode into instructions; every jump is checked against the script."""
    out: list[Instruction] = []
    n = len(code)
    pos = 0
    jumps: list[tuple[int, int]] = []  # (operand offset, target)
    while pos < n:
        start = pos
        opcode = code[pos]
        if opcode >= len(OPCODES):
            raise FormatError(offset + pos, path, "an opcode from 0 to 51", str(opcode))
        op = OPCODES[opcode]
        pos += 1
        args: list[int] = []
        for kind in op.operands:
            if kind == "cases":
                _need(code, pos, 1, op, offset, path, start)
                count = code[pos]
                pos += 1
                _need(code, pos, 3 * count, op, offset, path, start)
                for _ in range(count):
                    target = int.from_bytes(code[pos:pos + 3], "little")
                    jumps.append((pos, target))
                    args.append(target)
                    pos += 3
                continue
            size = OPERAND_SIZE[kind]
            _need(code, pos, size, op, offset, path, start)
            if kind == "map":
                args += (int.from_bytes(code[pos:pos + 3], "little"),
                         int.from_bytes(code[pos + 3:pos + 5], "little"),
                         int.from_bytes(code[pos + 5:pos + 7], "little"))
            elif kind == "spr":
                args += (code[pos], int.from_bytes(code[pos + 1:pos + 3], "little"))
            else:
                value = int.from_bytes(code[pos:pos + size], "little")
                if kind == "addr":
                    jumps.append((pos, value))
                args.append(value)
            pos += size
        out.append(Instruction(start, op, tuple(args)))
    starts = {i.offset for i in out}
    starts.add(n)
    for at, target in jumps:
        if target > n:
            raise FormatError(offset + at, path, f"a jump inside the script (0 to {n})",
                              f"a jump to {target}")
        if target not in starts:
            raise FormatError(offset + at, path, "a jump to the start of an instruction",
                              f"a jump to {target}, inside the instruction at "
                              f"{max(s for s in starts if s < target)}")
    return out


def _need(code: bytes, pos: int, size: int, op: Op, offset: int, path: str, start: int) -> None:
    if pos + size > len(code):
        raise FormatError(offset + pos, path, f"{size} more bytes of {op.mnemonic} (at {start})",
                          f"the end of the script after {len(code) - pos}")


# -- text ------------------------------------------------------------------------------


def label(target: int) -> str:
    return f"L{target:04X}"


def _quote(name: str) -> str:
    if _IDENT.match(name) and not _NUMBER.match(name):
        return name
    return json.dumps(name, ensure_ascii=False)


def _format(ins: Instruction, names: ScriptNames | None) -> str:
    op = ins.op
    args = ins.args
    kinds = op.operands
    parts: list[str] = []
    comment = ""
    if not kinds:
        return op.mnemonic
    kind = kinds[0]
    if kind == "cases":
        parts = [label(t) for t in args]
    elif kind == "addr":
        parts = [label(args[0])]
    elif kind == "cmd":
        cmd = COMMAND_BY_CODE.get(args[0])
        parts = [cmd.name if cmd else str(args[0])]
    elif kind == "obj":
        name = names.sprite_name(1, args[0]) if names else None
        parts = [_quote(name) if name else str(args[0])]
    elif kind == "str":
        parts = [_string(args[0], names)]
    elif kind == "text":
        parts = [str(args[0])]
        text = names.text(args[0]) if names else None
        if text is not None:
            comment = "  ; " + json.dumps(text, ensure_ascii=False)
    elif kind == "var":
        parts = [LOCAL_VARIABLES[args[0]] if args[0] < len(LOCAL_VARIABLES) else str(args[0])]
    elif kind == "map":
        parts = [_string(args[0], names), str(args[1]), str(args[2])]
    elif kind == "spr":
        name = names.sprite_name(args[0], args[1]) if names else None
        if name:
            parts = [_quote(name)]
        else:
            cat = SPRITE_CATEGORIES[args[0]] if args[0] < len(SPRITE_CATEGORIES) else str(args[0])
            parts = [cat, str(args[1])]
    else:  # u8 and constants
        parts = [str(args[0])]
    text_args = ", ".join(parts)
    return f"{op.mnemonic} {text_args}{comment}" if text_args else op.mnemonic + comment


def _string(index: int, names: ScriptNames | None) -> str:
    name = names.string_name(index) if names else None
    return _quote(name) if name else str(index)


def disassemble(code: bytes, names: ScriptNames | None = None, *, offset: int = 0,
                path: str = "") -> str:
    """Assembly text for ``code``; ``offset`` is where the script starts, for messages."""
    program = decode(bytes(code), offset=offset, path=path)
    targets: set[int] = set()
    for ins in program:
        if ins.op.operands and ins.op.operands[0] in ("addr", "cases"):
            targets.update(ins.args)
    lines: list[str] = []
    for ins in program:
        if ins.offset in targets:
            lines.append(label(ins.offset) + ":")
        lines.append(INDENT + _format(ins, names))
    if len(code) in targets:
        lines.append(label(len(code)) + ":")
    return "\n".join(lines) + "\n" if lines else ""


# -- assembling ------------------------------------------------------------------------


def _quote_scan(text: str) -> tuple[list[bool], bool]:
    """For each character, whether it stands outside a "quoted string"; and whether
    a quote is left open at the end. Escapes are honoured; an opening quote is outside.

    Comments and operand commas both go through this one scanner, so the two
    can never disagree about what is quoted.
    """
    outside: list[bool] = []
    in_quote = escaped = False
    for ch in text:
        outside.append(not in_quote)
        if not in_quote:
            in_quote = ch == '"'
        elif escaped:
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch == '"':
            in_quote = False
    return outside, in_quote


def _strip_comment(line: str) -> str:
    outside, _ = _quote_scan(line)
    for i, ch in enumerate(line):
        if outside[i] and ch in ";#":
            return line[:i]
    return line


def _split_operands(text: str, where: str) -> list[str]:
    parts: list[str] = []
    cur: list[str] = []
    outside, in_quote = _quote_scan(text)
    for ch, out in zip(text, outside):
        if out and ch == ",":
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if in_quote:
        raise FormatError(None, where, "a closing quote", text)
    last = "".join(cur).strip()
    if last or parts:
        parts.append(last)
    for p in parts:
        if not p:
            raise FormatError(None, where, "an operand between commas", text)
    return parts


@dataclass(slots=True)
class _Line:
    where: str
    op: Op
    operands: list[str]
    offset: int = 0


def _size(op: Op, operands: list[str]) -> int:
    size = 1
    for kind in op.operands:
        size += 1 + 3 * len(operands) if kind == "cases" else OPERAND_SIZE[kind]
    return size


def _arity(op: Op, operands: list[str], where: str, names: ScriptNames | None) -> None:
    if not op.operands:
        want: tuple[int, ...] = (0,)
    else:
        kind = op.operands[0]
        if kind == "cases":
            if len(operands) > 255:
                raise FormatError(None, where, "at most 255 SWITCH targets", str(len(operands)))
            return
        if kind == "map":
            want = (3,)
        elif kind == "spr":
            want = (1, 2)
        else:
            want = (1,)
    if len(operands) not in want:
        expect = " or ".join(str(w) for w in want)
        raise FormatError(None, where, f"{op.mnemonic} with {expect} operand"
                          f"{'' if want == (1,) else 's'}", f"{len(operands)}")


def _number(tok: str, where: str, what: str, bits: int, signed_ok: bool = True) -> int:
    if not _NUMBER.match(tok):
        raise FormatError(None, where, what, tok)
    v = int(tok, 16) if "x" in tok.lower() else int(tok, 10)
    if v < 0 and signed_ok and v >= -(1 << (bits - 1)):
        v += 1 << bits
    if not 0 <= v < 1 << bits:
        raise FormatError(None, where, f"{what} that fits in {bits} bits", tok)
    return v


def _name(tok: str, where: str) -> str | None:
    """A bare or quoted name, or None when the token is a number."""
    if _NUMBER.match(tok):
        return None
    if tok.startswith('"'):
        try:
            v = json.loads(tok)
        except ValueError:
            raise FormatError(None, where, "a quoted name", tok) from None
        if not isinstance(v, str):
            raise FormatError(None, where, "a quoted name", tok)
        return v
    if not _IDENT.match(tok):
        raise FormatError(None, where, "a name or a number", tok)
    return tok


def _string_operand(tok: str, where: str, names: ScriptNames | None) -> int:
    name = _name(tok, where)
    if name is None:
        return _number(tok, where, "a string index", 24)
    index = names.string_index(name) if names else None
    if index is None:
        raise FormatError(None, where, "a name from the strings section, or a string index",
                          json.dumps(name, ensure_ascii=False))
    return index


def _emit(line: _Line, out: bytearray, labels: dict[str, int], names: ScriptNames | None) -> None:
    op, ops, where = line.op, line.operands, line.where
    out.append(op.code)
    if not op.operands:
        return
    kind = op.operands[0]

    def target(tok: str) -> int:
        if tok in labels:
            return labels[tok]
        if _NUMBER.match(tok):
            return _number(tok, where, "a jump target", 24, False)
        raise FormatError(None, where, "a label defined in the script", tok)

    if kind == "cases":
        out.append(len(ops))
        for tok in ops:
            out += target(tok).to_bytes(3, "little")
    elif kind == "addr":
        out += target(ops[0]).to_bytes(3, "little")
    elif kind == "cmd":
        cmd = COMMAND_BY_NAME.get(ops[0].lower())
        out.append(cmd.code if cmd else _number(ops[0], where, "a command name or number", 8,
                                                False))
    elif kind == "obj":
        name = _name(ops[0], where)
        if name is None:
            out += _number(ops[0], where, "an object sprite index", 16, False).to_bytes(2, "little")
        else:
            ref = names.sprite_index(name) if names else None
            if ref is None or ref[0] != 1:
                raise FormatError(None, where, "an object sprite name or index", ops[0])
            out += ref[1].to_bytes(2, "little")
    elif kind == "str":
        out += _string_operand(ops[0], where, names).to_bytes(3, "little")
    elif kind == "text":
        out += _number(ops[0], where, "a text index", 24, False).to_bytes(3, "little")
    elif kind == "var":
        tok = ops[0]
        if len(tok) == 1 and tok.lower() in LOCAL_VARIABLES:
            out.append(LOCAL_VARIABLES.index(tok.lower()))
        else:
            out.append(_number(tok, where, "a local variable (a-z) or number", 8, False))
    elif kind == "map":
        out += _string_operand(ops[0], where, names).to_bytes(3, "little")
        out += _number(ops[1], where, "an x coordinate", 16, False).to_bytes(2, "little")
        out += _number(ops[2], where, "a y coordinate", 16, False).to_bytes(2, "little")
    elif kind == "spr":
        if len(ops) == 1:
            name = _name(ops[0], where)
            ref = names.sprite_index(name) if names and name is not None else None
            if ref is None:
                raise FormatError(None, where, "a sprite name, or a category and an index", ops[0])
            out.append(ref[0])
            out += ref[1].to_bytes(2, "little")
        else:
            cat = ops[0].lower()
            out.append(SPRITE_CATEGORIES.index(cat) if cat in SPRITE_CATEGORIES
                       else _number(ops[0], where, "a sprite category", 8, False))
            out += _number(ops[1], where, "a sprite index", 16, False).to_bytes(2, "little")
    else:
        bits = {"u8": 8, "c8": 8, "c16": 16, "c24": 24, "c32": 32}[kind]
        out += _number(ops[0], where, "a number", bits).to_bytes(bits // 8, "little")


def assemble(text: str, names: ScriptNames | None = None) -> bytes:
    """Bytecode for assembly text; errors name the line (``line 3``)."""
    lines: list[_Line] = []
    labels: dict[str, int] = {}
    pos = 0
    for number, raw in enumerate(text.splitlines(), 1):
        where = f"line {number}"
        line = _strip_comment(raw)
        while True:
            m = _LABEL_DEF.match(line)
            if not m:
                break
            _define(labels, m.group(1), pos, where)
            line = line[m.end():]
        line = line.strip()
        if not line:
            continue
        mnemonic, _, rest = line.replace("\t", " ").partition(" ")
        op = BY_MNEMONIC.get(mnemonic.upper())
        if op is None:
            raise FormatError(None, where, "a mnemonic (END, JMP, PUSH8, FNC1...)", mnemonic)
        operands = _split_operands(rest.strip(), where)
        _arity(op, operands, where, names)
        lines.append(_Line(where, op, operands, pos))
        pos += _size(op, operands)
        if pos >= 1 << 24:
            raise FormatError(None, where, "a script under 16 MiB (jumps have 3 bytes)", str(pos))
    out = bytearray()
    for ln in lines:
        _emit(ln, out, labels, names)
    return bytes(out)


def _define(labels: dict[str, int], name: str, pos: int, where: str) -> None:
    if name in labels and labels[name] != pos:
        raise FormatError(None, where, "a label defined once", name)
    labels[name] = pos


def commands_used(code: bytes) -> Iterable[int]:
    """The command numbers a script calls (for the header's "highest command" byte)."""
    for ins in decode(code):
        if ins.op.operands == ("cmd",):
            yield ins.args[0]
