"""The numpy interpreter: every op against an independent numpy computation."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np
import pytest
from numpy.typing import NDArray
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser
from xdsl.utils.exceptions import InterpretationError

from pypto_dialect.context import pypto_context
from pypto_dialect.effects import ChannelDirection
from pypto_dialect.interpreter import (
    RANDOM_INDEX_RANGE,
    RANDOM_INT_RANGE,
    KernelArg,
    KernelRun,
    bit_identical,
    compare_runs,
    describe_difference,
    find_kernel,
    random_inputs,
    run_kernel,
)

EXAMPLES = Path(__file__).parents[2] / "examples"
BF16 = np.dtype(ml_dtypes.bfloat16)
F32 = np.dtype(np.float32)

Array = NDArray[Any]


def parse(text: str) -> ModuleOp:
    module = Parser(pypto_context(), text).parse_module()
    module.verify()
    return module


def run(text: str, **args: KernelArg) -> KernelRun:
    """Run `@k` of `text`."""
    return run_kernel(parse(text), "k", args)


def result(text: str, **args: KernelArg) -> Array:
    """The single result of `@k`."""
    (value,) = run(text, **args).results
    return value


def assert_bits(actual: Array, expected: Array) -> None:
    assert bit_identical(actual, expected), (actual, expected)


def tile_kernel(body: str, params: str, result_type: str) -> str:
    """`@k(params) -> result_type` whose body ends by returning `%r`."""
    return f"""
func.func @k({params}) -> {result_type} {{
  %c0 = arith.constant 0 : index
{body}
  func.return %r : {result_type}
}}
"""


def tile_param(shape: tuple[int, ...], element: str, space: str = "vec") -> str:
    return f"!pypto.tile<{'x'.join(map(str, shape))}x{element}, {space}>"


def normal(shape: tuple[int, ...], dtype: np.dtype[Any], seed: int = 0) -> Array:
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


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
# Casts
# --------------------------------------------------------------------------- #


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
# Control flow
# --------------------------------------------------------------------------- #


def test_scf_for_with_iter_args() -> None:
    kernel = """
func.func @k(%n: index) -> index {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %sum = scf.for %i = %c0 to %n step %c2 iter_args(%s = %c0) -> (index) {
    %next = arith.addi %s, %i : index
    scf.yield %next : index
  }
  func.return %sum : index
}
"""
    assert result(kernel, n=9)[()] == 0 + 2 + 4 + 6 + 8
    assert result(kernel, n=0)[()] == 0


IF_KERNEL = """
func.func @k(%a: index, %b: index) -> f32 {
  %less = arith.cmpi slt, %a, %b : index
  %r = scf.if %less -> (f32) {
    %one = arith.constant 1.0 : f32
    scf.yield %one : f32
  } else {
    %two = arith.constant 2.0 : f32
    scf.yield %two : f32
  }
  func.return %r : f32
}
"""


@pytest.mark.parametrize(
    ("a", "b", "expected"), [(1, 2, 1.0), (2, 1, 2.0), (3, 3, 2.0)]
)
def test_scf_if_takes_the_right_branch(a: int, b: int, expected: float) -> None:
    assert result(IF_KERNEL, a=a, b=b)[()] == expected


PIPELINE = """
func.func @k(%x: !pypto.tensor<64x8xf32>, %out: !pypto.tensor<64x8xf32>, %lb: index, %ub: index) -> !pypto.tile<4x8xf32, vec> {{
  %c0 = arith.constant 0 : index
  %step = arith.constant {step} : index
  %zero = arith.constant 0.0 : f32
  %init = pypto.tile.full %zero : f32 -> !pypto.tile<4x8xf32, vec>
  %acc = {loop} %i = %lb to %ub step %step {stages}iter_args(%a = %init) -> (!pypto.tile<4x8xf32, vec>) {{
    %c4 = arith.constant 4 : index
    %row = arith.muli %i, %c4 : index
    %t = pypto.tile.load %x[%row, %c0] : !pypto.tensor<64x8xf32> -> !pypto.tile<4x8xf32, vec>
    %e = pypto.tile.exp %t : !pypto.tile<4x8xf32, vec>
    %next = pypto.tile.add %a, %e : !pypto.tile<4x8xf32, vec>
    pypto.tile.store %next, %out[%row, %c0] : !pypto.tile<4x8xf32, vec>, !pypto.tensor<64x8xf32>
    {terminator} %next : !pypto.tile<4x8xf32, vec>
  }}
  func.return %acc : !pypto.tile<4x8xf32, vec>
}}
"""


def pipeline_kernel(stages: int | None, step: int) -> str:
    """The loop of `PIPELINE` as an `scf.for` (no `stages`) or a `pypto.pipeline`."""
    if stages is None:
        return PIPELINE.format(
            loop="scf.for", stages="", terminator="scf.yield", step=step
        )
    return PIPELINE.format(
        loop="pypto.pipeline",
        stages=f"stages {stages} ",
        terminator="pypto.yield",
        step=step,
    )


def pipeline_inputs(lb: int, ub: int) -> dict[str, KernelArg]:
    return {
        "x": normal((64, 8), F32),
        "out": np.zeros((64, 8), F32),
        "lb": lb,
        "ub": ub,
    }


@pytest.mark.parametrize(
    ("lb", "ub", "step"), [(0, 16, 1), (1, 14, 3), (5, 5, 1), (9, 2, 2)]
)
def test_pipeline_stages_do_not_change_results(lb: int, ub: int, step: int) -> None:
    inputs = pipeline_inputs(lb, ub)
    reference = run_kernel(parse(pipeline_kernel(None, step)), "k", inputs)
    for stages in (1, 2, 4, 8):
        outcome = run_kernel(parse(pipeline_kernel(stages, step)), "k", inputs)
        assert compare_runs(reference, outcome) == []


def test_pipeline_computes_the_loop() -> None:
    inputs = pipeline_inputs(1, 14)
    outcome = run_kernel(parse(pipeline_kernel(4, 3)), "k", inputs)
    x = inputs["x"]
    assert isinstance(x, np.ndarray)
    expected_out = np.zeros((64, 8), F32)
    total = np.zeros((4, 8), F32)
    for i in range(1, 14, 3):
        total = total + np.exp(x[4 * i : 4 * i + 4])
        expected_out[4 * i : 4 * i + 4] = total
    assert_bits(outcome.tensors["out"], expected_out)
    assert_bits(outcome.results[0], total)


@pytest.mark.parametrize("step", [0, -1])
@pytest.mark.parametrize("loop", ["scf.for", "pypto.pipeline"])
def test_non_positive_step_is_an_error(loop: str, step: int) -> None:
    stages = "stages 2 " if loop == "pypto.pipeline" else ""
    kernel = f"""
