"""The C extension modules are all or nothing: one interface version, checked at import;
``savecraft --version`` names each domain and whether it runs; the pure and compiled paths
read and write the same things."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from savecraft import compiled
from tests.samples import PRESENT, SAMPLES, real_samples

from .support import read_outcome as _outcome, written_outcome as _written

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
assert native.program_of(items.OBJECT) is None and levels.rle_cover is None
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
    """Multi-phase init: a second module object (as a subinterpreter gets) has its own state
    (its own caches), and refuses another module's program."""
    code = """
import importlib.util, sys
from savecraft._native import records
spec = importlib.util.find_spec("savecraft._native.records")
second = importlib.util.module_from_spec(spec)
spec.loader.exec_module(second)
assert second is not records and second.VERSION == records.VERSION
from savecraft.formats.angband.layouts.items import Curse
prog = records.record_program(Curse, (Curse.__dict__["power"], Curse.__dict__["timeout"]), "BH", (0, 0))
own = second.record_program(Curse, (Curse.__dict__["power"], Curse.__dict__["timeout"]), "BH", (0, 0))
assert second.read_records(own, b"\\x01\\x02\\x00", 0, 3, 1, None) == ([Curse(1, 2)], 3)
assert records.read_records(prog, b"\\x01\\x02\\x00", 0, 3, 1, None) == ([Curse(1, 2)], 3)
try:
    second.read_records(prog, b"\\x01\\x02\\x00", 0, 3, 1, None)
except ValueError as e:
    print("foreign:", e)
"""
    out = _run(code)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["foreign: a program of another module"]


@pytest.mark.skipif(not compiled.active("records"), reason="the C extension is not built or is turned off")
def test_slots_are_checked_when_they_are_handed_over() -> None:
    from savecraft._native import records
    from savecraft.formats.angband.layouts.items import Curse, ItemList

    power, timeout = Curse.__dict__["power"], Curse.__dict__["timeout"]
    with pytest.raises(TypeError, match="slot descriptor expected"):
        records.record_program(Curse, (property(lambda s: 0), timeout), "BH", (0, 0))
    with pytest.raises(TypeError, match="of the class"):  # another class's slot
        records.record_program(Curse, (ItemList.__dict__["items"], timeout), "BH", (0, 0))
    with pytest.raises(ValueError, match="a slot for every field code but C K"):
        records.record_program(Curse, (None, timeout), "BH", (0, 0))
    with pytest.raises(ValueError, match="unknown field code"):
        records.record_program(Curse, (power, timeout), "BZ", (0, 0))


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


# -- the field codes of record programs: each refuses what is unusual, and the generated Python
#    then gives the same model or the located error ------------------------------------------

needs_records = pytest.mark.skipif(not compiled.active("records"),
                                   reason="the C extension is not built or is turned off")


@dataclass(slots=True)
class _Rec:
    a: Any = None
    b: Any = None
    c: Any = None


@dataclass(slots=True)
class _Pair:
    slot: int = 0
    x: int = 0
    known_slot: int = 0
    y: int = 0


@dataclass(slots=True)
class _Ended:
    name: str = ""

    @property
    def is_end(self) -> bool:
        return not self.name


def _holds_to_python(struct: Any, good: bytes, bad: bytes, ctx: Any, code: str) -> str:
    """The program (which has the code) reads ``good`` as the generated Python does and writes
    it back; it refuses ``bad``, for which both paths give the same error. That error."""
    from savecraft.layout import native

    prog = native.program_of(struct)
    assert prog is not None and code in "".join(c for _, c, _ in native._flat(prog.specs, ctx))
    got = prog.read(good, 0, len(good), ctx, 1)
    assert got is not None
    with native.suspended():
        pure_good, pure_bad = _outcome(struct, good, ctx), _outcome(struct, bad, ctx)
    assert got == ([pure_good], len(good))
    assert prog.write([pure_good], ctx) == good == _written(struct, pure_good, ctx)
    assert prog.read(bad, 0, len(bad), ctx, 1) is None  # refused: not the program's case
    fast_bad = _outcome(struct, bad, ctx)
    assert fast_bad == pure_bad and isinstance(fast_bad, str)
    return fast_bad


