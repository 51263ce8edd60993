"""The one JSON mapping: every model to JSON and back, ``from_json(to_json(m)) == m``.

Models are dataclasses with type hints; the mapping is derived from the hints
once per type and cached, so there is no per-format JSON code to keep in step
with the binary codecs. The rules:

* ``int``, ``str``, ``bool``, ``float`` and ``None`` as themselves;
* ``bytes`` without structure as base64 text; a field declared with
  ``metadata={"json": "text"}`` (a magic number, an identifier) as its text
  when every byte is printable ASCII, else as ``{"base64": ...}``;
* an ``IntEnum`` as ``{"name": ..., "value": ...}`` (reading accepts the name,
  the number or that object); a ``str`` enum as its value;
* lists and tuples as arrays, ``dict[str, T]`` as objects;
* a dataclass as an object of its fields; a union of dataclasses tagged with
  a ``KIND`` class attribute as an object with a ``"kind"`` member;
* a class may take over with ``__json_encode__(self)`` and a classmethod
  ``__json_decode__(cls, obj, path)``; other types (numpy arrays) register a
  pair with :func:`register_type`; a dataclass may wrap its fast decoder with a
  classmethod ``__json_around__(cls, obj, decode, consuming)`` that sees the
  object before its fields are decoded and returns ``decode(obj)``; ``consuming``
  says whether the caller is about to build and drop the document
  (:func:`consuming`: a save then compresses its chunks while they are
  decoded, with the level its dump names after them).

Reading is strict, because a dump is something people edit by hand: a
missing field, an unknown field, a value of the wrong type, or a document
written by a newer savecraft is refused, with every problem listed by path,
and nothing is built. A field is optional only where its declaration says so,
with ``metadata={"optional": True}`` (it then takes its default when absent);
:func:`optional_fields` lists them for the docs, the one place they are named.

Reading runs in two passes, so that correct input pays nothing for error
reporting. The first pass is compiled per dataclass (generated code, like
attrs and cattrs do): it checks types inline, builds no paths and stops at
the first anomaly. Only then does the second pass walk the document again,
with paths, collecting every problem.

Big lists (a server save's 100,000 players) never exist whole as a
document: :func:`dumps` writes a list a custom encoder returns through
:func:`stream` one element at a time, and :func:`loads` parses the list of a
field whose type sets ``__json_stream__`` a piece at a time while decoding
it (falling back to the whole document and both passes when anything is
not right). :func:`record_encoder` and :func:`rows_encoder` give a codec
this mapping's JSON for records it reads, without building dataclasses.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import enum
import re
import threading
import types
import typing
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NoReturn, Union, get_args, get_origin, get_type_hints

import orjson

from .errors import FormatError, Problem
from .speed import gc_paused
from . import registry
from .errors import SavecraftError
from .layout.types import EightBitText
from .lazy import lazy_module
from .paths import from_dump_error

if TYPE_CHECKING:
    import resource
else:  # imported on first use (savecraft.lazy): start-up does not need them
    resource = lazy_module("resource")

Encode = Callable[[Any], Any]
Decode = Callable[[Any, str], Any]
Fast = Callable[[Any], Any]

_ENC: dict[Any, Encode] = {}
_DEC: dict[Any, Decode] = {}
_FAST: dict[Any, Fast] = {}
_SLOW: dict[Any, Decode] = {}
_CUSTOM: dict[type, tuple[Encode, Decode]] = {}

KIND = "kind"
MAX_PROBLEMS = 200
"""Problems listed for one document; the rest are counted in one line."""


def register_type(tp: type, encode: Encode, decode: Decode) -> None:
    """Map a non-dataclass type (e.g. ``numpy.ndarray``) to and from JSON."""
    _CUSTOM[tp] = (encode, decode)
    for cache in (_ENC, _DEC, _FAST, _SLOW):
        cache.pop(tp, None)


def _shown(found: Any) -> str:
    shown = repr(found)
    if len(shown) > 60:
        shown = shown[:57] + "..."
    return f"{type(found).__name__} {shown}"


def _bad(path: str, expected: str, found: Any) -> FormatError:
    """The error for one bad value (what custom decoders raise)."""
    return FormatError(None, path or "(top)", expected, _shown(found))


def _join(path: str, name: str) -> str:
    if name.startswith("["):
        return path + name
    return f"{path}.{name}" if path else name


# -- the problems of one document --------------------------------------------------------

class _Invalid(Exception):
    """The fast pass met something it does not accept: the careful pass says what."""


# The class, not one shared instance: an instance raised again and again keeps every traceback
# it was raised with (each raise adds to ``__traceback__``), and with them the frames and the
# half-built models they hold (the fuzzing harness ran out of memory on this).
_INVALID = _Invalid
_BAD: Any = type("_Bad", (), {"__repr__": lambda self: "<bad value>"})()
"""What the careful pass returns for a value with problems (they are recorded)."""

_state = threading.local()


def _collector() -> list[Problem] | None:
    return getattr(_state, "problems", None)


def _fail(path: str, expected: str, found: Any, *, shown: str | None = None) -> Any:
    """Record one problem while collecting (and return the bad marker); else raise it."""
    problem = Problem(None, path or "(top)", expected, shown if shown is not None else _shown(found))
    problems = _collector()
    if problems is None:
        raise FormatError(problem.offset, problem.path, problem.expected, problem.found)
    problems.append(problem)
    return _BAD


def _problem_count() -> int:
    problems = _collector()
    return 0 if problems is None else len(problems)


class _Collecting:
    """Within this, the careful pass records every problem instead of raising the first."""

    def __enter__(self) -> list[Problem]:
        self.outer = _collector()
        _state.problems = []
        return typing.cast(list[Problem], _state.problems)

    def __exit__(self, *exc: object) -> None:
        _state.problems = self.outer


def _raise_all(problems: list[Problem]) -> NoReturn:
    shown = problems[:MAX_PROBLEMS]
    if len(problems) > MAX_PROBLEMS:
        shown.append(Problem(None, "", f"... and {len(problems) - MAX_PROBLEMS} more problems", ""))
    first = shown[0]
    raise FormatError(first.offset, first.path, first.expected, first.found, problems=shown)


# -- scalars ---------------------------------------------------------------------------


def _ident(v: Any) -> Any:
    return v


def _dec_int(v: Any, path: str) -> Any:
    if type(v) is not int:
        if isinstance(v, int) and not isinstance(v, bool):
            return int(v)
        return _fail(path, "an integer", v)
    return v


def _dec_str(v: Any, path: str) -> Any:
    if not isinstance(v, str):
        if type(v) is dict and set(v) == {"text", "eight_bit"} and isinstance(v["text"], str) \
                and isinstance(v["eight_bit"], str):
            return _eight_bit(v["text"], v["eight_bit"], path)
        return _fail(path, "a string", v)
    return v


def _eight_bit(text: str, encoding: str, path: str) -> Any:
    """Text a game stored in an 8-bit encoding (``layout.EightBitText``), as dumped: written
    back in that encoding, so a dump rebuilds the same bytes."""
    try:
        text.encode(encoding)
    except (LookupError, UnicodeEncodeError):
        return _fail(path, f"text the encoding {encoding!r} can store", text)
    return EightBitText(text, encoding)


def _dec_bool(v: Any, path: str) -> Any:
    if not isinstance(v, bool):
        return _fail(path, "true or false", v)
    return v


def _dec_float(v: Any, path: str) -> Any:
    if isinstance(v, bool) or not isinstance(v, int | float):
        return _fail(path, "a number", v)
    return float(v)


def _dec_none(v: Any, path: str) -> Any:
    if v is not None:
        return _fail(path, "null", v)
    return None


def _enc_bytes(v: bytes) -> str:
    return base64.b64encode(v).decode("ascii")


def _dec_bytes(v: Any, path: str) -> Any:
    if not isinstance(v, str):
        return _fail(path, "base64 text", v)
    try:
        return base64.b64decode(v, validate=True)
    except (binascii.Error, ValueError):
        return _fail(path, "base64 text", v)


def _printable(v: bytes) -> bool:
    return v.isascii() and all(0x20 <= b < 0x7F for b in v)


def _enc_text_bytes(v: bytes) -> Any:
    return v.decode("ascii") if _printable(v) else {"base64": _enc_bytes(v)}


def _dec_text_bytes(v: Any, path: str) -> Any:
    if isinstance(v, str):
        if v.isascii():
            return v.encode("ascii")
        return _fail(path, "ASCII text, or {\"base64\": ...}", v)
    if isinstance(v, dict) and set(v) == {"base64"}:
        return _dec_bytes(v["base64"], _join(path, "base64"))
    return _fail(path, "ASCII text, or {\"base64\": ...}", v)


def _enum_codecs(tp: type[enum.Enum]) -> tuple[Encode, Decode]:
    if issubclass(tp, int):
        def enc(v: Any) -> Any:
            return {"name": v.name, "value": int(v)}

        def dec(v: Any, path: str) -> Any:
            raw = v
            if isinstance(v, dict):
                raw = v.get("value", v.get("name"))
            try:
                if isinstance(raw, str):
                    return tp[raw]
                if isinstance(raw, int) and not isinstance(raw, bool):
                    return tp(raw)
            except (KeyError, ValueError):
                pass
            names = ", ".join(f"{m.name} ({int(m.value)})" for m in tp)
            return _fail(path, f"one of {names}", v)
        return enc, dec

    def enc_s(v: Any) -> Any:
        return v.value

    def dec_s(v: Any, path: str) -> Any:
        try:
            return tp(v)
        except ValueError:
            return _fail(path, "one of " + ", ".join(repr(m.value) for m in tp), v)
    return enc_s, dec_s


# -- dataclasses -----------------------------------------------------------------------


def _json_fields(cls: type) -> list[dataclasses.Field[Any]]:
    return [f for f in dataclasses.fields(cls) if f.metadata.get("json", True) is not False]


def _is_optional_field(f: dataclasses.Field[Any]) -> bool:
    return bool(f.metadata.get("optional", False))


def _field_codecs(f: dataclasses.Field[Any], hint: Any) -> tuple[Encode, Decode]:
    if f.metadata.get("json") == "text":
        return _enc_text_bytes, _dec_text_bytes
    return encoder(hint), _slow(hint)


def _field_fast(f: dataclasses.Field[Any], hint: Any) -> Fast:
    if f.metadata.get("json") == "text":
        return _fast_of_slow(_dec_text_bytes)
    return _fast(hint)


def _dataclass_codecs(cls: type) -> tuple[Encode, Decode]:
    hints = get_type_hints(cls)
    fields = _json_fields(cls)
    names = [f.name for f in fields]
    name_set = frozenset(names)
    optional = frozenset(f.name for f in fields if _is_optional_field(f))
    decs: list[Decode] = []

    def dec(obj: Any, path: str) -> Any:
        if not isinstance(obj, dict):
            return _fail(path, f"an object ({cls.__name__})", obj)
        before = _problem_count()
        kwargs = {}
        for n, d in zip(names, decs):
            if n in obj:
                kwargs[n] = d(obj[n], _join(path, n))
            elif n not in optional:
                _fail(_join(path, n), f"the field {n!r} of {cls.__name__}", None,
                      shown="nothing (the field is missing)")
        for extra in sorted(set(obj) - name_set - {KIND}):
            _fail(_join(path, str(extra)), f"a field of {cls.__name__} ({', '.join(names)})", None,
                  shown="an unknown field")
        if _problem_count() != before:
            return _BAD
        try:
            return cls(**kwargs)
        except (TypeError, ValueError, AttributeError) as exc:
            if isinstance(exc, FormatError):
                for p in exc.problems:
                    _fail(p.path, p.expected, None, shown=p.found)
                return _BAD
            return _fail(path, f"a valid {cls.__name__}", None, shown=str(exc))

    # A recursive field meets this stand-in until the generated encoder exists.
    real: list[Encode] = []
    _ENC[cls] = lambda obj: real[0](obj)
    _SLOW[cls] = dec
    encs = []
    for f in fields:
        e, d = _field_codecs(f, hints[f.name])
        encs.append(e)
        decs.append(d)
    real.append(_generate_encoder(cls, names, encs))
    return real[0], dec


def _generate_encoder(cls: type, names: list[str], encs: list[Encode]) -> Encode:
    """``{"x": obj.x, "items": E1(obj.items), ...}`` as one generated function.

    Fields that encode as themselves are read with no call at all.
    """
    ns: dict[str, Any] = {}
    parts = _encoded_items(names, encs, [f"obj.{n}" for n in names], ns)
    lines = ["def enc(obj):"]
    if hasattr(cls, "__json_prepare__"):
        lines.append("    obj.__json_prepare__()")
    lines.append("    return {" + ", ".join(parts) + "}")
    fn: Encode = _define(lines, f"<jsonmap encoder of {cls.__name__}>", ns)
    return fn


def _encoded_items(names: list[str], encs: list[Encode], values: list[str],
                   ns: dict[str, Any]) -> list[str]:
    """The ``'name': value`` items of a generated dict display, each value through its encoder
    (bound as ``E<i>`` in ``ns``) unless that encoder is the identity."""
    parts = []
    for i, (n, e, v) in enumerate(zip(names, encs, values)):
        if e is _ident:
            parts.append(f"{n!r}: {v}")
        else:
            ns[f"E{i}"] = e
            parts.append(f"{n!r}: E{i}({v})")
    return parts


def _define(lines: list[str], title: str, ns: dict[str, Any]) -> Any:
    """The one function the generated ``lines`` define, compiled and run in ``ns``."""
    name = lines[0].removeprefix("def ").split("(")[0]
    exec(compile("\n".join(lines), title, "exec"), ns)
    return ns[name]


_SCALAR_CHECK = {int: "type({v}) is int", str: "type({v}) is str", bool: "type({v}) is bool"}


def _fast_dataclass_body(cls: type, ns: dict[str, Any], v: str, indent: str) -> tuple[list[str], str]:
    """Lines that check the object ``v`` and an expression that constructs ``cls`` from it.

    Nested decoders are named ``F<i>`` in ``ns`` and bound after generation,
    so recursive types need no special case.
    """
    hints = get_type_hints(cls)
    fields = _json_fields(cls)
    required = [f for f in fields if not _is_optional_field(f)]
    opt = [f for f in fields if _is_optional_field(f)]
    init_names = [f.name for f in dataclasses.fields(cls) if f.init]
    positional = not opt and init_names == [f.name for f in fields]
    lines = [f"if type({v}) is not dict:", "    raise _INVALID"]
    count = [str(len(required))] + [f"({f.name!r} in {v})" for f in opt]
    lines += [f"if len({v}) != {' + '.join(count)} + ({KIND!r} in {v}):", "    raise _INVALID"]
    args = []
    checks = []
    tmp = f"{v}_"
    for f in required:
        hint = hints[f.name]
        text = f.metadata.get("json") == "text"
        src = f"{v}[{f.name!r}]"
        if hint in _SCALAR_CHECK and not text:
            lines.append(f"{tmp}{f.name} = {src}")
            checks.append(_SCALAR_CHECK[hint].format(v=f"{tmp}{f.name}"))
            args.append(f"{tmp}{f.name}")
        elif hint is Any:
            args.append(src)
        else:
            key = f"F{len(ns)}"
            ns[key] = (f, hint)
            args.append(f"{key}({src})")
    if checks:
        lines += [f"if not ({' and '.join(checks)}):", "    raise _INVALID"]
    if not positional:
        args = [f"{f.name}={a}" for f, a in zip(required, args)]
        for f in opt:
            key = f"F{len(ns)}"
            ns[key] = (f, hints[f.name])
            args.append(f"**({{{f.name!r}: {key}({v}[{f.name!r}])}} if {f.name!r} in {v} else {{}})")
    return [indent + line for line in lines], f"_cls({', '.join(args)})"


def _bind(ns: dict[str, Any]) -> None:
    for key, value in list(ns.items()):
        if key.startswith("F") and isinstance(value, tuple):
            ns[key] = _field_fast(*value)


def _compile_fast_dataclass(cls: type) -> Fast:
    """The fast pass for one dataclass: inline checks of scalar fields, no paths, no collecting."""
    ns: dict[str, Any] = {"_cls": cls, "_INVALID": _INVALID}
    body, make = _fast_dataclass_body(cls, ns, "v", "    ")
    lines = ["def dec(v):", "  try:", *["  " + line for line in body],
             f"      return {make}",
             "  except (KeyError, TypeError, ValueError, AttributeError):",
             "      raise _INVALID from None"]
    fn: Fast = _define(lines, f"<jsonmap decoder of {cls.__name__}>", ns)
    around = getattr(cls, "__json_around__", None)
    if around is not None:  # the class sees its object first, and what was made of it
        inner = fn

        def fn(v: Any) -> Any:
            return around(v, inner, consuming())
    _FAST[cls] = fn
    _bind(ns)
    return fn


def _compile_fast_list(cls: type, make: type) -> Fast:
    """A list of one dataclass, with the item's checks inlined in the loop (the bulk of big saves)."""
    ns: dict[str, Any] = {"_cls": cls, "_INVALID": _INVALID, "_make": make}
    body, item = _fast_dataclass_body(cls, ns, "x", "          ")
    lines = ["def dec(v):",
             "  if type(v) is not list:",
             "      raise _INVALID",
             "  out = []",
             "  app = out.append",
             "  try:",
             "      for x in v:",
             *body,
             f"          app({item})",
             "  except (KeyError, TypeError, ValueError, AttributeError):",
             "      raise _INVALID from None",
             "  return out if _make is list else tuple(out)"]
    fn: Fast = _define(lines, f"<jsonmap decoder of list[{cls.__name__}]>", ns)
    _bind(ns)
    return fn


