"""
`pl.tile.*(...)` calls to tile ops: one reader per argument pattern
(`CallKind`), picked from the call table of `tables.py`.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from typing import cast

from xdsl.dialects.builtin import IntegerType, LocationAttr, f32, i32
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.utils.exceptions import VerifyException

from pypto_dialect import tile
from pypto_dialect.dsl.annotations import (
    Annotation,
    OpenTile,
    annotation_text,
    fill_space_problem,
    tile_type,
)
from pypto_dialect.dsl.arguments import CallArguments, apply_membership
from pypto_dialect.dsl.expressions import ExpressionBuilder
from pypto_dialect.dsl.tables import CAST_MODE, CallKind, TileCall
from pypto_dialect.tile.rows import verify_scratch
from pypto_dialect.types import MemorySpace, TileType
from pypto_dialect.xdsl_internals import create_op


def build_tile_call(
    b: ExpressionBuilder, call: TileCall, node: ast.Call, annotation: Annotation | None
) -> SSAValue | None:
    """
    Build the op of `pl.tile.<call>(...)`; its value: the op's result, the
    tensor a store writes (PyPTO's SSA tensor), or None (a push).
    `annotation` is the assignment's, which gives what the arguments do not
    (a pop's type, a fill's memory space, a matmul's element type).
    """
    arguments = b.arguments(node)
    membership = arguments.membership()
    location = b.source.location(node)
    op = _READERS[call.kind](_Call(b, arguments, call, annotation, location))
    arguments.finish()
    op.location = location  # also for the ops the readers build with their class
    b.append(op, node)
    apply_membership(op, membership)
    if isinstance(op, tile.StoreOp):
        return op.dst
    return op.results[0] if op.results else None


class _Call:
    """One call being read: its arguments and the helpers of the readers."""

    def __init__(
        self,
        b: ExpressionBuilder,
        arguments: CallArguments,
        call: TileCall,
        annotation: Annotation | None,
        location: LocationAttr,
    ):
        self.b = b
        self.arguments = arguments
        self.call = call
        self.annotation = annotation
        self.location = location

    def create(
        self,
        cls: type[Operation],
        operands: Sequence[SSAValue],
        result_types: Sequence[Attribute] = (),
    ) -> Operation:
        """
        `cls.create(...)`, through the door's fast path: what the class's
        constructor builds from the same values, without re-validating them
        (the function is verified once built).
        """
        return create_op(cls, operands, result_types, {}, self.location)

    def positional(self, least: int, most: int | None = None) -> list[ast.expr]:
        self.arguments.expect(least, least if most is None else most)
        return self.arguments.positional

    def tile(self, node: ast.expr) -> tuple[SSAValue, TileType]:
        value = self.b.tile(node)
        return value, cast(TileType, value.type)

    def space(self, default: MemorySpace) -> MemorySpace:
        """`target_memory=pl.Mem.X`, else `default`."""
        node = self.arguments.keyword("target_memory")
        return default if node is None else self.b.reader.memory_space(node)

    def split(self) -> int:
        """`split=<code>`, one of PyPTO's split codes (absent means 0)."""
        node = self.arguments.keyword("split")
        if node is None:
            return 0
        if not (
            isinstance(node, ast.Constant)
            and type(node.value) is int
            and node.value in tile.SPLIT_CODES
        ):
            self.b.fail(node, "split must be an integer literal from 0 to 4")
        return node.value

    def annotated_tile(self) -> TileType | OpenTile | None:
        """The assignment's annotation, when it is a tile."""
        if isinstance(self.annotation, TileType | OpenTile):
            return self.annotation
        return None

    def op(self) -> Callable[..., Operation]:
        return self.call.op


def _load(c: _Call) -> Operation:
    args = c.positional(3, 4)
    src = c.b.tensor(args[0])
    offsets = c.b.indices(args[1], "offsets")
    shape = c.b.reader.shape(args[2], "shape")
    if len(args) == 4 and c.b.reader.shape(args[3], "valid shape") != shape:
        c.b.fail(
            args[3],
            "the valid shape must equal the shape (partial tiles are not supported)",
        )
    element_type = cast(TileType, src.type).element_type
    result = tile_type(shape, element_type, c.space(MemorySpace.VEC))
    return c.create(tile.LoadOp, [src, *offsets], [result])


def _store(c: _Call) -> Operation:
    args = c.positional(3, 4)
    value, typ = c.tile(args[0])
    offsets = c.b.indices(args[1], "offsets")
    dst = c.b.tensor(args[2])
    if len(args) == 4 and c.b.reader.shape(args[3], "shape") != typ.get_shape():
        c.b.fail(args[3], "the shape must equal the shape of the stored tile")
    return c.create(tile.StoreOp, [value, dst, *offsets])


def _read(c: _Call) -> Operation:
    args = c.positional(2)
    value, typ = c.tile(args[0])
    indices = c.b.indices(args[1], "indices")
    return c.create(tile.ReadOp, [value, *indices], [typ.element_type])


def _write(c: _Call) -> Operation:
    args = c.positional(3)
    value, typ = c.tile(args[0])
    indices = c.b.indices(args[1], "indices")
    scalar = c.b.scalar(args[2], typ.element_type)
    return c.create(tile.WriteOp, [scalar, value, *indices], [typ])


def _extract(c: _Call) -> Operation:
    args = c.positional(4)
    value, typ = c.tile(args[0])
    offsets = [c.b.index(args[1]), c.b.index(args[2])]
    shape = c.b.reader.shape(args[3], "shape")
    result = tile_type(shape, typ.element_type, c.space(typ.memory_space))
    return c.create(tile.ExtractOp, [value, *offsets], [result])


def _move(c: _Call) -> Operation:
    (arg,) = c.positional(1)
    value, typ = c.tile(arg)
    result = tile_type(typ.get_shape(), typ.element_type, c.space(typ.memory_space))
    return c.create(tile.MoveOp, [value], [result])


def _matmul(c: _Call) -> Operation:
    lhs_node, rhs_node = c.positional(2)
    lhs, lhs_type = c.tile(lhs_node)
    rhs, rhs_type = c.tile(rhs_node)
    annotated = c.annotated_tile()
    default = i32 if isinstance(lhs_type.element_type, IntegerType) else f32
    element_type = default if annotated is None else annotated.element_type
    shape = (lhs_type.get_shape()[0], rhs_type.get_shape()[-1])
    result = tile_type(shape, element_type, MemorySpace.ACC)
    return c.create(tile.MatmulOp, [lhs, rhs], [result])


def _matmul_acc(c: _Call) -> Operation:
    acc, lhs, rhs = (c.b.tile(arg) for arg in c.positional(3))
    return c.create(tile.MatmulAccOp, [acc, lhs, rhs], [acc.type])


def _binary(c: _Call) -> Operation:
    lhs_node, rhs_node = c.positional(2)
    lhs, typ = c.tile(lhs_node)
    rhs = c.b.operand(rhs_node)
    if isinstance(rhs, SSAValue) and isinstance(rhs.type, TileType):
        return c.create(c.call.op, [lhs, rhs], [typ])
    scalar = c.b.materialize(rhs, typ.element_type)
    _check_scalar(c, rhs_node, scalar, typ.element_type)
    assert c.call.scalar_op is not None
    return c.create(c.call.scalar_op, [lhs, scalar], [typ])


def _check_scalar(c: _Call, node: ast.expr, value: SSAValue, typ: Attribute) -> None:
    if value.type != typ:
        c.b.fail(
            node,
            f"expected a tile or {annotation_text(typ)}, got {annotation_text(value.type)}",
        )


def _scalar(c: _Call) -> Operation:
    lhs_node, rhs_node = c.positional(2)
    lhs, typ = c.tile(lhs_node)
    scalar = c.b.scalar(rhs_node, typ.element_type)
    return c.create(c.call.op, [lhs, scalar], [typ])


def _unary(c: _Call) -> Operation:
    (arg,) = c.positional(1)
    value, typ = c.tile(arg)
    return c.create(c.call.op, [value], [typ])


def _cast(c: _Call) -> Operation:
    (arg,) = c.positional(1)
    value, typ = c.tile(arg)
    element_type = c.b.reader.dtype(c.arguments.required_keyword("target_type"))
    mode = c.arguments.keyword("mode")
    if mode is not None and not (
        isinstance(mode, ast.Constant) and mode.value == CAST_MODE
    ):
        c.b.fail(
            mode,
            f"{c.arguments.name}(...): only the default mode={CAST_MODE!r} is supported",
        )
    result = tile_type(typ.get_shape(), element_type, typ.memory_space)
    return c.create(tile.CastOp, [value], [result])


def _row_reduce(c: _Call) -> Operation:
    args = c.positional(1, 2)
    value, typ = c.tile(args[0])
    scratch = _scratch(c, args[1], typ) if len(args) == 2 else None
    rows = typ.get_shape()[0]
    result = tile_type((rows, 1), typ.element_type, typ.memory_space)
    operands = [value] if scratch is None else [value, scratch]
    return c.create(c.call.op, operands, [result])


def _scratch(c: _Call, node: ast.expr, source: TileType) -> SSAValue | None:
    """The scratch tile: a value, or none for a `pl.tile.create(...)` tile (checked here)."""
    allocation = c.b.allocation(node)
    if allocation is None:
        return c.b.tile(node)
    try:
        verify_scratch(allocation.typ, source)
    except VerifyException as error:
        c.b.fail(node, f"{c.arguments.name}: {error}")
    return None


def _row_expand(c: _Call) -> Operation:
    source, row_vector = (c.b.tile(arg) for arg in c.positional(2))
    return c.create(c.call.op, [source, row_vector], [source.type])


def _full(c: _Call) -> Operation:
    (shape_node,) = c.positional(1)
    shape = c.b.reader.shape(shape_node, "shape")
    element_type = c.b.reader.dtype(c.arguments.required_keyword("dtype"))
    value = c.b.scalar(c.arguments.required_keyword("value"), element_type)
    annotated = c.annotated_tile()
    if isinstance(annotated, TileType) and annotated.memory_space != MemorySpace.VEC:
        c.b.fail(c.arguments.node, fill_space_problem(annotated.memory_space))
    result = tile_type(shape, element_type, MemorySpace.VEC)
    return c.create(tile.FullOp, [value], [result])


def _push(c: _Call) -> Operation:
    (arg,) = c.positional(1)
    split = c.split()
    return c.op()(c.b.tile(arg), split)


def _pop(c: _Call) -> Operation:
    c.positional(0)
    split = c.split()
    annotated = c.annotated_tile()
    if annotated is None:
        c.b.fail(
            c.arguments.node,
            f"{c.arguments.name}(...) needs a tile annotation for its type "
            f"(x: {c.b.alias}.Tile[[...], dtype, {c.b.alias}.Mem.X] = ...)",
        )
    result = (
        annotated.with_space(MemorySpace.VEC)
        if isinstance(annotated, OpenTile)
        else annotated
    )
    return c.op()(result, split)


_READERS: dict[CallKind, Callable[[_Call], Operation]] = {
    CallKind.LOAD: _load,
    CallKind.STORE: _store,
    CallKind.READ: _read,
    CallKind.WRITE: _write,
    CallKind.EXTRACT: _extract,
    CallKind.MOVE: _move,
    CallKind.MATMUL: _matmul,
    CallKind.MATMUL_ACC: _matmul_acc,
    CallKind.BINARY: _binary,
    CallKind.SCALAR: _scalar,
    CallKind.UNARY: _unary,
    CallKind.CAST: _cast,
    CallKind.ROW_REDUCE: _row_reduce,
    CallKind.ROW_EXPAND: _row_expand,
    CallKind.FULL: _full,
    CallKind.PUSH: _push,
    CallKind.POP: _pop,
}