@needs_records
def test_k_a_constant_other_than_the_games_is_the_python_readers_error() -> None:
    from savecraft.layout import U8, U16, Const, Context, CStr, Field, Struct

    s = Struct(_Rec, [Const("mark", U16, 0xFFFF, "0xFFFF, the start"), Field("a", U8), Field("b", CStr(3)),
                      Field("c", U8)], name="k")
    err = _holds_to_python(s, b"\xff\xff\1ab\0\3", b"\xfe\xff\1ab\0\3", Context(), "K")
    assert "offset 0x00000000: rec.mark: expected 0xFFFF, the start" in err
    # a record of fixed values with a constant (a network message's movement record) is read
    # by the generated code in one unpack where it is used, faster than a program call each
    from savecraft.layout import native

    fixed = Struct(_Rec, [Const("mark", U16, 0xFFFF, "0xFFFF, the start"), Field("a", U8)], name="fixed")
    assert native.program_of(fixed) is None and native._program(fixed) is None


@needs_records
def test_question_a_has_byte_of_2_is_not_canonical() -> None:
    from savecraft.layout import U8, Bytes, Context, Field, Optional, Struct

    s = Struct(_Rec, [Field("a", Optional(U8, Bytes(2))), Field("b", U8), Field("c", Optional(U8, Bytes(1)))],
               name="q")
    err = _holds_to_python(s, b"\1ab\7\0", b"\2ab\7\0", Context(), "?")
    assert err.startswith("NotCanonical: rec.has_a is 2, which the game writes back as 1")
    assert _outcome(s, b"\0\7\0", Context()) == _Rec(None, 7, None)  # "has" bytes of 0
    assert _written(s, _Rec(None, 7, None), Context()) == b"\0\7\0"


@needs_records
def test_bang_fields_stored_when_an_earlier_field_says_so() -> None:
    from savecraft.layout import U8, Context, CStr, Field, Struct, When

    s = Struct(_Rec, [Field("a", CStr(9)), When("a != ''", [Field("b", CStr(9))], "b exactly when a"),
                      Field("c", U8)], name="bang")
    ctx = Context()
    _holds_to_python(s, b"x\0y\0\5", b"x\0y\xff\0\5", ctx, "!")  # b not UTF-8: refused
    assert _outcome(s, b"\0\5", ctx) == _Rec("", None, 5)
    from savecraft.layout import native

    prog = native.program_of(s)
    assert prog is not None and prog.read(b"\0\5", 0, 2, ctx, 1) == ([_Rec("", None, 5)], 2)
    for model in (_Rec("", "y", 5), _Rec("x", None, 5)):  # the model disagrees with the condition
        assert prog.write([model], ctx) is None
        with native.suspended():
            pure = _written(s, model, ctx)
        assert _written(s, model, ctx) == pure and "exactly when" in str(pure)


@needs_records
def test_w_a_condition_on_the_context_is_decided_when_compiled() -> None:
    from savecraft.layout import U8, Context, Field, Struct, When
    from savecraft.layout import native

    s = Struct(_Rec, [Field("a", U8), When("not ctx.need('is_dead', 'misc')", [Field("b", U8), Field("c", U8)],
                                           "b and c exactly when alive")], name="w")
    alive, dead = Context(), Context()
    alive.set("is_dead", 0, "misc")
    dead.set("is_dead", 1, "misc")
    prog = native.program_of(s)
    assert prog is not None
    assert prog.read(b"\1\2\3", 0, 3, alive, 1) == ([_Rec(1, 2, 3)], 3)
    assert prog.read(b"\1", 0, 1, dead, 1) == ([_Rec(1, None, None)], 1)
    assert prog.read(b"\1", 0, 1, Context(), 1) is None  # not known yet: the Python reader says
    assert "is_dead" in str(_outcome(s, b"\1", Context()))
    for model, ctx in ((_Rec(1, 2, 3), dead), (_Rec(1, None, 3), alive)):
        assert prog.write([model], ctx) is None
        with native.suspended():
            pure = _written(s, model, ctx)
        assert _written(s, model, ctx) == pure and "exactly when alive" in str(pure)
    _holds_to_python(s, b"\1\2\3", b"\1\2", alive, "B")  # cut short: the located error


