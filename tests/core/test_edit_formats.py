"""Edit and diff on the samples of every format that has a demo step (present and future).

Each format's ``savecraft demo`` step writes its samples; for each sample an
integer field is edited through the generic API, and the result must read
back with the new value, validate, and differ from the original in that one
field only. A value no field can hold must be refused with the file left
byte for byte as it was.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from savecraft import api, diff, edit, jsonmap, registry
from savecraft.commands.demo import STEPS
from savecraft.errors import FormatError
from savecraft.paths import get, resolve

from .support import demo_samples


@pytest.fixture(scope="module", params=STEPS)
def samples(request: pytest.FixtureRequest,
            tmp_path_factory: pytest.TempPathFactory) -> list[tuple[Path, bytes, registry.Format]]:
    folder = tmp_path_factory.mktemp("demo")
    found = demo_samples(request.param, folder)
    if not found:
        pytest.skip(f"{request.param} writes no file of a registered format")
    return found


def int_leaves(obj: Any, path: str = "", out: list[tuple[str, int]] | None = None,
               depth: int = 0) -> list[tuple[str, int]]:
    """Paths to plain int fields (not keys, not encoding hints), a few items per list."""
    if out is None:
        out = []
    if len(out) >= 40 or depth > 8:
        return out
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        key = diff.key_field(type(obj))
        for f in dataclasses.fields(obj):
            if not f.compare or f.name == key or not f.metadata.get("json", True):
                continue
            v = getattr(obj, f.name)
            p = f"{path}.{f.name}" if path else f.name
            if type(v) is int:
                out.append((p, v))
            else:
                int_leaves(v, p, out, depth + 1)
    elif isinstance(obj, list | tuple) or (hasattr(obj, "raw_or_none") and hasattr(obj, "__len__")):
        for i in range(min(len(obj), 3)):
            v = obj[i]
            if type(v) is int:
                out.append((f"{path}[{i}]", v))
            else:
                int_leaves(v, f"{path}[{i}]", out, depth + 1)
    return out


def test_diff_of_a_file_with_itself_is_empty(
        samples: list[tuple[Path, bytes, registry.Format]]) -> None:
    for path, data, fmt in samples:
        assert diff.diff_files(path, path).equal
        # two separate readings of the same bytes: nothing differs, not even the encoding
        a, b = api.parse(data, fmt.name), api.parse(data, fmt.name)
        assert diff.diff(a, b).changes == [], path.name
        assert diff.diff(a, b, encoding=True).changes == [], path.name


def test_an_edit_round_trips(samples: list[tuple[Path, bytes, registry.Format]]) -> None:
    for path, data, fmt in samples:
        model = api.parse(data, fmt.name)
        leaves = int_leaves(model)
        assert leaves, f"{path.name}: no integer field found to edit"
        refused = []
        for field_path, old in leaves:
            new = old + 1 if old < 100 else old - 1
            try:
                result = edit.edit_bytes(data, {field_path: new})
            except FormatError as err:  # e.g. a field the format's check ties to another
                refused.append(f"{field_path}: {err}")
                continue
            break
        else:
            pytest.fail(f"{path.name}: every edit was refused: {refused}")
        canonical = result.changes[0][0]
        assert result.changed
        # the dump shows the new value
        assert get(jsonmap.loads(edit.dump_for_editing(result.data)), canonical) == new
        # validate passes
        check = api.validate(result.data, fmt.name)
        assert check.ok, check.problems
        # the rest of the file is unchanged
        changes = diff.diff_bytes(data, result.data).changes
        assert len(changes) == 1, [str(c) for c in changes]
        only = changes[0]
        assert (only.kind, only.old, only.new) == ("changed", old, new)
        assert resolve(api.parse(result.data, fmt.name), only.path).path == canonical


def test_a_refused_edit_leaves_the_file_byte_identical(
        samples: list[tuple[Path, bytes, registry.Format]], tmp_path: Path) -> None:
    for path, data, fmt in samples:
        leaves = int_leaves(api.parse(data, fmt.name))
        target = tmp_path / path.name
        target.write_bytes(data)
        for field_path, _ in leaves[:3]:
            with pytest.raises(FormatError):  # the type check
                edit.edit_file(target, {field_path: "not a number"})
        # the range check: the first field that cannot hold 2**70 (a number kept as text can)
        too_big = []
        for field_path, _ in leaves:
            try:
                edit.edit_bytes(data, {field_path: 2**70})
            except FormatError:
                too_big.append(field_path)
                break
        assert too_big, f"{path.name}: no field refused 2**70"
        with pytest.raises(FormatError):
            edit.edit_file(target, {too_big[0]: 2**70})
        assert target.read_bytes() == data
        assert not target.with_name(target.name + ".bak").exists()
