"""
Executable semantics of pypto kernels, on numpy.

`PyPTOFunctions` implements every `pypto` op for xDSL's interpreter. With
xDSL's `func` and `builtin` implementations, and `arith` / `scf` ones extended
with the scalar ops xDSL lacks and with checked loop steps, it runs whole
kernels. `run_kernel` is the entry point of `pypto-run` and of the
differential tests, `random_inputs` makes deterministic inputs and
`compare_runs` checks that two runs are bit-identical. `docs/interpreter.md`
states the semantics of every op as executed.

Runtime values: a `!pypto.tensor` is a writeable numpy array that stores write
into, a `!pypto.tile` a read-only, C-contiguous numpy array that never aliases
a tensor, and scalars are what xDSL's own implementations use: `IntegerAttr`
(`index` as i64) and `FloatAttr`.
"""

from __future__ import annotations

import operator
from collections import deque
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from math import copysign, isnan
from typing import Any, TypeAlias, cast

import ml_dtypes
import numpy as np
from numpy.typing import NDArray
from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import (
    AnyFloat,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
)
from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    OpImpl,
    PythonValues,
    ReturnedValues,
    TerminatorValue,
    impl,
    impl_terminator,
    register_impls,
)
from xdsl.interpreters.arith import ArithFunctions
from xdsl.interpreters.builtin import BuiltinFunctions
from xdsl.interpreters.cf import CfFunctions
from xdsl.interpreters.func import FuncFunctions
from xdsl.interpreters.math import MathFunctions
from xdsl.interpreters.scf import ScfFunctions
from xdsl.ir import Attribute, Operation
from xdsl.traits import SymbolTable
from xdsl.utils.comparisons import to_signed, to_unsigned
from xdsl.utils.exceptions import InterpretationError

from pypto_dialect import tile
from pypto_dialect.effects import ChannelDirection
from pypto_dialect.pipeline import PipelineOp, YieldOp
from pypto_dialect.types import TensorType, TileType

Array: TypeAlias = NDArray[Any]
IntegerScalar: TypeAlias = IntegerAttr[IntegerType]
Scalar: TypeAlias = IntegerScalar | FloatAttr
"""A runtime scalar, as xDSL's interpreter represents them."""
KernelArg: TypeAlias = Array | np.generic | int | float
"""An argument of `run_kernel`: an array for a tensor or tile, a number for a scalar."""
Compute: TypeAlias = Callable[..., Array]

INDEX_BITWIDTH = 64
"""`index` values are 64-bit integers."""

RANDOM_INDEX_RANGE = (1, 8)
"""`random_inputs` draws `index` parameters uniformly from this closed range."""
RANDOM_INT_RANGE = (-8, 7)
"""... and other integers from this one."""

# --------------------------------------------------------------------------- #
# Element types
# --------------------------------------------------------------------------- #

_FLOAT_DTYPES: dict[str, np.dtype[Any]] = {
    name: np.dtype(dtype)
    for name, dtype in (
        ("f16", np.float16),
        ("bf16", ml_dtypes.bfloat16),
        ("f32", np.float32),
        ("f64", np.float64),
        ("f8E5M2", ml_dtypes.float8_e5m2),
        ("f8E4M3", ml_dtypes.float8_e4m3),
        ("f8E4M3FN", ml_dtypes.float8_e4m3fn),
        ("f8E5M2FNUZ", ml_dtypes.float8_e5m2fnuz),
        ("f8E4M3FNUZ", ml_dtypes.float8_e4m3fnuz),
        ("f8E4M3B11FNUZ", ml_dtypes.float8_e4m3b11fnuz),
        ("f8E3M4", ml_dtypes.float8_e3m4),
        ("f8E8M0FNU", ml_dtypes.float8_e8m0fnu),
        ("f6E2M3FN", ml_dtypes.float6_e2m3fn),
        ("f6E3M2FN", ml_dtypes.float6_e3m2fn),
        ("f4E2M1FN", ml_dtypes.float4_e2m1fn),
    )
}
"""The numpy dtype of every builtin float type that has one (`ml_dtypes` for the narrow ones)."""

_INTEGER_DTYPES: dict[Attribute, np.dtype[Any]] = {
    IntegerType(1): np.dtype(np.bool_),
    IntegerType(8): np.dtype(np.int8),
    IntegerType(16): np.dtype(np.int16),
    IntegerType(32): np.dtype(np.int32),
    IntegerType(64): np.dtype(np.int64),
}
"""Signless integers are two's complement, read as signed (i1 as a bool)."""