# -- unions and containers --------------------------------------------------------------


def _is_union(tp: Any) -> bool:
    return get_origin(tp) in (Union, types.UnionType)


def _union_parts(tp: Any) -> tuple[bool, list[Any]]:
    args = get_args(tp)
    return type(None) in args, [a for a in args if a is not type(None)]


def _tagged(tp: Any, rest: list[Any]) -> dict[Any, Any]:
    tagged = {getattr(a, "KIND", None): a for a in rest if dataclasses.is_dataclass(a)}
    if None in tagged or len(tagged) != len(rest):
        raise TypeError(f"union {tp} needs dataclasses with a KIND class attribute")
    return tagged


def _is_scalar_union(rest: list[Any]) -> bool:
    return all(a in (int, str, float, bool, bytes) for a in rest)


def _union_codecs(tp: Any) -> tuple[Encode, Decode]:
    optional, rest = _union_parts(tp)
    if len(rest) == 1:
        e1, d1 = encoder(rest[0]), _slow(rest[0])

        def enc_opt(v: Any) -> Any:
            return None if v is None else e1(v)

        def dec_opt(v: Any, path: str) -> Any:
            return None if v is None else d1(v, path)
        return enc_opt, dec_opt
    if _is_scalar_union(rest):
        return _scalar_union(rest, optional)
    tagged = _tagged(tp, rest)
    enc = _tagged_encoder({cls: (kind, encoder(cls)) for kind, cls in tagged.items()}, optional)
    decs = {kind: _slow(cls) for kind, cls in tagged.items()}

    def dec(v: Any, path: str) -> Any:
        if v is None and optional:
            return None
        if not isinstance(v, dict) or v.get(KIND) not in decs:
            return _fail(_join(path, KIND), "one of " + ", ".join(map(repr, decs)),
                         v.get(KIND) if isinstance(v, dict) else v)
        return decs[v[KIND]](v, path)
    return enc, dec


