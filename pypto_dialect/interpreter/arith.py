"""The `arith` ops: xDSL's implementations, plus the scalar ops they lack."""

from __future__ import annotations

import operator
from collections.abc import Callable
from math import copysign, isnan
from typing import cast

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    AnyFloat,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
)
from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    OpImpl,
    PythonValues,
    impl,
    register_impls,
)
from xdsl.interpreters.arith import ArithFunctions
from xdsl.ir import Attribute, Operation
from xdsl.utils.comparisons import to_signed, to_unsigned
from xdsl.utils.exceptions import InterpretationError

from pypto_dialect.interpreter.elements import INDEX_BITWIDTH, convert, numpy_dtype
from pypto_dialect.interpreter.values import (
    as_scalar,
    implementation,
    integer_scalar,
    scalar_array,
)


def _width(typ: Attribute) -> int:
    if isinstance(typ, IndexType):
        return INDEX_BITWIDTH
    return cast(IntegerType, typ).width.data


def _truncating_div(lhs: int, rhs: int) -> int:
    quotient = abs(lhs) // abs(rhs)
    return -quotient if (lhs < 0) != (rhs < 0) else quotient


def _truncating_rem(lhs: int, rhs: int) -> int:
    return lhs - rhs * _truncating_div(lhs, rhs)