_FLOATS = frozenset(_FLOAT_DTYPES.values())
_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)
_I64 = np.dtype(np.int64)
_BOOL = np.dtype(np.bool_)
_INDEX_TYPE = IntegerType(INDEX_BITWIDTH)
_ELEMENT_TYPE_NAMES = {dtype: name for name, dtype in _FLOAT_DTYPES.items()} | {
    dtype: str(typ) for typ, dtype in _INTEGER_DTYPES.items()
}


def numpy_dtype(typ: Attribute) -> np.dtype[Any]:
    """The numpy dtype holding values of a signless integer, `index` or float type."""
    if isinstance(typ, IndexType):
        return _I64
    if typ in _INTEGER_DTYPES:
        return _INTEGER_DTYPES[typ]
    if isinstance(typ, AnyFloat) and typ.name in _FLOAT_DTYPES:
        return _FLOAT_DTYPES[typ.name]
    raise InterpretationError(f"type {typ} has no numpy equivalent")


def shaped_type_name(array: Array) -> str:
    """The shape and MLIR element type of `array`, as in `16x64xbf16` (`f32` if 0-d)."""
    element = _ELEMENT_TYPE_NAMES.get(array.dtype, array.dtype.name)
    return "x".join([*(str(dim) for dim in array.shape), element])


def is_float(dtype: np.dtype[Any]) -> bool:
    """Whether `dtype` is one of the float dtypes (`ml_dtypes` ones are not kind 'f')."""
    return dtype in _FLOATS


def _compute_dtype(dtype: np.dtype[Any]) -> np.dtype[Any]:
    """Where elementwise math on `dtype` happens: f32 for floats up to f32."""
    if not is_float(dtype):
        return dtype
    return _F64 if dtype == _F64 else _F32


def convert(array: Array, dtype: np.dtype[Any]) -> Array:
    """
    `array` converted to `dtype` (the `pypto.tile.cast` rule, also used by the
    scalar `arith` casts): floats round to nearest even (numpy / ml_dtypes
    `astype`), integers become floats through f64, floats become integers by
    truncation toward zero saturating at the type's range (NaN becomes 0),
    integers wrap, and i1 is `x != 0` one way and 0 / 1 the other way.
    """
    source = array.dtype
    if dtype == _BOOL:
        return array != 0
    if is_float(dtype) and not is_float(source) and source != _BOOL:
        return array.astype(_F64).astype(dtype)
    if dtype.kind in "iu" and is_float(source):
        return _saturate_to_int(array, dtype)
    return array.astype(dtype)


def _saturate_to_int(array: Array, dtype: np.dtype[Any]) -> Array:
    info = np.iinfo(dtype)
    truncated = np.trunc(array.astype(_F64))
    # float(info.max) can round up (2**63 for i64): compare against 2**bits instead.
    too_big = truncated >= float(info.max) + 1
    too_small = truncated < info.min
    nan = np.isnan(truncated)
    result = np.where(too_big | too_small | nan, 0, truncated).astype(dtype)
    result[too_big] = info.max
    result[too_small] = info.min
    return result


# --------------------------------------------------------------------------- #
# Runtime values
# --------------------------------------------------------------------------- #


def _frozen(array: Array) -> Array:
    """`array` as a tile: C-contiguous and read-only."""
    array = np.ascontiguousarray(array)
    array.flags.writeable = False
    return array


def _tile_type(op: Operation) -> TileType:
    """The tile type of `op`'s single result (verified IR)."""
    result_type = op.results[0].type
    assert isinstance(result_type, TileType)
    return result_type


# --------------------------------------------------------------------------- #
# Windows
# --------------------------------------------------------------------------- #


def _window(
    op: Operation,
    offsets: Sequence[IntegerScalar],
    extents: Sequence[int],
    container: Attribute,
) -> tuple[slice, ...]:
    """The slices of the window `[offsets, offsets + extents)` of `container`, checked."""
    assert isinstance(container, TensorType | TileType)
    starts = [offset.value.data for offset in offsets]
    window = tuple(
        slice(start, start + extent)
        for start, extent in zip(starts, extents, strict=True)
    )
    if all(
        piece.start >= 0 and piece.stop <= size
        for piece, size in zip(window, container.get_shape(), strict=True)
    ):
        return window
    text = ", ".join(f"{piece.start}:{piece.stop}" for piece in window)
    raise InterpretationError(
        f"{op.name}: window [{text}] is out of bounds of {container}"
    )