@needs_records
def test_s_and_m_fixed_lists_of_strings_and_records() -> None:
    from savecraft.layout import U8, U16, Context, CStr, Ctx, Field, List, Struct

    curse = Struct(_Pair, [Field("slot", U8), Field("x", U16), Field("known_slot", U8), Field("y", U8)],
                   name="pair")
    s = Struct(_Rec, [Field("a", List(CStr(3), 2)), Field("b", List(curse, Ctx("n", "memory"))),
                      Field("c", U8)], name="sm")
    ctx = Context()
    ctx.set("n", 1, "memory")
    err = _holds_to_python(s, b"ab\0c\0\1\2\0\3\4\5", b"abcd\0c\0\1\2\0\3\4\5", ctx, "S")
    assert "rec.a[0]" in err and "at most 3" in err
    err = _holds_to_python(s, b"ab\0c\0\1\2\0\3\4\5", b"ab\0c\0\1\2\0\3", ctx, "M")
    assert "rec.b: expected at most 0 items (5 bytes each)" in err


@needs_records
def test_p_column_pairs_read_and_write_interleaved() -> None:
    from savecraft.layout import I16, U8, Columns, Context, Field, Struct

    s = Struct(_Rec, [Columns(2, [("a", I16, False), ("b", U8, True)]), Field("c", U8)], name="p")
    ctx = Context()
    err = _holds_to_python(s, b"\xff\xff\1\2\0\2\x09", b"\xff\xff\1\2\0", ctx, "P")
    assert _outcome(s, b"\xff\xff\1\2\0\2\x09", ctx) == _Rec([-1, 2], b"\1\2", 9)
    assert "rec.a" in err
    from savecraft.layout import native

    prog = native.program_of(s)
    assert prog is not None
    for bad in (_Rec([1], b"\1\2", 0), _Rec([1, 2], [1, 2], 0), _Rec([1, 70000], b"\1\2", 0)):
        assert prog.write([bad], ctx) is None  # a column of another length or kind, a value out of range
        with native.suspended():
            pure = _written(s, bad, ctx)
        assert _written(s, bad, ctx) == pure


