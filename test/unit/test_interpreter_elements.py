"""The interpreter's conversion rule (`convert`), through `pypto.tile.cast`."""

from __future__ import annotations

import numpy as np
from interpreter_helpers import BF16, F32, assert_bits, result, tile_kernel, tile_param


def cast_kernel(source: str, target: str, size: int) -> str:
    return tile_kernel(
        f"  %r = pypto.tile.cast %x : {tile_param((size,), source)} -> "
        f"{tile_param((size,), target)}",
        f"%x: {tile_param((size,), source)}",
        tile_param((size,), target),
    )


def test_cast_float_to_bf16_rounds_to_nearest_even() -> None:
    # 1 + 2**-8 lies halfway between two bf16 values: ties go to the even one.
    x = np.array([1 + 2**-8, 1 + 3 * 2**-8, 1 + 2**-8 + 2**-20, -0.0], F32)
    expected = np.array([1.0, 1 + 2**-6, 1 + 2**-7, -0.0], BF16)
    assert_bits(result(cast_kernel("f32", "bf16", 4), x=x), expected)


def test_cast_float_to_int_truncates_and_saturates() -> None:
    x = np.array([2.9, -2.9, 300.5, -1000.0, np.nan, np.inf], F32)
    expected = np.array([2, -2, 127, -128, 0, 127], np.int8)
    assert_bits(result(cast_kernel("f32", "i8", 6), x=x), expected)


def test_cast_integers() -> None:
    x = np.array([-1, 300, 0, 2**31 - 1], np.int32)
    assert_bits(result(cast_kernel("i32", "i8", 4), x=x), x.astype(np.int8))
    assert_bits(
        result(cast_kernel("i32", "f32", 4), x=x), x.astype(np.float64).astype(F32)
    )
    assert_bits(result(cast_kernel("i32", "i1", 4), x=x), x != 0)
    flags = np.array([True, False, True, True])
    assert_bits(result(cast_kernel("i1", "i32", 4), x=flags), flags.astype(np.int32))
