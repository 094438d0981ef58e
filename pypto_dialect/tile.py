"""
The tile ops of the `pypto` dialect.

Loads and stores move windows between GM tensors and tiles; everything else
works on immutable tiles and is pure, except the cross-core push/pop ops that
act on a channel.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import IndexTypeConstr
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    VarConstraint,
    base,
    irdl_op_definition,
    operand_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from pypto_dialect.constants import constant_int
from pypto_dialect.effects import (
    ChannelDirection,
    CrossCoreChannel,
    CrossCoreChannelOp,
    ReadsTensorWindow,
    TensorWindowAccess,
    UsesCrossCoreChannel,
    WritesTensorWindow,
)
from pypto_dialect.syntax import (
    ResultSyntax,
    TileOpSyntax,
    TileSyntaxOp,
    parse_indices,
    print_indices,
    print_pieces,
)
from pypto_dialect.types import (
    MemorySpace,
    TensorType,
    TileType,
    format_shape,
    parse_type,
)

# --------------------------------------------------------------------------- #
# Verification helpers
# --------------------------------------------------------------------------- #


def _verify_index_count(
    indices: Sequence[SSAValue], container: Sequence[int], what: str
) -> None:
    if len(indices) != len(container):
        raise VerifyException(
            f"expected {len(container)} {what} (one per dimension), got {len(indices)}"
        )


def _verify_offsets_in_bounds(
    offsets: Sequence[SSAValue],
    window: Sequence[int],
    container: Sequence[int],
    what: str,
) -> None:
    """Check the offset count, and that constant offsets keep the window inside."""
    _verify_index_count(offsets, container, f"{what} offsets")
    for dim, (offset, extent, size) in enumerate(
        zip(offsets, window, container, strict=True)
    ):
        if extent > size:
            raise VerifyException(
                f"window of {extent} elements does not fit in dimension {dim} of "
                f"size {size}"
            )
        value = constant_int(offset)
        if value is not None and not 0 <= value <= size - extent:
            raise VerifyException(
                f"window [{value}, {value + extent}) is out of bounds of dimension "
                f"{dim} of size {size}"
            )


def _verify_element_in_bounds(indices: Sequence[SSAValue], tile: TileType) -> None:
    """Check the index count, and that constant indices fall inside the tile."""
    shape = tile.get_shape()
    _verify_index_count(indices, shape, "indices")
    for dim, (index, size) in enumerate(zip(indices, shape, strict=True)):
        value = constant_int(index)
        if value is not None and not 0 <= value < size:
            raise VerifyException(
                f"index {value} is out of bounds of dimension {dim} of size {size}"
            )


def _verify_same_elements(
    lhs: TileType | TensorType, rhs: TileType | TensorType
) -> None:
    if lhs.element_type != rhs.element_type:
        raise VerifyException(
            f"element types differ: {lhs.element_type} and {rhs.element_type}"
        )


def _verify_same_rank(lhs: TileType | TensorType, rhs: TileType | TensorType) -> None:
    if lhs.get_num_dims() != rhs.get_num_dims():
        raise VerifyException(f"ranks differ: {lhs} and {rhs}")


def _verify_space(tile: TileType, expected: MemorySpace, role: str) -> None:
    if tile.memory_space != expected:
        raise VerifyException(
            f"{role} must be in memory space {expected.value}, "
            f"got {tile.memory_space.value}"
        )


def _verify_element_type_of(tile: TileType, scalar: Attribute, role: str) -> None:
    if scalar != tile.element_type:
        raise VerifyException(
            f"{role} type {scalar} must equal the tile element type {tile.element_type}"
        )


def _verify_same_shape(source: TileType, result: TileType, op: str) -> None:
    if source.get_shape() != result.get_shape():
        raise VerifyException(
            f"{op} must keep the shape, got {format_shape(source.get_shape())} -> "
            f"{format_shape(result.get_shape())}"
        )


def _tile(value: SSAValue) -> TileType:
    """The tile type of a value whose type the op definition already constrains."""
    assert isinstance(value.type, TileType)
    return value.type


def _print_element_access(
    printer: Printer, op: Operation, tile: SSAValue, indices: Sequence[SSAValue]
) -> None:
    """`%t[%r, %c] {attrs} : tile-type`, the tail of `tile.read` and `tile.write`."""
    printer.print_ssa_value(tile)
    print_indices(printer, indices)
    if op.attributes:
        printer.print_op_attributes(op.attributes)
    print_pieces(printer, (" : ", tile.type))


def _parse_element_access(
    parser: Parser,
) -> tuple[UnresolvedOperand, Sequence[SSAValue], dict[str, Attribute], TileType]:
    """`%t[%r, %c] {attrs} : tile-type`; any other type is a parse error at the type."""
    tile = parser.parse_unresolved_operand()
    indices = parse_indices(parser)
    attributes = parser.parse_optional_attr_dict()
    parser.parse_punctuation(":")
    start = parser.pos
    tile_type = parse_type(parser)
    if not isinstance(tile_type, TileType):
        parser.raise_error(f"expected a !pypto.tile type, got {tile_type}", start)
    return tile, indices, attributes, tile_type


# --------------------------------------------------------------------------- #
# GM <-> tile
# --------------------------------------------------------------------------- #


@irdl_op_definition
class LoadOp(TileSyntaxOp, TensorWindowAccess):
    """`%t = pypto.tile.load %src[%o0, ...]`: read a window of a GM tensor into a tile."""

    name = "pypto.tile.load"

    src = operand_def(TensorType)
    offsets = var_operand_def(IndexTypeConstr)
    result = result_def(TileType)

    traits = traits_def(ReadsTensorWindow())

    SYNTAX: ClassVar[TileOpSyntax] = TileOpSyntax(1, indexed=True)

    def __init__(
        self,
        src: SSAValue | Operation,
        offsets: Sequence[SSAValue | Operation],
        result_type: TileType,
    ):
        super().__init__(operands=[src, offsets], result_types=[result_type])

    @property
    def accessed_tensor(self) -> SSAValue:
        return self.src

    @property
    def window_offsets(self) -> Sequence[SSAValue]:
        return self.offsets

    @property
    def window_shape(self) -> tuple[int, ...]:
        return _tile(self.result).get_shape()

    def verify_(self) -> None:
        assert isinstance(self.src.type, TensorType)
        tile = _tile(self.result)
        _verify_same_rank(self.src.type, tile)
        _verify_same_elements(self.src.type, tile)
        _verify_offsets_in_bounds(
            self.offsets, tile.get_shape(), self.src.type.get_shape(), "tensor"
        )


@irdl_op_definition
class StoreOp(TileSyntaxOp, TensorWindowAccess):
    """`pypto.tile.store %t, %dst[%o0, ...]`: write a tile into a window of a GM tensor."""

    name = "pypto.tile.store"

    value = operand_def(TileType)
    dst = operand_def(TensorType)
    offsets = var_operand_def(IndexTypeConstr)

    traits = traits_def(WritesTensorWindow())

    SYNTAX: ClassVar[TileOpSyntax] = TileOpSyntax(
        2, indexed=True, result=ResultSyntax.NONE
    )

    def __init__(
        self,
        value: SSAValue | Operation,
        dst: SSAValue | Operation,
        offsets: Sequence[SSAValue | Operation],
    ):
        super().__init__(operands=[value, dst, offsets])

    @property
    def accessed_tensor(self) -> SSAValue:
        return self.dst

    @property
    def window_offsets(self) -> Sequence[SSAValue]:
        return self.offsets

    @property
    def window_shape(self) -> tuple[int, ...]:
        return _tile(self.value).get_shape()

    def verify_(self) -> None:
        assert isinstance(self.dst.type, TensorType)
        tile = _tile(self.value)
        _verify_same_rank(tile, self.dst.type)
        _verify_same_elements(tile, self.dst.type)
        _verify_offsets_in_bounds(
            self.offsets, tile.get_shape(), self.dst.type.get_shape(), "tensor"
        )


# --------------------------------------------------------------------------- #
# Element access
# --------------------------------------------------------------------------- #


@irdl_op_definition
class ReadOp(IRDLOperation):
    """`%e = pypto.tile.read %t[%r, %c] : tile`: one element of a tile."""

    name = "pypto.tile.read"

    tile = operand_def(TileType)
    indices = var_operand_def(IndexTypeConstr)
    result = result_def()

    traits = traits_def(Pure())

    def __init__(
        self, tile: SSAValue | Operation, indices: Sequence[SSAValue | Operation]
    ):
        tile_type = SSAValue.get(tile).type
        if not isinstance(tile_type, TileType):
            raise TypeError(f"pypto.tile.read needs a !pypto.tile, got {tile_type}")
        super().__init__(
            operands=[tile, indices], result_types=[tile_type.element_type]
        )

    @classmethod
    def parse(cls, parser: Parser) -> ReadOp:
        tile, indices, attributes, tile_type = _parse_element_access(parser)
        return cls.create(
            operands=[parser.resolve_operand(tile, tile_type), *indices],
            result_types=[tile_type.element_type],
            attributes=attributes,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        _print_element_access(printer, self, self.tile, self.indices)

    def verify_(self) -> None:
        tile = _tile(self.tile)
        _verify_element_type_of(tile, self.result.type, "result")
        _verify_element_in_bounds(self.indices, tile)


@irdl_op_definition
class WriteOp(IRDLOperation):
    """`%t2 = pypto.tile.write %e, %t[%r, %c] : tile`: a copy of `%t` with one element replaced."""

    name = "pypto.tile.write"

    T: ClassVar = VarConstraint("T", base(TileType))

    value = operand_def()
    tile = operand_def(T)
    indices = var_operand_def(IndexTypeConstr)
    result = result_def(T)

    traits = traits_def(Pure())

    def __init__(
        self,
        value: SSAValue | Operation,
        tile: SSAValue | Operation,
        indices: Sequence[SSAValue | Operation],
    ):
        super().__init__(
            operands=[value, tile, indices], result_types=[SSAValue.get(tile).type]
        )

    @classmethod
    def parse(cls, parser: Parser) -> WriteOp:
        value = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        tile, indices, attributes, tile_type = _parse_element_access(parser)
        return cls.create(
            operands=[
                parser.resolve_operand(value, tile_type.element_type),
                parser.resolve_operand(tile, tile_type),
                *indices,
            ],
            result_types=[tile_type],
            attributes=attributes,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.value)
        printer.print_string(", ")
        _print_element_access(printer, self, self.tile, self.indices)

    def verify_(self) -> None:
        tile = _tile(self.tile)
        _verify_element_type_of(tile, self.value.type, "value")
        _verify_element_in_bounds(self.indices, tile)


# --------------------------------------------------------------------------- #
# Data movement between on-chip spaces
# --------------------------------------------------------------------------- #


@irdl_op_definition
class ExtractOp(TileSyntaxOp):
    """`%l = pypto.tile.extract %m[%r, %c] : src -> dst`: a sub-tile, moved to another space."""

    name = "pypto.tile.extract"

    source = operand_def(TileType)
    offsets = var_operand_def(IndexTypeConstr)
    result = result_def(TileType)

    traits = traits_def(Pure())

    SYNTAX: ClassVar[TileOpSyntax] = TileOpSyntax(1, indexed=True)

    def __init__(
        self,
        source: SSAValue | Operation,
        offsets: Sequence[SSAValue | Operation],
        result_type: TileType,
    ):
        super().__init__(operands=[source, offsets], result_types=[result_type])

    def verify_(self) -> None:
        source = _tile(self.source)
        result = _tile(self.result)
        _verify_same_rank(source, result)
        _verify_same_elements(source, result)
        _verify_offsets_in_bounds(
            self.offsets, result.get_shape(), source.get_shape(), "tile"
        )


class TileToTileOp(TileSyntaxOp):
    """`%z = pypto.tile.<op> %x : src -> dst`: one tile in, one tile of another type out."""

    source = operand_def(TileType)
    result = result_def(TileType)

    traits = traits_def(Pure())

    SYNTAX: ClassVar[TileOpSyntax] = TileOpSyntax(1)

    def __init__(self, source: SSAValue | Operation, result_type: TileType):
        super().__init__(operands=[source], result_types=[result_type])


@irdl_op_definition
class MoveOp(TileToTileOp):
    """`%l = pypto.tile.move %m : src -> dst`: the same data in another memory space."""

    name = "pypto.tile.move"

    def verify_(self) -> None:
        source = _tile(self.source)
        result = _tile(self.result)
        _verify_same_shape(source, result, "move")
        _verify_same_elements(source, result)


# --------------------------------------------------------------------------- #
# Cube
# --------------------------------------------------------------------------- #


def _verify_matmul(lhs: TileType, rhs: TileType, result: TileType) -> None:
    _verify_space(lhs, MemorySpace.LEFT, "lhs")
    _verify_space(rhs, MemorySpace.RIGHT, "rhs")
    _verify_space(result, MemorySpace.ACC, "result")
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
    _verify_same_elements(lhs, rhs)


@irdl_op_definition
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
        _verify_matmul(_tile(self.lhs), _tile(self.rhs), _tile(self.result))


@irdl_op_definition
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
        _verify_matmul(_tile(self.lhs), _tile(self.rhs), _tile(self.result))


# --------------------------------------------------------------------------- #
# Vector math
# --------------------------------------------------------------------------- #


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


@irdl_op_definition
class AddOp(ElementwiseBinaryOp):
    name = "pypto.tile.add"


@irdl_op_definition
class SubOp(ElementwiseBinaryOp):
    name = "pypto.tile.sub"


@irdl_op_definition
class MulOp(ElementwiseBinaryOp):
    name = "pypto.tile.mul"


@irdl_op_definition
class DivOp(ElementwiseBinaryOp):
    name = "pypto.tile.div"


@irdl_op_definition
class MaxOp(ElementwiseBinaryOp):
    name = "pypto.tile.max"


@irdl_op_definition
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
        _verify_element_type_of(_tile(self.tile), self.scalar.type, "scalar")


@irdl_op_definition
class AddsOp(TileScalarOp):
    name = "pypto.tile.adds"


@irdl_op_definition
class SubsOp(TileScalarOp):
    name = "pypto.tile.subs"


@irdl_op_definition
class MulsOp(TileScalarOp):
    name = "pypto.tile.muls"


@irdl_op_definition
class DivsOp(TileScalarOp):
    name = "pypto.tile.divs"


@irdl_op_definition
class MaxsOp(TileScalarOp):
    name = "pypto.tile.maxs"


@irdl_op_definition
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


@irdl_op_definition
class ExpOp(UnaryOp):
    name = "pypto.tile.exp"


@irdl_op_definition
class NegOp(UnaryOp):
    name = "pypto.tile.neg"


@irdl_op_definition
class AbsOp(UnaryOp):
    name = "pypto.tile.abs"


@irdl_op_definition
class SqrtOp(UnaryOp):
    name = "pypto.tile.sqrt"


@irdl_op_definition
class RsqrtOp(UnaryOp):
    name = "pypto.tile.rsqrt"


@irdl_op_definition
class RecipOp(UnaryOp):
    name = "pypto.tile.recip"


@irdl_op_definition
class ReluOp(UnaryOp):
    name = "pypto.tile.relu"


@irdl_op_definition
class CastOp(TileToTileOp):
    """`%z = pypto.tile.cast %x : src -> dst`: element type conversion."""

    name = "pypto.tile.cast"

    def verify_(self) -> None:
        source = _tile(self.source)
        result = _tile(self.result)
        _verify_same_shape(source, result, "cast")
        if source.space != result.space:
            raise VerifyException(
                f"cast must keep the memory space, got {source.memory_space} -> "
                f"{result.memory_space}"
            )


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
    _verify_same_elements(source, row_vector)
    _verify_space(row_vector, source.memory_space, f"row op {role}")


class RowReductionOp(TileToTileOp):
    """`%z = pypto.tile.row_<op> %x : [R,C] -> [R,1]`: reduce every row."""

    def verify_(self) -> None:
        source = _tile(self.source)
        rows, _ = _verify_row_operand(source, "source")
        _verify_row_vector(rows, _tile(self.result), source, "result")


@irdl_op_definition
class RowSumOp(RowReductionOp):
    name = "pypto.tile.row_sum"


@irdl_op_definition
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
        source = _tile(self.source)
        rows, _ = _verify_row_operand(source, "source")
        _verify_row_vector(rows, _tile(self.row_vector), source, "row vector")


@irdl_op_definition
class RowExpandAddOp(RowExpandOp):
    name = "pypto.tile.row_expand_add"


@irdl_op_definition
class RowExpandSubOp(RowExpandOp):
    name = "pypto.tile.row_expand_sub"


@irdl_op_definition
class RowExpandMulOp(RowExpandOp):
    name = "pypto.tile.row_expand_mul"


@irdl_op_definition
class RowExpandDivOp(RowExpandOp):
    name = "pypto.tile.row_expand_div"


@irdl_op_definition
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
        _verify_element_type_of(_tile(self.result), self.scalar.type, "scalar")


# --------------------------------------------------------------------------- #
# Cross-core channels
# --------------------------------------------------------------------------- #


class TPushOp(TileSyntaxOp, CrossCoreChannelOp):
    """`pypto.tile.tpush_to_<core> %t : tile`: send a tile to the other core type."""

    DIRECTION: ClassVar[ChannelDirection]

    tile = operand_def(TileType)

    traits = traits_def(UsesCrossCoreChannel())

    SYNTAX: ClassVar[TileOpSyntax] = TileOpSyntax(1, result=ResultSyntax.NONE)

    def __init__(self, tile: SSAValue | Operation):
        super().__init__(operands=[tile])

    @property
    def channel(self) -> CrossCoreChannel:
        return CrossCoreChannel(self.DIRECTION)


class TPopOp(TileSyntaxOp, CrossCoreChannelOp):
    """`%t = pypto.tile.tpop_from_<core> : tile`: receive a tile from the other core type."""

    DIRECTION: ClassVar[ChannelDirection]

    result = result_def(TileType)

    traits = traits_def(UsesCrossCoreChannel())

    SYNTAX: ClassVar[TileOpSyntax] = TileOpSyntax(0)

    def __init__(self, result_type: TileType):
        super().__init__(result_types=[result_type])

    @property
    def channel(self) -> CrossCoreChannel:
        return CrossCoreChannel(self.DIRECTION)


@irdl_op_definition
class TPushToAivOp(TPushOp):
    name = "pypto.tile.tpush_to_aiv"
    DIRECTION: ClassVar[ChannelDirection] = ChannelDirection.AIC_TO_AIV


@irdl_op_definition
class TPushToAicOp(TPushOp):
    name = "pypto.tile.tpush_to_aic"
    DIRECTION: ClassVar[ChannelDirection] = ChannelDirection.AIV_TO_AIC


@irdl_op_definition
class TPopFromAicOp(TPopOp):
    name = "pypto.tile.tpop_from_aic"
    DIRECTION: ClassVar[ChannelDirection] = ChannelDirection.AIC_TO_AIV


@irdl_op_definition
class TPopFromAivOp(TPopOp):
    name = "pypto.tile.tpop_from_aiv"
    DIRECTION: ClassVar[ChannelDirection] = ChannelDirection.AIV_TO_AIC


def writes_accumulator(op: Operation) -> bool:
    """Whether `op` is a matmul that writes the cube accumulator space (`acc`)."""
    return (
        isinstance(op, MatmulOp | MatmulAccOp)
        and _tile(op.result).memory_space == MemorySpace.ACC
    )


TILE_OPS: tuple[type[IRDLOperation], ...] = (
    LoadOp,
    StoreOp,
    ReadOp,
    WriteOp,
    ExtractOp,
    MoveOp,
    MatmulOp,
    MatmulAccOp,
    AddOp,
    SubOp,
    MulOp,
    DivOp,
    MaxOp,
    MinOp,
    AddsOp,
    SubsOp,
    MulsOp,
    DivsOp,
    MaxsOp,
    MinsOp,
    ExpOp,
    NegOp,
    AbsOp,
    SqrtOp,
    RsqrtOp,
    RecipOp,
    ReluOp,
    CastOp,
    RowSumOp,
    RowMaxOp,
    RowExpandAddOp,
    RowExpandSubOp,
    RowExpandMulOp,
    RowExpandDivOp,
    FullOp,
    TPushToAivOp,
    TPushToAicOp,
    TPopFromAicOp,
    TPopFromAivOp,
)