@needs_records
def test_u_e_g_lists_ended_by_a_value_an_end_record_or_two_passes() -> None:
    from savecraft.layout import U8, Context, CStr, Field, Parallel, Struct, Terminated, Until
    from savecraft.layout import native

    named = Struct(_Ended, [Field("name", CStr(9))], name="named")
    s = Struct(_Rec, [Field("a", Until(named, CStr(9), "")),
                      Terminated("b", named, "c", "is_end", "an empty name")], name="ue")
    ctx = Context()
    good = b"x\0y\0\0p\0\0"
    assert _outcome(s, good, ctx) == _Rec([_Ended("x"), _Ended("y")], [_Ended("p")], _Ended(""))
    err = _holds_to_python(s, good, b"x\0y\0\0p\0", ctx, "U")  # no end record before the end
    assert "rec.b[1]" in err
    _holds_to_python(s, good, b"x\0y\0", ctx, "E")  # no stop value before the end
    prog = native.program_of(s)
    assert prog is not None
    for bad in (_Rec([_Ended("")], [], _Ended("")), _Rec([], [_Ended("")], _Ended("")),
                _Rec([], [], _Ended("z"))):  # a stop value inside, an end record inside, no end
        assert prog.write([bad], ctx) is None
        with native.suspended():
            pure = _written(s, bad, ctx)
        assert _written(s, bad, ctx) == pure and isinstance(pure, str)

    @dataclass(slots=True)
    class Gear:
        items: list[_Pair] = field(default_factory=list)

    gear = Struct(Gear, [Parallel(
        "items", [Struct(_Pair, [Field("slot", U8), Field("x", U8)], name="entry"),
                  Struct(_Pair, [Field("known_slot", U8), Field("y", U8)], name="known entry")],
        U8, 0xFF, ("end", "known_end"), "as many known objects as objects")], name="gear")
    good = b"\1\2\3\4\xff\5\6\7\x08\xff"
    assert _outcome(gear, good, ctx) == Gear([_Pair(1, 2, 5, 6), _Pair(3, 4, 7, 8)])
    err = _holds_to_python(gear, good, b"\1\2\3\4\xff\5\6\xff", ctx, "G")
    assert "as many known objects as objects" in err


@needs_records
def test_fields_a_record_does_not_store_get_their_defaults() -> None:
    """A record that stores only some fields of its class (a pass of the gear's two lists, a
    store of a town without owners): the program gives the others their defaults, as the
    generated reader (which calls the class) does, and G/g moves only what the second stores."""
    from savecraft.layout import U8, Context, Field, Struct
    from savecraft.layout import native

    @dataclass(slots=True)
    class Store:
        owner: int = 0
        owners: list[str] = field(default_factory=list)
        note: str = "none"

    part = Struct(Store, [Field("owner", U8)], name="part")
    prog = native.program_of(part)
    assert prog is not None and [c for _, c, _ in prog.specs] == ["B", "D", "D"]
    got = prog.read(b"\7\7", 0, 2, Context(), 2)
    assert got is not None and got[0] == [Store(7), Store(7)] and got[0][0].owners is not got[0][1].owners
    with native.suspended():
        assert _outcome(part, b"\7", Context()) == Store(7)
    assert prog.write([Store(7, ["x"], "y")], Context()) == b"\7"  # (not stored: not written)


BUILT = sorted((HERE / "data" / "angband-built").glob("*/*.sav"))  # written by the games themselves
_DIGEST = """
import hashlib, sys
from pathlib import Path
from savecraft.errors import FormatError, Report
from savecraft.formats.angband import block
from savecraft.layout import native
compile_program = native.Program._compile
def checked_compile(self, ctx):  # a program the C module refuses is a fault of its derivation
    try:
        return compile_program(self, ctx)
    except Exception as err:
        print("cannot compile", self.struct.name, err)
        raise
native.Program._compile = checked_compile
for name in sys.argv[1:]:
    data = Path(name).read_bytes()
    try:
        save = block.parse(data, Report(strict=True))
    except FormatError as err:
        print(name, "error", err)
        continue
    built = block.build(save)
    print(name, hashlib.sha256(repr(save).encode()).hexdigest(), built == data, save.game)
"""


@pytest.mark.skipif(not compiled.active("records"), reason="the C extension is not built or is turned off")
def test_pure_and_compiled_read_every_angband_file_alike() -> None:
    """Every real and game-written Angband save, read in a process with SAVECRAFT_PURE=1 and in
    one without: the same model (its repr), the same game, and the file's own bytes rebuilt; and
    every program derived on the way compiles (a program the C module refused would only be
    slow: the generated code reads the same)."""
    files = [str(p) for p in (*REAL, *BUILT) if p.suffix == ".sav"]
    assert len(BUILT) >= 37
    got = []
    for env in ({}, {"SAVECRAFT_PURE": "1"}):
        out = subprocess.run([sys.executable, "-c", _DIGEST, *files], capture_output=True, text=True,
                             timeout=600, env=_env(**env))
        assert out.returncode == 0, out.stderr
        got.append(out.stdout.splitlines())
    assert not [line for line in got[0] if line.startswith("cannot compile")]
    assert got[0] == got[1] and len(got[0]) == len(files)
    rebuilt = [line for line in got[0] if " True " in line]
    assert len(rebuilt) >= len(files) - 2  # all but the truncated file and the Sil save


