"""The interpreter's scalar `arith` ops, against Python integers and floats."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from interpreter_helpers import F32, assert_bits, result, run
from xdsl.utils.exceptions import InterpretationError


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
