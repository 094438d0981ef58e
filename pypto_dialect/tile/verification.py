"""
The verification helpers the tile op modules share: operand counts, bounds of
constant offsets and indices, and equal ranks, shapes, element types and
memory spaces.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Attribute, SSAValue
from xdsl.utils.exceptions import VerifyException

from pypto_dialect.constants import constant_int
from pypto_dialect.numbers import integer_text
from pypto_dialect.types import MemorySpace, TensorType, TileType, format_shape


def _verify_index_count(
    indices: Sequence[SSAValue], container: Sequence[int], what: str
) -> None:
    if len(indices) != len(container):
        raise VerifyException(
            f"expected {len(container)} {what} (one per dimension), got {len(indices)}"
        )


def verify_offsets_in_bounds(
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
            span = f"[{integer_text(value)}, {integer_text(value + extent)})"
            raise VerifyException(
                f"window {span} is out of bounds of dimension {dim} of size {size}"
            )


def verify_element_in_bounds(indices: Sequence[SSAValue], tile: TileType) -> None:
    """Check the index count, and that constant indices fall inside the tile."""
    shape = tile.get_shape()
    _verify_index_count(indices, shape, "indices")
    for dim, (index, size) in enumerate(zip(indices, shape, strict=True)):
        value = constant_int(index)
        if value is not None and not 0 <= value < size:
            raise VerifyException(
                f"index {integer_text(value)} is out of bounds of dimension {dim} "
                f"of size {size}"
            )


def verify_same_elements(
    lhs: TileType | TensorType, rhs: TileType | TensorType
) -> None:
    if lhs.element_type != rhs.element_type:
        raise VerifyException(
            f"element types differ: {lhs.element_type} and {rhs.element_type}"
        )


def verify_same_rank(lhs: TileType | TensorType, rhs: TileType | TensorType) -> None:
    if lhs.get_num_dims() != rhs.get_num_dims():
        raise VerifyException(f"ranks differ: {lhs} and {rhs}")


def verify_space(tile: TileType, expected: MemorySpace, role: str) -> None:
    if tile.memory_space != expected:
        raise VerifyException(
            f"{role} must be in memory space {expected.value}, "
            f"got {tile.memory_space.value}"
        )


def verify_element_type_of(tile: TileType, scalar: Attribute, role: str) -> None:
    if scalar != tile.element_type:
        raise VerifyException(
            f"{role} type {scalar} must equal the tile element type {tile.element_type}"
        )


def verify_same_shape(source: TileType, result: TileType, op: str) -> None:
    if source.get_shape() != result.get_shape():
        raise VerifyException(
            f"{op} must keep the shape, got {format_shape(source.get_shape())} -> "
            f"{format_shape(result.get_shape())}"
        )


def tile_of(value: SSAValue) -> TileType:
    """The tile type of a value whose type the op definition already constrains."""
    assert isinstance(value.type, TileType)
    return value.type