def _tagged_encoder(by_class: dict[type, tuple[str, Encode]], optional: bool) -> Encode:
    """A value of a union of dataclasses as its class's object with the ``"kind"`` first."""
    def enc(v: Any) -> Any:
        if v is None and optional:
            return None
        kind, e = by_class[type(v)]
        out = {KIND: kind}
        out.update(e(v))
        return out
    return enc


def _scalar_union(rest: list[Any], optional: bool) -> tuple[Encode, Decode]:
    def enc(v: Any) -> Any:
        return _enc_bytes(v) if isinstance(v, bytes) else v

    def dec(v: Any, path: str) -> Any:
        if v is None and optional:
            return None
        for a in rest:
            if a is not bytes and isinstance(v, a) and not (a is int and isinstance(v, bool)):
                return v
        return _fail(path, " or ".join(a.__name__ for a in rest), v)
    return enc, dec


def encoder(tp: Any) -> Encode:
    """``encode(value)``: the value as plain JSON values (dicts, lists, text, numbers).

    While :func:`dumps` runs, custom encoders that ask for an encoder get the
    one that leaves plain dataclasses to orjson instead (same JSON, made in C).
    """
    if getattr(_state, "dumping", False):
        return _dump_encoder(tp)
    return _plain_encoder(tp)


