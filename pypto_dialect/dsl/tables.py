"""
The mapping between PyPTO and our IR, shared by the frontend and the target:
dtypes, memory spaces, tile calls by argument pattern, scalar operators.
Each table is read in both directions, so the two sides cannot drift apart.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum, auto

from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    AnyFloat,
    IndexType,
    IntegerType,
    bf16,
    f16,
    f32,
    i1,
    i8,
    i16,
    i32,
    i64,
)
from xdsl.ir import Attribute, Operation

from pypto_dialect import tile
from pypto_dialect.types import MemorySpace

MODULE_ALIAS = "pl"
"""The name PyPTO programs give `pypto.language`."""

LANGUAGE_MODULE = "pypto.language"

DTYPES: Mapping[str, Attribute] = {
    "FP32": f32,
    "FP16": f16,
    "BF16": bf16,
    "INT8": i8,
    "INT16": i16,
    "INT32": i32,
    "INT64": i64,
    "BOOL": i1,
}
"""`pl.<name>` element types."""

SCALAR_DTYPES: Mapping[str, Attribute] = {"INDEX": IndexType(), **DTYPES}
"""What `pl.Scalar[pl.<name>]` accepts."""

DTYPE_NAMES: Mapping[Attribute, str] = {
    typ: name for name, typ in SCALAR_DTYPES.items()
}

MEMORY_SPACES: Mapping[str, MemorySpace] = {
    "Vec": MemorySpace.VEC,
    "Mat": MemorySpace.MAT,
    "Left": MemorySpace.LEFT,
    "Right": MemorySpace.RIGHT,
    "Acc": MemorySpace.ACC,
    "Bias": MemorySpace.BIAS,
}
"""`pl.Mem.<name>` (or `pl.MemorySpace.<name>`)."""

MEMORY_SPACE_NAMES: Mapping[MemorySpace, str] = {
    space: name for name, space in MEMORY_SPACES.items()
}
MEMORY_SPACE_ENUMS = ("Mem", "MemorySpace")

DIRECTION_MARKERS = ("Out", "InOut")
"""`pl.Out[T]`, `pl.InOut[T]`: parameter directions, dropped."""

MEMBERSHIP_KEY = "pipeline_membership"
"""The key of `attrs={...}` that holds `pypto.pipeline_membership`."""

IGNORED_DEFAULTS: Mapping[str, object] = {"transpose": False, "high_precision": False}
"""Keywords of PyPTO calls the IR does not model: accepted with these values only."""

CAST_MODE = "round"
"""The rounding `mode=` of `pl.tile.cast` the IR's cast is (PyPTO's default, printed on every cast)."""

TYPED_CONSTANT = "const"
"""`pl.const(value, pl.DT)`: how PyPTO prints a literal of a dtype a bare one lacks."""

ALLOCATION_CALL = "create"
"""`pl.tile.create(shape, dtype=DT, target_memory=X)`: a tile without a value."""


class CallKind(Enum):
    """The argument pattern of a `pl.tile` call."""

    LOAD = auto()
    STORE = auto()
    READ = auto()
    WRITE = auto()
    EXTRACT = auto()
    MOVE = auto()
    MATMUL = auto()
    MATMUL_ACC = auto()
    BINARY = auto()
    """`(a, b)`: a tile `b` gives the op, a scalar `b` its scalar twin."""
    SCALAR = auto()
    UNARY = auto()
    CAST = auto()
    ROW_REDUCE = auto()
    ROW_EXPAND = auto()
    FULL = auto()
    PUSH = auto()
    POP = auto()


@dataclass(frozen=True)
class TileCall:
    """`pl.tile.<name>(...)`: the op it builds and how its arguments read."""

    name: str
    kind: CallKind
    op: type[Operation]
    scalar_op: type[Operation] | None = None
    """For `BINARY`: the op of a scalar right operand."""


_CALLS = (
    TileCall("load", CallKind.LOAD, tile.LoadOp),
    TileCall("store", CallKind.STORE, tile.StoreOp),
    TileCall("read", CallKind.READ, tile.ReadOp),
    TileCall("write", CallKind.WRITE, tile.WriteOp),
    TileCall("extract", CallKind.EXTRACT, tile.ExtractOp),
    TileCall("move", CallKind.MOVE, tile.MoveOp),
    TileCall("matmul", CallKind.MATMUL, tile.MatmulOp),
    TileCall("matmul_acc", CallKind.MATMUL_ACC, tile.MatmulAccOp),
    TileCall("add", CallKind.BINARY, tile.AddOp, tile.AddsOp),
    TileCall("sub", CallKind.BINARY, tile.SubOp, tile.SubsOp),
    TileCall("mul", CallKind.BINARY, tile.MulOp, tile.MulsOp),
    TileCall("div", CallKind.BINARY, tile.DivOp, tile.DivsOp),
    TileCall("maximum", CallKind.BINARY, tile.MaxOp, tile.MaxsOp),
    TileCall("minimum", CallKind.BINARY, tile.MinOp, tile.MinsOp),
    TileCall("adds", CallKind.SCALAR, tile.AddsOp),
    TileCall("subs", CallKind.SCALAR, tile.SubsOp),
    TileCall("muls", CallKind.SCALAR, tile.MulsOp),
    TileCall("divs", CallKind.SCALAR, tile.DivsOp),
    TileCall("maximums", CallKind.SCALAR, tile.MaxsOp),
    TileCall("minimums", CallKind.SCALAR, tile.MinsOp),
    TileCall("exp", CallKind.UNARY, tile.ExpOp),
    TileCall("neg", CallKind.UNARY, tile.NegOp),
    TileCall("abs", CallKind.UNARY, tile.AbsOp),
    TileCall("sqrt", CallKind.UNARY, tile.SqrtOp),
    TileCall("rsqrt", CallKind.UNARY, tile.RsqrtOp),
    TileCall("recip", CallKind.UNARY, tile.RecipOp),
    TileCall("relu", CallKind.UNARY, tile.ReluOp),
    TileCall("cast", CallKind.CAST, tile.CastOp),
    TileCall("row_sum", CallKind.ROW_REDUCE, tile.RowSumOp),
    TileCall("row_max", CallKind.ROW_REDUCE, tile.RowMaxOp),
    TileCall("row_expand_add", CallKind.ROW_EXPAND, tile.RowExpandAddOp),
    TileCall("row_expand_sub", CallKind.ROW_EXPAND, tile.RowExpandSubOp),
    TileCall("row_expand_mul", CallKind.ROW_EXPAND, tile.RowExpandMulOp),
    TileCall("row_expand_div", CallKind.ROW_EXPAND, tile.RowExpandDivOp),
    TileCall("full", CallKind.FULL, tile.FullOp),
    TileCall("tpush_to_aiv", CallKind.PUSH, tile.TPushToAivOp),
    TileCall("tpush_to_aic", CallKind.PUSH, tile.TPushToAicOp),
    TileCall("tpop_from_aic", CallKind.POP, tile.TPopFromAicOp),
    TileCall("tpop_from_aiv", CallKind.POP, tile.TPopFromAivOp),
)

_ALIASES = (
    TileCall("maxs", CallKind.SCALAR, tile.MaxsOp),
    TileCall("mins", CallKind.SCALAR, tile.MinsOp),
)
"""Accepted on input; the target prints `maximums` / `minimums`, PyPTO's names."""

