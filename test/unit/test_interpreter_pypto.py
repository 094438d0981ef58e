"""The interpreter's `pypto` ops: every op against an independent numpy computation."""

from __future__ import annotations

from collections.abc import Callable

import ml_dtypes
import numpy as np
import pytest
from interpreter_helpers import (
    BF16,
    F32,
    Array,
    assert_bits,
    normal,
    parse,
    result,
    run,
    tile_kernel,
    tile_param,
)
from xdsl.utils.exceptions import InterpretationError

from pypto_dialect.effects import ChannelDirection
from pypto_dialect.interpreter import run_kernel

# --------------------------------------------------------------------------- #
# Elementwise math, against numpy in the element type's compute type
# --------------------------------------------------------------------------- #

BINARY = {
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "div": np.divide,
    "max": np.maximum,
    "min": np.minimum,
}


@pytest.mark.parametrize("element", ["f32", "bf16", "f16"])
@pytest.mark.parametrize("name", BINARY)
def test_binary(name: str, element: str) -> None:
    tile = tile_param((4, 8), element)
    kernel = tile_kernel(
        f"  %r = pypto.tile.{name} %x, %y : {tile}", f"%x: {tile}, %y: {tile}", tile
    )
    dtype = np.dtype(
        {"f32": np.float32, "bf16": ml_dtypes.bfloat16, "f16": np.float16}[element]
    )
    x, y = normal((4, 8), dtype, 1), normal((4, 8), dtype, 2)
    # The rule: compute in f32, round once to the element type.
    expected = BINARY[name](x.astype(F32), y.astype(F32)).astype(dtype)
    assert_bits(result(kernel, x=x, y=y), expected)


@pytest.mark.parametrize("name", BINARY)
def test_tile_scalar(name: str) -> None:
    tile = tile_param((4, 8), "bf16")
    kernel = tile_kernel(
        f"  %s = arith.constant 0.3 : bf16\n"
        f"  %r = pypto.tile.{name}s %x, %s : {tile}, bf16",
        f"%x: {tile}",
        tile,
    )
    x = normal((4, 8), BF16)
    scalar = np.float32(ml_dtypes.bfloat16(0.3))
    expected = BINARY[name](x.astype(F32), scalar).astype(BF16)
    assert_bits(result(kernel, x=x), expected)


UNARY: dict[str, Callable[[Array], Array]] = {
    "exp": np.exp,
    "neg": np.negative,
    "abs": np.abs,
    "sqrt": np.sqrt,
    "rsqrt": lambda x: np.float32(1) / np.sqrt(x),
    "recip": lambda x: np.float32(1) / x,
    "relu": lambda x: np.maximum(x, np.float32(0)),
}


@pytest.mark.parametrize("name", UNARY)
def test_unary(name: str) -> None:
    tile = tile_param((4, 8), "f32")
    kernel = tile_kernel(f"  %r = pypto.tile.{name} %x : {tile}", f"%x: {tile}", tile)
    x = np.abs(normal((4, 8), F32)) if "sqrt" in name else normal((4, 8), F32)
    with np.errstate(all="ignore"):
        expected = UNARY[name](x)
    assert_bits(result(kernel, x=x), expected)


def test_bf16_unary_computes_in_f32_and_rounds_once() -> None:
    tile = tile_param((64,), "bf16")
    kernel = tile_kernel(f"  %r = pypto.tile.exp %x : {tile}", f"%x: {tile}", tile)
    x = normal((64,), BF16)
    assert_bits(result(kernel, x=x), np.exp(x.astype(F32)).astype(BF16))


def test_integer_math_wraps_and_divides_toward_zero() -> None:
    tile = tile_param((6,), "i8")
    kernel = tile_kernel(
        f"  %a = pypto.tile.add %x, %y : {tile}\n"
        f"  %d = pypto.tile.div %x, %y : {tile}\n"
        f"  %r = pypto.tile.sub %a, %d : {tile}",
        f"%x: {tile}, %y: {tile}",
        tile,
    )
    x = np.array([127, -7, 7, -7, -128, 9], np.int8)
    y = np.array([1, 2, -2, -2, -1, 3], np.int8)
    wrapped_sum = np.array([-128, -5, 5, -9, 127, 12], np.int8)
    truncated_quotient = np.array([127, -3, -3, 3, -128, 3], np.int8)
    assert_bits(result(kernel, x=x, y=y), wrapped_sum - truncated_quotient)


