"""The TirNanoG bytecode tables: opcodes 0-51 and command functions 5-43.

Each opcode is declared once with its operand layout; the disassembler and
the assembler in :mod:`.script` are both driven by these tables, so the two
cannot disagree about an instruction's size.

Operand kinds (bytes in the instruction):

========  =====  ==========================================================
``addr``  3      a jump target, a byte offset from the start of the script
``cases`` 1+3n   SWITCH: a count ``n``, then ``n`` jump targets
``cmd``   1      a command function number (table :data:`COMMANDS`)
``obj``   2      an object: a sprite index in category 1 (tiles)
``str``   3      a string index: a byte offset into section 0, which names
                 an attribute, music, sound, speech, chooser, cutscene,
                 dialog, crafting ruleset, quest or map
``text``  3      a text index: a string number in the translations
``var``   1      a local variable (0-25 shown as ``a``-``z``)
``u8``    1      a small count (MIN, MAX)
``c8``..  1-4    constants (PUSH8, PUSH16, PUSH24, PUSH32, RND)
``map``   3+2+2  PUSHMAP: a map's string index, then x and y
``spr``   1+2    PUSHSPR: a sprite category, then the sprite index
========  =====  ==========================================================
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Op:
    code: int
    mnemonic: str
    operands: tuple[str, ...]
    description: str


def _op(code: int, mnemonic: str, operands: str, description: str) -> Op:
    return Op(code, mnemonic, tuple(operands.split()) if operands else (), description)


OPCODES: tuple[Op, ...] = (
    _op(0, "END", "", "end of program"),
    _op(1, "SWITCH", "cases", "pop a value and branch on it; 0 goes on after the instruction"),
    _op(2, "JMP", "addr", "jump"),
    _op(3, "JZ", "addr", "pop, jump if zero"),
    _op(4, "FNC0", "cmd", "call a command with no argument on the stack"),
    _op(5, "FNC1", "cmd", "call a command with one argument on the stack"),
    _op(6, "FNC2", "cmd", "call a command with two arguments on the stack"),
    _op(7, "FNC3", "cmd", "call a command with three arguments on the stack"),
    _op(8, "CNT0", "", "push the number of items in the inventory"),
    _op(9, "CNT1", "obj", "push the number of one object in the inventory"),
    _op(10, "SUM", "str", "push the sum of an attribute over the inventory"),
    _op(11, "CNTO0", "", "push the number of items in the opponent's inventory"),
    _op(12, "CNTO1", "obj", "push the number of one object in the opponent's inventory"),
    _op(13, "SUMO", "str", "push the sum of an attribute over the opponent's inventory"),
    _op(14, "RND", "c32", "push a random value from 0 to the constant"),
    _op(15, "MIN", "u8", "pop n values, push the smallest"),
    _op(16, "MAX", "u8", "pop n values, push the biggest"),
    _op(17, "ADD", "", "add"),
    _op(18, "SUB", "", "subtract"),
    _op(19, "MUL", "", "multiply"),
    _op(20, "DIV", "", "divide"),
    _op(21, "MOD", "", "remainder"),
    _op(22, "EQ", "", "equal"),
    _op(23, "NE", "", "not equal"),
    _op(24, "GE", "", "greater or equal"),
    _op(25, "GT", "", "greater than"),
    _op(26, "LE", "", "less or equal"),
    _op(27, "LT", "", "less than"),
    _op(28, "NOT", "", "logical not"),
    _op(29, "OR", "", "logical or"),
    _op(30, "AND", "", "logical and"),
    _op(31, "POP", "var", "pop into a local variable"),
    _op(32, "POPA", "str", "pop into an attribute"),
    _op(33, "POPO", "str", "pop into the opponent's attribute"),
    _op(34, "PUSH", "var", "push a local variable"),
    _op(35, "PUSHA", "str", "push an attribute"),
    _op(36, "PUSHO", "str", "push the opponent's attribute"),
    _op(37, "PUSH8", "c8", "push an 8-bit constant"),
    _op(38, "PUSH16", "c16", "push a 16-bit constant"),
    _op(39, "PUSH24", "c24", "push a 24-bit constant"),
    _op(40, "PUSH32", "c32", "push a 32-bit constant"),
    _op(41, "PUSHMAP", "map", "push a map reference (map, x, y)"),
    _op(42, "PUSHSPR", "spr", "push a sprite reference (category, index)"),
    _op(43, "PUSHMUS", "str", "push a music reference"),
    _op(44, "PUSHSND", "str", "push a sound reference"),
    _op(45, "PUSHSPC", "str", "push a speech reference"),
    _op(46, "PUSHCHR", "str", "push a chooser reference"),
    _op(47, "PUSHCUT", "str", "push a cutscene reference"),
    _op(48, "PUSHDLG", "str", "push a dialog reference"),
    _op(49, "PUSHCFT", "str", "push a crafting ruleset reference"),
    _op(50, "PUSHQST", "str", "push a quest reference"),
    _op(51, "PUSHTXT", "text", "push a translatable text reference"),
)

assert [op.code for op in OPCODES] == list(range(52))

BY_MNEMONIC: dict[str, Op] = {op.mnemonic: op for op in OPCODES}

# Bytes each operand kind takes (``cases`` is variable: 1 + 3 per target).
OPERAND_SIZE: dict[str, int] = {
    "addr": 3, "cmd": 1, "obj": 2, "str": 3, "text": 3, "var": 1, "u8": 1,
    "c8": 1, "c16": 2, "c24": 3, "c32": 4, "map": 7, "spr": 3,
}


@dataclass(frozen=True, slots=True)
class Command:
    code: int
    name: str
    arguments: tuple[str, ...]  # what the command pops, as the spec names it
    description: str


def _cmd(code: int, name: str, args: str, description: str) -> Command:
    return Command(code, name, tuple(args.split(",")) if args else (), description)


COMMANDS: tuple[Command, ...] = (
    _cmd(5, "exit", "", "exit the game, back to the main menu"),
    _cmd(6, "delay", "hsec", "delay execution (1/100 s)"),
    _cmd(7, "music", "music", "replace the background music"),
    _cmd(8, "sound", "sound", "play a sound effect"),
    _cmd(9, "speak", "speech", "play a translatable speech"),
    _cmd(10, "chooser", "chooser", "run a chooser"),
    _cmd(11, "cutscn", "cutscene", "play a cutscene"),
    _cmd(12, "dialog", "dialog,hsec", "show a dialog for a time (1/100 s)"),
    _cmd(13, "location", "map,direction", "move the player (the map includes x, y)"),
    _cmd(14, "quest", "completed,quest", "add a quest or mark one completed"),
    _cmd(15, "canim", "action,hsec", "play a character action animation"),
    _cmd(16, "oanim", "object sprite,hsec", "play an object animation"),
    _cmd(17, "npc", "map,npc", "place an NPC on a map (and select it)"),
    _cmd(18, "actor", "npc", "select an NPC"),
    _cmd(19, "behave", "behaviour", "change the NPC's behaviour"),
    _cmd(20, "market", "", "open the NPC's inventory for exchange"),
    _cmd(21, "south", "number", "move (or turn, with 0) south"),
    _cmd(22, "southwest", "number", "move (or turn, with 0) south-west"),
    _cmd(23, "west", "number", "move (or turn, with 0) west"),
    _cmd(24, "northwest", "number", "move (or turn, with 0) north-west"),
    _cmd(25, "north", "number", "move (or turn, with 0) north"),
    _cmd(26, "northeast", "number", "move (or turn, with 0) north-east"),
    _cmd(27, "east", "number", "move (or turn, with 0) east"),
    _cmd(28, "southeast", "number", "move (or turn, with 0) south-east"),
    _cmd(29, "remove", "", "remove the current object from the map"),
    _cmd(30, "drop", "object sprite", "drop an object at the current object's position"),
    _cmd(31, "delete", "map", "remove the object at a map position"),
    _cmd(32, "add", "map,object sprite", "place an object on a map"),
    _cmd(33, "replace", "object sprite", "replace the object at the current location"),
    _cmd(34, "give", "object sprite,amount", "give objects to the player"),
    _cmd(35, "take", "object sprite,amount", "take objects from the player"),
    _cmd(36, "event", "object sprite", "call another object's on-click handler"),
    _cmd(37, "transport", "method", "change the transportation method"),
    _cmd(38, "scene", "map,daytime", "select the scene of a scripted cutscene"),
    _cmd(39, "waitnpc", "", "wait until the selected actor is done"),
    _cmd(40, "craft", "craftruleset", "show a crafting dialog"),
    _cmd(41, "match", "map,object sprite", "set a to 1 if the object at a location is this one"),
    _cmd(42, "alert", "alert", "show a custom alert message"),
    _cmd(43, "altitude", "number", "change altitude (display order)"),
)

assert [c.code for c in COMMANDS] == list(range(5, 44))

COMMAND_BY_CODE: dict[int, Command] = {c.code: c for c in COMMANDS}
COMMAND_BY_NAME: dict[str, Command] = {c.name: c for c in COMMANDS}
FIRST_COMMAND = 5
LAST_COMMAND = 43

SPRITE_CATEGORIES = ("ui", "tiles", "characters", "portraits", "backgrounds")
LOCAL_VARIABLES = "abcdefghijklmnopqrstuvwxyz"