def _sub_tile(
    interpreter: Interpreter, op: Operation, args: PythonValues
) -> PythonValues:
    """`load` / `extract`: a copy of the window of the first operand."""
    source, *offsets = args
    window = _window(op, offsets, _tile_type(op).get_shape(), op.operands[0].type)
    return (_frozen(source[window].copy()),)


def _element(
    op: Operation, indices: Sequence[IntegerScalar], container: Attribute
) -> tuple[int, ...]:
    """The checked index of one element of `container`."""
    assert isinstance(container, TileType)
    index = tuple(value.value.data for value in indices)
    if all(0 <= i < size for i, size in zip(index, container.get_shape(), strict=True)):
        return index
    text = ", ".join(str(i) for i in index)
    raise InterpretationError(
        f"{op.name}: index [{text}] is out of bounds of {container}"
    )


# --------------------------------------------------------------------------- #
# Scalars
# --------------------------------------------------------------------------- #


@lru_cache(maxsize=1 << 14)
def _integer_attr(value: int, typ: IntegerType) -> IntegerScalar:
    # Building an attribute costs ~20 us (it verifies itself); loops and index
    # arithmetic make the same few values over and over, and attributes are
    # immutable, so they are shared.
    return IntegerAttr(value, typ, truncate_bits=True)


def integer_scalar(value: int, typ: Attribute) -> IntegerScalar:
    """The runtime scalar of `value`, wrapped to the width of an integer or `index` type."""
    if isinstance(typ, IndexType):
        return _integer_attr(value, _INDEX_TYPE)
    assert isinstance(typ, IntegerType)
    return _integer_attr(value, cast(IntegerType, typ))


def _scalar_array(scalar: Scalar, dtype: np.dtype[Any]) -> Array:
    """A runtime scalar as a 0-d array of `dtype`."""
    return np.asarray(scalar.value.data).astype(dtype)


def _scalar(value: Array | np.generic, typ: Attribute) -> Scalar:
    """A numpy number as the runtime scalar of type `typ`."""
    if isinstance(typ, AnyFloat):
        return FloatAttr(float(value), typ)
    return integer_scalar(int(value), typ)


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


Body: TypeAlias = Callable[[Interpreter, Any, PythonValues], PythonValues]


def _implementation(
    op_type: type[Operation], body: Body
) -> OpImpl[InterpreterFunctions, Operation]:
    """`body(interpreter, op, args)` as the implementation of `op_type`."""

    @impl(op_type)
    def run(
        _: InterpreterFunctions,
        interpreter: Interpreter,
        op: Operation,
        args: PythonValues,
    ) -> PythonValues:
        return body(interpreter, op, args)

    return run


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

    return _implementation(op_type, body)


def _float_arith(
    op_type: type[Operation], compute: Callable[..., float]
) -> OpImpl[InterpreterFunctions, Operation]:
    """A float op computed on Python floats (f64), rounded to the result type."""

    def body(
        interpreter: Interpreter, op: Operation, args: PythonValues
    ) -> PythonValues:
        result = compute(*(arg.value.data for arg in args))
        return (FloatAttr(result, cast(AnyFloat, op.results[0].type)),)

    return _implementation(op_type, body)


def _integer_cast(
    op_type: type[Operation], read: Callable[[int, int], int]
) -> OpImpl[InterpreterFunctions, Operation]:
    """`extsi`, `trunci` (`read` = `to_signed`) or `extui` (`to_unsigned`)."""

    def body(
        interpreter: Interpreter, op: Operation, args: PythonValues
    ) -> PythonValues:
        value = read(args[0].value.data, _width(op.operands[0].type))
        return (integer_scalar(value, op.results[0].type),)

    return _implementation(op_type, body)


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
            source = _scalar_array(args[0], numpy_dtype(source_type))
        else:
            source = np.asarray(read(args[0].value.data, _width(source_type)))
        result_type = op.results[0].type
        return (_scalar(convert(source, numpy_dtype(result_type)), result_type),)

    return _implementation(op_type, body)


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


# --------------------------------------------------------------------------- #
# Loops
# --------------------------------------------------------------------------- #


def _run_loop(
    interpreter: Interpreter, op: scf.ForOp | PipelineOp, args: PythonValues
) -> PythonValues:
    """`scf.for` semantics; a non-positive step is an error, not an endless loop."""
    lower, upper, step, *carried = args
    step_value: int = step.value.data
    if step_value <= 0:
        raise InterpretationError(
            f"{op.name}: the step must be positive at run time, got {step_value}"
        )
    values = tuple(carried)
    for index in range(lower.value.data, upper.value.data, step_value):
        induction = integer_scalar(index, op.lb.type)
        values = interpreter.run_ssacfg_region(op.body, (induction, *values), op.name)
    return values


