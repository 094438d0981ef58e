"""
The elementwise vector tile ops: tile-tile, tile-scalar and unary math,
casts, and `full`.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.ir import Operation, SSAValue
from xdsl.irdl import (
    AnyAttr,
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
from pypto_dialect.tile.memory import TileToTileOp
from pypto_dialect.tile.verification import (
    tile_of,
    verify_element_type_of,
    verify_same_shape,
)
from pypto_dialect.types import TileType


class ElementwiseBinaryOp(TileSyntaxOp):
    """`%z = pypto.tile.<op> %x, %y : tile`: elementwise, all three types equal."""

    T: ClassVar = VarConstraint("T", base(TileType))

    lhs = operand_def(T)
    rhs = operand_def(T)
    result = result_def(T)

    traits = traits_def(Pure())

    SYNTAX: ClassVar[TileOpSyntax] = TileOpSyntax(2, operand_types=False)

    def __init__(self, lhs: SSAValue | Operation, rhs: SSAValue | Operation):
        super().__init__(operands=[lhs, rhs], result_types=[SSAValue.get(lhs).type])


@pypto_op_definition
class AddOp(ElementwiseBinaryOp):
    name = "pypto.tile.add"


@pypto_op_definition
class SubOp(ElementwiseBinaryOp):
    name = "pypto.tile.sub"


@pypto_op_definition
class MulOp(ElementwiseBinaryOp):
    name = "pypto.tile.mul"


@pypto_op_definition
class DivOp(ElementwiseBinaryOp):
    name = "pypto.tile.div"


@pypto_op_definition
class MaxOp(ElementwiseBinaryOp):
    name = "pypto.tile.max"


@pypto_op_definition
class MinOp(ElementwiseBinaryOp):
    name = "pypto.tile.min"


class TileScalarOp(TileSyntaxOp):
    """`%z = pypto.tile.<op>s %x, %s : tile, scalar`: the scalar broadcast to every element."""

    T: ClassVar = VarConstraint("T", base(TileType))

    tile = operand_def(T)
    scalar = operand_def(AnyAttr())
    result = result_def(T)

    traits = traits_def(Pure())

    SYNTAX: ClassVar[TileOpSyntax] = TileOpSyntax(2, result=ResultSyntax.FIRST)

    def __init__(self, tile: SSAValue | Operation, scalar: SSAValue | Operation):
        super().__init__(
            operands=[tile, scalar], result_types=[SSAValue.get(tile).type]
        )

    def verify_(self) -> None:
        verify_element_type_of(tile_of(self.tile), self.scalar.type, "scalar")


@pypto_op_definition
class AddsOp(TileScalarOp):
    name = "pypto.tile.adds"


@pypto_op_definition
class SubsOp(TileScalarOp):
    name = "pypto.tile.subs"


@pypto_op_definition
class MulsOp(TileScalarOp):
    name = "pypto.tile.muls"


@pypto_op_definition
class DivsOp(TileScalarOp):
    name = "pypto.tile.divs"


@pypto_op_definition
class MaxsOp(TileScalarOp):
    name = "pypto.tile.maxs"


@pypto_op_definition
class MinsOp(TileScalarOp):
    name = "pypto.tile.mins"


class UnaryOp(TileSyntaxOp):
    """`%z = pypto.tile.<op> %x : tile`: elementwise, same type."""

    T: ClassVar = VarConstraint("T", base(TileType))

    source = operand_def(T)
    result = result_def(T)

    traits = traits_def(Pure())

    SYNTAX: ClassVar[TileOpSyntax] = TileOpSyntax(1, operand_types=False)

    def __init__(self, source: SSAValue | Operation):
        super().__init__(operands=[source], result_types=[SSAValue.get(source).type])


@pypto_op_definition
class ExpOp(UnaryOp):
    name = "pypto.tile.exp"


@pypto_op_definition
class NegOp(UnaryOp):
    name = "pypto.tile.neg"


@pypto_op_definition
class AbsOp(UnaryOp):
    name = "pypto.tile.abs"


@pypto_op_definition
class SqrtOp(UnaryOp):
    name = "pypto.tile.sqrt"


@pypto_op_definition
class RsqrtOp(UnaryOp):
    name = "pypto.tile.rsqrt"


@pypto_op_definition
class RecipOp(UnaryOp):
    name = "pypto.tile.recip"


@pypto_op_definition
class ReluOp(UnaryOp):
    name = "pypto.tile.relu"


@pypto_op_definition
class CastOp(TileToTileOp):
    """`%z = pypto.tile.cast %x : src -> dst`: element type conversion."""

    name = "pypto.tile.cast"

    def verify_(self) -> None:
        source = tile_of(self.source)
        result = tile_of(self.result)
        verify_same_shape(source, result, "cast")
        if source.space != result.space:
            raise VerifyException(
                f"cast must keep the memory space, got {source.memory_space} -> "
                f"{result.memory_space}"
            )


@pypto_op_definition
class FullOp(TileSyntaxOp):
    """`%z = pypto.tile.full %s : scalar -> tile`: a tile filled with `%s`."""

    name = "pypto.tile.full"

    scalar = operand_def(AnyAttr())
    result = result_def(TileType)

    traits = traits_def(Pure())

    SYNTAX: ClassVar[TileOpSyntax] = TileOpSyntax(1)

    def __init__(self, scalar: SSAValue | Operation, result_type: TileType):
        super().__init__(operands=[scalar], result_types=[result_type])

    def verify_(self) -> None:
        verify_element_type_of(tile_of(self.result), self.scalar.type, "scalar")
