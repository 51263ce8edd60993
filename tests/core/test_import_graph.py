"""No import circles among savecraft's modules (issue 19: a module's imports say what it depends on).

The graph is read from the source: every module-level ``import``/``from ... import`` (not those
under ``if TYPE_CHECKING``), with ``from package import name`` counted as an import of the
submodule where ``name`` is one, and every module-level ``lazy_module("name")`` declaration
(:mod:`savecraft.lazy`: imported on first use, an import all the same). A circle among them is a failure that names the modules in it.

Imports written inside functions are start-up's old way of deferring; what remains of them is
held at :data:`FUNCTION_LEVEL`, each with its reason.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted((SRC / "savecraft").rglob("*.py")):
        name = ".".join(path.relative_to(SRC).with_suffix("").parts)
        out[name.removesuffix(".__init__")] = path
    return out


def _with_packages(name: str, target: str, modules: dict[str, Path]) -> set[str]:
    """``target`` when it is one of ours, and the packages above it that are not above
    ``name``: importing ``target`` runs their ``__init__`` first (a package above ``name`` is
    being imported already). That is how maps -> sections.common was a circle: the sections
    package's ``__init__`` imports s35_maps, which imports maps."""
    if target not in modules or target == name:
        return set()
    out = {target}
    parts = target.split(".")
    for i in range(1, len(parts)):
        package = ".".join(parts[:i])
        if package in modules and package != name and not name.startswith(package + "."):
            out.add(package)
    return out


def _lazy_declarations(tree: ast.Module) -> list[str]:
    """The modules named by ``lazy_module("...")`` calls outside functions and classes."""
    found: list[str] = []
    todo: list[ast.AST] = list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "lazy_module" \
                and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
            found.append(node.args[0].value)
        todo.extend(ast.iter_child_nodes(node))
    return found


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    deps: set[str] = set()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for target in _lazy_declarations(tree):
        deps |= _with_packages(name, target, modules)
    for node in tree.body:
        if isinstance(node, ast.Import):
            for a in node.names:
                deps |= _with_packages(name, a.name, modules)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1] + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            for a in node.names:
                if f"{base}.{a.name}" in modules:
                    deps |= _with_packages(name, f"{base}.{a.name}", modules)
                else:
                    deps |= _with_packages(name, base, modules)
    deps.discard(name)
    return deps


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return out


def test_no_import_circles() -> None:
    modules = _modules()
    graph = {name: _imports(name, path, modules) for name, path in modules.items()}
    assert len(graph) > 150 and graph["savecraft.cli"]  # the graph was read
    assert _circles(graph) == []


def test_the_checker_finds_a_circle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _circles(graph) == [["a", "b", "c"]]


# Why an import is still written inside a function.
_OPTIONAL = "an optional dependency (an extra): the module imports without it, and says which extra to install"
_PROBE = "inside try: the import is the question (is the dependency there, on this platform?)"


def _circle(*modules: str) -> str:
    return "a module-level import would close a circle through " + ", ".join(modules)


# Every import still written inside a function, per module: the count and why.
# Everything else is at its module's top, deferred or not (savecraft.lazy).
FUNCTION_LEVEL: dict[str, tuple[int, str]] = {
    "savecraft/tables/__init__.py": (6, _OPTIONAL),
    "savecraft/dask.py": (5, _OPTIONAL),
    "savecraft/spark.py": (1, _OPTIONAL),
    "savecraft/commands/sql.py": (4, _OPTIONAL),
    "savecraft/commands/shell.py": (1, _OPTIONAL),
    "savecraft/cli.py": (2, _OPTIONAL + "; " + _PROBE),
    "savecraft/net/server.py": (1, _PROBE),
    "savecraft/commands/net.py": (3, _PROBE),
    "savecraft/commands/studio.py": (1, _PROBE),
    "savecraft/fileio.py": (1, _PROBE),
    "savecraft/paths.py": (3, _PROBE + "; " + _circle("savecraft.jsonmap")),
    "savecraft/formats/tirnanog/game/bytecode.py": (2, _PROBE + "; " + _circle("the game package")),
    "savecraft/formats/tirnanog/save/model.py": (6, _circle("codec", "jsonfast")),
    "savecraft/studio/timeline.py": (4, _circle("savecraft.studio.server")),
    "savecraft/studio/views.py": (1, _circle("savecraft.studio.server")),
    "savecraft/studio/documents.py": (1, _circle("savecraft.studio.hexview")),
    "savecraft/formats/tirnanog/game/__init__.py": (2, _circle("extract")),
    "savecraft/formats/tirnanog/game/assets.py": (1, _circle("bytecode")),
    "savecraft/formats/tirnanog/game/model.py": (1, _circle("refs")),
    "savecraft/formats/angband/sheet.py": (1, _circle("block")),
    "savecraft/limits.py": (1, _circle("savecraft.errors")),
    "savecraft/net/packets/base.py": (1, _circle("savecraft.net.packets.game")),
    "savecraft/layout/native.py": (4, _circle("savecraft.layout.compiler", "which derives programs through it")),
}