def test_integer_division_by_zero_is_an_error() -> None:
    tile = tile_param((2,), "i32")
    kernel = tile_kernel(
        f"  %r = pypto.tile.div %x, %y : {tile}", f"%x: {tile}, %y: {tile}", tile
    )
    with pytest.raises(
        InterpretationError, match=r"pypto.tile.div: integer division by zero"
    ):
        run(kernel, x=np.ones(2, np.int32), y=np.array([1, 0], np.int32))


def test_float_division_by_zero_is_ieee() -> None:
    tile = tile_param((3,), "f32")
    kernel = tile_kernel(
        f"  %r = pypto.tile.div %x, %y : {tile}", f"%x: {tile}, %y: {tile}", tile
    )
    x, y = np.array([1, -1, 0], F32), np.zeros(3, F32)
    actual = result(kernel, x=x, y=y)
    assert list(actual[:2]) == [np.inf, -np.inf] and np.isnan(actual[2])
    with np.errstate(all="ignore"):
        assert_bits(actual, x / y)  # the same NaN bits (the CPU's default NaN)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            "pypto.tile.exp %x : {t}",
            "pypto.tile.exp needs a float element type, got int32",
        ),
        (
            "pypto.tile.neg %b : {b}",
            "pypto.tile.neg: arithmetic on i1 tiles is not supported",
        ),
    ],
)
def test_unsupported_element_types(body: str, message: str) -> None:
    t, b = tile_param((2,), "i32"), tile_param((2,), "i1")
    op = body.format(t=t, b=b)
    result_type = b if "%b" in op else t
    kernel = tile_kernel(f"  %r = {op}", f"%x: {t}, %b: {b}", result_type)
    with pytest.raises(InterpretationError, match=message):
        run(kernel, x=np.ones(2, np.int32), b=np.ones(2, bool))


# --------------------------------------------------------------------------- #
# Rows, fill, element access, data movement
# --------------------------------------------------------------------------- #


def row_kernel(op: str) -> str:
    tile, row = tile_param((3, 4), "f32"), tile_param((3, 1), "f32")
    return tile_kernel(
        f"  %r = pypto.tile.{op} %x : {tile} -> {row}", f"%x: {tile}", row
    )


def test_row_sum_adds_left_to_right_in_the_compute_type() -> None:
    x = np.array([[1e8, 1, -1e8, 1], [1, 2, 3, 4], [0.1, 0.2, 0.3, 0.4]], F32)
    expected = np.zeros((3, 1), F32)
    for column in x.T:
        expected[:, 0] += column
    assert expected[0, 0] == 1  # pairwise summation would give 0 or 2
    assert_bits(result(row_kernel("row_sum"), x=x), expected)


def test_row_max() -> None:
    x = normal((3, 4), F32)
    assert_bits(result(row_kernel("row_max"), x=x), x.max(axis=1, keepdims=True))


@pytest.mark.parametrize(
    ("name", "reference"),
    [("add", np.add), ("sub", np.subtract), ("mul", np.multiply), ("div", np.divide)],
)
def test_row_expand(name: str, reference: np.ufunc) -> None:
    tile, row = tile_param((3, 4), "f32"), tile_param((3, 1), "f32")
    kernel = tile_kernel(
        f"  %r = pypto.tile.row_expand_{name} %x, %v : {tile}, {row}",
        f"%x: {tile}, %v: {row}",
        tile,
    )
    x, v = normal((3, 4), F32, 1), normal((3, 1), F32, 2)
    assert_bits(result(kernel, x=x, v=v), reference(x, v))


def test_full() -> None:
    tile = tile_param((2, 3), "bf16")
    kernel = tile_kernel(
        f"  %s = arith.constant 1.5 : bf16\n  %r = pypto.tile.full %s : bf16 -> {tile}",
        "",
        tile,
    )
    assert_bits(result(kernel), np.full((2, 3), 1.5, BF16))


def test_read_and_write_one_element() -> None:
    tile = tile_param((2, 3), "f32")
    kernel = f"""
func.func @k(%x: {tile}) -> ({tile}, f32) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %e = pypto.tile.read %x[%c1, %c2] : {tile}
  %r = pypto.tile.write %e, %x[%c0, %c0] : {tile}
  func.return %r, %e : {tile}, f32
}}
"""
    x = normal((2, 3), F32)
    written, element = run(kernel, x=x).results
    expected = x.copy()
    expected[0, 0] = x[1, 2]
    assert_bits(written, expected)
    assert_bits(element, np.array(x[1, 2]))