def _ceil_div(lhs: int, rhs: int) -> int:
    return -(-lhs // rhs)


def _ieee_divide(lhs: float, rhs: float) -> float:
    if rhs != 0:
        return lhs / rhs
    if lhs == 0 or isnan(lhs):
        return float("nan")
    return copysign(float("inf"), lhs) * copysign(1.0, rhs)


def _max_number(lhs: float, rhs: float) -> float:
    """`arith.maxnumf`: a NaN loses against a number."""
    return rhs if isnan(lhs) else lhs if isnan(rhs) else max(lhs, rhs)


def _min_number(lhs: float, rhs: float) -> float:
    """`arith.minnumf`: a NaN loses against a number."""
    return rhs if isnan(lhs) else lhs if isnan(rhs) else min(lhs, rhs)


def _nonzero_divisor(divisor: int, width: int) -> str | None:
    return "division by zero" if divisor == 0 else None


def _shift_in_range(amount: int, width: int) -> str | None:
    if 0 <= amount < width:
        return None
    return f"shift amount {amount} is not below the bit width {width}"


def _integer_binary(
    op_type: type[Operation],
    compute: Callable[[int, int], int],
    *,
    signed: bool = True,
    guard: Callable[[int, int], str | None] | None = None,
) -> OpImpl[InterpreterFunctions, Operation]:
    """
    A binary integer op: operands read as signed or unsigned, the result
    wrapped. `guard(rhs, width)` names a right operand the op is undefined
    for (MLIR: poison or undefined behaviour), which is then an error.
    """
    read = to_signed if signed else to_unsigned

    def body(
        interpreter: Interpreter, op: Operation, args: PythonValues
    ) -> PythonValues:
        width = _width(op.operands[0].type)
        lhs, rhs = (read(arg.value.data, width) for arg in args)
        if guard is not None and (problem := guard(rhs, width)):
            raise InterpretationError(f"{op.name}: {problem}")
        return (integer_scalar(compute(lhs, rhs), op.results[0].type),)

    return implementation(op_type, body)


def _float_arith(
    op_type: type[Operation], compute: Callable[..., float]
) -> OpImpl[InterpreterFunctions, Operation]:
    """A float op computed on Python floats (f64), rounded to the result type."""

    def body(
        interpreter: Interpreter, op: Operation, args: PythonValues
    ) -> PythonValues:
        result = compute(*(arg.value.data for arg in args))
        return (FloatAttr(result, cast(AnyFloat, op.results[0].type)),)

    return implementation(op_type, body)


def _integer_cast(
    op_type: type[Operation], read: Callable[[int, int], int]
) -> OpImpl[InterpreterFunctions, Operation]:
    """`extsi`, `trunci` (`read` = `to_signed`) or `extui` (`to_unsigned`)."""

    def body(
        interpreter: Interpreter, op: Operation, args: PythonValues
    ) -> PythonValues:
        value = read(args[0].value.data, _width(op.operands[0].type))
        return (integer_scalar(value, op.results[0].type),)

    return implementation(op_type, body)


def _float_cast(
    op_type: type[Operation], read: Callable[[int, int], int] = to_signed
) -> OpImpl[InterpreterFunctions, Operation]:
    """
    A cast to or from a float, by the rule of `pypto.tile.cast` (`convert`);
    integer operands are read with `read` (`to_signed` or `to_unsigned`).
    """

    def body(
        interpreter: Interpreter, op: Operation, args: PythonValues
    ) -> PythonValues:
        source_type = op.operands[0].type
        if isinstance(source_type, AnyFloat):
            source = scalar_array(args[0], numpy_dtype(source_type))
        else:
            source = np.asarray(read(args[0].value.data, _width(source_type)))
        result_type = op.results[0].type
        return (as_scalar(convert(source, numpy_dtype(result_type)), result_type),)

    return implementation(op_type, body)


@register_impls
class PyPTOArithFunctions(ArithFunctions):
    """
    xDSL's `arith` semantics, plus the scalar ops it lacks. Integer division
    by zero and out-of-range shift amounts are interpretation errors (xDSL
    asserts). The hot ops (constants, index arithmetic) are reimplemented with
    cached attributes: xDSL's build a new attribute per result, and its
    `arith.constant` checks types with a slow generic `isa`.
    """

    @impl(arith.ConstantOp)
    def run_constant(
        self, interpreter: Interpreter, op: arith.ConstantOp, args: PythonValues
    ) -> PythonValues:
        value = op.value
        if isinstance(value, IntegerAttr):
            return (integer_scalar(value.value.data, value.type),)
        if isinstance(value, FloatAttr):
            return (value,)
        return super().run_constant(interpreter, op, args).values

    run_addi = _integer_binary(arith.AddiOp, operator.add)
    run_subi = _integer_binary(arith.SubiOp, operator.sub)
    run_muli = _integer_binary(arith.MuliOp, operator.mul)
    run_divsi = _integer_binary(arith.DivSIOp, _truncating_div, guard=_nonzero_divisor)
    run_remsi = _integer_binary(arith.RemSIOp, _truncating_rem, guard=_nonzero_divisor)
    run_floordivsi = _integer_binary(
        arith.FloorDivSIOp, int.__floordiv__, guard=_nonzero_divisor
    )
    run_ceildivsi = _integer_binary(
        arith.CeilDivSIOp, _ceil_div, guard=_nonzero_divisor
    )
    run_divui = _integer_binary(
        arith.DivUIOp, int.__floordiv__, signed=False, guard=_nonzero_divisor
    )
    run_remui = _integer_binary(
        arith.RemUIOp, operator.mod, signed=False, guard=_nonzero_divisor
    )
    run_ceildivui = _integer_binary(
        arith.CeilDivUIOp, _ceil_div, signed=False, guard=_nonzero_divisor
    )
    run_maxsi = _integer_binary(arith.MaxSIOp, max)
    run_minsi = _integer_binary(arith.MinSIOp, min)
    run_maxui = _integer_binary(arith.MaxUIOp, max, signed=False)
    run_minui = _integer_binary(arith.MinUIOp, min, signed=False)

    run_shli = _integer_binary(arith.ShLIOp, int.__lshift__, guard=_shift_in_range)
    run_shrsi = _integer_binary(arith.ShRSIOp, int.__rshift__, guard=_shift_in_range)
    run_shrui = _integer_binary(
        arith.ShRUIOp, int.__rshift__, signed=False, guard=_shift_in_range
    )

    run_divf = _float_arith(arith.DivfOp, _ieee_divide)
    run_negf = _float_arith(arith.NegfOp, float.__neg__)
    run_maxnumf = _float_arith(arith.MaxnumfOp, _max_number)
    run_minnumf = _float_arith(arith.MinnumfOp, _min_number)

    run_extsi = _integer_cast(arith.ExtSIOp, to_signed)
    run_extui = _integer_cast(arith.ExtUIOp, to_unsigned)
    run_trunci = _integer_cast(arith.TruncIOp, to_signed)
    run_sitofp = _float_cast(arith.SIToFPOp)
    run_uitofp = _float_cast(arith.UIToFPOp, to_unsigned)
    run_fptosi = _float_cast(arith.FPToSIOp)
    run_extf = _float_cast(arith.ExtFOp)
    run_truncf = _float_cast(arith.TruncFOp)