def function_level_imports(path: Path) -> int:
    """How many import statements ``path`` writes inside a function (at any depth)."""
    count = 0
    todo: list[tuple[ast.AST, bool]] = [(ast.parse(path.read_text(encoding="utf-8")), False)]
    while todo:
        node, inside = todo.pop()
        if inside and isinstance(node, (ast.Import, ast.ImportFrom)):
            count += 1
        here = inside or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        todo.extend((child, here) for child in ast.iter_child_nodes(node))
    return count


def test_imports_inside_functions_are_only_the_listed_ones() -> None:
    found = {}
    for path in sorted((SRC / "savecraft").rglob("*.py")):
        name = path.relative_to(SRC).as_posix()
        n = function_level_imports(path)
        if n:
            found[name] = n
    assert found == {name: count for name, (count, _) in FUNCTION_LEVEL.items()}


def test_lazy_declarations_are_imports_in_the_graph() -> None:
    modules = _modules()
    deps = _imports("savecraft.commands.net", modules["savecraft.commands.net"], modules)
    assert "savecraft.net.server" in deps  # declared with lazy_module, used inside cmd_serve
    assert function_level_imports(SRC / "savecraft" / "commands" / "net.py") == 3


def test_a_lazy_module_is_imported_on_first_use_and_takes_the_stand_ins_place() -> None:
    prog = "\n".join([
        "import sys, types",
        "from savecraft.lazy import lazy_module",
        "diff = lazy_module('savecraft.diff')",
        "assert 'savecraft.diff' not in sys.modules and type(diff) is not types.ModuleType",
        "stand_in = diff",
        "assert callable(diff.describe)",  # the first read imports it
        "assert diff is sys.modules['savecraft.diff'] and type(diff) is types.ModuleType",
        "assert stand_in.describe is diff.describe",  # a kept stand-in still works
        "assert lazy_module('savecraft.diff') is diff",  # imported already: the module itself",
    ])
    subprocess.run([sys.executable, "-c", prog], check=True, timeout=60)


def test_help_imports_no_plugin_no_numpy_and_no_event_loop() -> None:
    """``--help`` imports every command module: their heavy imports are lazy declarations."""
    prog = "\n".join([
        "import contextlib, io, sys",
        "from savecraft.cli import main",
        "with contextlib.redirect_stdout(io.StringIO()):",
        "    try:",
        "        main(['--help'])",
        "    except SystemExit:",
        "        pass",
        "print('\\n'.join(sys.modules))",
    ])
    out = subprocess.run([sys.executable, "-c", prog], capture_output=True, text=True, check=True, timeout=60)
    mods = set(out.stdout.split())
    assert "savecraft.commands.net" in mods and "savecraft.commands.tng" in mods  # every command's module
    heavy = {"numpy", "asyncio", "rich", "savecraft.diff", "savecraft.jsonmap", "savecraft.formats.tirnanog.game",
             "savecraft.formats.tirnanog.save", "savecraft.net.server", "savecraft.studio.server"}
    assert heavy & mods == set()