TILE_CALLS: Mapping[str, TileCall] = {call.name: call for call in (*_CALLS, *_ALIASES)}
"""`pl.tile.<name>` by name."""


def _export_calls() -> dict[type[Operation], tuple[TileCall, bool]]:
    """Per op: the call that prints it, and whether it is a `BINARY` call's scalar twin."""
    calls: dict[type[Operation], tuple[TileCall, bool]] = {}
    for call in _CALLS:
        if call.scalar_op is not None:
            calls.setdefault(call.scalar_op, (call, True))
        calls[call.op] = (call, False)
    return calls


EXPORT_CALLS: Mapping[type[Operation], tuple[TileCall, bool]] = _export_calls()

# --------------------------------------------------------------------------- #
# Scalars
# --------------------------------------------------------------------------- #

INTEGER_OPERATORS: Mapping[type[ast.operator], type[Operation]] = {
    ast.Add: arith.AddiOp,
    ast.Sub: arith.SubiOp,
    ast.Mult: arith.MuliOp,
    ast.FloorDiv: arith.FloorDivSIOp,
    ast.Mod: arith.RemSIOp,
}
FLOAT_OPERATORS: Mapping[type[ast.operator], type[Operation]] = {
    ast.Add: arith.AddfOp,
    ast.Sub: arith.SubfOp,
    ast.Mult: arith.MulfOp,
    ast.Div: arith.DivfOp,
}
OPERATOR_TEXT: Mapping[type[ast.AST], str] = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.FloorDiv: "//",
    ast.Mod: "%",
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
}

MIN_MAX: Mapping[str, tuple[type[Operation], type[Operation]]] = {
    "min": (arith.MinSIOp, arith.MinimumfOp),
    "max": (arith.MaxSIOp, arith.MaximumfOp),
}
"""`pl.min` / `pl.max`: the integer op and the float op."""

INTEGER_PREDICATES: Mapping[type[ast.cmpop], str] = {
    ast.Eq: "eq",
    ast.NotEq: "ne",
    ast.Lt: "slt",
    ast.LtE: "sle",
    ast.Gt: "sgt",
    ast.GtE: "sge",
}
FLOAT_PREDICATES: Mapping[type[ast.cmpop], str] = {
    ast.Eq: "oeq",
    ast.NotEq: "one",
    ast.Lt: "olt",
    ast.LtE: "ole",
    ast.Gt: "ogt",
    ast.GtE: "oge",
}


def is_float_type(typ: Attribute) -> bool:
    """Whether a scalar of type `typ` uses the float operators."""
    return isinstance(typ, AnyFloat)


def is_integer_type(typ: Attribute) -> bool:
    """`index` or a signless integer type (the integer operators)."""
    return isinstance(typ, IndexType | IntegerType)


LiteralValue = bool | int | float


def default_literal_type(value: LiteralValue) -> Attribute:
    """The type of a literal where nothing else decides it: `i1`, `index` or `f32`."""
    if isinstance(value, bool):
        return i1
    if isinstance(value, int):
        return IndexType()
    return f32
