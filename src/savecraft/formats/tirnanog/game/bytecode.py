"""Scripts in the model: the one place that turns bytecode into what models hold and back.

Every script in a game (event handlers, cutscene scripts, attribute
expressions, quest and startup scripts) goes through :func:`script_from_bytes`
and :func:`script_to_bytes`, so how scripts are shown (assembly text from
:mod:`.script` when it is available, the bytecode otherwise) is decided here.
Bytecode that does not disassemble is kept as bytes, reported, and written
back unchanged.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
import base64

from ....errors import FormatError, Report
from .assets import EXTRACTED
from ....jsonmap import _bad, _dec_bytes


@dataclass(slots=True)
class Script:
    """A script as assembly text, or as raw bytecode when it cannot be (or is not yet) disassembled."""

    text: str = ""
    code: bytes | None = None

    @property
    def empty(self) -> bool:
        return not self.text and not self.code

    def __json_encode__(self) -> Any:
        """Assembly text as a plain JSON string; bytecode kept as ``{"bytecode": base64}``.

        While ``savecraft extract`` writes a section, a script it wrote as a ``.asm`` file is
        ``{"asm": FILE}`` instead (one copy of the text, the one people edit).
        """
        files = EXTRACTED.get()
        name = files.get(id(self)) if files and self.code is None else None
        if name is not None:
            return {"asm": name}
        if self.code is None:
            return self.text
        return {"bytecode": base64.b64encode(self.code).decode("ascii")}

    @classmethod
    def __json_decode__(cls, obj: Any, path: str) -> Script:
        if isinstance(obj, str):
            return cls(text=obj)
        if isinstance(obj, dict) and set(obj) == {"bytecode"}:
            return cls(code=_dec_bytes(obj["bytecode"], path + ".bytecode"))
        raise _bad(path, 'assembly text, or {"bytecode": base64}', obj)


def _script_module() -> Any:
    try:
        from . import script
    except ImportError:
        return None
    return script


def script_support() -> bool:
    """Whether scripts are disassembled here (else every script stays bytecode)."""
    return _script_module() is not None


def script_from_bytes(code: bytes, names: Any = None, *, offset: int = 0, path: str = "",
                      report: Report | None = None) -> Script:
    if not code:
        return Script()
    mod = _script_module()
    if mod is None:
        return Script(code=code)
    try:
        return Script(text=mod.disassemble(code, names))
    except FormatError as err:
        if report is not None:
            report.error(offset + (err.offset or 0), path + (f".{err.path}" if err.path else ""),
                         err.expected, err.found)
        return Script(code=code)


def script_to_bytes(s: Script, names: Any = None, path: str = "") -> bytes:
    if s.code is not None:
        return s.code
    if not s.text:
        return b""
    mod = _script_module()
    if mod is None:
        raise FormatError(None, path, "bytecode (no assembler is available)", "assembly text")
    try:
        return bytes(mod.assemble(s.text, names))
    except FormatError as err:
        raise FormatError(err.offset, f"{path}.{err.path}" if path and err.path else err.path or path,
                          err.expected, err.found) from None


def iter_scripts(obj: Any, path: str = "") -> Iterator[tuple[str, Script]]:
    """Every script inside a model (entering structured assets, which loads them), with its path."""
    from .sections.common import iter_values
    return iter_values(obj, Script, path, into_assets=True)


def canonical(s: Script, names: Any = None) -> Script:
    """The text the disassembler would show for this script (labels, indentation, names)."""
    code = script_to_bytes(s, names)
    return script_from_bytes(code, names)
