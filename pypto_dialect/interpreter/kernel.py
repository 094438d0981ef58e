"""
Running kernels: the interpreter with every implementation registered,
`run_kernel` with its argument checks, and `random_inputs`.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeAlias, cast

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    AnyFloat,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
)
from xdsl.interpreter import Interpreter
from xdsl.interpreters.builtin import BuiltinFunctions
from xdsl.interpreters.func import FuncFunctions
from xdsl.interpreters.math import MathFunctions
from xdsl.ir import Attribute, Operation, OpResult
from xdsl.traits import SymbolTable
from xdsl.utils.exceptions import InterpretationError

from pypto_dialect.effects import ChannelDirection
from pypto_dialect.interpreter.arith import PyPTOArithFunctions
from pypto_dialect.interpreter.elements import (
    BOOL,
    INDEX_BITWIDTH,
    INDEX_TYPE,
    Array,
    convert,
    is_float,
    numpy_dtype,
)
from pypto_dialect.interpreter.pypto import (
    CHANNELS,
    ChannelEnds,
    LocalChannels,
    PyPTOFunctions,
)
from pypto_dialect.interpreter.scf import (
    ITERATIONS_LEFT,
    PyPTOCfFunctions,
    PyPTOScfFunctions,
)
from pypto_dialect.interpreter.values import (
    Scalar,
    frozen,
    integer_scalar,
    scalar_array,
)
from pypto_dialect.interpreter_limits import (
    DEFAULT_MAX_ELEMENTS,
    DEFAULT_MAX_ITERATIONS,
)
from pypto_dialect.types import TensorType, TileType
from pypto_dialect.walks import walk_ops
from pypto_dialect.xdsl_internals import call_op, new_interpreter

KernelArg: TypeAlias = Array | np.generic | int | float
"""An argument of `run_kernel`: an array for a tensor or tile, a number for a scalar."""

RANDOM_INDEX_RANGE = (1, 8)
"""`random_inputs` draws `index` parameters uniformly from this closed range."""
RANDOM_INT_RANGE = (-8, 7)
"""... and other integers from this one."""


def kernel_interpreter(
    module: ModuleOp, listeners: Sequence[Interpreter.Listener] = ()
) -> Interpreter:
    """
    An interpreter for `module` that knows builtin, func, arith, scf, pypto
    and what upstream lowerings produce from them (cf, math),
    reporting every op it runs to `listeners`.
    """
    interpreter = new_interpreter(module, INDEX_BITWIDTH, tuple(listeners))
    for functions in (
        BuiltinFunctions(),
        FuncFunctions(),
        PyPTOCfFunctions(),
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
    channel_ends: ChannelEnds | None = None,
    listeners: Sequence[Interpreter.Listener] = (),
    max_iterations: int = DEFAULT_MAX_ITERATIONS,
    max_elements: int = DEFAULT_MAX_ELEMENTS,
) -> KernelRun:
    """
    Run `@entry` of the (verified) `module` on `args`, given by parameter name:
    arrays of the exact shape and dtype for tensors and tiles, numbers for
    scalars. Tensors are copied in, so the caller's arrays are not modified.
    `channels` holds tiles waiting in cross-core channels before the run;
    `channel_ends`, instead, what the pushes and pops reach (another core's
    ends, `cores.py`: the run's `channels` is then empty);
    `listeners` observe every op the interpreter runs; the loops of the run
    may iterate (and its branches be taken) `max_iterations` times in all; no
    tensor or tile of the kernel, or of a function it calls, may hold more
    than `max_elements` elements.
    Any problem, in the arguments or during the run, raises `InterpretationError`.
    """
    kernel = find_kernel(module, entry)
    check_array_sizes(kernel, max_elements)
    names = parameter_names(kernel)
    _check_names(kernel, names, args.keys(), complete=True)
    types = kernel.function_type.inputs.data
    values = tuple(
        _runtime_value(name, typ, args[name])
        for name, typ in zip(names, types, strict=True)
    )
    queues = {
        direction: deque(
            frozen(np.array(value)) for value in (channels or {}).get(direction, ())
        )
        for direction in ChannelDirection
    }
    interpreter = kernel_interpreter(module, listeners)
    interpreter.set_data(
        PyPTOFunctions,
        CHANNELS,
        LocalChannels(queues) if channel_ends is None else channel_ends,
    )
    interpreter.set_data(PyPTOScfFunctions, ITERATIONS_LEFT, max_iterations)
    try:
        with np.errstate(all="ignore"):
            results = call_op(interpreter, kernel, values)
    except RecursionError:
        raise InterpretationError(
            f"@{entry}: its ops are nested too deeply to run"
        ) from None
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


def check_array_sizes(kernel: func.FuncOp, max_elements: int) -> None:
    """
    Raise `InterpretationError`, located at the op, at the first tensor or
    tile type (a result, or an argument of a block of the op) with more than
    `max_elements` elements in `kernel` or a function it calls.
    """
    functions: list[Operation] = [kernel]
    seen: set[Operation] = {kernel}
    while functions:
        for op in walk_ops(functions.pop()):
            _check_op_sizes(op, max_elements)
            if not isinstance(op, func.CallOp):
                continue
            callee = SymbolTable.lookup_symbol(op, op.callee)
            if callee is not None and callee not in seen:
                seen.add(callee)
                functions.append(callee)


def _check_op_sizes(op: Operation, max_elements: int) -> None:
    """`check_array_sizes` for the results of `op` and the arguments of its blocks."""
    arguments = [
        arg for region in op.regions for block in region.blocks for arg in block.args
    ]
    for value in (*op.results, *arguments):
        typ = value.type
        if not isinstance(typ, TensorType | TileType):
            continue
        count = math.prod(typ.get_shape())
        if count <= max_elements:
            continue
        what = "result" if isinstance(value, OpResult) else "block argument"
        if value.name_hint is not None:
            what += f" %{value.name_hint}"
        message = (
            f"{op.name}: {what} of type {typ} has {count:,} elements, more than "
            f"a run may hold ({max_elements:,}); raise the limit with "
            "--max-elements (pypto-run) or max_elements (run_kernel)"
        )
        op.emit_error(message, InterpretationError(message))


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
        return frozen(array) if isinstance(typ, TileType) else array
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
            INDEX_TYPE if isinstance(typ, IndexType) else cast(IntegerType, typ)
        )
        if integer_type.normalized_value(int(number)) is not None:
            return integer_scalar(int(number), typ)
    raise InterpretationError(
        f"argument %{name} cannot be {value!r}: not a value of type {typ}"
    )


def _output_array(value: Any, typ: Attribute) -> Array:
    """A run's result as a standalone array (scalars 0-d)."""
    if isinstance(value, IntegerAttr | FloatAttr):
        return scalar_array(cast(Scalar, value), numpy_dtype(typ))
    return np.array(value)


def random_inputs(
    kernel: func.FuncOp,
    seed: int,
    overrides: Mapping[str, KernelArg] | None = None,
    *,
    max_elements: int = DEFAULT_MAX_ELEMENTS,
) -> dict[str, KernelArg]:
    """
    Deterministic arguments for `kernel`, by parameter name. Each parameter
    draws from its own generator seeded with `(seed, position)`, so its value
    depends only on the seed, its position and its type: floats from the
    standard normal distribution (rounded to the element type), integers
    uniformly from `RANDOM_INT_RANGE`, i1 from {false, true}, and `index`
    parameters, typically bounds or trip counts, uniformly from
    `RANDOM_INDEX_RANGE`. `overrides` replaces values by name. No parameter
    may hold more than `max_elements` elements (`run_kernel` checks the rest).
    """
    _check_op_sizes(kernel, max_elements)  # the parameters: its blocks' arguments
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
    if dtype == BOOL:
        return rng.integers(0, 1, shape, dtype=dtype, endpoint=True)
    low, high = RANDOM_INT_RANGE
    return rng.integers(low, high, shape, dtype=dtype, endpoint=True)
