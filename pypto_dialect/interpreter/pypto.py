"""
The `pypto` ops on numpy: windows of tensors and tiles, tile math, matmul and
cross-core channels. Declared allocations are storage, not values: a
binding gives its tile unchanged.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeAlias

import numpy as np
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
from xdsl.ir import Attribute, Operation
from xdsl.utils.exceptions import InterpretationError

from pypto_dialect import tile
from pypto_dialect.allocation import AllocOp, BindOp
from pypto_dialect.effects import ChannelDirection
from pypto_dialect.interpreter.elements import (
    BOOL,
    F32,
    F64,
    I64,
    Array,
    compute_dtype,
    convert,
    is_float,
    numpy_dtype,
    shaped_type_name,
)
from pypto_dialect.interpreter.scf import run_loop
from pypto_dialect.interpreter.values import (
    IntegerScalar,
    as_scalar,
    frozen,
    implementation,
    scalar_array,
)
from pypto_dialect.pipeline import PipelineOp, YieldOp
from pypto_dialect.types import TensorType, TileType

Compute: TypeAlias = Callable[..., Array]


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
    return (frozen(source[window].copy()),)


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
    if dtype == BOOL:
        raise InterpretationError(f"{op.name}: arithmetic on i1 tiles is not supported")
    if floats_only and not is_float(dtype):
        raise InterpretationError(
            f"{op.name} needs a float element type, got {dtype.name}"
        )
    wide = compute_dtype(dtype)
    try:
        result = compute(*(operand.astype(wide, copy=False) for operand in operands))
    except ZeroDivisionError:
        raise InterpretationError(f"{op.name}: integer division by zero") from None
    return frozen(result.astype(dtype, copy=False))


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
            operands[1] = scalar_array(args[1], operands[0].dtype)
        return (_math(op, compute, operands, floats_only=floats_only),)

    return implementation(op_type, body)


def _row_reduction(
    op_type: type[Operation], compute: Compute
) -> OpImpl[InterpreterFunctions, Operation]:
    """A row reduction (`_math` on the source): its scratch tile is only scratch."""

    def body(
        interpreter: Interpreter, op: Operation, args: PythonValues
    ) -> PythonValues:
        return (_math(op, compute, [args[0]], floats_only=False),)

    return implementation(op_type, body)


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
        total = np.matmul(lhs.astype(I64), rhs.astype(I64))
        if acc is not None:
            total += acc.astype(I64)
        return frozen(convert(total, dtype))
    accumulator = F64 if F64 in (lhs.dtype, dtype) else F32
    left = convert(lhs, accumulator)
    right = convert(rhs, accumulator)
    if acc is None:
        total = np.zeros((left.shape[0], right.shape[1]), accumulator)
    else:
        total = convert(acc, accumulator)
    # One k at a time: memory stays that of the result, not K times it.
    for k in range(left.shape[1]):
        total += left[:, k, np.newaxis] * right[np.newaxis, k, :]
    return frozen(convert(total, dtype))


# --------------------------------------------------------------------------- #
# The pypto ops
# --------------------------------------------------------------------------- #

CHANNELS = "channels"
"""Key of the cross-core channel ends (`ChannelEnds`) in the interpreter's data."""

Channels: TypeAlias = dict[ChannelDirection, deque[Array]]


class ChannelEnds(Protocol):
    """What a core's pushes and pops reach: its ends of the cross-core channels."""

    def push(self, op: tile.TPushOp, value: Array) -> None:
        """Send `value` down `op`'s channel."""
        ...

    def pop(self, op: tile.TPopOp) -> Array:
        """The oldest tile of `op`'s channel, taken out."""
        ...


class LocalChannels:
    """The channels of a core run alone: unbounded FIFOs, popping an empty one an error."""

    def __init__(self, queues: Channels):
        self.queues = queues

    def push(self, op: tile.TPushOp, value: Array) -> None:
        self.queues[op.channel.direction].append(value)

    def pop(self, op: tile.TPopOp) -> Array:
        queue = self.queues[op.channel.direction]
        if not queue:
            raise InterpretationError(
                f"{op.name}: the {op.channel.direction} channel is empty"
            )
        return queue.popleft()


def _channels(interpreter: Interpreter) -> ChannelEnds:
    return interpreter.get_data(
        PyPTOFunctions,
        CHANNELS,
        lambda: LocalChannels({d: deque[Array]() for d in ChannelDirection}),
    )


def _push(
    interpreter: Interpreter, op: tile.TPushOp, args: PythonValues
) -> PythonValues:
    _channels(interpreter).push(op, args[0])
    return ()


def _pop(interpreter: Interpreter, op: tile.TPopOp, args: PythonValues) -> PythonValues:
    """Take the oldest tile of the channel; it must have the result's type."""
    value = _channels(interpreter).pop(op)
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

    run_load = implementation(tile.LoadOp, _sub_tile)
    run_extract = implementation(tile.ExtractOp, _sub_tile)

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
        return (as_scalar(element, op.result.type),)

    @impl(tile.WriteOp)
    def run_write(
        self, interpreter: Interpreter, op: tile.WriteOp, args: PythonValues
    ) -> PythonValues:
        value, source, *indices = args
        index = _element(op, indices, op.tile.type)
        result = source.copy()
        result[index] = scalar_array(value, source.dtype)
        return (frozen(result),)

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
        return (frozen(convert(source, numpy_dtype(_tile_type(op).element_type))),)

    @impl(tile.FullOp)
    def run_full(
        self, interpreter: Interpreter, op: tile.FullOp, args: PythonValues
    ) -> PythonValues:
        (scalar,) = args
        result_type = _tile_type(op)
        value = scalar_array(scalar, numpy_dtype(result_type.element_type))
        return (frozen(np.full(result_type.get_shape(), value)),)

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

    run_row_sum = _row_reduction(tile.RowSumOp, _row_sum)
    run_row_max = _row_reduction(tile.RowMaxOp, _row_max)
    run_row_expand_add = _tile_math(tile.RowExpandAddOp, np.add)
    run_row_expand_sub = _tile_math(tile.RowExpandSubOp, np.subtract)
    run_row_expand_mul = _tile_math(tile.RowExpandMulOp, np.multiply)
    run_row_expand_div = _tile_math(tile.RowExpandDivOp, _divide)

    run_tpush_to_aiv = implementation(tile.TPushToAivOp, _push)
    run_tpush_to_aic = implementation(tile.TPushToAicOp, _push)
    run_tpop_from_aic = implementation(tile.TPopFromAicOp, _pop)
    run_tpop_from_aiv = implementation(tile.TPopFromAivOp, _pop)

    run_pipeline = implementation(PipelineOp, run_loop)

    @impl(AllocOp)
    def run_alloc(
        self, interpreter: Interpreter, op: AllocOp, args: PythonValues
    ) -> PythonValues:
        return (op.label,)  # a handle that only bindings use, and they ignore it

    @impl(BindOp)
    def run_bind(
        self, interpreter: Interpreter, op: BindOp, args: PythonValues
    ) -> PythonValues:
        return args[:1]  # where a tile is held does not change its value

    @impl_terminator(YieldOp)
    def run_yield(
        self, interpreter: Interpreter, op: YieldOp, args: PythonValues
    ) -> tuple[TerminatorValue, PythonValues]:
        return ReturnedValues(args), ()
