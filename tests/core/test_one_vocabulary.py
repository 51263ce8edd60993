"""One layout vocabulary (issue 19): every record is declared with ``savecraft.layout``; no module
declares one with the old ``binary.Record`` (a struct of named fields returning tuples, with a
reader and a writer of its own beside the descriptions)."""

from __future__ import annotations

import ast
from pathlib import Path

import savecraft
from savecraft import binary

SRC = Path(savecraft.__file__).resolve().parent


def _uses_record(tree: ast.AST) -> bool:
    """An import of ``Record`` from savecraft's binary module, or ``binary.Record``."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[-1] == "binary" \
                and (node.level or (node.module or "").startswith("savecraft")) \
                and any(a.name == "Record" for a in node.names):
            return True
        if isinstance(node, ast.Attribute) and node.attr == "Record" and isinstance(node.value, ast.Name) \
                and node.value.id == "binary":
            return True
    return False


def test_no_module_declares_a_layout_with_binary_record() -> None:
    users = {p.relative_to(SRC).as_posix() for p in sorted(SRC.rglob("*.py"))
             if p.name != "binary.py" and _uses_record(ast.parse(p.read_text(encoding="utf-8")))}
    assert users == set()
    assert not hasattr(binary, "Record")  # and the old vocabulary itself is gone


def test_the_check_finds_a_record_declaration() -> None:
    assert _uses_record(ast.parse("from ...binary import Reader, Record\nH = Record('h', [])"))
    assert _uses_record(ast.parse("from savecraft import binary\nH = binary.Record('h', [])"))
    assert not _uses_record(ast.parse("from ...layout import Struct, GenericRecord"))