def _plain_encoder(tp: Any) -> Encode:
    try:
        return _ENC[tp]
    except (KeyError, TypeError):
        pass
    return _build(tp)[0]


def decoder(tp: Any) -> Decode:
    """``decode(value, path)``: fast when the value is right, every problem with its path when not.

    Outside :func:`from_json` the first problem raises FormatError.
    """
    fn: Decode = _cached(_DEC, tp, _public_decoder)
    return fn


def _public_decoder(tp: Any) -> Decode:
    fast, slow = _fast(tp), _slow(tp)

    def dec(v: Any, path: str) -> Any:
        try:
            return fast(v)
        except _Invalid:
            pass
        return slow(v, path)
    return dec


def _cached(cache: dict[Any, Any], tp: Any, make: Callable[[Any], Any]) -> Any:
    """The cache's entry for a type hint, made on first use (an unhashable hint: made each time)."""
    try:
        return cache[tp]
    except KeyError:
        pass
    except TypeError:
        return make(tp)
    made = make(tp)
    cache[tp] = made
    return made


def _slow(tp: Any) -> Decode:
    try:
        return _SLOW[tp]
    except (KeyError, TypeError):
        pass
    return _build(tp)[1]


def _build(tp: Any) -> tuple[Encode, Decode]:
    codecs = _make(tp)
    try:
        _ENC[tp], _SLOW[tp] = codecs
    except TypeError:
        pass
    return codecs


def _custom_slow(fn: Decode) -> Decode:
    """A hand-written decoder in the careful pass: its FormatError becomes recorded problems."""
    def dec(v: Any, path: str) -> Any:
        before = _problem_count()
        try:
            return fn(v, path)
        except FormatError as exc:
            if _collector() is None:
                raise
            for p in exc.problems:
                _fail(p.path, p.expected, None, shown=p.found)
            return _BAD
        except (TypeError, ValueError, AttributeError, KeyError) as exc:
            if _problem_count() != before:  # it tripped over a bad value already reported
                return _BAD
            return _fail(path, "a valid value", None, shown=f"{type(exc).__name__}: {exc}")
    return dec


def _make(tp: Any) -> tuple[Encode, Decode]:
    if tp is Any:
        return _ident, lambda v, p: v
    if tp is int:
        return _ident, _dec_int
    if tp is str:
        return _ident, _dec_str
    if tp is bool:
        return _ident, _dec_bool
    if tp is float:
        return _ident, _dec_float
    if tp is type(None):
        return _ident, _dec_none
    if tp is bytes:
        return _enc_bytes, _dec_bytes
    if isinstance(tp, type):
        for base in tp.__mro__:
            if base in _CUSTOM:
                e_custom, d_custom = _CUSTOM[base]
                return e_custom, _custom_slow(d_custom)
        if hasattr(tp, "__json_encode__"):
            def enc_c(v: Any) -> Any:
                return v.__json_encode__()
            return enc_c, _custom_slow(tp.__json_decode__)  # type: ignore[attr-defined]
        if issubclass(tp, enum.Enum):
            return _enum_codecs(tp)
        if dataclasses.is_dataclass(tp):
            return _dataclass_codecs(tp)
    if _is_union(tp):
        return _union_codecs(tp)
    origin = get_origin(tp)
    args = get_args(tp)
    if origin is typing.Literal:
        allowed = args

        def dec_lit(v: Any, path: str) -> Any:
            if v not in allowed:
                return _fail(path, "one of " + ", ".join(map(repr, allowed)), v)
            return v
        return _ident, dec_lit
    if origin in (list, tuple) and (origin is list or (len(args) == 2 and args[1] is Ellipsis)):
        item = args[0]
        e, d = encoder(item), _slow(item)
        make = list if origin is list else tuple
        if e is _ident:
            def enc_seq(v: Any) -> Any:
                return list(v)
        else:
            def enc_seq(v: Any) -> Any:
                return [e(x) for x in v]

        def dec_seq(v: Any, path: str) -> Any:
            if not isinstance(v, list):
                return _fail(path, "an array", v)
            return make(d(x, f"{path}[{i}]") for i, x in enumerate(v))
        return enc_seq, dec_seq
    if origin is tuple:
        es = [encoder(a) for a in args]
        ds = [_slow(a) for a in args]

        def enc_tup(v: Any) -> Any:
            return [e(x) for e, x in zip(es, v)]

        def dec_tup(v: Any, path: str) -> Any:
            if not isinstance(v, list) or len(v) != len(ds):
                return _fail(path, f"an array of {len(ds)} values", v)
            return tuple(d(x, f"{path}[{i}]") for i, (d, x) in enumerate(zip(ds, v)))
        return enc_tup, dec_tup
    if origin is dict:
        kd, vd = _slow(args[0]), _slow(args[1])
        ve = encoder(args[1])

        def enc_map(v: Any) -> Any:
            return {str(k): ve(x) for k, x in v.items()}

        def dec_map(v: Any, path: str) -> Any:
            if not isinstance(v, dict):
                return _fail(path, "an object", v)
            return {kd(k, path): vd(x, _join(path, str(k))) for k, x in v.items()}
        return enc_map, dec_map
    raise TypeError(f"no JSON mapping for {tp!r}")


# -- the fast pass ---------------------------------------------------------------------


def _fast_of_slow(slow: Decode) -> Fast:
    """A fast decoder from a careful one: any problem is just 'not accepted here'."""
    def fast(v: Any) -> Any:
        if _collector() is not None:  # careful pass running: this value gets its own path there
            raise _INVALID
        try:
            return slow(v, "")
        except FormatError:
            raise _INVALID from None
        except (TypeError, ValueError, AttributeError, KeyError):
            raise _INVALID from None
    return fast


def _fast(tp: Any) -> Fast:
    fn: Fast = _cached(_FAST, tp, _make_fast)
    return fn


def _f_exact(tp: type) -> Fast:
    """The fast check of a scalar: exactly this type (a bool is not an int here)."""
    def check(v: Any) -> Any:
        if type(v) is tp:
            return v
        raise _INVALID
    return check


