"""
The row tile ops: reductions of every row (`row_sum`, `row_max`, with an
optional scratch tile) and row-vector broadcasts (`row_expand_*`).
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.ir import Operation, SSAValue
from xdsl.irdl import (
    VarConstraint,
    base,
    operand_def,
    opt_operand_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from pypto_dialect.fast_verify import pypto_op_definition
from pypto_dialect.syntax import ResultSyntax, TileOpSyntax, TileSyntaxOp
from pypto_dialect.tile.verification import tile_of, verify_same_elements, verify_space
from pypto_dialect.types import TileType, format_shape


def _verify_row_operand(tile: TileType, role: str) -> tuple[int, int]:
    if tile.get_num_dims() != 2:
        raise VerifyException(f"row op {role} must be rank 2, got {tile}")
    rows, cols = tile.get_shape()
    return rows, cols


def _verify_row_vector(
    rows: int, row_vector: TileType, source: TileType, role: str
) -> None:
    _verify_row_operand(row_vector, role)
    shape = row_vector.get_shape()
    if shape != (rows, 1):
        raise VerifyException(
            f"row op {role} must have shape {rows}x1, got {format_shape(shape)}"
        )
    verify_same_elements(source, row_vector)
    verify_space(row_vector, source.memory_space, f"row op {role}")


def verify_scratch(scratch: TileType, source: TileType) -> None:
    """PyPTO's rule: the source's element type and rank, each dimension at least the source's."""
    if scratch.element_type != source.element_type:
        raise VerifyException(
            f"row op scratch tile must have the source's element type "
            f"{source.element_type}, got {scratch.element_type}"
        )
    shape, needed = scratch.get_shape(), source.get_shape()
    if len(shape) != len(needed) or any(
        size < at_least for size, at_least in zip(shape, needed, strict=True)
    ):
        raise VerifyException(
            f"row op scratch tile must be rank {len(needed)} and at least "
            f"{format_shape(needed)} (the source), got {format_shape(shape)}"
        )
    verify_space(scratch, source.memory_space, "row op scratch tile")


class RowReductionOp(TileSyntaxOp):
    """
    `%z = pypto.tile.row_<op> %x[, %tmp] : [R,C][, S] -> [R,1]`: reduce every
    row. `%tmp` is the scratch tile PyPTO's instruction works in: only
    scratch, its value is never read; absent, the target gives PyPTO one.
    """

    source = operand_def(TileType)
    scratch = opt_operand_def(TileType)
    result = result_def(TileType)

    traits = traits_def(Pure())

    SYNTAX: ClassVar[TileOpSyntax] = TileOpSyntax(1, optional=1)

    def __init__(
        self,
        source: SSAValue | Operation,
        result_type: TileType,
        scratch: SSAValue | Operation | None = None,
    ):
        super().__init__(
            operands=[source, [] if scratch is None else [scratch]],
            result_types=[result_type],
        )

    def verify_(self) -> None:
        source = tile_of(self.source)
        rows, _ = _verify_row_operand(source, "source")
        _verify_row_vector(rows, tile_of(self.result), source, "result")
        if self.scratch is not None:
            verify_scratch(tile_of(self.scratch), source)


@pypto_op_definition
class RowSumOp(RowReductionOp):
    name = "pypto.tile.row_sum"


@pypto_op_definition
class RowMaxOp(RowReductionOp):
    name = "pypto.tile.row_max"


class RowExpandOp(TileSyntaxOp):
    """`%z = pypto.tile.row_expand_<op> %x, %r : [R,C], [R,1]`: `x op r`, `r` broadcast along rows."""

    T: ClassVar = VarConstraint("T", base(TileType))

    source = operand_def(T)
    row_vector = operand_def(TileType)
    result = result_def(T)

    traits = traits_def(Pure())

    SYNTAX: ClassVar[TileOpSyntax] = TileOpSyntax(2, result=ResultSyntax.FIRST)

    def __init__(self, source: SSAValue | Operation, row_vector: SSAValue | Operation):
        super().__init__(
            operands=[source, row_vector], result_types=[SSAValue.get(source).type]
        )

    def verify_(self) -> None:
        source = tile_of(self.source)
        rows, _ = _verify_row_operand(source, "source")
        _verify_row_vector(rows, tile_of(self.row_vector), source, "row vector")


@pypto_op_definition
class RowExpandAddOp(RowExpandOp):
    name = "pypto.tile.row_expand_add"


@pypto_op_definition
class RowExpandSubOp(RowExpandOp):
    name = "pypto.tile.row_expand_sub"


@pypto_op_definition
class RowExpandMulOp(RowExpandOp):
    name = "pypto.tile.row_expand_mul"


@pypto_op_definition
class RowExpandDivOp(RowExpandOp):
    name = "pypto.tile.row_expand_div"