func.func @k(%step: index) {{
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  {loop} %i = %c0 to %c4 step %step {stages}{{
  }}
  func.return
}}
"""
    message = f"{loop}: the step must be positive at run time, got {step}"
    with pytest.raises(InterpretationError, match=message):
        run(kernel, step=step)


def test_tensors_keep_their_identity_through_iter_args_and_ifs() -> None:
    kernel = """
func.func @k(%t: !pypto.tensor<4xf32>, %flag: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %same = scf.if %flag -> (!pypto.tensor<4xf32>) {
    scf.yield %t : !pypto.tensor<4xf32>
  } else {
    scf.yield %t : !pypto.tensor<4xf32>
  }
  %last = scf.for %i = %c0 to %c2 step %c1 iter_args(%u = %same) -> (!pypto.tensor<4xf32>) {
    %one = arith.constant 1.0 : f32
    %v = pypto.tile.full %one : f32 -> !pypto.tile<2xf32, vec>
    %off = arith.muli %i, %c2 : index
    pypto.tile.store %v, %u[%off] : !pypto.tile<2xf32, vec>, !pypto.tensor<4xf32>
    scf.yield %u : !pypto.tensor<4xf32>
  }
  func.return
}
"""
    outcome = run(kernel, t=np.zeros(4, F32), flag=True)
    assert_bits(outcome.tensors["t"], np.ones(4, F32))


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
# Scalar arith ops the passes and kernels use
# --------------------------------------------------------------------------- #


def scalar_kernel(op: str, operand: str, result_type: str, count: int = 2) -> str:
    params = ", ".join(f"%v{i}: {operand}" for i in range(count))
    operands = ", ".join(f"%v{i}" for i in range(count))
    signature = (
        f"{operand} to {result_type}"
        if count == 1 and operand != result_type
        else operand
    )
    return f"""
