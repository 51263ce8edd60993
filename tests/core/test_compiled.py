"""The C extension modules are all or nothing: one interface version, checked at import;
``savecraft --version`` names each domain and whether it runs; the pure and compiled paths
read and write the same things."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from savecraft import compiled
from tests.samples import PRESENT, SAMPLES, real_samples

HERE = Path(__file__).resolve().parents[1]  # tests/
SRC = HERE.parent / "src"
NATIVE = SRC / "savecraft" / "_native"


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "SAVECRAFT_PURE"}
    return {**env, **extra}


def _run(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env=_env(**env))


def _fake(versions: dict[str, int | None]) -> str:
    """Code that puts fake modules (VERSION given; None: not built) in place, then imports
    savecraft.compiled and prints its answers."""
    lines = ["import sys, types"]
    for name, version in versions.items():
        if version is None:
            lines.append(f"sys.modules['savecraft._native.{name}'] = None")  # import fails
        else:
            lines.append(f"m = types.ModuleType('savecraft._native.{name}'); m.VERSION = {version}; "
                         f"sys.modules['savecraft._native.{name}'] = m")
    lines.append("from savecraft import compiled")
    lines.append("print(sorted(d for d in compiled.DOMAINS if compiled.active(d))); print(compiled.status())")
    return "\n".join(lines)


def test_the_domains_are_the_modules_setup_builds() -> None:
    setup = (HERE.parent / "setup.py").read_text()
    assert set(compiled.DOMAINS) == {p.stem for p in NATIVE.glob("*.c")}
    for name in compiled.DOMAINS:
        assert f'"{name}"' in setup
        assert (NATIVE / f"{name}.pyi").exists(), name  # mypy --strict checks the calls against it


def test_the_version_constant_is_the_one_in_version_h() -> None:
    header = (NATIVE / "version.h").read_text()
    assert f"#define SAVECRAFT_NATIVE_VERSION {compiled.VERSION}\n" in header
    for name in compiled.DOMAINS:  # every module takes it from there, none has its own
        source = (NATIVE / f"{name}.c").read_text()
        assert '#include "version.h"' in source
        assert "SAVECRAFT_NATIVE_VERSION)" in source or f"SAVECRAFT_STATELESS_MODULE({name}," in source
        assert "static PyObject *int_table" not in source and "PyModule_Create(" not in source


def test_a_stale_build_is_not_used() -> None:
    out = _run(_fake({"records": compiled.VERSION, "rle": compiled.VERSION - 1,
                      "bytewise": compiled.VERSION}))
    assert out.returncode == 0, out.stderr
    active, *status = out.stdout.splitlines()
    assert active == "[]"  # not even the two of this version
    assert (f"  rle (TirNanoG tile RLE, Angband level runs): stale build (interface {compiled.VERSION - 1}, "
            f"this savecraft needs {compiled.VERSION}), not used") in status
    assert "  records (Angband object records and record lists): built, not used" in status
    assert any("partial or stale" in line for line in status)


def test_a_partial_build_is_not_used() -> None:
    out = _run(_fake({"records": compiled.VERSION, "rle": compiled.VERSION, "bytewise": None}))
    assert out.returncode == 0, out.stderr
    active, *status = out.stdout.splitlines()
    assert active == "[]"
    assert "  bytewise (Angband block checksums, session XOR): not built" in status
    assert "  rle (TirNanoG tile RLE, Angband level runs): built, not used" in status


def test_no_build_at_all_says_not_built() -> None:
    out = _run(_fake(dict.fromkeys(compiled.DOMAINS, None)))
    assert out.returncode == 0, out.stderr
    active, *status = out.stdout.splitlines()
    assert active == "[]" and len(status) == 1 + len(compiled.DOMAINS)  # no "partial" note
    assert all(line.endswith(": not built") for line in status[1:])


def test_nothing_native_runs_when_it_is_not_used() -> None:
    """With a stale build, every user of a module falls back: none is even imported."""
    code = _fake({"records": compiled.VERSION, "rle": 0, "bytewise": compiled.VERSION}) + """
from savecraft.formats.angband.layouts import items, levels
from savecraft.formats.angband import sniffing
from savecraft.formats.tirnanog import rle
from savecraft.layout import native
from savecraft.net import crypto
assert items._read_item_c is None and items._write_item_c is None and levels._rle_cover is None
assert sniffing._c_sum is None and rle._speedups is None and crypto._xor is None
assert native._AVAILABLE is False
print("pure")
"""
    out = _run(code)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[-1] == "pure"


@pytest.mark.skipif(not compiled.active("records"), reason="the C extension is not built or is turned off")
def test_the_built_modules_have_this_interface() -> None:
    import importlib

    for name in compiled.DOMAINS:
        module = importlib.import_module(f"savecraft._native.{name}")
        assert module.VERSION == compiled.VERSION
        assert compiled.states()[name] == "active"


@pytest.mark.skipif(not compiled.active("records"), reason="the C extension is not built or is turned off")
def test_modules_keep_their_state_per_module_object() -> None:
    """Multi-phase init: a second module object (as a subinterpreter gets) has its own state:
    it has not been told the object classes, and refuses another module's program."""
    code = """
import importlib.util, sys
from savecraft._native import records
from savecraft.formats.angband.layouts import items  # tells `records` its classes
spec = importlib.util.find_spec("savecraft._native.records")
second = importlib.util.module_from_spec(spec)
spec.loader.exec_module(second)
assert second is not records and second.VERSION == records.VERSION
try:
    second.read_item(b"", 0, 0, 0, 0, 0, 0, 0, 0)
except RuntimeError as e:
    print("fresh:", e)
from savecraft.formats.angband.layouts.items import Curse
prog = records.record_program(Curse, (Curse.__dict__["power"], Curse.__dict__["timeout"]), "BH", (0, 0), (0,) * 6)
assert records.read_records(prog, b"\\x01\\x02\\x00", 0, 3, 1, None) == ([Curse(1, 2)], 3)
try:
    second.read_records(prog, b"\\x01\\x02\\x00", 0, 3, 1, None)
except ValueError as e:
    print("foreign:", e)
"""
    out = _run(code)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["fresh: item_types() was not called",
                                       "foreign: a program of another module"]


