"""A deflated asset that is one script's bytecode (startup scripts, default actions)."""

from __future__ import annotations

from typing import Any

from ..assets import Asset, AssetContext
from ..bytecode import Script, script_from_bytes
from .common import Script


class ScriptAsset(Asset[Script]):
    WHAT = "script"

    def decode(self, content: bytes, offset: int, ctx: AssetContext) -> Script:
        return script_from_bytes(content, ctx.script_names(), offset=0, path=self.path, report=ctx.report)

    def encode(self, value: Script, ctx: Any) -> bytes:
        return bytes(ctx.code(value, self.path))

    @classmethod
    def empty(cls) -> Script:
        return Script()

    @classmethod
    def value_type(cls) -> Any:
        return Script