func.func @k({params}) -> {result_type} {{
  %r = arith.{op} {operands} : {signature}
  func.return %r : {result_type}
}}
"""


@pytest.mark.parametrize(
    ("op", "lhs", "rhs", "expected"),
    [
        ("addi", 2**63 - 1, 1, -(2**63)),
        ("subi", 3, 5, -2),
        ("muli", -4, 6, -24),
        ("floordivsi", -7, 2, -4),
        ("divsi", -7, 2, -3),
        ("remsi", -7, 2, -1),
        ("ceildivsi", -7, 2, -3),
        ("ceildivsi", 7, 2, 4),
        ("maxsi", -3, 2, 2),
        ("minsi", -3, 2, -3),
        ("maxui", -3, 2, -3),  # -3 is the largest unsigned value
        ("minui", -3, 2, 2),
        ("divui", -2, 2, 2**63 - 1),
        ("remui", 7, 4, 3),
        ("ceildivui", 7, 2, 4),
        ("shli", 3, 62, -(2**63) + 2**62),
        ("shrsi", -8, 1, -4),
        ("shrui", -8, 60, 15),
    ],
)
def test_integer_scalar_ops(op: str, lhs: int, rhs: int, expected: int) -> None:
    assert result(scalar_kernel(op, "index", "index"), v0=lhs, v1=rhs)[()] == expected


@pytest.mark.parametrize("op", ["shli", "shrsi", "shrui"])
def test_shift_amounts_must_be_below_the_width(op: str) -> None:
    message = f"arith.{op}: shift amount 32 is not below the bit width 32"
    with pytest.raises(InterpretationError, match=message):
        run(scalar_kernel(op, "i32", "i32"), v0=1, v1=32)


@pytest.mark.parametrize(
    "op", ["divsi", "remsi", "floordivsi", "ceildivsi", "divui", "remui"]
)
def test_integer_scalar_division_by_zero_is_an_error(op: str) -> None:
    with pytest.raises(InterpretationError, match=f"arith.{op}: division by zero"):
        run(scalar_kernel(op, "i32", "i32"), v0=1, v1=0)


@pytest.mark.parametrize(
    ("op", "lhs", "rhs", "expected"),
    [
        ("divf", 1.0, 0.0, math.inf),
        ("divf", -1.0, 0.0, -math.inf),
        ("divf", 1.0, 3.0, float(np.float32(1) / np.float32(3))),
        ("maxnumf", math.nan, 2.0, 2.0),
        ("minnumf", 1.0, math.nan, 1.0),
    ],
)
def test_float_scalar_ops(op: str, lhs: float, rhs: float, expected: float) -> None:
    assert result(scalar_kernel(op, "f32", "f32"), v0=lhs, v1=rhs)[()] == expected


def test_negf() -> None:
    assert_bits(
        result(scalar_kernel("negf", "f32", "f32", 1), v0=0.0), np.array(-0.0, F32)
    )


@pytest.mark.parametrize(
    ("op", "source", "target", "value", "expected"),
    [
        ("extsi", "i1", "i32", True, -1),
        ("extui", "i1", "i32", True, 1),
        ("extsi", "i8", "i32", -5, -5),
        ("extui", "i8", "i32", -5, 251),
        ("trunci", "i32", "i8", 300, 44),
        ("sitofp", "i32", "f32", -3, -3.0),
        ("sitofp", "i1", "f32", True, -1.0),
        ("uitofp", "i8", "f32", -1, 255.0),
        ("fptosi", "f32", "i8", -2.9, -2),
        ("fptosi", "f32", "i8", 1e6, 127),
        ("extf", "bf16", "f32", 1.5, 1.5),
        ("truncf", "f32", "bf16", 1 + 2**-8, 1.0),
    ],
)
def test_scalar_casts(
    op: str, source: str, target: str, value: Any, expected: float
) -> None:
    assert result(scalar_kernel(op, source, target, 1), v0=value)[()] == expected


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


# --------------------------------------------------------------------------- #
# The examples, against independent numpy computations
# --------------------------------------------------------------------------- #


def run_example(name: str, seed: int = 0) -> tuple[dict[str, KernelArg], KernelRun]:
    module = parse((EXAMPLES / f"{name}.mlir").read_text())
    inputs = random_inputs(find_kernel(module, name), seed)
    return inputs, run_kernel(module, name, inputs)


def test_example_add_one() -> None:
    inputs, outcome = run_example("add_one")
    x = inputs["x"]
    assert isinstance(x, np.ndarray)
    assert_bits(outcome.tensors["out"], x + np.float32(1))
    assert_bits(outcome.tensors["x"], x)


def test_example_row_softmax() -> None:
    inputs, outcome = run_example("row_softmax")
    x = np.asarray(inputs["x"], np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(
        outcome.tensors["out"], e / e.sum(axis=1, keepdims=True), rtol=1e-6
    )


def test_example_matmul() -> None:
    inputs, outcome = run_example("matmul_k_loop")
    a, b = np.asarray(inputs["a"], np.float64), np.asarray(inputs["b"], np.float64)
    np.testing.assert_allclose(outcome.tensors["c"], a @ b, rtol=1e-5, atol=1e-4)


# --------------------------------------------------------------------------- #
# The Python API
# --------------------------------------------------------------------------- #


def test_random_inputs_are_deterministic_and_typed() -> None:
    module = parse(
        "func.func @k(%x: !pypto.tensor<64xbf16>, %n: index, %i: !pypto.tile<32xi8, vec>, %f: f32) {\n"
        "  func.return\n}"
    )
    kernel = find_kernel(module, "k")
    first, again = random_inputs(kernel, 7), random_inputs(kernel, 7)
    other = random_inputs(kernel, 8)
    for name in ("x", "i", "f"):
        assert bit_identical(np.asarray(first[name]), np.asarray(again[name]))
    assert not bit_identical(np.asarray(first["x"]), np.asarray(other["x"]))
    x, i = np.asarray(first["x"]), np.asarray(first["i"])
    assert x.dtype == BF16 and x.shape == (64,)
    assert (
        i.dtype == np.int8
        and RANDOM_INT_RANGE[0] <= i.min() <= i.max() <= RANDOM_INT_RANGE[1]
    )
    assert first["n"] in range(RANDOM_INDEX_RANGE[0], RANDOM_INDEX_RANGE[1] + 1)
    assert random_inputs(kernel, 7, {"n": 42})["n"] == 42
    with pytest.raises(InterpretationError, match="no parameter named m"):
        random_inputs(kernel, 7, {"m": 1})


def test_run_kernel_checks_its_arguments() -> None:
    module = parse("func.func @k(%x: !pypto.tensor<4xf32>, %n: i8) {\n  func.return\n}")
    good: dict[str, KernelArg] = {"x": np.zeros(4, F32), "n": 3}
    run_kernel(module, "k", good)
    cases: list[tuple[dict[str, KernelArg], str]] = [
        ({"x": np.zeros(4, F32)}, r"no value for n"),
        ({**good, "y": 1}, r"no parameter named y"),
        (
            {**good, "x": np.zeros(4)},
            r"must be a \(4,\) array of float32 .* got a \(4,\) array of float64",
        ),
        ({**good, "x": np.zeros(5, F32)}, r"got a \(5,\) array"),
        ({**good, "x": 1.0}, r"argument %x must be an array"),
        ({**good, "n": 1000}, r"argument %n cannot be 1000"),
        ({**good, "n": 1.5}, r"argument %n cannot be 1.5"),
    ]
    for args, message in cases:
        with pytest.raises(InterpretationError, match=message):
            run_kernel(module, "k", args)


def test_raw_bits_from_an_npz_are_read_as_the_element_type() -> None:
    module = parse(
        "func.func @k(%x: !pypto.tensor<2xbf16>) -> !pypto.tile<2xbf16, vec> {\n"
        "  %c0 = arith.constant 0 : index\n"
        "  %t = pypto.tile.load %x[%c0] : !pypto.tensor<2xbf16> -> !pypto.tile<2xbf16, vec>\n"
        "  func.return %t : !pypto.tile<2xbf16, vec>\n}"
    )
    x = np.array([1.5, -2], BF16)
    (loaded,) = run_kernel(module, "k", {"x": x.view("V2")}).results
    assert_bits(loaded, x)


def test_entry_errors() -> None:
    module = parse("func.func private @ext()\nfunc.func @k() {\n  func.return\n}")
    with pytest.raises(
        InterpretationError, match=r"no function @nope in the module \(functions: @k\)"
    ):
        run_kernel(module, "nope", {})
    with pytest.raises(InterpretationError, match="@ext is a declaration"):
        run_kernel(module, "ext", {})


def test_compare_runs_is_bitwise() -> None:
    nan = np.array([np.nan, 0.0], F32)
    assert bit_identical(nan, nan.copy())
    assert not bit_identical(np.array([0.0], F32), np.array([-0.0], F32))
    assert not bit_identical(np.zeros(2, F32), np.zeros(2, np.float64))
    before = KernelRun({"out": np.array([1, 2, 3], F32)}, (np.array(5, np.int64),))
    after = KernelRun({"out": np.array([1, 2.5, 3.5], F32)}, (np.array(5, np.int64),))
    assert compare_runs(before, before) == []
    assert compare_runs(before, after) == [
        "out: 2 of 3 elements differ (first at [1]): 2.0 vs 2.5"
    ]
    assert describe_difference(np.array([0.1], F32), np.array([0.2], F32)) == (
        "1 of 1 elements differ (first at [0]): 0.1 vs 0.2"
    )
    assert (
        describe_difference(np.array(5), np.array(6))
        == "1 of 1 elements differ: 5 vs 6"
    )
    assert describe_difference(np.zeros(2, F32), np.zeros(3, BF16)) == "2xf32 vs 3xbf16"
    fewer = KernelRun({"out": np.array([1, 2, 3], F32)}, ())
    assert compare_runs(before, fewer) == ["result#0: only in the first run"]