@pytest.mark.skipif(not compiled.active("records"), reason="the C extension is not built or is turned off")
def test_slots_are_checked_when_they_are_handed_over() -> None:
    from savecraft._native import records
    from savecraft.formats.angband.layouts.items import Curse, ItemList

    power, timeout = Curse.__dict__["power"], Curse.__dict__["timeout"]
    with pytest.raises(TypeError, match="slot descriptor expected"):
        records.record_program(Curse, (property(lambda s: 0), timeout), "BH", (0, 0), (0,) * 6)
    with pytest.raises(TypeError, match="of the class"):  # another class's slot
        records.record_program(Curse, (ItemList.__dict__["items"], timeout), "BH", (0, 0), (0,) * 6)
    with pytest.raises(ValueError, match="a slot for every field code but C K"):
        records.record_program(Curse, (None, timeout), "BH", (0, 0), (0,) * 6)
    with pytest.raises(ValueError, match="unknown field code"):
        records.record_program(Curse, (power, timeout), "BZ", (0, 0), (0,) * 6)


def test_version_names_each_domain() -> None:
    for env, state in (({"SAVECRAFT_PURE": "1"}, "off (SAVECRAFT_PURE is set)"),
                       ({}, "active" if compiled.active("records") else None)):
        out = subprocess.run([sys.executable, "-m", "savecraft", "--version"], capture_output=True,
                             text=True, timeout=60, env=_env(**env))
        assert out.returncode == 0, out.stderr
        lines = out.stdout.splitlines()
        assert lines[1] == f"accelerated paths (C extension, interface {compiled.VERSION}):"
        for line, (name, what) in zip(lines[2:], compiled.DOMAINS.items()):
            assert line.startswith(f"  {name} ({what}): ")
            if state is not None:
                assert line == f"  {name} ({what}): {state}"
        assert len(lines) >= 2 + len(compiled.DOMAINS)


REAL = sorted(p for p in SAMPLES.glob("angband-block*/*") if p.suffix in (".sav", ".pwmg"))


@pytest.mark.skipif(not compiled.active("records"), reason="the C extension is not built or is turned off")
@real_samples
def test_pure_and_compiled_commands_agree_on_real_files() -> None:
    """As users run it: `savecraft dump` of every real Angband sample, with and without
    SAVECRAFT_PURE, gives the same document, and `validate` the same verdict."""
    decoded = 0
    for path in REAL:
        got = []
        for env in ({}, {"SAVECRAFT_PURE": "1"}):
            dump = subprocess.run([sys.executable, "-m", "savecraft", "dump", str(path)],
                                  capture_output=True, timeout=300, env=_env(**env))
            check = subprocess.run([sys.executable, "-m", "savecraft", "validate", str(path)],
                                   capture_output=True, timeout=300, env=_env(**env))
            got.append((dump.returncode, dump.stdout, check.returncode))
        assert got[0] == got[1], path.name
        decoded += got[0][0] == 0 and len(got[0][1]) > 100_000
    assert decoded >= len(REAL) - 3  # all but the truncated and unsupported files


@pytest.mark.slow
def test_an_install_without_a_compiler_passes(tmp_path: Path) -> None:
    """The package copied without any built module, set up with CC=/bin/false (every module
    fails to compile, and setup goes on), then a test file per domain run on that copy."""
    import shutil

    tree = tmp_path / "tree"
    shutil.copytree(HERE.parent / "src", tree / "src", ignore=shutil.ignore_patterns("*.so", "__pycache__"))
    shutil.copytree(HERE, tree / "tests", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(HERE.parent / "docs", tree / "docs")
    for name in ("setup.py", "pyproject.toml", "README.md", "MANIFEST.in"):
        shutil.copy2(HERE.parent / name, tree / name)
    env = {k: v for k, v in _env(CC="/bin/false").items() if k != "PYTHONPATH"}
    build = subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace"], cwd=tree,
                           capture_output=True, text=True, timeout=300, env=env)
    assert build.returncode == 0, build.stderr
    for name in compiled.DOMAINS:
        assert f'building extension "savecraft._native.{name}" failed' in build.stderr + build.stdout
    assert not list((tree / "src").rglob("*.so"))
    env = {**env, "PYTHONPATH": str(tree / "src")}
    if PRESENT:
        env["SAVECRAFT_SAMPLES"] = str(SAMPLES)
    version = subprocess.run([sys.executable, "-m", "savecraft", "--version"], cwd=tree,
                             capture_output=True, text=True, timeout=60, env=env)
    assert version.stdout.count(": not built") == len(compiled.DOMAINS), version.stdout
    files = ["tests/core/test_compiled.py", "tests/angband/test_angband_real.py",
             "tests/tirnanog/test_tng_rle_encode.py", "tests/tirnanog/test_tng_maps.py",
             "tests/net/test_net_crypto.py"]
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "not slow",
                          *files], cwd=tree, capture_output=True, text=True, timeout=1200, env=env)
    assert out.returncode == 0, out.stdout[-3000:]
    assert " passed" in out.stdout.splitlines()[-1] and " failed" not in out.stdout.splitlines()[-1]