@register_impls
class PyPTOScfFunctions(ScfFunctions):
    """xDSL's `scf` semantics, with a run-time check of the `scf.for` step."""

    run_for = _implementation(scf.ForOp, _run_loop)


# --------------------------------------------------------------------------- #
# Tile math
# --------------------------------------------------------------------------- #


def _math(
    op: Operation, compute: Compute, operands: Sequence[Array], *, floats_only: bool
) -> Array:
    """
    `compute` applied to `operands` in their compute type, the result rounded
    once to the element type of the first operand.
    """
    dtype = operands[0].dtype
    if dtype == _BOOL:
        raise InterpretationError(f"{op.name}: arithmetic on i1 tiles is not supported")
    if floats_only and not is_float(dtype):
        raise InterpretationError(
            f"{op.name} needs a float element type, got {dtype.name}"
        )
    wide = _compute_dtype(dtype)
    try:
        result = compute(*(operand.astype(wide, copy=False) for operand in operands))
    except ZeroDivisionError:
        raise InterpretationError(f"{op.name}: integer division by zero") from None
    return _frozen(result.astype(dtype, copy=False))


def _tile_math(
    op_type: type[Operation],
    compute: Compute,
    *,
    scalar: bool = False,
    floats_only: bool = False,
) -> OpImpl[InterpreterFunctions, Operation]:
    """
    An elementwise or row op (`_math`); with `scalar`, the second operand is a
    scalar of the element type, broadcast to the tile.
    """

    def body(
        interpreter: Interpreter, op: Operation, args: PythonValues
    ) -> PythonValues:
        operands: list[Array] = list(args)
        if scalar:
            operands[1] = _scalar_array(args[1], operands[0].dtype)
        return (_math(op, compute, operands, floats_only=floats_only),)

    return _implementation(op_type, body)


def _divide(lhs: Array, rhs: Array) -> Array:
    """IEEE division for floats; for integers, truncating toward zero."""
    if is_float(lhs.dtype):
        return np.divide(lhs, rhs)
    if not np.all(rhs):
        raise ZeroDivisionError
    quotient = np.floor_divide(lhs, rhs)
    rounded_down = (quotient * rhs != lhs) & ((lhs < 0) != (rhs < 0))
    return quotient + rounded_down


def _rsqrt(x: Array) -> Array:
    return np.reciprocal(np.sqrt(x))


def _relu(x: Array) -> Array:
    return np.maximum(x, x.dtype.type(0))


def _row_sum(x: Array) -> Array:
    """The sum of each row, added left to right (`cumsum` fixes the order)."""
    return np.cumsum(x, axis=1, dtype=x.dtype)[:, -1:]


def _row_max(x: Array) -> Array:
    return np.max(x, axis=1, keepdims=True)


def _matmul(acc: Array | None, lhs: Array, rhs: Array, dtype: np.dtype[Any]) -> Array:
    """
    `acc + lhs @ rhs` (no `acc`: zero), rounded once to `dtype`.

    Integer operands and result: exact in i64, wrapped to `dtype`. Otherwise
    the accumulator is f32 (f64 when an operand or the result is f64): every
    product is rounded to it, then the products are added to the accumulator
    in increasing k, each addition rounded to it (a fixed order, unlike BLAS).
    """
    if not is_float(lhs.dtype) and not is_float(dtype):
        total = np.matmul(lhs.astype(_I64), rhs.astype(_I64))
        if acc is not None:
            total += acc.astype(_I64)
        return _frozen(convert(total, dtype))
    accumulator = _F64 if _F64 in (lhs.dtype, dtype) else _F32
    left = convert(lhs, accumulator)
    right = convert(rhs, accumulator)
    products = left.T[:, :, np.newaxis] * right[:, np.newaxis, :]
    if acc is None:
        total = np.zeros(products.shape[1:], accumulator)
    else:
        total = convert(acc, accumulator)
    for product in products:
        total += product
    return _frozen(convert(total, dtype))


# --------------------------------------------------------------------------- #
# The pypto ops
# --------------------------------------------------------------------------- #

_CHANNELS = "channels"
"""Key of the cross-core channel queues in the interpreter's data."""

Channels: TypeAlias = dict[ChannelDirection, deque[Array]]


def _channels(interpreter: Interpreter) -> Channels:
    return interpreter.get_data(
        PyPTOFunctions, _CHANNELS, lambda: {d: deque[Array]() for d in ChannelDirection}
    )


