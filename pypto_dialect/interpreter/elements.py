"""
Element types: the numpy dtype of every builtin type a kernel computes with,
and the conversion rule of `pypto.tile.cast`.
"""

from __future__ import annotations

from typing import Any, TypeAlias

import ml_dtypes
import numpy as np
from numpy.typing import NDArray
from xdsl.dialects.builtin import AnyFloat, IndexType, IntegerType
from xdsl.ir import Attribute
from xdsl.utils.exceptions import InterpretationError

Array: TypeAlias = NDArray[Any]

INDEX_BITWIDTH = 64
"""`index` values are 64-bit integers."""
INDEX_TYPE = IntegerType(INDEX_BITWIDTH)
"""The integer type of `index` values."""

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
F32 = np.dtype(np.float32)
F64 = np.dtype(np.float64)
I64 = np.dtype(np.int64)
BOOL = np.dtype(np.bool_)
_ELEMENT_TYPE_NAMES = {dtype: name for name, dtype in _FLOAT_DTYPES.items()} | {
    dtype: str(typ) for typ, dtype in _INTEGER_DTYPES.items()
}


def numpy_dtype(typ: Attribute) -> np.dtype[Any]:
    """The numpy dtype holding values of a signless integer, `index` or float type."""
    if isinstance(typ, IndexType):
        return I64
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


def compute_dtype(dtype: np.dtype[Any]) -> np.dtype[Any]:
    """Where elementwise math on `dtype` happens: f32 for floats up to f32."""
    if not is_float(dtype):
        return dtype
    return F64 if dtype == F64 else F32


def convert(array: Array, dtype: np.dtype[Any]) -> Array:
    """
    `array` converted to `dtype` (the `pypto.tile.cast` rule, also used by the
    scalar `arith` casts): floats round to nearest even (numpy / ml_dtypes
    `astype`), integers become floats through f64, floats become integers by
    truncation toward zero saturating at the type's range (NaN becomes 0),
    integers wrap, and i1 is `x != 0` one way and 0 / 1 the other way.
    """
    source = array.dtype
    if dtype == BOOL:
        return array != 0
    if is_float(dtype) and not is_float(source) and source != BOOL:
        return array.astype(F64).astype(dtype)
    if dtype.kind in "iu" and is_float(source):
        return _saturate_to_int(array, dtype)
    return array.astype(dtype)


def _saturate_to_int(array: Array, dtype: np.dtype[Any]) -> Array:
    info = np.iinfo(dtype)
    truncated = np.trunc(array.astype(F64))
    # float(info.max) can round up (2**63 for i64): compare against 2**bits instead.
    too_big = truncated >= float(info.max) + 1
    too_small = truncated < info.min
    nan = np.isnan(truncated)
    result = np.where(too_big | too_small | nan, 0, truncated).astype(dtype)
    result[too_big] = info.max
    result[too_small] = info.min
    return result