def _f_float(v: Any) -> Any:
    if type(v) is float:
        return v
    if type(v) is int:
        return float(v)
    raise _INVALID


def _f_bytes(v: Any) -> Any:
    if type(v) is not str:
        raise _INVALID
    try:
        return base64.b64decode(v, validate=True)
    except (binascii.Error, ValueError):
        raise _INVALID from None


_SCALAR_FAST: dict[Any, Fast] = {int: _f_exact(int), str: _f_exact(str), bool: _f_exact(bool),
                                  float: _f_float, bytes: _f_bytes}
_EXACT: dict[Any, type] = {int: int, str: str, bool: bool}


def _make_fast(tp: Any) -> Fast:
    if tp is Any:
        return _ident
    if tp in _SCALAR_FAST:
        return _SCALAR_FAST[tp]
    if isinstance(tp, type):
        if _custom(tp) or issubclass(tp, enum.Enum) or tp is type(None):
            return _fast_of_slow(_slow(tp))
        if dataclasses.is_dataclass(tp):
            return _compile_fast_dataclass(tp)
    if _is_union(tp):
        optional, rest = _union_parts(tp)
        if len(rest) == 1:
            f1 = _fast(rest[0])

            def f_opt(v: Any) -> Any:
                return None if v is None else f1(v)
            return f_opt
        if _is_scalar_union(rest):
            return _fast_of_slow(_slow(tp))
        tagged = _tagged(tp, rest)
        fasts = {kind: _fast(cls) for kind, cls in tagged.items()}

        def f_union(v: Any) -> Any:
            if v is None and optional:
                return None
            if type(v) is not dict:
                raise _INVALID
            f = fasts.get(v.get(KIND))
            if f is None:
                raise _INVALID
            return f(v)
        return f_union
    origin = get_origin(tp)
    args = get_args(tp)
    if origin in (list, tuple) and (origin is list or (len(args) == 2 and args[1] is Ellipsis)):
        item = args[0]
        make = list if origin is list else tuple
        exact = _EXACT.get(item)
        if exact is not None:
            def f_scalars(v: Any) -> Any:
                if type(v) is not list:
                    raise _INVALID
                for x in v:
                    if type(x) is not exact:
                        raise _INVALID
                return make(v)
            return f_scalars
        if isinstance(item, type) and dataclasses.is_dataclass(item) and not _custom(item):
            return _compile_fast_list(item, make)
        f = _fast(item)
        if make is list:
            def f_list(v: Any) -> Any:
                if type(v) is not list:
                    raise _INVALID
                return [f(x) for x in v]
            return f_list

        def f_tuple(v: Any) -> Any:
            if type(v) is not list:
                raise _INVALID
            return tuple([f(x) for x in v])
        return f_tuple
    return _fast_of_slow(_slow(tp))


# -- encoding for dumps: plain dataclasses left to orjson ----------------------------------

_DUMP: dict[Any, Encode] = {}
_NATIVE: dict[Any, bool] = {}


def _native(tp: Any) -> bool:
    """True when orjson writes ``tp`` exactly as this mapping does (so it may do it, in C).

    That holds for ints, text, booleans, floats, lists of those, and plain
    dataclasses made only of them: every field in the JSON, no custom hooks,
    no enums, no bytes.
    """
    try:
        return _NATIVE[tp]
    except KeyError:
        pass
    except TypeError:
        return False
    _NATIVE[tp] = False  # a recursive type is not native (orjson would recurse too)
    result = _is_native(tp)
    _NATIVE[tp] = result
    return result


def _is_native(tp: Any) -> bool:
    if tp in (int, str, bool, float, type(None)):
        return True
    if _is_union(tp):
        optional, rest = _union_parts(tp)
        return optional and len(rest) == 1 and _native(rest[0])
    origin, args = get_origin(tp), get_args(tp)
    if origin in (list, tuple) and (origin is list or (len(args) == 2 and args[1] is Ellipsis)):
        return _native(args[0])
    if not (isinstance(tp, type) and dataclasses.is_dataclass(tp)):
        return False
    if _custom(tp) or hasattr(tp, "__json_prepare__"):
        return False
    hints = get_type_hints(tp)
    return all(f.metadata.get("json", True) is True and _native(hints[f.name])
               for f in dataclasses.fields(tp))


def _custom(tp: type) -> bool:
    """A type that encodes itself (``__json_encode__``) or has a registered pair."""
    return hasattr(tp, "__json_encode__") or any(base in _CUSTOM for base in tp.__mro__)


def _dump_encoder(tp: Any) -> Encode:
    fn: Encode = _cached(_DUMP, tp, _make_dump)
    return fn


def _make_dump(tp: Any) -> Encode:
    if _native(tp):
        return _ident
    if isinstance(tp, type) and dataclasses.is_dataclass(tp) and not _custom(tp):
        return _dump_dataclass(tp)
    if _is_union(tp):
        optional, rest = _union_parts(tp)
        if len(rest) == 1:
            e1 = _dump_encoder(rest[0])
            return lambda v: None if v is None else e1(v)
        if not _is_scalar_union(rest):
            return _tagged_encoder(
                {cls: (kind, _plain_encoder(cls) if _custom(cls) else _dump_dataclass(cls))
                 for kind, cls in _tagged(tp, rest).items()}, optional)
    origin, args = get_origin(tp), get_args(tp)
    if origin in (list, tuple) and (origin is list or (len(args) == 2 and args[1] is Ellipsis)):
        e = _dump_encoder(args[0])
        return lambda v: [e(x) for x in v]
    return _plain_encoder(tp)


def _dump_dataclass(cls: type) -> Encode:
    """A dataclass as a dict (never left to orjson whole: a tagged union adds its "kind")."""
    key = ("dict", cls)
    try:
        return _DUMP[key]
    except KeyError:
        pass
    real: list[Encode] = []
    _DUMP[key] = lambda obj: real[0](obj)
    hints = get_type_hints(cls)
    fields = _json_fields(cls)
    encs = [_enc_text_bytes if f.metadata.get("json") == "text" else _dump_encoder(hints[f.name])
            for f in fields]
    real.append(_generate_encoder(cls, [f.name for f in fields], encs))
    _DUMP[key] = real[0]
    return real[0]


# -- documents -----------------------------------------------------------------------

SCHEMA_VERSION = 1


def optional_fields(cls: type) -> list[str]:
    """The fields of a model class that a dump may leave out (declared ``metadata={"optional": True}``)."""
    return [f.name for f in _json_fields(cls) if _is_optional_field(f)]


def to_json(model: Any) -> dict[str, Any]:
    """The whole model as a JSON-ready dict that names its format."""
    fmt = registry.for_model(model)
    return {"format": fmt.name, "savecraft": SCHEMA_VERSION, "data": encoder(type(model))(model)}


