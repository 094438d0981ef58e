"""Helpers of the interpreter tests: parsing, running `@k`, building kernels."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np
from helpers import parse
from numpy.typing import NDArray

from pypto_dialect.interpreter import KernelArg, KernelRun, bit_identical, run_kernel

BF16 = np.dtype(ml_dtypes.bfloat16)
F32 = np.dtype(np.float32)

Array = NDArray[Any]


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
