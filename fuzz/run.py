"""The fuzzing harness's command line: ``python3 -m fuzz`` (or ``python3 fuzz/run.py``).

    python3 -m fuzz --list
    python3 -m fuzz --format tirnanog-save --seconds 60
    python3 -m fuzz --format all --seconds 600          # the time split over every target
    python3 -m fuzz --format all --seconds 5 --engine plain --seed 1   # what the tests run

Engines: ``atheris`` (coverage-guided libFuzzer; ``pip install -e '.[fuzz]'``),
each target in its own process because libFuzzer exits when done; ``plain``
(random mutations of the seeds and of the inputs that parsed, no coverage),
all targets in this process. ``auto`` picks atheris when it imports.

Both engines mutate the file and, for TirNanoG saves and games, the inflated
payload (re-deflated, sizes and CRCs fixed: see ``fuzz/mutate.py``). Limits:
``--memory-mib`` caps the address space (RLIMIT_AS) and ``--timeout`` each
input's time. Findings are written to ``--out`` (default ``fuzz/findings``),
one file per distinct finding, and summed up at the end; the exit status is
1 when anything was found.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import resource
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

HERE = Path(__file__).resolve().parent
if str(HERE.parent) not in sys.path:  # run as a script: make ``fuzz`` and ``savecraft`` importable
    sys.path.insert(0, str(HERE.parent))
    sys.path.insert(0, str(HERE.parent / "src"))

from fuzz.mutate import mutate  # noqa: E402
from fuzz.targets import Finding, Target, targets  # noqa: E402

MAX_CORPUS = 256


class _Overrun(BaseException):
    """Raised by the timer inside a slow input (a BaseException: no ``except Exception`` eats it)."""


@dataclass
class Stats:
    target: str
    engine: str
    execs: int = 0
    accepted: int = 0
    seconds: float = 0.0
    findings: dict[str, dict[str, Any]] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        return {"target": self.target, "engine": self.engine, "execs": self.execs,
                "accepted": self.accepted, "seconds": round(self.seconds, 1), "findings": self.findings}


def limit_memory(mib: int) -> None:
    if mib > 0:
        resource.setrlimit(resource.RLIMIT_AS, (mib << 20, mib << 20))


def _on_alarm(signum: int, frame: FrameType | None) -> None:
    raise _Overrun()


def run_plain(target: Target, seconds: float, seed: int, out: Path, timeout: float) -> Stats:
    """Random mutations for ``seconds``; inputs that were accepted join the corpus."""
    rng = random.Random(f"{seed}:{target.name}")
    stats = Stats(target.name, "plain")
    seeds = target.seeds()
    corpus = list(seeds) or [b""]
    signal.signal(signal.SIGALRM, _on_alarm)
    start = time.monotonic()
    deadline = start + seconds
    while time.monotonic() < deadline:
        data = mutate(rng.choice(corpus), rng, target.payload, corpus)
        stats.execs += 1
        try:
            signal.setitimer(signal.ITIMER_REAL, timeout)
            try:
                accepted = target.check(data)
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
        except _Overrun:
            _record(stats, Finding("slow", f"more than {timeout} s on one input"), data, out)
            continue
        except Finding as f:
            _record(stats, f, data, out)
            continue
        if accepted:
            stats.accepted += 1
            if len(corpus) < MAX_CORPUS:
                corpus.append(data)
            else:
                corpus[rng.randrange(len(seeds), MAX_CORPUS)] = data
    stats.seconds = time.monotonic() - start
    return stats


def _record(stats: Stats, f: Finding, data: bytes, out: Path) -> None:
    key = f.key
    entry = stats.findings.get(key)
    if entry is None:
        out.mkdir(parents=True, exist_ok=True)
        name = f"{stats.target}-{f.kind}-{hashlib.sha1(data).hexdigest()[:12]}.bin"
        (out / name).write_bytes(data)
        stats.findings[key] = {"count": 1, "example": str(out / name), "size": len(data),
                               "detail": f.detail[:300]}
    else:
        entry["count"] += 1


def run_atheris(target: Target, seconds: float, seed: int, out: Path, timeout: float,
                memory_mib: int) -> None:
    """libFuzzer through atheris; the seeds go in a corpus folder; exits the process when done."""
    import atheris  # type: ignore[import-untyped]  # optional: the ``fuzz`` extra

    atheris.instrument_all()
    corpus = out / f"corpus-{target.name}"
    corpus.mkdir(parents=True, exist_ok=True)
    for data in target.seeds():
        (corpus / hashlib.sha1(data).hexdigest()).write_bytes(data)

    stats = Stats(target.name, "atheris")
    log = out / f"findings-{target.name}.json"

    def test_one_input(data: bytes) -> None:
        # A Finding is recorded and the run goes on (libFuzzer would stop at the first);
        # anything else escaping check() is a bug of the harness and does stop it.
        try:
            target.check(data)
        except Finding as f:
            _record(stats, f, data, out)
            log.write_text(json.dumps(stats.findings))

    def custom_mutator(data: bytes, max_size: int, mseed: int) -> bytes:
        rng = random.Random(mseed)
        if rng.random() < 0.5:
            return bytes(atheris.Mutate(data, max_size))
        return mutate(data, rng, target.payload, [], max_size)[:max_size]

    args = [sys.argv[0], str(corpus), f"-max_total_time={max(1, int(seconds))}", f"-seed={seed or 1}",
            f"-timeout={max(1, int(timeout))}", f"-rss_limit_mb={memory_mib or 2048}",
            f"-artifact_prefix={out}/{target.name}-", "-max_len=1048576", "-print_final_stats=1"]
    atheris.Setup(args, test_one_input, custom_mutator=custom_mutator)
    atheris.Fuzz()


def _has_atheris() -> bool:
    try:
        import atheris  # noqa: F401
    except ImportError:
        return False
    return True


def _atheris_child(name: str, seconds: float, args: argparse.Namespace) -> Stats:
    cmd = [sys.executable, "-m", "fuzz", "--format", name, "--seconds", str(seconds), "--engine",
           "atheris", "--child", "--seed", str(args.seed), "--out", str(args.out),
           "--memory-mib", "0", "--timeout", str(args.timeout)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE.parent / "src"), str(HERE.parent)])}
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=seconds + 300)
    stats = Stats(name, "atheris", seconds=seconds)
    for line in done.stderr.splitlines():
        if line.startswith("stat::number_of_executed_units:"):
            stats.execs = int(line.split(":")[-1])
    log = args.out / f"findings-{name}.json"
    if log.exists():
        stats.findings = json.loads(log.read_text())
        log.unlink()
    if done.returncode != 0:
        where = next((ln for ln in done.stderr.splitlines() if "Test unit written to" in ln), "")
        stats.findings[f"exit {done.returncode}"] = {
            "count": 1, "detail": (done.stdout + done.stderr)[-300:].strip(), "example": where}
    return stats


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m fuzz", description=__doc__.splitlines()[0])
    ap.add_argument("--format", default="all", help="a target name (see --list) or all")
    ap.add_argument("--seconds", type=float, default=60.0, help="total time (split over targets)")
    ap.add_argument("--engine", choices=("auto", "plain", "atheris"), default="auto")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--memory-mib", type=int, default=2048, help="address-space limit (0: none)")
    ap.add_argument("--timeout", type=float, default=10.0, help="seconds allowed for one input")
    ap.add_argument("--out", type=Path, default=HERE / "findings")
    ap.add_argument("--json", action="store_true", help="print the statistics as JSON")
    ap.add_argument("--list", action="store_true", help="list the targets")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    all_targets = targets()
    if args.list:
        print("\n".join(all_targets))
        return 0
    names = list(all_targets) if args.format == "all" else [args.format]
    unknown = [n for n in names if n not in all_targets]
    if unknown:
        ap.error(f"unknown target {unknown[0]!r} (one of {', '.join(all_targets)})")
    engine = args.engine
    if engine == "auto":
        engine = "atheris" if _has_atheris() else "plain"
    each = args.seconds / len(names)
    if args.child:
        limit_memory(args.memory_mib)
        run_atheris(all_targets[names[0]], each, args.seed, args.out, args.timeout, args.memory_mib)
        return 0
    results = []
    if engine == "plain":
        limit_memory(args.memory_mib)
    for name in names:
        if engine == "atheris":
            results.append(_atheris_child(name, each, args))
        else:
            results.append(run_plain(all_targets[name], each, args.seed, args.out, args.timeout))
    found = 0
    if args.json:
        print(json.dumps([r.as_json() for r in results], indent=1))
    for r in results:
        found += len(r.findings)
        if not args.json:
            print(f"{r.target:16} {r.engine:8} {r.execs:>9} execs in {r.seconds:6.1f} s "
                  f"({r.accepted} accepted), {len(r.findings)} findings")
            for key, entry in r.findings.items():
                print(f"    {entry['count']:>5} x {key}\n            {entry.get('detail', '')}\n"
                      f"            [{entry.get('example', '')}]")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