@needs_records
def test_a_latin1_strings_of_the_older_games() -> None:
    """3.1 and 3.2 store Latin-1 text: read as the generated Python reads it; a string past
    its limit is refused, and text outside Latin-1 is the Python writer's to refuse."""
    from savecraft.layout import U8, Context, CStr, Field, Struct
    from savecraft.layout import native

    s = Struct(_Rec, [Field("a", CStr(4, "latin-1")), Field("b", CStr(9, "latin-1")), Field("c", U8)],
               name="latin")
    err = _holds_to_python(s, b"Fe\xe9\0abc\0\7", b"Fe\xe9xy\0abc\0\7", Context(), "a")
    assert "rec.a" in err and "at most 4" in err
    assert _outcome(s, b"Fe\xe9\0abc\0\7", Context()) == _Rec("Feé", "abc", 7)
    prog = native.program_of(s)
    assert prog is not None and prog.write([_Rec("F\u0153", "", 7)], Context()) is None  # (œ: not Latin-1)
    with native.suspended():
        pure = _written(s, _Rec("F\u0153", "", 7), Context())
    assert _written(s, _Rec("F\u0153", "", 7), Context()) == pure and isinstance(pure, str)


@needs_records
def test_programs_the_c_module_refuses_to_compile() -> None:
    """The shape of a program is checked when it is compiled, not trusted when it runs."""
    from savecraft._native import records

    power, timeout = _Rec.__dict__["a"], _Rec.__dict__["b"]
    with pytest.raises(ValueError, match=r"\? is followed by the code of its field"):
        records.record_program(_Rec, (power, None), "B?", (0, 0))
    with pytest.raises(ValueError, match="P is followed by p"):
        records.record_program(_Rec, (power, timeout), "PB", ((2, 0), 0))
    with pytest.raises(ValueError, match="! compares a field before it"):
        records.record_program(_Rec, (None, power), "!B", ((0, 0, 0, 1), 0))
    with pytest.raises(ValueError, match="Q counts a list after it"):
        records.record_program(_Rec, (None, power), "Qy", ((300, "B", 1), -1))
    with pytest.raises(ValueError, match="a stop u8 for a program that starts with a u8"):
        string = records.record_program(_Rec, (power,), "s", (9,))
        records.record_program(_Rec, (power,), "U", ((string, 0, 0),))


@needs_records
def test_an_end_record_told_by_an_empty_field_is_tested_in_c() -> None:
    """``is_end`` that is ``return not self.name`` is the emptiness of that field, tested on
    the record read (no Python call per record); any other property is called."""
    from savecraft.layout import Context, CStr, Field, Struct, Terminated
    from savecraft.layout import native

    named = Struct(_Ended, [Field("name", CStr(9))], name="named")

    @dataclass(slots=True)
    class Odd:
        name: str = ""

        @property
        def is_end(self) -> bool:
            return self.name == "end"

    s = Struct(_Rec, [Terminated("a", named, "b", "is_end", "an empty name")], name="ends")
    odd = Struct(_Rec, [Terminated("a", Struct(Odd, [Field("name", CStr(9))], name="odd"), "b", "is_end",
                                   "the name 'end'")], name="odd ends")
    for struct, data, end_index in ((s, b"x\0y\0\0", 0), (odd, b"x\0end\0", -1)):
        prog = native.program_of(struct)
        assert prog is not None and prog.specs[0][2][2] == end_index
        _holds_to_python(struct, data, data[:-1], Context(), "E")