def _push(
    interpreter: Interpreter, op: tile.TPushOp, args: PythonValues
) -> PythonValues:
    _channels(interpreter)[op.channel.direction].append(args[0])
    return ()


def _pop(interpreter: Interpreter, op: tile.TPopOp, args: PythonValues) -> PythonValues:
    """Take the oldest tile of the channel; it must have the result's type."""
    queue = _channels(interpreter)[op.channel.direction]
    if not queue:
        raise InterpretationError(
            f"{op.name}: the {op.channel.direction} channel is empty"
        )
    value = queue.popleft()
    result_type = _tile_type(op)
    expected = (result_type.get_shape(), numpy_dtype(result_type.element_type))
    if (value.shape, value.dtype) != expected:
        raise InterpretationError(
            f"{op.name}: popped a {shaped_type_name(value)} tile, expected "
            f"{result_type}"
        )
    return (value,)


@register_impls
class PyPTOFunctions(InterpreterFunctions):
    """numpy semantics of the `pypto` ops."""

    run_load = _implementation(tile.LoadOp, _sub_tile)
    run_extract = _implementation(tile.ExtractOp, _sub_tile)

    @impl(tile.StoreOp)
    def run_store(
        self, interpreter: Interpreter, op: tile.StoreOp, args: PythonValues
    ) -> PythonValues:
        value, destination, *offsets = args
        destination[_window(op, offsets, value.shape, op.dst.type)] = value
        return ()

    @impl(tile.ReadOp)
    def run_read(
        self, interpreter: Interpreter, op: tile.ReadOp, args: PythonValues
    ) -> PythonValues:
        source, *indices = args
        element = source[_element(op, indices, op.tile.type)]
        return (_scalar(element, op.result.type),)

    @impl(tile.WriteOp)
    def run_write(
        self, interpreter: Interpreter, op: tile.WriteOp, args: PythonValues
    ) -> PythonValues:
        value, source, *indices = args
        index = _element(op, indices, op.tile.type)
        result = source.copy()
        result[index] = _scalar_array(value, source.dtype)
        return (_frozen(result),)

    @impl(tile.MoveOp)
    def run_move(
        self, interpreter: Interpreter, op: tile.MoveOp, args: PythonValues
    ) -> PythonValues:
        return args  # tiles are immutable: the same array serves both spaces

    @impl(tile.MatmulOp)
    def run_matmul(
        self, interpreter: Interpreter, op: tile.MatmulOp, args: PythonValues
    ) -> PythonValues:
        lhs, rhs = args
        return (_matmul(None, lhs, rhs, numpy_dtype(_tile_type(op).element_type)),)

    @impl(tile.MatmulAccOp)
    def run_matmul_acc(
        self, interpreter: Interpreter, op: tile.MatmulAccOp, args: PythonValues
    ) -> PythonValues:
        acc, lhs, rhs = args
        return (_matmul(acc, lhs, rhs, acc.dtype),)

    @impl(tile.CastOp)
    def run_cast(
        self, interpreter: Interpreter, op: tile.CastOp, args: PythonValues
    ) -> PythonValues:
        (source,) = args
        return (_frozen(convert(source, numpy_dtype(_tile_type(op).element_type))),)

    @impl(tile.FullOp)
    def run_full(
        self, interpreter: Interpreter, op: tile.FullOp, args: PythonValues
    ) -> PythonValues:
        (scalar,) = args
        result_type = _tile_type(op)
        value = _scalar_array(scalar, numpy_dtype(result_type.element_type))
        return (_frozen(np.full(result_type.get_shape(), value)),)

    run_add = _tile_math(tile.AddOp, np.add)
    run_sub = _tile_math(tile.SubOp, np.subtract)
    run_mul = _tile_math(tile.MulOp, np.multiply)
    run_div = _tile_math(tile.DivOp, _divide)
    run_max = _tile_math(tile.MaxOp, np.maximum)
    run_min = _tile_math(tile.MinOp, np.minimum)

    run_adds = _tile_math(tile.AddsOp, np.add, scalar=True)
    run_subs = _tile_math(tile.SubsOp, np.subtract, scalar=True)
    run_muls = _tile_math(tile.MulsOp, np.multiply, scalar=True)
    run_divs = _tile_math(tile.DivsOp, _divide, scalar=True)
    run_maxs = _tile_math(tile.MaxsOp, np.maximum, scalar=True)
    run_mins = _tile_math(tile.MinsOp, np.minimum, scalar=True)

    run_exp = _tile_math(tile.ExpOp, np.exp, floats_only=True)
    run_neg = _tile_math(tile.NegOp, np.negative)
    run_abs = _tile_math(tile.AbsOp, np.abs)
    run_sqrt = _tile_math(tile.SqrtOp, np.sqrt, floats_only=True)
    run_rsqrt = _tile_math(tile.RsqrtOp, _rsqrt, floats_only=True)
    run_recip = _tile_math(tile.RecipOp, np.reciprocal, floats_only=True)
    run_relu = _tile_math(tile.ReluOp, _relu)

    run_row_sum = _tile_math(tile.RowSumOp, _row_sum)
    run_row_max = _tile_math(tile.RowMaxOp, _row_max)
    run_row_expand_add = _tile_math(tile.RowExpandAddOp, np.add)
    run_row_expand_sub = _tile_math(tile.RowExpandSubOp, np.subtract)
    run_row_expand_mul = _tile_math(tile.RowExpandMulOp, np.multiply)
    run_row_expand_div = _tile_math(tile.RowExpandDivOp, _divide)

    run_tpush_to_aiv = _implementation(tile.TPushToAivOp, _push)
    run_tpush_to_aic = _implementation(tile.TPushToAicOp, _push)
    run_tpop_from_aic = _implementation(tile.TPopFromAicOp, _pop)
    run_tpop_from_aiv = _implementation(tile.TPopFromAivOp, _pop)

    run_pipeline = _implementation(PipelineOp, _run_loop)

    @impl_terminator(YieldOp)
    def run_yield(
        self, interpreter: Interpreter, op: YieldOp, args: PythonValues
    ) -> tuple[TerminatorValue, PythonValues]:
        return ReturnedValues(args), ()