def _envelope(doc: Any) -> Any:
    """The format of a dump, after checking its envelope; every problem of it raised together."""
    problems: list[Problem] = []

    def bad(path: str, expected: str, found: str) -> None:
        problems.append(Problem(None, path, expected, found))

    if not isinstance(doc, dict):
        raise _bad("", 'an object with "format", "savecraft" and "data" (a savecraft dump)', doc)
    fmt = None
    name = doc.get("format")
    if name is None:
        bad("format", "the name of the dump's format", "nothing (the field is missing)")
    elif not isinstance(name, str):
        bad("format", "the name of the dump's format", _shown(name))
    else:
        try:
            fmt = registry.get(name)
        except SavecraftError as exc:
            bad("format", "the name of a known format", str(exc))
    version = doc.get("savecraft")
    if version is None:
        bad("savecraft", f"the dump's version (this savecraft reads up to {SCHEMA_VERSION})",
            "nothing (the field is missing)")
    elif type(version) is not int or version < 1:
        bad("savecraft", "a dump version (a whole number from 1)", _shown(version))
    elif version > SCHEMA_VERSION:
        bad("savecraft", f"a dump version this savecraft reads (up to {SCHEMA_VERSION})",
            f"{version}: the dump was written by a newer savecraft")
    if "data" not in doc:
        bad("data", "the model's data", "nothing (the field is missing)")
    for extra in sorted(set(doc) - {"format", "savecraft", "data"}):
        bad(str(extra), 'a member of a dump ("format", "savecraft", "data")', "an unknown member")
    if problems:
        _raise_all(problems)
    return fmt


def from_json(doc: Any, *, consume: bool = False) -> Any:
    """The model of a dump; FormatError listing every problem (by path) when it is not right.

    Paths count from the model (``chunks[2].entity.x``), as dumps, ``edit``
    and error messages everywhere name them. ``consume`` lets decoders
    replace the document's parts by what they built as they go (see
    :func:`consuming`): for a caller that drops the document afterwards and
    wants the document and the model not to be whole at the same time.
    """
    outer, _state.consume = consuming(), consume
    try:
        return _from_json(doc)
    finally:
        _state.consume = outer


def consuming() -> bool:
    """Whether the document being decoded may be taken apart as it is decoded.

    A custom ``__json_decode__`` of a large list may then put what it built
    in place of each element (and must accept such elements on a second pass).
    """
    return bool(getattr(_state, "consume", False))


def _from_json(doc: Any) -> Any:
    fmt = _envelope(doc)
    data = doc["data"]
    with gc_paused():  # hundreds of thousands of new objects, none of them garbage
        try:
            return _fast(fmt.model)(data)
        except _Invalid:
            pass
        with _Collecting() as problems:
            model = _slow(fmt.model)(data, "")
    if problems:
        try:
            _raise_all(problems)
        except FormatError as err:
            raise from_dump_error(err, doc, fmt.model) from None
    if model is _BAD:  # cannot happen: a bad value always comes with its problem
        raise _bad("", f"a {fmt.name} dump", data)
    return model


def dumps(model: Any, *, indent: bool = True, confirm: bool = False) -> bytes:
    """The dump's text: :func:`to_json`, serialised, with plain dataclasses written by orjson itself.

    ``confirm`` asks models that record how their file was compressed to
    check that record against the whole stream, not a prefix (see
    :func:`confirming`). The text is :func:`dump_pieces` joined; a command
    writing to a stream writes the pieces as they come instead.
    """
    return b"".join(dump_pieces(model, indent=indent, confirm=confirm))


def dump_pieces(model: Any, *, indent: bool = True, confirm: bool = False) -> typing.Iterator[bytes]:
    """The dump's text in pieces: orjson is never given more than one small value at a time.

    orjson aborts the process (SIGSEGV) when an allocation fails, where
    Python raises MemoryError: a whole big document in one call turned
    "out of memory" into a crash (a 64 MiB game's movie, a server save's
    text). Here the objects and lists the encoders made are walked in
    Python and only their small members go to orjson, one call each; a
    long string (an asset's base64) is written without orjson at all; and
    :func:`memory_headroom` is checked as the pieces add up, so memory
    running out under an address-space limit (``ulimit -v``) is a
    MemoryError that the command line answers as ``out of memory``.
    The text is byte for byte what one ``orjson.dumps`` call writes.
    """
    fmt = registry.for_model(model)
    outer = getattr(_state, "dumping", False), confirming()
    _state.dumping, _state.confirm = True, confirm
    try:
        memory_headroom()
        # Many new dicts, none of them garbage until their text is made;
        # they are freed before the collector is back, so it never walks them.
        with gc_paused():
            doc = {"format": fmt.name, "savecraft": SCHEMA_VERSION,
                   "data": _dump_encoder(type(model))(model)}
            writer = _PieceWriter(indent)
            yield from writer.pieces(doc, b"\n")
            yield b"\n"
    finally:
        _state.dumping, _state.confirm = outer


_BIG_STRING = 1 << 20
"""A string this long is written without orjson (after a headroom check)."""

_WALK_DEPTH = 12
"""Below this depth an object or list goes to orjson whole (dumps nest less deeply than this)."""


def _whole(obj: Any) -> Any:
    if type(obj) is Streamed:
        return list(obj.items)
    return _subclass(obj)


def _subclass(obj: Any) -> Any:
    """A subclass of a JSON type, which orjson hands over (OPT_PASSTHROUGH_SUBCLASS): 8-bit
    text (``layout.EightBitText``) as ``{"text", "eight_bit"}``, so that its bytes survive a
    dump; any other as its base type, as orjson writes it by default."""
    if isinstance(obj, str):
        encoding = getattr(obj, "encoding", None)
        return {"text": str(obj), "eight_bit": encoding} if isinstance(encoding, str) else str(obj)
    if isinstance(obj, int):
        return bool(obj) if isinstance(obj, bool) else int(obj)
    if isinstance(obj, float):
        return float(obj)
    if isinstance(obj, dict):
        return dict(obj)
    if isinstance(obj, (list, tuple)):
        return list(obj)
    raise TypeError(f"{type(obj).__name__} is not JSON")


# What a dump of models passes orjson: subclasses of JSON types come to ``default``.
DUMP_DEFAULT = _whole
DUMP_OPTIONS = orjson.OPT_PASSTHROUGH_SUBCLASS


