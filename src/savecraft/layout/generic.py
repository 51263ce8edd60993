"""Record models that several games share but for the type of a record they hold.

Games built on one another wrap their own object (or monster, or level) record in the same
containers: an object list, the floor's list, a carried object and its known copy. The
container's model is declared once, as a generic dataclass whose fields name a type variable
(``items: list[O]``, ``held: H``); each game's model names the type (``class ItemList(
ObjectList[FaItem])``) and writes nothing else. Reading and writing need no more than that,
but the JSON mapping reads a field's type from its class, where a type variable says nothing:
so :class:`GenericRecord` declares those fields again on the game's class, with the types
named, when the class is made (before ``@dataclass`` runs on it). The fields keep the base's
order, so the dump is the one a hand-written class gives.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar, get_args, get_origin, get_type_hints


def _bind(tp: Any, bound: dict[Any, Any]) -> Any:
    """``tp`` with the type variables of ``bound`` replaced by their types."""
    if isinstance(tp, TypeVar):
        return bound.get(tp, tp)
    params = getattr(tp, "__parameters__", ())
    if params:
        return tp[tuple(bound.get(p, p) for p in params)]
    return tp


class GenericRecord:
    """Base of a generic record model: a subclass that names the type variables gets the fields
    that use them declared again with the types named. A field whose type is a bare type
    variable defaults to a new record of the type named; the others keep their defaults.

    The generic base is a ``@dataclass`` with ``__slots__ = ()`` (no slots of its own) and the
    game's class a ``@dataclass(slots=True)``: the game's class then holds every slot itself, as
    a hand-written one does, which the C record programs need (they set the slots of the class
    they build, found on that class)."""

    __slots__ = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own = cls.__dict__.get("__annotations__")
        if own is None:
            own = {}
            cls.__annotations__ = own
        for base in cls.__dict__.get("__orig_bases__", ()):
            origin = get_origin(base)
            if not (isinstance(origin, type) and issubclass(origin, GenericRecord)
                    and dataclasses.is_dataclass(origin)):
                continue
            bound = {p: a for p, a in zip(origin.__parameters__, get_args(base)) if not isinstance(a, TypeVar)}
            if not bound:
                continue
            if origin.__dict__.get("__slots__", ()) != ():
                raise TypeError(f"{origin.__name__}: a generic record base is a @dataclass with "
                                "__slots__ = () (its subclasses hold the slots)")
            hints = get_type_hints(origin)
            for f in dataclasses.fields(origin):
                tp = hints[f.name]
                named = _bind(tp, bound)
                if f.name in own or named == tp:
                    continue
                own[f.name] = named
                if isinstance(tp, TypeVar):
                    setattr(cls, f.name, dataclasses.field(default_factory=named, metadata=f.metadata))
                else:
                    setattr(cls, f.name, dataclasses.field(default=f.default, default_factory=f.default_factory,
                                                           metadata=f.metadata))
