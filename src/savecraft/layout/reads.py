"""Which :class:`~.context.Context` entries a record description's reader may look at.

A read is a function of its bytes and of the Context entries it looks at, and of nothing else
in the Context: so a caller that reads one block under several contexts (which game wrote this
file?) can know, from the description alone, that two contexts agreeing on those entries give
the same outcome, and read once. The set is found in the description, not by running it:
``Ctx`` counts name their entry; an expression (a condition, a count, a check, a computed
value) names an entry as ``ctx.need('x', ...)``, ``ctx.values['x']`` or
``ctx.values.get('x'...)``. Anything else that can see the Context (an expression using
``ctx`` another way, an :class:`~.types.Adapt` given the Context, a reader that is not a
description) makes the answer None: "any entry", and the caller must key by all of them.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from .compiler import Struct
from .types import Adapt, Ctx, Type

# An entry named by a literal: ctx.need('x'...), ctx.values['x'], ctx.values.get('x'...).
_NAMED = re.compile(r"""ctx\s*\.\s*(?:need\s*\(\s*|values\s*\[\s*|values\s*\.\s*get\s*\(\s*)(['"])(\w+)\1""")
_CTX = re.compile(r"\bctx\b")


class _Any(Exception):
    """The description can look at Context entries it does not name."""


def context_reads(description: Any) -> frozenset[str] | None:
    """The names of the Context entries reading ``description`` (a :class:`Struct` or any
    :class:`~.types.Type`) may look at; None when it may look at any (see the module)."""
    names: set[str] = set()
    try:
        _walk(description, names, set())
    except _Any:
        return None
    return frozenset(names)


def _expr(text: str, names: set[str]) -> None:
    names.update(m.group(2) for m in _NAMED.finditer(text))
    if _CTX.search(_NAMED.sub("", text)):
        raise _Any  # ctx used some other way: a name held in a variable, the whole Context


def _walk(node: Any, names: set[str], seen: set[int]) -> None:
    if node is None or isinstance(node, bool | int | float | bytes):
        return
    if isinstance(node, str):
        _expr(node, names)
        return
    if isinstance(node, list | tuple | frozenset | set):
        for item in node:
            _walk(item, names, seen)
        return
    if isinstance(node, dict):
        for item in node.values():
            _walk(item, names, seen)
        return
    if id(node) in seen:
        return
    seen.add(id(node))
    if isinstance(node, Ctx):
        names.add(node.name)
        return
    if isinstance(node, Struct):  # its members (its compiled code and caches are derived)
        _walk(node.members, names, seen)
        return
    if isinstance(node, Adapt) and node.ctx:
        raise _Any  # its functions are given the Context
    if isinstance(node, Type) or dataclasses.is_dataclass(node):
        # A stored type's or a member's settings: the expressions, counts and nested
        # types in them (functions among them are not given the Context: Custom, Adapt).
        for key, value in vars(node).items():
            if callable(value) and not isinstance(value, Type):
                continue
            if key.startswith("_") and not isinstance(node, Type):
                continue
            _walk(value, names, seen)
        return
    raise _Any  # a value of a kind this walk does not know: assume the worst
