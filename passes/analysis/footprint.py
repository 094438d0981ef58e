"""
The bytes a tile takes: its elements (`tile_bytes`), and its footprint in its
memory space with the hardware's row and fractal padding (`padded_bytes`).
"""

import math

from xdsl.dialects.builtin import FixedBitwidthType

from pypto_dialect.types import MemorySpace, TileType

FRACTAL_ROWS = 16
"""Rows of a cube fractal (and columns of an `acc` one)."""
BLOCK_BYTES = 32
"""A fractal row of `mat` / `left` / `right`, and the alignment of a `vec` row."""
BIAS_ALIGNMENT = 64
"""Bytes a bias-table tile is aligned to."""


def _ceil(value: int, multiple: int) -> int:
    return -(-value // multiple) * multiple


def element_bits(tile: TileType) -> int:
    """The bits of one element of a (verified) tile."""
    element = tile.element_type
    assert isinstance(element, FixedBitwidthType), "verified tiles have sized elements"
    return element.bitwidth


def _rows_and_columns(tile: TileType) -> tuple[int, int]:
    """The tile as a matrix: its last dimension, and the product of the others."""
    *outer, last = tile.get_shape() or (1,)
    return math.prod(outer), last


def tile_bytes(tile: TileType) -> int:
    """The bytes of a tile's elements (sub-byte elements packed), without padding."""
    return -(-math.prod(tile.get_shape()) * element_bits(tile) // 8)


def padded_bytes(tile: TileType) -> int:
    """
    The bytes a tile occupies in its memory space: rows of 32 bytes in `vec`
    (UB); 16-row fractals of 32-byte rows in `mat` and `left` (NZ) and
    `right` (ZN: its rows are K, in blocks of 32 bytes of elements, and its
    16 columns per fractal); 16 x 16 elements in `acc`; 64 bytes in `bias`.
    """
    rows, columns = _rows_and_columns(tile)
    bits = element_bits(tile)

    def row_bytes(count: int) -> int:
        return _ceil(-(-count * bits // 8), BLOCK_BYTES)

    match tile.memory_space:
        case MemorySpace.VEC:
            return rows * row_bytes(columns)
        case MemorySpace.MAT | MemorySpace.LEFT:
            return _ceil(rows, FRACTAL_ROWS) * row_bytes(columns)
        case MemorySpace.RIGHT:
            return row_bytes(rows) * _ceil(columns, FRACTAL_ROWS)
        case MemorySpace.ACC:
            cells = _ceil(rows, FRACTAL_ROWS) * _ceil(columns, FRACTAL_ROWS)
            return -(-cells * bits // 8)
        case MemorySpace.BIAS:
            return _ceil(tile_bytes(tile), BIAS_ALIGNMENT)
