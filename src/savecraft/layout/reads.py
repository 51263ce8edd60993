"""Which :class:`~.context.Context` entries a record description's reader may look at.

A read is a function of its bytes and of the Context entries it looks at, and of nothing else
in the Context: so a caller that reads one block under several contexts (which game wrote this
file?) can know, from the description alone, that two contexts agreeing on those entries give
the same outcome, and read once. The set is found in the description, not by running it:
``Ctx`` counts name their entry; an expression (a condition, a count, a check, a computed
value) names an entry as ``ctx.need('x', ...)``, ``ctx.values['x']`` or
``ctx.values.get('x'...)`` (or takes the names from a literal list: ``sum(ctx.need(n, ...) for
n in ('a', 'b'))``). Anything else that can see the Context (an expression using
``ctx`` another way, an :class:`~.types.Adapt` given the Context, a reader that is not a
description) makes the answer None: "any entry", and the caller must key by all of them.
"""

from __future__ import annotations

import ast
import dataclasses
import re
from typing import Any

from .compiler import Struct
from .types import Adapt, Ctx, Type

_CTX = re.compile(r"\bctx\b")


class _Any(Exception):
    """The description can look at Context entries it does not name."""


class _Names(set[str]):
    """The entries found, and those of them looked at leniently (``ctx.values[...]``, which
    raises KeyError, or ``ctx.values.get``, which takes a default, when the entry is absent)."""

    lenient: set[str]


def _found(description: Any) -> _Names | None:
    names = _Names()
    names.lenient = set()
    try:
        _walk(description, names, set())
    except _Any:
        return None
    return names


def context_reads(description: Any) -> frozenset[str] | None:
    """The names of the Context entries reading ``description`` (a :class:`Struct` or any
    :class:`~.types.Type`) may look at; None when it may look at any (see the module)."""
    names = _found(description)
    return None if names is None else frozenset(names)


def needed_reads(description: Any) -> frozenset[str]:
    """The entries of :func:`context_reads` that reading ``description`` looks at only as a
    need (a ``Ctx`` count, ``ctx.need``): until it first looks at one that is absent, the read
    goes as it would with any value there, and then it raises LayoutError. Empty when
    :func:`context_reads` is None."""
    names = _found(description)
    return frozenset() if names is None else frozenset(names - names.lenient)


def expression_reads(text: str) -> frozenset[str] | None:
    """The Context entries the Python expression ``text`` looks at: those it names as
    ``ctx.need(NAME, ...)``, ``ctx.values[NAME]`` or ``ctx.values.get(NAME, ...)``, NAME a
    string or a comprehension's variable over a literal tuple or list of strings; None when
    it uses ``ctx`` any other way (or is no expression)."""
    names = _Names()
    names.lenient = set()
    try:
        _expr(text, names)
    except _Any:
        return None
    return frozenset(names)


def _expr(text: str, names: _Names) -> None:
    if not _CTX.search(text):
        return  # (a message, a field name, an expression over fields only)
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError:
        raise _Any from None
    allowed: set[int] = set()  # the ``ctx`` Name nodes of the uses understood
    _visit(tree, {}, names, allowed)
    for node in ast.walk(tree):
        if _is_ctx(node) and id(node) not in allowed:
            raise _Any  # ctx used some other way: the whole Context given to a function...


def _visit(node: ast.AST, scope: dict[str, tuple[str, ...]], names: _Names, allowed: set[int]) -> None:
    """Note the entries ``node`` names; ``scope``: the comprehension variables around it that
    run over literal strings (``for n in ('a', 'b')``)."""
    if isinstance(node, ast.GeneratorExp | ast.ListComp | ast.SetComp):
        inner = dict(scope)
        for gen in node.generators:
            _visit(gen.iter, inner, names, allowed)
            elts = gen.iter.elts if isinstance(gen.iter, ast.Tuple | ast.List) else None
            if isinstance(gen.target, ast.Name):
                if elts is not None and all(isinstance(e, ast.Constant) and isinstance(e.value, str)
                                            for e in elts):
                    inner[gen.target.id] = tuple(e.value for e in elts)  # type: ignore[attr-defined]
                else:
                    inner.pop(gen.target.id, None)
            for cond in gen.ifs:
                _visit(cond, inner, names, allowed)
        _visit(node.elt, inner, names, allowed)
        return
    arg: ast.expr | None = None
    ctx_node: ast.expr | None = None
    lenient = True
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args:
        target = node.func.value
        if node.func.attr == "need" and _is_ctx(target):
            ctx_node, arg, lenient = target, node.args[0], False
        elif node.func.attr == "get" and isinstance(target, ast.Attribute) and _is_values(target):
            ctx_node, arg = target.value, node.args[0]
    elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and _is_values(node.value):
        ctx_node, arg = node.value.value, node.slice
    if ctx_node is not None and arg is not None:
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            got: tuple[str, ...] = (arg.value,)
        elif isinstance(arg, ast.Name) and arg.id in scope:
            got = scope[arg.id]
        else:
            raise _Any  # a name computed some other way
        names.update(got)
        if lenient:
            names.lenient.update(got)
        allowed.add(id(ctx_node))
    for child in ast.iter_child_nodes(node):
        _visit(child, scope, names, allowed)


def _is_ctx(node: ast.AST) -> bool:
    return isinstance(node, ast.Name) and node.id == "ctx"


def _is_values(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "values" and _is_ctx(node.value)


def _walk(node: Any, names: _Names, seen: set[int]) -> None:
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
