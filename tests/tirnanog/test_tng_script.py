"""TirNanoG script bytecode: disassembler and assembler."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from savecraft.errors import FormatError
from savecraft.formats.tirnanog.game.script import ScriptNames, assemble, disassemble
from savecraft.formats.tirnanog.game.script_ops import COMMANDS, OPCODES, OPERAND_SIZE

NAMES = ScriptNames.from_string_table(
    b"\0hp\0snd_coin\0my sound\0forest\0dup\0dup\0", texts={7: "Hello"},
    sprites={(1, 3): "apple", (2, 1): "hero"})


def _size(kind: str, cases: int = 0) -> int:
    return 1 + 3 * cases if kind == "cases" else OPERAND_SIZE[kind]


@st.composite
def programs(draw: st.DrawFn) -> bytes:
    """Random valid bytecode, laid out by hand (not by the assembler under test)."""
    ops = draw(st.lists(st.sampled_from(OPCODES), max_size=25))
    cases = [draw(st.integers(0, 3)) if op.operands == ("cases",) else 0 for op in ops]
    offsets = []
    pos = 0
    for op, c in zip(ops, cases):
        offsets.append(pos)
        pos += 1 + sum(_size(k, c) for k in op.operands)
    boundaries = offsets + [pos]
    out = bytearray()
    for op, c in zip(ops, cases):
        out.append(op.code)
        for kind in op.operands:
            if kind == "cases":
                out.append(c)
                for _ in range(c):
                    out += draw(st.sampled_from(boundaries)).to_bytes(3, "little")
            elif kind == "addr":
                out += draw(st.sampled_from(boundaries)).to_bytes(3, "little")
            elif kind == "str":
                v = draw(st.sampled_from([0, 1, 4, 13, 22, 29, 33, 99, 0xFFFFFF]))
                out += v.to_bytes(3, "little")
            else:
                out += draw(st.binary(min_size=_size(kind), max_size=_size(kind)))
    return bytes(out)


@given(programs())
def test_bytes_text_bytes(code: bytes) -> None:
    assert assemble(disassemble(code)) == code
    assert assemble(disassemble(code, NAMES), NAMES) == code


@given(programs())
def test_canonical_text_is_a_fixed_point(code: bytes) -> None:
    for names in (None, NAMES):
        text = disassemble(code, names)
        assert disassemble(assemble(text, names), names) == text


@given(st.binary(max_size=40))
def test_any_bytes_disassemble_or_fail_cleanly(blob: bytes) -> None:
    try:
        text = disassemble(blob, NAMES)
    except FormatError as err:
        assert err.offset is not None and 0 <= err.offset <= len(blob)
    else:
        assert assemble(text, NAMES) == blob


def test_every_opcode_has_its_mnemonic() -> None:
    for op in OPCODES:
        code = bytes([op.code]) + bytes(sum(_size(k) for k in op.operands))
        text = disassemble(code)
        assert [w for w in text.split() if not w.endswith(":")][0] == op.mnemonic
        assert assemble(text) == code


def test_every_command_by_name() -> None:
    for cmd in COMMANDS:
        code = bytes([5, cmd.code])
        assert disassemble(code) == f"    FNC1 {cmd.name}\n"
        assert assemble(f"FNC1 {cmd.name}") == code
    assert disassemble(bytes([4, 44])) == "    FNC0 44\n"  # beyond the table: kept as a number


def test_names_and_labels() -> None:
    text = """
    start:  PUSHA hp        ; a comment
            PUSH8 10
            LT
            JZ end
            PUSHSND snd_coin
            FNC1 sound
            PUSHSND "my sound"
            PUSHTXT 7
            PUSHMAP forest, 3, 4
            PUSHSPR hero
            CNT1 apple
            POP c
            SWITCH start, end
    end:    END
    """
    code = assemble(text, NAMES)
    assert code[:4] == bytes([35, 1, 0, 0])
    out = disassemble(code, NAMES)
    assert "    PUSHSND snd_coin\n    FNC1 sound\n" in out
    assert '    PUSHSND "my sound"\n' in out
    assert '    PUSHTXT 7  ; "Hello"\n' in out
    assert "    PUSHMAP forest, 3, 4\n" in out and "    PUSHSPR hero\n" in out
    assert "    CNT1 apple\n" in out and "    POP c\n" in out
    assert out.startswith("L0000:\n") and "    SWITCH L0000, L" in out
    plain = disassemble(code)
    assert "    PUSHSND 4\n" in plain and "    PUSHSPR characters, 1\n" in plain
    assert assemble(plain) == code


def test_ambiguous_name_shown_as_number() -> None:
    # "dup" is at 29 and at 33: only the first can be written by name
    code = bytes([44, 29, 0, 0, 44, 33, 0, 0])
    text = disassemble(code, NAMES)
    assert text == "    PUSHSND dup\n    PUSHSND 33\n"
    assert assemble(text, NAMES) == code


@pytest.mark.parametrize(("code", "offset", "words"), [
    (bytes([17, 52]), 1, "opcode from 0 to 51"),
    (bytes([17, 0xFF]), 1, "opcode"),
    (bytes([2, 1, 0]), 1, "end of the script"),
    (bytes([41, 1, 0, 0, 5]), 1, "7 more bytes of PUSHMAP"),
    (bytes([1, 2, 0, 0, 0]), 2, "6 more bytes of SWITCH"),
    (bytes([1]), 1, "1 more bytes of SWITCH"),
    (bytes([2, 9, 0, 0]), 1, "a jump inside the script (0 to 4)"),
    (bytes([0, 3, 2, 0, 0]), 2, "inside the instruction at 1"),
    (bytes([1, 2, 0, 0, 0, 40, 0, 0]), 5, "inside the script"),
])
def test_bad_bytecode_is_reported_with_offsets(code: bytes, offset: int, words: str) -> None:
    with pytest.raises(FormatError) as err:
        disassemble(code, offset=0x1000, path="objects[2].handlers[0]")
    assert err.value.offset == 0x1000 + offset
    assert err.value.path == "objects[2].handlers[0]"
    assert words in str(err.value)


@pytest.mark.parametrize(("text", "line", "words"), [
    ("END\nFOO 1", "line 2", "mnemonic"),
    ("JMP nowhere", "line 1", "a label defined"),
    ("PUSH8", "line 1", "PUSH8 with 1 operand"),
    ("PUSH8 1, 2", "line 1", "PUSH8 with 1 operand"),
    ("PUSH8 256", "line 1", "fits in 8 bits"),
    ("PUSHSND nothere", "line 1", "a name from the strings section"),
    ("x:\nx: END\nx: END", "line 3", "a label defined once"),
    ("PUSHSND \"open", "line 1", "closing quote"),
    ("PUSHMAP forest, , 3", "line 1", "an operand between commas"),
    ("FNC1 fly", "line 1", "a command name or number"),
    ("PUSHSPR nobody", "line 1", "a sprite name"),
])
def test_bad_text_is_reported_with_lines(text: str, line: str, words: str) -> None:
    with pytest.raises(FormatError) as err:
        assemble(text, NAMES)
    assert err.value.path == line
    assert words in str(err.value)


def test_numbers_and_signs() -> None:
    assert assemble("PUSH8 -1\nPUSH16 0x10\nPUSH32 -2") == bytes(
        [37, 255, 38, 16, 0, 40, 254, 255, 255, 255])
    assert disassemble(bytes([37, 255])) == "    PUSH8 255\n"
    assert assemble("JMP 0\nL1: JMP L1") == bytes([2, 0, 0, 0, 2, 4, 0, 0])