@needs_records
def test_j_a_list_of_i32_and_an_int_that_only_checks_more_when_written() -> None:
    """PWMAngband's object record stores its modifiers as 32-bit integers (``j``) and its
    kind and artifact indexes as an ``Int`` subclass whose writer refuses a name: read as the
    number, written back; a list of the wrong length, a value past i32 or a name is the
    generated writer's to refuse, with its own message."""
    from savecraft.formats.angband.layouts.pwmangband import Index
    from savecraft.layout import I32, U8, U16, Array, Context, Ctx, Field, Struct
    from savecraft.layout import native

    s = Struct(_Rec, [Field("a", Array(I32, Ctx("mods", "memory"))), Field("b", Index(U16)),
                      Field("c", Index(U8))], name="j")
    ctx = Context()
    ctx.values["mods"] = 3
    good = (-2).to_bytes(4, "little", signed=True) + (70000).to_bytes(4, "little") + \
        (2**31 - 1).to_bytes(4, "little") + b"\x34\x12\x07"
    err = _holds_to_python(s, good, good[:-2], ctx, "j")
    assert "rec.b" in err
    assert _outcome(s, good, ctx) == _Rec([-2, 70000, 2**31 - 1], 0x1234, 7)
    prog = native.program_of(s)
    assert prog is not None
    for bad in (_Rec([1, 2], 1, 1), _Rec([1, 2, 2**31], 1, 1), _Rec([1, 2, 3], "Dagger", 1)):
        assert prog.write([bad], ctx) is None
        with native.suspended():
            pure = _written(s, bad, ctx)
        assert _written(s, bad, ctx) == pure and isinstance(pure, str)
    assert "an index" in str(_written(s, _Rec([1, 2, 3], "Dagger", 1), ctx))
    # The object record of every indexes build of PWMAngband has a program.
    from savecraft.formats.angband.layouts.pwmangband_world import _ITEMS

    assert all(native.program_of(rec) is not None for (_, _, names), rec in _ITEMS.items() if not names)


@needs_records
def test_a_switch_on_the_context_is_decided_when_compiled() -> None:
    """A Switch on Context values alone (PWMAngband's index widths by magic, an index or a
    name by build) is decided when the program is compiled, as such a When is: each case that
    a code expresses reads as the generated Python does; a case none does (a name the game's
    data must hold) gives no program for those values, and the Python reads it."""
    from savecraft.formats.angband.layouts.pwmangband import name_or_index
    from savecraft.layout import U8, U16, Context, Field, Struct, Switch
    from savecraft.layout import native

    s = Struct(_Rec, [Field("a", U8), Field("b", Switch("ctx.values['wide']", {0: U8, 1: U16})),
                      Field("c", name_or_index(U8))], name="switch")
    narrow, wide = Context(), Context()
    narrow.values.update(wide=0, pwm_as_names=0)
    wide.values.update(wide=1, pwm_as_names=0)
    _holds_to_python(s, b"\1\2\3", b"\1\2", narrow, "B")
    err = _holds_to_python(s, b"\1\2\0\3", b"\1\2\0", wide, "H")
    assert "rec.c" in err
    assert _outcome(s, b"\1\2\0\3", wide) == _Rec(1, 2, 3)
    names = Context()
    names.values.update(wide=1, pwm_as_names=1)
    prog = native.program_of(s)
    assert prog is not None and prog.compiled(names) is None and prog.compiled(wide) is not None
    assert _outcome(s, b"\1\2\0Dagger\0", names) == _Rec(1, 2, "Dagger")
    other = Context()
    other.values.update(wide=2, pwm_as_names=0)  # no case: the Python's error
    assert prog.compiled(other) is None
    with native.suspended():
        pure = _outcome(s, b"\1\2\0\3", other)
    assert _outcome(s, b"\1\2\0\3", other) == pure and isinstance(pure, str)
