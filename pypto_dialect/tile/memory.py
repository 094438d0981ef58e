"""
The tile ops that move data: loads and stores between GM tensors and tiles,
element reads and writes, and extracts and moves between on-chip spaces.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar, cast

from xdsl.dialects.builtin import IndexTypeConstr
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    VarConstraint,
    base,
    operand_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import Pure

from pypto_dialect.effects import (
    ReadsTensorWindow,
    TensorWindowAccess,
    WritesTensorWindow,
)
from pypto_dialect.fast_verify import pypto_op_definition
from pypto_dialect.syntax import (
    ResultSyntax,
    TileOpSyntax,
    TileSyntaxOp,
    parse_attributes_and_type,
    parse_indices,
    print_indices,
    print_pieces,
)
from pypto_dialect.tile.verification import (
    tile_of,
    verify_element_in_bounds,
    verify_element_type_of,
    verify_offsets_in_bounds,
    verify_same_elements,
    verify_same_rank,
    verify_same_shape,
)
from pypto_dialect.types import TensorType, TileType

_item_at = cast(Callable[[Sequence[SSAValue], int], SSAValue], tuple.__getitem__)  # pyright: ignore[reportUnknownMemberType]
"""An item of xDSL's operand or result tuple, without its Python `__getitem__`."""
_items_from = cast(
    Callable[[Sequence[SSAValue], slice], tuple[SSAValue, ...]],
    tuple.__getitem__,  # pyright: ignore[reportUnknownMemberType]
)
"""A slice of xDSL's operand tuple, likewise."""
_AFTER_SOURCE = slice(1, None)
"""The offsets of a load: its operands after the source tensor."""
_AFTER_DESTINATION = slice(2, None)
"""The offsets of a store: its operands after the tile and the destination."""


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
    attributes, tile_type = parse_attributes_and_type(parser, TileType)
    return tile, indices, attributes, tile_type


# --------------------------------------------------------------------------- #
# GM <-> tile
# --------------------------------------------------------------------------- #


@pypto_op_definition
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

    # The window accessors read the operand tuple directly: the analyses ask
    # them for every load and store, and IRDL's accessors find the variadic
    # `offsets` again on each call. Through `tuple`'s own methods: xDSL's
    # `SSAValues.__getitem__` is a Python call.
    @property
    def accessed_tensor(self) -> SSAValue:
        return _item_at(self._operands, 0)

    @property
    def window_offsets(self) -> Sequence[SSAValue]:
        return _items_from(self._operands, _AFTER_SOURCE)

    @property
    def window_shape(self) -> tuple[int, ...]:
        return tile_of(_item_at(self.results, 0)).get_shape()

    def verify_(self) -> None:
        assert isinstance(self.src.type, TensorType)
        tile = tile_of(self.result)
        verify_same_rank(self.src.type, tile)
        verify_same_elements(self.src.type, tile)
        verify_offsets_in_bounds(
            self.offsets, tile.get_shape(), self.src.type.get_shape(), "tensor"
        )


@pypto_op_definition
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
        return _item_at(self._operands, 1)

    @property
    def window_offsets(self) -> Sequence[SSAValue]:
        return _items_from(self._operands, _AFTER_DESTINATION)

    @property
    def window_shape(self) -> tuple[int, ...]:
        return tile_of(_item_at(self._operands, 0)).get_shape()

    def verify_(self) -> None:
        assert isinstance(self.dst.type, TensorType)
        tile = tile_of(self.value)
        verify_same_rank(tile, self.dst.type)
        verify_same_elements(tile, self.dst.type)
        verify_offsets_in_bounds(
            self.offsets, tile.get_shape(), self.dst.type.get_shape(), "tensor"
        )


# --------------------------------------------------------------------------- #
# Element access
# --------------------------------------------------------------------------- #


@pypto_op_definition
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
        tile = tile_of(self.tile)
        verify_element_type_of(tile, self.result.type, "result")
        verify_element_in_bounds(self.indices, tile)


@pypto_op_definition
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
        tile = tile_of(self.tile)
        verify_element_type_of(tile, self.value.type, "value")
        verify_element_in_bounds(self.indices, tile)


# --------------------------------------------------------------------------- #
# Data movement between on-chip spaces
# --------------------------------------------------------------------------- #


@pypto_op_definition
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
        source = tile_of(self.source)
        result = tile_of(self.result)
        verify_same_rank(source, result)
        verify_same_elements(source, result)
        verify_offsets_in_bounds(
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


@pypto_op_definition
class MoveOp(TileToTileOp):
    """`%l = pypto.tile.move %m : src -> dst`: the same data in another memory space."""

    name = "pypto.tile.move"

    def verify_(self) -> None:
        source = tile_of(self.source)
        result = tile_of(self.result)
        verify_same_shape(source, result, "move")
        verify_same_elements(source, result)
