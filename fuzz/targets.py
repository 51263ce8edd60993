"""What the fuzzer feeds and what it checks: one target per registered format, and the network codecs.

The invariants (issue 10, "Done when"):

* parsing raises nothing but :class:`~savecraft.errors.SavecraftError` (FormatError);
* ``validate`` returns, whatever the bytes;
* an input that parses is rebuilt byte for byte, by ``build`` of what was
  parsed and by ``build`` of its JSON dump, or ``validate`` reports a problem
  that says why it cannot be;
* a network message that decodes encodes back to the same bytes;
* memory and time stay bounded (the runner sets the limits; a MemoryError or
  an overrun is a finding too).
"""

from __future__ import annotations

import json
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .mutate import PAYLOADS, Payload


class Finding(Exception):
    """An invariant broken by one input; ``kind`` groups findings of the same cause."""

    def __init__(self, kind: str, detail: str, key: str | None = None) -> None:
        super().__init__(f"{kind}: {detail}")
        self.kind = kind
        self.detail = detail
        self.key = f"{kind}: {key if key is not None else detail.splitlines()[0][:200]}"


@dataclass
class Target:
    name: str
    seeds: Callable[[], list[bytes]]
    check: Callable[[bytes], bool]  # True when the input was accepted (parsed, decoded)
    payload: Payload | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def _site(exc: BaseException) -> str:
    """The innermost savecraft frame of a traceback: what makes two crashes the same one."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if "savecraft" in f.filename]
    last = frames[-1] if frames else None
    at = f"{Path(last.filename).name}:{last.lineno} {last.name}" if last else "?"
    return f"{type(exc).__name__} at {at}"


def _where(exc: BaseException) -> str:
    return f"{_site(exc)}: {str(exc)[:120]}"


def _guard(kind: str, fn: Callable[[], Any]) -> tuple[bool, Any]:
    """Run ``fn``: (True, result), or (False, the SavecraftError); anything else is a finding."""
    from savecraft.errors import SavecraftError
    try:
        return True, fn()
    except SavecraftError as err:
        return False, err
    except MemoryError as exc:
        raise Finding("memory", f"{kind}: {_where(exc)}", f"{kind}: {_site(exc)}") from None
    except Finding:
        raise
    except Exception as exc:  # the point of fuzzing: anything that is not the project's error
        raise Finding("crash", f"{kind}: {_where(exc)}", f"{kind}: {_site(exc)}") from None


def check_format(name: str, data: bytes) -> bool:
    import savecraft
    from savecraft import registry
    from savecraft.errors import Report

    fmt = registry.get(name)
    ok, model = _guard("parse", lambda: fmt.parse(data, Report(strict=True)))
    valid, result = _guard("validate", lambda: savecraft.validate(data, format=name))
    if not valid:
        raise Finding("validate-raised", f"{type(result).__name__}: {str(result)[:120]}")
    if not ok:
        return False
    # validate found something (an error, or a warning such as a checksum no loader compares,
    # which the rebuild recomputes): a rebuild may differ, and it says why
    explained = bool(result.problems)
    built, out = _guard("build", lambda: fmt.build(model))
    if not built and not explained:
        raise Finding("build-refused", f"parsed and validates, but build says: {str(out)[:160]}",
                      f"{name} {getattr(out, 'path', '')}")
    if built and out != data and not explained:
        raise Finding("roundtrip", f"build differs from the input at byte {_first_diff(out, data)} "
                      f"({len(out)} vs {len(data)} bytes) and validate reports nothing", name)
    dumped, doc = _guard("dump", lambda: json.loads(json.dumps(savecraft.to_json(model))))
    if not dumped:
        if not explained:
            raise Finding("dump-refused", f"parsed and validates, but dump says: {str(doc)[:160]}",
                          f"{name} {getattr(doc, 'path', '')}")
        return True
    rebuilt, again = _guard("dump+build", lambda: savecraft.build(savecraft.from_json(doc)))
    if not explained and (not rebuilt or again != data):
        why = str(again)[:160] if not rebuilt else f"differs at byte {_first_diff(again, data)}"
        raise Finding("dump-roundtrip", f"dump + build: {why}", name)
    return True


def _first_diff(a: bytes, b: bytes) -> int:
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    return min(len(a), len(b))


def format_seeds(name: str) -> list[bytes]:
    """Every demo file of the format, and the real samples of it found on this machine."""
    import tempfile

    from savecraft import registry
    from savecraft.commands.demo import _steps

    out: list[bytes] = []
    with tempfile.TemporaryDirectory() as tmp:
        for step in _steps():
            if step.__module__.startswith("savecraft.net"):
                continue
            for p in step(Path(tmp)):
                data = p.read_bytes()
                try:
                    if registry.detect(data).name == name:
                        out.append(data)
                except Exception:  # noqa: BLE001 - a demo file of no format is no seed
                    pass
    samples = Path("/work/shared/samples")
    if samples.is_dir():
        for p in sorted(samples.rglob("*.sav"))[:20]:
            data = p.read_bytes()
            try:
                if registry.detect(data).name == name:
                    out.append(data)
            except Exception:  # noqa: BLE001
                pass
    if name == "angband-legacy" and not out:
        out.append(bytes(64))
    return out


def net_seeds() -> list[bytes]:
    from savecraft.net.packets import base
    out = []
    for cls in list(base._TYPES.values()) + list(base._HELLOS.values()):
        try:
            out.append(cls().encode())
        except Exception:  # noqa: BLE001 - a message with no valid default is left out
            pass
    return out


def check_net(data: bytes) -> bool:
    from savecraft.net.packets import Role, decode
    accepted = False
    for sender in (None, Role.CLIENT, Role.SERVER):
        ok, msg = _guard("net decode", lambda: decode(data, sender=sender))
        if not ok:
            continue
        accepted = True
        encoded, out = _guard("net encode", lambda: msg.encode())
        if not encoded:
            raise Finding("net-encode-refused", f"{type(msg).__name__} decoded but does not encode: "
                          f"{str(out)[:120]}", f"{type(msg).__name__} {getattr(out, 'path', '')}")
        if out != data:
            raise Finding("net-roundtrip", f"{type(msg).__name__}: encode differs at byte "
                          f"{_first_diff(out, data)} ({len(out)} vs {len(data)} bytes)",
                          type(msg).__name__)
    return accepted


def _format_target(name: str) -> Target:
    def seeds() -> list[bytes]:
        return format_seeds(name)

    def check(data: bytes) -> bool:
        return check_format(name, data)
    return Target(name, seeds, check, PAYLOADS.get(name))


def targets() -> dict[str, Target]:
    from savecraft import registry
    out = {f.name: _format_target(f.name) for f in registry.formats()}
    out["net-packets"] = Target("net-packets", net_seeds, check_net)
    return out