# --------------------------------------------------------------------------- #
# Running kernels
# --------------------------------------------------------------------------- #


def kernel_interpreter(
    module: ModuleOp, listeners: Sequence[Interpreter.Listener] = ()
) -> Interpreter:
    """
    An interpreter for `module` that knows builtin, func, arith, scf, pypto
    and what upstream lowerings produce from them (cf, math),
    reporting every op it runs to `listeners`.
    """
    interpreter = Interpreter(
        module, index_bitwidth=INDEX_BITWIDTH, listeners=tuple(listeners)
    )
    for functions in (
        BuiltinFunctions(),
        FuncFunctions(),
        CfFunctions(),
        MathFunctions(),
        PyPTOArithFunctions(),
        PyPTOScfFunctions(),
        PyPTOFunctions(),
    ):
        interpreter.register_implementations(functions)
    return interpreter


@dataclass(frozen=True)
class KernelRun:
    """What a kernel run leaves behind."""

    tensors: dict[str, Array]
    """The final contents of every tensor parameter, by parameter name."""
    results: tuple[Array, ...]
    """The function's results (scalars as 0-d arrays)."""
    channels: dict[ChannelDirection, tuple[Array, ...]] = field(
        default_factory=dict[ChannelDirection, tuple[Array, ...]]
    )
    """The tiles pushed to a cross-core channel and not popped, oldest first."""

    def outputs(self) -> dict[str, Array]:
        """
        Every output under one name: tensors by parameter name, results as
        `result#i`, unpopped channel tiles as `<direction>#i`.
        """
        outputs = dict(self.tensors)
        outputs.update((f"result#{i}", value) for i, value in enumerate(self.results))
        for direction, tiles in self.channels.items():
            outputs.update((f"{direction}#{i}", value) for i, value in enumerate(tiles))
        return outputs


def kernel_names(module: ModuleOp) -> list[str]:
    """The functions of `module` that have a body."""
    return [
        op.sym_name.data
        for op in module.ops
        if isinstance(op, func.FuncOp) and not op.is_declaration
    ]


def find_kernel(module: ModuleOp, entry: str) -> func.FuncOp:
    """The function `@entry` of `module`."""
    kernel = SymbolTable.lookup_symbol(module, entry)
    if not isinstance(kernel, func.FuncOp):
        available = ", ".join(f"@{name}" for name in kernel_names(module)) or "none"
        raise InterpretationError(
            f"no function @{entry} in the module (functions: {available})"
        )
    if kernel.is_declaration:
        raise InterpretationError(f"@{entry} is a declaration, it has no body to run")
    return kernel


def parameter_names(kernel: func.FuncOp) -> tuple[str, ...]:
    """The parameters' names: their SSA name, or `arg<i>` when they have none."""
    names = tuple(arg.name_hint or f"arg{arg.index}" for arg in kernel.args)
    if len(set(names)) != len(names):
        raise InterpretationError(
            f"@{kernel.sym_name.data} has parameters with the same name: {names}"
        )
    return names