def test_extract_and_move() -> None:
    mat, left = tile_param((4, 6), "bf16", "mat"), tile_param((2, 3), "bf16", "left")
    kernel = tile_kernel(
        "  %c1 = arith.constant 1 : index\n"
        "  %c3 = arith.constant 3 : index\n"
        f"  %m = pypto.tile.move %x : {mat} -> {mat.replace('mat', 'vec')}\n"
        f"  %r = pypto.tile.extract %x[%c1, %c3] : {mat} -> {left}",
        f"%x: {mat}",
        left,
    )
    x = normal((4, 6), BF16)
    assert_bits(result(kernel, x=x), x[1:3, 3:6])


def test_tiles_are_read_only_and_loads_copy() -> None:
    kernel = """
func.func @k(%t: !pypto.tensor<4xf32>) -> !pypto.tile<4xf32, vec> {
  %c0 = arith.constant 0 : index
  %r = pypto.tile.load %t[%c0] : !pypto.tensor<4xf32> -> !pypto.tile<4xf32, vec>
  %one = arith.constant 1.0 : f32
  %y = pypto.tile.adds %r, %one : !pypto.tile<4xf32, vec>, f32
  pypto.tile.store %y, %t[%c0] : !pypto.tile<4xf32, vec>, !pypto.tensor<4xf32>
  func.return %r : !pypto.tile<4xf32, vec>
}
"""
    t = np.arange(4, dtype=F32)
    outcome = run(kernel, t=t)
    (loaded,) = outcome.results
    assert_bits(loaded, t)  # the store after the load did not change the tile
    assert_bits(outcome.tensors["t"], t + 1)
    assert_bits(t, np.arange(4, dtype=F32))  # the caller's array is untouched


# --------------------------------------------------------------------------- #
# Matmul
# --------------------------------------------------------------------------- #


def matmul_kernel(m: int, k: int, n: int, element: str, acc: str) -> str:
    left = tile_param((m, k), element, "left")
    right = tile_param((k, n), element, "right")
    out = tile_param((m, n), acc, "acc")
    return f"""
func.func @k(%a: {left}, %b: {right}, %c: {out}) -> ({out}, {out}) {{
  %p = pypto.tile.matmul %a, %b : {left}, {right} -> {out}
  %q = pypto.tile.matmul_acc %c, %a, %b : {out}, {left}, {right}
  func.return %p, %q : {out}, {out}
}}
"""


def sequential_f32_matmul(c: Array, a: Array, b: Array) -> Array:
    """c + a @ b, adding the f32 products in increasing k."""
    total: Array = c.astype(F32)
    for k in range(a.shape[1]):
        total += np.multiply.outer(a[:, k].astype(F32), b[k].astype(F32))
    return total


def test_matmul_accumulates_in_f32() -> None:
    # 1 + 2**-10 is an f32 but not a bf16: a bf16 accumulator would lose it.
    a = np.array([[1.0, 1.0]], BF16)
    b = np.array([[1.0], [2**-10]], BF16)
    c = np.array([[2**-12]], F32)
    product, accumulated = run(
        matmul_kernel(1, 2, 1, "bf16", "f32"), a=a, b=b, c=c
    ).results
    assert_bits(product, np.array([[1 + 2**-10]], F32))
    assert_bits(accumulated, np.array([[1 + 2**-10 + 2**-12]], F32))


def test_matmul_against_numpy() -> None:
    a, b = normal((4, 16), BF16, 1), normal((16, 8), BF16, 2)
    c = normal((4, 8), F32, 3)
    product, accumulated = run(
        matmul_kernel(4, 16, 8, "bf16", "f32"), a=a, b=b, c=c
    ).results
    assert_bits(product, sequential_f32_matmul(np.zeros((4, 8), F32), a, b))
    assert_bits(accumulated, sequential_f32_matmul(c, a, b))
    exact = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(product, exact, rtol=1e-5, atol=1e-5)


def test_matmul_rounds_once_to_a_bf16_accumulator() -> None:
    a, b = normal((2, 8), BF16, 1), normal((8, 3), BF16, 2)
    c = normal((2, 3), BF16, 3)
    _, accumulated = run(matmul_kernel(2, 8, 3, "bf16", "bf16"), a=a, b=b, c=c).results
    assert_bits(accumulated, sequential_f32_matmul(c, a, b).astype(BF16))


def test_integer_matmul_is_exact() -> None:
    a = np.array([[100, -100], [3, 4]], np.int8)
    b = np.array([[100, 1], [-100, 2]], np.int8)
    c = np.array([[1, 2], [3, 4]], np.int32)
    product, accumulated = run(
        matmul_kernel(2, 2, 2, "i8", "i32"), a=a, b=b, c=c
    ).results
    expected = a.astype(np.int32) @ b.astype(np.int32)
    assert_bits(product, expected)
    assert_bits(accumulated, c + expected)