class _PieceWriter:
    """Writes a document as orjson would, with OPT_INDENT_2 or compact, a member at a time."""

    __slots__ = ("indent", "opts", "made")

    def __init__(self, indent: bool) -> None:
        self.indent = indent
        self.opts = (orjson.OPT_INDENT_2 if indent else 0) | DUMP_OPTIONS
        self.made = 0

    def _leaf(self, obj: Any, newline: bytes) -> bytes:
        text = orjson.dumps(obj, default=_whole, option=self.opts)
        self.made += len(text)
        if self.made > _CHECK_EVERY:
            memory_headroom()
            self.made = 0
        return text.replace(b"\n", newline) if self.indent and len(text) > 1 else text

    def _flat(self, values: typing.Iterable[Any]) -> bool:
        """True when no member needs a walk of its own (orjson writes the whole in one small call)."""
        for v in values:
            t = type(v)
            if t is dict or t is list or t is Streamed or (t is str and len(v) >= _BIG_STRING):
                return False
        return True

    def _string(self, s: str) -> typing.Iterator[bytes]:
        if s.isascii() and s.isprintable() and '"' not in s and "\\" not in s:
            yield b'"'
            yield s.encode("ascii")  # (base64: nothing to escape)
            yield b'"'
            return
        memory_headroom(_HEADROOM + 6 * len(s))
        yield orjson.dumps(s)

    def pieces(self, obj: Any, newline: bytes, depth: int = 0) -> typing.Iterator[bytes]:
        """``obj`` as JSON text; ``newline`` is a line break and the indentation at its depth."""
        t = type(obj)
        if t is str and len(obj) >= _BIG_STRING:
            yield from self._string(obj)
            return
        if t is Streamed:
            yield from self._items(obj.items, newline, depth, streamed=True)
            return
        if (t is not dict and t is not list) or depth >= _WALK_DEPTH or not obj:
            yield self._leaf(obj, newline)
            return
        if self._flat(obj.values() if t is dict else obj):
            yield self._leaf(obj, newline)
            return
        if t is list:
            yield from self._items(obj, newline, depth, streamed=False)
            return
        inner = newline + b"  " if self.indent else b""
        colon = b": " if self.indent else b":"
        sep = b"," + inner
        first = True
        for k, v in obj.items():
            yield (b"{" + inner if first else sep) + orjson.dumps(k) + colon
            yield from self.pieces(v, inner, depth + 1)
            first = False
        yield (newline if self.indent else b"") + b"}"

    def _items(self, items: typing.Iterable[Any], newline: bytes, depth: int,
               streamed: bool) -> typing.Iterator[bytes]:
        inner = newline + b"  " if self.indent else b""
        sep = b"," + inner
        first = True
        for item in items:
            yield b"[" + inner if first else sep
            if streamed and type(item) is not Streamed and type(item) is not str:
                yield self._leaf(item, inner)  # a streamed list's elements are small: one call each
            else:
                yield from self.pieces(item, inner, depth + 1)
            first = False
        yield b"[]" if first else (newline if self.indent else b"") + b"]"


_HEADROOM = 32 << 20
"""Address space kept free for orjson's own allocations (the largest piece is one list element)."""

_CHECK_EVERY = 1 << 20
"""Bytes of pieces between two checks of the headroom (reading /proc costs a few microseconds)."""


def memory_headroom(reserve: int = _HEADROOM) -> None:
    """Raise MemoryError when the address-space limit (``ulimit -v``) leaves less than ``reserve``.

    With no limit there is nothing to check (the kernel's overcommit
    decides); with one, this is what lets a dump stop with an error instead
    of a native library dying of a failed allocation.
    """
    soft = resource.getrlimit(resource.RLIMIT_AS)[0]
    if soft == resource.RLIM_INFINITY:
        return
    try:
        with open("/proc/self/statm", "rb") as fh:
            used = int(fh.read().split()[0]) * resource.getpagesize()
    except (OSError, ValueError, IndexError):
        return
    if soft - used < reserve:
        raise MemoryError(f"{(soft - used) >> 20} MiB of address space left")


class Streamed:
    """A big list a dump writes element by element: each element's JSON is made,
    written and let go before the next (see :func:`stream`)."""

    __slots__ = ("items",)

    def __init__(self, items: typing.Iterable[Any]) -> None:
        self.items = items


def stream(items: typing.Iterable[Any]) -> Any:
    """What a custom ``__json_encode__`` returns for a big list of JSON-ready values.

    Within :func:`dumps` the elements are serialised one at a time into the
    text (the same text as for a list: never the whole document in memory,
    each element's objects used while they are in the cache); elsewhere
    (:func:`to_json`) it is the list.
    """
    if getattr(_state, "dumping", False):
        return Streamed(items)
    return list(items)


def confirming() -> bool:
    """Whether the dump being written was asked to confirm its compression levels in full.

    A model's ``__json_prepare__`` reads it: finding the level that reproduces
    a compressed stream compares a prefix by default, the whole stream when asked.
    """
    return bool(getattr(_state, "confirm", False))


# -- JSON values straight from a codec's records -----------------------------------------


def record_encoder(cls: type, *, tagged: bool = False) -> Callable[..., dict[str, Any]]:
    """``f(*values)``: the JSON object of ``cls`` from its field values, in field order.

    For codecs that read a record and want its JSON without building the
    dataclass (a dump of 100,000 players). The keys, their order and the
    encoding of each value are this mapping's: a field whose type JSON holds
    as it is (numbers, text, lists of them, plain dataclasses) takes the
    value as given, already JSON-ready (an object as a dict); the others
    (bytes, enumerations) go through the field's encoder. ``tagged`` puts
    the ``"kind"`` first, as in a union of chunks.
    """
    fn: Callable[..., dict[str, Any]] = _cached(_DUMP, ("record", cls, tagged),
                                                lambda key: _make_record_encoder(cls, tagged))
    return fn


def _make_record_encoder(cls: type, tagged: bool) -> Callable[..., dict[str, Any]]:
    hints = get_type_hints(cls)
    fields = _json_fields(cls)
    ns: dict[str, Any] = {}
    params = [f"a{i}" for i in range(len(fields))]
    encs = [_enc_text_bytes if f.metadata.get("json") == "text"
            else _ident if _native(hints[f.name]) else _plain_encoder(hints[f.name])
            for f in fields]
    parts = _encoded_items([f.name for f in fields], encs, params, ns)
    if tagged:
        parts.insert(0, f"{KIND!r}: {getattr(cls, 'KIND')!r}")
    fn: Callable[..., dict[str, Any]] = _define(
        [f"def enc({', '.join(params)}):", f"    return {{{', '.join(parts)}}}"],
        f"<jsonmap record encoder of {cls.__name__}>", ns)
    return fn


def strict_decoder(tp: Any) -> Callable[[Any], Any]:
    """``decode(value)``: the model of a JSON value that is entirely right, else None.

    The fast pass of :func:`decoder` alone, for codecs that go from a dump's
    object straight to their bytes and leave anything not right to the careful
    path (which names every problem by its path).
    """
    fast = _fast(tp)

    def dec(v: Any) -> Any:
        try:
            return fast(v)
        except _Invalid:
            return None
    return dec