def run_kernel(
    module: ModuleOp,
    entry: str,
    args: Mapping[str, KernelArg],
    *,
    channels: Mapping[ChannelDirection, Sequence[Array]] | None = None,
    listeners: Sequence[Interpreter.Listener] = (),
) -> KernelRun:
    """
    Run `@entry` of the (verified) `module` on `args`, given by parameter name:
    arrays of the exact shape and dtype for tensors and tiles, numbers for
    scalars. Tensors are copied in, so the caller's arrays are not modified.
    `channels` holds tiles waiting in cross-core channels before the run;
    `listeners` observe every op the interpreter runs.
    Any problem, in the arguments or during the run, raises `InterpretationError`.
    """
    kernel = find_kernel(module, entry)
    names = parameter_names(kernel)
    _check_names(kernel, names, args.keys(), complete=True)
    types = kernel.function_type.inputs.data
    values = tuple(
        _runtime_value(name, typ, args[name])
        for name, typ in zip(names, types, strict=True)
    )
    queues = {
        direction: deque(
            _frozen(np.array(value)) for value in (channels or {}).get(direction, ())
        )
        for direction in ChannelDirection
    }
    interpreter = kernel_interpreter(module, listeners)
    interpreter.set_data(PyPTOFunctions, _CHANNELS, queues)
    with np.errstate(all="ignore"):
        results = interpreter.call_op(kernel, values)
    return KernelRun(
        tensors={
            name: value
            for name, typ, value in zip(names, types, values, strict=True)
            if isinstance(typ, TensorType)
        },
        results=tuple(
            _output_array(value, typ)
            for value, typ in zip(results, kernel.function_type.outputs, strict=True)
        ),
        channels={
            direction: tuple(queue) for direction, queue in queues.items() if queue
        },
    )


def _check_names(
    kernel: func.FuncOp,
    names: Sequence[str],
    given: Collection[str],
    *,
    complete: bool,
) -> None:
    """Raise unless `given` names only parameters (all of them when `complete`)."""
    problems: list[str] = []
    if unknown := sorted(set(given) - set(names)):
        problems.append(f"no parameter named {', '.join(unknown)}")
    if complete and (missing := [name for name in names if name not in given]):
        problems.append(f"no value for {', '.join(missing)}")
    if problems:
        raise InterpretationError(
            f"@{kernel.sym_name.data}: {'; '.join(problems)} "
            f"(parameters: {', '.join(names)})"
        )


def _runtime_value(name: str, typ: Attribute, value: KernelArg) -> Any:
    """The interpreter value of the argument `value` for parameter `%name`."""
    if isinstance(typ, TensorType | TileType):
        array = _argument_array(name, typ, value)
        return _frozen(array) if isinstance(typ, TileType) else array
    if _is_scalar_type(typ):
        return _argument_scalar(name, typ, value)
    raise InterpretationError(
        f"parameter %{name} has type {typ}, which kernels cannot take"
    )


def _is_scalar_type(typ: Attribute) -> bool:
    return isinstance(typ, IndexType | IntegerType | AnyFloat)


def _argument_array(name: str, typ: TensorType | TileType, value: KernelArg) -> Array:
    """A private, C-contiguous copy of `value`, checked against `typ`."""
    dtype = numpy_dtype(typ.element_type)
    if not isinstance(value, np.ndarray):
        raise InterpretationError(
            f"argument %{name} must be an array for {typ}, got {type(value).__name__}"
        )
    if value.dtype.type is np.void and value.dtype.itemsize == dtype.itemsize:
        value = value.view(dtype)  # raw bits, e.g. bf16 saved in an .npz
    if value.shape != typ.get_shape() or value.dtype != dtype:
        raise InterpretationError(
            f"argument %{name} must be a {typ.get_shape()} array of {dtype.name} "
            f"for {typ}, got a {value.shape} array of {value.dtype.name}"
        )
    return np.array(value, order="C")


def _argument_scalar(name: str, typ: Attribute, value: KernelArg) -> Scalar:
    """The runtime scalar of type `typ` for the argument `value`."""
    dtype = numpy_dtype(typ)
    number = np.asarray(value)
    if number.dtype.type is np.void and number.dtype.itemsize == dtype.itemsize:
        number = number.view(dtype)  # raw bits, e.g. bf16 saved in an .npz
    if number.shape:
        raise InterpretationError(
            f"argument %{name} must be a number for {typ}, got an array of shape "
            f"{number.shape}"
        )
    if is_float(dtype) and (is_float(number.dtype) or number.dtype.kind in "iub"):
        return FloatAttr(float(number), cast(AnyFloat, typ))
    if not is_float(dtype) and number.dtype.kind in "iub":
        integer_type = (
            _INDEX_TYPE if isinstance(typ, IndexType) else cast(IntegerType, typ)
        )
        if integer_type.normalized_value(int(number)) is not None:
            return integer_scalar(int(number), typ)
    raise InterpretationError(
        f"argument %{name} cannot be {value!r}: not a value of type {typ}"
    )


