"""Every command that reads a file, on every format, at every size: the installed command, as users run it.

Each case runs the ``savecraft`` console script in a fresh process, under an
address-space limit (``ulimit -v``, set with ``setrlimit`` before exec) and a
generous timeout, and checks what a user sees: an exit status of 0, 1 or 2
(never 70, the internal error, and never a signal), no traceback, an error
in one line, and for a file the game could load, success and a byte-exact
rebuild from the dump.

The inputs are made once per session in a temporary folder:

* ``tiny``: the demo files of every format (``savecraft demo``), the real
  files of the samples folder (one or two per kind, when it is present) and
  the hostile files of ``fuzz/hostile.py``;
* ``1mib``: a valid TirNanoG server save and a valid game of 1 MiB or more,
  and 1 MiB files that start like each format and then hold only zeros;
* ``64mib`` (marked ``large``): a valid 64 MiB game (a movie of repetitive
  bytes) and 64 MiB sparse files that start like each format;
* ``1gib`` (marked ``large``): 1 GiB sparse files that start like each
  format (the cheapest way to hand every command a file that big).

Issue 21: ``validate`` died of a TypeError (exit 70) on every file of
1 MiB or more, and no test ran the installed command on a file that large.
The ``large`` marker lets a person leave the big tiers out locally
(``-m 'not large'``); CI runs everything. ``SAVECRAFT_MATRIX_REPORT=FILE``
writes one JSON record per run (command, input, tier, exit status, seconds,
peak resident memory) for the closing note of the issue.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.samples import SAMPLES, real_samples

ROOT = Path(__file__).resolve().parents[2]
MIB = 1 << 20
GIB = 1 << 30

# Address space a command may use beyond what its input needs: the interpreter, numpy and
# OpenBLAS reserve a few hundred MiB of it before any work is done.
BASE_LIMIT = 1 * GIB
TIMEOUT = 300.0  # seconds: a hang shows up as a failure, never as a stuck suite

MAGIC = {  # the first bytes of each format: enough to be taken for it and read further
    "tirnanog-save": b"TNG Saved Game\n\0",
    "tirnanog-game": b"#!/usr/bin/tngp\n",
    "angband-block": b"SaveVNLA",
    "qfg5-save": b"QG5P1.000 ",
}

# A field each format's demo file can be edited at: --set PATH=VALUE.
EDITS = {
    "tirnanog-save": "game_id=edited",
    "angband-modular": "description=Edited, L1 Human Warrior, in the Town",
    "qfg5-save": "player_type=2",
}


@dataclass(frozen=True)
class Input:
    name: str
    tier: str
    path: Path
    valid: bool  # a file the game wrote (or would): every reading command succeeds on it
    format: str | None = None  # what it is, when known


def _savecraft() -> list[str]:
    exe = shutil.which("savecraft")
    return [exe] if exe else [sys.executable, "-m", "savecraft"]


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SAVECRAFT_")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env.update(NO_COLOR="1", COLUMNS="100", OPENBLAS_NUM_THREADS=env.get("OPENBLAS_NUM_THREADS", "1"))
    return env


@dataclass
class Run:
    args: list[str]
    status: int  # the exit status, or minus the signal that ended the process
    out: str
    err: str
    seconds: float
    peak: int  # peak resident memory in bytes


RECORDS: list[dict[str, Any]] = []


def run(args: list[str], *, limit: int, cwd: Path, timeout: float = TIMEOUT) -> Run:
    """The installed command under an address-space limit; its own rusage via wait4."""

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    out_path, err_path = cwd / ".out", cwd / ".err"
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        t0 = time.monotonic()
        proc = subprocess.Popen(_savecraft() + args, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                env=_env(), cwd=cwd, preexec_fn=limited)
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() - t0 > timeout:
                proc.kill()
                os.wait4(proc.pid, 0)
                proc.returncode = -9
                pytest.fail(f"savecraft {' '.join(args)}: still running after {timeout:.0f} s")
            time.sleep(0.02)
        seconds = time.monotonic() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    return Run(args, proc.returncode, out_path.read_text(errors="replace"),
               err_path.read_text(errors="replace"), seconds, usage.ru_maxrss * 1024)


def check_clean(r: Run) -> None:
    """What every run owes its user, whatever the input."""
    what = f"savecraft {' '.join(r.args)}"
    assert r.status >= 0, f"{what}: killed by signal {-r.status}\n{r.err[-2000:]}"
    assert r.status in (0, 1, 2), f"{what}: exit {r.status}\n{r.err[-2000:]}"
    for text in (r.out, r.err):
        assert "Traceback" not in text, f"{what}: a traceback\n{text[-2000:]}"
        assert "internal error" not in text and "Segmentation" not in text, f"{what}: {text[-2000:]}"
    errors = [line for line in r.err.splitlines() if "error" in line]
    assert len(errors) <= 1, f"{what}: the error takes {len(errors)} lines:\n{r.err[-2000:]}"
    if r.status != 0:
        assert r.err.strip() or r.out.strip(), f"{what}: exit {r.status} and not a word why"


# -- the inputs ----------------------------------------------------------------------------------


def _sparse(path: Path, head: bytes, size: int) -> Path:
    with open(path, "wb") as fh:
        fh.write(head)
        fh.truncate(size)
    return path


def _game(size: int) -> bytes:
    """A valid game of at least ``size`` bytes: the sample game and a movie of repetitive bytes."""
    from savecraft import api
    from savecraft.formats.tirnanog.game.assets import TheoraAsset
    from savecraft.formats.tirnanog.game.sample import sample_game, theora
    from savecraft.formats.tirnanog.game.sections import MoviesSection
    from savecraft.formats.tirnanog.game.sections.s05_movies import Movie

    game = sample_game()
    movies = game.require(MoviesSection)
    body = bytes(range(256)) * (size // 256 + 1)
    movies.entries.append(Movie(game.strings.add("big"), TheoraAsset(theora(100) + body)))
    data: bytes = api.build(game)
    return data


def _server_save(users: int, *, stored: bool = False) -> bytes:
    """A server save; ``stored``: 20 attributes and 30 items a user, deflated at level 0.

    A stored save reaches 1 MiB with 1,800 users, where a compressed one
    needs 9,000: ``hexdump`` and ``extract`` (a file and an fsync per user)
    take minutes on that many.
    """
    from savecraft.compression import Deflated
    from savecraft.formats.tirnanog.save import codec, sample

    if not stored:
        return bytes(codec.build(sample.server_save(users=users)))
    model = sample.server_save(users=users, attributes=20, items=30)
    model.encoding.deflate = Deflated(level=0)
    return bytes(codec.build(model))


def _real_samples() -> list[Path]:
    if not SAMPLES.is_dir():
        return []
    picked = []
    for sub in sorted(p for p in SAMPLES.iterdir() if p.is_dir()):
        picked += sorted(f for f in sub.iterdir() if f.is_file())[:1]
    return picked


def _real_is_valid(path: Path) -> bool:
    """Which real files the game loads (the samples' README): the damaged and foreign ones are not."""
    name, folder = path.name, path.parent.name
    return not (folder in ("angband-legacy", "angband-truncated")
                or any(w in name for w in ("truncated", "half-written", "sil_", "minimal_", "dead")))


@pytest.fixture(scope="session")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Input]]:
    folder = tmp_path_factory.mktemp("matrix")
    tiers: dict[str, list[Input]] = {"tiny": [], "1mib": [], "64mib": [], "1gib": []}
    demo = folder / "demo"
    done = subprocess.run(_savecraft() + ["demo", "-o", str(demo)], env=_env(), capture_output=True,
                          text=True, timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr
    kinds = {"angband-block.sav": "angband-block", "angband-modular.sav": "angband-modular",
             "player.sav": "tirnanog-save", "server.sav": "tirnanog-save", "qfg5.sav": "qfg5-save",
             "sample.tng": "tirnanog-game"}
    for name, fmt in kinds.items():
        tiers["tiny"].append(Input(f"demo:{name}", "tiny", demo / name, True, fmt))
    for p in _real_samples():
        tiers["tiny"].append(Input(f"real:{p.name}", "tiny", p, _real_is_valid(p)))
    sys.path.insert(0, str(ROOT))
    from fuzz.hostile import HOSTILE

    for name, make in HOSTILE.items():
        p = folder / f"hostile-{name}.bin"
        p.write_bytes(make())
        tiers["tiny"].append(Input(f"hostile:{name}", "tiny", p, False))

    save = folder / "server-1MiB.sav"
    save.write_bytes(_server_save(1800, stored=True))
    assert save.stat().st_size >= MIB
    tiers["1mib"].append(Input("server-save-1MiB", "1mib", save, True, "tirnanog-save"))
    game = folder / "game-1MiB.tng"
    game.write_bytes(_game(MIB))
    tiers["1mib"].append(Input("game-1MiB", "1mib", game, True, "tirnanog-game"))
    game64 = folder / "game-64MiB.tng"
    game64.write_bytes(_game(64 * MIB))
    tiers["64mib"].append(Input("game-64MiB", "64mib", game64, True, "tirnanog-game"))
    for fmt, magic in MAGIC.items():
        for tier, size in (("1mib", MIB), ("64mib", 64 * MIB), ("1gib", GIB + MIB)):
            p = _sparse(folder / f"{fmt}-{tier}.bin", magic, size)
            tiers[tier].append(Input(f"{fmt}-zeros-{tier}", tier, p, False, fmt))
    return tiers


# -- the commands --------------------------------------------------------------------------------


def commands(inp: Input, work: Path) -> list[list[str]]:
    """What a user runs on this input: every command that reads a file and applies to it."""
    f = str(inp.path)
    cmds = [["info", f], ["validate", f], ["dump", f, "-o", str(work / "d.json")],
            ["hexdump", f, "--length", "64"], ["extract", f, "-o", str(work / "parts")],
            ["diff", f, f]]
    if inp.format in EDITS:
        cmds.append(["edit", f, "--set", EDITS[inp.format], "-o", str(work / "edited")])
    else:
        cmds.append(["edit", f, "--set", "no_such_field=1", "-o", str(work / "edited")])
    if inp.format in (None, "tirnanog-game"):
        cmds += [["sections", f], ["refs", f], ["render-map", f, "0", "-o", str(work / "map.png")]]
    return cmds


def limit_for(inp: Input) -> int:
    """The address space a run on this input may take: the base, and three times the file."""
    return BASE_LIMIT + 3 * inp.path.stat().st_size


def _case(inp: Input, work: Path) -> None:
    limit = limit_for(inp)
    results: dict[str, Run] = {}
    for args in commands(inp, work):
        r = run(args, limit=limit, cwd=work)
        RECORDS.append({"tier": inp.tier, "input": inp.name, "command": args[0],
                        "args": " ".join(args[1:]).replace(str(inp.path), "FILE").replace(str(work), "."),
                        "status": r.status, "seconds": round(r.seconds, 3), "peak": r.peak,
                        "size": inp.path.stat().st_size})
        check_clean(r)
        results.setdefault(args[0], r)
    if inp.valid:
        for name in ("info", "validate", "dump", "hexdump", "diff"):
            assert results[name].status == 0, f"{name} of {inp.name}: exit {results[name].status}: " \
                f"{results[name].out[-500:]}{results[name].err[-500:]}"
        if inp.format in EDITS:
            assert results["edit"].status == 0, results["edit"].err
        rebuilt = work / "rebuilt"
        # build holds the JSON text (base64: 1.4x the file, indented records: up to 20x) and its parse
        r = run(["build", str(work / "d.json"), "-o", str(rebuilt)],
                limit=BASE_LIMIT + 4 * (work / "d.json").stat().st_size, cwd=work)
        RECORDS.append({"tier": inp.tier, "input": inp.name, "command": "build", "args": "d.json",
                        "status": r.status, "seconds": round(r.seconds, 3), "peak": r.peak,
                        "size": inp.path.stat().st_size})
        check_clean(r)
        assert r.status == 0, r.err
        assert rebuilt.read_bytes() == inp.path.read_bytes(), f"{inp.name}: dump + build is not byte-exact"
    else:
        assert results["validate"].status in (1, 2), f"validate of {inp.name}: exit {results['validate'].status}"
        # A hostile file may be read lazily (info of a game decodes no map): only a file
        # that breaks at its start must be refused by every command.
        for name in ("info", "dump") if "zeros" in inp.name else ():
            assert results[name].status in (1, 2), f"{name} of {inp.name}: exit {results[name].status}"


def _ids(tier: str) -> list[Any]:
    """Case names known before the inputs exist (parametrize runs before fixtures)."""
    names = {
        "tiny": [f"demo:{n}" for n in ("angband-block.sav", "angband-modular.sav", "player.sav",
                                       "server.sav", "qfg5.sav", "sample.tng")]
        + ([f"real:{p.name}" for p in _real_samples()] or [pytest.param("real:samples", marks=real_samples)])
        + ["hostile:save-4MiB-map-rle", "hostile:save-4.2M-empty-chunks", "hostile:game-2-maps-8192x8192x10"],
        "1mib": ["server-save-1MiB", "game-1MiB"] + [f"{f}-zeros-1mib" for f in MAGIC],
        "64mib": ["game-64MiB"] + [f"{f}-zeros-64mib" for f in MAGIC],
        "1gib": [f"{f}-zeros-1gib" for f in MAGIC],
    }
    return names[tier]


def _get(inputs: dict[str, list[Input]], tier: str, name: str) -> Input:
    found = [i for i in inputs[tier] if i.name == name]
    assert found, f"no input {name} in tier {tier}"
    return found[0]


@pytest.mark.parametrize("name", _ids("tiny"))
def test_tiny(inputs: dict[str, list[Input]], name: str, tmp_path: Path) -> None:
    _case(_get(inputs, "tiny", name), tmp_path)


@pytest.mark.parametrize("name", _ids("1mib"))
def test_1mib(inputs: dict[str, list[Input]], name: str, tmp_path: Path) -> None:
    _case(_get(inputs, "1mib", name), tmp_path)


@pytest.mark.large
@pytest.mark.parametrize("name", _ids("64mib"))
def test_64mib(inputs: dict[str, list[Input]], name: str, tmp_path: Path) -> None:
    _case(_get(inputs, "64mib", name), tmp_path)


@pytest.mark.large
@pytest.mark.parametrize("name", _ids("1gib"))
def test_1gib(inputs: dict[str, list[Input]], name: str, tmp_path: Path) -> None:
    _case(_get(inputs, "1gib", name), tmp_path)


# -- what no size tier covers: streams, memory running out ---------------------------------------


@pytest.mark.parametrize("source", ["/dev/zero", "/dev/urandom", "-"])
@pytest.mark.parametrize("command", ["validate", "info", "dump"])
def test_an_endless_input_stops_at_the_stream_cap(command: str, source: str, tmp_path: Path) -> None:
    """``/dev/zero``, ``/dev/urandom`` and an endless stdin were read until memory ran out."""
    env = {**_env(), "SAVECRAFT_MAX_STREAM": str(8 * MIB)}
    limit = BASE_LIMIT

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    stdin = open("/dev/zero", "rb") if source == "-" else subprocess.DEVNULL
    try:
        done = subprocess.run(_savecraft() + [command, source], stdin=stdin, capture_output=True, text=True,
                              env=env, timeout=TIMEOUT, preexec_fn=limited, cwd=tmp_path)
    finally:
        if source == "-":
            stdin.close()  # type: ignore[union-attr]
    r = Run([command, source], done.returncode, done.stdout, done.stderr, 0.0, 0)
    check_clean(r)
    assert done.returncode == 2
    assert f"a stream of more than {8 * MIB} bytes" in done.stderr and "SAVECRAFT_MAX_STREAM" in done.stderr


def test_dump_under_an_address_space_limit_says_out_of_memory(inputs: dict[str, list[Input]],
                                                               tmp_path: Path) -> None:
    """orjson aborted (SIGSEGV) when the whole dump did not fit: now one line and exit 1, or success."""
    save = tmp_path / "server.sav"
    save.write_bytes(_server_save(30_000))  # about 4 MB, 75 MB of indented JSON
    statuses = set()
    for mib in (200, 240, 280, 320):  # from too little to load, through too little to dump
        for out in (str(tmp_path / "d.json"), "-"):
            r = run(["dump", str(save), "-o", out], limit=mib * MIB, cwd=tmp_path)
            check_clean(r)
            statuses.add(r.status)
            if r.status == 1:
                assert "out of memory" in r.err and "ulimit -v" in r.err, r.err
            else:
                assert r.status == 0, r.err
    assert 1 in statuses, "no limit was tight enough to run out: the test proves nothing"


@pytest.fixture(scope="session", autouse=True)
def _report() -> Any:
    yield
    target = os.environ.get("SAVECRAFT_MATRIX_REPORT")
    if target and RECORDS:
        with open(target, "a") as fh:
            for rec in RECORDS:
                fh.write(json.dumps(rec) + "\n")