def rows_encoder(cls: type) -> Callable[..., list[dict[str, Any]]]:
    """``f(*columns)``: a list of ``cls`` as JSON, from one sequence per field (in field order).

    The list form of :func:`record_encoder` for records of plain values (an
    inventory's items): one comprehension, no call per item.
    """
    fn: Callable[..., list[dict[str, Any]]] = _cached(_DUMP, ("rows", cls),
                                                      lambda key: _make_rows_encoder(cls))
    return fn


def _make_rows_encoder(cls: type) -> Callable[..., list[dict[str, Any]]]:
    hints = get_type_hints(cls)
    fields = _json_fields(cls)
    if not all(_native(hints[f.name]) and f.metadata.get("json", True) is True for f in fields):
        raise TypeError(f"rows_encoder: {cls.__name__} has fields JSON does not hold as they are")
    names = [f"a{i}" for i in range(len(fields))]
    item = ", ".join(f"{f.name!r}: {n}" for f, n in zip(fields, names))
    cols = ", ".join(f"c{i}" for i in range(len(fields)))
    head, loop = ((cols, f"{', '.join(names)} in zip({cols})") if len(fields) > 1
                  else ("c0", "a0 in c0"))
    fn: Callable[..., list[dict[str, Any]]] = _define(
        [f"def enc({head}):", f"    return [{{{item}}} for {loop}]"],
        f"<jsonmap rows encoder of {cls.__name__}>", {})
    return fn


def syntax_error(exc: orjson.JSONDecodeError) -> FormatError:
    """A JSON syntax error as a person finds it in an editor: by line and column.

    orjson reports a parse buffer it could not allocate as a decode error
    ("Not enough memory..."): that is memory running out, not a mistake
    in the text, and is raised as MemoryError (the CLI's "out of memory").
    """
    if "memory" in exc.msg.lower():
        raise MemoryError(f"cannot parse the JSON: {exc.msg}")
    return FormatError(None, f"line {exc.lineno}, column {exc.colno}", "valid JSON", exc.msg)


def parse_text(text: bytes | str) -> Any:
    """JSON text to Python values; a syntax error is a FormatError naming its line and column.

    With the collector paused: a big dump is a million new dicts and lists,
    and a collection started while they are being made walks all of them
    again and again (half the time of parsing a 50 MB dump). A caller that
    decodes the document next keeps it paused across both (:func:`loads`);
    otherwise the collector walks the document once when it resumes.
    """
    try:
        with gc_paused():
            return orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        raise syntax_error(exc) from None


def loads(text: bytes | str) -> Any:
    """The model of a dump's text (``savecraft build``'s path), with the collector paused.

    A big dump whose model opts in (a list type with ``__json_stream__``, the
    chunks of a server save) is read piece by piece: its big array is parsed
    a megabyte at a time while the model is built, so the parsed document
    never exists whole (orjson's peak for a whole document is about four
    times its text). If anything in it is not right, or the text is not laid
    out one element per indented block, the whole text is parsed and decoded
    the ordinary way, which names every problem by its path.
    """
    with gc_paused():
        if isinstance(text, bytes) and len(text) >= STREAM_MIN:
            doc = _streamed(text)
            if doc is not None:
                outer, _state.consume = consuming(), True
                try:
                    return _fast(_envelope(doc).model)(doc["data"])
                except (_Invalid, FormatError, orjson.JSONDecodeError):
                    pass
                finally:
                    _state.consume = outer
                del doc
        return from_json(parse_text(text), consume=True)


# -- reading a big array of a dump piece by piece ------------------------------------------

STREAM_MIN = 8 << 20
"""Dumps shorter than this are parsed whole."""
_PIECE_TEXT = 1 << 20
_BIG_ARRAY = re.compile(rb'\n( *)"([A-Za-z_][A-Za-z0-9_]*)": \[\n')
_HOLE = "\0savecraft: parsed piece by piece\0"


class _Pieces(list[Any]):
    """A dump's big array, parsed a piece at a time as it is iterated (the list itself is
    empty: only the element being decoded and its piece's neighbours exist at once)."""

    __slots__ = ("_text", "_spans")

    def __init__(self, text: bytes, spans: list[tuple[int, int]]) -> None:
        super().__init__()
        self._text = text
        self._spans = spans

    def __iter__(self) -> typing.Iterator[Any]:
        text = self._text
        for a, b in self._spans:
            yield from orjson.loads(b"".join((b"[", text[a:b], b"]")))


def _streamed(text: bytes) -> Any:
    """The dump with its big array as :class:`_Pieces`, or None when it cannot be split.

    The split relies on JSON's own rule that a string holds no raw newline:
    every line break is between values, so an indented dump's array of
    objects can be cut after the lines that close an element (``},`` at the
    elements' indentation). Every piece must parse on its own as the
    elements it holds, and the rest of the document with the array taken
    out must parse too and hold the hole where the array was: a cut anywhere
    but between two elements leaves a piece that does not parse.
    """
    for k, m in enumerate(_BIG_ARRAY.finditer(text)):
        if k >= 4:
            return None
        indent, key = m.group(1), m.group(2).decode("ascii")
        start = m.end() - 1  # the line break after "["
        # The first array's end is searched from the end of the text: a forward search for
        # this short, indented line stumbles over every line break of the array (0.17 s for a
        # 50 MB dump, 1.7x loading its save). Were a later array at the same indentation found
        # instead, the last piece would not parse, and the whole text would then be parsed the
        # ordinary way (a server save's chunks are the last array of the dump at their depth).
        close = b"\n" + indent + b"]"
        end = text.rfind(close, start) if k == 0 else text.find(close, start)
        if end < 0 or end - start < len(text) // 2:
            continue
        first = text[start + 1 : text.find(b"\n", start + 1)]
        inner = first[: len(first) - len(first.lstrip(b" "))]
        if first.strip() != b"{" or len(inner) <= len(indent):
            return None
        cut = b"\n" + inner + b"},"
        spans = []
        pos = start
        while True:
            at = text.find(cut, pos + _PIECE_TEXT, end)
            if at < 0:
                spans.append((pos, end))
                break
            spans.append((pos, at + len(cut) - 1))  # the element's "}", not the comma
            pos = at + len(cut)
        try:
            doc = orjson.loads(b"".join((text[:start], orjson.dumps(_HOLE), text[end:])))
            data = doc["data"]
            if data[key] != [_HOLE]:
                return None
            model = registry.get(str(doc["format"])).model
            hint = get_type_hints(model).get(key)
        except (orjson.JSONDecodeError, KeyError, TypeError, SavecraftError):
            return None
        if not getattr(hint, "__json_stream__", False):
            return None
        data[key] = _Pieces(text, spans)
        return doc
    return None
