"""The cube tile ops: `matmul`, `matmul_acc`, and `writes_accumulator`."""

from __future__ import annotations

from typing import ClassVar

from xdsl.ir import Operation, SSAValue
from xdsl.irdl import (
    VarConstraint,
    base,
    operand_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from pypto_dialect.fast_verify import pypto_op_definition
from pypto_dialect.syntax import ResultSyntax, TileOpSyntax, TileSyntaxOp
from pypto_dialect.tile.verification import tile_of, verify_same_elements, verify_space
from pypto_dialect.types import MemorySpace, TileType, format_shape


def _verify_matmul(lhs: TileType, rhs: TileType, result: TileType) -> None:
    verify_space(lhs, MemorySpace.LEFT, "lhs")
    verify_space(rhs, MemorySpace.RIGHT, "rhs")
    verify_space(result, MemorySpace.ACC, "result")
    for role, tile in (("lhs", lhs), ("rhs", rhs), ("result", result)):
        if tile.get_num_dims() != 2:
            raise VerifyException(f"matmul {role} must be rank 2, got {tile}")
    (m, k), (k2, n) = lhs.get_shape(), rhs.get_shape()
    if k != k2:
        raise VerifyException(
            f"matmul contraction sizes differ: lhs is {m}x{k}, rhs is {k2}x{n}"
        )
    if result.get_shape() != (m, n):
        raise VerifyException(
            f"matmul of {m}x{k} and {k}x{n} must produce {m}x{n}, got "
            f"{format_shape(result.get_shape())}"
        )
    verify_same_elements(lhs, rhs)


@pypto_op_definition
class MatmulOp(TileSyntaxOp):
    """`%c = pypto.tile.matmul %a, %b : left, right -> acc`: `a @ b`."""

    name = "pypto.tile.matmul"

    lhs = operand_def(TileType)
    rhs = operand_def(TileType)
    result = result_def(TileType)

    traits = traits_def(Pure())

    SYNTAX: ClassVar[TileOpSyntax] = TileOpSyntax(2)

    def __init__(
        self,
        lhs: SSAValue | Operation,
        rhs: SSAValue | Operation,
        result_type: TileType,
    ):
        super().__init__(operands=[lhs, rhs], result_types=[result_type])

    def verify_(self) -> None:
        _verify_matmul(tile_of(self.lhs), tile_of(self.rhs), tile_of(self.result))


@pypto_op_definition
class MatmulAccOp(TileSyntaxOp):
    """`%d = pypto.tile.matmul_acc %c, %a, %b : acc, left, right`: `c + a @ b`."""

    name = "pypto.tile.matmul_acc"

    T: ClassVar = VarConstraint("T", base(TileType))

    acc = operand_def(T)
    lhs = operand_def(TileType)
    rhs = operand_def(TileType)
    result = result_def(T)

    traits = traits_def(Pure())

    SYNTAX: ClassVar[TileOpSyntax] = TileOpSyntax(3, result=ResultSyntax.FIRST)

    def __init__(
        self,
        acc: SSAValue | Operation,
        lhs: SSAValue | Operation,
        rhs: SSAValue | Operation,
    ):
        super().__init__(
            operands=[acc, lhs, rhs], result_types=[SSAValue.get(acc).type]
        )

    def verify_(self) -> None:
        _verify_matmul(tile_of(self.lhs), tile_of(self.rhs), tile_of(self.result))


def writes_accumulator(op: Operation) -> bool:
    """Whether `op` is a matmul that writes the cube accumulator space (`acc`)."""
    return (
        isinstance(op, MatmulOp | MatmulAccOp)
        and tile_of(op.result).memory_space == MemorySpace.ACC
    )
