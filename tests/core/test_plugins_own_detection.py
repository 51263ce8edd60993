"""Plugins own their detection (issue 19 §3): the core names no format, a format is one folder.

Every plugin folder under savecraft/formats declares its detection entries in its own light
``detection`` module; the registry finds them on disk. These tests hold that: the core modules
(registry, spans, console, the studio) name no format in their code, the detection modules
import nothing but the registry, and the table the registry finds keeps the order detection has
always used (the legacy Angband sniffer, which has no magic, last).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from savecraft import registry

SRC = Path(__file__).resolve().parents[2] / "src" / "savecraft"
CORE = [SRC / "registry.py", SRC / "spans.py", SRC / "console.py", *sorted((SRC / "studio").glob("*.py"))]


def _docstrings(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                out.add(id(body[0].value))
    return out


def _format_words() -> list[str]:
    """Every format's name, and the name of every plugin folder (a module path would hold it)."""
    folders = [p.parent.name for p in (SRC / "formats").glob("*/detection.py")]
    return [n.lower() for n in registry.names()] + [f.lower() for f in folders]


def format_names_in(path: Path) -> list[str]:
    """The imports and the string literals (docstrings aside) of ``path`` that name a format."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    words = _format_words()
    docs = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            texts = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            texts = [node.module or ""] + [a.name for a in node.names]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            texts = [node.value]
        else:
            continue
        found += [f"{path.name}:{node.lineno}: {t!r}" for t in texts
                  if "formats." in t or any(w in t.lower() for w in words)]
    return found


def test_the_core_names_no_format() -> None:
    assert len(_format_words()) >= 9  # six formats, three folders: the words were found
    found = [hit for path in CORE for hit in format_names_in(path)]
    assert found == []


def test_the_check_sees_a_format_name(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text('"""Angband is fine in a docstring."""\nfrom .formats.qfg5 import save\n'
                   'NAME = "tirnanog-save"\n', encoding="utf-8")
    assert len(format_names_in(bad)) == 2  # the import of the plugin, the string


def test_every_plugin_folder_declares_its_detection() -> None:
    plugins = registry.plugins()
    folders = {p.parent.name for p in (SRC / "formats").glob("*/detection.py")}
    assert folders == {p.module.split(".")[2] for p in plugins}
    assert [p.name for p in plugins] == ["tirnanog-save", "tirnanog-game", "angband-modular",
                                         "angband-block", "qfg5-save", "angband-legacy"]
    assert plugins[-1].order == registry.LAST  # no magic: after every format that has one
    assert registry.names()[:len(plugins)] == [p.name for p in plugins]


def test_detection_modules_import_only_the_registry() -> None:
    for path in sorted((SRC / "formats").glob("*/detection.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imported = [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)] + \
            [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
        assert set(imported) <= {"__future__", "registry"}, (path, imported)


def test_finding_the_plugins_imports_no_plugin() -> None:
    prog = ("import sys\nfrom savecraft import registry\nregistry.names()\n"
            "print('\\n'.join(m for m in sys.modules if m.startswith('savecraft')))")
    out = subprocess.run([sys.executable, "-c", prog], capture_output=True, text=True, check=True, timeout=60)
    mods = set(out.stdout.split())
    assert {f"savecraft.formats.{f}.detection" for f in ("angband", "qfg5", "tirnanog")} <= mods
    heavy = {p.module for p in registry.plugins()} | {p.tables for p in registry.plugins() if p.tables}
    assert not heavy & mods, heavy & mods
