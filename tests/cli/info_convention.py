"""The check that an ``info --json`` document follows docs/info-json.md (for every format's tests).

    from tests.cli.info_convention import check_info
    check_info(doc, data_keys={"chunks"})
"""

from __future__ import annotations

import re
from typing import Any

SNAKE = re.compile(r"[a-z][a-z0-9]*(_[a-z0-9]+)*")
# Strings that are numbers, or numbers dressed as prose: they must be numbers (or split into fields).
NUMERIC_PROSE = (
    re.compile(r"-?\d+(\.\d+)?"),  # "12"
    re.compile(r"0x[0-9A-Fa-f]+"),  # "0x115A548C": a number
    re.compile(r".*\d+\s*x\s*\d+.*"),  # "32 x 32": two fields
    re.compile(r".*\(\d+\)"),  # "alive (1)": the name and the number are two fields
    re.compile(r"\d+ (in|of|bytes|records|items) .*|\d+ (bytes|records|items)"),  # "74 in 25 of 133 rooms"
)
SUFFIX_TYPES = {"_count": int, "_bytes": int, "_seconds": int}


def _check(value: Any, where: str, data_keys: set[str]) -> None:
    if isinstance(value, dict):
        for k, v in value.items():
            assert isinstance(k, str), f"{where}: a key that is not a string: {k!r}"
            if where.rsplit(".", 1)[-1] not in data_keys:
                assert SNAKE.fullmatch(k), f"{where}.{k}: keys are snake_case"
                for suffix, kind in SUFFIX_TYPES.items():
                    if k.endswith(suffix) and v is not None:
                        assert isinstance(v, kind) and not isinstance(v, bool), \
                            f"{where}.{k}: a {suffix} key holds a {kind.__name__}, not {v!r}"
            _check(v, f"{where}.{k}", data_keys)
    elif isinstance(value, list):
        kinds = {type(x).__name__ for x in value}
        assert len(kinds) <= 1, f"{where}: a list of one kind of value, not {sorted(kinds)}"
        for i, x in enumerate(value):
            _check(x, f"{where}[{i}]", data_keys)
    elif isinstance(value, str):
        for pattern in NUMERIC_PROSE:
            assert not pattern.fullmatch(value), f"{where}: {value!r} is a number in a string"
    else:
        assert value is None or isinstance(value, bool | int | float), f"{where}: {value!r}"


def check_info(doc: dict[str, Any], *, data_keys: set[str] | frozenset[str] = frozenset()) -> None:
    """Assert ``doc`` follows the convention; ``data_keys`` name the maps whose keys are data."""
    for key in ("file", "format", "description"):
        assert isinstance(doc.get(key), str), f"{key}: every document has it, as a string"
    _check(doc, "info", set(data_keys))
