"""The one JSON mapping: every model to JSON and back, ``from_json(to_json(m)) == m``.

Models are dataclasses with type hints; the mapping is derived from the hints
once per type and cached, so there is no per-format JSON code to keep in step
with the binary codecs. The rules:

* ``int``, ``str``, ``bool``, ``float`` and ``None`` as themselves;
* ``bytes`` without structure as base64 text;
* an ``IntEnum`` as ``{"name": ..., "value": ...}`` (reading accepts the name,
  the number or that object); a ``str`` enum as its value;
* lists and tuples as arrays, ``dict[str, T]`` as objects;
* a dataclass as an object of its fields; a union of dataclasses tagged with
  a ``KIND`` class attribute as an object with a ``"kind"`` member;
* a class may take over with ``__json_encode__(self)`` and a classmethod
  ``__json_decode__(cls, obj, path)``; other types (numpy arrays) register a
  pair with :func:`register_type`.

Reading checks every value against its hint and raises
:class:`~savecraft.errors.FormatError` with the JSON path of the bad value.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import enum
import types
import typing
from collections.abc import Callable
from typing import Any, Union, get_args, get_origin, get_type_hints

import orjson

from .errors import FormatError

Encode = Callable[[Any], Any]
Decode = Callable[[Any, str], Any]

_ENC: dict[Any, Encode] = {}
_DEC: dict[Any, Decode] = {}
_CUSTOM: dict[type, tuple[Encode, Decode]] = {}

KIND = "kind"


def register_type(tp: type, encode: Encode, decode: Decode) -> None:
    """Map a non-dataclass type (e.g. ``numpy.ndarray``) to and from JSON."""
    _CUSTOM[tp] = (encode, decode)
    _ENC.pop(tp, None)
    _DEC.pop(tp, None)


def _bad(path: str, expected: str, found: Any) -> FormatError:
    shown = repr(found)
    if len(shown) > 60:
        shown = shown[:57] + "..."
    return FormatError(None, path or "(top)", expected, f"{type(found).__name__} {shown}")


def _join(path: str, name: str) -> str:
    if name.startswith("["):
        return path + name
    return f"{path}.{name}" if path else name


# -- scalars ---------------------------------------------------------------------------


def _ident(v: Any) -> Any:
    return v


def _dec_int(v: Any, path: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise _bad(path, "an integer", v)
    return v


def _dec_str(v: Any, path: str) -> str:
    if not isinstance(v, str):
        raise _bad(path, "a string", v)
    return v


def _dec_bool(v: Any, path: str) -> bool:
    if not isinstance(v, bool):
        raise _bad(path, "true or false", v)
    return v


def _dec_float(v: Any, path: str) -> float:
    if isinstance(v, bool) or not isinstance(v, int | float):
        raise _bad(path, "a number", v)
    return float(v)


def _dec_none(v: Any, path: str) -> None:
    if v is not None:
        raise _bad(path, "null", v)
    return None


def _enc_bytes(v: bytes) -> str:
    return base64.b64encode(v).decode("ascii")


def _dec_bytes(v: Any, path: str) -> bytes:
    if not isinstance(v, str):
        raise _bad(path, "base64 text", v)
    try:
        return base64.b64decode(v, validate=True)
    except (binascii.Error, ValueError):
        raise _bad(path, "base64 text", v) from None


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
            raise _bad(path, f"one of {names}", v)
        return enc, dec

    def enc_s(v: Any) -> Any:
        return v.value

    def dec_s(v: Any, path: str) -> Any:
        try:
            return tp(v)
        except ValueError:
            raise _bad(path, "one of " + ", ".join(repr(m.value) for m in tp), v) from None
    return enc_s, dec_s


# -- containers ------------------------------------------------------------------------


def _is_union(tp: Any) -> bool:
    return get_origin(tp) in (Union, types.UnionType)


def _dataclass_codecs(cls: type) -> tuple[Encode, Decode]:
    hints = get_type_hints(cls)
    fields = [f for f in dataclasses.fields(cls) if f.metadata.get("json", True)]
    names = [f.name for f in fields]
    # Placeholders first, so recursive types resolve to these very functions.
    encs: list[Encode] = []
    decs: list[Decode] = []

    def enc(obj: Any) -> Any:
        prepare = getattr(obj, "__json_prepare__", None)
        if prepare is not None:
            prepare()
        return {n: e(getattr(obj, n)) for n, e in zip(names, encs)}

    required = {f.name for f in fields
                if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING}

    def dec(obj: Any, path: str) -> Any:
        if not isinstance(obj, dict):
            raise _bad(path, f"an object ({cls.__name__})", obj)
        kwargs = {}
        for n, d in zip(names, decs):
            if n in obj:
                kwargs[n] = d(obj[n], _join(path, n))
            elif n in required:
                raise FormatError(None, _join(path, n), f"the field {n!r} of {cls.__name__}", "nothing")
        extra = set(obj) - set(names) - {KIND}
        if extra:
            raise FormatError(None, _join(path, sorted(extra)[0]),
                              f"a field of {cls.__name__} ({', '.join(names)})", "an unknown field")
        try:
            return cls(**kwargs)
        except (TypeError, ValueError) as exc:
            if isinstance(exc, FormatError):
                raise
            raise FormatError(None, path, f"a valid {cls.__name__}", str(exc)) from None

    _ENC[cls] = enc
    _DEC[cls] = dec
    for f in fields:
        encs.append(encoder(hints[f.name]))
        decs.append(decoder(hints[f.name]))
    return enc, dec


def _union_codecs(tp: Any) -> tuple[Encode, Decode]:
    args = get_args(tp)
    optional = type(None) in args
    rest = [a for a in args if a is not type(None)]
    if len(rest) == 1:
        e1, d1 = encoder(rest[0]), decoder(rest[0])

        def enc_opt(v: Any) -> Any:
            return None if v is None else e1(v)

        def dec_opt(v: Any, path: str) -> Any:
            return None if v is None else d1(v, path)
        return enc_opt, dec_opt
    tagged = {getattr(a, "KIND", None): a for a in rest if dataclasses.is_dataclass(a)}
    if None in tagged or len(tagged) != len(rest):
        if all(a in (int, str, float, bool, bytes) for a in rest):
            return _scalar_union(rest, optional)
        raise TypeError(f"union {tp} needs dataclasses with a KIND class attribute")
    by_class = {cls: (kind, encoder(cls)) for kind, cls in tagged.items()}
    decs = {kind: decoder(cls) for kind, cls in tagged.items()}

    def enc(v: Any) -> Any:
        if v is None and optional:
            return None
        kind, e = by_class[type(v)]
        out = {KIND: kind}
        out.update(e(v))
        return out

    def dec(v: Any, path: str) -> Any:
        if v is None and optional:
            return None
        if not isinstance(v, dict) or v.get(KIND) not in decs:
            raise _bad(_join(path, KIND), "one of " + ", ".join(map(repr, decs)),
                       v.get(KIND) if isinstance(v, dict) else v)
        return decs[v[KIND]](v, path)
    return enc, dec


def _scalar_union(rest: list[Any], optional: bool) -> tuple[Encode, Decode]:
    def enc(v: Any) -> Any:
        return _enc_bytes(v) if isinstance(v, bytes) else v

    def dec(v: Any, path: str) -> Any:
        if v is None and optional:
            return None
        for a in rest:
            if a is not bytes and isinstance(v, a) and not (a is int and isinstance(v, bool)):
                return v
        raise _bad(path, " or ".join(a.__name__ for a in rest), v)
    return enc, dec


def encoder(tp: Any) -> Encode:
    try:
        return _ENC[tp]
    except (KeyError, TypeError):
        pass
    return _build(tp)[0]


def decoder(tp: Any) -> Decode:
    try:
        return _DEC[tp]
    except (KeyError, TypeError):
        pass
    return _build(tp)[1]


def _build(tp: Any) -> tuple[Encode, Decode]:
    codecs = _make(tp)
    try:
        _ENC[tp], _DEC[tp] = codecs
    except TypeError:
        pass
    return codecs


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
                return _CUSTOM[base]
        if hasattr(tp, "__json_encode__"):
            def enc_c(v: Any) -> Any:
                return v.__json_encode__()
            return enc_c, tp.__json_decode__  # type: ignore[attr-defined]
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
                raise _bad(path, "one of " + ", ".join(map(repr, allowed)), v)
            return v
        return _ident, dec_lit
    if origin in (list, tuple) and (origin is list or (len(args) == 2 and args[1] is Ellipsis)):
        item = args[0]
        e, d = encoder(item), decoder(item)
        make = list if origin is list else tuple
        if e is _ident:
            def enc_seq(v: Any) -> Any:
                return list(v)
        else:
            def enc_seq(v: Any) -> Any:
                return [e(x) for x in v]

        def dec_seq(v: Any, path: str) -> Any:
            if not isinstance(v, list):
                raise _bad(path, "an array", v)
            return make(d(x, f"{path}[{i}]") for i, x in enumerate(v))
        return enc_seq, dec_seq
    if origin is tuple:
        es = [encoder(a) for a in args]
        ds = [decoder(a) for a in args]

        def enc_tup(v: Any) -> Any:
            return [e(x) for e, x in zip(es, v)]

        def dec_tup(v: Any, path: str) -> Any:
            if not isinstance(v, list) or len(v) != len(ds):
                raise _bad(path, f"an array of {len(ds)} values", v)
            return tuple(d(x, f"{path}[{i}]") for i, (d, x) in enumerate(zip(ds, v)))
        return enc_tup, dec_tup
    if origin is dict:
        kd, vd = decoder(args[0]), decoder(args[1])
        ve = encoder(args[1])

        def enc_map(v: Any) -> Any:
            return {str(k): ve(x) for k, x in v.items()}

        def dec_map(v: Any, path: str) -> Any:
            if not isinstance(v, dict):
                raise _bad(path, "an object", v)
            return {kd(k, path): vd(x, _join(path, str(k))) for k, x in v.items()}
        return enc_map, dec_map
    raise TypeError(f"no JSON mapping for {tp!r}")


# -- documents -----------------------------------------------------------------------

SCHEMA_VERSION = 1


def to_json(model: Any) -> dict[str, Any]:
    """The whole model as a JSON-ready dict that names its format."""
    from . import registry

    fmt = registry.for_model(model)
    return {"format": fmt.name, "savecraft": SCHEMA_VERSION, "data": encoder(type(model))(model)}


def from_json(doc: Any) -> Any:
    from . import registry

    if not isinstance(doc, dict) or "format" not in doc or "data" not in doc:
        raise _bad("", 'an object with "format" and "data" (a savecraft dump)', doc)
    fmt = registry.get(_dec_str(doc["format"], "format"))
    return decoder(fmt.model)(doc["data"], "data")


def dumps(model: Any, *, indent: bool = True) -> bytes:
    opts = orjson.OPT_INDENT_2 if indent else 0
    return orjson.dumps(to_json(model), option=opts | orjson.OPT_APPEND_NEWLINE)


def loads(text: bytes | str) -> Any:
    try:
        doc = orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        raise FormatError(getattr(exc, "pos", None), "", "valid JSON", str(exc).split(":")[0]) from None
    return from_json(doc)
