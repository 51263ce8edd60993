"""Record descriptions: a byte layout declared once, and everything else derived from it.

A layout is a :class:`Struct`: the model class and its members in file
order, each a :class:`Field` (a model attribute and how it is stored) or a
stored value that is not one (a :class:`Len` count the writer derives, a
:class:`Const` the game requires, :class:`Columns` kept as separate fields, a
:class:`Terminated` list). From it come the fast and the checked reader, the
fast and the checked writer, byte spans under the model's own paths, and
located errors (see :mod:`.compiler`); the JSON mapping comes from the model
types (:mod:`savecraft.jsonmap`). The vocabulary is in :mod:`.types`; values
one layout stores for another travel in a :class:`Context`.

This package names no format: each format's package declares its layouts
with it. ``docs/layouts.md`` walks through declaring one.
"""

from .compiler import FAST_READ_ERRORS, FAST_WRITE_ERRORS, Struct
from .context import Context, LayoutError, NotCanonical
from .generic import GenericRecord
from .types import (
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U24,
    U32,
    U64,
    Adapt,
    Array,
    Bytes,
    Check,
    Columns,
    Computed,
    Const,
    Count,
    CStr,
    Ctx,
    Custom,
    EightBitText,
    Expr,
    Field,
    Int,
    Len,
    List,
    Member,
    Optional,
    Parallel,
    Prefix,
    Range,
    Ref,
    REST,
    Requires,
    Rest,
    SetCtx,
    Stored,
    Switch,
    Terminated,
    ToEnd,
    Tuple,
    Type,
    Until,
    When,
)

__all__ = [
    "FAST_READ_ERRORS", "FAST_WRITE_ERRORS", "Struct", "Context", "LayoutError", "NotCanonical", "GenericRecord",
    "I8", "I16", "I32", "I64", "U8", "U16", "U24", "U32", "U64", "Adapt", "Array", "Bytes", "Check",
    "Columns", "Computed", "Const", "Count", "CStr", "Ctx", "Custom", "EightBitText", "Expr", "Field", "Int",
    "Len", "List", "Member", "Optional", "Parallel", "Prefix", "Range", "Ref", "REST", "Requires", "Rest",
    "SetCtx", "Stored", "Switch", "Terminated", "ToEnd", "Tuple", "Type", "Until",
    "When",
]