# --------------------------------------------------------------------------- #
# Out-of-bounds windows
# --------------------------------------------------------------------------- #

WINDOWS = """
func.func @k(%x: !pypto.tensor<8x8xf32>, %i: index, %j: index, %k: index) {
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %x[%i, %c0] : !pypto.tensor<8x8xf32> -> !pypto.tile<4x8xf32, vec>
  %s = pypto.tile.extract %t[%c0, %j] : !pypto.tile<4x8xf32, vec> -> !pypto.tile<4x4xf32, vec>
  %e = pypto.tile.read %t[%j, %c0] : !pypto.tile<4x8xf32, vec>
  pypto.tile.store %s, %x[%k, %k] : !pypto.tile<4x4xf32, vec>, !pypto.tensor<8x8xf32>
  func.return
}
"""


@pytest.mark.parametrize(
    ("i", "j", "k", "message"),
    [
        (
            5,
            0,
            0,
            r"pypto.tile.load: window \[5:9, 0:8\] is out of bounds of !pypto.tensor<8x8xf32>",
        ),
        (-1, 0, 0, r"pypto.tile.load: window \[-1:3, 0:8\] is out of bounds"),
        (
            0,
            5,
            0,
            r"pypto.tile.extract: window \[0:4, 5:9\] is out of bounds of !pypto.tile<4x8xf32, vec>",
        ),
        (
            0,
            4,
            0,
            r"pypto.tile.read: index \[4, 0\] is out of bounds of !pypto.tile<4x8xf32, vec>",
        ),
        (
            0,
            0,
            5,
            r"pypto.tile.store: window \[5:9, 5:9\] is out of bounds of !pypto.tensor<8x8xf32>",
        ),
    ],
)
def test_out_of_bounds_windows(i: int, j: int, k: int, message: str) -> None:
    with pytest.raises(InterpretationError, match=message):
        run(WINDOWS, x=np.zeros((8, 8), F32), i=i, j=j, k=k)
    run(WINDOWS, x=np.zeros((8, 8), F32), i=4, j=3, k=4)  # the last valid windows


def test_write_out_of_bounds() -> None:
    tile = tile_param((2, 3), "f32")
    kernel = tile_kernel(
        "  %e = arith.constant 1.0 : f32\n"
        f"  %r = pypto.tile.write %e, %x[%c0, %j] : {tile}",
        f"%x: {tile}, %j: index",
        tile,
    )
    with pytest.raises(InterpretationError, match=r"pypto.tile.write: index \[0, 3\]"):
        run(kernel, x=np.zeros((2, 3), F32), j=3)


# --------------------------------------------------------------------------- #
# Cross-core channels
# --------------------------------------------------------------------------- #

CHANNELS = """
func.func @k(%x: !pypto.tile<2xf32, vec>) -> !pypto.tile<2xf32, vec> {
  pypto.tile.tpush_to_aiv %x : !pypto.tile<2xf32, vec>
  pypto.tile.tpush_to_aic %x : !pypto.tile<2xf32, vec>
  %y = pypto.tile.tpop_from_aic : !pypto.tile<2xf32, vec>
  func.return %y : !pypto.tile<2xf32, vec>
}
"""


def test_channels_are_fifos() -> None:
    x, early = np.array([1, 2], F32), np.array([3, 4], F32)
    outcome = run_kernel(
        parse(CHANNELS), "k", {"x": x}, channels={ChannelDirection.AIC_TO_AIV: [early]}
    )
    assert_bits(outcome.results[0], early)
    assert set(outcome.channels) == {
        ChannelDirection.AIC_TO_AIV,
        ChannelDirection.AIV_TO_AIC,
    }
    assert_bits(outcome.channels[ChannelDirection.AIC_TO_AIV][0], x)
    assert_bits(outcome.outputs()["aiv_to_aic#0"], x)


def test_popping_an_empty_channel_is_an_error() -> None:
    kernel = """
func.func @k() {
  %y = pypto.tile.tpop_from_aiv : !pypto.tile<2xf32, vec>
  func.return
}
"""
    message = "pypto.tile.tpop_from_aiv: the aiv_to_aic channel is empty"
    with pytest.raises(InterpretationError, match=message):
        run(kernel)


def test_popping_a_tile_of_another_type_is_an_error() -> None:
    with pytest.raises(InterpretationError, match="popped a 3xf32 tile, expected"):
        run_kernel(
            parse(CHANNELS),
            "k",
            {"x": np.zeros(2, F32)},
            channels={ChannelDirection.AIC_TO_AIV: [np.zeros(3, F32)]},
        )