def _output_array(value: Any, typ: Attribute) -> Array:
    """A run's result as a standalone array (scalars 0-d)."""
    if isinstance(value, IntegerAttr | FloatAttr):
        return _scalar_array(cast(Scalar, value), numpy_dtype(typ))
    return np.array(value)


def random_inputs(
    kernel: func.FuncOp,
    seed: int,
    overrides: Mapping[str, KernelArg] | None = None,
) -> dict[str, KernelArg]:
    """
    Deterministic arguments for `kernel`, by parameter name. Each parameter
    draws from its own generator seeded with `(seed, position)`, so its value
    depends only on the seed, its position and its type: floats from the
    standard normal distribution (rounded to the element type), integers
    uniformly from `RANDOM_INT_RANGE`, i1 from {false, true}, and `index`
    parameters, typically bounds or trip counts, uniformly from
    `RANDOM_INDEX_RANGE`. `overrides` replaces values by name.
    """
    names = parameter_names(kernel)
    _check_names(kernel, names, (overrides or {}).keys(), complete=False)
    inputs: dict[str, KernelArg] = {}
    for position, (name, typ) in enumerate(
        zip(names, kernel.function_type.inputs.data, strict=True)
    ):
        rng = np.random.default_rng((seed, position))
        if isinstance(typ, IndexType):
            low, high = RANDOM_INDEX_RANGE
            inputs[name] = int(rng.integers(low, high, endpoint=True))
        elif isinstance(typ, TensorType | TileType):
            inputs[name] = _random_array(
                rng, typ.get_shape(), numpy_dtype(typ.element_type)
            )
        else:
            inputs[name] = _random_array(rng, (), numpy_dtype(typ))
    inputs.update(overrides or {})
    return inputs


def _random_array(
    rng: np.random.Generator, shape: tuple[int, ...], dtype: np.dtype[Any]
) -> Array:
    if is_float(dtype):
        return convert(rng.standard_normal(shape), dtype)
    if dtype == _BOOL:
        return rng.integers(0, 1, shape, dtype=dtype, endpoint=True)
    low, high = RANDOM_INT_RANGE
    return rng.integers(low, high, shape, dtype=dtype, endpoint=True)


# --------------------------------------------------------------------------- #
# Comparing runs
# --------------------------------------------------------------------------- #


def _bits(array: Array) -> Array:
    return array.view(np.dtype(f"u{array.dtype.itemsize}"))


def bit_identical(lhs: Array, rhs: Array) -> bool:
    """Same dtype, shape and bits (NaNs equal to themselves, -0.0 differs from 0.0)."""
    return (
        lhs.dtype == rhs.dtype
        and lhs.shape == rhs.shape
        and np.array_equal(_bits(lhs), _bits(rhs))
    )


def compare_runs(expected: KernelRun, actual: KernelRun) -> list[str]:
    """One line per output that is not bit-identical in the two runs; empty if none."""
    lhs, rhs = expected.outputs(), actual.outputs()
    differences: list[str] = []
    for name in [*lhs, *(name for name in rhs if name not in lhs)]:
        if name not in rhs:
            differences.append(f"{name}: only in the first run")
        elif name not in lhs:
            differences.append(f"{name}: only in the second run")
        elif not bit_identical(lhs[name], rhs[name]):
            differences.append(f"{name}: {describe_difference(lhs[name], rhs[name])}")
    return differences


def describe_difference(lhs: Array, rhs: Array) -> str:
    """How two arrays that are not bit-identical differ."""
    if lhs.dtype != rhs.dtype or lhs.shape != rhs.shape:
        return f"{shaped_type_name(lhs)} vs {shaped_type_name(rhs)}"
    differs = _bits(lhs) != _bits(rhs)
    first = tuple(int(i) for i in np.argwhere(differs)[0])
    where = f" (first at [{', '.join(map(str, first))}])" if first else ""
    return (
        f"{np.count_nonzero(differs)} of {lhs.size} elements differ{where}: "
        f"{lhs[first]!s} vs {rhs[first]!s}"
    )
