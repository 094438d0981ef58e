"""
Runtime values: tiles as read-only numpy arrays, scalars as the attributes
xDSL's interpreter uses, and `implementation`, which makes an op
implementation of a function on them.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any, TypeAlias, cast

import numpy as np
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
)
from xdsl.ir import Attribute, Operation

from pypto_dialect.interpreter.elements import INDEX_TYPE, Array

IntegerScalar: TypeAlias = IntegerAttr[IntegerType]
Scalar: TypeAlias = IntegerScalar | FloatAttr
"""A runtime scalar, as xDSL's interpreter represents them."""


def frozen(array: Array) -> Array:
    """`array` as a tile: C-contiguous and read-only."""
    array = np.ascontiguousarray(array)
    array.flags.writeable = False
    return array


@lru_cache(maxsize=1 << 14)
def _integer_attr(value: int, typ: IntegerType) -> IntegerScalar:
    # Building an attribute costs ~20 us (it verifies itself); loops and index
    # arithmetic make the same few values over and over, and attributes are
    # immutable, so they are shared.
    return IntegerAttr(value, typ, truncate_bits=True)


def integer_scalar(value: int, typ: Attribute) -> IntegerScalar:
    """The runtime scalar of `value`, wrapped to the width of an integer or `index` type."""
    if isinstance(typ, IndexType):
        return _integer_attr(value, INDEX_TYPE)
    assert isinstance(typ, IntegerType)
    return _integer_attr(value, cast(IntegerType, typ))


def scalar_array(scalar: Scalar, dtype: np.dtype[Any]) -> Array:
    """A runtime scalar as a 0-d array of `dtype`."""
    return np.asarray(scalar.value.data).astype(dtype)


def as_scalar(value: Array | np.generic, typ: Attribute) -> Scalar:
    """A numpy number as the runtime scalar of type `typ`."""
    if isinstance(typ, AnyFloat):
        return FloatAttr(float(value), typ)
    return integer_scalar(int(value), typ)


Body: TypeAlias = Callable[[Interpreter, Any, PythonValues], PythonValues]


def implementation(
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
